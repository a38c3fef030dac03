#include "validators/core/report.h"

#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <nlohmann/json.hpp>

#include "validators/core/baseline.h"
#include "validators/core/core_rules.h"
#include "validators/core/rule_selection.h"

namespace accelcheck {
namespace {

using nlohmann::json;

const Rule kBounds{"test.segment.bounds",
                   Severity::kError,
                   Severity::kError,
                   Category::kInvalid,
                   "A segment lies outside the file",
                   "#24; spec"};
const Rule kQuirk{"test.file.trailing",
                  Severity::kWarning,
                  Severity::kError,
                  Category::kInvalid,
                  "Bytes follow the last segment",
                  "#10; spec"};
const Rule kNote{"test.header.length",        Severity::kNote,
                 Severity::kWarning,          Category::kInvalid,
                 "Nonstandard header length", "#5; spec"};
const Rule* const kCatalogue[] = {&kBounds, &kQuirk, &kNote};

FileResult Result(std::string path, std::string format, Profile profile = {}) {
  return FileResult{path, std::move(format), false, DiagnosticSink(profile, path)};
}

Location At(uint64_t offset, uint64_t length, std::string path) {
  Location location;
  location.offset = offset;
  location.length = length;
  location.path = std::move(path);
  return location;
}

// Two files: one with an error (offset, length and path known) and a
// warning (nothing known), one clean.
std::vector<FileResult> TwoFiles() {
  std::vector<FileResult> results;
  results.push_back(Result("dir/a.pte", "pte"));
  results[0].sink.Report(kBounds, At(0x1f0, 0x40, "segments[2]"),
                         "offset 0x1f0 + size 0x40 exceeds segment 2 size 0x200");
  results[0].sink.Report(kQuirk, {}, "0x10 bytes follow the last segment");
  results.push_back(Result("b.pte", "pte"));
  return results;
}

// XML 1.0 well-formedness for what the JUnit writer emits: valid UTF-8, no
// forbidden characters, one root, balanced elements, quoted attributes and only
// predefined or numeric character references.
::testing::AssertionResult WellFormedXml(const std::string& xml) {
  if (ValidUtf8(xml) != xml) return ::testing::AssertionFailure() << "invalid UTF-8";
  for (unsigned char c : xml) {
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      return ::testing::AssertionFailure() << "forbidden character " << int(c);
    }
  }
  if (xml.find("\xef\xbf\xbe") != std::string::npos ||
      xml.find("\xef\xbf\xbf") != std::string::npos) {
    return ::testing::AssertionFailure() << "U+FFFE or U+FFFF";
  }
  static const std::regex kReference("&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
  const auto references_ok = [](const std::string& text) {
    for (size_t pos = text.find('&'); pos != std::string::npos; pos = text.find('&', pos + 1)) {
      std::smatch m;
      const std::string rest = text.substr(pos, 12);
      if (!std::regex_search(rest, m, kReference, std::regex_constants::match_continuous))
        return false;
    }
    return true;
  };
  static const std::regex kAttribute(R"(\s+[A-Za-z_][\w.-]*="([^"<]*)\")");
  static const std::regex kName(R"([A-Za-z_][\w.-]*)");
  size_t pos = 0;
  if (xml.rfind("<?xml", 0) == 0) pos = xml.find("?>") + 2;
  std::vector<std::string> open;
  int roots = 0;
  while (true) {
    const size_t lt = xml.find('<', pos);
    const std::string text =
        xml.substr(pos, lt == std::string::npos ? std::string::npos : lt - pos);
    if (!references_ok(text)) return ::testing::AssertionFailure() << "bad reference in " << text;
    if (open.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos) {
      return ::testing::AssertionFailure() << "text outside the root: " << text;
    }
    if (lt == std::string::npos) break;
    const size_t gt = xml.find('>', lt);
    if (gt == std::string::npos) return ::testing::AssertionFailure() << "unclosed tag";
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    pos = gt + 1;
    if (tag.front() == '/') {
      if (open.empty() || open.back() != tag.substr(1)) {
        return ::testing::AssertionFailure() << "mismatched </" << tag.substr(1) << ">";
      }
      open.pop_back();
      continue;
    }
    const bool empty = tag.back() == '/';
    if (empty) tag.pop_back();
    std::smatch name;
    if (!std::regex_search(tag, name, kName, std::regex_constants::match_continuous)) {
      return ::testing::AssertionFailure() << "bad tag <" << tag << ">";
    }
    std::string attributes = name.suffix();
    for (std::smatch m;
         std::regex_search(attributes, m, kAttribute, std::regex_constants::match_continuous);
         attributes = m.suffix()) {
      if (!references_ok(m[1]))
        return ::testing::AssertionFailure() << "bad reference in attribute";
    }
    if (attributes.find_first_not_of(" ") != std::string::npos) {
      return ::testing::AssertionFailure() << "bad attributes: " << attributes;
    }
    if (open.empty()) ++roots;
    if (!empty) open.push_back(name.str());
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "unclosed <" << open.back() << ">";
  if (roots != 1) return ::testing::AssertionFailure() << roots << " root elements";
  return ::testing::AssertionSuccess();
}

TEST(WellFormedXmlTest, RejectsWhatAParserRejects) {
  EXPECT_TRUE(WellFormedXml("<?xml version=\"1.0\"?>\n<a x=\"&amp;\"><b/>t&#10;</a>\n"));
  EXPECT_FALSE(WellFormedXml("<a><b></a></b>"));
  EXPECT_FALSE(WellFormedXml("<a>&</a>"));
  EXPECT_FALSE(WellFormedXml("<a x=\"<\"/>"));
  EXPECT_FALSE(WellFormedXml("<a>\x01</a>"));
  EXPECT_FALSE(WellFormedXml("<a>\xff</a>"));
  EXPECT_FALSE(WellFormedXml("<a/><b/>"));
  EXPECT_FALSE(WellFormedXml("<a>"));
}

TEST(TextReportTest, OneLinePerDiagnosticAndASummary) {
  const std::string text = WriteText(TwoFiles());
  EXPECT_EQ(text,
            "dir/a.pte:0x1f0: error[test.segment.bounds]: segments[2]: offset 0x1f0 + size 0x40 "
            "exceeds segment 2 size 0x200\n"
            "dir/a.pte: warning[test.file.trailing]: 0x10 bytes follow the last segment\n"
            "2 files: 1 error, 1 warning\n");
}

TEST(TextReportTest, SummaryCountsSuppressedFailedAndSkipped) {
  std::vector<FileResult> results;
  results.push_back(Result("a.pte", "pte", Profile{.max_errors = 1}));
  for (int i = 0; i < 4; ++i) results[0].sink.Report(kBounds, {}, "bounds");
  results.push_back(Result("big.pte", ""));
  results[1].sink.Report(core_rules::kLimitFileSize, {}, "too big");
  results.push_back(Result("notes.txt", ""));
  results[2].skipped = true;
  const std::string text = WriteText(results);
  EXPECT_NE(text.find("notes.txt: skipped: content matches no supported format\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("\n3 files: 5 errors, 0 warnings, 1 file failed, 1 skipped, 3 more not listed "
                "(--max-errors, or past 100000 in one file)\n"),
      std::string::npos)
      << text;
}

TEST(TextReportTest, HostileBytesStayOnOneValidLine) {
  std::vector<FileResult> results;
  results.push_back(Result("a\n.pte", "pte"));
  results[0].sink.Report(kBounds, At(1, 1, "names[\"\x1b[31m\"]"),
                         "name \xff\xfe\n"
                         "fake: error[x]: y");
  const std::string line = WriteText(results).substr(0, WriteText(results).find("\n1 file"));
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
  EXPECT_EQ(ValidUtf8(line), line);
  EXPECT_NE(line.find("a\\x0a.pte:0x1: "), std::string::npos) << line;
  EXPECT_NE(line.find("\xef\xbf\xbd\xef\xbf\xbd\\x0a"), std::string::npos) << line;
}

TEST(JsonReportTest, OneVersionedDocument) {
  const json doc = json::parse(WriteJson(TwoFiles()));
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["tool"]["name"], "accelcheck");
  EXPECT_EQ(doc["tool"]["version"], std::string(kToolVersion));
  ASSERT_EQ(doc["files"].size(), 2u);
  const json& a = doc["files"][0];
  EXPECT_EQ(a["path"], "dir/a.pte");
  EXPECT_EQ(a["format"], "pte");
  EXPECT_EQ(a["outcome"], "errors");
  ASSERT_EQ(a["diagnostics"].size(), 2u);
  const json& d = a["diagnostics"][0];
  EXPECT_EQ(d["rule"], "test.segment.bounds");
  EXPECT_EQ(d["severity"], "error");
  EXPECT_EQ(d["category"], "invalid");
  EXPECT_EQ(d["offset"], 0x1f0);
  EXPECT_EQ(d["length"], 0x40);
  EXPECT_EQ(d["path"], "segments[2]");
  EXPECT_EQ(d["message"], "offset 0x1f0 + size 0x40 exceeds segment 2 size 0x200");
  const json& w = a["diagnostics"][1];
  EXPECT_TRUE(w["offset"].is_null());
  EXPECT_TRUE(w["length"].is_null());
  EXPECT_TRUE(w["path"].is_null());
  EXPECT_EQ(doc["files"][1]["outcome"], "conforms");
  EXPECT_EQ(doc["summary"]["files"], 2);
  EXPECT_EQ(doc["summary"]["errors"], 1);
  EXPECT_EQ(doc["summary"]["warnings"], 1);
  EXPECT_EQ(doc["summary"]["exit_code"], 1);
}

TEST(JsonReportTest, UnknownFormatIsNullAndWerrorTurnsWarningsIntoErrorsOutcome) {
  std::vector<FileResult> results;
  results.push_back(Result("x.bin", ""));
  results.push_back(Result("w.pte", "pte", Profile{.werror = true}));
  results[1].sink.Report(kQuirk, {}, "quirk");
  const json doc = json::parse(WriteJson(results));
  EXPECT_TRUE(doc["files"][0]["format"].is_null());
  EXPECT_EQ(doc["files"][1]["outcome"], "errors");
  EXPECT_EQ(doc["summary"]["exit_code"], 1);
}

TEST(JsonReportTest, InvalidUtf8IsReplacedNotThrown) {
  std::vector<FileResult> results;
  results.push_back(Result("bad\xff.pte", "pte"));
  results[0].sink.Report(kBounds, At(0, 1, "names[\xc0\xaf]"), "name \xed\xa0\x80 \x01");
  std::string out;
  ASSERT_NO_THROW(out = WriteJson(results));
  const json doc = json::parse(out);
  EXPECT_EQ(doc["files"][0]["path"], "bad\xef\xbf\xbd.pte");
  EXPECT_EQ(doc["files"][0]["diagnostics"][0]["message"],
            "name \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \x01");
}

TEST(JsonReportTest, UsageErrorIsOneDocumentWithExitCodeTwo) {
  const json doc = json::parse(RunErrorJson(ExitCode::kUsage, "unknown option --frobnicate \xff"));
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["error"]["kind"], "usage");
  EXPECT_EQ(doc["error"]["message"], "unknown option --frobnicate \xef\xbf\xbd");
  EXPECT_EQ(doc["summary"]["exit_code"], 2);
  EXPECT_TRUE(doc["files"].empty());
}

TEST(JsonReportTest, UnreadableFileOfTheRunIsOneDocumentWithExitCodeThree) {
  const json doc = json::parse(RunErrorJson(ExitCode::kFailure, "cannot read the baseline b.json"));
  EXPECT_EQ(doc["error"]["kind"], "io");
  EXPECT_EQ(doc["summary"]["exit_code"], 3);
  EXPECT_TRUE(doc["files"].empty());
}

TEST(SarifReportTest, HasEveryFieldCodeScanningNeeds) {
  const json doc = json::parse(WriteSarif(TwoFiles(), {.catalogue = kCatalogue}));
  EXPECT_EQ(doc["version"], "2.1.0");
  EXPECT_TRUE(doc["$schema"].is_string());
  ASSERT_EQ(doc["runs"].size(), 1u);
  const json& run = doc["runs"][0];
  const json& driver = run["tool"]["driver"];
  EXPECT_EQ(driver["name"], "accelcheck");
  EXPECT_EQ(driver["version"], std::string(kToolVersion));
  ASSERT_EQ(driver["rules"].size(), 3u);
  for (const json& rule : driver["rules"]) {
    EXPECT_TRUE(rule["id"].is_string());
    EXPECT_FALSE(rule["shortDescription"]["text"].get<std::string>().empty());
    EXPECT_FALSE(rule["fullDescription"]["text"].get<std::string>().empty());
    EXPECT_TRUE(rule["properties"]["category"].is_string());
    EXPECT_TRUE(rule["properties"]["source"].is_string());
  }
  EXPECT_EQ(driver["rules"][0]["defaultConfiguration"]["level"], "error");
  EXPECT_EQ(driver["rules"][1]["defaultConfiguration"]["level"], "warning");
  EXPECT_EQ(driver["rules"][2]["defaultConfiguration"]["level"], "note");

  ASSERT_EQ(run["results"].size(), 2u);
  const json& r = run["results"][0];
  EXPECT_EQ(r["ruleId"], "test.segment.bounds");
  EXPECT_EQ(driver["rules"][r["ruleIndex"].get<size_t>()]["id"], r["ruleId"]);
  EXPECT_EQ(r["level"], "error");
  EXPECT_EQ(r["message"]["text"], "offset 0x1f0 + size 0x40 exceeds segment 2 size 0x200");
  const json& location = r["locations"][0];
  EXPECT_EQ(location["physicalLocation"]["artifactLocation"]["uri"], "dir/a.pte");
  EXPECT_EQ(location["physicalLocation"]["region"]["startLine"], 1);
  EXPECT_EQ(location["physicalLocation"]["region"]["byteOffset"], 0x1f0);
  EXPECT_EQ(location["physicalLocation"]["region"]["byteLength"], 0x40);
  EXPECT_EQ(location["logicalLocations"][0]["fullyQualifiedName"], "segments[2]");
  EXPECT_TRUE(location["logicalLocations"][0]["kind"].is_string());
  EXPECT_FALSE(r["partialFingerprints"].empty());

  const json& warning = run["results"][1];
  EXPECT_EQ(warning["level"], "warning");
  EXPECT_EQ(driver["rules"][warning["ruleIndex"].get<size_t>()]["id"], "test.file.trailing");
  EXPECT_EQ(warning["locations"][0]["physicalLocation"]["region"]["startLine"], 1);
  EXPECT_FALSE(warning["locations"][0]["physicalLocation"]["region"].contains("byteOffset"));
  EXPECT_FALSE(warning["locations"][0].contains("logicalLocations"));

  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], true);
}

// Bytes of a file the input names (a Tensil .tprog): the offset counts from
// the member's start, and every writer says which member.
TEST(ReportTest, AMemberLocationNamesItsMemberInEveryWriter) {
  std::vector<FileResult> results;
  results.push_back(Result("dir/m.tmodel", "tensil"));
  Location location = At(0x30, 8, "prog[6]");
  location.member = "m.tprog";
  results[0].sink.Report(kBounds, location, "out of range");

  EXPECT_EQ(WriteText(results).substr(0, 64),
            "dir/m.tmodel(m.tprog):0x30: error[test.segment.bounds]: prog[6]:");
  const json report = json::parse(WriteJson(results));
  EXPECT_EQ(report["files"][0]["diagnostics"][0]["member"], "m.tprog");
  EXPECT_EQ(report["files"][0]["diagnostics"][0]["offset"], 0x30);
}

// In SARIF a member is a file of its own, beside its input: its own artifact,
// which the region's bytes are in; the input is a related location.
TEST(SarifReportTest, AMemberIsAnArtifactBesideItsInput) {
  std::vector<FileResult> results;
  results.push_back(Result("dir/m.tmodel", "tensil"));
  Location location = At(0x30, 8, "prog[6]");
  location.member = "m.tprog";
  results[0].sink.Report(kBounds, location, "out of range");
  const json run = json::parse(WriteSarif(results, {.catalogue = kCatalogue}))["runs"][0];
  const json& where = run["results"][0]["locations"][0]["physicalLocation"];
  EXPECT_EQ(where["artifactLocation"]["uri"], "dir/m.tprog");
  EXPECT_EQ(where["region"]["byteOffset"], 0x30);
  EXPECT_EQ(where["region"]["byteLength"], 8);
  const json& input = run["results"][0]["relatedLocations"][0]["physicalLocation"];
  EXPECT_EQ(input["artifactLocation"]["uri"], "dir/m.tmodel");
  ASSERT_EQ(run["artifacts"].size(), 2u);
  for (const json* artifact : {&where["artifactLocation"], &input["artifactLocation"]}) {
    const size_t index = (*artifact)["index"];
    EXPECT_EQ(run["artifacts"][index]["location"]["uri"], (*artifact)["uri"]);
  }
}

// A member that is a companion the command line named (a frontend IR) is
// that file, as named, not a file beside the input.
TEST(SarifReportTest, AMemberNamedOnTheCommandLineIsThatFile) {
  std::vector<FileResult> results;
  results.push_back(Result("schedules/net.json", "gemini"));
  Location location = At(4, 1, "/0");
  location.member = "fe/net.frontend.json";
  results[0].sink.Report(kBounds, location, "bad frontend");
  const json run = json::parse(WriteSarif(
      results, {.catalogue = kCatalogue, .companions = {"fe/net.frontend.json"}}))["runs"][0];
  EXPECT_EQ(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "fe/net.frontend.json");
}

// What GitHub code scanning shows with an alert: the tool's page, and for
// each rule a friendly name distinct from its id and help that links to its
// row of docs/RULES.md.
TEST(SarifReportTest, RulesLinkToTheirRowOfTheRulesDocument) {
  const json driver =
      json::parse(WriteSarif(TwoFiles(), {.catalogue = kCatalogue}))["runs"][0]["tool"]["driver"];
  EXPECT_EQ(driver["informationUri"], std::string(InformationUri()));
  EXPECT_EQ(std::string(InformationUri()).rfind("https://", 0), 0u);
  const json& rule = driver["rules"][0];
  EXPECT_EQ(rule["name"], "TestSegmentBounds");
  EXPECT_EQ(rule["helpUri"], std::string(RulesUri()) + "#test.segment.bounds");
  EXPECT_NE(rule["help"]["text"].get<std::string>().find("A segment lies outside the file"),
            std::string::npos);
  EXPECT_NE(rule["help"]["markdown"].get<std::string>().find(rule["helpUri"].get<std::string>()),
            std::string::npos);
}

TEST(SarifReportTest, RuleNamesArePascalCase) {
  EXPECT_EQ(RuleName("pte.segment.bounds"), "PteSegmentBounds");
  EXPECT_EQ(RuleName("pte.file.trailing_bytes"), "PteFileTrailingBytes");
  EXPECT_EQ(RuleName("core.limit.max-file-size"), "CoreLimitMaxFileSize");
}

// With --srcroot, a file under it is named relative to it through the base id
// SRCROOT, which the run resolves; a file outside it keeps its own URI.
TEST(SarifReportTest, SrcrootMakesUrisRelative) {
  std::vector<FileResult> results;
  results.push_back(Result("/work/repo/models/a b.pte", "pte"));
  results.push_back(Result("/elsewhere/c.pte", "pte"));
  results[0].sink.Report(kBounds, {}, "m");
  results[1].sink.Report(kBounds, {}, "m");
  const json run = json::parse(
      WriteSarif(results, {.catalogue = kCatalogue, .srcroot = "/work/repo"}))["runs"][0];
  EXPECT_EQ(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file:///work/repo/");
  const json& inside = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(inside["uri"], "models/a%20b.pte");
  EXPECT_EQ(inside["uriBaseId"], "SRCROOT");
  const json& outside = run["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(outside["uri"], "file:///elsewhere/c.pte");
  EXPECT_FALSE(outside.contains("uriBaseId"));
  EXPECT_EQ(run["artifacts"].size(), 2u);
  EXPECT_EQ(run["artifacts"][1]["location"]["uri"], "file:///elsewhere/c.pte");
}

TEST(ReportTest, PathInsideNamesFilesUnderTheRootOnly) {
  EXPECT_EQ(PathInside("/r", "/r/a/b.pte"), "a/b.pte");
  EXPECT_EQ(PathInside("/r/", "/r/a/../b.pte"), "b.pte");
  EXPECT_EQ(PathInside("/r", "/rx/b.pte"), std::nullopt);
  EXPECT_EQ(PathInside("/r", "/r"), std::nullopt);
  EXPECT_EQ(PathInside("/r", "/r/../s/b.pte"), std::nullopt);
}

// Two files, each finding of the first accepted by a baseline.
std::vector<FileResult> BaselinedFiles(Baseline* baseline) {
  std::vector<FileResult> results;
  results.push_back(Result("a.pte", "pte"));
  results[0].sink.UseBaseline(baseline, "a.pte");
  results[0].sink.Report(kBounds, At(0x10, 4, "segments[0]"), "old problem");
  results[0].sink.Report(kQuirk, {}, "old quirk");
  results.push_back(Result("b.pte", "pte"));
  results[1].sink.Report(kBounds, At(0x10, 4, "segments[1]"), "new problem");
  return results;
}

// A baselined finding is kept, marked, in the structured reports and only
// counted in the text: it neither fails the run nor disappears.
TEST(ReportTest, BaselinedFindingsAreMarkedNotCounted) {
  Baseline baseline = Baseline::Recording();
  const std::vector<FileResult> results = BaselinedFiles(&baseline);
  const std::string text = WriteText(results);
  EXPECT_EQ(text.find("old"), std::string::npos) << text;
  EXPECT_NE(text.find("b.pte:0x10: error[test.segment.bounds]: segments[1]: new problem"),
            std::string::npos);
  EXPECT_NE(text.find("2 files: 1 error, 0 warnings, 2 suppressed by baseline\n"),
            std::string::npos)
      << text;

  const json report = json::parse(WriteJson(results));
  EXPECT_EQ(report["files"][0]["outcome"], "conforms");
  EXPECT_EQ(report["files"][0]["baselined"], 2);
  EXPECT_EQ(report["files"][0]["diagnostics"][0]["baselined"], true);
  EXPECT_EQ(report["files"][1]["diagnostics"][0]["baselined"], false);
  EXPECT_EQ(report["summary"]["baselined"], 2);
  EXPECT_EQ(report["summary"]["errors"], 1);

  const std::string xml = WriteJunit(results);
  EXPECT_EQ(xml.find("old"), std::string::npos) << xml;
}

TEST(SarifReportTest, BaselinedFindingsAreSuppressedExternally) {
  Baseline baseline = Baseline::Recording();
  const std::vector<FileResult> results = BaselinedFiles(&baseline);
  const json run = json::parse(
      WriteSarif(results, {.catalogue = kCatalogue, .baseline = "base.json"}))["runs"][0];
  ASSERT_EQ(run["results"].size(), 3u);
  const json& old = run["results"][0];
  ASSERT_EQ(old["suppressions"].size(), 1u);
  EXPECT_EQ(old["suppressions"][0]["kind"], "external");
  EXPECT_EQ(old["suppressions"][0]["justification"], "in the baseline base.json");
  EXPECT_EQ(old["baselineState"], "unchanged");
  const json& fresh = run["results"][2];
  EXPECT_FALSE(fresh.contains("suppressions"));
  EXPECT_EQ(fresh["baselineState"], "new");
  EXPECT_EQ(run["invocations"][0]["properties"]["baselined"], 2);
}

// The rules a selection changes are the invocation's configuration
// overrides; what --disable dropped is counted there and in the text.
TEST(SarifReportTest, RuleSelectionIsListedAsConfigurationOverrides) {
  std::string error;
  const std::optional<RuleSelection> selection = RuleSelection::Make(
      {{RuleAction::kDisable, "test.file.*"}, {RuleAction::kError, "test.header.length"}},
      kCatalogue, &error);
  ASSERT_TRUE(selection) << error;
  std::vector<FileResult> results;
  results.push_back(Result("a.pte", "pte", Profile{.rules = *selection}));
  results[0].sink.Report(kQuirk, {}, "disabled");
  results[0].sink.Report(kNote, {}, "now an error");
  const json run =
      json::parse(WriteSarif(results, {.catalogue = kCatalogue, .rules = &*selection}))["runs"][0];
  ASSERT_EQ(run["results"].size(), 1u);
  EXPECT_EQ(run["results"][0]["level"], "error");
  const json& overrides = run["invocations"][0]["ruleConfigurationOverrides"];
  ASSERT_EQ(overrides.size(), 2u);
  EXPECT_EQ(overrides[0]["descriptor"]["id"], "test.file.trailing");
  EXPECT_EQ(overrides[0]["descriptor"]["index"], 1);
  EXPECT_EQ(overrides[0]["configuration"]["enabled"], false);
  EXPECT_EQ(overrides[1]["descriptor"]["index"], 2);
  EXPECT_EQ(overrides[1]["configuration"]["level"], "error");
  EXPECT_EQ(run["invocations"][0]["properties"]["disabled"], 1);
  EXPECT_NE(WriteText(results).find("1 file: 1 error, 0 warnings, 1 disabled (--disable)\n"),
            std::string::npos)
      << WriteText(results);
}

TEST(SarifReportTest, ExecutionFailsWhenALimitIsHit) {
  std::vector<FileResult> results;
  results.push_back(Result("a.pte", "pte"));
  results[0].sink.Report(core_rules::kLimitTables, {}, "too many tables");
  const json doc = json::parse(WriteSarif(results, {.catalogue = kCatalogue}));
  const json& run = doc["runs"][0];
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], false);
  // A rule missing from the catalogue is appended so that ruleIndex resolves.
  const json& rules = run["tool"]["driver"]["rules"];
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_EQ(rules[3]["id"], "core.limit.max-tables");
  EXPECT_EQ(run["results"][0]["ruleIndex"], 3);
}

TEST(SarifReportTest, FingerprintsAreStableAndTellObjectsApart) {
  const auto fingerprint = [](const std::string& file, const std::string& path) {
    std::vector<FileResult> results;
    results.push_back(Result(file, "pte"));
    results[0].sink.Report(kBounds, At(0x10, 1, path), "message " + file + path);
    return json::parse(WriteSarif(
        results, {.catalogue = kCatalogue}))["runs"][0]["results"][0]["partialFingerprints"];
  };
  EXPECT_EQ(fingerprint("a.pte", "segments[1]"), fingerprint("a.pte", "segments[1]"));
  EXPECT_NE(fingerprint("a.pte", "segments[1]"), fingerprint("a.pte", "segments[2]"));
  EXPECT_NE(fingerprint("a.pte", "segments[1]"), fingerprint("b.pte", "segments[1]"));
}

TEST(SarifReportTest, UrisArePercentEncoded) {
  std::vector<FileResult> results;
  results.push_back(Result("my dir/a#1%.pte", "pte"));
  results.push_back(Result("/abs/\xff.pte", "pte"));
  results[0].sink.Report(kBounds, {}, "m");
  results[1].sink.Report(kBounds, {}, "m");
  const json doc = json::parse(WriteSarif(results, {.catalogue = kCatalogue}));
  const auto uri = [&](int i) {
    return doc["runs"][0]["results"][i]["locations"][0]["physicalLocation"]["artifactLocation"]
              ["uri"];
  };
  EXPECT_EQ(uri(0), "my%20dir/a%231%25.pte");
  EXPECT_EQ(uri(1), "file:///abs/%FF.pte");
}

TEST(JunitReportTest, OneTestcasePerFileWithFailuresErrorsAndSkips) {
  std::vector<FileResult> results = TwoFiles();
  results.push_back(Result("big.pte", ""));
  results[2].sink.Report(core_rules::kLimitFileSize, {}, "too big");
  results.push_back(Result("notes.txt", ""));
  results[3].skipped = true;
  results.push_back(Result("w.pte", "pte"));
  results[4].sink.Report(kQuirk, {}, "quirk");
  const std::string xml = WriteJunit(results);
  EXPECT_TRUE(WellFormedXml(xml)) << xml;
  EXPECT_NE(
      xml.find("<testsuite name=\"accelcheck validate\" tests=\"5\" failures=\"1\" errors=\"1\" "
               "skipped=\"1\">"),
      std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"accelcheck.pte\" name=\"dir/a.pte\">\n"
                     "      <failure message=\"1 error, 1 warning\" type=\"test.segment.bounds\">"
                     "dir/a.pte:0x1f0: error[test.segment.bounds]"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"accelcheck.pte\" name=\"b.pte\">\n    </testcase>"),
            std::string::npos);
  EXPECT_NE(xml.find("<error message=\"1 error, 0 warnings\" type=\"core.limit.max-file-size\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<skipped message="), std::string::npos);
  EXPECT_NE(xml.find("<system-out>w.pte: warning[test.file.trailing]: quirk\n</system-out>"),
            std::string::npos);
}

