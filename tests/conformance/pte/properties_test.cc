// Properties of the builder, the mutator and the validator together, over
// random programs built with the recipe API.
#include <random>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "conformance/pte/mutate.h"
#include "conformance/pte/read.h"
#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "validators/core/format.h"
#include "validators/pte/pte_format.h"

namespace accelcheck::pte {
namespace {

// A random valid program: plans with planned inputs, constants (in the
// segment or, for some programs, in constant_buffer), values of every type,
// KernelCalls that read what earlier ones wrote, delegates with INLINE and
// SEGMENT payloads, JumpFalse, Move and Free, mutable state and named data.
model::File RandomProgram(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  ProgramRecipe r;
  const ConstantPlace place = pick(4) == 0 ? ConstantPlace::kInlineBuffer : ConstantPlace::kSegment;
  const int plans = 1 + pick(3);
  for (int pi = 0; pi < plans; ++pi) {
    PlanRecipe& p = r.AddPlan(pi == 0 ? "forward" : "method" + std::to_string(pi));
    const int dim = 1 + pick(4);
    std::vector<int> readable;
    for (int i = 0, n = 1 + pick(2); i < n; ++i) {
      readable.push_back(p.AddPlannedTensor(model::kFloat, {dim}));
      p.AddInput(readable.back());
    }
    for (int i = 0, n = pick(3); i < n; ++i) {
      readable.push_back(
          p.AddConstantTensor(model::kFloat, {dim}, std::vector<uint8_t>(4 * dim, 1), place));
    }
    if (pi == 0 && pick(3) == 0) readable.push_back(p.AddMutableTensor(model::kFloat, {dim}, {}));
    const int none = p.AddNull();
    const int scalar = pick(2) ? p.AddInt(pick(5)) : p.AddDouble(0.5);
    p.AddBool(pick(2));
    p.AddString("s" + std::to_string(pick(9)));
    const int ints = p.AddIntList({pick(4), pick(4)});
    p.AddDoubleList({0.25, 4.0});
    p.AddBoolList({true, false});
    const int list = p.AddTensorList({readable[0]});
    p.AddOptionalTensorList({readable[0], -1, none});
    int last = readable[0];
    for (int k = 0, n = 1 + pick(3); k < n; ++k) {
      const int op = p.AddOperator("conformance::op" + std::to_string(k), "out");
      const int out = p.AddPlannedTensor(model::kFloat, {dim});
      const int in = readable[static_cast<size_t>(pick(static_cast<int>(readable.size())))];
      switch (pick(3)) {
        case 0:
          p.KernelCall(op, {in, scalar, out});
          break;
        case 1:
          p.KernelCall(op, {in, ints, list, out});
          break;
        default:
          p.KernelCall(op, {in, last, out});
          break;
      }
      readable.push_back(out);
      last = out;
    }
    if (pick(2)) {
      const int cond = p.AddPlannedTensor(model::kBool, {1});
      p.AddInput(cond);
      p.JumpFalse(cond, p.instruction_count() + 2);
      const int moved = p.AddPlannedTensor(model::kFloat, {dim});
      p.Move(last, moved);
      last = moved;
    }
    if (pick(2)) {
      const int out = p.AddUnplannedTensor(model::kFloat, {dim});
      const int d =
          p.AddDelegate("RandomBackend", std::vector<uint8_t>(16 + pick(40), 7),
                        pick(2) ? DelegatePlace::kInline : DelegatePlace::kSegment, {{"k", "v"}});
      p.DelegateCall(d, {last, out});
      last = out;
    }
    if (pick(3) == 0) p.Free(p.AddUnplannedTensor(model::kFloat, {dim}, 2));
    p.AddOutput(last);
  }
  if (pick(3) == 0) r.AddNamedData("blob", std::vector<uint8_t>(8 + pick(30), 3));
  return r.Build();
}

DiagnosticSink Validate(const std::vector<uint8_t>& bytes, bool strict) {
  DiagnosticSink sink(Profile{strict, false, 0}, "random.pte");
  const InputBuffer input = InputBuffer::Copy(bytes);
  pte::PteFormat().Validate(input, ValidateContext{}, sink);
  return sink;
}

std::string Describe(const DiagnosticSink& sink) {
  std::string out;
  for (const Diagnostic& d : sink.diagnostics())
    out += std::string(d.rule->id) + " " + d.location.path + ": " + d.message + "\n";
  return out;
}

// (a) Every program the builder makes validates without errors.
RC_GTEST_PROP(PteProperties, BuiltProgramsAreValid, (uint32_t seed)) {
  const DiagnosticSink sink = Validate(Serialize(RandomProgram(seed)), false);
  RC_LOG() << Describe(sink);
  RC_ASSERT(sink.error_count() == 0u);
}

// (b) One mutation gives exactly its rule among the errors under --strict
// (plus the rules that necessarily break with it).
RC_GTEST_PROP(PteProperties, OneMutationOneRule,
              (uint32_t seed, uint32_t rule_pick, uint8_t mutation_seed)) {
  const auto& cases = PteConformance().Cases();
  const conformance::MutationCase& mutation = cases[rule_pick % cases.size()];
  const Rule& rule = *mutation.rule;
  const auto mutated = MutatePte(Serialize(RandomProgram(seed)), rule, mutation_seed);
  const auto* result = std::get_if<ByteMutation>(&mutated);
  if (result == nullptr) return;  // this program offers no place for the rule
  RC_TAG(std::string(rule.id));
  const DiagnosticSink sink = Validate(result->bytes, true);
  RC_LOG() << rule.id << " at " << result->path << "\n" << Describe(sink);
  std::vector<std::string> allowed = {std::string(rule.id)};
  for (const Rule* r : mutation.also) allowed.push_back(std::string(r->id));
  bool reported = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule->id == rule.id) reported = true;
    if (d.severity == Severity::kError) {
      RC_ASSERT_FALSE(std::find(allowed.begin(), allowed.end(), d.rule->id) == allowed.end());
    }
  }
  RC_ASSERT(reported);
}

// (c) Every truncation is reported and nothing crashes.
RC_GTEST_PROP(PteProperties, TruncationIsReported, (uint32_t seed, uint32_t cut)) {
  const std::vector<uint8_t> bytes = Serialize(RandomProgram(seed));
  const std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + cut % bytes.size());
  RC_ASSERT(!Validate(truncated, false).diagnostics().empty());
}

// (d) Decode, write and inspect: the inspect JSON of Serialize(ReadFile(x))
// equals that of x. The builder writes the writer's layout, so byte offsets
// are the same too; this is stability in the strict sense.
RC_GTEST_PROP(PteProperties, InspectIsStableUnderRoundTrip, (uint32_t seed)) {
  const std::vector<uint8_t> bytes = Serialize(RandomProgram(seed));
  std::string error;
  const auto model = ReadFile(bytes, &error);
  RC_ASSERT(model.has_value());
  const std::vector<uint8_t> again = Serialize(*model);
  DiagnosticSink a(Profile{}, "a"), b(Profile{}, "b");
  const auto ja = pte::PteFormat().Inspect(InputBuffer::Copy(bytes), ValidateContext{}, a);
  const auto jb = pte::PteFormat().Inspect(InputBuffer::Copy(again), ValidateContext{}, b);
  RC_ASSERT(ja == jb);
}

TEST(PteProperties, RandomProgramsDiffer) {
  EXPECT_NE(Serialize(RandomProgram(1)), Serialize(RandomProgram(2)));
}

}  // namespace
}  // namespace accelcheck::pte
