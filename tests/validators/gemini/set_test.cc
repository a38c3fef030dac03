// The SET generator's dialect (docs/formats/gemini.md "The SET dialect"):
// the reference scheduler's SET schedules validate clean over meshes, layer
// counts and sizes (with tensors wrapping round the ring), the real SET IR
// validates with zero findings in both profiles, and the decoder takes the
// dialect's two spellings of bounds and ids while reporting wrong types.
#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/gemini/set_generate.h"
#include "reference_exec/gemini/load.h"
#include "reference_exec/gemini/simulate.h"
#include "tests/support/describe.h"
#include "validators/core/compressed.h"
#include "validators/core/core_rules.h"
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

DiagnosticSink ValidateText(const std::string& text, bool strict = false) {
  DiagnosticSink sink(Profile{strict, false, 0}, "set.json");
  const InputBuffer input = InputBuffer::Copy(AsBytes(text));
  GeminiFormat().Validate(input, ValidateContext{}, sink);
  return sink;
}

// The IR of `text`, decoded and in the Gemini tables.
Ir Lowered(const std::string& text) {
  DiagnosticSink sink(Profile{}, "set.json");
  set::Ir ir;
  EXPECT_TRUE(set::DecodeSetIr(AsBytes(text), Limits{}, sink, &ir)) << Describe(sink);
  return LowerSetIr(ir);
}

std::string Generate(const GenerateOptions& options) {
  std::ostringstream out;
  const auto problem = GenerateSetIr(options, out);
  EXPECT_FALSE(problem) << *problem;
  return out.str();
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
  std::ostringstream out;
  RC_ASSERT(!GenerateSetIr(o, out));
  const DiagnosticSink sink = ValidateText(out.str(), /*strict=*/true);
  RC_ASSERT(sink.diagnostics().empty());
  // ... and simulate to the end without deadlock.
  const Simulation sim = Simulate(Lowered(out.str()), SimulateOptions{});
  RC_ASSERT(!sim.deadlock);
  size_t done = 0;
  for (const CoreTimeline& core : sim.cores) done += core.workloads.size();
  RC_ASSERT(done == static_cast<size_t>(o.layers * mesh_x * mesh_y));
}

// One 3x3 convolution of 8 channels on 4x4 on one core, by hand at 16 bytes
// a cycle: the input (128 B) loads in cycles 0-8, the weights (8*8*9 B) in
// 8-44, the workload runs its time of 128*8*9/64 + 1 = 145 cycles in
// 44-189, and its output (128 B) is stored in 189-197.
TEST(SetDialect, SimulatedByHand) {
  GenerateOptions o = Options(1, 1, 1, 8);
  o.height = o.width = 4;
  const Simulation sim = Simulate(Lowered(Generate(o)), SimulateOptions{});
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
  const std::string text = Generate(o);
  const json ir = json::parse(text);
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
  const DiagnosticSink sink = ValidateText(text, /*strict=*/true);
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
}

TEST(SetDialect, TheGeneratorRefusesWhatItCannotSchedule) {
  std::ostringstream out;
  EXPECT_TRUE(GenerateSetIr(Options(2, 4, 1, 2), out));  // more cores than channels
  GenerateOptions big = Options(1, 1, 1, 64);
  big.height = big.width = 96;  // 576 blocks of input, held as three tensors
  EXPECT_TRUE(GenerateSetIr(big, out));
  GenerateOptions mixed = Options(2, 1, 1, 8);
  mixed.kinds = {LayerKind::kConv, LayerKind::kMaxPool};
  EXPECT_TRUE(GenerateSetIr(mixed, out));
}

// The report and inspect name the dialect.
TEST(SetDialect, DetectedAndNamed) {
  const std::string text = Generate(Options(2, 2, 1, 8));
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
  json ir = json::parse(Generate(Options(2, 2, 1, 8)));
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
  json ir = json::parse(Generate(Options(1, 1, 1, 8)));
  ir["1"][0]["ifmap"]["lower"] = json::array({0, 0, 0});
  const DiagnosticSink sink = ValidateText(ir.dump());
  EXPECT_TRUE(sink.Has(rules::kSchemaType)) << Describe(sink);
  EXPECT_EQ(sink.error_count(), 1u) << Describe(sink);
}

fs::path CorpusSetIr() {
  return fs::path(ACCELCHECK_CORPUS_DIR) / "gemini" / "set_ir_multicore" /
         "ires_block_b2_mesh2x2_LP-SA_allocated.set_ir.json.gz";
}

// The real SET IR (4 cores, 192 workloads): zero findings but the gzip
// note, in the default profile and under --strict.
TEST(SetDialect, TheRealSetIrValidatesClean) {
  if (!fs::exists(CorpusSetIr())) GTEST_SKIP() << "no SET IR in the corpus at " << CorpusSetIr();
  for (bool strict : {false, true}) {
    DiagnosticSink sink(Profile{strict, false, 0}, CorpusSetIr().string());
    const auto input = ReadModelFile(CorpusSetIr().string(), Limits{}, sink);
    ASSERT_TRUE(input) << Describe(sink);
    EXPECT_EQ(GeminiFormat().Dialect(input->bytes()), "set");
    GeminiFormat().Validate(*input, ValidateContext{}, sink);
    EXPECT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
    EXPECT_TRUE(sink.Has(core_rules::kGzipInflated)) << Describe(sink);
  }
}

// The executors' loader hands the real SET IR over in the Gemini tables: all
// 192 workloads of its 4 cores simulate without deadlock. The functional
// executor refuses it: it has no tiles.
TEST(SetDialect, TheRealSetIrSimulates) {
  if (!fs::exists(CorpusSetIr())) GTEST_SKIP() << "no SET IR in the corpus at " << CorpusSetIr();
  DiagnosticSink sink(Profile{}, CorpusSetIr().string());
  const auto loaded = LoadValidIr(CorpusSetIr().string(), "", Limits{}, sink);
  ASSERT_TRUE(loaded) << Describe(sink);
  EXPECT_FALSE(loaded->frontend);
  const Simulation sim = Simulate(loaded->ir, SimulateOptions{});
  EXPECT_FALSE(sim.deadlock);
  size_t done = 0;
  for (const CoreTimeline& core : sim.cores) done += core.workloads.size();
  EXPECT_EQ(done, 192u);
  // A SET IR has no frontend IR: one named with it is read by nothing.
  DiagnosticSink named(Profile{}, CorpusSetIr().string());
  EXPECT_FALSE(LoadIr(CorpusSetIr().string(), "frontend.json", LoadOptions{}, named));
  EXPECT_TRUE(named.Has(core_rules::kCompanionUnused)) << Describe(named);
  LoadOptions run;
  run.needs_tiles = true;
  DiagnosticSink refused(Profile{}, CorpusSetIr().string());
  EXPECT_FALSE(LoadIr(CorpusSetIr().string(), "", run, refused));
  EXPECT_TRUE(refused.Has(core_rules::kFormatUnsupported)) << Describe(refused);
}

}  // namespace
}  // namespace accelcheck::gemini
