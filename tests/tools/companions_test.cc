// Companions named with --data or --frontend: one that cannot be read, or
// that no input of the run reads, fails the run (docs/ARCHITECTURE.md
// "Companions"), the same way for every format.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/gemini/cases.h"
#include "conformance/tensil/bundle.h"
#include "tests/tools/cli_fixture.h"

namespace accelcheck::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<uint8_t> Text(const std::string& text) { return {text.begin(), text.end()}; }

// The report's results for `path`: its rules.
std::vector<std::string> RulesOf(const json& report, const std::string& path) {
  std::vector<std::string> rules;
  for (const json& file : report["files"]) {
    if (file["path"] != path) continue;
    for (const json& d : file["diagnostics"]) rules.push_back(d["rule"]);
  }
  return rules;
}

class CompanionsTest : public CliFixture {
 protected:
  CompanionsTest() : CliFixture("companions") {}

  // A .pte with EXTERNAL tensors and its .ptd, from the project's recipe.
  std::string ExternalProgram() {
    const std::string pte = (dir_.path() / "external.pte").string();
    const ToolRun run = RunTool(
        {"generate", "pte", "--recipe",
         (fs::path(ACCELCHECK_SOURCE_DIR) / "conformance/pte/recipes/external.json").string(), "-o",
         pte});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    fs::rename(dir_.path() / "external.ptd", dir_.path() / "named.ptd");
    return pte;
  }

  std::string Tarch() {
    return dir_.Write("a.tarch", Text(tensil::conformance::TinyBundle().model["arch"].dump()));
  }
};

TEST_F(CompanionsTest, TheRightCompanionIsUsedAndPasses) {
  const std::string pte = ExternalProgram();
  const json report = ValidateJson({pte, "--data", (dir_.path() / "named.ptd").string()}, 0);
  EXPECT_EQ(report["files"].size(), 1u) << report.dump(1);
}

TEST_F(CompanionsTest, AMissingCompanionIsAnIoErrorForEveryFormat) {
  const std::string missing = (dir_.path() / "no_such_file").string();
  const std::string pte = ExternalProgram();
  const std::string ir = dir_.Write("ir.json", Text(gemini::CaseBaseIr()));
  std::string error;
  const auto tensil =
      tensil::conformance::WriteBundle(tensil::conformance::TinyBundle(), dir_.path(), "m", &error);
  ASSERT_TRUE(tensil) << error;
  for (const std::string& input : {pte, ir, tensil->tmodel}) {
    const json report = ValidateJson({input, "--data", missing}, 3);
    EXPECT_EQ(RulesOf(report, missing), std::vector<std::string>{"core.io.read"})
        << input << ": " << report.dump(1);
  }
}

TEST_F(CompanionsTest, ACompanionOfTheWrongKindIsAnError) {
  const std::string pte = ExternalProgram();
  const std::string tarch = Tarch();
  json report = ValidateJson({pte, "--data", tarch}, 1);
  EXPECT_EQ(RulesOf(report, tarch), std::vector<std::string>{"core.companion.unused"})
      << report.dump(1);

  const std::string frontend = dir_.Write("frontend.json", Text(gemini::CaseBaseFrontend()));
  std::string error;
  const auto tensil =
      tensil::conformance::WriteBundle(tensil::conformance::TinyBundle(), dir_.path(), "m", &error);
  ASSERT_TRUE(tensil) << error;
  report = ValidateJson({tensil->tmodel, "--data", frontend}, 1);
  EXPECT_EQ(RulesOf(report, frontend), std::vector<std::string>{"core.companion.unused"})
      << report.dump(1);
}

// In a run of several formats, a companion counts as used when any input
// reads it.
TEST_F(CompanionsTest, ACompanionAnyInputReadsIsUsed) {
  const std::string pte = ExternalProgram();
  const std::string ir = dir_.Write("ir.json", Text(gemini::CaseBaseIr()));
  const std::string frontend = dir_.Write("frontend.json", Text(gemini::CaseBaseFrontend()));
  const json report = ValidateJson(
      {pte, ir, "--data", (dir_.path() / "named.ptd").string(), "--frontend", frontend}, 0);
  EXPECT_EQ(report["files"].size(), 2u) << report.dump(1);
}

