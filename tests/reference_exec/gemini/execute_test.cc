// The functional executor: tiled == untiled on the example and on the large
// real files (the others are golden cases), with values or with the byte-addressed L2; a coverage
// bug (an undeclared piece) shows up as a mismatch with its workload and tile, and with the
// byte-addressed L2 so does an address overlap of live tensors.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <gtest/gtest.h>

#include "reference_exec/gemini/execute.h"
#include "reference_exec/gemini/load.h"
#include "tests/validators/gemini/fixture.h"
#include "validators/gemini/decode.h"

namespace accelcheck::gemini {
namespace {

namespace fs = std::filesystem;
using testing::ExampleFrontend;
using testing::ExampleIr;
using testing::json;

using testing::Decode;
using testing::FrontendFrom;

Frontend ExampleFrontendModel() {
  const std::string text = ExampleFrontend().dump();
  std::string error;
  auto frontend = FrontendFrom(text, &error);
  EXPECT_TRUE(frontend) << error;
  return frontend ? *frontend : Frontend{};
}

TEST(GeminiExecute, ExampleTiledEqualsUntiled) {
  for (uint64_t seed : {1u, 2u, 99u}) {
    const Execution run =
        Execute(Decode(ExampleIr()), ExampleFrontendModel(), ExecuteOptions{seed});
    EXPECT_FALSE(run.first_mismatch) << "seed " << seed;
    EXPECT_EQ(run.workloads, 2u);
    EXPECT_EQ(run.elements, 128u + 32u);
    EXPECT_TRUE(run.skipped_layers.empty());
  }
}

// With `record`, every compared element in both modes, past a mismatch too.
TEST(GeminiExecute, RecordsBothModesElementByElement) {
  ModeValues values;
  ExecuteOptions options{1};
  options.record = &values;
  const Execution run = Execute(Decode(ExampleIr()), ExampleFrontendModel(), options);
  EXPECT_EQ(values.tiled.size(), run.elements);
  EXPECT_EQ(values.tiled, values.untiled);
  ModeValues shifted;
  options.record = &shifted;
  json doc = ExampleIr();
  doc["0"][0]["tile_info"]["tile_num_1"]["ifmap_lower"] = testing::Range4(0, 0, 2, 0);
  const Execution bad = Execute(Decode(doc), ExampleFrontendModel(), options);
  ASSERT_TRUE(bad.first_mismatch);
  EXPECT_EQ(shifted.tiled.size(), values.tiled.size());
  EXPECT_EQ(shifted.untiled, values.untiled);
  EXPECT_NE(shifted.tiled, shifted.untiled);
}

// A run whose deadline has expired stops at once, with no verdict; without
// one, the progress counts every modelled layer of the untiled run and every
// workload.
TEST(GeminiExecute, StopsAtTheDeadline) {
  RunControl control{Deadline(1), nullptr};
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const Execution stopped = Execute(Decode(ExampleIr()), ExampleFrontendModel(), {}, control);
  EXPECT_TRUE(stopped.out_of_time);
  EXPECT_EQ(stopped.workloads, 0u);

  uint64_t steps = 0, total = 0;
  control = {Deadline(0), [&](uint64_t done, uint64_t all) {
               steps = done + 1;
               total = all;
             }};
  const Execution run = Execute(Decode(ExampleIr()), ExampleFrontendModel(), {}, control);
  EXPECT_FALSE(run.out_of_time);
  EXPECT_EQ(total, 4u) << "two layers untiled, two workloads";
  EXPECT_EQ(steps, total);
}

// The second conv tile declares one input row too few: the outputs that need
// it read poison, and the mismatch names workload 0, tile 1.
TEST(GeminiExecute, ShiftedTileIsAMismatch) {
  json doc = ExampleIr();
  doc["0"][0]["tile_info"]["tile_num_1"]["ifmap_lower"] = testing::Range4(0, 0, 2, 0);
  const Execution run = Execute(Decode(doc), ExampleFrontendModel(), ExecuteOptions{});
  ASSERT_TRUE(run.first_mismatch);
  EXPECT_EQ(run.first_mismatch->workload_id, 0);
  EXPECT_EQ(run.first_mismatch->tile, 1);
  EXPECT_EQ(run.first_mismatch->actual, kPoison);
  EXPECT_EQ(run.first_mismatch->layer, "Conv_0");
}

// A tile dropped from tile_info leaves its outputs unwritten.
TEST(GeminiExecute, DroppedTileIsAMismatch) {
  json doc = ExampleIr();
  doc["0"][0]["tile_info"].erase("tile_num_1");
  const Execution run = Execute(Decode(doc), ExampleFrontendModel(), ExecuteOptions{});
  ASSERT_TRUE(run.first_mismatch);
  EXPECT_EQ(run.first_mismatch->tile, -1);
  EXPECT_EQ(run.first_mismatch->at[2], 2);
}

// The pool reads a window of its input tensor that misses a row.
TEST(GeminiExecute, NarrowIfmapWindowIsAMismatch) {
  json doc = ExampleIr();
  doc["0"][1]["ifmap"][0]["upper"] = testing::Range4(0, 7, 2, 3);
  const Execution run = Execute(Decode(doc), ExampleFrontendModel(), ExecuteOptions{});
  ASSERT_TRUE(run.first_mismatch);
  EXPECT_EQ(run.first_mismatch->workload_id, 1);
}

ExecuteOptions L2Options(uint64_t seed = 1) {
  ExecuteOptions options{seed};
  options.l2_addressed = true;
  return options;
}

TEST(GeminiExecuteL2, ExampleTiledEqualsUntiled) {
  for (uint64_t seed : {1u, 2u, 99u}) {
    const Execution run = Execute(Decode(ExampleIr()), ExampleFrontendModel(), L2Options(seed));
    EXPECT_FALSE(run.first_mismatch) << "seed " << seed;
    EXPECT_FALSE(run.limit);
    EXPECT_EQ(run.workloads, 2u);
    EXPECT_EQ(run.elements, 128u + 32u);
  }
}

// The conv output tensor (live in both snapshots) moved onto the conv's
// input: the values alone do not notice, the byte-addressed L2 does, and
// names the element's address.
TEST(GeminiExecuteL2, OverlappingLiveTensorsAreAMismatch) {
  json doc = ExampleIr();
  doc["0"][0]["buffer"][2]["address"] = 832;
  doc["0"][1]["buffer"][0]["address"] = 832;
  EXPECT_FALSE(Execute(Decode(doc), ExampleFrontendModel(), ExecuteOptions{}).first_mismatch);
  const Execution run = Execute(Decode(doc), ExampleFrontendModel(), L2Options());
  ASSERT_TRUE(run.first_mismatch);
  const Mismatch& m = *run.first_mismatch;
  EXPECT_EQ(m.workload_id, 0);
  EXPECT_FALSE(m.weight);
  ASSERT_TRUE(m.l2_address);
  // Element [0, k, h, w] of the 1x8x4x4 int8 tensor at 832.
  EXPECT_EQ(*m.l2_address, 832 + (m.at[1] * 4 + m.at[2]) * 4 + m.at[3]);
}

// The conv input moved onto its weight: the weight bytes change while live.
TEST(GeminiExecuteL2, TensorOverAWeightIsAMismatch) {
  json doc = ExampleIr();
  doc["0"][0]["buffer"][1]["address"] = 64;
  EXPECT_FALSE(Execute(Decode(doc), ExampleFrontendModel(), ExecuteOptions{}).first_mismatch);
  const Execution run = Execute(Decode(doc), ExampleFrontendModel(), L2Options());
  ASSERT_TRUE(run.first_mismatch);
  EXPECT_TRUE(run.first_mismatch->weight);
  EXPECT_EQ(run.first_mismatch->workload_id, 0);
  EXPECT_EQ(run.first_mismatch->l2_address, 64);
}

// A tensor not filled from its source (the source dropped) reads undefined
// bytes, not what an earlier tensor left there.
TEST(GeminiExecuteL2, UnfilledTensorReadsPoison) {
  json doc = ExampleIr();
  doc["0"][0]["buffer"][1]["source"][0]["transfer_id"] = 77;
  const Execution run = Execute(Decode(doc), ExampleFrontendModel(), L2Options());
  ASSERT_TRUE(run.first_mismatch);
  EXPECT_EQ(run.first_mismatch->actual, kPoison);
}

// The byte array is allocated only within max_l2_bytes (cores x buffersize).
TEST(GeminiExecuteL2, MemoryLimit) {
  ExecuteOptions options = L2Options();
  options.max_l2_bytes = 4096;
  EXPECT_FALSE(Execute(Decode(ExampleIr()), ExampleFrontendModel(), options).limit);
  options.max_l2_bytes = 4095;
  const Execution run = Execute(Decode(ExampleIr()), ExampleFrontendModel(), options);
  ASSERT_TRUE(run.limit);
  EXPECT_NE(run.limit->find("4096"), std::string::npos) << *run.limit;
  EXPECT_EQ(run.workloads, 0u);
}

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR) / "gemini"; }

