// The functional executor: tiled == untiled on the example and on the real
// files, and a coverage bug (an undeclared piece) shows up as a mismatch
// with its workload and tile.
#include <filesystem>

#include <gtest/gtest.h>

#include "reference_exec/gemini/execute.h"
#include "reference_exec/gemini/load.h"
#include "tests/gemini/fixture.h"
#include "validators/gemini/decode.h"

namespace accelcheck::gemini {
namespace {

namespace fs = std::filesystem;
using testing::ExampleFrontend;
using testing::ExampleIr;
using testing::json;

using testing::Decode;

Frontend ExampleFrontendModel() {
  const std::string text = ExampleFrontend().dump();
  std::string error;
  auto frontend = ParseFrontend(ByteView(reinterpret_cast<const uint8_t*>(text.data()), text.size()), &error);
  EXPECT_TRUE(frontend) << error;
  return frontend ? *frontend : Frontend{};
}

TEST(GeminiExecute, ExampleTiledEqualsUntiled) {
  for (uint64_t seed : {1u, 2u, 99u}) {
    const Execution run = Execute(Decode(ExampleIr()), ExampleFrontendModel(), ExecuteOptions{seed});
    EXPECT_FALSE(run.first_mismatch) << "seed " << seed;
    EXPECT_EQ(run.workloads, 2u);
    EXPECT_EQ(run.elements, 128u + 32u);
    EXPECT_TRUE(run.skipped_layers.empty());
  }
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

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR) / "gemini"; }

// Golden: on every real schedule the tiled run equals the untiled network.
TEST(GeminiExecute, RealFilesTiledEqualsUntiled) {
  const fs::path dir = CorpusDir() / "scheduler_ir";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no Gemini corpus at " << CorpusDir();
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    const fs::path frontend = CorpusDir() / "frontend_ir" / (name.substr(0, name.find("_c1_bw16_stschedule.json")) + ".json");
    DiagnosticSink sink(Profile{}, name);
    const auto loaded = LoadValidIr(entry.path().string(), frontend.string(), Limits{}, sink);
    ASSERT_TRUE(loaded);
    const Execution run = Execute(loaded->ir, *loaded->frontend, ExecuteOptions{7});
    EXPECT_EQ(run.workloads, loaded->ir.cores[0].workloads.size());
    EXPECT_TRUE(run.skipped_layers.empty());
    EXPECT_GT(run.elements, 0u);
    if (run.first_mismatch) {
      const Mismatch& m = *run.first_mismatch;
      ADD_FAILURE() << "workload " << m.workload_id << " tile " << m.tile << " " << m.layer << " at [" << m.at[0] << ","
                    << m.at[1] << "," << m.at[2] << "," << m.at[3] << "]: expected " << m.expected << ", got " << m.actual;
    }
  }
}

}  // namespace
}  // namespace accelcheck::gemini