// A frontend IR given with --frontend is checked by its own rules: a broken
// one fails the run with its problems located in it (the member), and the
// schedule, checked without it, says which checks did not run.
TEST_F(CompanionsTest, AFrontendCompanionIsCheckedAndItsProblemsAreLocatedInIt) {
  const std::string ir = dir_.Write("ir.json", Text(gemini::CaseBaseIr()));
  json frontend = json::parse(gemini::CaseBaseFrontend());
  frontend.begin().value()["stride"] = {0, 0};
  const std::string bad = dir_.Write("bad.frontend.json", Text(frontend.dump()));
  const json report = ValidateJson({ir, "--frontend", bad}, 1);
  ASSERT_EQ(report["files"].size(), 1u) << report.dump(1);
  EXPECT_EQ(RulesOf(report, ir),
            (std::vector<std::string>{"gemini.frontend.range", "gemini.frontend.unchecked"}))
      << report.dump(1);
  const json& range = report["files"][0]["diagnostics"][0];
  EXPECT_EQ(range["member"], bad);
  EXPECT_EQ(range["path"], "/" + frontend.begin().key() + "/stride");
  EXPECT_EQ(frontend.dump().substr(range["offset"].get<size_t>(), 5), "[0,0]");
}

// Without --frontend the schedule conforms, with a note that changes no exit
// code, whatever the profile.
TEST_F(CompanionsTest, AScheduleWithoutItsFrontendConformsWithANote) {
  const std::string ir = dir_.Write("ir.json", Text(gemini::CaseBaseIr()));
  for (const std::vector<std::string>& profile :
       {std::vector<std::string>{}, std::vector<std::string>{"--strict", "--werror"}}) {
    std::vector<std::string> args = profile;
    args.push_back(ir);
    const json report = ValidateJson(args, 0);
    EXPECT_EQ(RulesOf(report, ir), std::vector<std::string>{"gemini.frontend.unchecked"})
        << report.dump(1);
    EXPECT_EQ(report["files"][0]["diagnostics"][0]["severity"], "note");
  }
  const std::string frontend = dir_.Write("frontend.json", Text(gemini::CaseBaseFrontend()));
  const json report = ValidateJson({ir, "--frontend", frontend}, 0);
  EXPECT_EQ(RulesOf(report, ir), std::vector<std::string>{}) << report.dump(1);
}

// A schedule finds the frontend IR `generate gemini` writes beside it
// (<stem>.frontend.json) without --frontend.
TEST_F(CompanionsTest, AScheduleFindsTheFrontendBesideIt) {
  const std::string ir = dir_.Write("net.json", Text(gemini::CaseBaseIr()));
  dir_.Write("net.frontend.json", Text(gemini::CaseBaseFrontend()));
  json report = ValidateJson({ir}, 0);
  EXPECT_EQ(RulesOf(report, ir), std::vector<std::string>{}) << report.dump(1);

  json frontend = json::parse(gemini::CaseBaseFrontend());
  frontend.begin().value()["stride"] = {0, 0};
  dir_.Write("net.frontend.json", Text(frontend.dump()));
  report = ValidateJson({ir}, 1);
  EXPECT_EQ(RulesOf(report, ir),
            (std::vector<std::string>{"gemini.frontend.range", "gemini.frontend.unchecked"}))
      << report.dump(1);
  const std::string note = report["files"][0]["diagnostics"][1]["message"];
  EXPECT_NE(note.find("beside the schedule is not usable"), std::string::npos) << note;
}

// A frontend that is an input of the run as well as the schedule's companion
// has its problems listed once, under its own name: in a directory run and
// when it is named twice.
TEST_F(CompanionsTest, AFrontendThatIsAlsoAnInputIsReportedOnce) {
  const std::string ir = dir_.Write("net.json", Text(gemini::CaseBaseIr()));
  json frontend = json::parse(gemini::CaseBaseFrontend());
  frontend.begin().value()["stride"] = {0, 0};
  const std::string bad = dir_.Write("net.frontend.json", Text(frontend.dump()));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{dir_.path().string()},
        std::vector<std::string>{ir, bad, "--frontend", bad}}) {
    const json report = ValidateJson(args, 1);
    EXPECT_EQ(RulesOf(report, bad), std::vector<std::string>{"gemini.frontend.range"})
        << report.dump(1);
    EXPECT_EQ(RulesOf(report, ir), std::vector<std::string>{"gemini.frontend.unchecked"})
        << report.dump(1);
    EXPECT_EQ(report["summary"]["errors"], 1) << report.dump(1);
  }
}

}  // namespace
}  // namespace accelcheck::testing
