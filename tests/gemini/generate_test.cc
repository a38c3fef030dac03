// The reference scheduler: every generated schedule validates with zero
// diagnostics, simulates without deadlock and computes tiled == untiled; any
// single structural mutation is caught by the validator or shows up as a
// mismatch in the executor.
#include <sstream>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <nlohmann/json.hpp>

#include "conformance/gemini/generate.h"
#include "reference_exec/gemini/execute.h"
#include "reference_exec/gemini/simulate.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/gemini_format.h"
#include "tests/support/describe.h"

namespace accelcheck::gemini {
namespace {

using nlohmann::json;

struct Generated {
  std::string ir;
  std::string frontend;
};

std::optional<Generated> Generate(const GenerateOptions& options) {
  std::ostringstream ir, frontend;
  if (GenerateIr(options, ir, frontend)) return std::nullopt;
  return Generated{ir.str(), frontend.str()};
}

ByteView View(const std::string& text) { return ByteView(reinterpret_cast<const uint8_t*>(text.data()), text.size()); }

Frontend ParseFrontendText(const std::string& text) {
  std::string error;
  auto frontend = ParseFrontend(View(text), &error);
  RC_ASSERT(frontend.has_value());
  return *frontend;
}

// Validates with the frontend (strict profile); the decoded IR when it holds
// no blocking diagnostic.
std::optional<Ir> ValidateStrict(const std::string& ir, const Frontend& frontend, DiagnosticSink& sink) {
  auto decoded = DecodeAndValidate(View(ir), ValidateContext{}, &frontend, sink);
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
    return *ParseFrontend(View(generated->frontend), &error);
  }();
  DiagnosticSink sink(Profile{true, false, 0}, "generated");
  const auto ir = DecodeAndValidate(View(generated->ir), ValidateContext{}, &frontend, sink);
  ASSERT_TRUE(ir);
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
  EXPECT_EQ(ir->cores.size(), 4u);
  EXPECT_FALSE(Simulate(*ir, SimulateOptions{}).deadlock);
  EXPECT_FALSE(Execute(*ir, frontend, ExecuteOptions{}).first_mismatch);
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

RC_GTEST_PROP(GeminiGenerate, GeneratedSchedulesConform, ()) {
  const GenerateOptions options = ArbitraryOptions();
  const auto generated = Generate(options);
  RC_PRE(generated.has_value());
  const Frontend frontend = ParseFrontendText(generated->frontend);
  DiagnosticSink sink(Profile{true, false, 0}, "generated");
  const auto ir = ValidateStrict(generated->ir, frontend, sink);
  RC_ASSERT(ir.has_value());
  if (!sink.diagnostics().empty()) RC_FAIL(Describe(sink));
  RC_ASSERT(!Simulate(*ir, SimulateOptions{}).deadlock.has_value());
  RC_ASSERT(!Execute(*ir, frontend, ExecuteOptions{options.seed}).first_mismatch.has_value());
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
      if (core.size() > 1) std::swap(core[0], core[1]);
      else w["workload_id"] = 1;
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
