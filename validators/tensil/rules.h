// The Tensil rule table (rules.def), as Rule objects.
#pragma once

#include <string>

#include "validators/core/diagnostic.h"

namespace accelcheck::tensil {

namespace rules {
#define TENSIL_RULE(name, id, sev, strict, cat, title, source) extern const Rule name;
#include "validators/tensil/rules.def"
#undef TENSIL_RULE
}  // namespace rules

RuleTable AllRules();

// A location known only by its object path (JSON values have no byte offset).
inline Location AtPath(std::string path) {
  return Location{std::nullopt, std::nullopt, std::move(path)};
}

}  // namespace accelcheck::tensil
