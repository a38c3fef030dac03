#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/gemini/cases.h"
#include "conformance/tensil/bundle.h"
#include "tests/support/small_program.h"
#include "tests/tools/cli_fixture.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/report.h"
#include "validators/core/text.h"

namespace accelcheck::testing {
namespace {

using nlohmann::json;

using test::SmallProgram;
using test::WithTrailingBytes;

// The identifier of an ExecuTorch version this tool does not handle.
std::vector<uint8_t> OtherVersion() {
  std::vector<uint8_t> bytes = SmallProgram();
  bytes[6] = '9';
  bytes[7] = '9';
  return bytes;
}

std::vector<uint8_t> Text(const std::string& text) { return {text.begin(), text.end()}; }

bool Contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

class CliTest : public CliFixture {
 protected:
  CliTest() : CliFixture("cli") {}
};

TEST_F(CliTest, NoCommandIsAUsageError) {
  const ToolRun run = RunTool({});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("usage: accelcheck"), std::string::npos) << run.err;
}

TEST_F(CliTest, VersionTellsHowTheToolWasBuilt) {
  const ToolRun run = RunTool({"--version"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::string first = "accelcheck " + std::string(kToolVersion) + "\n";
  ASSERT_EQ(run.out.rfind(first, 0), 0u) << run.out;
  const std::regex details(
      "commit: ([0-9a-f]{12}|unknown)\n"
      "compiler: [A-Za-z]+ [0-9][0-9.]*\n"
      "build type: [A-Za-z]*\n"
      "formats: pte, edgetpu, tensil, gemini, neff\n");
  EXPECT_TRUE(std::regex_match(run.out.substr(first.size()), details)) << run.out;
}

TEST_F(CliTest, ValidProgramConforms) {
  const ToolRun run = RunTool({"validate", dir_.Write("add.pte", SmallProgram())});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out, "1 file: 0 errors, 0 warnings\n");
}

TEST_F(CliTest, ProfilesDecideWhetherAQuirkFails) {
  const std::string file = dir_.Write("trailing.pte", WithTrailingBytes());
  ToolRun run = RunTool({"validate", file});
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find(": warning[pte.file.trailing_bytes]: "), std::string::npos) << run.out;
  run = RunTool({"validate", "--werror", file});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  run = RunTool({"validate", "--strict", file});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find(": error[pte.file.trailing_bytes]: "), std::string::npos) << run.out;
}

TEST_F(CliTest, ErrorsExitOne) {
  const ToolRun run = RunTool(
      {"validate", "--format", "pte", "--output", "json", dir_.Write("v99.pte", OtherVersion())});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  const json report = json::parse(run.out);
  EXPECT_TRUE(Contains(RulesIn(report), "pte.file.version")) << run.out;
  EXPECT_EQ(report["files"][0]["outcome"], "errors");
}

TEST_F(CliTest, UnknownContentDoesNotConform) {
  const ToolRun run = RunTool({"validate", dir_.Write("notes.txt", Text("hello"))});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find("notes.txt: error[core.format.unknown]: "), std::string::npos) << run.out;
}

TEST_F(CliTest, ForcedFormatChecksUnrecognisedContent) {
  const ToolRun run = RunTool(
      {"validate", "--format=pte", "--output=json", dir_.Write("notes.txt", Text("hello"))});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  const json report = json::parse(run.out);
  EXPECT_EQ(report["files"][0]["format"], "pte");
  const std::vector<std::string> rules = RulesIn(report);
  ASSERT_FALSE(rules.empty());
  EXPECT_FALSE(Contains(rules, "core.format.unknown"));
  EXPECT_EQ(rules[0].rfind("pte.", 0), 0u) << rules[0];
}

TEST_F(CliTest, UnreadableInputExitsThree) {
  const ToolRun run = RunTool({"validate", (dir_.path() / "missing.pte").string()});
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.out.find("missing.pte: error[core.io.read]: "), std::string::npos) << run.out;
}

TEST_F(CliTest, LimitHitExitsThreeEvenWithOtherFilesInError) {
  const std::string big = dir_.Write("big.pte", SmallProgram());
  const std::string text = dir_.Write("notes.txt", Text("hello"));
  const ToolRun run = RunTool({"validate", "--max-file-size", "8", text, big});
  EXPECT_EQ(run.exit_code, 3) << run.out;
  EXPECT_NE(run.out.find("big.pte: error[core.limit.max-file-size]: "), std::string::npos)
      << run.out;
}

