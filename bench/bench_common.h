// What the format benchmarks share: the best time of several runs, reading
// an input as the tool reads it, and one validation by a format.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "validators/core/bytes.h"
#include "validators/core/format.h"
#include "validators/core/limits.h"

namespace accelcheck::bench {

// The shortest of `repeat` runs of `run`, in seconds.
template <typename F>
double BestSeconds(int repeat, F&& run) {
  using Clock = std::chrono::steady_clock;
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) {
    const auto start = Clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

// Reads `path` under the default --max-file-size; false, with the reason on
// standard error after `tool`'s name, when it cannot.
inline bool ReadInput(const char* tool, const std::string& path, InputBuffer* out) {
  std::string error;
  auto input = ReadFileLimited(path, Limits{}.max_file_size, &error);
  if (!input) {
    std::fprintf(stderr, "%s: %s: %s\n", tool, path.c_str(), error.c_str());
    return false;
  }
  *out = std::move(*input);
  return true;
}

// One validation of `input` by `format` in the default profile: its errors.
inline uint64_t ValidateOnce(const Format& format, const InputBuffer& input,
                             const std::string& path) {
  ValidateContext context;
  context.path = path;
  DiagnosticSink sink(Profile{}, path);
  format.Validate(input, context, sink);
  return sink.error_count();
}

}  // namespace accelcheck::bench
