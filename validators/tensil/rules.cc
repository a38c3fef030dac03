#include "validators/tensil/rules.h"

namespace accelcheck::tensil {

namespace rules {
#define TENSIL_RULE(name, id, sev, strict, cat, title, source, why_not_error) \
  const Rule name{id, Severity::sev, Severity::strict, Category::cat, title, source, why_not_error};
#include "validators/tensil/rules.def"
#undef TENSIL_RULE
}  // namespace rules

RuleTable AllRules() {
  static const Rule* const kTable[] = {
#define TENSIL_RULE(name, id, sev, strict, cat, title, source, why_not_error) &rules::name,
#include "validators/tensil/rules.def"
#undef TENSIL_RULE
  };
  return kTable;
}

}  // namespace accelcheck::tensil
