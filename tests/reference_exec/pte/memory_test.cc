// Separate and planned memory (docs/formats/pte.md "Reference executor"): a
// valid plan runs identically in both; a plan that puts two live tensors on
// the same bytes is reported by the validator and shows up as a difference
// naming the instruction and the overlapping values; the tensor and arena
// limits hold at their value and refuse one byte less.
#include "tests/reference_exec/pte/exec_support.h"

namespace accelcheck::pte::exec::test {
namespace {

// s = x + y; p = x * y; z = s + p: s is live while p is written.
nlohmann::json SumAndProduct() {
  return Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [4]}},
                  {"name": "y", "tensor": {"dtype": "float", "sizes": [4]}},
                  {"name": "alpha", "int": 1},
                  {"name": "s", "tensor": {"dtype": "float", "sizes": [4]}},
                  {"name": "p", "tensor": {"dtype": "float", "sizes": [4]}},
                  {"name": "z", "tensor": {"dtype": "float", "sizes": [4]}}])",
              R"(["x", "y"])", R"(["z"])",
              R"([{"kernel": "aten::add.out", "args": ["x", "y", "alpha", "s"]},
                  {"kernel": "aten::mul.out", "args": ["x", "y", "p"]},
                  {"kernel": "aten::add.out", "args": ["s", "p", "alpha", "z"]}])");
}

model::Tensor& TensorOfValue(model::File& file, size_t value) {
  return std::get<model::Tensor>(file.program.execution_plan->at(0).values->at(value).val);
}

const std::vector<HostTensor> kInputs = {Floats({4}, {1, 2, 3, 4}), Floats({4}, {5, 6, 7, 8})};

TEST(PteMemory, AValidPlanRunsIdenticallyInBothModes) {
  for (const Memory memory : {Memory::kSeparate, Memory::kPlanned, Memory::kBoth}) {
    const auto r = RunRecipe(SumAndProduct(), kInputs, memory);
    ASSERT_FALSE(r.failure) << Describe(r);
    ASSERT_FALSE(r.difference) << Describe(r);
    // (x + y) + x·y
    EXPECT_EQ(Values(r.outputs[0]), (std::vector<double>{11, 20, 31, 44}));
  }
}

TEST(PteMemory, AliasedLiveTensorsAreReportedAndDiffer) {
  model::File file = BuildRecipe(SumAndProduct());
  // p (value 4) placed on s (value 3), which instruction 2 still reads.
  TensorOfValue(file, 4).allocation = TensorOfValue(file, 3).allocation;
  const Built built = Load(file, std::nullopt, /*allow_memory_plan_errors=*/true);
  ASSERT_TRUE(built.program.has_value()) << testing::PrintToString(built.errors);
  EXPECT_NE(std::find(built.errors.begin(), built.errors.end(), "pte.memory.live_overlap"),
            built.errors.end())
      << testing::PrintToString(built.errors);
  // Without the oracle's permission, the executor refuses the program.
  EXPECT_FALSE(Load(file, std::nullopt, false).program.has_value());

  const fb::ExecutionPlan& plan = *built.program->FindPlan("");
  RunOptions separate;
  separate.memory = Memory::kSeparate;
  const auto good = exec::Run(*built.program, plan, kInputs, separate);
  ASSERT_FALSE(good.failure) << Describe(good);
  EXPECT_EQ(Values(good.outputs[0]), (std::vector<double>{11, 20, 31, 44}));

  RunOptions planned;
  planned.memory = Memory::kPlanned;
  const auto bad = exec::Run(*built.program, plan, kInputs, planned);
  ASSERT_FALSE(bad.failure) << Describe(bad);
  // s was overwritten by x·y: z = 2·x·y.
  EXPECT_EQ(Values(bad.outputs[0]), (std::vector<double>{10, 24, 42, 64}));

  const auto both = exec::Run(*built.program, plan, kInputs, RunOptions{});
  ASSERT_TRUE(both.difference) << Describe(both);
  const Difference& d = *both.difference;
  EXPECT_EQ(d.value, 3u);  // s, read by instruction 2
  EXPECT_FALSE(d.after);
  EXPECT_EQ(d.instruction, "chain 0 instruction 2 (aten::add.out)");
  EXPECT_EQ(d.written_by, "chain 0 instruction 0 (aten::add.out)");
  ASSERT_EQ(d.overlaps.size(), 1u);
  EXPECT_EQ(d.overlaps[0].value, 4u);
  EXPECT_EQ(d.overlaps[0].written_by, "chain 0 instruction 1 (aten::mul.out)");
  EXPECT_NE(d.message.find("value 4"), std::string::npos) << d.message;
}

