#include "validators/core/rule_selection.h"

#include <utility>

#include "validators/core/text.h"

namespace accelcheck {

namespace {

constexpr std::string_view kAnyRule = "*";
constexpr std::string_view kPrefixSuffix = ".*";

// A rule id, "prefix.*" or "*": a star anywhere else would suggest a glob
// this matching does not do.
bool WellFormed(std::string_view pattern) {
  if (pattern == kAnyRule) return true;
  if (pattern.ends_with(kPrefixSuffix)) pattern.remove_suffix(kPrefixSuffix.size());
  return !pattern.empty() && pattern.find('*') == std::string_view::npos;
}

std::string Spelled(const RuleDirective& directive) {
  return Str("--", RuleActionName(directive.action), " ", directive.pattern);
}

// Why `directive` selects nothing it could change, or nothing.
std::optional<std::string> Problem(const RuleDirective& directive,
                                   std::span<const Rule* const> catalogue) {
  if (!WellFormed(directive.pattern)) {
    return Str(Spelled(directive), ": a rule is named by its id, by PREFIX.* or by *");
  }
  size_t matched = 0;
  size_t changeable = 0;
  for (const Rule* rule : catalogue) {
    if (!PatternMatches(directive.pattern, rule->id)) continue;
    ++matched;
    if (!IsProtected(*rule)) ++changeable;
  }
  if (matched == 0) {
    return Str(Spelled(directive), ": matches no rule of any format (accelcheck rules lists them)");
  }
  const bool lowers =
      directive.action == RuleAction::kDisable || directive.action == RuleAction::kWarning;
  if (lowers && changeable == 0) {
    return Str(Spelled(directive),
               ": limit, I/O and internal diagnostics (core.limit.*, core.io.*, "
               "core.internal) say the verdict is unknown and can be neither disabled nor "
               "downgraded");
  }
  return std::nullopt;
}

}  // namespace

std::string_view RuleActionName(RuleAction action) {
  switch (action) {
    case RuleAction::kDisable:
      return "disable";
    case RuleAction::kEnable:
      return "enable";
    case RuleAction::kError:
      return "error";
    case RuleAction::kWarning:
      return "warning";
  }
  return "disable";
}

bool PatternMatches(std::string_view pattern, std::string_view id) {
  if (pattern == kAnyRule) return true;
  if (pattern.ends_with(kPrefixSuffix)) {
    pattern.remove_suffix(1);  // keeps the dot: "pte.*" is not "pteX.y"
    return id.starts_with(pattern);
  }
  return id == pattern;
}

bool IsProtected(const Rule& rule) {
  return rule.category == Category::kLimit || rule.category == Category::kInternal;
}

std::optional<RuleSelection> RuleSelection::Make(std::vector<RuleDirective> directives,
                                                 std::span<const Rule* const> catalogue,
                                                 std::string* error) {
  for (const RuleDirective& directive : directives) {
    if (std::optional<std::string> problem = Problem(directive, catalogue)) {
      *error = std::move(*problem);
      return std::nullopt;
    }
  }
  return RuleSelection(std::move(directives));
}

RuleSetting RuleSelection::For(const Rule& rule) const {
  RuleSetting setting;
  if (IsProtected(rule)) return setting;
  for (const RuleDirective& directive : directives_) {
    if (!PatternMatches(directive.pattern, rule.id)) continue;
    switch (directive.action) {
      case RuleAction::kDisable:
      case RuleAction::kEnable:
        setting.disabled = directive.action == RuleAction::kDisable;
        break;
      case RuleAction::kError:
        setting.severity = Severity::kError;
        break;
      case RuleAction::kWarning:
        setting.severity = Severity::kWarning;
        break;
    }
  }
  return setting;
}

}  // namespace accelcheck
