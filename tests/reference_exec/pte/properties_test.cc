// Properties of the two memory modes (docs/ARCHITECTURE.md "Testing":
// planned memory == separate): random chains of elementwise operators run
// identically in both when the plan is the builder's valid one; a plan made
// to put a live tensor on the bytes of a later one is reported by the
// validator and shows up as a difference naming both values.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "tests/reference_exec/pte/exec_support.h"

namespace accelcheck::pte::exec::test {
namespace {

const char* const kOps[] = {"aten::add.out", "aten::sub.out", "aten::mul.out"};

struct Chain {
  std::vector<int> shape;
  std::vector<int> ops;  // index into kOps
  nlohmann::json recipe;
  // t_i = op_i(t_{i-1} (x for i = 0), y); z = t_0 + t_{n-1}: t_0 lives to the end.
  static Chain Make(std::vector<int> shape, std::vector<int> ops) {
    Chain c{std::move(shape), std::move(ops), {}};
    nlohmann::json values = nlohmann::json::array();
    auto tensor = [&](const std::string& name) {
      return nlohmann::json{{"name", name}, {"tensor", {{"dtype", "float"}, {"sizes", c.shape}}}};
    };
    values.push_back(tensor("x"));
    values.push_back(tensor("y"));
    values.push_back({{"name", "alpha"}, {"int", 1}});
    nlohmann::json instructions = nlohmann::json::array();
    for (size_t i = 0; i < c.ops.size(); ++i) {
      const std::string out = "t" + std::to_string(i);
      values.push_back(tensor(out));
      const std::string in = i == 0 ? "x" : "t" + std::to_string(i - 1);
      nlohmann::json args = {in, "y"};
      if (c.ops[i] != 2) args.push_back("alpha");
      args.push_back(out);
      instructions.push_back({{"kernel", kOps[c.ops[i]]}, {"args", args}});
    }
    values.push_back(tensor("z"));
    instructions.push_back(
        {{"kernel", "aten::add.out"},
         {"args", {"t0", "t" + std::to_string(c.ops.size() - 1), "alpha", "z"}}});
    c.recipe = {{"plans",
                 {{{"name", "forward"},
                   {"values", values},
                   {"inputs", {"x", "y"}},
                   {"outputs", {"z"}},
                   {"instructions", instructions}}}}};
    return c;
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int s : shape) n *= s;
    return n;
  }
};

// Inputs in [1.5, 2.5): adding y or multiplying by it always changes a value.
std::vector<HostTensor> InputsFor(const Chain& c, uint32_t seed) {
  std::vector<int64_t> sizes(c.shape.begin(), c.shape.end());
  std::vector<float> x(c.numel()), y(c.numel());
  for (int64_t i = 0; i < c.numel(); ++i) {
    x[i] = 1.5f + static_cast<float>((seed + 7 * i) % 100) / 100;
    y[i] = 1.5f + static_cast<float>((seed * 3 + 11 * i) % 100) / 100;
  }
  return {Floats(sizes, x), Floats(sizes, y)};
}

rc::Gen<Chain> GenChain(int min_ops) {
  return rc::gen::apply(
      [](std::vector<int> shape, std::vector<int> ops) { return Chain::Make(shape, ops); },
      rc::gen::container<std::vector<int>>(*rc::gen::inRange(1, 4), rc::gen::inRange(1, 5)),
      rc::gen::container<std::vector<int>>(*rc::gen::inRange(min_ops, 7), rc::gen::inRange(0, 3)));
}

RC_GTEST_PROP(PteMemoryProperties, ValidPlansRunIdenticallyInBothModes, ()) {
  const Chain c = *GenChain(1);
  const uint32_t seed = *rc::gen::inRange<uint32_t>(0, 1000);
  const RecipeFiles files = BuildRecipeFiles(c.recipe);
  const Built built = Load(files.program, std::nullopt);
  RC_ASSERT(built.program.has_value());
  const RunResult r =
      exec::Run(*built.program, *built.program->FindPlan(""), InputsFor(c, seed), RunOptions{});
  RC_ASSERT(!r.failure);
  RC_ASSERT(!r.difference);
  RC_ASSERT(r.outputs.size() == 1u);
  RC_ASSERT(r.instructions == c.ops.size() + 1);
}

RC_GTEST_PROP(PteMemoryProperties, AnAliasOfALiveTensorIsReportedAndDiffers, ()) {
  const Chain c = *GenChain(3);
  const uint32_t seed = *rc::gen::inRange<uint32_t>(0, 1000);
  // t_m (1 <= m < n - 1) written onto t_0, which z still reads at the end.
  const int n = static_cast<int>(c.ops.size());
  const int m = *rc::gen::inRange(1, n - 1);
  model::File file = BuildRecipeFiles(c.recipe).program;
  auto& values = *file.program.execution_plan->at(0).values;
  auto tensor_at = [&](int value) -> model::Tensor& {
    return std::get<model::Tensor>(values.at(value).val);
  };
  const int t0 = 3, tm = 3 + m;
  tensor_at(tm).allocation = tensor_at(t0).allocation;

  const Built built = Load(file, std::nullopt, /*allow_memory_plan_errors=*/true);
  RC_ASSERT(built.program.has_value());
  RC_ASSERT(std::find(built.errors.begin(), built.errors.end(), "pte.memory.live_overlap") !=
            built.errors.end());
  const RunResult r =
      exec::Run(*built.program, *built.program->FindPlan(""), InputsFor(c, seed), RunOptions{});
  RC_ASSERT(!r.failure);
  if (!r.difference) {
    // Only possible when t_m holds t_0's values: then nothing was lost.
    RC_TAG("the aliased tensors held equal values");
    RC_ASSERT(r.outputs.size() == 1u);
    return;
  }
  const Difference& d = *r.difference;
  RC_ASSERT(d.value == static_cast<uint32_t>(t0) || d.value == static_cast<uint32_t>(tm));
  const uint32_t other = d.value == static_cast<uint32_t>(t0) ? tm : t0;
  bool named = false;
  for (const Overlap& o : d.overlaps) named = named || o.value == other;
  RC_ASSERT(named);
}

}  // namespace
}  // namespace accelcheck::pte::exec::test