// Sharing bytes between tensors that are never live together is what a
// memory planner does: no difference.
TEST(PteMemory, ReuseAfterTheLastReadIsNoDifference) {
  const nlohmann::json recipe =
      Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "alpha", "int": 1},
               {"name": "a", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "b", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "c", "tensor": {"dtype": "float", "sizes": [4]}}])",
           R"(["x"])", R"(["c"])",
           R"([{"kernel": "aten::add.out", "args": ["x", "x", "alpha", "a"]},
               {"kernel": "aten::add.out", "args": ["a", "x", "alpha", "b"]},
               {"kernel": "aten::add.out", "args": ["b", "b", "alpha", "c"]}])");
  model::File file = BuildRecipe(recipe);
  TensorOfValue(file, 4).allocation = TensorOfValue(file, 2).allocation;  // c on a
  const Built built = Load(file, std::nullopt);
  ASSERT_TRUE(built.program.has_value()) << testing::PrintToString(built.errors);
  const auto r = exec::Run(*built.program, *built.program->FindPlan(""),
                           {Floats({4}, {1, 2, 3, 4})}, RunOptions{});
  ASSERT_FALSE(r.failure) << Describe(r);
  ASSERT_FALSE(r.difference) << Describe(r);
  EXPECT_EQ(Values(r.outputs[0]), (std::vector<double>{6, 12, 18, 24}));
}

// Builds `recipe` with each planned tensor named first in `share` on the
// bytes of the one named second, as the memory planner places them.
model::File BuildSharing(const nlohmann::json& recipe,
                         const std::vector<std::pair<std::string, std::string>>& share) {
  RecipeFiles files = BuildRecipeFiles(recipe);
  const auto& names = files.value_names.at(0);
  for (const auto& [moved, onto] : share) {
    TensorOfValue(files.program, names.at(moved)).allocation =
        TensorOfValue(files.program, names.at(onto)).allocation;
  }
  return files.program;
}

// Validates `file` (it must be clean) and runs it in both memory modes,
// planned checked against separate.
RunResult RunBothModes(const model::File& file, const std::vector<HostTensor>& inputs) {
  const Built built = Load(file, std::nullopt);
  EXPECT_TRUE(built.program.has_value()) << testing::PrintToString(built.errors);
  if (!built.program) return {};
  return exec::Run(*built.program, *built.program->FindPlan(""), inputs, RunOptions{});
}

// PTE-66: x = a + a; v = et_view(x, [2, 2]); y = v * v; z = x + x, with v on
// x's bytes, as the planner places a view, and live with x.
TEST(PteMemory, AViewOnItsBasesBytesRunsIdenticallyInBothModes) {
  const nlohmann::json recipe = Plan(
      R"([{"name": "a", "tensor": {"dtype": "float", "sizes": [4]}},
          {"name": "alpha", "int": 1},
          {"name": "x", "tensor": {"dtype": "float", "sizes": [4]}},
          {"name": "size", "int_list": [2, 2]},
          {"name": "v", "tensor": {"dtype": "float", "sizes": [2, 2]}},
          {"name": "y", "tensor": {"dtype": "float", "sizes": [2, 2]}},
          {"name": "z", "tensor": {"dtype": "float", "sizes": [4]}}])",
      R"(["a"])", R"(["y", "z"])",
      R"([{"kernel": "aten::add.out", "args": ["a", "a", "alpha", "x"]},
          {"kernel": "executorch_prim::et_view.default", "args": ["x", "size", "v"], "ret": null},
          {"kernel": "aten::mul.out", "args": ["v", "v", "y"]},
          {"kernel": "aten::add.out", "args": ["x", "x", "alpha", "z"]}])");
  const auto r = RunBothModes(BuildSharing(recipe, {{"v", "x"}}), {Floats({4}, {1, 2, 3, 4})});
  ASSERT_FALSE(r.failure) << Describe(r);
  ASSERT_FALSE(r.difference) << Describe(r);
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[0].tensor.sizes, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Values(r.outputs[0]), (std::vector<double>{4, 16, 36, 64}));  // (2a)^2
  EXPECT_EQ(Values(r.outputs[1]), (std::vector<double>{4, 8, 12, 16}));   // 4a
}

