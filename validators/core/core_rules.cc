#include "validators/core/core_rules.h"

namespace accelcheck::core_rules {

#define CORE_RULE(name, id, sev, strict, cat, title, source) \
  const Rule name{id, Severity::sev, Severity::strict, Category::cat, title, source};
#include "validators/core/core_rules.def"
#undef CORE_RULE

RuleTable All() {
  static const Rule* const kTable[] = {
#define CORE_RULE(name, id, sev, strict, cat, title, source) &name,
#include "validators/core/core_rules.def"
#undef CORE_RULE
  };
  return kTable;
}

}  // namespace accelcheck::core_rules
