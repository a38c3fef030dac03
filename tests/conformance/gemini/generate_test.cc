// The reference scheduler: every generated schedule (conv chains and mixed
// conv/pool/add/fc networks) validates with zero diagnostics, simulates
// without deadlock and computes tiled == untiled, with values and with the
// byte-addressed L2; any single structural mutation is caught by the
// validator or shows up as a mismatch in the executor.
#include <algorithm>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <nlohmann/json.hpp>

#include "conformance/gemini/generate.h"
#include "reference_exec/gemini/execute.h"
#include "reference_exec/gemini/simulate.h"
#include "tests/support/describe.h"
#include "tests/validators/gemini/fixture.h"
#include "validators/core/text.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/gemini_format.h"

namespace accelcheck::gemini {
namespace {

using nlohmann::json;
using testing::FrontendFrom;

struct Generated {
  std::string ir;
  std::string frontend;
};

std::optional<Generated> Generate(const GenerateOptions& options) {
  std::ostringstream ir, frontend;
  if (GenerateIr(options, ir, frontend)) return std::nullopt;
  return Generated{ir.str(), frontend.str()};
}

Frontend ParseFrontendText(const std::string& text) {
  std::string error;
  auto frontend = FrontendFrom(text, &error);
  RC_ASSERT(frontend.has_value());
  return *frontend;
}

// Validates with the frontend (strict profile); the decoded IR when it holds
// no blocking diagnostic.
std::optional<Ir> ValidateStrict(const std::string& ir, const Frontend& frontend,
                                 DiagnosticSink& sink) {
  auto decoded = DecodeAndValidate(AsBytes(ir), ValidateContext{}, &frontend, sink);
  if (!decoded || sink.blocking_count() != 0) return std::nullopt;
  return decoded;
}

using ::accelcheck::test::Describe;

GenerateOptions Bounds() {
  GenerateOptions bounds;
  bounds.layers = 4;
  bounds.batch = 3;
  bounds.channels = 12;
  bounds.height = 12;
  bounds.width = 6;
  bounds.tiles = 3;
  return bounds;
}

GenerateOptions ArbitraryOptions() {
  GenerateOptions bounds = Bounds();
  bounds.mesh_x = *rc::gen::inRange(1, 4);
  bounds.mesh_y = *rc::gen::inRange(1, 3);
  bounds.buffer = 1 << 20;
  return RandomizeOptions(bounds, *rc::gen::inRange<uint64_t>(0, 1u << 30));
}

TEST(GeminiGenerate, ExampleSchedule) {
  GenerateOptions o;
  o.mesh_x = 2;
  o.mesh_y = 2;
  const auto generated = Generate(o);
  ASSERT_TRUE(generated);
  const Frontend frontend = [&] {
    std::string error;
    return *FrontendFrom(generated->frontend, &error);
  }();
  DiagnosticSink sink(Profile{true, false, 0}, "generated");
  const auto ir = DecodeAndValidate(AsBytes(generated->ir), ValidateContext{}, &frontend, sink);
  ASSERT_TRUE(ir);
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
  EXPECT_EQ(ir->cores.size(), 4u);
  EXPECT_FALSE(Simulate(*ir, SimulateOptions{}).deadlock);
  EXPECT_FALSE(Execute(*ir, frontend, ExecuteOptions{}).first_mismatch);
}

// I-B8, checked here as well as by the validator: on each core, a transfer
// read by several workloads (the residual of an add) stays in one tensor, at
// one address, in every snapshot from its first reader through its last.
std::optional<std::string> SplitResidual(const Ir& ir) {
  for (const Core& core : ir.cores) {
    std::map<int64_t, std::pair<size_t, size_t>> readers;  // transfer -> first, last position
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      for (const Ifmap& f : core.workloads[i].ifmaps) {
        for (const int64_t id : f.transfer_ids)
          readers.try_emplace(id, i, i).first->second.second = i;
      }
    }
    for (const auto& [id, span] : readers) {
      std::optional<std::pair<int64_t, int64_t>> holder;  // tensor_id, address
      for (size_t i = span.first; i <= span.second; ++i) {
        const Workload& w = core.workloads[i];
        std::vector<std::pair<int64_t, int64_t>> carriers;
        for (const BufferEntry& e : w.buffer) {
          if (std::find(e.transfer_ids.begin(), e.transfer_ids.end(), id) != e.transfer_ids.end()) {
            carriers.emplace_back(e.tensor_id, e.address);
          }
        }
        if (carriers.size() != 1) {
          return Str("core ", core.id, " workload ", w.id, ": transfer ", id, " is held by ",
                     carriers.size(), " tensors; expected 1");
        }
        if (holder && *holder != carriers[0]) {
          return Str("core ", core.id, " workload ", w.id, ": transfer ", id, " is held by tensor ",
                     carriers[0].first, " at ", carriers[0].second, "; expected tensor ",
                     holder->first, " at ", holder->second, " as in the snapshot before");
        }
        holder = carriers[0];
      }
    }
  }
  return std::nullopt;
}

ExecuteOptions L2Options(uint64_t seed) {
  ExecuteOptions options{seed};
  options.l2_addressed = true;
  return options;
}

// What keeps a generated schedule from conforming, or nothing: it must
// validate strictly with zero diagnostics, keep residuals in one tensor,
// simulate without deadlock and compute tiled == untiled both ways.
std::optional<std::string> ConformanceProblem(const Generated& generated, uint64_t seed) {
  std::string error;
  const auto frontend = FrontendFrom(generated.frontend, &error);
  if (!frontend) return "frontend: " + error;
  DiagnosticSink sink(Profile{true, false, 0}, "generated");
  const auto ir = ValidateStrict(generated.ir, *frontend, sink);
  if (!ir || !sink.diagnostics().empty()) return Describe(sink);
  if (auto split = SplitResidual(*ir)) return split;
  if (Simulate(*ir, SimulateOptions{}).deadlock) return "the simulation deadlocks";
  for (const ExecuteOptions& options : {ExecuteOptions{seed}, L2Options(seed)}) {
    const Execution run = Execute(*ir, *frontend, options);
    if (run.first_mismatch) {
      return Str(options.l2_addressed ? "L2-addressed " : "", "mismatch at workload ",
                 run.first_mismatch->workload_id, " ", run.first_mismatch->layer);
    }
    if (!run.skipped_layers.empty()) return "layers skipped: " + run.skipped_layers.front();
  }
  return std::nullopt;
}

void ExpectConforms(const Generated& generated, uint64_t seed) {
  EXPECT_EQ(ConformanceProblem(generated, seed), std::nullopt);
}

TEST(GeminiGenerate, DescribedNetwork) {
  std::string error;
  const auto kinds = ParseLayers("conv,conv,pool,conv,add,avgpool,fc", &error);
  ASSERT_TRUE(kinds) << error;
  for (const auto& [x, y] : {std::pair{1, 1}, std::pair{2, 2}}) {
    GenerateOptions o;
    o.kinds = *kinds;
    o.mesh_x = x;
    o.mesh_y = y;
    const auto generated = Generate(o);
    ASSERT_TRUE(generated);
    EXPECT_NE(generated->frontend.find("\"operation\":\"element_wise_add\""), std::string::npos);
    EXPECT_NE(generated->frontend.find("\"operation\":\"max_pool2d\""), std::string::npos);
    EXPECT_NE(generated->frontend.find("\"operation\":\"dense\""), std::string::npos);
    ExpectConforms(*generated, 3);
  }
}

// Networks of each kind alone and in the combinations that keep a tensor
// live across workloads (an add after an add re-reads the conv before both).
TEST(GeminiGenerate, EachLayerKindConforms) {
  for (const char* description :
       {"pool", "avgpool,pool", "fc", "conv,fc", "pool,fc", "conv,conv,add", "conv,pool,add,add",
        "conv,conv,add,conv,add,fc"}) {
    std::string error;
    const auto kinds = ParseLayers(description, &error);
    ASSERT_TRUE(kinds) << description << ": " << error;
    for (const auto& [x, y] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{3, 2}}) {
      SCOPED_TRACE(Str(description, " on ", x, "x", y));
      GenerateOptions o;
      o.kinds = *kinds;
      o.mesh_x = x;
      o.mesh_y = y;
      o.batch = 2;
      o.channels = 5;
      o.height = 9;
      o.width = 4;
      o.tiles = 3;
      const auto generated = Generate(o);
      ASSERT_TRUE(generated);
      ExpectConforms(*generated, 11);
    }
  }
}

