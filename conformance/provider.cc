#include "conformance/provider.h"

#include <filesystem>

namespace accelcheck::conformance {

const MutationCase* Provider::FindCase(std::string_view rule_id) const {
  for (const MutationCase& c : Cases()) {
    if (c.rule->id == rule_id) return &c;
  }
  return nullptr;
}

OrDeclined<AppliedCase> ApplyToFirstBase(const MutationCase& mutation,
                                         const std::vector<Base>& bases) {
  Declined last{"no base"};
  for (const Base& base : bases) {
    if (mutation.needs_companions && base.companions.empty()) continue;
    const std::string name =
        FileId(mutation.rule->id) + std::filesystem::path(base.files[0].name).extension().string();
    OrDeclined<Mutated> applied = mutation.apply(base, 0, name);
    if (auto* mutated = std::get_if<Mutated>(&applied))
      return AppliedCase{&base, std::move(*mutated)};
    last = std::move(std::get<Declined>(applied));
  }
  return last;
}

std::string FileId(std::string_view rule_id) {
  std::string s(rule_id);
  for (char& ch : s) {
    if (ch == '.') ch = '_';
  }
  return s;
}

}  // namespace accelcheck::conformance
