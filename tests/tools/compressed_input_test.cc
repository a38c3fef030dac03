// Compressed inputs (docs/ARCHITECTURE.md "Compressed inputs"): a gzip
// stream, found by its content, is inflated for every command that reads a
// model, its findings at the offsets of the inflated bytes, under the
// inflating limits; in a directory it is validated, not skipped.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/gemini/cases.h"
#include "conformance/gzip_writer.h"
#include "conformance/neff/builder.h"
#include "conformance/neff/model.h"
#include "tests/support/small_program.h"
#include "tests/tools/cli_fixture.h"
#include "validators/core/npy.h"
#include "validators/core/text.h"

namespace accelcheck::testing {
namespace {

using nlohmann::json;

std::vector<uint8_t> Schedule() {
  const std::string ir = gemini::CaseBaseIr();
  return {ir.begin(), ir.end()};
}

std::vector<uint8_t> Neff() {
  namespace nc = neff::conformance;
  nc::Spec spec = nc::Trn1Spec();
  spec.inputs = {{"x", "float32", {16}}};
  spec.outputs = {{"y", "float32", {16}}};
  spec.queues = {{"qSPIO0", nc::Engine::kSp, "in"}};
  spec.blocks = {{"qSPIO0", {nc::MoveRows("x", 0, "float32", "y", 0, "float32", 1, 16)}}};
  return nc::Write(nc::Build(spec));
}

std::vector<uint8_t> Gzip(const std::vector<uint8_t>& bytes) { return conformance::Gzip(bytes); }

// The report's diagnostics of its one file but the inflating note.
json FindingsBesideTheNote(const json& report) {
  json found = json::array();
  for (const json& d : report["files"][0]["diagnostics"]) {
    if (d["rule"] != "core.gzip.inflated") found.push_back(d);
  }
  return found;
}

class CompressedInputTest : public CliFixture {
 protected:
  CompressedInputTest() : CliFixture("gz") {}
};

TEST_F(CompressedInputTest, AGzippedFileOfEachFormatValidatesAsItsInflatedBytes) {
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> files = {
      {"pte", test::SmallProgram()}, {"gemini", Schedule()}, {"neff", Neff()}};
  for (const auto& [format, bytes] : files) {
    const json plain = ValidateJson({dir_.Write(format + ".model", bytes)}, 0);
    const json report = ValidateJson({dir_.Write(format + ".model.gz", Gzip(bytes))}, 0);
    ASSERT_FALSE(report.is_discarded()) << format;
    EXPECT_EQ(report["files"][0]["format"], format) << report.dump(1);
    const json& note = report["files"][0]["diagnostics"][0];
    EXPECT_EQ(note["rule"], "core.gzip.inflated") << report.dump(1);
    EXPECT_NE(std::string(note["message"]).find(Str("inflated to ", bytes.size(), " bytes")),
              std::string::npos)
        << note.dump();
    EXPECT_EQ(FindingsBesideTheNote(report), plain["files"][0]["diagnostics"]) << format;
  }
}

TEST_F(CompressedInputTest, FindingsAreAtTheOffsetsOfTheInflatedBytes) {
  std::vector<uint8_t> pte = test::SmallProgram();
  pte.resize(pte.size() - 20);  // cut short: a finding at an offset near the end
  const json plain = ValidateJson({dir_.Write("cut.pte", pte)}, 1);
  const json report = ValidateJson({dir_.Write("cut.pte.gz", Gzip(pte))}, 1);
  ASSERT_FALSE(plain["files"][0]["diagnostics"].empty()) << plain.dump(1);
  EXPECT_EQ(FindingsBesideTheNote(report), plain["files"][0]["diagnostics"]) << report.dump(1);
}

TEST_F(CompressedInputTest, TheInflatingLimitsHoldAtTheLimitAndStopAbove) {
  const std::vector<uint8_t> bytes = test::SmallProgram();
  const std::vector<uint8_t> gz = Gzip(bytes);
  const std::string path = dir_.Write("limits.pte.gz", gz);
  ValidateJson({"--max-inflated-bytes", std::to_string(bytes.size()), path}, 0);
  json report = ValidateJson({"--max-inflated-bytes", std::to_string(bytes.size() - 1), path}, 3);
  EXPECT_EQ(RulesIn(report), std::vector<std::string>{"core.limit.max-inflated-bytes"});
  // The ratio is over the whole file: the least that holds it, and one less.
  const uint64_t ratio = (bytes.size() + gz.size() - 1) / gz.size();
  ValidateJson({"--max-compression-ratio", std::to_string(ratio), path}, 0);
  report = ValidateJson({"--max-compression-ratio", std::to_string(ratio - 1), path}, 3);
  EXPECT_EQ(RulesIn(report), std::vector<std::string>{"core.limit.max-compression-ratio"});
}

TEST_F(CompressedInputTest, ABrokenStreamIsReportedAtItsByte) {
  std::vector<uint8_t> gz = Gzip(test::SmallProgram());
  gz[gz.size() - 8] ^= 0xFF;  // the CRC-32
  json report = ValidateJson({dir_.Write("crc.pte.gz", gz)}, 1);
  EXPECT_EQ(RulesIn(report), std::vector<std::string>{"core.gzip.stream"});
  EXPECT_EQ(report["files"][0]["diagnostics"][0]["offset"], gz.size() - 8) << report.dump(1);
  // Bytes after the last member that are no member of their own.
  gz = Gzip(test::SmallProgram());
  const uint64_t end = gz.size();
  gz.insert(gz.end(), {'j', 'u', 'n', 'k'});
  report = ValidateJson({dir_.Write("junk.pte.gz", gz)}, 1);
  EXPECT_EQ(RulesIn(report), std::vector<std::string>{"core.gzip.stream"});
  EXPECT_EQ(report["files"][0]["diagnostics"][0]["offset"], end) << report.dump(1);
  // A gzip header with another compression method than deflate.
  gz = Gzip(test::SmallProgram());
  gz[2] = 0;
  report = ValidateJson({dir_.Write("method.pte.gz", gz)}, 1);
  EXPECT_EQ(RulesIn(report), std::vector<std::string>{"core.gzip.stream"});
}

// One gzip layer is inflated: a gzip inside it is a format accelcheck does
// not read, said as such.
TEST_F(CompressedInputTest, AGzipInsideAGzipIsUnsupported) {
  const json report =
      ValidateJson({dir_.Write("twice.pte.gz.gz", Gzip(Gzip(test::SmallProgram())))}, 1);
  std::vector<std::string> rules = RulesIn(report);
  std::sort(rules.begin(), rules.end());
  EXPECT_EQ(rules, (std::vector<std::string>{"core.format.unsupported", "core.gzip.inflated"}));
}

// Detection needs the first 64 KiB: a stream whose first bytes no format
// takes is inflated no further, whatever it would inflate to, and reported
// as of no format (in a directory, skipped); --format inflates it whole.
TEST_F(CompressedInputTest, AStreamOfNoFormatIsInflatedOnlyToItsHead) {
  const std::string path =
      dir_.Write("zeros.gz", Gzip(std::vector<uint8_t>(std::size_t{32} << 20, 0)));
  json report = ValidateJson({path}, 1);
  std::vector<std::string> rules = RulesIn(report);
  std::sort(rules.begin(), rules.end());
  EXPECT_EQ(rules, (std::vector<std::string>{"core.format.unknown", "core.gzip.inflated"}));
  const std::string note = report["files"][0]["diagnostics"][0]["message"];
  EXPECT_NE(note.find("its first 65536 inflated bytes match no supported format"),
            std::string::npos)
      << report.dump(1);
  dir_.Write("model.pte", test::SmallProgram());
  report = ValidateJson({dir_.path().string()}, 0);
  ASSERT_EQ(report["files"].size(), 2u) << report.dump(1);
  EXPECT_EQ(std::string(report["files"][1]["skip_reason"])
                .rfind("a gzip stream whose inflated content matches no supported format", 0),
            0u)
      << report.dump(1);
  report = ValidateJson({"--format", "pte", "--max-compression-ratio", "100000", path}, 1);
  EXPECT_NE(std::string(report["files"][0]["diagnostics"][0]["message"])
                .find(Str("inflated to ", std::size_t{32} << 20, " bytes")),
            std::string::npos)
      << report.dump(1);
}

TEST_F(CompressedInputTest, MembersInflateOneAfterTheOther) {
  const std::vector<uint8_t> pte = test::SmallProgram();
  const size_t half = pte.size() / 2;
  std::vector<uint8_t> gz = Gzip({pte.begin(), pte.begin() + static_cast<std::ptrdiff_t>(half)});
  const std::vector<uint8_t> second =
      Gzip({pte.begin() + static_cast<std::ptrdiff_t>(half), pte.end()});
  gz.insert(gz.end(), second.begin(), second.end());
  const std::string path = dir_.Write("two.pte.gz", gz);
  const json report = ValidateJson({path}, 0);
  EXPECT_NE(std::string(report["files"][0]["diagnostics"][0]["message"]).find("in 2 members"),
            std::string::npos)
      << report.dump(1);
  // The inflated-bytes limit holds for the members together.
  ValidateJson({"--max-inflated-bytes", std::to_string(pte.size()), path}, 0);
  EXPECT_EQ(
      RulesIn(ValidateJson({"--max-inflated-bytes", std::to_string(pte.size() - 1), path}, 3)),
      std::vector<std::string>{"core.limit.max-inflated-bytes"});
}

TEST_F(CompressedInputTest, InspectAndStandardInputReadTheInflatedBytes) {
  const std::vector<uint8_t> bytes = Schedule();
  const ToolRun plain = RunTool({"inspect", dir_.Write("s.json", bytes)});
  const ToolRun inflated = RunTool({"inspect", dir_.Write("s.json.gz", Gzip(bytes))});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(inflated.exit_code, 0) << inflated.err;
  EXPECT_EQ(inflated.out, plain.out);
  const ToolRun piped =
      RunTool({"validate", "--output", "json", "-"}, dir_.Write("piped.gz", Gzip(bytes)));
  EXPECT_EQ(piped.exit_code, 0) << piped.out << piped.err;
}

// The result is written inflated, and the staged inflated input is gone.
TEST_F(CompressedInputTest, MutateBreaksOneRuleOfAGzippedFile) {
  const std::filesystem::path out_dir = dir_.path() / "out";
  std::filesystem::create_directories(out_dir);
  const std::string out = (out_dir / "bad.pte").string();
  const ToolRun run = RunTool({"mutate", dir_.Write("add.pte.gz", Gzip(test::SmallProgram())),
                               "--rule", "pte.file.version", "-o", out});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const json report = ValidateJson({"--strict", out}, 1);
  EXPECT_EQ(RulesIn(report), std::vector<std::string>{"pte.file.version"});
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(out_dir))
    left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"bad.pte"});
  // A stream that does not inflate is refused with its rule.
  std::vector<uint8_t> broken = Gzip(test::SmallProgram());
  broken.resize(broken.size() - 4);
  const ToolRun refused = RunTool(
      {"mutate", dir_.Write("cut.pte.gz", broken), "--rule", "pte.file.version", "-o", out});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("core.gzip.stream"), std::string::npos) << refused.err;
}

