// Rules that belong to no format: limits, I/O and format detection.
#pragma once

#include "validators/core/diagnostic.h"

namespace accelcheck::core_rules {

#define CORE_RULE(name, id, sev, strict, cat, title, source, why_not_error) extern const Rule name;
#include "validators/core/core_rules.def"
#undef CORE_RULE

RuleTable All();

}  // namespace accelcheck::core_rules
