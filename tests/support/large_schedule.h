// A generated Gemini schedule of several MB, with its frontend IR: far more
// than a millisecond of work to validate or run, for the time-budget tests.
#pragma once

#include <sstream>
#include <string>

#include "conformance/gemini/generate.h"

namespace accelcheck::test {

struct GeneratedSchedule {
  std::string ir;
  std::string frontend;
  std::string error;  // why the generator refused; empty on success
};

inline GeneratedSchedule LargeSchedule() {
  gemini::GenerateOptions options;
  options.layers = 120;
  options.mesh_x = 2;
  options.mesh_y = 2;
  options.height = 256;
  options.tiles = 16;
  std::ostringstream ir;
  std::ostringstream frontend;
  GeneratedSchedule schedule;
  if (auto error = gemini::GenerateIr(options, ir, frontend)) schedule.error = *error;
  schedule.ir = ir.str();
  schedule.frontend = frontend.str();
  return schedule;
}

}  // namespace accelcheck::test