// PTE-66: y = x * x in place of x, which nothing reads after; z = y + y.
TEST(PteMemory, AnInPlaceResultRunsIdenticallyInBothModes) {
  const nlohmann::json recipe =
      Plan(R"([{"name": "a", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "alpha", "int": 1},
               {"name": "x", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "z", "tensor": {"dtype": "float", "sizes": [4]}}])",
           R"(["a"])", R"(["z"])",
           R"([{"kernel": "aten::add.out", "args": ["a", "a", "alpha", "x"]},
               {"kernel": "aten::mul.out", "args": ["x", "x", "y"]},
               {"kernel": "aten::add.out", "args": ["y", "y", "alpha", "z"]}])");
  const auto r = RunBothModes(BuildSharing(recipe, {{"y", "x"}}), {Floats({4}, {1, 2, 3, 4})});
  ASSERT_FALSE(r.failure) << Describe(r);
  ASSERT_FALSE(r.difference) << Describe(r);
  EXPECT_EQ(Values(r.outputs[0]), (std::vector<double>{8, 32, 72, 128}));  // 2 (2a)^2
}

// A tensor written on a live view's bytes is an overlap the validator
// reports and the oracle shows: z = v + v reads what w = a * a wrote.
TEST(PteMemory, ATensorOnALiveViewsBytesDiffers) {
  const nlohmann::json recipe = Plan(
      R"([{"name": "a", "tensor": {"dtype": "float", "sizes": [4]}},
          {"name": "alpha", "int": 1},
          {"name": "x", "tensor": {"dtype": "float", "sizes": [4]}},
          {"name": "size", "int_list": [2, 2]},
          {"name": "v", "tensor": {"dtype": "float", "sizes": [2, 2]}},
          {"name": "w", "tensor": {"dtype": "float", "sizes": [4]}},
          {"name": "z", "tensor": {"dtype": "float", "sizes": [2, 2]}}])",
      R"(["a"])", R"(["w", "z"])",
      R"([{"kernel": "aten::add.out", "args": ["a", "a", "alpha", "x"]},
          {"kernel": "executorch_prim::et_view.default", "args": ["x", "size", "v"], "ret": null},
          {"kernel": "aten::mul.out", "args": ["a", "a", "w"]},
          {"kernel": "aten::add.out", "args": ["v", "v", "alpha", "z"]}])");
  const model::File file = BuildSharing(recipe, {{"v", "x"}, {"w", "x"}});
  const Built built = Load(file, std::nullopt, /*allow_memory_plan_errors=*/true);
  ASSERT_TRUE(built.program.has_value()) << testing::PrintToString(built.errors);
  EXPECT_EQ(built.errors, (std::vector<std::string>{"pte.memory.live_overlap"}));
  const auto r = exec::Run(*built.program, *built.program->FindPlan(""),
                           {Floats({4}, {1, 2, 3, 4})}, RunOptions{});
  ASSERT_TRUE(r.difference) << Describe(r);
  EXPECT_EQ(r.difference->instruction, "chain 0 instruction 3 (aten::add.out)");
}

// Five float tensors of 4 elements (x, y, s, p, z): 80 bytes in separate
// buffers, and 80 bytes of arena at 16-byte aligned offsets when planned.
TEST(PteMemory, TensorBytesLimitAtAndAbove) {
  Limits limits;
  limits.max_tensor_bytes = 5 * 16;
  const auto at = RunRecipe(SumAndProduct(), kInputs, Memory::kSeparate, limits);
  EXPECT_FALSE(at.failure) << Describe(at);
  limits.max_tensor_bytes = 5 * 16 - 1;
  const auto above = RunRecipe(SumAndProduct(), kInputs, Memory::kSeparate, limits);
  ASSERT_TRUE(above.failure);
  EXPECT_EQ(above.failure->limit, &core_rules::kLimitTensorBytes);
}

TEST(PteMemory, ArenaBytesLimitAtAndAbove) {
  Limits limits;
  limits.max_arena_bytes = 5 * 16;
  const auto at = RunRecipe(SumAndProduct(), kInputs, Memory::kPlanned, limits);
  EXPECT_FALSE(at.failure) << Describe(at);
  limits.max_arena_bytes = 5 * 16 - 1;
  const auto above = RunRecipe(SumAndProduct(), kInputs, Memory::kPlanned, limits);
  ASSERT_TRUE(above.failure);
  EXPECT_EQ(above.failure->limit, &core_rules::kLimitArenaBytes);
}

}  // namespace
}  // namespace accelcheck::pte::exec::test
