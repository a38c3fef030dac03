// Directory runs as a CI gate sees them: a damaged file of a known format is
// validated and fails, a file of another kind is skipped with its reason, and
// a run that validated nothing does not pass.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/gemini/cases.h"
#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "conformance/tensil/bundle.h"
#include "tests/tools/cli_fixture.h"

namespace accelcheck::testing {
namespace {

using nlohmann::json;

std::vector<uint8_t> Text(const std::string& text) { return {text.begin(), text.end()}; }

std::vector<uint8_t> Program() {
  return pte::Serialize(pte::BuildRecipe(json::parse(R"({"plans": [{
      "name": "forward",
      "values": [{"name": "x", "tensor": {"dtype": "float", "sizes": [2]}},
                 {"name": "y", "tensor": {"dtype": "float", "sizes": [2]}}],
      "inputs": ["x"], "outputs": ["y"],
      "instructions": [{"kernel": "aten::relu.out", "args": ["x", "y"]}]}]})")));
}

std::vector<uint8_t> FirstBytes(const std::vector<uint8_t>& bytes, size_t count) {
  return {bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(count)};
}

// What the JSON report says of the file whose path ends with `name`.
json FileNamed(const json& report, const std::string& name) {
  for (const json& file : report["files"]) {
    const std::string path = file["path"];
    if (path.size() >= name.size() &&
        path.compare(path.size() - name.size(), name.size(), name) == 0)
      return file;
  }
  return nullptr;
}

class DirectoryRunTest : public CliFixture {
 protected:
  DirectoryRunTest() : CliFixture("dirrun") {}
};

TEST_F(DirectoryRunTest, ADamagedFileOfAKnownFormatIsValidatedNotSkipped) {
  std::vector<uint8_t> pte = Program();
  pte[4] = 'X';  // "ET12" -> "XT12"
  dir_.Write("damaged.pte", pte);
  dir_.Write("cut_schedule.json", FirstBytes(Text(gemini::CaseBaseIr()), 100));
  const std::string tmodel = tensil::conformance::TinyBundle().model.dump();
  dir_.Write("cut.tmodel", FirstBytes(Text(tmodel), 50));
  const json report = ValidateJson({dir_.path().string()}, 1);
  for (const std::string name : {"damaged.pte", "cut_schedule.json", "cut.tmodel"}) {
    const json file = FileNamed(report, name);
    EXPECT_EQ(file["outcome"], "errors") << name << ": " << report.dump(1);
  }
}

// A frontend IR in a directory is validated by the frontend rules, as the
// gemini format, rather than skipped; a broken one fails the run.
TEST_F(DirectoryRunTest, AFrontendIrIsValidatedNotSkipped) {
  dir_.Write("net.frontend.json", Text(gemini::CaseBaseFrontend()));
  json report = ValidateJson({dir_.path().string()}, 0);
  EXPECT_EQ(FileNamed(report, "net.frontend.json")["format"], "gemini") << report.dump(1);
  EXPECT_EQ(FileNamed(report, "net.frontend.json")["outcome"], "conforms") << report.dump(1);
  json frontend = json::parse(gemini::CaseBaseFrontend());
  frontend.begin().value()["name"] = "renamed";
  dir_.Write("net.frontend.json", Text(frontend.dump()));
  report = ValidateJson({dir_.path().string()}, 1);
  const json file = FileNamed(report, "net.frontend.json");
  EXPECT_EQ(file["outcome"], "errors") << report.dump(1);
  EXPECT_EQ(file["diagnostics"][0]["rule"], "gemini.frontend.name") << report.dump(1);
}

TEST_F(DirectoryRunTest, OtherFilesAreSkippedWithTheirReason) {
  dir_.Write("valid.pte", Program());
  dir_.Write("empty.bin", {});
  dir_.Write("README.md", Text("# notes\n"));
  const json report = ValidateJson({dir_.path().string()}, 0);
  EXPECT_EQ(FileNamed(report, "valid.pte")["outcome"], "conforms");
  EXPECT_EQ(FileNamed(report, "empty.bin")["skip_reason"], "empty file");
  EXPECT_NE(std::string(FileNamed(report, "README.md")["skip_reason"]).find("no supported format"),
            std::string::npos);
}

TEST_F(DirectoryRunTest, FailOnSkipMakesASkippedFileAnError) {
  dir_.Write("valid.pte", Program());
  dir_.Write("README.md", Text("# notes\n"));
  const json report = ValidateJson({"--fail-on-skip", dir_.path().string()}, 1);
  EXPECT_EQ(FileNamed(report, "README.md")["diagnostics"][0]["rule"], "core.format.unknown");
}

TEST_F(DirectoryRunTest, ARunThatValidatedNothingFails) {
  dir_.Write("README.md", Text("# notes\n"));
  const ToolRun run = RunTool({"validate", dir_.path().string()});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("nothing was validated"), std::string::npos) << run.out;
  const TempDir empty("dirrun_empty");
  EXPECT_EQ(RunTool({"validate", empty.path().string()}).exit_code, 1);
}

TEST_F(DirectoryRunTest, ANamedFileSaysWhatItIs) {
  const json empty = ValidateJson({dir_.Write("empty.bin", {})}, 1);
  EXPECT_EQ(empty["files"][0]["diagnostics"][0]["rule"], "core.format.unknown");
  EXPECT_EQ(std::string(empty["files"][0]["diagnostics"][0]["message"]).rfind("empty file", 0), 0u);
  // A gzip stream that does not inflate: a header of 1f 8b and zeros.
  std::vector<uint8_t> gzip(100, 0);
  std::copy_n("\x1f\x8b", 2, gzip.begin());
  const json broken = ValidateJson({dir_.Write("m.pte.gz", gzip)}, 1);
  EXPECT_EQ(broken["files"][0]["diagnostics"][0]["rule"], "core.gzip.stream");
  // A scheduler IR of the SET generator's dialect, cut short: validated as
  // one, and the report names the dialect.
  const json set = ValidateJson(
      {dir_.Write("set_ir.json", Text(R"({"1": [{"buffer": [{"address": 0, "block": 4,)"
                                      R"( "priority": 0, "start_loading": true}]}]})"))},
      1);
  EXPECT_EQ(set["files"][0]["format"], "gemini");
  EXPECT_EQ(set["files"][0]["dialect"], "set");
  EXPECT_EQ(set["files"][0]["diagnostics"][0]["rule"], "gemini.schema.missing_key");
}

}  // namespace
}  // namespace accelcheck::testing