TEST_F(CliTest, EveryOutputFormat) {
  const std::string file = dir_.Write("trailing.pte", WithTrailingBytes());

  const json report = json::parse(RunTool({"validate", "--output", "json", file}).out);
  EXPECT_EQ(report["version"], 1);
  EXPECT_EQ(report["files"][0]["path"], file);
  EXPECT_EQ(report["summary"]["warnings"], 1);

  const json sarif = json::parse(RunTool({"validate", "--output", "sarif", file}).out);
  EXPECT_EQ(sarif["version"], "2.1.0");
  const json& run = sarif["runs"][0];
  EXPECT_GT(run["tool"]["driver"]["rules"].size(), 100u) << "the core and pte rule tables";
  ASSERT_EQ(run["results"].size(), 1u);
  EXPECT_EQ(run["results"][0]["ruleId"], "pte.file.trailing_bytes");
  EXPECT_EQ(run["tool"]["driver"]["rules"][run["results"][0]["ruleIndex"].get<size_t>()]["id"],
            "pte.file.trailing_bytes");
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);

  const ToolRun junit = RunTool({"validate", "--output", "junit", "--werror", file});
  EXPECT_EQ(junit.exit_code, 1);
  EXPECT_EQ(junit.out.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0), 0u)
      << junit.out;
  EXPECT_NE(junit.out.find("<failure message=\"0 errors, 1 warning\" type=\"warning\">"),
            std::string::npos)
      << junit.out;
}

TEST_F(CliTest, SameInputSameBytes) {
  const std::string file = dir_.Write("trailing.pte", WithTrailingBytes());
  for (const char* output : {"text", "json", "sarif", "junit"}) {
    EXPECT_EQ(RunTool({"validate", "--output", output, file}).out,
              RunTool({"validate", "--output", output, file}).out)
        << output;
  }
}

TEST_F(CliTest, ReportGoesToTheOutputFile) {
  const std::string report = (dir_.path() / "report.sarif").string();
  const ToolRun run = RunTool(
      {"validate", "--output", "sarif", "-o", report, dir_.Write("add.pte", SmallProgram())});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(json::parse(ReadWhole(report))["version"], "2.1.0");
}

TEST_F(CliTest, DirectoriesAreWalkedInSortedOrderSkippingOtherFiles) {
  dir_.Write("tree/b.pte", SmallProgram());
  dir_.Write("tree/a/c.pte", WithTrailingBytes());
  dir_.Write("tree/README.md", Text("# models"));
  const ToolRun run = RunTool({"validate", "--output", "json", (dir_.path() / "tree").string()});
  EXPECT_EQ(run.exit_code, 0) << run.out;
  const json report = json::parse(run.out);
  std::vector<std::string> names;
  for (const json& file : report["files"]) {
    names.push_back(std::filesystem::path(file["path"].get<std::string>()).filename().string() +
                    ":" + file["outcome"].get<std::string>());
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"README.md:skipped", "c.pte:conforms", "b.pte:conforms"}));
}

TEST_F(CliTest, StandardInput) {
  const ToolRun run = RunTool({"validate", "-"}, dir_.Write("add.pte", WithTrailingBytes()));
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("<stdin>:0x", 0), 0u) << run.out;
  EXPECT_NE(run.out.find(": warning[pte.file.trailing_bytes]: "), std::string::npos) << run.out;
}

TEST_F(CliTest, UsageErrorsExitTwoWithOneLineAndUsage) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"validate"},
                                             {"validate", "--frobnicate", "a.pte"},
                                             {"validate", "--max-errors", "many", "a.pte"},
                                             {"validate", "--format", "elf", "a.pte"},
                                             {"validate", "--output", "yaml", "a.pte"},
                                             {"validate", "a.pte", "-o"}}) {
    const ToolRun run = RunTool(args);
    EXPECT_EQ(run.exit_code, 2) << args[1];
    EXPECT_EQ(run.err.rfind("accelcheck validate: ", 0), 0u) << run.err;
    EXPECT_NE(run.err.find("\nusage: accelcheck validate"), std::string::npos) << run.err;
    EXPECT_EQ(run.out, "");
  }
}

