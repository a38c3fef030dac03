// Every kind of SARIF report validate writes passes the official SARIF
// validator, the SARIF multitool (tools/setup.sh installs it: npm package
// @microsoft/sarif-multitool), with its SARIF rules and GitHub code
// scanning's (rule kinds Sarif and Ghas): a test fails on any error or warning
// it prints. Without the multitool the tests skip; they need no network.
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/small_program.h"
#include "tests/tools/broken_inputs.h"
#include "tests/tools/cli_fixture.h"

namespace accelcheck::testing {
namespace {

// The multitool command: $SARIF_MULTITOOL, else sarif-multitool on PATH; empty
// when there is none. Either is the npm wrapper, which hands its arguments to
// a shell.
std::string Multitool() {
  if (const char* command = std::getenv("SARIF_MULTITOOL"); command != nullptr && *command)
    return command;
  return std::system("command -v sarif-multitool >/dev/null 2>&1") == 0 ? "sarif-multitool" : "";
}

class SarifValidatorTest : public CliFixture {
 public:
  // The lines of `output` that report an error or a warning, but the one
  // that says SARIF2006 was turned off.
  static std::string Findings(const std::string& output);

 protected:
  SarifValidatorTest() : CliFixture("sarif_validator") {}

  void SetUp() override {
    multitool_ = Multitool();
    if (multitool_.empty()) {
      GTEST_SKIP() << "the SARIF multitool is not installed (tools/setup.sh installs it with "
                      "npm install -g @microsoft/sarif-multitool; or set SARIF_MULTITOOL)";
    }
  }

  // `accelcheck validate --output sarif -o NAME args...`, expected to exit with
  // `expected_exit`; the report's path.
  std::string Sarif(const std::string& name, const std::vector<std::string>& args,
                    int expected_exit) {
    const std::string out = (dir_.path() / name).string();
    std::vector<std::string> command = {"validate", "--output", "sarif", "-o", out};
    command.insert(command.end(), args.begin(), args.end());
    const ToolRun run = RunTool(command);
    EXPECT_EQ(run.exit_code, expected_exit) << run.err;
    return out;
  }

