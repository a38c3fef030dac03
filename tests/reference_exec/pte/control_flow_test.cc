// MoveCall, JumpFalseCall and FreeCall (docs/formats/pte.md §3.4) on builder
// programs, and the instruction limit that bounds their loops.
#include "tests/reference_exec/pte/exec_support.h"

namespace accelcheck::pte::exec::test {
namespace {

// acc = x; then acc += 1 and i += 1 until i equals n: 3 instructions per
// turn, the condition a BOOL tensor computed each turn.
nlohmann::json CountingLoop(int n) {
  nlohmann::json recipe = Plan(
      R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [2]}},
          {"name": "one", "tensor": {"dtype": "float", "sizes": [], "memory": "constant", "data": [1]}},
          {"name": "alpha", "int": 1},
          {"name": "acc", "tensor": {"dtype": "float", "sizes": [2]}},
          {"name": "i", "tensor": {"dtype": "float", "sizes": [1], "memory": "mutable", "data": [0]}},
          {"name": "n", "int": 0},
          {"name": "done", "tensor": {"dtype": "bool", "sizes": [1]}}, {"name": "none", "null": null}])",
      R"(["x"])", R"(["acc", "i"])",
      R"([{"kernel": "aten::clone.out", "args": ["x", "none", "acc"]},
          {"kernel": "aten::add.out", "args": ["acc", "one", "alpha", "acc"]},
          {"kernel": "aten::add.out", "args": ["i", "one", "alpha", "i"]},
          {"kernel": "aten::eq.Scalar_out", "args": ["i", "n", "done"]},
          {"jump_false": "done", "to": 1}])");
  recipe["plans"][0]["values"][5]["int"] = n;
  return recipe;
}

TEST(PteControlFlow, JumpFalseLoopsUntilTheConditionHolds) {
  const auto r = RunRecipe(CountingLoop(5), {Floats({2}, {10, 20})});
  ASSERT_FALSE(r.failure) << Describe(r);
  ASSERT_FALSE(r.difference) << Describe(r);
  EXPECT_EQ(Values(r.outputs[0]), (std::vector<double>{15, 25}));
  EXPECT_EQ(Values(r.outputs[1]), (std::vector<double>{5}));
  EXPECT_EQ(r.instructions, 1u + 4u * 5u);
}

TEST(PteControlFlow, InstructionLimitAtAndAbove) {
  Limits limits;
  limits.max_instructions = 21;  // exactly what the loop executes
  const auto at = RunRecipe(CountingLoop(5), {Floats({2}, {0, 0})}, Memory::kBoth, limits);
  EXPECT_FALSE(at.failure) << Describe(at);
  limits.max_instructions = 20;
  const auto above = RunRecipe(CountingLoop(5), {Floats({2}, {0, 0})}, Memory::kBoth, limits);
  ASSERT_TRUE(above.failure);
  EXPECT_EQ(above.failure->outcome, Outcome::kLimit);
  EXPECT_EQ(above.failure->limit, &core_rules::kLimitInstructions);
}

// out = x, and when cond holds, out = x + x by a Move of the sum.
nlohmann::json Branch() {
  return Plan(R"([{"name": "cond", "tensor": {"dtype": "bool", "sizes": [1]}},
                  {"name": "x", "tensor": {"dtype": "float", "sizes": [3]}},
                  {"name": "alpha", "int": 1}, {"name": "none", "null": null},
                  {"name": "sum", "tensor": {"dtype": "float", "sizes": [3]}},
                  {"name": "out", "tensor": {"dtype": "float", "sizes": [3]}}])",
              R"(["cond", "x"])", R"(["out"])",
              R"([{"kernel": "aten::clone.out", "args": ["x", "none", "out"]},
                  {"jump_false": "cond", "to": 4},
                  {"kernel": "aten::add.out", "args": ["x", "x", "alpha", "sum"]},
                  {"move": ["sum", "out"]}])");
}

TEST(PteControlFlow, MoveTakesTheBranchResult) {
  const auto taken =
      RunRecipe(Branch(), {Tensor<bool>(DType::kBool, {1}, {true}), Floats({3}, {1, 2, 3})});
  ASSERT_FALSE(taken.failure) << Describe(taken);
  EXPECT_EQ(Values(taken.outputs[0]), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(taken.instructions, 4u);

  const auto skipped =
      RunRecipe(Branch(), {Tensor<bool>(DType::kBool, {1}, {false}), Floats({3}, {1, 2, 3})});
  ASSERT_FALSE(skipped.failure) << Describe(skipped);
  EXPECT_EQ(Values(skipped.outputs[0]), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(skipped.instructions, 2u);
}

TEST(PteControlFlow, ReadingAFreedTensorIsInvalid) {
  const auto r = RunRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [2]}},
               {"name": "t", "tensor": {"dtype": "float", "sizes": [2], "memory": "none",
                                        "dynamism": "dynamic_unbound"}},
               {"name": "none", "null": null},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [2]}}])",
                                R"(["x"])", R"(["y"])",
                                R"([{"kernel": "aten::clone.out", "args": ["x", "none", "t"]},
               {"free": "t"},
               {"kernel": "aten::clone.out", "args": ["t", "none", "y"]}])"),
                           {Floats({2}, {1, 2})});
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->outcome, Outcome::kInvalid);
  EXPECT_NE(r.failure->message.find("holds no data"), std::string::npos) << r.failure->message;
}

TEST(PteControlFlow, ConstantMethodReturnsItsValues) {
  const auto r = RunRecipe(Plan(R"([{"name": "k", "int": 42}, {"name": "d", "double": 0.25},
               {"name": "c", "tensor": {"dtype": "long", "sizes": [2], "memory": "constant",
                                        "data": [7, -8]}}])",
                                "[]", R"(["k", "d", "c"])", "[]"),
                           {});
  ASSERT_FALSE(r.failure) << Describe(r);
  ASSERT_EQ(r.outputs.size(), 3u);
  EXPECT_EQ(r.outputs[0].int_value, 42);
  EXPECT_EQ(r.outputs[1].double_value, 0.25);
  EXPECT_EQ(Values(r.outputs[2]), (std::vector<double>{7, -8}));
  EXPECT_EQ(r.instructions, 0u);
}

}  // namespace
}  // namespace accelcheck::pte::exec::test
