// The Gemini mutations applied to files on disk (`accelcheck mutate`): a
// frontend rule needs the frontend, an invalid input is declined, and a real
// file keeps its documented quirks. The cases' own results are checked per
// rule in tests/conformance/negative_cases_test.cc.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "conformance/gemini/cases.h"
#include "conformance/gemini/generate.h"
#include "conformance/gemini/mutate.h"
#include "conformance/mutator.h"
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

  // The mutation of `rule`, or the reason it was declined.
  conformance::MutationResult Mutate(const MutationInput& input, const Rule& rule) {
    return conformance::MutateFile(GeminiFormat(), GeminiConformance(), input, rule, 0,
                                   (dir_ / "out.json").string());
  }

  static std::string Reason(const conformance::MutationResult& out) {
    const auto* declined = std::get_if<conformance::Declined>(&out);
    return declined ? declined->reason : "";
  }

  fs::path dir_;
};

TEST_F(GeminiMutateTest, FrontendRulesNeedTheFrontend) {
  const MutationInput input = Write("default", GenerateOptions{});
  const std::string error = Reason(Mutate({input.path, {}}, rules::kFrontendLayer));
  EXPECT_NE(error.find("--frontend"), std::string::npos) << error;
}

TEST_F(GeminiMutateTest, InvalidInputIsDeclined) {
  const std::string path = (dir_ / "broken.json").string();
  std::ofstream(path) << "{\"xlen\": 1";
  const std::string error = Reason(Mutate({path, {}}, rules::kTopParams));
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
    const auto written = Mutate(input, *rule);
    ASSERT_EQ(Reason(written), "") << rule->id;
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

// The cases of the L2 buffers, the transfers and the workload ranges find
// their place in a real single-core schedule (the first tensor, ring,
// output or reload that allows the change), not in the objects of the
// generated two-core base: each is written and reports its rule.
TEST_F(GeminiMutateTest, PlacedCasesFindTheirPlaceInARealSchedule) {
  const fs::path corpus = fs::path(ACCELCHECK_CORPUS_DIR) / "gemini";
  const fs::path ir =
      corpus / "scheduler_ir/int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json";
  if (!fs::exists(ir)) GTEST_SKIP() << "the Gemini corpus is not at " << corpus;
  const MutationInput input{
      ir.string(), {(corpus / "frontend_ir/int8_resnet34.sim_quantized_b1.json").string()}};
  const std::string out = (dir_ / "out.json").string();
  for (const Rule* rule :
       {&rules::kBufferWrap, &rules::kBufferCapacity, &rules::kBufferTensorId,
        &rules::kBufferForwardLifetime, &rules::kBufferTensorOrder,
        &rules::kTransferUnreadDestination, &rules::kTransferDelivery, &rules::kTransferCausality,
        &rules::kTransferCoverage, &rules::kTransferDramOrder, &rules::kWorkloadShape}) {
    const auto written = Mutate(input, *rule);
    ASSERT_EQ(Reason(written), "") << rule->id;
    const DiagnosticSink after = ValidateStrict(out, input.companions);
    EXPECT_TRUE(after.Has(*rule)) << rule->id << ":\n" << Describe(after);
    fs::remove(out);
  }
}

// A deadlock needs two cores: on one, the case declines and says why,
// rather than naming an object the schedule lacks.
TEST_F(GeminiMutateTest, DeadlocksAreDeclinedOnOneCore) {
  const MutationInput input = Write("one_core", GenerateOptions{});
  for (const Rule* rule : {&rules::kScheduleDeadlock, &rules::kScheduleSpaceDeadlock}) {
    const std::string reason = Reason(Mutate(input, *rule));
    EXPECT_NE(reason.find("single-core schedule"), std::string::npos) << rule->id << ": " << reason;
  }
}

// On a mesh other than the base's, the first core's first workload waits
// for another core's last output, which waits for it: a deadlock.
TEST_F(GeminiMutateTest, DeadlockIsPlacedOnAnyMesh) {
  GenerateOptions bounds;
  bounds.layers = 5;
  bounds.mesh_x = 2;
  bounds.mesh_y = 2;
  bounds.mixed = true;
  const MutationInput input = Write("mesh", RandomizeOptions(bounds, 1));
  ASSERT_EQ(Reason(Mutate(input, rules::kScheduleDeadlock)), "");
  const DiagnosticSink after = ValidateStrict((dir_ / "out.json").string(), input.companions);
  EXPECT_TRUE(after.Has(rules::kScheduleDeadlock)) << Describe(after);
}

// A schedule without reloads has no place for a reload that covers a store
// twice: the decline says so.
TEST_F(GeminiMutateTest, CoverageIsDeclinedWithoutReloads) {
  const std::string reason =
      Reason(Mutate(Write("no_reload", GenerateOptions{}), rules::kTransferCoverage));
  EXPECT_NE(reason.find("no DRAM reload in this schedule"), std::string::npos) << reason;
}

// A ResNet-34 schedule writes its WL0 snapshots under "wl1_buffer" already
// (docs/formats/gemini.md §2.5 item 3): the case declines, naming that.
TEST_F(GeminiMutateTest, Wl1DialectIsDeclinedWhereTheInputHasIt) {
  const fs::path corpus = fs::path(ACCELCHECK_CORPUS_DIR) / "gemini";
  const fs::path ir =
      corpus / "scheduler_ir/int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json";
  if (!fs::exists(ir)) GTEST_SKIP() << "the Gemini corpus is not at " << corpus;
  const std::string reason = Reason(
      Mutate({ir.string(), {(corpus / "frontend_ir/int8_resnet34.sim_quantized_b1.json").string()}},
             rules::kWorkloadWl1Dialect));
  EXPECT_NE(reason.find("the input already breaks gemini.workload.wl1_dialect"), std::string::npos)
      << reason;
}

}  // namespace
}  // namespace accelcheck::gemini
