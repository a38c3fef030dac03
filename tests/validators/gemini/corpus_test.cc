// The real scheduler IR files: zero errors in the default profile, with and
// without their frontend IR, and the documented anomalies as warnings. The
// real frontend IR files pass the frontend rules on their own.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/describe.h"
#include "validators/gemini/gemini_format.h"
#include "validators/gemini/rules.h"

namespace accelcheck::gemini {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR) / "gemini"; }

// int8_resnet34.sim_quantized_b16_c1_bw16_stschedule.json -> the frontend
// int8_resnet34.sim_quantized_b16.json.
fs::path FrontendOf(const fs::path& ir) {
  std::string name = ir.filename().string();
  name = name.substr(0, name.find("_c1_bw16_stschedule.json")) + ".json";
  return CorpusDir() / "frontend_ir" / name;
}

std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<fs::path> IrFiles() { return FilesIn(CorpusDir() / "scheduler_ir"); }

using ::accelcheck::test::Describe;

DiagnosticSink Validate(const fs::path& path, bool with_frontend, bool strict = false) {
  DiagnosticSink sink(Profile{strict, false, 0}, path.string());
  std::string error;
  auto input = ReadFileLimited(path.string(), 1ull << 32, &error);
  EXPECT_TRUE(input) << error;
  if (!input) return sink;
  ValidateContext context;
  context.path = path.string();
  if (with_frontend) context.companions.push_back(FrontendOf(path).string());
  GeminiFormat().Validate(*input, context, sink);
  return sink;
}

std::set<std::string> RuleIds(const DiagnosticSink& sink) {
  std::set<std::string> ids;
  for (const Diagnostic& d : sink.diagnostics()) ids.emplace(d.rule->id);
  return ids;
}

// The anomalies of docs/formats/gemini.md §2.5, file by file.
const std::map<std::string, std::set<std::string>>& ExpectedFindings() {
  static const std::map<std::string, std::set<std::string>> kExpected = {
      {"int8_resnet34.sim_quantized_b1_c1_bw16_stschedule.json", {"gemini.workload.wl1_dialect"}},
      {"int8_resnet34.sim_quantized_b4_c1_bw16_stschedule.json", {"gemini.workload.wl1_dialect"}},
      {"int8_resnet34.sim_quantized_b16_c1_bw16_stschedule.json",
       {"gemini.workload.wl1_dialect", "gemini.transfer.unread_destination",
        "gemini.transfer.causality"}},
      {"int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json",
       {"gemini.transfer.unread_destination"}},
      {"int8_resnet50.sim_quantized_b4_c1_bw16_stschedule.json", {}},
  };
  return kExpected;
}

TEST(GeminiCorpus, ZeroErrorsAndTheDocumentedFindings) {
  const auto files = IrFiles();
  if (files.empty()) GTEST_SKIP() << "no Gemini corpus at " << CorpusDir();
  ASSERT_EQ(files.size(), ExpectedFindings().size());
  for (const fs::path& path : files) {
    for (bool with_frontend : {false, true}) {
      SCOPED_TRACE(path.filename().string() + (with_frontend ? " with frontend" : " alone"));
      const DiagnosticSink sink = Validate(path, with_frontend);
      EXPECT_EQ(sink.error_count(), 0u) << Describe(sink);
      std::set<std::string> expected = ExpectedFindings().at(path.filename().string());
      // I-F9: alone, the file says which checks did not run.
      if (!with_frontend) expected.emplace(rules::kFrontendUnchecked.id);
      EXPECT_EQ(RuleIds(sink), expected) << Describe(sink);
    }
  }
}

// Every real frontend IR passes the frontend rules (I-F) under --strict, as
// an input of its own, and is detected as the gemini format.
TEST(GeminiCorpus, RealFrontendsPassTheFrontendRules) {
  const auto files = FilesIn(CorpusDir() / "frontend_ir");
  if (files.empty()) GTEST_SKIP() << "no Gemini corpus at " << CorpusDir();
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::string error;
    const auto input = ReadFileLimited(path.string(), 1ull << 32, &error);
    ASSERT_TRUE(input) << error;
    EXPECT_TRUE(GeminiFormat().Detect(input->bytes()));
    const DiagnosticSink sink = Validate(path, false, /*strict=*/true);
    EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
  }
}

// Under --strict the anomalies become errors (I-T8, I-T9 are the spec as
// written).
TEST(GeminiCorpus, StrictProfileTurnsTheAnomaliesIntoErrors) {
  const fs::path path =
      CorpusDir() / "scheduler_ir" / "int8_resnet34.sim_quantized_b16_c1_bw16_stschedule.json";
  if (!fs::exists(path)) GTEST_SKIP() << "no Gemini corpus at " << CorpusDir();
  const DiagnosticSink sink = Validate(path, true, true);
  EXPECT_TRUE(sink.Has(rules::kTransferCausality));
  EXPECT_GT(sink.error_count(), 0u);
}

// Anomaly 2.5-1: transfer 145 of workload 102 names workload 91, which runs
// earlier; anomaly 2.5-2 counts 2 unread destinations in resnet34_b16 and 8
// in resnet50_b1.
TEST(GeminiCorpus, AnomalyCountsMatchTheResearchNotes) {
  const fs::path dir = CorpusDir() / "scheduler_ir";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no Gemini corpus at " << CorpusDir();
  const auto count = [](const DiagnosticSink& sink, const Rule& rule) {
    return std::count_if(sink.diagnostics().begin(), sink.diagnostics().end(),
                         [&](const Diagnostic& d) { return d.rule == &rule; });
  };
  const DiagnosticSink b16 =
      Validate(dir / "int8_resnet34.sim_quantized_b16_c1_bw16_stschedule.json", false);
  EXPECT_EQ(count(b16, rules::kTransferUnreadDestination), 2) << Describe(b16);
  EXPECT_EQ(count(b16, rules::kTransferCausality), 1) << Describe(b16);
  const DiagnosticSink r50 =
      Validate(dir / "int8_resnet50.sim_quantized_b1_c1_bw16_stschedule.json", false);
  EXPECT_EQ(count(r50, rules::kTransferUnreadDestination), 8) << Describe(r50);
}

}  // namespace
}  // namespace accelcheck::gemini
