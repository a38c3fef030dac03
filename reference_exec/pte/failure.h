// How a run of a .pte ends early: the outcome categories of
// docs/ARCHITECTURE.md "Diagnostics" that an execution can have. Kernels and
// the interpreter throw RunFailure; Method::Step is the one place that
// catches it, so no exception leaves the executor.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "validators/core/diagnostic.h"

namespace accelcheck::pte::exec {

enum class Outcome : uint8_t {
  kUnsupported,  // a delegate, operator, dtype or layout this executor does not run
  kInvalid,      // the program breaks a kernel's contract (shapes, dtypes, argument kinds)
  kLimit,        // --max-instructions, --max-tensor-bytes or --max-arena-bytes
  kInternal,     // a failure inside the executor (a bug), never a verdict on the file
};

const char* OutcomeName(Outcome outcome);

class RunFailure : public std::runtime_error {
 public:
  RunFailure(Outcome outcome, std::string message, const Rule* limit = nullptr)
      : std::runtime_error(std::move(message)), outcome_(outcome), limit_(limit) {}
  Outcome outcome() const { return outcome_; }
  // For kLimit: the core.limit.* rule of the limit that was hit.
  const Rule* limit() const { return limit_; }

 private:
  Outcome outcome_;
  const Rule* limit_;
};

[[noreturn]] inline void Unsupported(std::string message) {
  throw RunFailure(Outcome::kUnsupported, std::move(message));
}
[[noreturn]] inline void Invalid(std::string message) {
  throw RunFailure(Outcome::kInvalid, std::move(message));
}
[[noreturn]] inline void LimitHit(const Rule& limit, std::string message) {
  throw RunFailure(Outcome::kLimit, std::move(message), &limit);
}

}  // namespace accelcheck::pte::exec
