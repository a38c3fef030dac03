// accelcheck on NEFF files, end to end: inspect and one member, the DMA run
// with its inputs and .npy outputs, and the refusals (a missing input, a
// file that does not validate, the limits).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/neff/bases.h"
#include "conformance/neff/builder.h"
#include "conformance/neff/model.h"
#include "tests/tools/tool_runner.h"
#include "validators/core/npy.h"

namespace accelcheck::neff {
namespace {

using nlohmann::json;
using testing::RunTool;
using testing::TempDir;

std::vector<uint8_t> Stream() { return conformance::Write(conformance::Bases().front().neff); }

TEST(NeffCli, InspectPrintsTheTreeAndOneMember) {
  const TempDir dir("neff_inspect");
  const std::string file = dir.Write("stream.neff", Stream());
  const auto run = RunTool({"inspect", "-q", file});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json doc = json::parse(run.out);
  EXPECT_EQ(doc["format"], "neff");
  EXPECT_EQ(doc["kelf"], "kelf-0.json");
  EXPECT_EQ(doc["subgraphs"][0]["engines"]["sp"]["dma_blocks"], 4);
  const auto member = RunTool({"inspect", "-q", "--member", "kelf-0.json", file});
  ASSERT_EQ(member.exit_code, 0) << member.err;
  EXPECT_EQ(json::parse(member.out)["target"], "sunda");
  const auto missing = RunTool({"inspect", "-q", "--member", "nothing.json", file});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no file \"nothing.json\""), std::string::npos) << missing.err;
}

TEST(NeffCli, RunMovesTheInputsAndWritesTheOutputs) {
  const TempDir dir("neff_run");
  const std::string file = dir.Write("stream.neff", Stream());
  const auto inspect = json::parse(RunTool({"inspect", "-q", file}).out);
  std::vector<std::string> args = {"run", "-q", file, "--output-dir", dir.path() / "out"};
  for (const json& v : inspect["subgraphs"][0]["variables"]) {
    if (v["type"] != "input") continue;
    const std::vector<double> values(v["size"].get<uint64_t>() / 4, 1.5);
    const std::string name = v["name"];
    args.push_back("--input");
    args.push_back(name + "=" +
                   dir.Write(name + ".npy",
                             npy::Write(values, {values.size()}, {npy::Kind::kFloat, 4, false})));
  }
  const auto run = RunTool(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json report = json::parse(run.out);
  EXPECT_EQ(report["blocks"], 6);
  ASSERT_EQ(report["outputs"].size(), 1u);
  EXPECT_EQ(report["outputs"][0]["unwritten_bytes"], 0);
  EXPECT_TRUE(std::filesystem::exists(report["outputs"][0]["file"].get<std::string>()));
}

TEST(NeffCli, RunRefusesAMissingInputAndAFileThatDoesNotValidate) {
  const TempDir dir("neff_run_refusals");
  const std::string file = dir.Write("stream.neff", Stream());
  const auto missing = RunTool({"run", "-q", file});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("needs --input"), std::string::npos) << missing.err;
  std::vector<uint8_t> stale = Stream();
  stale.back() ^= 1;  // the padding changes, the hash does not
  const auto invalid = RunTool({"run", "-q", dir.Write("stale.neff", stale)});
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_NE(invalid.err.find("does not validate; nothing run"), std::string::npos) << invalid.err;
}

// The stream base's inputs a_vec and b_vec and output out, 4096 bytes each
// (conformance/neff/bases.h): 12288 bytes held, the limit is met at that
// figure and passed one below it (exit 3, nothing run).
TEST(NeffCli, RunKeepsToMaxTensorBytes) {
  const TempDir dir("neff_run_limit");
  const std::string file = dir.Write("stream.neff", Stream());
  const std::string a = dir.Write("a.bin", std::vector<uint8_t>(4096, 1));
  const std::string b = dir.Write("b.bin", std::vector<uint8_t>(4096, 2));
  const auto at = RunTool({"run", "-q", file, "--input", "a_vec=" + a, "--input", "b_vec=" + b,
                           "--max-tensor-bytes", "12288"});
  EXPECT_EQ(at.exit_code, 0) << at.err;
  const auto above = RunTool({"run", "-q", file, "--input", "a_vec=" + a, "--input", "b_vec=" + b,
                              "--max-tensor-bytes", "12287"});
  EXPECT_EQ(above.exit_code, 3);
  EXPECT_NE(above.err.find("would hold 12288 bytes of variables and scratchpad, more than "
                           "--max-tensor-bytes 12287"),
            std::string::npos)
      << above.err;
}

// A descriptor that reads the 16 bytes of x 2^40 times into the 16 bytes of
// y, 2^40 times, would hold 2^44 bytes a side: the file validates and the run
// is refused as a limit (exit 3) before a side is walked.
TEST(NeffCli, RunRefusesASideThatVisitsMoreThanMaxTensorBytes) {
  conformance::Spec spec = conformance::Trn1Spec();
  spec.inputs = {{"x", "uint8", {16}}};
  spec.outputs = {{"y", "uint8", {16}}};
  spec.queues = {{"qSPIO0", conformance::Engine::kSp, "in"}};
  conformance::Descriptor repeat;
  repeat.from = {"x", 0, {16, uint64_t{1} << 40}, {1, 0}, "uint8"};
  repeat.to = {"y", 0, {16, uint64_t{1} << 40}, {1, 0}, "uint8"};
  spec.blocks = {{"qSPIO0", {repeat}}};
  const TempDir dir("neff_run_side");
  const std::string file = dir.Write("repeat.neff", conformance::Write(conformance::Build(spec)));
  const std::string x = dir.Write("x.bin", std::vector<uint8_t>(16, 1));
  const auto run = RunTool({"run", file, "--input", "x=" + x});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_NE(run.err.find("a side visits 17592186044416 bytes, more than --max-tensor-bytes "
                         "268435456"),
            std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace accelcheck::neff
