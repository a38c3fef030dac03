// validate --jobs N: files checked at once on N threads give the report of
// the serial run, byte for byte, in every output format.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/gemini/cases.h"
#include "conformance/tensil/bundle.h"
#include "tests/support/small_program.h"
#include "tests/tools/cli_fixture.h"

namespace accelcheck::testing {
namespace {

using test::SmallProgram;
using test::WithTrailingBytes;

std::vector<uint8_t> Bytes(const std::string& text) { return {text.begin(), text.end()}; }

class JobsTest : public CliFixture {
 protected:
  JobsTest() : CliFixture("jobs") {}

  // A tree of every kind of file a directory run meets: valid and broken
  // files of each format, files of other kinds, an empty file.
  std::string MixedTree() {
    const std::string root = (dir_.path() / "tree").string();
    for (int i = 0; i < 6; ++i) {
      const std::string n = std::to_string(i);
      dir_.Write("tree/pte/add" + n + ".pte", SmallProgram());
      dir_.Write("tree/pte/trailing" + n + ".pte", WithTrailingBytes());
      std::vector<uint8_t> damaged = SmallProgram();
      damaged[4 + i % 4] = 'X';
      dir_.Write("tree/pte/damaged" + n + ".pte", damaged);
      dir_.Write("tree/gemini/ir" + n + ".json", Bytes(gemini::CaseBaseIr()));
      const std::string ir = gemini::CaseBaseIr();
      dir_.Write("tree/gemini/cut" + n + ".json", Bytes(ir.substr(0, ir.size() / (i + 2))));
      dir_.Write("tree/notes/readme" + n + ".md", Bytes("# notes " + n + "\n"));
    }
    dir_.Write("tree/empty.bin", {});
    const std::filesystem::path tensil = dir_.path() / "tree" / "tensil";
    std::filesystem::create_directories(tensil);
    std::string error;
    const auto tiny =
        tensil::conformance::WriteBundle(tensil::conformance::TinyBundle(), tensil, "tiny", &error);
    EXPECT_TRUE(tiny) << error;
    return root;
  }
};

TEST_F(JobsTest, EveryOutputIsTheSameWhateverTheJobs) {
  const std::string tree = MixedTree();
  for (const char* output : {"text", "json", "sarif", "junit"}) {
    const ToolRun serial = RunTool({"validate", "-j", "1", "--output", output, tree});
    EXPECT_EQ(serial.exit_code, 1) << serial.err;
    for (const char* jobs : {"2", "3", "16"}) {
      const ToolRun parallel = RunTool({"validate", "--jobs", jobs, "--output", output, tree});
      EXPECT_EQ(parallel.exit_code, serial.exit_code) << output << " -j " << jobs;
      EXPECT_EQ(parallel.out, serial.out) << output << " -j " << jobs;
      EXPECT_EQ(parallel.err, serial.err) << output << " -j " << jobs;
    }
  }
}

TEST_F(JobsTest, TheDefaultIsTheProcessorsAndGivesTheSameReport) {
  const std::string tree = MixedTree();
  EXPECT_EQ(RunTool({"validate", "--output", "json", tree}).out,
            RunTool({"validate", "-j", "1", "--output", "json", tree}).out);
  const ToolRun help = RunTool({"validate", "--help"});
  EXPECT_NE(help.out.find("  -j, --jobs N"), std::string::npos) << help.out;
}

TEST_F(JobsTest, JobsMustBeAPositiveCount) {
  const std::string file = dir_.Write("add.pte", SmallProgram());
  for (const char* bad : {"0", "-1", "many", "1025"}) {
    const ToolRun run = RunTool({"validate", "--jobs", bad, file});
    EXPECT_EQ(run.exit_code, 2) << bad;
    EXPECT_NE(run.err.find("--jobs: "), std::string::npos) << run.err;
  }
}

// The real files, as a CI gate runs them.
TEST_F(JobsTest, TheCorpusGivesTheSameReport) {
  const std::filesystem::path corpus(ACCELCHECK_CORPUS_DIR);
  if (!std::filesystem::is_directory(corpus / "pte")) GTEST_SKIP() << "no corpus at " << corpus;
  for (const char* format : {"pte", "tensil"}) {
    const std::string dir = (corpus / format).string();
    const ToolRun serial = RunTool({"validate", "-j", "1", "--output", "sarif", dir});
    const ToolRun parallel = RunTool({"validate", "-j", "4", "--output", "sarif", dir});
    EXPECT_EQ(parallel.exit_code, serial.exit_code) << format;
    EXPECT_EQ(parallel.out, serial.out) << format;
  }
}

}  // namespace
}  // namespace accelcheck::testing
