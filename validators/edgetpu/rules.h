// The Edge TPU rule table (rules.def), as Rule objects.
#pragma once

#include "validators/core/diagnostic.h"

namespace accelcheck::edgetpu {

namespace rules {
#define EDGETPU_RULE(name, id, sev, strict, cat, title, source, why_not_error) \
  extern const Rule name;
#include "validators/edgetpu/rules.def"
#undef EDGETPU_RULE
}  // namespace rules

RuleTable AllRules();

}  // namespace accelcheck::edgetpu