TEST(JunitReportTest, HostileStringsStayWellFormed) {
  const std::vector<std::string> hostile = {
      "<script>&amp;\"'</testcase>", "\x01\x02\x1f\x7f", "\xff\xfe\xc0\xaf",
      "\xef\xbf\xbe\xef\xbf\xbf",    "]]><![CDATA[",     "tab\tnew\nline\rcr",
      std::string("nul\0byte", 8)};
  for (const std::string& s : hostile) {
    std::vector<FileResult> results;
    results.push_back(Result(s, s));
    results[0].sink.Report(kBounds, At(0, 1, s), s);
    const std::string xml = WriteJunit(results);
    EXPECT_TRUE(WellFormedXml(xml)) << xml;
  }
}

TEST(ReportTest, SameInputSameBytes) {
  for (ReportFormat format :
       {ReportFormat::kText, ReportFormat::kJson, ReportFormat::kSarif, ReportFormat::kJunit}) {
    EXPECT_EQ(WriteReport(format, TwoFiles(), {.catalogue = kCatalogue}),
              WriteReport(format, TwoFiles(), {.catalogue = kCatalogue}));
  }
}

TEST(ReportTest, ParsesReportFormatNames) {
  EXPECT_EQ(ParseReportFormat("text"), ReportFormat::kText);
  EXPECT_EQ(ParseReportFormat("json"), ReportFormat::kJson);
  EXPECT_EQ(ParseReportFormat("sarif"), ReportFormat::kSarif);
  EXPECT_EQ(ParseReportFormat("junit"), ReportFormat::kJunit);
  EXPECT_EQ(ParseReportFormat("xml"), std::nullopt);
}