// On the real schedules of batch 4 and 16 the tiled run equals the untiled
// network. The batch-1 schedules are golden cases (golden/gemini/), which
// compare every element; these larger ones take too long for the golden run.
TEST(GeminiExecute, LargeRealFilesTiledEqualsUntiled) {
  const fs::path dir = CorpusDir() / "scheduler_ir";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no Gemini corpus at " << CorpusDir();
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find("_b1_") != std::string::npos) continue;
    SCOPED_TRACE(name);
    const fs::path frontend = CorpusDir() / "frontend_ir" /
                              (name.substr(0, name.find("_c1_bw16_stschedule.json")) + ".json");
    DiagnosticSink sink(Profile{}, name);
    const auto loaded = LoadValidIr(entry.path().string(), frontend.string(), Limits{}, sink);
    ASSERT_TRUE(loaded);
    for (const bool l2 : {false, true}) {
      SCOPED_TRACE(l2 ? "byte-addressed L2" : "values");
      ExecuteOptions options{7};
      options.l2_addressed = l2;
      const Execution run = Execute(loaded->ir, *loaded->frontend, options);
      EXPECT_FALSE(run.limit);
      EXPECT_EQ(run.workloads, loaded->ir.cores[0].workloads.size());
      EXPECT_TRUE(run.skipped_layers.empty());
      EXPECT_GT(run.elements, 0u);
      if (run.first_mismatch) {
        const Mismatch& m = *run.first_mismatch;
        ADD_FAILURE() << "workload " << m.workload_id << " tile " << m.tile << " " << m.layer
                      << " at [" << m.at[0] << "," << m.at[1] << "," << m.at[2] << "," << m.at[3]
                      << "]: expected " << m.expected << ", got " << m.actual
                      << (m.weight ? " (weight)" : "") << " at L2 " << m.l2_address.value_or(-1);
      }
    }
  }
}

