// The real files of ../shared/corpus for tests: each format's folder, and a
// file's bytes. A test skips, saying where it looked, when the corpus is
// absent.
//
// kKnownFailures lists the real files the validator still rejects, each with
// the rule that rejects it and the finding that will fix it. The tests that
// hold real files to zero errors leave them out, and
// tests/api/known_failures_test.cc fails as soon as one of them validates
// clean or fails by another rule, so that the list cannot go stale.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace accelcheck::test {

struct KnownFailure {
  std::string_view path;  // under the corpus: "neff/x.neff"
  std::string_view rule;  // the rule whose errors reject it today
  std::string_view why;   // the finding of issue 31 that fixes it
};

inline constexpr KnownFailure kKnownFailures[] = {
    {"neff/trn1_pax_stream_256k_fd1k.neff", "neff.tar.entry_type",
     "issue 31 item 1: pax extended headers are read as unknown entries"},
};

inline bool IsKnownFailure(const std::filesystem::path& file) {
  const std::string name = (file.parent_path().filename() / file.filename()).generic_string();
  return std::any_of(std::begin(kKnownFailures), std::end(kKnownFailures),
                     [&](const KnownFailure& k) { return k.path == name; });
}

inline std::filesystem::path CorpusDir(const std::string& format) {
  return std::filesystem::path(ACCELCHECK_CORPUS_DIR) / format;
}

// The files of the corpus's `format` folder ending in `extension`, sorted,
// known failures left out; empty when the folder is absent.
inline std::vector<std::filesystem::path> CorpusFiles(const std::string& format,
                                                      const std::string& extension) {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path dir = CorpusDir(format);
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == extension && !IsKnownFailure(entry.path()))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

inline std::vector<uint8_t> ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace accelcheck::test
