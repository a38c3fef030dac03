// A temporary file name of this test process: ctest runs the tests of one
// binary in parallel processes, so a fixed name would be shared between them.
#pragma once

#include <filesystem>
#include <string>

#include <unistd.h>

namespace accelcheck::test {

inline std::filesystem::path ProcessTempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("accelcheck_" + std::to_string(::getpid()) + "_" + name);
}

}  // namespace accelcheck::test
