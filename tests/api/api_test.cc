// The embedding interface: bytes in, diagnostics out, with the command's
// detection, profiles and outcomes.
#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "accelcheck/accelcheck.h"
#include "conformance/provider.h"
#include "conformance/tensil/bundle.h"
#include "tests/support/small_program.h"
#include "tools/accelcheck/registry.h"
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

// The Edge TPU runtime a package must load on: the pair bases need 14.
TEST(Api, TargetRuntimeDecidesTheVerdict) {
  const conformance::Provider* edgetpu = nullptr;
  for (const conformance::Provider* provider : accelcheck::Providers()) {
    if (provider->format() == "edgetpu") edgetpu = provider;
  }
  ASSERT_NE(edgetpu, nullptr);
  const conformance::Base base = edgetpu->Bases()[1];  // cached_1d
  EXPECT_EQ(Validate(base.files[0].bytes, {}).outcome, Outcome::kConforms);
  const Result old = Validate(base.files[0].bytes, {.edgetpu_runtime = 13});
  EXPECT_EQ(old.outcome, Outcome::kErrors);
  const Diagnostic* gate = Find(old, "edgetpu.package.runtime_too_new");
  ASSERT_NE(gate, nullptr) << ::testing::PrintToString(RulesOf(old));
  EXPECT_NE(gate->message.find("edgetpu_compiler -m 13"), std::string::npos) << gate->message;
  const Result bad = Validate(base.files[0].bytes, {.edgetpu_runtime = 9});
  EXPECT_EQ(bad.outcome, Outcome::kUsage);
  EXPECT_NE(bad.usage_error.find("Options::edgetpu_runtime is 9"), std::string::npos)
      << bad.usage_error;
}

// The files a base names and its companions, as the interface takes them.
std::vector<File> CompanionsOf(const conformance::Base& base) {
  std::vector<File> files;
  for (size_t i = 1; i < base.files.size(); ++i)
    files.push_back({base.files[i].name, base.files[i].bytes});
  for (const conformance::NamedFile& companion : base.companions)
    files.push_back({companion.name, companion.bytes});
  return files;
}

// Every valid input of the conformance suite, with the files it names and its
// companions given in memory, conforms, and no check waits for a companion.
TEST(Api, EveryValidBaseConformsWithItsCompanionsInMemory) {
  int bases = 0;
  for (const conformance::Provider* provider : accelcheck::Providers()) {
    for (const conformance::Base& base : provider->Bases()) {
      ++bases;
      const Result result = Validate(base.files.front().bytes, {.name = base.files.front().name,
                                                                .companions = CompanionsOf(base)});
      EXPECT_EQ(result.format, provider->format()) << base.id;
      EXPECT_EQ(result.outcome, Outcome::kConforms)
          << base.id << ": " << ::testing::PrintToString(RulesOf(result));
      if (base.companions.empty()) continue;
      // Given in memory, the companions were read: no check was left undone for want of them.
      for (const std::string& rule : RulesOf(result)) {
        EXPECT_EQ(rule.find(".unchecked"), std::string::npos) << base.id << ": " << rule;
      }
    }
  }
  EXPECT_GT(bases, 3);
}

TEST(Api, TensilModelReadsItsFilesFromTheCompanions) {
  const auto files = std::get<std::vector<conformance::NamedFile>>(
      tensil::conformance::SerializeBundle(tensil::conformance::TinyBundle(), "tiny"));
  ASSERT_EQ(files.size(), 3u);
  const std::vector<File> named = {{files[1].name, files[1].bytes},
                                   {files[2].name, files[2].bytes}};
  const Result result = Validate(files[0].bytes, {.name = files[0].name, .companions = named});
  EXPECT_EQ(result.format, "tensil");
  EXPECT_EQ(result.outcome, Outcome::kConforms) << ::testing::PrintToString(RulesOf(result));

  // Without them nothing is read from disk, even under a name beside which
  // the files could be.
  const Result alone = Validate(files[0].bytes, {.name = files[0].name});
  EXPECT_EQ(alone.outcome, Outcome::kErrors);
  const Diagnostic* missing = Find(alone, "tensil.model.file_missing");
  ASSERT_NE(missing, nullptr) << ::testing::PrintToString(RulesOf(alone));
  EXPECT_NE(missing->message.find("no file of that name was given"), std::string::npos)
      << missing->message;
}

// A companion's own problems are located in it, with its line and column.
TEST(Api, TarchCompanionProblemsAreLocatedInIt) {
  const auto files = std::get<std::vector<conformance::NamedFile>>(
      tensil::conformance::SerializeBundle(tensil::conformance::TinyBundle(), "tiny"));
  nlohmann::json arch = tensil::conformance::TinyBundle().model["arch"];
  arch["array_size"] = "two";
  const std::vector<uint8_t> tarch = Text(arch.dump(1));
  const Result result = Validate(files[0].bytes, {.name = files[0].name,
                                                  .companions = {{files[1].name, files[1].bytes},
                                                                 {files[2].name, files[2].bytes},
                                                                 {"tiny.tarch", tarch}}});
  EXPECT_EQ(result.outcome, Outcome::kErrors);
  const auto in_tarch = std::find_if(result.diagnostics.begin(), result.diagnostics.end(),
                                     [](const Diagnostic& d) { return d.member == "tiny.tarch"; });
  ASSERT_NE(in_tarch, result.diagnostics.end()) << ::testing::PrintToString(RulesOf(result));
  const std::string text(tarch.begin(), tarch.end());
  ASSERT_TRUE(in_tarch->offset.has_value());
  EXPECT_EQ(text.substr(*in_tarch->offset, 5), "\"two\"");
  EXPECT_GT(in_tarch->line, 1u);
  EXPECT_GT(in_tarch->column, 1u);
}

TEST(Api, CompanionOfAnotherKindIsReportedUnused) {
  const std::vector<uint8_t> frontend = Text(R"({"conv1": {}})");
  const Result result = Validate(SmallProgram(), {.companions = {{"frontend.json", frontend}}});
  EXPECT_EQ(result.outcome, Outcome::kErrors);
  const Diagnostic* unused = Find(result, "core.companion.unused");
  ASSERT_NE(unused, nullptr) << ::testing::PrintToString(RulesOf(result));
  EXPECT_EQ(unused->member, "frontend.json");
}

TEST(Api, ListsTheFormatsAndTheVersion) {
  EXPECT_EQ(FormatIds(), (std::vector<std::string>{"pte", "edgetpu", "tensil", "gemini", "neff"}));
  EXPECT_EQ(Version(), kToolVersion);
}

}  // namespace
}  // namespace accelcheck::api
