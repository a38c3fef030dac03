#include "validators/neff/rules.h"

namespace accelcheck::neff {

namespace rules {
#define NEFF_RULE(name, id, sev, strict, cat, title, source, why_not_error) \
  const Rule name{id, Severity::sev, Severity::strict, Category::cat, title, source, why_not_error};
#include "validators/neff/rules.def"
#undef NEFF_RULE
}  // namespace rules

RuleTable AllRules() {
  static const Rule* const kTable[] = {
#define NEFF_RULE(name, id, sev, strict, cat, title, source, why_not_error) &rules::name,
#include "validators/neff/rules.def"
#undef NEFF_RULE
  };
  return kTable;
}

}  // namespace accelcheck::neff
