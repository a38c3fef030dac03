// One test per rule per format, generated from the conformance providers
// (conformance/provider.h): the rule's case applied to the first base that
// takes it, validated under --strict with the companions it names, reports
// its rule at its path and no other error but the rules it lists in `also`;
// the default profile reports it there too, at the rule's default severity,
// so that every rule that is an error by default fails a CI gate.
// A failure names the rule: Rules/NegativeCase.Breaks/pte_plan_name.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/provider.h"
#include "conformance/suite.h"
#include "tests/support/describe.h"
#include "tests/support/temp.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/format.h"
#include "validators/core/limits.h"

namespace accelcheck::conformance {
namespace {

namespace fs = std::filesystem;
using ::accelcheck::test::Describe;

struct RuleCase {
  const Format* format;
  const Provider* provider;
  const MutationCase* mutation;
};

void PrintTo(const RuleCase& rule_case, std::ostream* out) { *out << rule_case.mutation->rule->id; }

std::vector<RuleCase> AllRuleCases() {
  std::vector<RuleCase> out;
  for (const FormatEntry& entry : Formats()) {
    if (entry.conformance == nullptr) continue;
    for (const MutationCase& mutation : entry.conformance->Cases())
      out.push_back({&entry.validator, entry.conformance, &mutation});
  }
  return out;
}

// A provider's bases are built once per process.
const std::vector<Base>& BasesOf(const Provider& provider) {
  static std::map<const Provider*, std::vector<Base>> bases;
  auto it = bases.find(&provider);
  if (it == bases.end()) it = bases.emplace(&provider, provider.Bases()).first;
  return it->second;
}

void WriteAll(const fs::path& dir, const std::vector<NamedFile>& files) {
  for (const NamedFile& file : files) {
    std::ofstream out(dir / file.name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(file.bytes.data()),
              static_cast<std::streamsize>(file.bytes.size()));
    ASSERT_TRUE(out) << "cannot write " << (dir / file.name);
  }
}

DiagnosticSink ValidateIn(const Profile& profile, const Format& format, const std::string& path,
                          const std::vector<std::string>& companions) {
  DiagnosticSink sink(profile, path);
  std::string error;
  const std::optional<InputBuffer> input = ReadFileLimited(path, Limits{}.max_file_size, &error);
  EXPECT_TRUE(input) << error;
  if (!input) return sink;
  ValidateContext context;
  context.path = path;
  context.companions = companions;
  format.Validate(*input, context, sink);
  return sink;
}

class NegativeCase : public ::testing::TestWithParam<RuleCase> {};

TEST_P(NegativeCase, Breaks) {
  const Provider& provider = *GetParam().provider;
  const MutationCase& mutation = *GetParam().mutation;
  const Rule& rule = *mutation.rule;
  const Format* format = GetParam().format;

  const std::vector<Base>& bases = BasesOf(provider);
  const OrDeclined<AppliedCase> applied = ApplyToFirstBase(mutation, bases);
  if (const auto* declined = std::get_if<Declined>(&applied)) {
    FAIL() << "no base takes " << rule.id << ": " << declined->reason;
  }
  const AppliedCase& result = std::get<AppliedCase>(applied);
  const fs::path dir = test::ProcessTempPath(FileId(rule.id));
  fs::create_directories(dir);
  WriteAll(dir, result.base->companions);
  WriteAll(dir, result.mutated.files);
  std::vector<std::string> companions;
  for (const std::string& name : result.mutated.companions)
    companions.push_back((dir / name).string());

  const std::string file = (dir / result.mutated.files[0].name).string();
  const DiagnosticSink sink = ValidateIn(Profile{.strict = true}, *format, file, companions);
  const std::string& path = result.mutated.path;
  bool reported = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == &rule && PathMatches(d.location.path, path)) reported = true;
    const bool allowed = d.rule == &rule || std::find(mutation.also.begin(), mutation.also.end(),
                                                      d.rule) != mutation.also.end();
    EXPECT_TRUE(allowed || d.severity != Severity::kError)
        << rule.id << " also gives " << d.rule->id << " at " << d.location.path;
  }
  EXPECT_TRUE(reported) << "expected " << rule.id << " at \"" << path << "\" (base "
                        << result.base->name << "):\n"
                        << Describe(sink);

  const DiagnosticSink by_default = ValidateIn(Profile{}, *format, file, companions);
  bool reported_by_default = false;
  for (const Diagnostic& d : by_default.diagnostics()) {
    if (d.rule != &rule || !PathMatches(d.location.path, path)) continue;
    reported_by_default = true;
    EXPECT_EQ(d.severity, rule.severity) << rule.id << " in the default profile";
  }
  EXPECT_TRUE(reported_by_default) << "the default profile does not report " << rule.id << ":\n"
                                   << Describe(by_default);
}

INSTANTIATE_TEST_SUITE_P(Rules, NegativeCase, ::testing::ValuesIn(AllRuleCases()),
                         [](const ::testing::TestParamInfo<RuleCase>& rule_case) {
                           return FileId(rule_case.param.mutation->rule->id);
                         });

// Every rule of every format's table has a case, so every rule has its
// negative test above.
TEST(NegativeCases, EveryRuleOfEveryFormatHasACase) {
  for (const FormatEntry& entry : Formats()) {
    ASSERT_NE(entry.conformance, nullptr) << entry.id() << " has no conformance provider";
    for (const Rule* rule : entry.validator.rules()) {
      EXPECT_NE(entry.conformance->FindCase(rule->id), nullptr) << rule->id << " has no case";
    }
  }
}

}  // namespace
}  // namespace accelcheck::conformance
