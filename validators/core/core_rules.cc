#include "validators/core/core_rules.h"

namespace accelcheck::core_rules {

#define CORE_RULE(name, id, sev, strict, cat, title, source, why_not_error) \
  const Rule name{id, Severity::sev, Severity::strict, Category::cat, title, source, why_not_error};
#include "validators/core/core_rules.def"
#undef CORE_RULE

RuleTable All() {
  static const Rule* const kTable[] = {
#define CORE_RULE(name, id, sev, strict, cat, title, source, why_not_error) &name,
#include "validators/core/core_rules.def"
#undef CORE_RULE
  };
  return kTable;
}

}  // namespace accelcheck::core_rules
