#include "validators/pte/rules.h"

namespace accelcheck::pte {

namespace rules {
#define PTE_RULE(name, id, sev, strict, cat, title, source, why_not_error) \
  const Rule name{id, Severity::sev, Severity::strict, Category::cat, title, source, why_not_error};
#include "validators/pte/rules.def"
#undef PTE_RULE
}  // namespace rules

RuleTable AllRules() {
  static const Rule* const kTable[] = {
#define PTE_RULE(name, id, sev, strict, cat, title, source, why_not_error) &rules::name,
#include "validators/pte/rules.def"
#undef PTE_RULE
  };
  return kTable;
}

}  // namespace accelcheck::pte