// simulate and run load their model through the reference executors.
TEST_F(CompressedInputTest, SimulateAndRunReadAGzippedModel) {
  const std::vector<uint8_t> bytes = Schedule();
  const ToolRun plain = RunTool({"simulate", dir_.Write("s.json", bytes)});
  const ToolRun inflated = RunTool({"simulate", dir_.Write("s.json.gz", Gzip(bytes))});
  EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  EXPECT_EQ(inflated.exit_code, 0) << inflated.out << inflated.err;
  EXPECT_EQ(inflated.out, plain.out);
  EXPECT_NE(inflated.err.find("core.gzip.inflated"), std::string::npos) << inflated.err;

  // z = x + [1 .. 6]
  const std::string pte = dir_.Write("add.pte.gz", Gzip(test::SmallProgram()));
  const std::string x = dir_.Write(
      "x.npy", npy::Write({0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, {2, 3}, *npy::ParseDescr("<f4")));
  const ToolRun run = RunTool({"run", pte, "--input", x});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("6.5"), std::string::npos) << run.out;
}

TEST_F(CompressedInputTest, ADirectoryValidatesItsGzippedFiles) {
  dir_.Write("model.pte.gz", Gzip(test::SmallProgram()));
  dir_.Write("notes.txt.gz", Gzip(std::vector<uint8_t>{'h', 'i', '\n'}));
  dir_.Write("empty.gz", Gzip({}));
  const json report = ValidateJson({dir_.path().string()}, 0);
  ASSERT_EQ(report["files"].size(), 3u) << report.dump(1);
  for (const json& file : report["files"]) {
    const std::string path = file["path"];
    if (path.ends_with("model.pte.gz")) {
      EXPECT_EQ(file["format"], "pte") << report.dump(1);
      EXPECT_EQ(file["outcome"], "conforms") << report.dump(1);
    } else if (path.ends_with("notes.txt.gz")) {
      EXPECT_EQ(std::string(file["skip_reason"])
                    .rfind("a gzip stream whose inflated content matches no supported format", 0),
                0u)
          << report.dump(1);
    } else {
      EXPECT_EQ(file["skip_reason"], "a gzip stream that inflates to nothing") << report.dump(1);
    }
  }
}

}  // namespace
}  // namespace accelcheck::testing
