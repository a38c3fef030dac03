#include "validators/edgetpu/rules.h"

namespace accelcheck::edgetpu {

namespace rules {
#define EDGETPU_RULE(name, id, sev, strict, cat, title, source, why_not_error) \
  const Rule name{id, Severity::sev, Severity::strict, Category::cat, title, source, why_not_error};
#include "validators/edgetpu/rules.def"
#undef EDGETPU_RULE
}  // namespace rules

RuleTable AllRules() {
  static const Rule* const kTable[] = {
#define EDGETPU_RULE(name, id, sev, strict, cat, title, source, why_not_error) &rules::name,
#include "validators/edgetpu/rules.def"
#undef EDGETPU_RULE
  };
  return kTable;
}

}  // namespace accelcheck::edgetpu
