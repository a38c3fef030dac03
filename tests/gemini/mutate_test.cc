// The Gemini mutator (conformance/gemini/mutate.cc): the conformance cases'
// changes applied to schedules other than the cases' base. On each
// generated schedule, every rule either breaks alone (with the rules its
// case declares) or is declined with the reason.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "conformance/gemini/cases.h"
#include "conformance/gemini/generate.h"
#include "conformance/gemini/mutate.h"
#include "tests/support/describe.h"
#include "validators/gemini/gemini_format.h"
#include "validators/gemini/rules.h"

namespace accelcheck::gemini {
namespace {

namespace fs = std::filesystem;
using ::accelcheck::test::Describe;

class GeminiMutateTest : public ::testing::Test {
 protected:
  GeminiMutateTest()
      : dir_(fs::temp_directory_path() /
             ("accelcheck_gemini_mutate_" +
              std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
              std::to_string(::getpid()))) {
    fs::create_directories(dir_);
  }
  ~GeminiMutateTest() override { fs::remove_all(dir_); }

  // Writes the schedule of `options` and its frontend; the IR's input.
  MutationInput Write(const std::string& name, const GenerateOptions& options) {
    MutationInput input{(dir_ / (name + ".json")).string(),
                        {(dir_ / (name + ".frontend.json")).string()}};
    std::ofstream ir(input.path), frontend(input.companions[0]);
    EXPECT_FALSE(GenerateIr(options, ir, frontend));
    return input;
  }

  DiagnosticSink ValidateStrict(const std::string& path,
                                const std::vector<std::string>& companions) {
    std::string error;
    const auto bytes = ReadFileLimited(path, 1 << 30, &error);
    EXPECT_TRUE(bytes) << error;
    DiagnosticSink sink(Profile{.strict = true}, path);
    ValidateContext context;
    context.path = path;
    context.companions = companions;
    if (bytes) GeminiFormat().Validate(*bytes, context, sink);
    return sink;
  }

  // Mutates `input` for every rule; returns the rules that were declined.
  std::vector<std::string> MutateEveryRule(const MutationInput& input) {
    std::vector<std::string> declined;
    const std::string out = (dir_ / "out.json").string();
    for (const CaseMutation& m : CaseMutations()) {
      std::string error;
      const auto written = GeminiMutator().Mutate(input, *m.rule, 0, out, &error);
      if (!written) {
        EXPECT_FALSE(error.empty()) << m.rule->id;
        EXPECT_FALSE(fs::exists(out)) << m.rule->id << " declined but left " << out;
        declined.push_back(std::string(m.rule->id) + ": " + error);
        continue;
      }
      EXPECT_EQ(written->files, std::vector<std::string>{out});
      const DiagnosticSink sink = ValidateStrict(out, written->companions);
      EXPECT_TRUE(sink.Has(*m.rule)) << m.rule->id << ":\n" << Describe(sink);
      for (const Diagnostic& d : sink.diagnostics()) {
        const bool allowed =
            d.rule == m.rule || std::find(m.also.begin(), m.also.end(), d.rule) != m.also.end();
        EXPECT_TRUE(allowed || d.severity != Severity::kError)
            << m.rule->id << " also gives " << d.rule->id;
      }
      fs::remove(out);
    }
    return declined;
  }

  fs::path dir_;
};

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

TEST_F(GeminiMutateTest, EveryCaseBreaksTheCasesBase) {
  const MutationInput input{(dir_ / "base.json").string(),
                            {(dir_ / "base.frontend.json").string()}};
  std::ofstream(input.path) << CaseBaseIr();
  std::ofstream(input.companions[0]) << CaseBaseFrontend();
  const std::vector<std::string> declined = MutateEveryRule(input);
  EXPECT_TRUE(declined.empty()) << Joined(declined);
}

TEST_F(GeminiMutateTest, EveryRuleHasACase) {
  std::vector<std::string> listed;
  for (const Rule* rule : GeminiMutator().rules()) listed.emplace_back(rule->id);
  EXPECT_EQ(listed.size(), CaseMutations().size());
}

TEST_F(GeminiMutateTest, FrontendRulesNeedTheFrontend) {
  const MutationInput input = Write("default", GenerateOptions{});
  std::string error;
  EXPECT_FALSE(GeminiMutator().Mutate({input.path, {}}, rules::kFrontendLayer, 0,
                                      (dir_ / "out.json").string(), &error));
  EXPECT_NE(error.find("--frontend"), std::string::npos) << error;
}

TEST_F(GeminiMutateTest, InvalidInputIsDeclined) {
  const std::string path = (dir_ / "broken.json").string();
  std::ofstream(path) << "{\"xlen\": 1";
  std::string error;
  EXPECT_FALSE(GeminiMutator().Mutate({path, {}}, rules::kTopParams, 0,
                                      (dir_ / "out.json").string(), &error));
  EXPECT_NE(error.find("does not validate (mutations start from a valid file)"), std::string::npos)
      << error;
}

// A real file conforms by default but keeps documented quirks that --strict
// reports (docs/formats/gemini.md §2.5): a mutation keeps them and adds its rule.
TEST_F(GeminiMutateTest, ARealFileIsMutatedWithItsQuirksKept) {
  const fs::path corpus = fs::path(ACCELCHECK_CORPUS_DIR) / "gemini";
  const fs::path ir =
      corpus / "scheduler_ir/int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json";
  if (!fs::exists(ir)) GTEST_SKIP() << "the Gemini corpus is not at " << corpus;
  const MutationInput input{
      ir.string(), {(corpus / "frontend_ir/int8_resnet50.sim_quantized_b1.json").string()}};
  const DiagnosticSink before = ValidateStrict(input.path, input.companions);
  ASSERT_GT(before.error_count(), 0u) << "the file's quirks are errors under --strict";
  const std::string out = (dir_ / "out.json").string();
  for (const Rule* rule : {&rules::kTopParams, &rules::kTransferProduced, &rules::kBufferNewlyAdded,
                           &rules::kWl0Overlap}) {
    std::string error;
    ASSERT_TRUE(GeminiMutator().Mutate(input, *rule, 0, out, &error)) << rule->id << ": " << error;
    const DiagnosticSink after = ValidateStrict(out, {});
    EXPECT_TRUE(after.Has(*rule)) << rule->id << ":\n" << Describe(after);
    for (const Diagnostic& d : after.diagnostics()) {
      const bool quirk = d.rule->severity != Severity::kError;
      EXPECT_TRUE(d.rule == rule || quirk || d.severity != Severity::kError)
          << rule->id << " also gives " << d.rule->id;
    }
    fs::remove(out);
  }
}

}  // namespace
}  // namespace accelcheck::gemini
