// The SET generator's dialect (docs/formats/gemini.md "The SET dialect"):
// the reference scheduler's SET schedules validate clean over meshes, layer
// counts and sizes (with tensors wrapping round the ring), the real SET IR
// validates with zero findings in both profiles, and the decoder takes the
// dialect's two spellings of bounds and ids while reporting wrong types.
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/gemini/set_generate.h"
#include "reference_exec/gemini/execute.h"
#include "reference_exec/gemini/load.h"
#include "reference_exec/gemini/simulate.h"
#include "tests/support/describe.h"
#include "tests/support/temp.h"
#include "validators/core/compressed.h"
#include "validators/core/core_rules.h"
#include "validators/core/file_source.h"
#include "validators/gemini/gemini_format.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/set_decode.h"
#include "validators/gemini/set_lower.h"
#include "validators/gemini/set_model.h"

namespace accelcheck::gemini {
namespace {

namespace fs = std::filesystem;
using ::accelcheck::test::Describe;
using nlohmann::json;

// Validates `text` as set.json, with `frontend` beside it as
// set.frontend.json when one is given.
DiagnosticSink ValidateText(const std::string& text, bool strict = false,
                            const std::string* frontend = nullptr) {
  DiagnosticSink sink(Profile{strict, false, 0}, "set.json");
  const InputBuffer input = InputBuffer::Copy(AsBytes(text));
  MemoryFiles files;
  if (frontend != nullptr) files.Add("set.frontend.json", AsBytes(*frontend));
  ValidateContext context;
  context.path = "set.json";
  context.files = &files;
  GeminiFormat().Validate(input, context, sink);
  return sink;
}

Frontend ParsedFrontend(const std::string& text) {
  DiagnosticSink sink(Profile{}, "set.frontend.json");
  std::optional<Frontend> frontend = ParseFrontend(AsBytes(text), ValidateContext{}, sink);
  EXPECT_TRUE(frontend) << Describe(sink);
  return frontend.value_or(Frontend{});
}

// The IR of `text`, decoded and in the Gemini tables (with a tile per
// workload when `frontend` gives the layers).
Ir Lowered(const std::string& text, const Frontend* frontend = nullptr) {
  DiagnosticSink sink(Profile{}, "set.json");
  set::Ir ir;
  EXPECT_TRUE(set::DecodeSetIr(AsBytes(text), Limits{}, sink, &ir)) << Describe(sink);
  return LowerSetIr(ir, frontend);
}

struct Schedule {
  std::string ir;
  std::string frontend;
};

Schedule Generate(const GenerateOptions& options) {
  std::ostringstream ir, frontend;
  const auto problem = GenerateSetIr(options, ir, frontend);
  EXPECT_FALSE(problem) << *problem;
  return {ir.str(), frontend.str()};
}

GenerateOptions Options(int layers, int mesh_x, int mesh_y, int64_t channels) {
  GenerateOptions o;
  o.layers = layers;
  o.mesh_x = mesh_x;
  o.mesh_y = mesh_y;
  o.channels = channels;
  o.height = 8;
  o.width = 8;
  return o;
}

RC_GTEST_PROP(SetDialect, GeneratedSchedulesValidateClean, ()) {
  const int mesh_x = *rc::gen::inRange(1, 4);
  const int mesh_y = *rc::gen::inRange(1, 3);
  GenerateOptions o = Options(*rc::gen::inRange(1, 6), mesh_x, mesh_y,
                              *rc::gen::inRange<int64_t>(mesh_x * mesh_y, 24));
  o.batch = *rc::gen::inRange<int64_t>(1, 3);
  o.height = *rc::gen::inRange<int64_t>(1, 12);
  o.width = *rc::gen::inRange<int64_t>(1, 12);
  std::ostringstream ir, frontend_text;
  RC_ASSERT(!GenerateSetIr(o, ir, frontend_text));
  const std::string frontend = frontend_text.str();
  const DiagnosticSink sink = ValidateText(ir.str(), /*strict=*/true, &frontend);
  RC_ASSERT(sink.diagnostics().empty());
  // ... simulate to the end without deadlock ...
  const Simulation sim = Simulate(Lowered(ir.str()), SimulateOptions{});
  RC_ASSERT(!sim.deadlock);
  size_t done = 0;
  for (const CoreTimeline& core : sim.cores) done += core.workloads.size();
  const auto workloads = static_cast<uint64_t>(o.layers * mesh_x * mesh_y);
  RC_ASSERT(done == workloads);
  // ... and compute, from the pieces they declare, what the untiled network
  // computes, at the value level and in the byte-addressed L2.
  const Frontend layers = ParsedFrontend(frontend);
  const Ir lowered = Lowered(ir.str(), &layers);
  for (const bool l2_addressed : {false, true}) {
    ExecuteOptions options;
    options.l2_addressed = l2_addressed;
    const Execution run = Execute(lowered, layers, options);
    RC_ASSERT(!run.first_mismatch);
    RC_ASSERT(run.workloads == workloads);
    RC_ASSERT(run.elements ==
              static_cast<uint64_t>(o.layers * o.batch * o.channels * o.height * o.width));
  }
}

// One 3x3 convolution of 8 channels on 4x4 on one core, by hand at 16 bytes
// a cycle: the input (128 B) loads in cycles 0-8, the weights (8*8*9 B) in
// 8-44, the workload runs its time of 128*8*9/64 + 1 = 145 cycles in
// 44-189, and its output (128 B) is stored in 189-197.
TEST(SetDialect, SimulatedByHand) {
  GenerateOptions o = Options(1, 1, 1, 8);
  o.height = o.width = 4;
  const Simulation sim = Simulate(Lowered(Generate(o).ir), SimulateOptions{});
  ASSERT_FALSE(sim.deadlock);
  ASSERT_EQ(sim.cores.size(), 1u);
  ASSERT_EQ(sim.cores[0].workloads.size(), 1u);
  EXPECT_EQ(sim.cores[0].core_id, 1);
  EXPECT_EQ(sim.cores[0].workloads[0].start, 44u);
  EXPECT_EQ(sim.cores[0].workloads[0].end, 189u);
  ASSERT_EQ(sim.dram.size(), 3u);
  EXPECT_EQ(sim.dram[0].end, 8u);
  EXPECT_EQ(sim.dram[2].bytes, 128);
  EXPECT_TRUE(sim.dram[2].store);
  EXPECT_EQ(sim.total_cycles, 197u);
}

// Each workload of 32x32x32 tensors on two cores takes about 53 of its
// core's 1024 ring blocks, so 24 layers go round the ring and some tensors
// cross its end: legal (§3, is_valid).
TEST(SetDialect, TensorsWrapRoundTheRing) {
  GenerateOptions o = Options(24, 2, 1, 32);
  o.height = 32;
  o.width = 32;
  const Schedule schedule = Generate(o);
  const json ir = json::parse(schedule.ir);
  int wrapped = 0;
  for (const auto& [key, list] : ir.items()) {
    if (key == "DRAM" || key == "metadata") continue;
    for (const json& w : list) {
      for (const json& e : w.at("buffer")) {
        wrapped += e.at("address").get<int64_t>() + e.at("block").get<int64_t>() > set::kRingBlocks;
      }
    }
  }
  EXPECT_GT(wrapped, 0);
  const DiagnosticSink sink = ValidateText(schedule.ir, /*strict=*/true, &schedule.frontend);
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
}

TEST(SetDialect, TheGeneratorRefusesWhatItCannotSchedule) {
  std::ostringstream ir, frontend;
  EXPECT_TRUE(GenerateSetIr(Options(2, 4, 1, 2), ir, frontend));  // more cores than channels
  GenerateOptions big = Options(1, 1, 1, 64);
  big.height = big.width = 96;  // 576 blocks of input, held as three tensors
  EXPECT_TRUE(GenerateSetIr(big, ir, frontend));
  GenerateOptions mixed = Options(2, 1, 1, 8);
  mixed.kinds = {LayerKind::kConv, LayerKind::kMaxPool};
  EXPECT_TRUE(GenerateSetIr(mixed, ir, frontend));
}

// The report and inspect name the dialect.
TEST(SetDialect, DetectedAndNamed) {
  const std::string text = Generate(Options(2, 2, 1, 8)).ir;
  EXPECT_TRUE(GeminiFormat().Detect(AsBytes(text)));
  EXPECT_EQ(GeminiFormat().Dialect(AsBytes(text)), "set");
  DiagnosticSink sink(Profile{}, "set.json");
  const InputBuffer input = InputBuffer::Copy(AsBytes(text));
  const json inspected = GeminiFormat().Inspect(input, ValidateContext{}, sink);
  EXPECT_EQ(inspected.at("dialect"), "set");
  EXPECT_EQ(inspected.at("cores").size(), 2u);
  EXPECT_EQ(inspected.at("cores")[1].at("core_id"), 2);  // mesh ids skip the DRAM columns
  EXPECT_EQ(inspected.at("dram_ports").size(), 2u);
}

// A wrong type is a schema finding at its value, and the rules do not run
// on what did not decode.
TEST(SetDialect, WrongTypesAreSchemaFindings) {
  json ir = json::parse(Generate(Options(2, 2, 1, 8)).ir);
  ir["1"][0]["buffer"][0]["block"] = "many";
  ir["1"][0]["buffer"][0]["source"][0]["id"] = "port";
  ir["1"][0]["layer_type"] = "matmul";
  const DiagnosticSink sink = ValidateText(ir.dump());
  EXPECT_TRUE(sink.Has(rules::kSchemaType)) << Describe(sink);
  EXPECT_TRUE(sink.Has(rules::kSchemaEnum)) << Describe(sink);
  for (const Diagnostic& d : sink.diagnostics()) {
    EXPECT_EQ(std::string(d.rule->id).rfind("gemini.set.", 0), std::string::npos) << d.rule->id;
  }
}

// A weight's bounds are K alone in DRAM outs, buffer entries and sources;
// other bounds are four coordinates. Either spelling decodes where the
// dialect uses it, and a list of the wrong length is a schema finding.
TEST(SetDialect, BoundsOfEitherSpelling) {
  json ir = json::parse(Generate(Options(1, 1, 1, 8)).ir);
  ir["1"][0]["ifmap"]["lower"] = json::array({0, 0, 0});
  const DiagnosticSink sink = ValidateText(ir.dump());
  EXPECT_TRUE(sink.Has(rules::kSchemaType)) << Describe(sink);
  EXPECT_EQ(sink.error_count(), 1u) << Describe(sink);
}

// With its frontend IR, each workload is checked against its layer; without
// it, a note says which checks did not run.
TEST(SetDialect, CheckedAgainstTheFrontendIr) {
  const Schedule schedule = Generate(Options(2, 2, 1, 8));
  const auto with = [&](const std::function<void(json&)>& change) {
    json ir = json::parse(schedule.ir);
    change(ir);
    return ValidateText(ir.dump(), false, &schedule.frontend);
  };
  const DiagnosticSink layer = with([](json& ir) { ir["1"][0]["layer_name"] = "conv_9"; });
  EXPECT_TRUE(layer.Has(rules::kFrontendLayer)) << Describe(layer);
  const DiagnosticSink type = with([](json& ir) { ir["1"][0]["layer_type"] = "pool"; });
  EXPECT_TRUE(type.Has(rules::kFrontendLayerType)) << Describe(type);
  EXPECT_EQ(type.error_count(), 1u) << Describe(type);
  const DiagnosticSink shape = with([](json& ir) { ir["2"][1]["workload"][1][1] = 8; });
  EXPECT_TRUE(shape.Has(rules::kWorkloadShape)) << Describe(shape);
  const DiagnosticSink field = with([](json& ir) { ir["2"][1]["ifmap"]["upper"][3] = 6; });
  EXPECT_TRUE(field.Has(rules::kSetReceptiveField)) << Describe(field);
  EXPECT_EQ(field.error_count(), 1u) << Describe(field);
  EXPECT_EQ(field.diagnostics()[0].location.path, "/2/1/ifmap") << Describe(field);
  // The same IR without its frontend IR: nothing but the note.
  const DiagnosticSink alone = ValidateText(json::parse(schedule.ir).dump());
  ASSERT_EQ(alone.diagnostics().size(), 1u) << Describe(alone);
  EXPECT_TRUE(alone.Has(rules::kFrontendUnchecked)) << Describe(alone);
  EXPECT_NE(alone.diagnostics()[0].message.find(rules::kSetReceptiveField.id), std::string::npos);
}

// A workload range out of order has its one finding, gemini.range.order
// of the structure checks; the checks against its layer, in the same group,
// skip it rather than report a receptive field of a range that is not one,
// or compute it from coordinates near -2^63 (which overflowed).
TEST(SetDialect, AnUnorderedWorkloadIsNotCheckedAgainstItsLayer) {
  const Schedule schedule = Generate(Options(2, 2, 1, 8));
  for (const auto& [bound, value] :
       {std::pair{0, int64_t{-1}}, std::pair{1, std::numeric_limits<int64_t>::min()}}) {
    json ir = json::parse(schedule.ir);
    ir["2"][1]["workload"][bound][2] = value;
    ir["2"][1]["ifmap"]["lower"][2] = 3;  // short of the rows an ordered range would need
    const DiagnosticSink sink = ValidateText(ir.dump(), false, &schedule.frontend);
    EXPECT_TRUE(sink.Has(rules::kRangeOrder)) << Describe(sink);
    EXPECT_EQ(sink.error_count(), 1u) << value << ": " << Describe(sink);
  }
}

// The functional executor's comparison can fail: data placed in the wrong
// block of an input is a mismatch in both modes, and an ofmap written over
// the input it reads is one in the byte-addressed L2 only.
TEST(SetDialect, TheFunctionalExecutorFindsMisplacedData) {
  const Schedule schedule = Generate(Options(2, 2, 1, 8));
  const Frontend layers = ParsedFrontend(schedule.frontend);
  const auto run = [&](const json& ir, bool l2_addressed) {
    ExecuteOptions options;
    options.l2_addressed = l2_addressed;
    return Execute(Lowered(ir.dump(), &layers), layers, options);
  };
  const json valid = json::parse(schedule.ir);
  for (const bool l2 : {false, true}) EXPECT_FALSE(run(valid, l2).first_mismatch) << l2;

  // Core 2's second workload (conv_1) gets the two producers' blocks swapped.
  json swapped = valid;
  json* ifmap = nullptr;
  for (json& e : swapped["2"][1]["buffer"]) {
    if (e.at("type") == "ifmap") ifmap = &e;
  }
  ASSERT_TRUE(ifmap);
  json& sources = (*ifmap)["source"];
  ASSERT_EQ(sources.size(), 4u);  // two producers, two parts each
  std::swap(sources[0]["transfer_id"], sources[2]["transfer_id"]);
  for (const bool l2 : {false, true}) {
    const Execution execution = run(swapped, l2);
    ASSERT_TRUE(execution.first_mismatch) << l2;
    EXPECT_EQ(execution.first_mismatch->workload_id, 3) << l2;
    EXPECT_EQ(execution.first_mismatch->layer, "conv_1") << l2;
  }

  // Core 1's conv_1 ofmap at the address of the input it reads.
  json overlapping = valid;
  json& buffer = overlapping["1"][1]["buffer"];
  json* input = nullptr;
  json* output = nullptr;
  for (json& e : buffer) {
    if (e.at("type") == "ifmap") input = &e;
    if (e.at("type") == "ofmap" && e.at("workload_id") == 2) output = &e;
  }
  ASSERT_TRUE(input && output);
  (*output)["address"] = (*input)["address"];
  EXPECT_FALSE(run(overlapping, false).first_mismatch);
  const Execution corrupted = run(overlapping, true);
  ASSERT_TRUE(corrupted.first_mismatch);
  EXPECT_TRUE(corrupted.first_mismatch->l2_address) << corrupted.first_mismatch->workload_id;
}

fs::path CorpusSetIr() {
  return fs::path(ACCELCHECK_CORPUS_DIR) / "gemini" / "set_ir_multicore" /
         "ires_block_b2_mesh2x2_LP-SA_allocated.set_ir.json.gz";
}

// The real SET IR (4 cores, 192 workloads): zero findings but two notes,
// the gzip one and that the frontend rules did not run, in the default
// profile and under --strict.
TEST(SetDialect, TheRealSetIrValidatesClean) {
  if (!fs::exists(CorpusSetIr())) GTEST_SKIP() << "no SET IR in the corpus at " << CorpusSetIr();
  for (bool strict : {false, true}) {
    DiagnosticSink sink(Profile{strict, false, 0}, CorpusSetIr().string());
    const auto input = ReadModelFile(CorpusSetIr().string(), Limits{}, sink);
    ASSERT_TRUE(input) << Describe(sink);
    EXPECT_EQ(GeminiFormat().Dialect(input->bytes()), "set");
    GeminiFormat().Validate(*input, ValidateContext{}, sink);
    EXPECT_EQ(sink.diagnostics().size(), 2u) << Describe(sink);
    EXPECT_TRUE(sink.Has(core_rules::kGzipInflated)) << Describe(sink);
    EXPECT_TRUE(sink.Has(rules::kFrontendUnchecked)) << Describe(sink);
    EXPECT_EQ(sink.blocking_count(), 0u) << Describe(sink);
  }
}

// The executors' loader hands the real SET IR over in the Gemini tables: all
// 192 workloads of its 4 cores simulate without deadlock. Its layers are in
// no frontend IR the corpus holds, so it gets no tiles; a frontend IR of
// other layers is refused by the frontend rules.
TEST(SetDialect, TheRealSetIrSimulates) {
  if (!fs::exists(CorpusSetIr())) GTEST_SKIP() << "no SET IR in the corpus at " << CorpusSetIr();
  DiagnosticSink sink(Profile{}, CorpusSetIr().string());
  const auto loaded = LoadValidIr(CorpusSetIr().string(), "", Limits{}, sink);
  ASSERT_TRUE(loaded) << Describe(sink);
  EXPECT_FALSE(loaded->frontend);
  const Simulation sim = Simulate(loaded->ir, SimulateOptions{});
  EXPECT_FALSE(sim.deadlock);
  size_t done = 0;
  for (const CoreTimeline& core : sim.cores) {
    done += core.workloads.size();
  }
  EXPECT_EQ(done, 192u);
  for (const Core& core : loaded->ir.cores) {
    for (const Workload& w : core.workloads) EXPECT_TRUE(w.tiles.empty()) << w.id;
  }
  const fs::path frontend = test::ProcessTempPath("other.frontend.json");
  std::ofstream(frontend) << Generate(Options(2, 1, 1, 8)).frontend;
  DiagnosticSink other(Profile{}, CorpusSetIr().string());
  EXPECT_FALSE(LoadIr(CorpusSetIr().string(), frontend.string(), LoadOptions{}, other));
  EXPECT_TRUE(other.Has(rules::kFrontendLayer)) << Describe(other);
}

}  // namespace
}  // namespace accelcheck::gemini
