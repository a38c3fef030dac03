// The .ptd half of the builder, reader and mutator, and the rules that hold
// between a .pte and its companion .ptd: unit tests on the example base and
// the corpus, and properties over random named-data files.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "conformance/pte/bases.h"
#include "conformance/pte/mutate.h"
#include "conformance/pte/read.h"
#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "tests/support/temp.h"
#include "validators/core/format.h"
#include "validators/pte/pte_format.h"
#include "validators/pte/rules.h"

namespace accelcheck::pte {
namespace {

namespace fs = std::filesystem;
using conformance::ReasonOf;
using Bytes = std::vector<uint8_t>;

Bytes Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string WriteTemp(const std::string& name, const Bytes& bytes) {
  const fs::path path = test::ProcessTempPath(name);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

// Validates under --strict, with `companion` (a .ptd path) when given.
DiagnosticSink Validate(const Bytes& bytes, const std::string& companion = "") {
  DiagnosticSink sink(Profile{true, false, 0}, "test");
  ValidateContext context;
  if (!companion.empty()) context.companions.push_back(companion);
  pte::PteFormat().Validate(InputBuffer::Copy(bytes), context, sink);
  return sink;
}

std::string Describe(const DiagnosticSink& sink) {
  std::string out;
  for (const Diagnostic& d : sink.diagnostics()) {
    out += std::string(d.rule->id) + " " + d.location.path + ": " + d.message + "\n";
  }
  return out.empty() ? "no diagnostics" : out;
}

bool PathWithin(const std::string& reported, const std::string& expected) {
  return reported.compare(0, expected.size(), expected) == 0 &&
         (reported.size() == expected.size() || reported[expected.size()] == '.' ||
          reported[expected.size()] == '[');
}

// The rule is reported at (or inside) `path`, and no other rule is an error.
::testing::AssertionResult OnlyRule(const DiagnosticSink& sink, const Rule& rule,
                                    const std::string& path) {
  bool reported = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule->id == rule.id && PathWithin(d.location.path, path)) reported = true;
    if (d.severity == Severity::kError && d.rule->id != rule.id) {
      return ::testing::AssertionFailure() << "also " << d.rule->id << ":\n" << Describe(sink);
    }
  }
  if (reported) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no " << rule.id << " at \"" << path << "\":\n"
                                       << Describe(sink);
}

// The example program with EXTERNAL tensors, and its .ptd.
struct Pair {
  Bytes program;
  Bytes data;
};
Pair ExternalExample() {
  for (const NamedBase& base : ExampleBases()) {
    if (base.data) return {Serialize(base.file), SerializePtd(*base.data)};
  }
  ADD_FAILURE() << "no example recipe has EXTERNAL tensors";
  return {};
}

std::vector<const Rule*> PtdRules() {
  std::vector<const Rule*> out;
  for (const conformance::MutationCase& c : PteConformance().Cases()) {
    if (std::string_view(c.rule->id).substr(0, 8) == "pte.ptd.") out.push_back(c.rule);
  }
  return out;
}

TEST(PtdBuilder, ExternalExampleIsValidAloneAndTogether) {
  const Pair pair = ExternalExample();
  const std::string ptd = WriteTemp("example.ptd", pair.data);
  EXPECT_EQ(Validate(pair.data).error_count(), 0u) << Describe(Validate(pair.data));
  EXPECT_EQ(Validate(pair.program).error_count(), 0u);
  const DiagnosticSink together = Validate(pair.program, ptd);
  EXPECT_EQ(together.error_count(), 0u) << Describe(together);
}

TEST(PtdBuilder, ExternalTensorsNeedUniqueKeys) {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  p.AddExternalTensor(model::kFloat, {2}, "w", {});
  EXPECT_THROW(p.AddExternalTensor(model::kFloat, {2}, "w", {}), std::invalid_argument);
  EXPECT_THROW(p.AddExternalTensor(model::kFloat, {2}, "", {}), std::invalid_argument);
}

TEST(PtdBuilder, NoExternalTensorsNoPtd) {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  p.AddOutput(p.AddInt(1));
  EXPECT_FALSE(r.BuildPtd().has_value());
}

TEST(ReadPtdFile, ExampleRoundTripsToTheSameBytes) {
  const Bytes bytes = ExternalExample().data;
  std::string error;
  const auto file = ReadPtdFile(bytes, &error);
  ASSERT_TRUE(file) << error;
  EXPECT_EQ(file->named_data->size(), 2u);
  EXPECT_EQ(SerializePtd(*file), bytes);
}

TEST(ReadPtdFile, RefusesTheOldLayoutAndOtherBytes) {
  model::OldPtdFile old;
  old.tensors->push_back(
      model::OldTensorMetadata{std::string("w"), model::kFloat, {{2}}, {{0}}, 0, 0});
  old.segments->push_back(model::DataSegment{0, 8});
  old.segment_bytes.push_back(Bytes(8, 1));
  std::string error;
  EXPECT_FALSE(ReadPtdFile(SerializeOldPtd(old), &error));
  EXPECT_NE(error.find("before 2025-06"), std::string::npos) << error;
  EXPECT_FALSE(ReadPtdFile(ExternalExample().program, &error));
  EXPECT_FALSE(ReadPtdFile(Bytes(100, 0), &error));
  Bytes truncated = ExternalExample().data;
  truncated.resize(60);
  EXPECT_FALSE(ReadPtdFile(truncated, &error));
}

TEST(ReadPtdFile, Corpus) {
  const fs::path dir = fs::path(ACCELCHECK_CORPUS_DIR) / "pte";
  const fs::path current = dir / "executorch-rs__data_map__default_external_constant.ptd";
  const fs::path old = dir / "executorch__module_linear.ptd";
  if (!fs::exists(current) || !fs::exists(old))
    GTEST_SKIP() << "no .ptd corpus in " << dir << "; skipped";
  std::string error;
  const auto file = ReadPtdFile(Slurp(current), &error);
  ASSERT_TRUE(file) << error;
  ASSERT_EQ(file->named_data->size(), 2u);
  EXPECT_EQ(*(*file->named_data)[1].key, "b");
  EXPECT_EQ(*(*file->named_data)[1].tensor_layout->sizes, (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(file->segment_bytes[1].size(), 16u);
  // Python's flatbuffers builder orders the table differently, so compare
  // a second round trip with the first rather than with the real bytes.
  const Bytes written = SerializePtd(*file);
  const auto again = ReadPtdFile(written, &error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(SerializePtd(*again), written);
  EXPECT_FALSE(ReadPtdFile(Slurp(old), &error));
}

// The old-layout writer makes what the real pre-2025-06 file is taken for.
TEST(PtdMutations, OldLayoutIsRecognisedLikeTheRealFile) {
  const fs::path old = fs::path(ACCELCHECK_CORPUS_DIR) / "pte" / "executorch__module_linear.ptd";
  if (!fs::exists(old)) GTEST_SKIP() << "no " << old << "; skipped";
  const auto mutated = MutatePte(ExternalExample().data, rules::kPtdOldLayout, 0);
  const auto* result = std::get_if<ByteMutation>(&mutated);
  ASSERT_NE(result, nullptr) << ReasonOf(mutated);
  EXPECT_TRUE(OnlyRule(Validate(result->bytes), rules::kPtdOldLayout, result->path));
  EXPECT_TRUE(OnlyRule(Validate(Slurp(old)), rules::kPtdOldLayout, ""));
}

// Every .ptd mutation, at several seeds, gives exactly its rule on the
// example .ptd and on the real current-layout one.
TEST(PtdMutations, EachBreaksOnlyItsRule) {
  std::vector<std::pair<std::string, Bytes>> inputs = {{"example", ExternalExample().data}};
  const fs::path real = fs::path(ACCELCHECK_CORPUS_DIR) / "pte" /
                        "executorch-rs__data_map__default_external_constant.ptd";
  if (fs::exists(real)) inputs.emplace_back(real.filename().string(), Slurp(real));
  ASSERT_EQ(PtdRules().size(), 11u);
  for (const auto& [name, bytes] : inputs) {
    for (const Rule* rule : PtdRules()) {
      for (uint64_t seed = 0; seed < 6; ++seed) {
        const auto mutated = MutatePte(bytes, *rule, seed);
        const auto* result = std::get_if<ByteMutation>(&mutated);
        ASSERT_NE(result, nullptr) << name << " " << rule->id << ": " << ReasonOf(mutated);
        EXPECT_TRUE(OnlyRule(Validate(result->bytes), *rule, result->path))
            << name << " " << rule->id << " seed " << seed;
      }
    }
  }
}

TEST(PtdMutations, KindsDoNotMix) {
  const Pair pair = ExternalExample();
  std::string error = ReasonOf(MutatePte(pair.program, rules::kPtdKey, 0));
  EXPECT_NE(error.find("not a .ptd"), std::string::npos) << error;
  error = ReasonOf(MutatePte(pair.data, rules::kSegmentBounds, 0));
  EXPECT_NE(error.find("is a .ptd"), std::string::npos) << error;
}

// The companion rules: the mutated program is clean alone and breaks only
// its rule with its .ptd, on the example pair and on the real one.
TEST(CompanionMutations, ReportedOnlyWithTheCompanion) {
  std::vector<std::pair<std::string, Pair>> pairs = {{"example", ExternalExample()}};
  const fs::path dir = fs::path(ACCELCHECK_CORPUS_DIR) / "pte";
  if (fs::exists(dir / "executorch-rs__data_map_model.pte")) {
    pairs.push_back({"executorch-rs",
                     {Slurp(dir / "executorch-rs__data_map_model.pte"),
                      Slurp(dir / "executorch-rs__data_map__default_external_constant.ptd")}});
  }
  for (const auto& [name, pair] : pairs) {
    const std::string ptd = WriteTemp(name + "-companion.ptd", pair.data);
    for (const Rule* rule : {&rules::kExternalKeyMissing, &rules::kExternalLayout}) {
      ASSERT_TRUE(PteConformance().FindCase(rule->id)->needs_companions);
      for (uint64_t seed = 0; seed < 3; ++seed) {
        const auto mutated = MutatePte(pair.program, *rule, seed);
        const auto* result = std::get_if<ByteMutation>(&mutated);
        ASSERT_NE(result, nullptr) << name << " " << rule->id << ": " << ReasonOf(mutated);
        EXPECT_EQ(Validate(result->bytes).error_count(), 0u) << name << " " << rule->id << " alone";
        EXPECT_TRUE(OnlyRule(Validate(result->bytes, ptd), *rule, result->path))
            << name << " " << rule->id;
      }
    }
  }
}

TEST(CompanionMutations, DeclineWithoutExternalTensors) {
  const Bytes add = Serialize(ExampleBases()[0].file);
  const std::string error = ReasonOf(MutatePte(add, rules::kExternalKeyMissing, 0));
  EXPECT_NE(error.find("no EXTERNAL tensor"), std::string::npos) << error;
}

// ---------------------------------------------------------------------------
// Properties over random programs with EXTERNAL tensors and their .ptd.

struct RandomPair {
  model::File program;
  model::PtdFile data;
};

// One to four EXTERNAL tensors of random dtype and shape (rank 0 to 3, sizes
// 0 to 4, so some hold no bytes), read by KernelCalls into planned tensors.
RandomPair RandomExternalProgram(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  static const int8_t kDtypes[] = {model::kByte, model::kShort, model::kInt,
                                   model::kLong, model::kFloat, model::kDouble};
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  const int x = p.AddPlannedTensor(model::kFloat, {2});
  p.AddInput(x);
  const int op = p.AddOperator("conformance::use", "out");
  int last = x;
  for (int i = 0, n = 1 + pick(4); i < n; ++i) {
    std::vector<int32_t> sizes;
    for (int d = 0, rank = pick(4); d < rank; ++d) sizes.push_back(pick(5));
    const int e = p.AddExternalTensor(kDtypes[pick(6)], sizes, "w" + std::to_string(i),
                                      Bytes(static_cast<size_t>(pick(9)), 7));
    const int out = p.AddPlannedTensor(model::kFloat, {2});
    p.KernelCall(op, {last, e, out});
    last = out;
  }
  p.AddOutput(last);
  return {r.Build(), *r.BuildPtd()};
}

RC_GTEST_PROP(PtdProperties, BuiltPairsAreValidAndRoundTrip, (uint32_t seed)) {
  const RandomPair pair = RandomExternalProgram(seed);
  const Bytes data = SerializePtd(pair.data);
  const DiagnosticSink alone = Validate(data);
  RC_LOG() << Describe(alone);
  RC_ASSERT(alone.diagnostics().empty());
  const DiagnosticSink together =
      Validate(Serialize(pair.program), WriteTemp("random-pair.ptd", data));
  RC_LOG() << Describe(together);
  RC_ASSERT(together.error_count() == 0u);
  std::string error;
  const auto back = ReadPtdFile(data, &error);
  RC_ASSERT(back.has_value());
  RC_ASSERT(SerializePtd(*back) == data);
}

RC_GTEST_PROP(PtdProperties, OneMutationOneRule,
              (uint32_t seed, uint32_t rule_pick, uint8_t mutation_seed)) {
  const std::vector<const Rule*> rules = PtdRules();
  const Rule& rule = *rules[rule_pick % rules.size()];
  RC_TAG(std::string(rule.id));
  const auto mutated =
      MutatePte(SerializePtd(RandomExternalProgram(seed).data), rule, mutation_seed);
  RC_LOG() << ReasonOf(mutated);
  const auto* result = std::get_if<ByteMutation>(&mutated);
  RC_ASSERT(result != nullptr);
  RC_ASSERT(OnlyRule(Validate(result->bytes), rule, result->path));
}

RC_GTEST_PROP(PtdProperties, CompanionMutationOneRule,
              (uint32_t seed, bool layout, uint8_t mutation_seed)) {
  const RandomPair pair = RandomExternalProgram(seed);
  const Rule& rule = layout ? rules::kExternalLayout : rules::kExternalKeyMissing;
  const auto mutated = MutatePte(Serialize(pair.program), rule, mutation_seed);
  RC_LOG() << ReasonOf(mutated);
  const auto* result = std::get_if<ByteMutation>(&mutated);
  RC_ASSERT(result != nullptr);
  const std::string ptd = WriteTemp("random-companion.ptd", SerializePtd(pair.data));
  RC_ASSERT(Validate(result->bytes).error_count() == 0u);
  RC_ASSERT(OnlyRule(Validate(result->bytes, ptd), rule, result->path));
}

// Every truncation of a .ptd is reported, and nothing crashes.
RC_GTEST_PROP(PtdProperties, TruncationIsReported, (uint32_t seed, uint32_t cut)) {
  const Bytes bytes = SerializePtd(RandomExternalProgram(seed).data);
  const Bytes truncated(bytes.begin(), bytes.begin() + cut % bytes.size());
  RC_ASSERT(!Validate(truncated).diagnostics().empty());
}

}  // namespace
}  // namespace accelcheck::pte
