// The Gemini scheduler IR rule table (rules.def), as Rule objects.
#pragma once

#include "validators/core/diagnostic.h"

namespace accelcheck::gemini {

namespace rules {
#define GEMINI_RULE(name, id, sev, strict, cat, title, source, why_not_error) \
  extern const Rule name;
#include "validators/gemini/rules.def"
#undef GEMINI_RULE
}  // namespace rules

RuleTable AllRules();

}  // namespace accelcheck::gemini
