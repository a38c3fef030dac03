// What the format benchmarks share: the best time of several runs, reading
// an input as the tool reads it, one validation by a format, the timing of
// every real file of a directory, and their command lines' flags.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/format.h"
#include "validators/core/limits.h"

namespace accelcheck::bench {

// The word after `name` among `args`, or `fallback`.
inline std::string FlagValue(const std::vector<std::string>& args, const std::string& name,
                             const std::string& fallback) {
  const auto it = std::find(args.begin(), args.end(), name);
  return it != args.end() && it + 1 != args.end() ? *(it + 1) : fallback;
}

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

// The files of `dir` with one of `extensions`, in name order; none when
// `dir` is not a directory.
inline std::vector<std::filesystem::path> CorpusFiles(const std::string& dir,
                                                      const std::vector<std::string>& extensions) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string ext = entry.path().extension().string();
    if (std::find(extensions.begin(), extensions.end(), ext) != extensions.end())
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Validates every file of `dir` with one of `extensions` by `format`, best
// of `repeat`, one line per file in name order: 3 when one cannot be read.
inline int ValidateCorpus(const char* tool, const Format& format, const std::string& dir,
                          const std::vector<std::string>& extensions, int repeat) {
  for (const auto& path : CorpusFiles(dir, extensions)) {
    InputBuffer input;
    if (!ReadInput(tool, path.string(), &input)) return 3;
    uint64_t errors = 0;
    const double seconds =
        BestSeconds(repeat, [&] { errors = ValidateOnce(format, input, path.string()); });
    std::printf("%-60s %9zu B %10.1f us %3llu errors\n", path.filename().c_str(), input.size(),
                seconds * 1e6, static_cast<unsigned long long>(errors));
  }
  return 0;
}

}  // namespace accelcheck::bench