// The residual of an add is not re-sent: the add's snapshot keeps the tensor
// its input layer read, and marks it as read again.
TEST(GeminiGenerate, ResidualIsKeptNotReloaded) {
  GenerateOptions o;
  o.kinds = {LayerKind::kConv, LayerKind::kConv, LayerKind::kAdd};
  o.mesh_x = 2;
  const auto generated = Generate(o);
  ASSERT_TRUE(generated);
  const json ir = json::parse(generated->ir);
  for (const char* core : {"0", "1"}) {
    const json& conv = ir[core][1];
    const json& add = ir[core][2];
    const json* kept = nullptr;
    for (const json& entry : add["buffer"]) {
      if (!entry.value("newly_added", true)) kept = &entry;
    }
    ASSERT_NE(kept, nullptr) << "core " << core;
    EXPECT_TRUE(kept->value("cur_wl_ifmap", false));
    bool held_before = false;
    for (const json& entry : conv["buffer"]) {
      held_before |=
          entry["tensor_id"] == (*kept)["tensor_id"] && entry["address"] == (*kept)["address"];
    }
    EXPECT_TRUE(held_before) << "core " << core;
  }
}

TEST(GeminiGenerate, ParseLayers) {
  std::string error;
  EXPECT_EQ(ParseLayers("4", &error)->size(), 4u);
  EXPECT_EQ(ParseLayers("conv,pool,avgpool,add,fc", &error)->size(), 5u);
  EXPECT_FALSE(ParseLayers("conv,add", &error));
  EXPECT_NE(error.find("add needs two layers"), std::string::npos) << error;
  EXPECT_FALSE(ParseLayers("fc,conv", &error));
  EXPECT_FALSE(ParseLayers("conv,relu", &error));
  EXPECT_NE(error.find("relu"), std::string::npos) << error;
  EXPECT_FALSE(ParseLayers("0", &error));
  EXPECT_FALSE(ParseLayers("", &error));
}

