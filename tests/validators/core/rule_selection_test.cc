#include "validators/core/rule_selection.h"

#include <gtest/gtest.h>

#include "validators/core/core_rules.h"
#include "validators/core/text.h"

namespace accelcheck {
namespace {

const Rule kBounds{"pte.segment.bounds", Severity::kError, Severity::kError,
                   Category::kInvalid,   "segment bounds", "test"};
const Rule kOverlap{"pte.segment.overlap", Severity::kWarning, Severity::kError,
                    Category::kInvalid,    "segment overlap",  "test"};
const Rule kVersion{"pte.file.version", Severity::kError, Severity::kError,
                    Category::kInvalid, "version",        "test"};
const Rule* const kRules[] = {&kBounds,
                              &kOverlap,
                              &kVersion,
                              &core_rules::kLimitDepth,
                              &core_rules::kIoRead,
                              &core_rules::kInternalError,
                              &core_rules::kFormatUnknown};

std::string ErrorOf(std::vector<RuleDirective> directives) {
  std::string error;
  EXPECT_FALSE(RuleSelection::Make(std::move(directives), kRules, &error));
  return error;
}

TEST(RuleSelectionTest, PatternsAreIdsPrefixesOrEverything) {
  EXPECT_TRUE(PatternMatches("pte.segment.bounds", "pte.segment.bounds"));
  EXPECT_FALSE(PatternMatches("pte.segment.bounds", "pte.segment.bounds2"));
  EXPECT_TRUE(PatternMatches("pte.segment.*", "pte.segment.overlap"));
  EXPECT_FALSE(PatternMatches("pte.segment.*", "pte.segments.x"));
  EXPECT_FALSE(PatternMatches("pte.seg.*", "pte.segment.bounds"));
  EXPECT_TRUE(PatternMatches("pte.*", "pte.file.version"));
  EXPECT_TRUE(PatternMatches("*", "core.io.read"));
}

TEST(RuleSelectionTest, APatternMatchingNoRuleIsNamed) {
  EXPECT_EQ(ErrorOf({{RuleAction::kDisable, "pte.segment.bound"}}),
            "--disable pte.segment.bound: matches no rule of any format (accelcheck rules lists "
            "them)");
  EXPECT_EQ(ErrorOf({{RuleAction::kEnable, "pte.segment.*"}, {RuleAction::kError, "elf.*"}}),
            "--error elf.*: matches no rule of any format (accelcheck rules lists them)");
}

TEST(RuleSelectionTest, OnlyIdsPrefixesAndAStarAreAccepted) {
  for (const char* pattern : {"pte.seg*", "*.bounds", "pte.*.bounds", ".*", ""}) {
    EXPECT_NE(ErrorOf({{RuleAction::kDisable, pattern}}).find("by its id, by PREFIX.* or by *"),
              std::string::npos)
        << pattern;
  }
}

// Limit, I/O and internal rules say the verdict is unknown: naming only them
// to disable or downgrade is refused with the reason; a broader pattern
// leaves them as they are.
TEST(RuleSelectionTest, ProtectedRulesCanBeNeitherDisabledNorDowngraded) {
  for (const char* pattern : {"core.io.read", "core.limit.*", "core.internal"}) {
    for (RuleAction action : {RuleAction::kDisable, RuleAction::kWarning}) {
      const std::string error = ErrorOf({{action, pattern}});
      EXPECT_NE(error.find("can be neither disabled nor downgraded"), std::string::npos) << error;
      EXPECT_EQ(error.rfind(Str("--", RuleActionName(action), " ", pattern, ": "), 0), 0u) << error;
    }
  }
  std::string error;
  const std::optional<RuleSelection> all = RuleSelection::Make(
      {{RuleAction::kDisable, "core.*"}, {RuleAction::kWarning, "*"}}, kRules, &error);
  ASSERT_TRUE(all) << error;
  EXPECT_TRUE(all->For(core_rules::kFormatUnknown).disabled);
  EXPECT_FALSE(all->For(core_rules::kIoRead).disabled);
  EXPECT_EQ(all->For(core_rules::kLimitDepth).severity, std::nullopt);
  EXPECT_EQ(all->For(kBounds).severity, Severity::kWarning);
  EXPECT_TRUE(RuleSelection::Make({{RuleAction::kError, "core.io.read"}}, kRules, &error))
      << "raising a protected rule changes nothing and is allowed";
}

TEST(RuleSelectionTest, TheLastMatchingDirectiveWins) {
  std::string error;
  const std::optional<RuleSelection> selection =
      RuleSelection::Make({{RuleAction::kDisable, "pte.*"},
                           {RuleAction::kEnable, "pte.segment.*"},
                           {RuleAction::kDisable, "pte.segment.overlap"},
                           {RuleAction::kWarning, "pte.*"},
                           {RuleAction::kError, "pte.segment.bounds"}},
                          kRules, &error);
  ASSERT_TRUE(selection) << error;
  EXPECT_FALSE(selection->For(kBounds).disabled);
  EXPECT_EQ(selection->For(kBounds).severity, Severity::kError);
  EXPECT_TRUE(selection->For(kOverlap).disabled);
  EXPECT_TRUE(selection->For(kVersion).disabled);
  EXPECT_EQ(selection->For(kVersion).severity, Severity::kWarning);
  EXPECT_FALSE(RuleSelection().For(kBounds).disabled);
}

}  // namespace
}  // namespace accelcheck
