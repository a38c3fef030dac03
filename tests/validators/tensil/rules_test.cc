// One negative test per rule: the tiny valid model, the rule's change from
// the mutation table (conformance/tensil/mutations.cc), and the rule id and
// object path it must give. The base itself reports nothing.
#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

#include "tests/validators/tensil/fixture.h"
#include "validators/core/core_rules.h"
#include "validators/tensil/rules.h"

namespace accelcheck::tensil {
namespace {

using conformance::Bundle;
using fixture::Case;
using fixture::Describe;
using fixture::ValidateCase;

struct Expected {
  const Rule* rule;
  std::string path;
};

// The tiny program has eight instructions: an appended one is prog[8].
const char kAppended[] = "prog[8]";

std::vector<Expected> ExpectedLocations() {
  using namespace rules;
  return {
      {&kJsonSyntax, "/prog"},
      {&kArchMismatch, "/arch/local_depth"},
      {&kKeyMissing, ""},
      {&kKeyType, "/inputs/0/base"},
      {&kUnknownKey, "/extra"},
      {&kLegacySchema, ""},
      {&kArchPositive, "/arch/local_depth"},
      {&kArchDataType, "/arch/data_type"},
      {&kArchThreads, "/arch/number_of_threads"},
      {&kArchHeaderWidth, "/arch/number_of_threads"},
      {&kArchOperandWidth, "/arch"},
      {&kArchFloat32, "/arch/data_type"},
      {&kArchArraySizeRange, "/arch/array_size"},
      {&kArchDepthRange, "/arch/local_depth"},
      {&kModelFileMissing, "/prog/file_name"},
      {&kModelProgSize, "/prog/size"},
      {&kModelProgEmpty, "/prog/size"},
      {&kModelProgMultiple, "/prog/size"},
      {&kModelConstsEmpty, "/consts"},
      {&kModelConstsSize, "/consts/0/size"},
      {&kModelConstsCount, "/consts"},
      {&kModelConstsBase, "/consts/0/base"},
      {&kModelConstsRange, "/consts/0"},
      {&kModelIoEmpty, "/inputs"},
      {&kModelIoName, "/inputs/0/name"},
      {&kModelIoFileName, "/outputs/0/name"},
      {&kModelIoSize, "/outputs/0/size"},
      {&kModelIoRange, "/outputs/0"},
      {&kModelIoCount, "/inputs"},
      {&kModelIoOverlap, "/inputs/1"},
      {&kModelIoOrder, "/inputs/1/base"},
      {&kModelProbeRows, kAppended},
      {&kTdataSize, "/consts/0"},
      {&kTdataFp18Padding, "/consts/0"},
      {&kTdataNonFinite, "/consts/0"},
      {&kProgTruncated, "prog"},
      {&kInstrTid, kAppended},
      {&kInstrOpcode, kAppended},
      {&kInstrFlags, kAppended},
      {&kInstrPadding, kAppended},
      {&kInstrStride, kAppended},
      {&kInstrLocalRange, kAppended},
      {&kInstrOtherRange, kAppended},
      {&kInstrSize, kAppended},
      {&kInstrZeroesOperand, kAppended},
      {&kLoadWeightsRows, kAppended},
      {&kLoadWeightsOversize, kAppended},
      {&kLoadWeightsOperand2, kAppended},
      {&kSimdAccRange, kAppended},
      {&kSimdStride, kAppended},
      {&kSimdRegister, kAppended},
      {&kSimdUnusedAddress, kAppended},
      {&kSimdReadWithoutInput, kAppended},
      {&kSimdWriteDest, kAppended},
      {&rules::kSimdAccumulate, kAppended},
      {&kSimdInputWithoutRead, kAppended},
      {&kSimdZeroSources, kAppended},
      {&kSimdDead, kAppended},
      {&kSimdOpUnemulated, kAppended},
      {&kWaitOperands, kAppended},
      {&kFlowUninitialized, kAppended},
      {&kFlowOutputUnwritten, "/outputs/1"},
      {&kFlowResetWeights, "prog[2]"},
      {&kFlowAccumulateUnwritten, "prog[3]"},
  };
}

DiagnosticSink ValidateBundle(const Bundle& bundle) {
  std::string error;
  const auto written = conformance::WriteBundle(bundle, fixture::TempDir(), "case", &error);
  if (!written) throw std::runtime_error(error);
  return conformance::ValidateWritten(*written, Profile{});
}

bool Reports(const DiagnosticSink& sink, const Rule& rule, const std::string& path) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == &rule && d.location.path == path) return true;
  }
  return false;
}

