// Temporary files of this test process. ctest runs the tests of one binary
// in parallel processes, so each process has a directory of its own, removed
// when the process exits.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

#include <unistd.h>

namespace accelcheck::test {

inline const std::filesystem::path& ProcessTempDir() {
  static const struct Dir {
    std::filesystem::path path;
    Dir()
        : path(std::filesystem::temp_directory_path() /
               ("accelcheck_" + std::to_string(::getpid()))) {
      std::filesystem::create_directories(path);
    }
    ~Dir() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } dir;
  return dir.path;
}

inline std::filesystem::path ProcessTempPath(const std::string& name) {
  return ProcessTempDir() / name;
}

}  // namespace accelcheck::test
