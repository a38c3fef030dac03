#include "conformance/pte/bases.h"

#include <cstring>

#include "conformance/pte/recipes.h"

namespace accelcheck::pte {

namespace {

using Sizes = std::vector<int32_t>;

std::vector<uint8_t> Floats(std::initializer_list<float> values) {
  std::vector<uint8_t> out(values.size() * sizeof(float));
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

model::File Add() {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  const int x = p.AddPlannedTensor(model::kFloat, {2, 3});
  const int y = p.AddPlannedTensor(model::kFloat, {2, 3});
  const int alpha = p.AddInt(1);
  const int z = p.AddPlannedTensor(model::kFloat, {2, 3});
  p.AddInput(x);
  p.AddInput(y);
  p.AddOutput(z);
  p.KernelCall(p.AddOperator("aten::add", "out"), {x, y, alpha, z});
  return r.Build();
}

model::File Linear() {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  const int x = p.AddPlannedTensor(model::kFloat, {1, 3});
  const int weight = p.AddConstantTensor(model::kFloat, {2, 3}, Floats({0.5f, -1, 2, 1.5f, 0.25f, -0.75f}));
  const int bias = p.AddConstantTensor(model::kFloat, {2}, Floats({0.1f, -0.2f}));
  const int dims = p.AddIntList({1, 0});
  const int weight_t = p.AddPlannedTensor(model::kFloat, {3, 2});
  const int one = p.AddInt(1);
  const int y = p.AddPlannedTensor(model::kFloat, {1, 2});
  p.AddInput(x);
  p.AddOutput(y);
  p.KernelCall(p.AddOperator("aten::permute_copy", "out"), {weight, dims, weight_t});
  p.KernelCall(p.AddOperator("aten::addmm", "out"), {bias, x, weight_t, one, one, y});
  return r.Build();
}

model::File Delegates() {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  const int x = p.AddUnplannedTensor(model::kFloat, {4});
  const int h = p.AddUnplannedTensor(model::kFloat, {4});
  const int y = p.AddUnplannedTensor(model::kFloat, {4});
  p.AddInput(x);
  p.AddOutput(y);
  const int first = p.AddDelegate("ExampleBackend", std::vector<uint8_t>(48, 17), DelegatePlace::kInline,
                                  {{"target", "example-npu"}, {"flags", "-O2"}});
  const int second = p.AddDelegate("ExampleBackend", std::vector<uint8_t>(18, 0x42), DelegatePlace::kSegment);
  p.DelegateCall(first, {x, h});
  p.DelegateCall(second, {h, y});
  return r.Build();
}

model::File ControlFlow() {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  const int cond = p.AddPlannedTensor(model::kBool, {1});
  const int x = p.AddPlannedTensor(model::kFloat, {4});
  const int alpha = p.AddInt(1);
  const int sum = p.AddPlannedTensor(model::kFloat, {4});
  const int out = p.AddPlannedTensor(model::kFloat, {4});
  const int scratch = p.AddUnplannedTensor(model::kFloat, {4}, /*DYNAMIC_UNBOUND*/ 2);
  p.AddInput(cond);
  p.AddInput(x);
  p.AddOutput(out);
  p.KernelCall(p.AddOperator("aten::clone", "out"), {x, out});
  p.JumpFalse(cond, 4);
  p.KernelCall(p.AddOperator("aten::add", "out"), {x, x, alpha, sum});
  p.Move(sum, out);
  p.Free(scratch);
  return r.Build();
}

model::File MultiPlan() {
  ProgramRecipe r;
  PlanRecipe& forward = r.AddPlan("forward");
  const int x = forward.AddPlannedTensor(model::kFloat, {2});
  const int state = forward.AddMutableTensor(model::kFloat, {2}, Floats({1, 1}));
  const int alpha = forward.AddInt(1);
  const int y = forward.AddPlannedTensor(model::kFloat, {2});
  forward.AddInput(x);
  forward.AddOutput(y);
  forward.KernelCall(forward.AddOperator("aten::add", "out"), {x, state, alpha, y});
  PlanRecipe& n = r.AddPlan("get_max_seq_len");
  n.AddOutput(n.AddInt(128));
  PlanRecipe& s = r.AddPlan("get_scale");
  s.AddOutput(s.AddDouble(0.125));
  PlanRecipe& v = r.AddPlan("get_vocab_name");
  v.AddOutput(v.AddString("bpe-32k"));
  PlanRecipe& t = r.AddPlan("get_table");
  t.AddOutput(t.AddConstantTensor(model::kLong, {3}, {3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2}));
  return r.Build();
}

// Constants in the deprecated constant_buffer (a note, not an error).
model::File InlineConstants() {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  const int x = p.AddPlannedTensor(model::kFloat, {4});
  const int c = p.AddConstantTensor(model::kFloat, {4}, Floats({1, 2, 3, 4}), ConstantPlace::kInlineBuffer);
  const int y = p.AddPlannedTensor(model::kFloat, {4});
  p.AddInput(x);
  p.AddOutput(y);
  p.KernelCall(p.AddOperator("aten::mul", "out"), {x, c, y});
  return r.Build();
}

// Lists of every kind, a delegate, named data and two plans in one file.
model::File Everything() {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  const int x = p.AddPlannedTensor(model::kFloat, {2, 2});
  const int w = p.AddConstantTensor(model::kFloat, {2, 2}, Floats({1, 0, 0, 1}));
  const int b = p.AddConstantTensor(model::kFloat, {2}, Floats({0.5f, 0.5f}));
  const int none = p.AddNull();
  const int list = p.AddTensorList({x, w});
  const int optional = p.AddOptionalTensorList({x, -1, none});
  const int dims = p.AddIntList({0, 1});
  const int scales = p.AddDoubleList({0.5, 2.0});
  const int flags = p.AddBoolList({true, false});
  const int y = p.AddPlannedTensor(model::kFloat, {2, 2});
  const int z = p.AddUnplannedTensor(model::kFloat, {2, 2});
  p.AddInput(x);
  p.AddOutput(z);
  p.KernelCall(p.AddOperator("conformance::mix", "out"), {list, optional, dims, scales, flags, b, y});
  p.DelegateCall(p.AddDelegate("ExampleBackend", std::vector<uint8_t>(40, 9), DelegatePlace::kSegment), {y, z});
  r.AddNamedData("weights.0", std::vector<uint8_t>(32, 1));
  PlanRecipe& q = r.AddPlan("version");
  q.AddOutput(q.AddInt(3));
  return r.Build();
}

}  // namespace

std::vector<NamedBase> ExampleBases() {
  return {{"add", Add()},
          {"linear", Linear()},
          {"delegates", Delegates()},
          {"control_flow", ControlFlow()},
          {"multi_plan", MultiPlan()},
          {"inline_constants", InlineConstants()},
          {"everything", Everything()}};
}

}  // namespace accelcheck::pte
