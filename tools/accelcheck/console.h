// What the commands print on standard error besides their results: the
// diagnostics of the files they read, filtered by --quiet, and a progress
// line for long runs (README.md "Quiet runs and progress").
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>

#include "validators/core/sink.h"

namespace accelcheck::cli {

// Whether `d` fails the command: an error, or a warning under --werror.
bool Fails(const Diagnostic& d, const Profile& profile);

// Each diagnostic of `sink` as a text line on standard error; under --quiet
// only those that fail the command.
void PrintDiagnostics(const DiagnosticSink& sink, bool quiet);

// When and where progress is drawn: set once per command, shared by its phases.
struct ProgressOptions {
  using Clock = std::chrono::steady_clock;

  bool enabled = false;
  Clock::time_point start = Clock::now();  // when the command started
  Clock::duration delay = std::chrono::seconds(2);
  Clock::duration period = std::chrono::milliseconds(200);
  std::ostream* out = nullptr;  // standard error when null
};

// Enabled when standard error is a terminal and the command is not --quiet;
// the command's time starts now.
ProgressOptions ProgressFor(bool quiet);

// The progress line of one phase of a command: "accelcheck run: executing
// workloads 120/480 (25%), 12 s". Nothing is drawn before the command has run
// for `delay`; then a thread of its own redraws the line every `period`,
// reading counters the work updates with two relaxed stores, and the line is
// erased when the phase ends. Disabled, it starts no thread and draws nothing.
class Progress {
 public:
  // `total` is what Set and Advance count towards; 0 when unknown, and the
  // line then shows only the time spent.
  Progress(const ProgressOptions& options, std::string what, uint64_t total = 0);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void Set(uint64_t done, uint64_t total) {
    total_.store(total, std::memory_order_relaxed);
    done_.store(done, std::memory_order_relaxed);
  }
  void Advance() { done_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void Run();
  std::string Line() const;

  const ProgressOptions options_;
  const std::string what_;
  std::atomic<uint64_t> done_{0};
  std::atomic<uint64_t> total_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

}  // namespace accelcheck::cli