// N convolutions given as a count or as a description write the same file.
TEST(GeminiGenerate, CountIsAConvChain) {
  GenerateOptions count;
  count.layers = 3;
  GenerateOptions described;
  described.kinds = {LayerKind::kConv, LayerKind::kConv, LayerKind::kConv};
  EXPECT_EQ(Generate(count)->ir, Generate(described)->ir);
  EXPECT_EQ(Generate(count)->frontend, Generate(described)->frontend);
}

TEST(GeminiGenerate, DeterministicPerSeed) {
  GenerateOptions o = RandomizeOptions(Bounds(), 42);
  EXPECT_EQ(Generate(o)->ir, Generate(o)->ir);
}

TEST(GeminiGenerate, TooSmallABufferIsRefused) {
  GenerateOptions o;
  o.buffer = 256;
  std::ostringstream ir, frontend;
  EXPECT_TRUE(GenerateIr(o, ir, frontend).has_value());
}

TEST(GeminiGenerate, SizesThatOverflowAreRefused) {
  GenerateOptions o;
  o.batch = int64_t{1} << 40;
  o.channels = int64_t{1} << 40;
  o.buffer = int64_t{1} << 40;
  std::ostringstream ir, frontend;
  const auto problem = GenerateIr(o, ir, frontend);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("overflows"), std::string::npos) << *problem;
  EXPECT_TRUE(ir.str().empty());
}

