// The embedding interface: bytes in, diagnostics out, with the command's
// detection, profiles and outcomes.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "accelcheck/accelcheck.h"
#include "conformance/tensil/bundle.h"
#include "tests/support/small_program.h"
#include "validators/core/report.h"

namespace accelcheck::api {
namespace {

using test::SmallProgram;
using test::WithTrailingBytes;

std::vector<uint8_t> Text(const std::string& text) { return {text.begin(), text.end()}; }

std::vector<std::string> RulesOf(const Result& result) {
  std::vector<std::string> rules;
  for (const Diagnostic& d : result.diagnostics) rules.push_back(d.rule);
  return rules;
}

const Diagnostic* Find(const Result& result, const std::string& rule) {
  const auto it = std::find_if(result.diagnostics.begin(), result.diagnostics.end(),
                               [&](const Diagnostic& d) { return d.rule == rule; });
  return it == result.diagnostics.end() ? nullptr : &*it;
}

TEST(Api, ValidProgramConforms) {
  const Result result = Validate(SmallProgram());
  EXPECT_EQ(result.format, "pte");
  EXPECT_EQ(result.outcome, Outcome::kConforms);
  EXPECT_TRUE(result.diagnostics.empty()) << ::testing::PrintToString(RulesOf(result));
}

TEST(Api, ProfileDecidesWhetherAQuirkFails) {
  const std::vector<uint8_t> bytes = WithTrailingBytes();
  const Result lenient = Validate(bytes);
  EXPECT_EQ(lenient.outcome, Outcome::kConforms);
  const Diagnostic* warning = Find(lenient, "pte.file.trailing_bytes");
  ASSERT_NE(warning, nullptr);
  EXPECT_EQ(warning->severity, Severity::kWarning);
  EXPECT_EQ(lenient.warnings, 1u);

  const Result strict = Validate(bytes, {.profile = Profile::kStrict});
  EXPECT_EQ(strict.outcome, Outcome::kErrors);
  const Diagnostic* error = Find(strict, "pte.file.trailing_bytes");
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->severity, Severity::kError);
  EXPECT_EQ(SeverityName(error->severity), "error");

  EXPECT_EQ(Validate(bytes, {.werror = true}).outcome, Outcome::kErrors);
}

TEST(Api, DiagnosticsCarryTheirLocation) {
  std::vector<uint8_t> bytes = SmallProgram();
  bytes[6] = '9';  // an ExecuTorch version accelcheck does not handle
  bytes[7] = '9';
  const Result result = Validate(bytes, {.format = "pte"});
  EXPECT_EQ(result.outcome, Outcome::kErrors);
  const Diagnostic* version = Find(result, "pte.file.version");
  ASSERT_NE(version, nullptr) << ::testing::PrintToString(RulesOf(result));
  EXPECT_EQ(version->offset, 4u);
  EXPECT_FALSE(version->message.empty());
  EXPECT_GT(result.errors, 0u);
}

TEST(Api, UnknownContentDoesNotConform) {
  const Result result = Validate(Text("hello"));
  EXPECT_EQ(result.outcome, Outcome::kErrors);
  EXPECT_EQ(result.format, "");
  ASSERT_EQ(RulesOf(result), std::vector<std::string>{"core.format.unknown"});
  EXPECT_EQ(CategoryName(result.diagnostics[0].category), "unsupported");
}

TEST(Api, ForcedFormatChecksUnrecognisedContent) {
  const Result result = Validate(Text("hello"), {.format = "pte"});
  EXPECT_EQ(result.format, "pte");
  EXPECT_EQ(result.outcome, Outcome::kErrors);
  ASSERT_FALSE(result.diagnostics.empty());
  EXPECT_EQ(result.diagnostics[0].rule.rfind("pte.", 0), 0u) << result.diagnostics[0].rule;
}

TEST(Api, UnknownFormatIdIsAUsageError) {
  const Result result = Validate(SmallProgram(), {.format = "elf"});
  EXPECT_EQ(result.outcome, Outcome::kUsage);
  EXPECT_NE(result.usage_error.find("'elf'"), std::string::npos) << result.usage_error;
  EXPECT_TRUE(result.diagnostics.empty());
}

TEST(Api, LimitHitHasNoVerdict) {
  const Result result = Validate(SmallProgram(), {.max_tables = 1});
  EXPECT_EQ(result.outcome, Outcome::kFailed);
  const Diagnostic* limit = Find(result, "core.limit.max-tables");
  ASSERT_NE(limit, nullptr) << ::testing::PrintToString(RulesOf(result));
  EXPECT_EQ(limit->category, Category::kLimit);
}

// Companions cannot be given: a Tensil model in memory finds none of its files.
TEST(Api, TensilModelInMemoryReportsItsFilesMissing) {
  const Result result = Validate(Text(tensil::conformance::TinyBundle().model.dump()));
  EXPECT_EQ(result.format, "tensil");
  EXPECT_NE(Find(result, "tensil.model.file_missing"), nullptr)
      << ::testing::PrintToString(RulesOf(result));
}

TEST(Api, ListsTheFormatsAndTheVersion) {
  EXPECT_EQ(FormatIds(), (std::vector<std::string>{"pte", "tensil", "gemini"}));
  EXPECT_EQ(Version(), kToolVersion);
}

}  // namespace
}  // namespace accelcheck::api
