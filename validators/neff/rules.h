// The AWS Neuron NEFF rule table (rules.def), as Rule objects.
#pragma once

#include "validators/core/diagnostic.h"

namespace accelcheck::neff {

namespace rules {
#define NEFF_RULE(name, id, sev, strict, cat, title, source, why_not_error) extern const Rule name;
#include "validators/neff/rules.def"
#undef NEFF_RULE
}  // namespace rules

RuleTable AllRules();

}  // namespace accelcheck::neff