TEST(TensilRules, BaseReportsNothing) {
  const DiagnosticSink sink = ValidateBundle(conformance::TinyBundle());
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
}

TEST(TensilRules, EachChangeGivesItsRuleAtItsPath) {
  for (const Expected& expected : ExpectedLocations()) {
    Bundle bundle = conformance::TinyBundle();
    const auto path = conformance::ApplyChange(*expected.rule, bundle);
    ASSERT_TRUE(std::holds_alternative<std::string>(path)) << expected.rule->id;
    const DiagnosticSink sink = ValidateBundle(bundle);
    EXPECT_TRUE(Reports(sink, *expected.rule, expected.path))
        << "expected " << expected.rule->id << " at " << expected.path << ", got:\n"
        << Describe(sink);
  }
}

// Every rule in the table has a negative case above.
TEST(TensilRules, EveryRuleHasANegativeCase) {
  std::set<std::string_view> covered;
  for (const Expected& expected : ExpectedLocations()) covered.insert(expected.rule->id);
  for (const Rule* rule : AllRules()) EXPECT_TRUE(covered.count(rule->id)) << rule->id;
}

// A negative size is the wrong type of value too, not only a string.
TEST(TensilRules, NegativeSizeIsAKeyType) {
  Bundle bundle = conformance::TinyBundle();
  bundle.model["outputs"][0]["size"] = -1;
  EXPECT_TRUE(Reports(ValidateBundle(bundle), rules::kKeyType, "/outputs/0/size"));
}

// An input placed on the probe rows, not only an instruction that moves
// them, breaks the probe-row rule.
TEST(TensilRules, InputOnTheProbeRows) {
  Bundle bundle = conformance::TinyBundle();
  bundle.model["inputs"][0]["base"] = 254;
  bundle.program[1] = "DataMove dram0->local local=3 dram0=254 size=0";
  EXPECT_TRUE(Reports(ValidateBundle(bundle), rules::kModelProbeRows, "/inputs/0"));
}

// Instruction diagnostics carry the instruction's byte range in the .tprog.
TEST(TensilRules, InstructionLocationsAreByteRanges) {
  Bundle bundle = conformance::TinyBundle();
  bundle.program.push_back(".bytes 00 00 00 00 00 50");
  const DiagnosticSink sink = ValidateBundle(bundle);
  ASSERT_FALSE(sink.diagnostics().empty());
  const Location& where = sink.diagnostics().front().location;
  EXPECT_EQ(where.offset, 8u * 6);
  EXPECT_EQ(where.length, 6u);
  EXPECT_EQ(where.member, "case.tprog");  // the offset counts in the program file
}

DiagnosticSink ValidateText(const std::string& text) {
  DiagnosticSink sink(Profile{}, "bad.tmodel");
  TensilFormat().Validate(InputBuffer::Copy(AsBytes(text)), ValidateContext{}, sink);
  return sink;
}

TEST(TensilRules, JsonSyntax) {
  for (const std::string text : {"{", "[1]", "{\"name\": tru}"}) {
    const DiagnosticSink sink = ValidateText(text);
    EXPECT_TRUE(sink.Has(rules::kJsonSyntax)) << text << "\n" << Describe(sink);
  }
}

// Nesting is bounded by --max-depth like every other format's: the
// top-level object and max_depth - 1 lists pass, one more list is the limit.
std::string NestedManifest(uint64_t lists) {
  return "{\"name\": " + std::string(lists, '[') + std::string(lists, ']') + "}";
}

TEST(TensilRules, NestingAtTheDepthLimitPasses) {
  const DiagnosticSink sink = ValidateText(NestedManifest(Limits{}.max_depth - 1));
  EXPECT_FALSE(sink.Has(core_rules::kLimitDepth)) << Describe(sink);
  EXPECT_FALSE(sink.Has(rules::kJsonSyntax)) << Describe(sink);
}

TEST(TensilRules, NestingBeyondTheDepthLimitIsALimit) {
  const DiagnosticSink sink = ValidateText(NestedManifest(Limits{}.max_depth));
  EXPECT_TRUE(sink.Has(core_rules::kLimitDepth)) << Describe(sink);
  EXPECT_FALSE(sink.Has(rules::kJsonSyntax)) << Describe(sink);
}

