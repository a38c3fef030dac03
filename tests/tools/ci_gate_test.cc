// What a CI gate needs beyond a verdict (docs/ARCHITECTURE.md "Rule
// selection", "Baseline", "Outputs"): rules turned off or re-graded from the
// command line, findings accepted by a baseline, and SARIF that code
// scanning can show and link.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/small_program.h"
#include "tests/tools/broken_inputs.h"
#include "tests/tools/cli_fixture.h"
#include "validators/core/report.h"
#include "validators/core/text.h"

namespace accelcheck::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool HasPrefix(const std::vector<std::string>& rules, const std::string& prefix) {
  return std::any_of(rules.begin(), rules.end(),
                     [&](const std::string& rule) { return rule.rfind(prefix, 0) == 0; });
}

class GateTest : public CliFixture {
 protected:
  GateTest() : CliFixture("gate") {}

  std::string Trailing() { return dir_.Write("trailing.pte", test::WithTrailingBytes()); }
  std::string Path(const std::string& name) const { return (dir_.path() / name).string(); }
};

TEST_F(GateTest, DisabledRulesDoNotFailTheRunAndAreCounted) {
  const std::string bad = BrokenProgram(dir_, "bad.pte");
  const json before = ValidateJson({bad}, 1);
  ASSERT_TRUE(HasPrefix(RulesIn(before), "pte.value.type")) << before.dump(1);
  const uint64_t errors = before["summary"]["errors"];

  const json after = ValidateJson({"--disable", "pte.value.type", bad}, 0);
  EXPECT_EQ(after["summary"]["errors"], 0) << after.dump(1);
  EXPECT_EQ(after["summary"]["disabled"], errors);
  EXPECT_EQ(after["files"][0]["disabled"], errors);
  EXPECT_TRUE(RulesIn(after).empty());

  const ToolRun text = RunTool({"validate", "--disable", "pte.value.*", bad});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_EQ(text.out, Str("1 file: 0 errors, 0 warnings, ", errors, " disabled (--disable)\n"));
}

// As clang-tidy reads its checks: the later of --disable and --enable wins.
TEST_F(GateTest, EnableAfterABroaderDisableKeepsTheRule) {
  const std::string bad = BrokenProgram(dir_, "bad.pte");
  EXPECT_EQ(
      RunTool({"validate", "--disable", "pte.*", "--enable", "pte.value.type", bad}).exit_code, 1);
  EXPECT_EQ(
      RunTool({"validate", "--enable", "pte.value.type", "--disable", "pte.*", bad}).exit_code, 0);
  EXPECT_EQ(RunTool({"validate", "--disable=*", "--enable=pte.value.type", bad}).exit_code, 1);
}

TEST_F(GateTest, ErrorAndWarningSetTheSeverityOverTheProfile) {
  const std::string trailing = Trailing();
  ToolRun run = RunTool({"validate", "--error", "pte.file.trailing_bytes", trailing});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find(": error[pte.file.trailing_bytes]: "), std::string::npos) << run.out;

  run = RunTool({"validate", "--strict", "--warning", "pte.file.*", trailing});
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find(": warning[pte.file.trailing_bytes]: "), std::string::npos) << run.out;

  const std::string bad = BrokenProgram(dir_, "bad.pte");
  run = RunTool({"validate", "--warning", "pte.value.type", bad});
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_EQ(RunTool({"validate", "--warning", "pte.value.type", "--werror", bad}).exit_code, 1);
}

TEST_F(GateTest, ARulePatternThatMatchesNothingIsAUsageErrorNamingIt) {
  const std::string file = Trailing();
  ToolRun run = RunTool({"validate", "--disable", "pte.segment.bound", file});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err.rfind("accelcheck validate: --disable pte.segment.bound: matches no rule", 0),
            0u)
      << run.err;
  EXPECT_EQ(run.out, "");

  run = RunTool({"validate", "--output", "json", "--error", "elf.*", file});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(json::parse(run.out)["error"]["message"],
            "--error elf.*: matches no rule of any format (accelcheck rules lists them)");

  EXPECT_EQ(RunTool({"validate", "--disable", "pte.seg*", file}).exit_code, 2);
}

