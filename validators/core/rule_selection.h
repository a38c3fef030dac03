// Rule selection (docs/ARCHITECTURE.md "Rule selection"): --disable, --enable,
// --error and --warning over rule ids and "prefix.*" patterns, applied in the
// order given, the later winning, as clang-tidy applies its checks.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/diagnostic.h"

namespace accelcheck {

enum class RuleAction : uint8_t { kDisable, kEnable, kError, kWarning };

// "disable", "enable", "error", "warning": the option that gives the action.
std::string_view RuleActionName(RuleAction action);

struct RuleDirective {
  RuleAction action;
  std::string pattern;  // a rule id, "prefix.*" or "*"
};

// Whether `pattern` selects the rule `id`: the id itself, every id that
// starts with "prefix." for "prefix.*", every id for "*".
bool PatternMatches(std::string_view pattern, std::string_view id);

// A limit, I/O or internal diagnostic says that the verdict is unknown: no
// option disables it, downgrades it or lets a baseline accept it.
bool IsProtected(const Rule& rule);

// What the selection makes of one rule.
struct RuleSetting {
  bool disabled = false;
  std::optional<Severity> severity;  // set by --error or --warning
};

class RuleSelection {
 public:
  RuleSelection() = default;

  // Checks each directive against `catalogue` (every rule of every format):
  // a pattern of another shape, one that matches no rule, and a disable or
  // warning that could only apply to protected rules are errors, with the
  // reason in `error`.
  static std::optional<RuleSelection> Make(std::vector<RuleDirective> directives,
                                           std::span<const Rule* const> catalogue,
                                           std::string* error);

  bool empty() const { return directives_.empty(); }
  // Enablement follows the last --disable or --enable that matches the rule,
  // the severity the last --error or --warning; protected rules keep their own.
  RuleSetting For(const Rule& rule) const;

 private:
  explicit RuleSelection(std::vector<RuleDirective> directives)
      : directives_(std::move(directives)) {}

  std::vector<RuleDirective> directives_;
};

}  // namespace accelcheck
