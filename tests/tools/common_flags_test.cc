// What every command takes: -h/--help and `accelcheck help CMD` print its
// usage and exit 0, an unknown option exits 2, and -q/--quiet prints nothing
// but errors and what the command is asked for (README.md "Quiet runs and
// progress").
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/tensil/bundle.h"
#include "tests/support/small_program.h"
#include "tests/tools/cli_fixture.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/registry.h"

namespace accelcheck::testing {
namespace {

using nlohmann::json;
using test::SmallProgram;
using test::WithTrailingBytes;

using CommandLine = std::vector<std::string>;

std::string Joined(const CommandLine& args) {
  std::string out;
  for (const std::string& arg : args) out += (out.empty() ? "" : " ") + arg;
  return out;
}

CommandLine With(CommandLine args, const std::string& more) {
  args.push_back(more);
  return args;
}

// Every command, and every format's generator (generate FORMAT parses its own options).
std::vector<CommandLine> EveryCommand() {
  std::vector<CommandLine> commands;
  for (const cli::Command& command : cli::Commands()) commands.push_back({command.spec().name});
  for (const FormatEntry& format : Formats()) {
    if (format.generate != nullptr) commands.push_back({"generate", std::string(format.id())});
  }
  return commands;
}

class CommonFlagsTest : public CliFixture {
 protected:
  CommonFlagsTest() : CliFixture("flags") {}

  static void ExpectHelp(const CommandLine& args, const std::string& command) {
    const ToolRun run = RunTool(args);
    EXPECT_EQ(run.exit_code, 0) << Joined(args) << ": " << run.err;
    EXPECT_EQ(run.out.rfind("usage: accelcheck " + command, 0), 0u) << Joined(args) << run.out;
    EXPECT_NE(run.out.find("  -h, --help"), std::string::npos) << Joined(args) << run.out;
    EXPECT_NE(run.out.find("  -q, --quiet"), std::string::npos) << Joined(args) << run.out;
    EXPECT_EQ(run.err, "") << Joined(args);
  }
};

TEST_F(CommonFlagsTest, EveryCommandPrintsItsHelp) {
  for (const CommandLine& command : EveryCommand()) {
    ExpectHelp(With(command, "-h"), command[0]);
    ExpectHelp(With(command, "--help"), command[0]);
    // Other arguments do not matter once help is asked for.
    ExpectHelp(With(With(command, "-q"), "--help"), command[0]);
    if (command.size() == 1) ExpectHelp({"help", command[0]}, command[0]);
  }
}

// run and simulate print the help of the file's format.
TEST_F(CommonFlagsTest, AFileGetsTheHelpOfItsFormatsCommand) {
  std::string error;
  const auto tiny = tensil::conformance::WriteBundle(tensil::conformance::TinyBundle(), dir_.path(),
                                                     "tiny", &error);
  ASSERT_TRUE(tiny) << error;
  const ToolRun run = RunTool({"run", tiny->tmodel, "-h"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.rfind("usage: accelcheck run MODEL.tmodel", 0), 0u) << run.out;
}

TEST_F(CommonFlagsTest, AnUnknownOptionIsAUsageErrorOnEveryCommand) {
  for (const CommandLine& command : EveryCommand()) {
    const ToolRun run = RunTool(With(command, "--frobnicate"));
    EXPECT_EQ(run.exit_code, 2) << Joined(command) << ": " << run.err;
    EXPECT_NE(run.err.find("usage: accelcheck " + command[0]), std::string::npos)
        << Joined(command) << ": " << run.err;
    EXPECT_EQ(run.out, "") << Joined(command);
  }
  EXPECT_EQ(RunTool({"validate", "-x", "a.pte"}).exit_code, 2);
  EXPECT_EQ(RunTool({"help", "frobnicate"}).exit_code, 2);
}

TEST_F(CommonFlagsTest, QuietValidateIsSilentWhenTheRunPasses) {
  const std::string valid = dir_.Write("tree/add.pte", SmallProgram());
  const std::string quirk = dir_.Write("tree/trailing.pte", WithTrailingBytes());
  dir_.Write("tree/README.md", {'#', '\n'});
  for (const CommandLine& args :
       std::vector<CommandLine>{{"validate", "-q", valid},
                                {"validate", "--quiet", quirk},
                                {"validate", "-q", (dir_.path() / "tree").string()}}) {
    const ToolRun run = RunTool(args);
    EXPECT_EQ(run.exit_code, 0) << Joined(args);
    EXPECT_EQ(run.out, "") << Joined(args);
    EXPECT_EQ(run.err, "") << Joined(args);
  }
}

TEST_F(CommonFlagsTest, QuietValidateListsWhatFailsAndTheSummary) {
  const std::string quirk = dir_.Write("trailing.pte", WithTrailingBytes());
  const std::string valid = dir_.Write("add.pte", SmallProgram());
  // Under --werror the warning fails the run: it is listed.
  ToolRun run = RunTool({"validate", "-q", "--werror", valid, quirk});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out.rfind(quirk + ":0x", 0), 0u) << run.out;
  EXPECT_NE(run.out.find(": warning[pte.file.trailing_bytes]: "), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find(valid), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\n2 files: 0 errors, 1 warning\n"), std::string::npos) << run.out;
  // Under --strict it is an error.
  run = RunTool({"validate", "-q", "--strict", quirk});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find(": error[pte.file.trailing_bytes]: "), std::string::npos) << run.out;
}

// A report a CI reads does not depend on verbosity.
TEST_F(CommonFlagsTest, QuietLeavesStructuredReportsWhole) {
  const std::string quirk = dir_.Write("trailing.pte", WithTrailingBytes());
  for (const char* output : {"json", "sarif", "junit"}) {
    EXPECT_EQ(RunTool({"validate", "-q", "--output", output, quirk}).out,
              RunTool({"validate", "--output", output, quirk}).out)
        << output;
  }
}

TEST_F(CommonFlagsTest, QuietCommandsSayNothingOfWhatTheyWrote) {
  const std::string program = dir_.Write("add.pte", SmallProgram());
  const std::string bad = (dir_.path() / "bad.pte").string();
  ToolRun run = RunTool({"mutate", "-q", program, "--rule", "pte.file.version", "-o", bad});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out + run.err, "");
  run = RunTool({"generate", "gemini", "-q", "-o", (dir_.path() / "g.json").string()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out + run.err, "");
  // What a command is asked for is still printed.
  run = RunTool({"inspect", "-q", program});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(json::parse(run.out).is_object());
}

}  // namespace
}  // namespace accelcheck::testing
