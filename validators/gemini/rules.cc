#include "validators/gemini/rules.h"

namespace accelcheck::gemini {

namespace rules {
#define GEMINI_RULE(name, id, sev, strict, cat, title, source, why_not_error) \
  const Rule name{id, Severity::sev, Severity::strict, Category::cat, title, source, why_not_error};
#include "validators/gemini/rules.def"
#undef GEMINI_RULE
}  // namespace rules

RuleTable AllRules() {
  static const Rule* const kTable[] = {
#define GEMINI_RULE(name, id, sev, strict, cat, title, source, why_not_error) &rules::name,
#include "validators/gemini/rules.def"
#undef GEMINI_RULE
  };
  return kTable;
}

}  // namespace accelcheck::gemini
