#include "validators/core/limits.h"

#include <cstdlib>

#include "validators/core/core_rules.h"

namespace accelcheck {

std::span<const LimitInfo> AllLimits() {
  static const LimitInfo kLimits[] = {
#define LIMIT(field, flag, def, unit, rule, help) \
  {flag, unit, help, def, &Limits::field, &core_rules::rule},
#include "validators/core/limits.def"
#undef LIMIT
  };
  return kLimits;
}

const LimitInfo& FindLimit(const Rule& rule) {
  for (const LimitInfo& limit : AllLimits()) {
    if (limit.rule == &rule) return limit;
  }
  // Only the rules of limits.def are limits: asking for another is a bug.
  std::abort();
}

Deadline::Deadline(uint64_t budget_ms)
    : end_(std::chrono::steady_clock::now() + std::chrono::milliseconds(budget_ms)),
      unlimited_(budget_ms == 0) {}

bool Deadline::expired() const { return !unlimited_ && std::chrono::steady_clock::now() > end_; }

}  // namespace accelcheck
