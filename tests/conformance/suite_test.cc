#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "conformance/mutator.h"
#include "conformance/suite.h"
#include "validators/core/format.h"
#include "validators/core/text.h"

namespace accelcheck {
namespace {

// Rules no single-file mutation can break, with the reason. The test below
// fails when a rule is added without a mutation or leaves this list.
const std::set<std::string> kWithoutMutation = {
    // A .pte with EXTERNAL tensors is checked against a companion .ptd only;
    // the suite's cases are single files.
    "pte.external.key_missing",
    "pte.external.layout",
    // .ptd rules need a .ptd base; the mutator works on programs.
    "pte.ptd.header", "pte.ptd.flatbuffer_offset", "pte.ptd.trailing_bytes", "pte.ptd.old_layout",
    "pte.ptd.verify", "pte.ptd.field_missing", "pte.ptd.key", "pte.ptd.segment_index",
    "pte.ptd.segment_bounds", "pte.ptd.layout", "pte.ptd.layout_size",
};

TEST(ConformanceSuite, GeneratedSuitePasses) {
  const std::string dir = std::string(ACCELCHECK_BINARY_DIR) + "/conformance-suite";
  std::filesystem::remove_all(dir);
  std::string error;
  ASSERT_TRUE(conformance::GenerateSuite(dir, &error)) << error;
  const conformance::SuiteResult result = conformance::RunSuite(dir, &error);
  ASSERT_TRUE(error.empty()) << error;
  EXPECT_GT(result.cases.size(), 100u);
  for (const conformance::CaseResult& c : result.cases) EXPECT_TRUE(c.passed) << c.id << ": " << c.detail;
  EXPECT_EQ(result.failed(), 0);
}

TEST(ConformanceSuite, EveryRuleHasACase) {
  const Mutator* mutator = FindMutator("pte");
  ASSERT_NE(mutator, nullptr);
  std::set<std::string> mutable_rules;
  for (const Rule* r : mutator->rules()) mutable_rules.insert(std::string(r->id));
  std::string missing;
  for (const Rule* r : FindFormat("pte")->rules()) {
    const std::string id(r->id);
    if (mutable_rules.count(id) == 0 && kWithoutMutation.count(id) == 0) missing += " " + id;
    if (mutable_rules.count(id) != 0 && kWithoutMutation.count(id) != 0) missing += " (listed but mutable) " + id;
  }
  EXPECT_TRUE(missing.empty()) << "rules without a conformance case:" << missing;
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
  conformance::RunSuite(std::string(ACCELCHECK_BINARY_DIR) + "/no-such-suite", &error);
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace accelcheck