RC_GTEST_PROP(GeminiGenerate, GeneratedSchedulesConform, ()) {
  const GenerateOptions options = ArbitraryOptions();
  const auto generated = Generate(options);
  RC_PRE(generated.has_value());
  if (const auto problem = ConformanceProblem(*generated, options.seed)) RC_FAIL(*problem);
}

// Random networks of every layer kind.
RC_GTEST_PROP(GeminiGenerate, MixedNetworksConform, ()) {
  GenerateOptions bounds = Bounds();
  bounds.layers = 7;
  bounds.mixed = true;
  bounds.mesh_x = *rc::gen::inRange(1, 3);
  bounds.mesh_y = *rc::gen::inRange(1, 3);
  bounds.buffer = 1 << 20;
  const GenerateOptions options =
      RandomizeOptions(bounds, *rc::gen::inRange<uint64_t>(0, 1u << 30));
  const auto generated = Generate(options);
  RC_PRE(generated.has_value());
  RC_CLASSIFY(
      std::find(options.kinds.begin(), options.kinds.end(), LayerKind::kAdd) != options.kinds.end(),
      "add");
  RC_CLASSIFY(options.kinds.back() == LayerKind::kFc, "fc");
  if (const auto problem = ConformanceProblem(*generated, options.seed)) RC_FAIL(*problem);
}

// One structural mutation of a generated schedule, by kind.
enum class Mutation { kShiftTile, kDropSource, kChangeTransferId, kMoveAddress, kSwapWorkloads };

void Mutate(json& ir, Mutation kind, uint64_t pick) {
  std::vector<std::string> cores;
  for (const auto& [key, value] : ir.items()) {
    if (value.is_array()) cores.push_back(key);
  }
  json& core = ir[cores[pick % cores.size()]];
  json& w = core[pick % core.size()];
  switch (kind) {
    case Mutation::kShiftTile: {
      json& tile = w["tile_info"]["tile_num_0"];
      tile["ofmap_lower"][2] = tile["ofmap_lower"][2].get<int64_t>() + 1;
      break;
    }
    case Mutation::kDropSource:
      w["buffer"][1]["source"].erase(w["buffer"][1]["source"].size() - 1);
      break;
    case Mutation::kChangeTransferId:
      w["ifmap"][0]["transfer_id"][0] = w["ifmap"][0]["transfer_id"][0].get<int64_t>() + 1;
      break;
    case Mutation::kMoveAddress:
      w["buffer"][1]["address"] = w["buffer"][1]["address"].get<int64_t>() - 8;
      break;
    case Mutation::kSwapWorkloads:
      if (core.size() > 1)
        std::swap(core[0], core[1]);
      else
        w["workload_id"] = 1;
      break;
  }
}

RC_GTEST_PROP(GeminiGenerate, EveryMutationIsCaught, ()) {
  const GenerateOptions options = ArbitraryOptions();
  const auto generated = Generate(options);
  RC_PRE(generated.has_value());
  const auto kind = static_cast<Mutation>(*rc::gen::inRange(0, 5));
  json ir = json::parse(generated->ir);
  Mutate(ir, kind, *rc::gen::inRange<uint64_t>(0, 1000));
  const std::string mutated = ir.dump();
  const Frontend frontend = ParseFrontendText(generated->frontend);
  DiagnosticSink sink(Profile{}, "mutated");
  const auto decoded = ValidateStrict(mutated, frontend, sink);
  // Caught by the validator: an error, or a warning of a rule real files
  // break (an error under --strict).
  if (!decoded || sink.error_count() + sink.warning_count() > 0) return;
  const Execution run = Execute(*decoded, frontend, ExecuteOptions{options.seed});
  RC_ASSERT(run.first_mismatch.has_value());
}

}  // namespace
}  // namespace accelcheck::gemini
