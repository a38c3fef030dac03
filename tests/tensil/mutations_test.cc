// The Tensil mutations the conformance suite and `accelcheck mutate` use:
// every rule has one, and each breaks its rule at its path and, under
// --strict, no rule it does not declare.
#include <set>

#include <gtest/gtest.h>

#include "conformance/tensil/bundle.h"
#include "tests/tensil/fixture.h"
#include "validators/core/format.h"
#include "validators/core/text.h"
#include "validators/tensil/rules.h"
#include "validators/tensil/tensil_format.h"
#include "tests/support/describe.h"

namespace accelcheck::tensil::conformance {
namespace {

using ::accelcheck::test::Describe;

DiagnosticSink ValidateWritten(const WrittenBundle& written) {
  std::string error;
  const auto buffer = ReadFileLimited(written.tmodel, 1 << 20, &error);
  EXPECT_TRUE(buffer) << error;
  DiagnosticSink sink(Profile{.strict = true}, written.tmodel);
  ValidateContext context;
  context.path = written.tmodel;
  context.companions = written.companions;
  if (buffer) TensilFormat().Validate(*buffer, context, sink);
  return sink;
}

TEST(TensilMutations, TheTinyBundleHasNoFinding) {
  const auto dir = fixture::TempDir();
  std::string error;
  const auto written = WriteBundle(TinyBundle(), dir, "tiny", &error);
  ASSERT_TRUE(written) << error;
  const auto sink = ValidateWritten(*written);
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
  const auto read = ReadBundle(written->tmodel, &error);
  ASSERT_TRUE(read) << error;
  EXPECT_EQ(read->tdata, TinyBundle().tdata);
  EXPECT_EQ(read->program.size(), TinyBundle().program.size());
}

TEST(TensilMutations, EveryRuleHasOne) {
  std::set<std::string_view> covered;
  for (const Mutation& m : Mutations()) covered.insert(m.rule->id);
  for (const Rule* rule : AllRules()) EXPECT_TRUE(covered.count(rule->id)) << rule->id;
}

TEST(TensilMutations, EachBreaksItsRuleAtItsPathAndNoOther) {
  const auto dir = fixture::TempDir();
  for (const Mutation& m : Mutations()) {
    Bundle bundle = TinyBundle();
    const std::string path = m.change(bundle);
    std::string error;
    const auto written = WriteBundle(bundle, dir, "case", &error);
    ASSERT_TRUE(written) << m.rule->id << ": " << error;
    const auto sink = ValidateWritten(*written);
    bool found = false;
    for (const Diagnostic& d : sink.diagnostics()) {
      if (d.rule == m.rule && d.location.path == path) found = true;
      const bool allowed = d.rule == m.rule || std::find(m.also.begin(), m.also.end(), d.rule) != m.also.end();
      EXPECT_TRUE(allowed || d.severity != Severity::kError) << m.rule->id << " also gives " << d.rule->id;
    }
    EXPECT_TRUE(found) << m.rule->id << " at " << path << ":\n" << Describe(sink);
  }
}

}  // namespace
}  // namespace accelcheck::tensil::conformance
