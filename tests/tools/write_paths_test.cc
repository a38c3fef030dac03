// Every command that writes files, driven into places it cannot write: each
// reports an I/O error (exit 3) that names the path, never aborts, and never
// leaves a partial file in place of an existing one.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/gemini/cases.h"
#include "conformance/tensil/bundle.h"
#include "tests/tools/cli_fixture.h"
#include "validators/core/npy.h"

namespace accelcheck::testing {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> Text(const std::string& text) { return {text.begin(), text.end()}; }

constexpr const char* kRecipe = R"({"plans": [{
    "name": "forward",
    "values": [{"name": "x", "tensor": {"dtype": "float", "sizes": [2]}},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [2]}}],
    "inputs": ["x"], "outputs": ["y"],
    "instructions": [{"kernel": "aten::relu.out", "args": ["x", "y"]}]}]})";

// A place no file can be created in, even by root.
const std::string kUnwritable = "/proc/accelcheck/out";

void ExpectIoErrorNaming(const ToolRun& run, const std::string& path) {
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_NE(run.err.find(path), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("terminate"), std::string::npos) << run.err;
}

class WritePathsTest : public CliFixture {
 protected:
  WritePathsTest() : CliFixture("write") {}

  // The tiny Tensil model, its files beside it.
  std::string TensilModel() {
    std::string error;
    const auto written = tensil::conformance::WriteBundle(tensil::conformance::TinyBundle(),
                                                          dir_.path(), "tiny", &error);
    EXPECT_TRUE(written) << error;
    return written ? written->tmodel : "";
  }
};

TEST_F(WritePathsTest, ValidateReportFile) {
  const std::string ir = dir_.Write("ir.json", Text(gemini::CaseBaseIr()));
  ExpectIoErrorNaming(RunTool({"validate", ir, "-o", kUnwritable}), kUnwritable);
  const std::string directory = dir_.path().string();
  ExpectIoErrorNaming(RunTool({"validate", ir, "-o", directory}), directory);
}

TEST_F(WritePathsTest, SimulateJsonAndSvg) {
  const std::string ir = dir_.Write("ir.json", Text(gemini::CaseBaseIr()));
  ExpectIoErrorNaming(RunTool({"simulate", ir, "-o", kUnwritable}), kUnwritable);
  ExpectIoErrorNaming(RunTool({"simulate", ir, "-o", "/dev/null", "--svg", kUnwritable}),
                      kUnwritable);
}

TEST_F(WritePathsTest, GeneratePte) {
  const std::string recipe = dir_.Write("r.json", Text(kRecipe));
  ExpectIoErrorNaming(RunTool({"generate", "pte", "--recipe", recipe, "-o", kUnwritable}),
                      kUnwritable);
}

TEST_F(WritePathsTest, GenerateGemini) {
  ExpectIoErrorNaming(RunTool({"generate", "gemini", "-o", kUnwritable + ".json"}),
                      kUnwritable + ".json");
}

TEST_F(WritePathsTest, AFailedGenerateKeepsTheFilesItWouldHaveReplaced) {
  const std::string ir = dir_.Write("keep.json", Text("{\"kept\": 1}"));
  const std::string frontend = dir_.Write("keep.frontend.json", Text("{\"kept\": 2}"));
  const ToolRun run = RunTool({"generate", "gemini", "--mesh", "1x1", "--buffer", "100", "-o", ir});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(ReadWhole(ir), "{\"kept\": 1}");
  EXPECT_EQ(ReadWhole(frontend), "{\"kept\": 2}");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_.path())) ++entries;
  EXPECT_EQ(entries, 2u) << "no temporary file is left";
}

TEST_F(WritePathsTest, Assemble) {
  const std::string source = dir_.Write("p.tasm", Text("Wait tid=0\n"));
  const std::string arch =
      dir_.Write("a.tarch", Text(tensil::conformance::TinyBundle().model["arch"].dump()));
  ExpectIoErrorNaming(RunTool({"assemble", source, "--arch", arch, "-o", kUnwritable}),
                      kUnwritable);
}

TEST_F(WritePathsTest, Mutate) {
  const std::string model = TensilModel();
  const ToolRun run =
      RunTool({"mutate", model, "--rule", "tensil.instr.padding", "-o", kUnwritable + ".tmodel"});
  ExpectIoErrorNaming(run, "/proc/accelcheck");
}

TEST_F(WritePathsTest, ConformanceSuiteAndJunit) {
  ExpectIoErrorNaming(RunTool({"conformance", "--generate", kUnwritable}), kUnwritable);
  const std::string suite = (dir_.path() / "suite").string();
  ASSERT_EQ(RunTool({"conformance", "--generate", suite}).exit_code, 0);
  ExpectIoErrorNaming(RunTool({"conformance", suite, "--junit", kUnwritable}), kUnwritable);
}

TEST_F(WritePathsTest, RunOutputDirectory) {
  const std::string model = TensilModel();
  const std::string input =
      dir_.Write("x.npy", npy::Write({1.0}, {1, 1}, {npy::Kind::kFloat, 4, false}));
  const std::string a_file = dir_.Write("a_file", Text("x"));
  for (const std::string& out : {kUnwritable, std::string("/dev/null"), a_file}) {
    ExpectIoErrorNaming(RunTool({"run", model, "--input", input, "--output-dir", out}), out);
  }
  const ToolRun empty = RunTool({"run", model, "--input", input, "--output-dir", ""});
  EXPECT_EQ(empty.exit_code, 3) << empty.err;
  EXPECT_NE(empty.err.find("empty"), std::string::npos) << empty.err;
}

TEST_F(WritePathsTest, AnOutputNamedOutsideTheDirectoryIsNeverWritten) {
  tensil::conformance::Bundle bundle = tensil::conformance::TinyBundle();
  bundle.model["outputs"][0]["name"] = "../escaped";
  std::string error;
  const auto written = tensil::conformance::WriteBundle(bundle, dir_.path(), "m", &error);
  ASSERT_TRUE(written) << error;
  const std::string input =
      dir_.Write("x.npy", npy::Write({1.0}, {1, 1}, {npy::Kind::kFloat, 4, false}));
  const fs::path out = dir_.path() / "out";
  const ToolRun run =
      RunTool({"run", written->tmodel, "--input", input, "--output-dir", out.string()});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("tensil.model.io_file_name"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir_.path() / "escaped.npy"));
}

}  // namespace
}  // namespace accelcheck::testing
