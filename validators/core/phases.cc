#include "validators/core/phases.h"

#include "validators/core/core_rules.h"
#include "validators/core/text.h"

namespace accelcheck {

bool OutOfTime(const ValidateContext& context, DiagnosticSink& sink) {
  if (!context.deadline.expired()) return false;
  if (!sink.Has(core_rules::kLimitTime)) {
    sink.Report(
        core_rules::kLimitTime, {},
        Str("validation stopped after --time-budget-ms ", context.limits.time_budget_ms, " ms"));
  }
  return true;
}

}  // namespace accelcheck
