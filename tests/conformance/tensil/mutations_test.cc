// The Tensil mutations the conformance suite and `accelcheck mutate` use:
// every rule has one, a mutation of a model on disk writes a whole bundle,
// and an invalid model is declined.
#include <algorithm>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "conformance/mutator.h"
#include "conformance/tensil/bundle.h"
#include "conformance/tensil/mutate.h"
#include "tests/support/describe.h"
#include "tests/validators/tensil/fixture.h"
#include "validators/tensil/rules.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck::tensil::conformance {
namespace {

using ::accelcheck::test::Describe;

WrittenBundle WriteTiny(const std::filesystem::path& dir) {
  std::string error;
  const auto written = WriteBundle(TinyBundle(), dir, "tiny", &error);
  if (!written) throw std::runtime_error(error);
  return *written;
}

TEST(TensilMutations, TheTinyBundleHasNoFinding) {
  const WrittenBundle written = WriteTiny(fixture::TempDir());
  const DiagnosticSink sink = ValidateWritten(written, Profile{.strict = true});
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
  std::string error;
  const auto read = ReadBundle(written.tmodel, &error);
  ASSERT_TRUE(read) << error;
  EXPECT_EQ(read->tdata, TinyBundle().tdata);
  EXPECT_EQ(read->program.size(), TinyBundle().program.size());
}

TEST(TensilMutations, EveryRuleHasOne) {
  std::set<std::string_view> covered;
  for (const auto& c : TensilConformance().Cases()) covered.insert(c.rule->id);
  for (const Rule* rule : AllRules()) EXPECT_TRUE(covered.count(rule->id)) << rule->id;
}

// A mutation of a model on disk writes the whole bundle (the cases' own
// results are checked per rule in tests/conformance/negative_cases_test.cc).
TEST(TensilMutations, TheMutatorWritesTheBundle) {
  const auto dir = fixture::TempDir();
  const WrittenBundle tiny = WriteTiny(dir);
  const auto out =
      accelcheck::conformance::MutateFile(TensilFormat(), TensilConformance(), {tiny.tmodel, {}},
                                          rules::kArchMismatch, 0, (dir / "out.tmodel").string());
  ASSERT_TRUE(std::holds_alternative<accelcheck::conformance::WrittenMutation>(out))
      << std::get<accelcheck::conformance::Declined>(out).reason;
  const auto& written = std::get<accelcheck::conformance::WrittenMutation>(out);
  const std::string stem = (dir / "out").string();
  EXPECT_EQ(written.files, (std::vector<std::string>{stem + ".tmodel", stem + ".tprog",
                                                     stem + ".tdata", stem + ".tarch"}));
  EXPECT_EQ(written.companions, std::vector<std::string>{stem + ".tarch"});
  for (const std::string& file : written.files) EXPECT_TRUE(std::filesystem::exists(file)) << file;
}

TEST(TensilMutations, TheMutatorDeclinesAnInvalidInput) {
  const auto dir = fixture::TempDir();
  Bundle broken = TinyBundle();
  broken.model.erase("outputs");
  std::string error;
  const auto written = WriteBundle(broken, dir, "broken", &error);
  ASSERT_TRUE(written) << error;
  const auto out = accelcheck::conformance::MutateFile(TensilFormat(), TensilConformance(),
                                                       {written->tmodel, {}}, rules::kUnknownKey, 0,
                                                       (dir / "out.tmodel").string());
  ASSERT_TRUE(std::holds_alternative<accelcheck::conformance::Declined>(out));
  error = std::get<accelcheck::conformance::Declined>(out).reason;
  EXPECT_NE(error.find("does not validate (mutations start from a valid file)"), std::string::npos)
      << error;
  EXPECT_NE(error.find(rules::kKeyMissing.id), std::string::npos) << error;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.tmodel"));
}

}  // namespace
}  // namespace accelcheck::tensil::conformance
