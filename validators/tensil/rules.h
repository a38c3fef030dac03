// The Tensil rule table (rules.def), as Rule objects.
#pragma once

#include "validators/core/diagnostic.h"

namespace accelcheck::tensil {

namespace rules {
#define TENSIL_RULE(name, id, sev, strict, cat, title, source, why_not_error) \
  extern const Rule name;
#include "validators/tensil/rules.def"
#undef TENSIL_RULE
}  // namespace rules

RuleTable AllRules();

}  // namespace accelcheck::tensil
