// docs/RULES.md is exactly `accelcheck rules --output md`: it fails when a rule
// table or the limits table changes and the document was not regenerated.
#include <string>

#include <gtest/gtest.h>

#include "tests/tools/tool_runner.h"

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

}  // namespace
}  // namespace accelcheck::testing
