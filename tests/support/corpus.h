// The real files of ../shared/corpus for tests: each format's folder, and a
// file's bytes. A test skips, saying where it looked, when the corpus is
// absent.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace accelcheck::test {

inline std::filesystem::path CorpusDir(const std::string& format) {
  return std::filesystem::path(ACCELCHECK_CORPUS_DIR) / format;
}

// The files of the corpus's `format` folder ending in `extension`, sorted;
// empty when the folder is absent.
inline std::vector<std::filesystem::path> CorpusFiles(const std::string& format,
                                                      const std::string& extension) {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path dir = CorpusDir(format);
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == extension) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

inline std::vector<uint8_t> ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace accelcheck::test