TEST_F(GateTest, LimitIoAndInternalRulesCanBeNeitherDisabledNorDowngraded) {
  const std::string file = Trailing();
  for (const std::vector<std::string>& option :
       std::vector<std::vector<std::string>>{{"--disable", "core.limit.max-file-size"},
                                             {"--disable", "core.io.*"},
                                             {"--warning", "core.internal"}}) {
    const ToolRun run = RunTool({"validate", option[0], option[1], file});
    EXPECT_EQ(run.exit_code, 2) << option[1];
    EXPECT_NE(run.err.find("can be neither disabled nor downgraded"), std::string::npos) << run.err;
  }
  // A broad pattern leaves them as they are: a limit still gives no verdict.
  const ToolRun run = RunTool({"validate", "--disable", "*", "--max-file-size", "8", file});
  EXPECT_EQ(run.exit_code, 3) << run.out;
  EXPECT_NE(run.out.find("error[core.limit.max-file-size]"), std::string::npos) << run.out;
}

TEST_F(GateTest, HelpListsTheNewOptions) {
  const ToolRun run = RunTool({"validate", "--help"});
  for (const char* flag : {"--disable RULE", "--enable RULE", "--error RULE", "--warning RULE",
                           "--baseline FILE", "--write-baseline FILE", "--srcroot DIR"}) {
    EXPECT_NE(run.out.find(flag), std::string::npos) << flag;
  }
}

// Today's findings are recorded; the run that records them passes, and so
// does the next one, until a new finding appears: only it is listed.
TEST_F(GateTest, ABaselineFailsOnlyOnNewFindings) {
  const std::string models = Path("models");
  BrokenProgram(dir_, "models/bad.pte");
  dir_.Write("models/trailing.pte", test::WithTrailingBytes());
  const std::string base = Path("base.json");

  ToolRun run = RunTool({"validate", "--write-baseline", base, models});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find(" suppressed by baseline\n"), std::string::npos) << run.out;
  const json written = json::parse(ReadWhole(base));
  EXPECT_EQ(written["kind"], "accelcheck-baseline");
  ASSERT_FALSE(written["findings"].empty());
  EXPECT_EQ(written["findings"][0]["file"], "bad.pte") << "relative to the argument";

  const json accepted = ValidateJson({"--baseline", base, models}, 0);
  EXPECT_EQ(accepted["summary"]["errors"], 0) << accepted.dump(1);
  EXPECT_EQ(accepted["summary"]["warnings"], 0);
  EXPECT_EQ(accepted["summary"]["baselined"], written["findings"].size());
  EXPECT_EQ(accepted["files"][0]["diagnostics"][0]["baselined"], true);

  BrokenProgram(dir_, "models/new.pte");
  run = RunTool({"validate", "--baseline", base, models});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_EQ(run.out.find("models/bad.pte"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("models/new.pte:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(Str(written["findings"].size(), " suppressed by baseline")),
            std::string::npos)
      << run.out;
}

// The fingerprints name files relative to the argument (or --srcroot), so a
// baseline written in one checkout holds in another.
TEST_F(GateTest, ABaselineHoldsInAnotherCheckout) {
  BrokenProgram(dir_, "a/models/bad.pte");
  const std::string base = Path("base.json");
  EXPECT_EQ(RunTool({"validate", "--write-baseline", base, Path("a/models")}).exit_code, 0);
  fs::create_directories(Path("b"));
  fs::copy(Path("a/models"), Path("b/models"), fs::copy_options::recursive);
  EXPECT_EQ(RunTool({"validate", "--baseline", base, Path("b/models")}).exit_code, 0);
  EXPECT_EQ(RunTool({"validate", "--baseline", base, Path("b/models/bad.pte")}).exit_code, 0)
      << "a file named itself is known by its name";

  const std::string rooted = Path("rooted.json");
  EXPECT_EQ(RunTool({"validate", "--srcroot", Path("a"), "--write-baseline", rooted,
                     Path("a/models/bad.pte")})
                .exit_code,
            0);
  EXPECT_EQ(json::parse(ReadWhole(rooted))["findings"][0]["file"], "models/bad.pte");
  EXPECT_EQ(RunTool({"validate", "--srcroot", Path("b"), "--baseline", rooted, Path("b/models")})
                .exit_code,
            0);
  EXPECT_EQ(RunTool({"validate", "--baseline", rooted, Path("b/models")}).exit_code, 1)
      << "without the root, the file is named otherwise";
}

// Without --srcroot two arguments may hold files of the same relative name:
// the run says that the baseline cannot tell their findings apart.
TEST_F(GateTest, FilesOfTheSameNameUnderTwoArgumentsAreWarnedOf) {
  BrokenProgram(dir_, "a/models/bad.pte");
  BrokenProgram(dir_, "b/models/bad.pte");
  const std::string base = Path("base.json");
  ToolRun run = RunTool({"validate", "--write-baseline", base, Path("a/models"), Path("b/models")});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.err.find("have the same name in the baseline (bad.pte)"), std::string::npos)
      << run.err;
  run = RunTool({"validate", "--srcroot", dir_.path().string(), "--write-baseline", base,
                 Path("a/models"), Path("b/models")});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.err, "");
}