  // The multitool passes `sarif` with no finding of level error or warning.
  // Its rule SARIF2006 is turned off: it fetches every URI in the file
  // (the schema, each rule's helpUri) to see that it is reachable, which
  // would need the network, and its findings are notes.
  void ExpectValid(const std::string& sarif) {
    const std::string config = dir_.Write("multitool.xml", TextBytes(R"(<?xml version="1.0"?>
<Properties>
  <Properties Key="SARIF2006.UrisShouldBeReachable.Options">
    <Property Key="RuleEnabled" Value="Disabled" />
  </Properties>
</Properties>
)"));
    const std::string log = (dir_.path() / "multitool.log").string();
    // The wrapper's shell would split "Sarif;Ghas": the inner quotes are its.
    const std::string command = multitool_ + " validate --config " + ShellQuote(config) +
                                " --rule-kind '\"Sarif;Ghas\"' --level '\"Error;Warning\"' " +
                                ShellQuote(sarif) + " >" + ShellQuote(log) + " 2>&1";
    const int status = std::system(command.c_str());
    const std::string output = ReadWhole(log);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << output;
    ASSERT_NE(output.find("Analysis completed successfully"), std::string::npos) << output;
    EXPECT_EQ(Findings(output), "") << sarif << ":\n" << ReadWhole(sarif).substr(0, 4000);
  }

  std::string multitool_;
};

std::string SarifValidatorTest::Findings(const std::string& output) {
  static const std::regex kFinding(R"((^|\n)([^\n]*\b(error|warning) [A-Z]+[0-9]+\b[^\n]*))");
  std::string findings;
  for (std::sregex_iterator it(output.begin(), output.end(), kFinding), end; it != end; ++it) {
    const std::string line = (*it)[2];
    const bool disabled_rule = line.find("WRN999.RuleExplicitlyDisabled") != std::string::npos &&
                               line.find("'SARIF2006'") != std::string::npos;
    if (!disabled_rule) findings += line + "\n";
  }
  return findings;
}

// The filter of the multitool's output sees every error and warning, and
// lets notes and the notice of the rule turned off pass.
TEST(SarifValidatorOutputTest, ErrorsAndWarningsAreFindings) {
  const std::string output =
      "Analyzing...\n"
      "SARIF.MULTITOOL : warning WRN999.RuleExplicitlyDisabled : Rule 'SARIF2006' was "
      "explicitly disabled by the user.\n"
      "/t/a.sarif(5,5): note SARIF2003: runs[0]: no versionControlProvenance.\n"
      "/t/a.sarif(7,19): warning SARIF2005: runs[0].tool.driver: no informationUri.\n"
      "/t/a.sarif(9,13): error GH2012: runs[0].tool.driver.rules[0]: no 'help' object.\n"
      "SARIF.MULTITOOL : error ERR997.NoValidAnalysisTargets : No valid analysis targets.\n"
      "Done. 1 files scanned.\n";
  EXPECT_EQ(SarifValidatorTest::Findings(output),
            "/t/a.sarif(7,19): warning SARIF2005: runs[0].tool.driver: no informationUri.\n"
            "/t/a.sarif(9,13): error GH2012: runs[0].tool.driver.rules[0]: no 'help' object.\n"
            "SARIF.MULTITOOL : error ERR997.NoValidAnalysisTargets : No valid analysis targets.\n");
}

TEST_F(SarifValidatorTest, ACleanRun) {
  ExpectValid(Sarif("clean.sarif", {dir_.Write("add.pte", test::SmallProgram())}, 0));
}

// Errors in every format: a .pte, a Gemini IR read with its frontend, a
// Tensil model whose program (its own artifact) breaks rules, a warning and
// a file of no format.
TEST_F(SarifValidatorTest, ARunWithErrorsInEveryFormat) {
  const BrokenSchedule gemini = BrokenGemini(dir_);
  ExpectValid(Sarif("errors.sarif",
                    {BrokenProgram(dir_, "bad.pte"), gemini.ir, "--frontend", gemini.frontend,
                     BrokenTensil(dir_), dir_.Write("trailing.pte", test::WithTrailingBytes()),
                     dir_.Write("notes.txt", TextBytes("hello"))},
                    1));
}

// A run with no verdict: a frontend IR that cannot be used is reported in
// that file, and a limit is hit.
TEST_F(SarifValidatorTest, ARunThatFails) {
  const std::string ir = dir_.Write("ir.json", TextBytes(gemini::CaseBaseIr()));
  const std::string frontend = dir_.Write("ir.frontend.json", TextBytes("{\"0\": [1,"));
  ExpectValid(Sarif("failed.sarif",
                    {ir, "--frontend", frontend, "--max-file-size", "1000",
                     dir_.Write("add.pte", test::SmallProgram())},
                    3));
}

// The run that writes a baseline, and one that reads it with new findings,
// rules disabled and re-graded.
TEST_F(SarifValidatorTest, BaselineRuns) {
  const std::string base = (dir_.path() / "base.json").string();
  const std::string tmodel = BrokenTensil(dir_);
  const std::string trailing = dir_.Write("trailing.pte", test::WithTrailingBytes());
  ExpectValid(Sarif("write.sarif", {"--write-baseline", base, tmodel, trailing}, 0));
  ExpectValid(Sarif("read.sarif",
                    {"--baseline", base, tmodel, trailing, BrokenProgram(dir_, "bad.pte"),
                     "--disable", "pte.value.*", "--error", "pte.file.trailing_bytes", "--warning",
                     "core.format.*", dir_.Write("notes.txt", TextBytes("hello"))},
                    0));
}

// --srcroot: URIs relative to SRCROOT, one file outside it.
TEST_F(SarifValidatorTest, ARunWithSrcroot) {
  const std::string outside = dir_.Write("outside.pte", test::WithTrailingBytes());
  BrokenTensil(dir_);
  ExpectValid(Sarif(
      "srcroot.sarif",
      {"--srcroot", (dir_.path() / "tensil").string(), (dir_.path() / "tensil").string(), outside},
      1));
}

}  // namespace
}  // namespace accelcheck::testing
