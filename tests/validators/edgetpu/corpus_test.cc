// Real files from the corpus: every DWN1 model validates with no errors in
// the default profile and gives exactly the warnings and notes its quirks
// explain; the pre-2020 file is unsupported, not misread; every prefix of a
// small file is reported without a crash.
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/describe.h"
#include "validators/core/format.h"
#include "validators/edgetpu/edgetpu_format.h"

namespace accelcheck::edgetpu {
namespace {

namespace fs = std::filesystem;
using ::accelcheck::test::Describe;

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR) / "edgetpu"; }

InputBuffer Load(const fs::path& path) {
  std::string error;
  auto buffer = ReadFileLimited(path.string(), 1ull << 32, &error);
  EXPECT_TRUE(buffer) << path << ": " << error;
  return buffer ? std::move(*buffer) : InputBuffer();
}

DiagnosticSink Validate(const fs::path& path, ByteView bytes, Profile profile = {}) {
  DiagnosticSink sink(profile, path.string());
  ValidateContext context;
  context.path = path.string();
  EdgetpuFormat().Validate(InputBuffer::Copy(bytes), context, sink);
  return sink;
}

std::vector<fs::path> CorpusFiles() {
  std::vector<fs::path> files;
  if (!fs::is_directory(CorpusDir())) return files;
  for (const auto& entry : fs::directory_iterator(CorpusDir())) {
    if (entry.path().extension() == ".tflite") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool IsLegacy(const fs::path& path) {
  return path.filename().string().find("LEGACY_NOT_DWN1") != std::string::npos;
}

// The warnings and notes real files are known to give, each a documented
// quirk (docs/formats/edgetpu.md §5).
const std::map<std::string, std::set<std::string>>& ExpectedFindings() {
  static const std::map<std::string, std::set<std::string>> kExpected = {
      // §5.2, EDG-58: the one executable whose hints are not fully deterministic.
      {"test_data__keras_lstm_mnist_ptq_edgetpu.tflite", {"edgetpu.hints.not_deterministic"}},
      // §5.3: the pre-2020 layout the compiler wrote then, checked no further.
      {"edgetpu2019__mobilenet_quant_v1_224_feature_layers-custom_op.LEGACY_NOT_DWN1.tflite",
       {"edgetpu.package.legacy"}},
  };
  return kExpected;
}

std::set<std::string> ExpectedFor(const fs::path& path) {
  const auto expected = ExpectedFindings().find(path.filename().string());
  return expected == ExpectedFindings().end() ? std::set<std::string>{} : expected->second;
}

// The documented quirks that --strict makes errors.
std::set<std::string> ExpectedStrictErrors(const fs::path& path) {
  std::set<std::string> errors;
  for (const Rule* rule : EdgetpuFormat().rules()) {
    if (rule->strict == Severity::kError && ExpectedFor(path).count(std::string(rule->id)) != 0) {
      errors.insert(std::string(rule->id));
    }
  }
  return errors;
}

TEST(EdgetpuCorpus, EveryPackageHasNoErrors) {
  const auto files = CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "no corpus at " << CorpusDir() << "; real-file checks skipped";
  for (const fs::path& path : files) {
    const InputBuffer input = Load(path);
    ASSERT_TRUE(EdgetpuFormat().Detect(input.bytes())) << path;
    const DiagnosticSink sink = Validate(path, input.bytes());
    EXPECT_EQ(sink.error_count(), 0u) << path.filename() << "\n" << Describe(sink);
    std::set<std::string> found;
    for (const Diagnostic& d : sink.diagnostics()) found.insert(std::string(d.rule->id));
    EXPECT_EQ(found, ExpectedFor(path)) << path.filename() << "\n" << Describe(sink);
  }
}

// Under --strict every compiler convention counts: real files keep all of
// them (docs/formats/edgetpu.md §5.2), and the only errors are the
// documented quirks whose rules --strict makes errors (keras_lstm's hints,
// which are not fully deterministic).
TEST(EdgetpuCorpus, EveryPackageHasNoErrorsUnderStrict) {
  const auto files = CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "no corpus at " << CorpusDir() << "; real-file checks skipped";
  Profile strict;
  strict.strict = true;
  for (const fs::path& path : files) {
    const DiagnosticSink sink = Validate(path, Load(path).bytes(), strict);
    std::set<std::string> errors;
    for (const Diagnostic& d : sink.diagnostics()) {
      if (d.severity == Severity::kError) errors.insert(std::string(d.rule->id));
    }
    EXPECT_EQ(errors, ExpectedStrictErrors(path)) << path.filename() << "\n" << Describe(sink);
  }
}

TEST(EdgetpuCorpus, TheLegacyFileIsUnsupportedNotMisread) {
  const auto files = CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "no corpus at " << CorpusDir() << "; real-file checks skipped";
  for (const fs::path& path : files) {
    if (!IsLegacy(path)) continue;
    const DiagnosticSink sink = Validate(path, Load(path).bytes());
    ASSERT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
    const Diagnostic& d = sink.diagnostics()[0];
    EXPECT_EQ(d.rule->id, "edgetpu.package.legacy");
    EXPECT_EQ(d.severity, Severity::kWarning);
    EXPECT_EQ(d.rule->category, Category::kUnsupported);
    EXPECT_EQ(d.location.path, "subgraphs[0].operators[0].custom_options[\"4\"]");
  }
}

// Every prefix of the smallest real file is reported (as a verification
// failure, mostly) and never crashes or reads out of bounds.
TEST(EdgetpuCorpus, EveryPrefixOfASmallFileIsReported) {
  const auto files = CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "no corpus at " << CorpusDir() << "; real-file checks skipped";
  const auto smallest = *std::min_element(
      files.begin(), files.end(),
      [](const auto& a, const auto& b) { return fs::file_size(a) < fs::file_size(b); });
  const InputBuffer input = Load(smallest);
  for (size_t n = 0; n < input.size(); n += (n < 512 ? 1 : 61)) {
    const DiagnosticSink sink = Validate(smallest, input.bytes().first(n));
    EXPECT_GT(sink.error_count(), 0u) << "prefix of " << n << " bytes";
  }
}

}  // namespace
}  // namespace accelcheck::edgetpu