TEST_F(GateTest, ABaselineThatCannotBeReadOrIsNotOneStopsTheRun) {
  const std::string file = Trailing();
  ToolRun run = RunTool({"validate", "--baseline", Path("missing.json"), file});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.err.find("cannot read the baseline " + Path("missing.json")), std::string::npos)
      << run.err;
  run = RunTool({"validate", "--output", "json", "--baseline", Path("missing.json"), file});
  EXPECT_EQ(run.exit_code, 3);
  const json unreadable = json::parse(run.out);
  EXPECT_EQ(unreadable["error"]["kind"], "io");
  EXPECT_EQ(unreadable["summary"]["exit_code"], 3);

  const std::string bogus = dir_.Write("bogus.json", TextBytes(R"({"findings": []})"));
  run = RunTool({"validate", "--output", "json", "--baseline", bogus, file});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--baseline " + bogus + ": not an accelcheck baseline"), std::string::npos)
      << run.err;
  EXPECT_EQ(json::parse(run.out)["error"]["kind"], "usage");

  run = RunTool({"validate", "--baseline", bogus, "--write-baseline", Path("new.json"), file});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("do not go together"), std::string::npos) << run.err;
}

TEST_F(GateTest, ABaselineThatCannotBeWrittenIsAnIoError) {
  const ToolRun run =
      RunTool({"validate", "--write-baseline", Path("no/such/dir/base.json"), Trailing()});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.err.find("cannot write the baseline"), std::string::npos) << run.err;
}

// SARIF keeps a baselined finding, suppressed, for code scanning to close
// its alert rather than lose it.
TEST_F(GateTest, SarifMarksBaselinedFindingsAsExternallySuppressed) {
  const std::string trailing = Trailing();
  const std::string base = Path("base.json");
  ASSERT_EQ(RunTool({"validate", "--write-baseline", base, trailing}).exit_code, 0);
  const std::string bad = BrokenProgram(dir_, "bad.pte");
  const ToolRun run = RunTool({"validate", "--output", "sarif", "--baseline", base, trailing, bad});
  EXPECT_EQ(run.exit_code, 1);
  const json results = json::parse(run.out)["runs"][0]["results"];
  ASSERT_GE(results.size(), 2u);
  EXPECT_EQ(results[0]["ruleId"], "pte.file.trailing_bytes");
  EXPECT_EQ(results[0]["suppressions"][0]["kind"], "external");
  EXPECT_EQ(results[0]["baselineState"], "unchanged");
  EXPECT_FALSE(results[1].contains("suppressions"));
  EXPECT_EQ(results[1]["baselineState"], "new");
}