TEST_F(CliTest, UsageErrorWithJsonOutputIsStillOneJsonDocument) {
  const ToolRun run = RunTool({"validate", "--output", "json", "--frobnicate"});
  EXPECT_EQ(run.exit_code, 2);
  const json doc = json::parse(run.out);
  EXPECT_EQ(doc["error"]["kind"], "usage");
  EXPECT_EQ(doc["error"]["message"], "unknown option --frobnicate");
  EXPECT_EQ(doc["summary"]["exit_code"], 2);
}

TEST_F(CliTest, HelpListsEveryLimitFlag) {
  const ToolRun run = RunTool({"validate", "--help"});
  EXPECT_EQ(run.exit_code, 0);
  for (const char* flag :
       {"--max-file-size N", "--max-depth N", "--max-tables N", "--time-budget-ms N",
        "--max-errors N", "--data FILE", "-o FILE", "--strict", "--werror"}) {
    EXPECT_NE(run.out.find(flag), std::string::npos) << flag;
  }
}

TEST_F(CliTest, RulesListsEveryTableAndTheLimits) {
  ToolRun run = RunTool({"rules", "--output", "json"});
  EXPECT_EQ(run.exit_code, 0);
  const json doc = json::parse(run.out);
  ASSERT_GE(doc["formats"].size(), 2u);
  EXPECT_EQ(doc["formats"][0]["id"], "core");
  EXPECT_EQ(doc["formats"][1]["id"], "pte");
  EXPECT_GT(doc["formats"][1]["rules"].size(), 100u);
  EXPECT_EQ(doc["limits"].size(), AllLimits().size());
  EXPECT_EQ(doc["limits"].size(), 11u);

  run = RunTool({"rules", "--format", "pte"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("pte.segment.bounds"), std::string::npos);
  EXPECT_EQ(run.out.find("core.io.read"), std::string::npos);
  EXPECT_EQ(run.out.find("limits:"), std::string::npos);

  EXPECT_EQ(RunTool({"rules", "--format", "elf"}).exit_code, 2);
  EXPECT_EQ(RunTool({"rules", "--output", "yaml"}).exit_code, 2);
}

TEST_F(CliTest, InspectPrintsTheStructureAsJson) {
  const ToolRun run = RunTool({"inspect", dir_.Write("add.pte", SmallProgram())});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(json::parse(run.out).is_object());
}

TEST_F(CliTest, InspectOfUndecodableInputPrintsDiagnostics) {
  ToolRun run = RunTool({"inspect", "--format", "pte", dir_.Write("notes.txt", Text("hello"))});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("notes.txt:0x0: error[pte.file.too_small]: "), std::string::npos)
      << run.err;

  run = RunTool({"inspect", dir_.Write("notes2.txt", Text("hello"))});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("error[core.format.unknown]"), std::string::npos) << run.err;

  EXPECT_EQ(RunTool({"inspect", (dir_.path() / "missing").string()}).exit_code, 3);
  EXPECT_EQ(RunTool({"inspect"}).exit_code, 2);
}

TEST_F(CliTest, MutateListsTheRulesOfEveryFormat) {
  for (const FormatEntry& entry : Formats()) {
    const std::string format(entry.id());
    const ToolRun run = RunTool({"mutate", "--list", "--format", format});
    EXPECT_EQ(run.exit_code, 0) << format << ": " << run.err;
    EXPECT_EQ(run.out.rfind(format + ".", 0), 0u) << format << ": " << run.out;
  }
  EXPECT_EQ(RunTool({"mutate", "--list", "--format", "elf"}).exit_code, 2);
}

TEST_F(CliTest, UsageListsEveryCommandAndHelpPrintsEach) {
  const std::string usage = RunTool({"help"}).out;
  for (const cli::Command& command : cli::Commands()) {
    const std::string& name = command.spec().name;
    EXPECT_NE(usage.find("\n  " + name + " "), std::string::npos) << name << "\n" << usage;
    const ToolRun help = RunTool({"help", name});
    EXPECT_EQ(help.exit_code, 0) << name;
    EXPECT_EQ(help.out.rfind("usage: accelcheck " + name, 0), 0u) << help.out;
  }
  EXPECT_EQ(RunTool({"help", "frobnicate"}).exit_code, 2);
}

