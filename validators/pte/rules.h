// The .pte / .ptd rule table (rules.def), as Rule objects.
#pragma once

#include "validators/core/diagnostic.h"

namespace accelcheck::pte {

namespace rules {
#define PTE_RULE(name, id, sev, strict, cat, title, source, why_not_error) extern const Rule name;
#include "validators/pte/rules.def"
#undef PTE_RULE
}  // namespace rules

RuleTable AllRules();

}  // namespace accelcheck::pte
