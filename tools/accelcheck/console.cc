#include "tools/accelcheck/console.h"

#include <iostream>

#include <unistd.h>

#include "validators/core/report.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

bool Fails(const Diagnostic& d, const Profile& profile) {
  return d.severity == Severity::kError || (profile.werror && d.severity == Severity::kWarning);
}

void PrintDiagnostics(const DiagnosticSink& sink, bool quiet) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (!quiet || Fails(d, sink.profile())) std::cerr << TextLine(d) << "\n";
  }
}

ProgressOptions ProgressFor(bool quiet) {
  ProgressOptions options;
  options.enabled = !quiet && ::isatty(STDERR_FILENO) == 1;
  return options;
}

Progress::Progress(const ProgressOptions& options, std::string what, uint64_t total)
    : options_(options), what_(std::move(what)), total_(total) {
  if (options_.enabled) thread_ = std::thread([this] { Run(); });
}

Progress::~Progress() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::string Progress::Line() const {
  const uint64_t done = done_.load(std::memory_order_relaxed);
  const uint64_t total = total_.load(std::memory_order_relaxed);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           ProgressOptions::Clock::now() - options_.start)
                           .count();
  std::string line = what_;
  if (total > 0) line += Str(" ", done, "/", total, " (", done * 100 / total, "%)");
  return Str(line, ", ", seconds, " s");
}

// "\r" and "erase to the end of the line" (ECMA-48 EL): each drawing replaces
// the last, and the last is erased before the command prints anything else.
void Progress::Run() {
  std::ostream& out = options_.out != nullptr ? *options_.out : std::cerr;
  constexpr const char* kErase = "\r\x1b[K";
  std::unique_lock<std::mutex> lock(mutex_);
  wake_.wait_until(lock, options_.start + options_.delay, [this] { return stop_; });
  while (!stop_) {
    out << kErase << Line() << std::flush;
    drawn_ = true;
    wake_.wait_for(lock, options_.period, [this] { return stop_; });
  }
  if (drawn_) out << kErase << std::flush;
}

}  // namespace accelcheck::cli
