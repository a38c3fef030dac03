// Real files from the corpus: zero errors in the default profile, the
// warnings each gives, the old .ptd, and every prefix of a small file.
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/corpus.h"
#include "tests/support/describe.h"
#include "validators/core/format.h"
#include "validators/pte/pte_format.h"
#include "validators/pte/rules.h"

namespace accelcheck::pte {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR) / "pte"; }

InputBuffer Load(const fs::path& path) {
  std::string error;
  auto buffer = ReadFileLimited(path.string(), 1ull << 32, &error);
  EXPECT_TRUE(buffer) << path << ": " << error;
  return buffer ? std::move(*buffer) : InputBuffer();
}

DiagnosticSink Validate(const fs::path& path, const InputBuffer& input) {
  DiagnosticSink sink(Profile{}, path.string());
  ValidateContext context;
  context.path = path.string();
  PteFormat().Validate(input, context, sink);
  return sink;
}

using ::accelcheck::test::Describe;

std::vector<fs::path> CorpusFiles(std::string_view extension) {
  return test::CorpusFiles("pte", std::string(extension));
}

// The notes and warnings real files are known to give, each justified in
// the rule table (a real-file quirk is a warning or note, never an error).
const std::map<std::string, std::set<std::string>>& ExpectedWarnings() {
  static const std::map<std::string, std::set<std::string>> kExpected = {
      {"executorch__ModuleLinear-no-constant-segment.pte", {"pte.constant.deprecated_buffer"}},
      {"executorch__2023_module_model.pte", {"pte.constant.deprecated_buffer"}},
      // EXTERNAL tensors: the .ptd is not beside the program under its stem,
      // or it is in the old layout, whose keys are not read.
      {"executorch-rs__data_map_model.pte", {"pte.external.unchecked"}},
      {"executorch__module_linear.pte", {"pte.external.unchecked"}},
      // An extended header of the older 24-byte length.
      {"bimapp__proposed_model_full.pte", {"pte.header.length_nonstandard"}},
  };
  return kExpected;
}

TEST(PteCorpus, EveryProgramHasNoErrors) {
  const auto files = CorpusFiles(".pte");
  if (files.empty()) GTEST_SKIP() << "no corpus at " << CorpusDir() << "; real-file checks skipped";
  for (const fs::path& path : files) {
    const InputBuffer input = Load(path);
    ASSERT_TRUE(PteFormat().Detect(input.bytes())) << path;
    const DiagnosticSink sink = Validate(path, input);
    EXPECT_EQ(sink.error_count(), 0u) << path.filename() << "\n" << Describe(sink);
    std::set<std::string> found;
    for (const Diagnostic& d : sink.diagnostics()) found.insert(std::string(d.rule->id));
    const auto expected = ExpectedWarnings().find(path.filename().string());
    EXPECT_EQ(found,
              expected == ExpectedWarnings().end() ? std::set<std::string>{} : expected->second)
        << path.filename() << "\n"
        << Describe(sink);
  }
}

TEST(PteCorpus, CurrentNamedDataFileIsClean) {
  const fs::path path = CorpusDir() / "executorch-rs__data_map__default_external_constant.ptd";
  if (!fs::exists(path)) GTEST_SKIP() << "no corpus file " << path << "; skipped";
  const InputBuffer input = Load(path);
  const DiagnosticSink sink = Validate(path, input);
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
}

TEST(PteCorpus, OldNamedDataLayoutIsUnsupported) {
  const fs::path path = CorpusDir() / "executorch__module_linear.ptd";
  if (!fs::exists(path)) GTEST_SKIP() << "no corpus file " << path << "; skipped";
  const InputBuffer input = Load(path);
  const DiagnosticSink sink = Validate(path, input);
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
  EXPECT_EQ(sink.diagnostics()[0].rule, &rules::kPtdOldLayout);
  EXPECT_EQ(sink.diagnostics()[0].rule->category, Category::kUnsupported);
  // Real files use the old layout, so it is a warning by default and an
  // error under --strict; either way nothing of it is misread.
  EXPECT_EQ(sink.diagnostics()[0].severity, Severity::kWarning);
  DiagnosticSink strict(Profile{.strict = true}, path.string());
  PteFormat().Validate(input, ValidateContext{}, strict);
  ASSERT_EQ(strict.diagnostics().size(), 1u) << Describe(strict);
  EXPECT_EQ(strict.diagnostics()[0].severity, Severity::kError);
}

TEST(PteCorpus, InspectReadsTheOldNamedDataLayout) {
  const fs::path path = CorpusDir() / "executorch__module_linear.ptd";
  if (!fs::exists(path)) GTEST_SKIP() << "no corpus file " << path << "; skipped";
  const InputBuffer input = Load(path);
  DiagnosticSink sink(Profile{}, path.string());
  const auto json = PteFormat().Inspect(input, ValidateContext{}, sink);
  ASSERT_TRUE(json.is_object());
  const auto& tensors = json["flat_tensor"]["tensors"];
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[0]["fully_qualified_name"], "linear.weight");
  EXPECT_EQ(tensors[1]["fully_qualified_name"], "linear.bias");
  EXPECT_EQ(json["flat_tensor"]["segments"].size(), 1u);
}

TEST(PteCorpus, InspectGivesOffsetsOfEveryProgram) {
  const auto files = CorpusFiles(".pte");
  if (files.empty()) GTEST_SKIP() << "no corpus at " << CorpusDir() << "; skipped";
  for (const fs::path& path : files) {
    const InputBuffer input = Load(path);
    DiagnosticSink sink(Profile{}, path.string());
    const auto json = PteFormat().Inspect(input, ValidateContext{}, sink);
    ASSERT_TRUE(json.is_object()) << path;
    EXPECT_TRUE(json["program"]["@offset"].is_number()) << path;
    EXPECT_TRUE(json["program"]["execution_plan"][0]["@offset"].is_number()) << path;
  }
}

// The external tensors of the data-map model resolve against the .ptd next
// to it when it is named as a companion.
TEST(PteCorpus, ExternalTensorsMatchTheirCompanion) {
  const fs::path pte = CorpusDir() / "executorch-rs__data_map_model.pte";
  const fs::path ptd = CorpusDir() / "executorch-rs__data_map__default_external_constant.ptd";
  if (!fs::exists(pte) || !fs::exists(ptd)) GTEST_SKIP() << "no data-map pair in corpus; skipped";
  const InputBuffer input = Load(pte);
  DiagnosticSink sink(Profile{}, pte.string());
  ValidateContext context;
  context.companions.push_back(ptd.string());
  PteFormat().Validate(input, context, sink);
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
}

// Every prefix of a small real file decodes into diagnostics, never a crash.
TEST(PteCorpus, EveryPrefixGivesDiagnostics) {
  for (const char* name : {"executorch__apple_add.pte", "numpy-runtime__dynamic.pte",
                           "executorch-rs__data_map__default_external_constant.ptd"}) {
    const fs::path path = CorpusDir() / name;
    if (!fs::exists(path)) GTEST_SKIP() << "no corpus file " << path << "; skipped";
    const InputBuffer whole = Load(path);
    for (size_t n = 0; n < whole.size(); ++n) {
      const InputBuffer prefix = InputBuffer::Copy(whole.bytes().first(n));
      DiagnosticSink sink(Profile{}, name);
      PteFormat().Validate(prefix, ValidateContext{}, sink);
      EXPECT_GT(sink.error_count(), 0u) << name << " cut at " << n;
      PteFormat().Inspect(prefix, ValidateContext{}, sink);
    }
  }
}

}  // namespace
}  // namespace accelcheck::pte