TEST(Utf8Test, ReplacesEveryIllFormedSequence) {
  EXPECT_EQ(ValidUtf8("plain"), "plain");
  EXPECT_EQ(ValidUtf8("\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e"),
            "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e");
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(ValidUtf8("\xc0\xaf"), fffd + fffd) << "overlong";
  EXPECT_EQ(ValidUtf8("\xed\xa0\x80"), fffd + fffd + fffd) << "surrogate";
  EXPECT_EQ(ValidUtf8("\xf4\x90\x80\x80"), fffd + fffd + fffd + fffd) << "above U+10FFFF";
  EXPECT_EQ(ValidUtf8("a\xe2\x82"), "a" + fffd + fffd) << "truncated";
  EXPECT_EQ(ValidUtf8("\x80"), fffd) << "lone continuation";
}

TEST(XmlEscapeTest, EscapesMarkupAndForbiddenCharacters) {
  EXPECT_EQ(XmlEscape("<a&b>\"'", false), "&lt;a&amp;b&gt;&quot;&apos;");
  EXPECT_EQ(XmlEscape("\x01", false), "\\x01");
  EXPECT_EQ(XmlEscape("a\nb\tc", false), "a\nb\tc");
  EXPECT_EQ(XmlEscape("a\nb\tc\r", true), "a&#10;b&#9;c&#13;");
  EXPECT_EQ(XmlEscape("\xef\xbf\xbe", false), "\xef\xbf\xbd");
  EXPECT_EQ(XmlEscape("\xff", true), "\xef\xbf\xbd");
}

// Any bytes in any field: no writer throws, JSON and SARIF parse back, XML is
// well-formed (nlohmann's dump() throws on invalid UTF-8 unless told to replace it).
RC_GTEST_PROP(ReportProperty, ArbitraryBytesNeverBreakAWriter,
              (const std::string& file, const std::string& path, const std::string& message,
               const std::string& format)) {
  std::vector<FileResult> results;
  results.push_back(Result(file, format));
  results[0].sink.Report(kBounds, At(1, 2, path), message);
  results[0].sink.Report(kQuirk, {}, message);
  RC_ASSERT(json::accept(WriteJson(results)));
  const json sarif = json::parse(WriteSarif(results, {.catalogue = kCatalogue}));
  RC_ASSERT(sarif["runs"][0]["results"].size() == 2u);
  const std::string xml = WriteJunit(results);
  RC_ASSERT(WellFormedXml(xml));
  const std::string text = WriteText(results);
  RC_ASSERT(ValidUtf8(text) == text);
  RC_ASSERT(std::count(text.begin(), text.end(), '\n') == 3);
}

}  // namespace
}  // namespace accelcheck