// A command the input's format does not have is a usage error that names the
// formats that have it.
TEST_F(CliTest, ACommandTheFormatLacksNamesTheFormatsWithIt) {
  const std::string program = dir_.Write("add.pte", SmallProgram());
  const auto has = [](FormatCommand FormatEntry::*command) {
    return FormatIds([command](const FormatEntry& entry) { return entry.*command != nullptr; });
  };
  const ToolRun simulate = RunTool({"simulate", program});
  EXPECT_EQ(simulate.exit_code, 2);
  EXPECT_NE(
      simulate.err.find("is a pte file, and simulate supports " + has(&FormatEntry::simulate)),
      std::string::npos)
      << simulate.err;
  const ToolRun assemble = RunTool({"assemble", program});
  EXPECT_EQ(assemble.exit_code, 2);
  EXPECT_NE(assemble.err.find("assemble supports " + has(&FormatEntry::assemble)),
            std::string::npos)
      << assemble.err;
  const ToolRun generate = RunTool({"generate", "elf"});
  EXPECT_EQ(generate.exit_code, 2);
  EXPECT_NE(generate.err.find(has(&FormatEntry::generate)), std::string::npos) << generate.err;
}

TEST_F(CliTest, MutateBreaksOneRuleOfAProgram) {
  const std::string out = (dir_.path() / "bad.pte").string();
  const ToolRun run = RunTool(
      {"mutate", dir_.Write("add.pte", SmallProgram()), "--rule", "pte.file.version", "-o", out});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "wrote " + out + ": breaks pte.file.version\n");
  const json report = json::parse(RunTool({"validate", "--strict", "--output", "json", out}).out);
  EXPECT_EQ(RulesIn(report), std::vector<std::string>{"pte.file.version"});
}

// A file whose identifier is broken is no longer recognised by content: the
// command says to validate it with --format, which then gives the rule.
TEST_F(CliTest, MutateSaysWhenTheResultNeedsItsFormat) {
  const std::string out = (dir_.path() / "bad.pte").string();
  const ToolRun run = RunTool({"mutate", dir_.Write("add.pte", SmallProgram()), "--rule",
                               "pte.file.identifier", "-o", out});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "wrote " + out + ": breaks pte.file.identifier (validate with --format pte)\n");
  const json report = json::parse(
      RunTool({"validate", "--strict", "--output", "json", "--format", "pte", out}).out);
  EXPECT_EQ(RulesIn(report), std::vector<std::string>{"pte.file.identifier"});
}

// A Tensil model is written as OUT.tmodel with the .tprog and .tdata it names.
TEST_F(CliTest, MutateWritesATensilBundle) {
  std::string error;
  const auto tiny = tensil::conformance::WriteBundle(tensil::conformance::TinyBundle(), dir_.path(),
                                                     "tiny", &error);
  ASSERT_TRUE(tiny) << error;
  const std::string out = (dir_.path() / "bad.tmodel").string();
  const ToolRun run =
      RunTool({"mutate", tiny->tmodel, "--rule", "tensil.instr.padding", "-o", out});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::string stem = (dir_.path() / "bad").string();
  EXPECT_EQ(run.out, "wrote " + out + ", " + stem + ".tprog, " + stem +
                         ".tdata: breaks tensil.instr.padding\n");
  const json report = json::parse(RunTool({"validate", "--strict", "--output", "json", out}).out);
  EXPECT_EQ(RulesIn(report), std::vector<std::string>{"tensil.instr.padding"});
}