// A run lists the core rules and those of the formats it saw, each rule's
// index the one its results use.
TEST_F(GateTest, SarifListsTheRulesOfTheFormatsSeen) {
  const json pte = json::parse(RunTool({"validate", "--output", "sarif", Trailing()}).out);
  std::vector<std::string> ids;
  for (const json& rule : pte["runs"][0]["tool"]["driver"]["rules"]) ids.push_back(rule["id"]);
  EXPECT_TRUE(HasPrefix(ids, "core.") && HasPrefix(ids, "pte."));
  EXPECT_FALSE(HasPrefix(ids, "gemini.") || HasPrefix(ids, "tensil.")) << ids.size();

  const std::string tmodel = BrokenTensil(dir_);
  const json run =
      json::parse(RunTool({"validate", "--output", "sarif", Trailing(), tmodel}).out)["runs"][0];
  const json& rules = run["tool"]["driver"]["rules"];
  ids.clear();
  for (const json& rule : rules) ids.push_back(rule["id"]);
  EXPECT_TRUE(HasPrefix(ids, "tensil.") && HasPrefix(ids, "pte."));
  EXPECT_FALSE(HasPrefix(ids, "gemini."));
  for (const json& result : run["results"]) {
    EXPECT_EQ(rules[result["ruleIndex"].get<size_t>()]["id"], result["ruleId"]);
  }
}

// A finding in a Tensil model's program is in its .tprog: an artifact of its
// own, beside the model, which the result's location points to.
TEST_F(GateTest, SarifPointsIntoTheFileAMemberNames) {
  const std::string tmodel = BrokenTensil(dir_);
  const json run = json::parse(RunTool({"validate", "--output", "sarif", tmodel}).out)["runs"][0];
  bool found = false;
  for (const json& result : run["results"]) {
    const json& artifact = result["locations"][0]["physicalLocation"]["artifactLocation"];
    EXPECT_EQ(run["artifacts"][artifact["index"].get<size_t>()]["location"]["uri"],
              artifact["uri"]);
    if (artifact["uri"] != "file://" + Path("tensil/m.tprog")) continue;
    found = true;
    EXPECT_TRUE(result["locations"][0]["physicalLocation"]["region"].contains("byteOffset"));
  }
  EXPECT_TRUE(found) << run.dump(1);
}

TEST_F(GateTest, SrcrootMakesSarifUrisRelative) {
  const std::string file = dir_.Write("models/trailing.pte", test::WithTrailingBytes());
  const json run = json::parse(
      RunTool({"validate", "--output", "sarif", "--srcroot", dir_.path().string() + "/", file})
          .out)["runs"][0];
  EXPECT_EQ(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file://" + dir_.path().string() + "/");
  const json& artifact = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(artifact["uri"], "models/trailing.pte");
  EXPECT_EQ(artifact["uriBaseId"], "SRCROOT");
  EXPECT_EQ(run["artifacts"][0]["location"]["uriBaseId"], "SRCROOT");

  const ToolRun bad = RunTool({"validate", "--srcroot", Path("missing"), file});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("not a directory"), std::string::npos) << bad.err;
}

// --disable shows in SARIF as the invocation's configuration, with the
// number of diagnostics it dropped.
TEST_F(GateTest, SarifSaysWhatWasDisabled) {
  const std::string bad = BrokenProgram(dir_, "bad.pte");
  const json run =
      json::parse(RunTool({"validate", "--output", "sarif", "--disable", "pte.value.type", bad})
                      .out)["runs"][0];
  const json& invocation = run["invocations"][0];
  ASSERT_EQ(invocation["ruleConfigurationOverrides"].size(), 1u);
  const json& entry = invocation["ruleConfigurationOverrides"][0];
  EXPECT_EQ(entry["descriptor"]["id"], "pte.value.type");
  EXPECT_EQ(run["tool"]["driver"]["rules"][entry["descriptor"]["index"].get<size_t>()]["id"],
            "pte.value.type");
  EXPECT_EQ(entry["configuration"]["enabled"], false);
  EXPECT_GE(invocation["properties"]["disabled"], 1);
  EXPECT_TRUE(run["results"].empty());
}

}  // namespace
}  // namespace accelcheck::testing
