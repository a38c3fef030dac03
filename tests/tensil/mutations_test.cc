// The Tensil mutations the conformance suite and `accelcheck mutate` use:
// every rule has one, and the mutator writes, from a valid bundle, a bundle
// that breaks its rule and, under --strict, no rule it does not declare.
#include <algorithm>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "conformance/tensil/bundle.h"
#include "conformance/tensil/mutate.h"
#include "tests/support/describe.h"
#include "tests/tensil/fixture.h"
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
  for (const Rule* rule : TensilMutator().rules()) covered.insert(rule->id);
  for (const Rule* rule : AllRules()) EXPECT_TRUE(covered.count(rule->id)) << rule->id;
}

// Each rule through the mutator, from the tiny bundle on disk: the files it
// lists exist and validate with the rule and only its declared companions.
TEST(TensilMutations, TheMutatorBreaksEachRuleAndNoOther) {
  const auto dir = fixture::TempDir();
  const WrittenBundle tiny = WriteTiny(dir);
  for (const Mutation& m : Mutations()) {
    std::string error;
    const auto out = TensilMutator().Mutate({tiny.tmodel, {}}, *m.rule, 0,
                                            (dir / "out.tmodel").string(), &error);
    ASSERT_TRUE(out) << m.rule->id << ": " << error;
    ASSERT_GE(out->files.size(), 3u);
    EXPECT_EQ(out->files[0], (dir / "out.tmodel").string());
    for (const std::string& file : out->files) EXPECT_TRUE(std::filesystem::exists(file)) << file;
    const DiagnosticSink sink =
        ValidateWritten({out->files[0], out->companions, out->files}, Profile{.strict = true});
    EXPECT_TRUE(sink.Has(*m.rule)) << m.rule->id << ":\n" << Describe(sink);
    for (const Diagnostic& d : sink.diagnostics()) {
      const bool allowed =
          d.rule == m.rule || std::find(m.also.begin(), m.also.end(), d.rule) != m.also.end();
      EXPECT_TRUE(allowed || d.severity != Severity::kError)
          << m.rule->id << " also gives " << d.rule->id;
    }
  }
}

TEST(TensilMutations, TheMutatorDeclinesAnInvalidInput) {
  const auto dir = fixture::TempDir();
  Bundle broken = TinyBundle();
  broken.model.erase("outputs");
  std::string error;
  const auto written = WriteBundle(broken, dir, "broken", &error);
  ASSERT_TRUE(written) << error;
  const auto out = TensilMutator().Mutate({written->tmodel, {}}, rules::kUnknownKey, 0,
                                          (dir / "out.tmodel").string(), &error);
  EXPECT_FALSE(out);
  EXPECT_NE(error.find("does not validate (mutations start from a valid file)"), std::string::npos)
      << error;
  EXPECT_NE(error.find(rules::kKeyMissing.id), std::string::npos) << error;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.tmodel"));
}

}  // namespace
}  // namespace accelcheck::tensil::conformance
