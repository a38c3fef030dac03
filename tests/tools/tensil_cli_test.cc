// The Tensil commands end to end: assemble, inspect --disasm, and run with
// .npy inputs and outputs, on small models written here and on the real
// programs when the corpus is present.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/tools/tool_runner.h"
#include "tests/validators/tensil/fixture.h"
#include "validators/core/npy.h"

namespace accelcheck::tensil {
namespace {

namespace fs = std::filesystem;
using testing::ReadWhole;
using testing::RunTool;
using testing::TempDir;

std::vector<uint8_t> Bytes(const std::string& text) { return {text.begin(), text.end()}; }

// A model that copies its input vector to its output: DRAM0 0 -> local -> DRAM0 1.
struct CopyModel {
  TempDir dir{"tensil_cli"};
  std::string tmodel;

  CopyModel() {
    fixture::Case c;
    c.program = {"DataMove dram0->local local=0 dram0=0 size=0",
                 "DataMove local->dram0 local=0 dram0=1 size=0"};
    const auto program = fixture::AssembleFor(c.arch(), c.program);
    c.model["prog"]["size"] = program.size();
    dir.Write("tiny.tprog", program);
    dir.Write("tiny.tdata", c.tdata);
    dir.Write("tiny.tarch", Bytes(c.arch().dump()));
    tmodel = dir.Write("tiny.tmodel", Bytes(c.model.dump()));
  }
};

TEST(TensilCli, AssembleThenDisassembleGivesTheSameText) {
  TempDir dir("tensil_asm");
  const auto arch = dir.Write("a.tarch", Bytes(fixture::TinyArch().dump()));
  std::string text;
  for (const std::string& line : fixture::BaseProgram()) text += line + "\n";
  const auto source = dir.Write("p.tasm", Bytes(text));
  const std::string prog = (dir.path() / "p.tprog").string();
  const auto assembled = RunTool({"assemble", source, "--arch", arch, "-o", prog});
  ASSERT_EQ(assembled.exit_code, 0) << assembled.err;
  EXPECT_EQ(ReadWhole(prog).size(), fixture::BaseProgram().size() * 6u);  // 6-byte instructions
  const auto listed = RunTool({"inspect", prog, "--disasm", "--data", arch});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  // The disassembler names every SIMD field, including the zero addresses.
  std::string canonical = text;
  const std::string zero_simd = "SIMD op=zero left=in right=in dest=r1\n";
  canonical.replace(canonical.find(zero_simd), zero_simd.size(),
                    "SIMD op=zero left=in right=in dest=r1 wacc=0 racc=0\n");
  EXPECT_EQ(listed.out, canonical);
  const auto again = dir.Write("q.tasm", Bytes(listed.out));
  const std::string prog2 = (dir.path() / "q.tprog").string();
  ASSERT_EQ(RunTool({"assemble", again, "--arch", arch, "-o", prog2}).exit_code, 0);
  EXPECT_TRUE(ReadWhole(prog) == ReadWhole(prog2));
}

TEST(TensilCli, AssembleReportsTheLineThatFails) {
  TempDir dir("tensil_asm_error");
  const auto arch = dir.Write("a.tarch", Bytes(fixture::TinyArch().dump()));
  const auto source = dir.Write("p.tasm", Bytes("Wait\nMatMul local=999999\n"));
  const auto run =
      RunTool({"assemble", source, "--arch", arch, "-o", (dir.path() / "p.tprog").string()});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("p.tasm:2: "), std::string::npos) << run.err;
  EXPECT_EQ(RunTool({"assemble", source, "-o", "x"}).exit_code, 2);  // no --arch
  EXPECT_EQ(RunTool({"assemble", "--help"}).exit_code, 0);
}

TEST(TensilCli, DisasmIsOnlyForTensil) {
  const auto run = RunTool({"inspect", "--format", "pte", "--disasm", "/dev/null"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
}

TEST(TensilCli, RunCopiesAnInputThroughTheModel) {
  CopyModel model;
  const auto input =
      model.dir.Write("x.npy", npy::Write({1.5, -2.0}, {2}, {npy::Kind::kFloat, 4, false}));
  const auto run = RunTool({"run", model.tmodel, "--input", input});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto summary = nlohmann::json::parse(run.out);
  EXPECT_EQ(summary["instructions"], 2);
  ASSERT_EQ(summary["outputs"].size(), 1u);
  EXPECT_EQ(summary["outputs"][0]["name"], "y");
  EXPECT_EQ(summary["outputs"][0]["values"], nlohmann::json::array({1.5, -2.0}));
}

TEST(TensilCli, RunWritesRawOutputsAsNpy) {
  CopyModel model;
  // An integer array holds raw FP16BP8 scalars; one lane of two is padded.
  const auto input =
      model.dir.Write("x.npy", npy::Write({384}, {1, 1}, {npy::Kind::kSigned, 2, true}));
  const std::string out_dir = (model.dir.path() / "out").string();
  const auto run =
      RunTool({"run", "--input", input, model.tmodel, "--output-dir", out_dir, "--raw"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string bytes = ReadWhole(fs::path(out_dir) / "y.npy");
  std::string error;
  const auto array = npy::Read(AsBytes(bytes), &error);
  ASSERT_TRUE(array) << error;
  EXPECT_EQ(array->shape, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(array->values, (std::vector<double>{384, 0}));
}

TEST(TensilCli, RunRefusesInputsThatDoNotFit) {
  CopyModel model;
  const auto wide =
      model.dir.Write("w.npy", npy::Write({1, 2, 3}, {3}, {npy::Kind::kFloat, 4, false}));
  EXPECT_EQ(RunTool({"run", model.tmodel, "--input", wide}).exit_code, 2);
  const auto tall =
      model.dir.Write("t.npy", npy::Write({1, 2, 3, 4}, {2, 2}, {npy::Kind::kFloat, 4, false}));
  EXPECT_EQ(RunTool({"run", model.tmodel, "--input", tall}).exit_code, 2);
  // FP16BP8 raw values lie in [-32768, 32767].
  const auto raw =
      model.dir.Write("r.npy", npy::Write({32768}, {1, 1}, {npy::Kind::kSigned, 4, true}));
  const auto refused = RunTool({"run", model.tmodel, "--input", raw});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("not a raw FP16BP8 value"), std::string::npos) << refused.err;
  const auto junk = model.dir.Write("j.npy", Bytes("not an array"));
  EXPECT_EQ(RunTool({"run", model.tmodel, "--input", junk}).exit_code, 2);
  EXPECT_EQ(RunTool({"run", model.tmodel}).exit_code, 2);  // one input, none given
}

TEST(TensilCli, RunRefusesAModelThatDoesNotValidate) {
  CopyModel model;
  fs::remove(model.dir.path() / "tiny.tdata");
  const auto input = model.dir.Write("x.npy", npy::Write({1}, {1}, {npy::Kind::kFloat, 4, false}));
  const auto run = RunTool({"run", model.tmodel, "--input", input});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("tensil.model.file_missing"), std::string::npos) << run.err;
}

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR) / "tensil"; }

TEST(TensilCli, EveryRealProgramDisassemblesAndAssemblesBackThroughTheCommands) {
  if (!fs::is_directory(CorpusDir())) GTEST_SKIP() << "Tensil corpus not found at " << CorpusDir();
  TempDir dir("tensil_cli_corpus");
  int models = 0;
  for (const auto& entry : fs::recursive_directory_iterator(CorpusDir())) {
    if (entry.path().extension() != ".tmodel") continue;
    const auto listed = RunTool({"inspect", entry.path().string(), "--disasm"});
    ASSERT_EQ(listed.exit_code, 0) << entry.path() << listed.err;
    const auto source = dir.Write("p.tasm", Bytes(listed.out));
    const std::string prog = (dir.path() / "p.tprog").string();
    const auto assembled =
        RunTool({"assemble", source, "--arch", entry.path().string(), "-o", prog});
    ASSERT_EQ(assembled.exit_code, 0) << entry.path() << assembled.err;
    const auto model = nlohmann::json::parse(ReadWhole(entry.path()));
    const fs::path original =
        entry.path().parent_path() / model["prog"]["file_name"].get<std::string>();
    EXPECT_TRUE(ReadWhole(prog) == ReadWhole(original)) << entry.path();
    ++models;
  }
  EXPECT_GE(models, 10);
}

}  // namespace
}  // namespace accelcheck::tensil
