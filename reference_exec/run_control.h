// What a command hands an executor for a long run: the deadline of its
// --time-budget-ms, which bounds the whole command (validation and run), and
// where the executor tells how far it got, for a progress line (README.md
// "Quiet runs and progress"). The executors check the deadline in their loops
// and stop with `out_of_time` set in their result.
#pragma once

#include <cstdint>
#include <functional>

#include "validators/core/limits.h"

namespace accelcheck {

struct RunControl {
  Deadline deadline{0};  // no limit by default
  // Called now and then with the units of work done and the total (workloads,
  // instructions); may be empty.
  std::function<void(uint64_t done, uint64_t total)> progress;

  void Report(uint64_t done, uint64_t total) const {
    if (progress) progress(done, total);
  }
};

}  // namespace accelcheck
