// Resource limits (docs/ARCHITECTURE.md "Limits"): one struct, filled with defaults from
// limits.def, each exposed as a CLI flag from the same table.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string_view>

#include "validators/core/diagnostic.h"

namespace accelcheck {

struct Limits {
#define LIMIT(field, flag, def, unit, rule, help) uint64_t field = def;
#include "validators/core/limits.def"
#undef LIMIT
};

struct LimitInfo {
  std::string_view flag;
  std::string_view unit;
  std::string_view help;
  uint64_t default_value;
  uint64_t Limits::*field;
  const Rule* rule;  // the diagnostic reported when the limit is hit
};

std::span<const LimitInfo> AllLimits();
// The row whose limit `rule` reports (one of the core.limit.* rules).
const LimitInfo& FindLimit(const Rule& rule);

// Measures the time budget of one file. Checked between phases and in long
// loops; expired() is cheap enough for per-object use.
class Deadline {
 public:
  explicit Deadline(uint64_t budget_ms);
  bool expired() const;

 private:
  std::chrono::steady_clock::time_point end_;
  bool unlimited_;
};

}  // namespace accelcheck
