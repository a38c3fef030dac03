#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "conformance/provider.h"
#include "conformance/pte/mutate.h"
#include "conformance/suite.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/format.h"
#include "validators/core/text.h"
#include "validators/pte/pte_format.h"

namespace accelcheck {
namespace {

TEST(ConformanceSuite, GeneratedSuitePasses) {
  const std::string dir = std::string(ACCELCHECK_BINARY_DIR) + "/conformance-suite";
  std::filesystem::remove_all(dir);
  std::string error;
  ASSERT_TRUE(conformance::GenerateSuite(dir, Providers(), &error)) << error;
  const conformance::SuiteResult result = conformance::RunSuite(dir, Validators(), &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_GT(result.cases.size(), 100u);
  for (const conformance::CaseResult& c : result.cases)
    EXPECT_TRUE(c.passed) << c.id << ": " << c.detail;
  EXPECT_EQ(result.failed(), 0);
}

// Every rule of the table, .ptd and companion rules included, has a
// mutation, and so a negative case in the generated suite.
TEST(ConformanceSuite, EveryRuleHasACase) {
  std::set<std::string> mutable_rules;
  for (const conformance::MutationCase& c : pte::PteConformance().Cases())
    mutable_rules.insert(std::string(c.rule->id));
  std::string missing;
  for (const Rule* r : pte::PteFormat().rules()) {
    if (mutable_rules.count(std::string(r->id)) == 0) missing += " " + std::string(r->id);
  }
  EXPECT_TRUE(missing.empty()) << "rules without a mutation:" << missing;
}

TEST(ConformanceSuite, JunitNamesEveryCase) {
  conformance::SuiteResult result;
  result.cases.push_back({"pte.a", "pte", true, "ok", 0.5});
  result.cases.push_back({"pte.b", "pte", false, "expected <x> & y", 0.25});
  const std::string xml = conformance::SuiteJunit(result);
  EXPECT_NE(xml.find("tests=\"2\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"pte.b\""), std::string::npos);
  EXPECT_NE(xml.find("expected &lt;x&gt; &amp; y"), std::string::npos);
}

TEST(ConformanceSuite, MissingManifestIsAnError) {
  std::string error;
  conformance::RunSuite(std::string(ACCELCHECK_BINARY_DIR) + "/no-such-suite", Validators(),
                        &error);
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace accelcheck
