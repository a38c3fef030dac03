// docs/RULES.md is exactly `accelcheck rules --output md`: it fails when a rule
// table or the limits table changes and the document was not regenerated.
// Every invariant tag and section a rule cites is in its format's notes
// (docs/formats/<format>.md), so the repository explains its rules by itself.
#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/tools/tool_runner.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/core_rules.h"
#include "validators/core/format.h"
#include "validators/core/report.h"

namespace accelcheck::testing {
namespace {

TEST(RulesMdTest, DocsMatchTheRuleTables) {
  const ToolRun run = RunTool({"rules", "--output", "md"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string committed =
      ReadWhole(std::filesystem::path(ACCELCHECK_SOURCE_DIR) / "docs/RULES.md");
  EXPECT_TRUE(committed == run.out)
      << "docs/RULES.md differs from the rule tables; regenerate it from the source directory "
         "with\n"
         "  ./build/tools/accelcheck rules --output md > docs/RULES.md";
}

// Every rule's SARIF helpUri ends in an anchor the document defines, and its
// SARIF name is its own: code scanning shows both.
TEST(RulesMdTest, EveryRuleHasTheAnchorItsHelpUriNames) {
  const std::string committed =
      ReadWhole(std::filesystem::path(ACCELCHECK_SOURCE_DIR) / "docs/RULES.md");
  std::set<std::string> names;
  size_t rules = 0;
  const auto check = [&](const Rule& rule) {
    ++rules;
    const std::string uri = RuleHelpUri(rule);
    EXPECT_EQ(uri.rfind(std::string(RulesUri()) + "#", 0), 0u) << uri;
    const std::string anchor = uri.substr(uri.find('#') + 1);
    EXPECT_NE(committed.find("<a id=\"" + anchor + "\"></a>"), std::string::npos)
        << rule.id << ": docs/RULES.md has no anchor " << anchor;
    const std::string name = RuleName(rule.id);
    EXPECT_TRUE(names.insert(name).second) << "two rules are named " << name;
    EXPECT_NE(name, rule.id);
  };
  for (const Rule* rule : core_rules::All()) check(*rule);
  for (const FormatEntry& entry : Formats()) {
    for (const Rule* rule : entry.validator.rules()) check(*rule);
  }
  EXPECT_GT(rules, 200u);
}

// The severity policy (docs/ARCHITECTURE.md "Rules"): a rule that is a
// warning or a note by default says why it is not an error, and an error
// gives no such reason.
TEST(RulesMdTest, EveryRuleLessThanAnErrorSaysWhy) {
  size_t lenient = 0;
  const auto check = [&](const Rule& rule) {
    if (rule.severity == Severity::kError) {
      EXPECT_TRUE(rule.why_not_error.empty())
          << rule.id << " is an error by default and gives a reason not to be one";
    } else {
      ++lenient;
      EXPECT_GE(rule.why_not_error.size(), 20u)
          << rule.id << " is a " << SeverityName(rule.severity)
          << " by default and does not say why it is not an error";
    }
  };
  for (const Rule* rule : core_rules::All()) check(*rule);
  for (const FormatEntry& entry : Formats()) {
    for (const Rule* rule : entry.validator.rules()) check(*rule);
  }
  EXPECT_GT(lenient, 0u);
}

// "PTE-22", "TNS-7", "I-B8" in a rule's source name a bold tag of the notes;
// "§2.5" names a numbered heading.
std::vector<std::string> MissingCitations(const Rule& rule, const std::string& notes) {
  static const std::regex kTag(R"((PTE|TNS)-[0-9]+[a-f]?|I-[A-Z][0-9]+)");
  static const std::regex kSection(R"(§([0-9]+(\.[0-9]+)*))");
  std::vector<std::string> missing;
  const std::string source(rule.source);
  for (std::sregex_iterator it(source.begin(), source.end(), kTag), end; it != end; ++it) {
    if (notes.find("**" + it->str() + "**") == std::string::npos) missing.push_back(it->str());
  }
  for (std::sregex_iterator it(source.begin(), source.end(), kSection), end; it != end; ++it) {
    const std::regex heading("(^|\n)#+ " +
                             std::regex_replace((*it)[1].str(), std::regex("\\."), "\\.") + "[. ]");
    if (!std::regex_search(notes, heading)) missing.push_back(it->str());
  }
  return missing;
}

TEST(RulesMdTest, EveryCitationIsInTheFormatNotes) {
  for (const FormatEntry& entry : Formats()) {
    const Format* format = &entry.validator;
    const auto path = std::filesystem::path(ACCELCHECK_SOURCE_DIR) / "docs/formats" /
                      (std::string(format->id()) + ".md");
    ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path << " is missing";
    const std::string notes = ReadWhole(path);
    for (const Rule* rule : format->rules()) {
      for (const std::string& citation : MissingCitations(*rule, notes)) {
        ADD_FAILURE() << rule->id << " cites " << citation << ", which " << path
                      << " does not define";
      }
    }
  }
}

// A citation that cannot fail would be no test: the check sees a missing tag.
TEST(RulesMdTest, AMissingCitationIsFound) {
  const Rule rule{"x.y", Severity::kError, Severity::kError, Category::kInvalid,
                  "t",   "PTE-9; §3.1"};
  EXPECT_EQ(MissingCitations(rule, "- **PTE-9** fact\n### 3.1 Heading\n").size(), 0u);
  EXPECT_EQ(MissingCitations(rule, "- **PTE-90** fact\n### 3.10 Heading\n").size(), 2u);
}

}  // namespace
}  // namespace accelcheck::testing