// Validation goes on past the cap, so that every error is counted: three in
// the manifest and one in the program.
TEST_F(CliTest, ABadRecipeIsExplainedWithoutTheJsonLibrarysIds) {
  const std::string recipe = dir_.Write("r.json", Text(R"({"plans": [{"name": 7}]})"));
  const ToolRun run =
      RunTool({"generate", "pte", "--recipe", recipe, "-o", (dir_.path() / "out.pte").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("bad recipe"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("json.exception"), std::string::npos) << run.err;
}

TEST_F(CliTest, MaxErrorsListsNAndCountsEveryOtherError) {
  tensil::conformance::Bundle bundle = tensil::conformance::TinyBundle();
  bundle.model["inputs"][0]["name"] = "";
  bundle.model["outputs"][0]["name"] = "";
  bundle.model["outputs"][0]["size"] = 0;
  bundle.program.push_back("MatMul local=255 acc=2 size=3");
  std::string error;
  const auto written = tensil::conformance::WriteBundle(bundle, dir_.path(), "m", &error);
  ASSERT_TRUE(written) << error;
  const json all = json::parse(RunTool({"validate", "--output", "json", written->tmodel}).out);
  ASSERT_EQ(all["files"][0]["errors"], 4) << all.dump(1);
  for (int cap = 1; cap <= 4; ++cap) {
    const json capped = json::parse(RunTool({"validate", "--output", "json", "--max-errors",
                                             std::to_string(cap), written->tmodel})
                                        .out);
    const json& file = capped["files"][0];
    EXPECT_EQ(file["diagnostics"].size(), static_cast<size_t>(cap)) << file.dump(1);
    EXPECT_EQ(file["errors"], 4);
    EXPECT_EQ(file["suppressed"], 4 - cap);
  }
}

TEST_F(CliTest, MutateOfAGeminiRuleOnItsFrontendNeedsTheFrontend) {
  const std::string ir = dir_.Write("ir.json", Text(gemini::CaseBaseIr()));
  const std::string frontend = dir_.Write("frontend.json", Text(gemini::CaseBaseFrontend()));
  const std::string out = (dir_.path() / "bad.json").string();
  ToolRun run = RunTool({"mutate", ir, "--rule", "gemini.frontend.layer", "-o", out});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("--frontend"), std::string::npos) << run.err;
  run =
      RunTool({"mutate", ir, "--frontend", frontend, "--rule", "gemini.frontend.layer", "-o", out});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "wrote " + out + ": breaks gemini.frontend.layer (validate with --data " +
                         frontend + ")\n");
  const json report = json::parse(
      RunTool({"validate", "--strict", "--output", "json", out, "--frontend", frontend}).out);
  EXPECT_EQ(RulesIn(report), std::vector<std::string>{"gemini.frontend.layer"});
}

// A problem in a JSON input is placed at the value its pointer names, with
// its length, and given as line:column in text as compilers do.
TEST_F(CliTest, JsonProblemsAreAtTheirValueWithLineAndColumn) {
  json ir = json::parse(gemini::CaseBaseIr());
  ir["0"][0]["time"] = -1;
  const std::string text = ir.dump(1);
  const std::string path = dir_.Write("ir.json", Text(text));
  const size_t value = text.find("\"time\": -1") + std::string("\"time\": ").size();
  const size_t line_start = text.rfind('\n', value) + 1;
  const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + value, '\n'));
  const size_t column = value - line_start + 1;

  const json report = ValidateJson({path}, 1);
  const json& d = report["files"][0]["diagnostics"][0];
  EXPECT_EQ(d["rule"], "gemini.workload.time");
  EXPECT_EQ(d["path"], "/0/0/time");
  EXPECT_EQ(d["offset"], value);
  EXPECT_EQ(d["length"], 2);
  EXPECT_EQ(d["line"], line);
  EXPECT_EQ(d["column"], column);
  const ToolRun run = RunTool({"validate", path});
  EXPECT_NE(run.out.find(Str(path, ":", line, ":", column, ": error[gemini.workload.time]")),
            std::string::npos)
      << run.out;
}

// An input that breaks a rule already, or offers no place for the change, is
// declined with the reason and nothing is written.
TEST_F(CliTest, MutateDeclinesWithTheReason) {
  const std::string out = (dir_.path() / "bad.pte").string();
  ToolRun run = RunTool(
      {"mutate", dir_.Write("v99.pte", OtherVersion()), "--rule", "pte.file.version", "-o", out});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("does not validate"), std::string::npos) << run.err;
  run = RunTool({"mutate", dir_.Write("add.pte", SmallProgram()), "--rule", "tensil.instr.padding",
                 "-o", out});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("tensil.instr.padding"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// The CI gate on real files: zero errors in the default profile.
TEST_F(CliTest, RealCorpusHasNoErrors) {
  const std::filesystem::path corpus = std::filesystem::path(ACCELCHECK_CORPUS_DIR) / "pte";
  if (!std::filesystem::is_directory(corpus)) {
    GTEST_SKIP() << "no real files at " << corpus << " (ACCELCHECK_CORPUS_DIR)";
  }
  const ToolRun run = RunTool({"validate", "--output", "json", corpus.string()});
  const json report = json::parse(run.out);
  EXPECT_EQ(run.exit_code, 0) << RunTool({"validate", corpus.string()}).out;
  EXPECT_EQ(report["summary"]["errors"], 0);
  EXPECT_GE(report["summary"]["conforming"], 17);
}

}  // namespace
}  // namespace accelcheck::testing