// JSON values are reported at their byte offset with their JSON pointer.
TEST(TensilRules, ManifestDiagnosticsHaveByteOffsets) {
  Bundle bundle = conformance::TinyBundle();
  bundle.model["inputs"][0]["base"] = "0";
  const DiagnosticSink sink = ValidateBundle(bundle);
  ASSERT_TRUE(Reports(sink, rules::kKeyType, "/inputs/0/base")) << Describe(sink);
  for (const Diagnostic& d : sink.diagnostics()) EXPECT_TRUE(d.location.offset) << d.message;
}

TEST(TensilRules, ArchMismatchWithNamedTarch) {
  auto arch = fixture::TinyArch();
  arch["local_depth"] = 512;
  const auto path = fixture::TempDir() / "other.tarch";
  fixture::WriteFile(path, arch.dump());
  Case c;
  c.companions = {path.string()};
  const auto result = ValidateCase(c);
  EXPECT_TRUE(result.sink.Has(rules::kArchMismatch)) << Describe(result.sink);
  ASSERT_FALSE(result.sink.diagnostics().empty());
  EXPECT_EQ(result.sink.diagnostics().front().location.path, "/arch/local_depth");

  fixture::WriteFile(path, fixture::TinyArch().dump());
  EXPECT_TRUE(ValidateCase(c).sink.diagnostics().empty());
}

// The warnings are errors under --strict, and the legacy schema is one.
TEST(TensilRules, LegacySchemaIsAnErrorUnderStrict) {
  Case c;
  c.model["prog"].erase("size");
  c.arch().erase("number_of_threads");
  c.arch().erase("thread_queue_depth");
  c.model.erase("load_consts_to_local");
  const auto lenient = ValidateCase(c);
  EXPECT_EQ(lenient.sink.error_count(), 0u) << Describe(lenient.sink);
  EXPECT_TRUE(lenient.sink.Has(rules::kLegacySchema));
  const auto strict = ValidateCase(c, Profile{.strict = true});
  EXPECT_GT(strict.sink.error_count(), 0u);
}

TEST(TensilRules, StandaloneProgramNeedsItsArchitecture) {
  const auto bytes = fixture::AssembleFor(fixture::TinyArch(), fixture::BaseProgram());
  const InputBuffer input = InputBuffer::Copy(bytes);
  DiagnosticSink without(Profile{}, "tiny.tprog");
  TensilFormat().Validate(input, ValidateContext{}, without);
  EXPECT_TRUE(without.Has(rules::kModelFileMissing));

  const auto path = fixture::TempDir() / "tiny.tarch";
  fixture::WriteFile(path, fixture::TinyArch().dump());
  ValidateContext context;
  context.companions = {path.string()};
  DiagnosticSink with(Profile{}, "tiny.tprog");
  TensilFormat().Validate(input, context, with);
  EXPECT_TRUE(with.diagnostics().empty()) << Describe(with);
}

// A model held in memory has no directory: the files it names are missing
// even when the working directory has them.
TEST(TensilRules, ModelWithoutPathFindsNoFileInTheWorkingDirectory) {
  const auto dir = fixture::TempDir();
  const auto program = fixture::AssembleFor(fixture::TinyArch(), fixture::BaseProgram());
  fixture::WriteFile(dir / "tiny.tprog", std::string(program.begin(), program.end()));
  const std::vector<uint8_t> tdata = conformance::TinyBundle().tdata;
  fixture::WriteFile(dir / "tiny.tdata", std::string(tdata.begin(), tdata.end()));
  const auto previous = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  DiagnosticSink sink(Profile{}, "<memory>");
  const std::string text = conformance::TinyBundle().model.dump();
  TensilFormat().Validate(InputBuffer::Copy(AsBytes(text)), ValidateContext{}, sink);
  std::filesystem::current_path(previous);
  EXPECT_TRUE(sink.Has(rules::kModelFileMissing)) << Describe(sink);
}

TEST(TensilRules, DetectsOnlyTensilJson) {
  const std::string tarch = fixture::TinyArch().dump();
  const std::string other = R"({"graph": {"nodes": []}, "array_size": 2})";
  const auto view = [](const std::string& s) { return AsBytes(s); };
  EXPECT_TRUE(TensilFormat().Detect(view(tarch)));
  EXPECT_FALSE(TensilFormat().Detect(view(other)));
  EXPECT_FALSE(TensilFormat().Detect(view("ET12")));
}

}  // namespace
}  // namespace accelcheck::tensil
