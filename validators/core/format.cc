#include "validators/core/format.h"

#include "validators/core/core_rules.h"

namespace accelcheck {

const Rule* FindRuleOf(const Format& format, std::string_view id) {
  for (const Rule* rule : core_rules::All()) {
    if (rule->id == id) return rule;
  }
  for (const Rule* rule : format.rules()) {
    if (rule->id == id) return rule;
  }
  return nullptr;
}

}  // namespace accelcheck