// A real schedule with one forwarded tensor moved onto another tensor live in
// the same snapshots: only the byte-addressed L2 shows the corruption.
TEST(GeminiExecuteL2, RealFileOverlapIsAMismatch) {
  const fs::path ir_path =
      CorpusDir() / "scheduler_ir" / "int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json";
  const fs::path frontend_path =
      CorpusDir() / "frontend_ir" / "int8_resnet34.sim_quantized_b1.json";
  if (!fs::exists(ir_path)) GTEST_SKIP() << "no Gemini corpus at " << CorpusDir();
  std::ifstream in(ir_path);
  json doc = json::parse(in);
  // The first tensor added in a snapshot that already holds an older fmap
  // which both outlive: place the new one on the older one's address.
  std::optional<int64_t> moved, onto_address;
  json& workloads = doc["0"];
  for (size_t i = 1; i < workloads.size() && !moved; ++i) {
    for (const json& fresh : workloads[i]["buffer"]) {
      if (fresh["type"] != "ifmap" || !fresh.value("newly_added", false)) continue;
      for (const json& old : workloads[i]["buffer"]) {
        if (old["type"] != "ifmap" || old.value("newly_added", true) ||
            old["size"].get<int64_t>() < fresh["size"].get<int64_t>()) {
          continue;
        }
        moved = fresh["tensor_id"].get<int64_t>();
        onto_address = old["address"].get<int64_t>();
        break;
      }
      if (moved) break;
    }
  }
  ASSERT_TRUE(moved);
  for (json& w : workloads) {
    for (json& entry : w["buffer"]) {
      if (entry["tensor_id"] == *moved) entry["address"] = *onto_address;
    }
  }
  std::ifstream frontend_in(frontend_path, std::ios::binary);
  const std::string frontend_text((std::istreambuf_iterator<char>(frontend_in)),
                                  std::istreambuf_iterator<char>());
  std::string error;
  const auto frontend = FrontendFrom(frontend_text, &error);
  ASSERT_TRUE(frontend) << error;
  const Ir ir = Decode(doc);
  EXPECT_FALSE(Execute(ir, *frontend, ExecuteOptions{7}).first_mismatch);
  const Execution run = Execute(ir, *frontend, L2Options(7));
  ASSERT_TRUE(run.first_mismatch) << "tensor " << *moved << " moved to " << *onto_address;
  EXPECT_TRUE(run.first_mismatch->l2_address || run.first_mismatch->weight);
}

}  // namespace
}  // namespace accelcheck::gemini
