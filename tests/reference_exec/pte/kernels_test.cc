// One hand-computed case per operator family (docs/formats/pte.md
// "Reference executor"), each run in both memory modes, which must agree.
#include <cmath>

#include "reference_exec/pte/kernels.h"
#include "tests/reference_exec/pte/exec_support.h"

namespace accelcheck::pte::exec::test {
namespace {

void ExpectValues(const RunResult& r, size_t output, const std::vector<double>& expected,
                  const std::vector<int64_t>& shape, double tolerance = 0) {
  ASSERT_FALSE(r.failure) << Describe(r);
  ASSERT_FALSE(r.difference) << Describe(r);
  ASSERT_GT(r.outputs.size(), output);
  EXPECT_EQ(r.outputs[output].tensor.sizes, shape);
  const std::vector<double> got = Values(r.outputs[output]);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], tolerance) << "element " << i;
}

TEST(PteKernels, AddBroadcastsAndScalesByAlpha) {
  const auto r =
      RunRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [2, 3]}},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [3], "memory": "constant",
                                        "data": [10, 20, 30]}},
               {"name": "alpha", "int": 2},
               {"name": "z", "tensor": {"dtype": "float", "sizes": [2, 3]}}])",
                     R"(["x"])", R"(["z"])",
                     R"([{"kernel": "aten::add.out", "args": ["x", "y", "alpha", "z"]}])"),
                {Floats({2, 3}, {1, 2, 3, 4, 5, 6})});
  // x + 2·y, y repeated along the rows.
  ExpectValues(r, 0, {21, 42, 63, 24, 45, 66}, {2, 3});
}

TEST(PteKernels, SubPromotesIntAndFloatToFloat) {
  const auto r =
      RunRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "int", "sizes": [3]}},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [3]}},
               {"name": "alpha", "int": 1},
               {"name": "z", "tensor": {"dtype": "float", "sizes": [3]}}])",
                     R"(["x", "y"])", R"(["z"])",
                     R"([{"kernel": "aten::sub.out", "args": ["x", "y", "alpha", "z"]}])"),
                {Tensor<int32_t>(DType::kInt, {3}, {1, 2, 3}), Floats({3}, {0.5f, 0.25f, 4})});
  ExpectValues(r, 0, {0.5, 1.75, -1}, {3});
}

TEST(PteKernels, SubRefusesAFloatResultInAnIntOut) {
  const auto r =
      RunRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "int", "sizes": [3]}},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [3]}},
               {"name": "alpha", "int": 1},
               {"name": "z", "tensor": {"dtype": "int", "sizes": [3]}}])",
                     R"(["x", "y"])", R"(["z"])",
                     R"([{"kernel": "aten::sub.out", "args": ["x", "y", "alpha", "z"]}])"),
                {Tensor<int32_t>(DType::kInt, {3}, {1, 2, 3}), Floats({3}, {0.5f, 0.25f, 4})});
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->outcome, Outcome::kInvalid);
  EXPECT_NE(r.failure->message.find("cannot be cast"), std::string::npos) << r.failure->message;
}

TEST(PteKernels, MulAndMulScalar) {
  const auto r = RunRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [3]}},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [3]}},
               {"name": "p", "tensor": {"dtype": "float", "sizes": [3]}},
               {"name": "half", "double": 0.5},
               {"name": "q", "tensor": {"dtype": "float", "sizes": [3]}}])",
                                R"(["x", "y"])", R"(["p", "q"])",
                                R"([{"kernel": "aten::mul.out", "args": ["x", "y", "p"]},
               {"kernel": "aten::mul.Scalar_out", "args": ["p", "half", "q"]}])"),
                           {Floats({3}, {1, 2, 3}), Floats({3}, {4, 5, 6})});
  ExpectValues(r, 0, {4, 10, 18}, {3});
  ExpectValues(r, 1, {2, 5, 9}, {3});
}

TEST(PteKernels, MmAndAddmm) {
  const auto r = RunRecipe(Plan(R"([{"name": "a", "tensor": {"dtype": "float", "sizes": [2, 2]}},
               {"name": "b", "tensor": {"dtype": "float", "sizes": [2, 2]}},
               {"name": "bias", "tensor": {"dtype": "float", "sizes": [2], "memory": "constant",
                                           "data": [1, -1]}},
               {"name": "mm", "tensor": {"dtype": "float", "sizes": [2, 2]}},
               {"name": "beta", "int": 2}, {"name": "alpha", "int": 3},
               {"name": "addmm", "tensor": {"dtype": "float", "sizes": [2, 2]}}])",
                                R"(["a", "b"])", R"(["mm", "addmm"])",
                                R"([{"kernel": "aten::mm.out", "args": ["a", "b", "mm"]},
               {"kernel": "aten::addmm.out", "args": ["bias", "a", "b", "beta", "alpha", "addmm"]}])"),
                           {Floats({2, 2}, {1, 2, 3, 4}), Floats({2, 2}, {5, 6, 7, 8})});
  // [[1,2],[3,4]]·[[5,6],[7,8]] = [[19,22],[43,50]]; 2·[1,-1] + 3·that.
  ExpectValues(r, 0, {19, 22, 43, 50}, {2, 2});
  ExpectValues(r, 1, {59, 64, 131, 148}, {2, 2});
}

// A product large enough to go through every path of the blocked loop:
// whole 4x8 tiles, edge rows and edge columns, several depth blocks.
TEST(PteKernels, MmMatchesThePlainProductOnOddSizes) {
  const int n = 7, k = 300, m = 13;
  std::vector<float> a(n * k), b(k * m);
  for (int i = 0; i < n * k; ++i) a[i] = static_cast<float>((i * 7) % 11) - 5;
  for (int i = 0; i < k * m; ++i) b[i] = static_cast<float>((i * 5) % 13) - 6;
  std::vector<double> expected(n * m, 0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      for (int p = 0; p < k; ++p) expected[i * m + j] += double(a[i * k + p]) * b[p * m + j];
  const auto r = RunRecipe(
      Plan(R"([{"name": "a", "tensor": {"dtype": "float", "sizes": [7, 300]}},
               {"name": "b", "tensor": {"dtype": "float", "sizes": [300, 13]}},
               {"name": "c", "tensor": {"dtype": "float", "sizes": [7, 13]}}])",
           R"(["a", "b"])", R"(["c"])", R"([{"kernel": "aten::mm.out", "args": ["a", "b", "c"]}])"),
      {Floats({n, k}, a), Floats({k, m}, b)});
  // Small integers: every partial sum is exact in float32.
  ExpectValues(r, 0, expected, {n, m});
}

TEST(PteKernels, PermuteViewExpand) {
  const auto r =
      RunRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [2, 3]}},
               {"name": "dims", "int_list": [1, 0]},
               {"name": "t", "tensor": {"dtype": "float", "sizes": [3, 2]}},
               {"name": "flat", "int_list": [-1]},
               {"name": "v", "tensor": {"dtype": "float", "sizes": [6]}},
               {"name": "row", "tensor": {"dtype": "float", "sizes": [1, 3], "memory": "constant",
                                          "data": [1, 2, 3]}},
               {"name": "size", "int_list": [2, 2, -1]}, {"name": "implicit", "bool": false},
               {"name": "e", "tensor": {"dtype": "float", "sizes": [2, 2, 3]}}])",
                     R"(["x"])", R"(["t", "v", "e"])",
                     R"([{"kernel": "aten::permute_copy.out", "args": ["x", "dims", "t"]},
               {"kernel": "aten::view_copy.out", "args": ["t", "flat", "v"]},
               {"kernel": "aten::expand_copy.out", "args": ["row", "size", "implicit", "e"]}])"),
                {Floats({2, 3}, {1, 2, 3, 4, 5, 6})});
  ExpectValues(r, 0, {1, 4, 2, 5, 3, 6}, {3, 2});
  ExpectValues(r, 1, {1, 4, 2, 5, 3, 6}, {6});
  ExpectValues(r, 2, {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}, {2, 2, 3});
}

TEST(PteKernels, TanhNegPowFullLike) {
  const auto r = RunRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [3]}},
               {"name": "th", "tensor": {"dtype": "float", "sizes": [3]}},
               {"name": "ng", "tensor": {"dtype": "float", "sizes": [3]}},
               {"name": "two", "int": 2},
               {"name": "sq", "tensor": {"dtype": "float", "sizes": [3]}},
               {"name": "seven", "double": 7.0}, {"name": "none", "null": null},
               {"name": "full", "tensor": {"dtype": "int", "sizes": [3]}}])",
                                R"(["x"])", R"(["th", "ng", "sq", "full"])",
                                R"([{"kernel": "aten::tanh.out", "args": ["x", "th"]},
               {"kernel": "aten::neg.out", "args": ["x", "ng"]},
               {"kernel": "aten::pow.Tensor_Scalar_out", "args": ["x", "two", "sq"]},
               {"kernel": "aten::full_like.out", "args": ["x", "seven", "none", "full"]}])"),
                           {Floats({3}, {0, 1, -3})});
  ExpectValues(r, 0, {0, std::tanh(1.0), std::tanh(-3.0)}, {3}, 1e-6);
  ExpectValues(r, 1, {0, -1, 3}, {3});
  ExpectValues(r, 2, {0, 1, 9}, {3});
  ExpectValues(r, 3, {7, 7, 7}, {3});
}

TEST(PteKernels, SumAndMeanOverDims) {
  const auto r = RunRecipe(
      Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [2, 3]}},
               {"name": "d1", "int_list": [1]}, {"name": "no", "bool": false},
               {"name": "none", "null": null}, {"name": "yes", "bool": true},
               {"name": "d0", "int_list": [0]},
               {"name": "s", "tensor": {"dtype": "float", "sizes": [2]}},
               {"name": "m", "tensor": {"dtype": "float", "sizes": [1, 3]}},
               {"name": "all", "tensor": {"dtype": "float", "sizes": []}}])",
           R"(["x"])", R"(["s", "m", "all"])",
           R"([{"kernel": "aten::sum.IntList_out", "args": ["x", "d1", "no", "none", "s"]},
               {"kernel": "aten::mean.out", "args": ["x", "d0", "yes", "none", "m"]},
               {"kernel": "aten::sum.IntList_out", "args": ["x", "none", "no", "none", "all"]}])"),
      {Floats({2, 3}, {1, 2, 3, 4, 5, 6})});
  ExpectValues(r, 0, {6, 15}, {2});
  ExpectValues(r, 1, {2.5, 3.5, 4.5}, {1, 3});
  ExpectValues(r, 2, {21}, {});
}

TEST(PteKernels, EqScalarAndWhere) {
  const auto r = RunRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "one", "int": 1},
               {"name": "c", "tensor": {"dtype": "bool", "sizes": [4]}},
               {"name": "zero", "tensor": {"dtype": "float", "sizes": [], "memory": "constant",
                                           "data": [-9]}},
               {"name": "w", "tensor": {"dtype": "float", "sizes": [4]}}])",
                                R"(["x"])", R"(["c", "w"])",
                                R"([{"kernel": "aten::eq.Scalar_out", "args": ["x", "one", "c"]},
               {"kernel": "aten::where.self_out", "args": ["c", "x", "zero", "w"]}])"),
                           {Floats({4}, {1, 2, 1, 0.5f})});
  ExpectValues(r, 0, {1, 0, 1, 0}, {4});
  ExpectValues(r, 1, {1, -9, 1, -9}, {4});
}

TEST(PteKernels, Convolution2dWithBiasStrideAndPadding) {
  const auto r =
      RunRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [1, 1, 3, 3]}},
               {"name": "w", "tensor": {"dtype": "float", "sizes": [2, 1, 2, 2], "memory": "constant",
                                        "data": [1, 1, 1, 1, 1, 0, 0, -1]}},
               {"name": "b", "tensor": {"dtype": "float", "sizes": [2], "memory": "constant",
                                        "data": [1, 0]}},
               {"name": "s1", "int_list": [1, 1]}, {"name": "p0", "int_list": [0, 0]},
               {"name": "d1", "int_list": [1, 1]}, {"name": "no", "bool": false},
               {"name": "op", "int_list": [0, 0]}, {"name": "g", "int": 1},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [1, 2, 2, 2]}},
               {"name": "s2", "int_list": [2]}, {"name": "p1", "int_list": [1]},
               {"name": "none", "null": null},
               {"name": "z", "tensor": {"dtype": "float", "sizes": [1, 2, 2, 2]}}])",
                     R"(["x"])", R"(["y", "z"])",
                     R"([{"kernel": "aten::convolution.out",
                "args": ["x", "w", "b", "s1", "p0", "d1", "no", "op", "g", "y"]},
               {"kernel": "aten::convolution.out",
                "args": ["x", "w", "none", "s2", "p1", "d1", "no", "op", "g", "z"]}])"),
                {Floats({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})});
  // Channel 0 sums each 2x2 window plus 1; channel 1 is x[i][j] - x[i+1][j+1].
  ExpectValues(r, 0, {13, 17, 25, 29, -4, -4, -4, -4}, {1, 2, 2, 2});
  // Stride 2, padding 1: the windows start at (-1,-1), (-1,1), (1,-1), (1,1).
  ExpectValues(r, 1, {1, 5, 11, 28, -1, -3, -7, -4}, {1, 2, 2, 2});
}

TEST(PteKernels, DimOrderCopyCastsAndQuantizeRoundTrips) {
  const auto r = RunRecipe(
      Plan(
          R"([{"name": "x", "tensor": {"dtype": "long", "sizes": [3]}},
               {"name": "no", "bool": false}, {"name": "none", "null": null},
               {"name": "f", "tensor": {"dtype": "float", "sizes": [3]}},
               {"name": "scale", "double": 0.5}, {"name": "zp", "int": 1},
               {"name": "qmin", "int": -128}, {"name": "qmax", "int": 127},
               {"name": "char", "int": 1},
               {"name": "q", "tensor": {"dtype": "char", "sizes": [3]}},
               {"name": "back", "tensor": {"dtype": "float", "sizes": [3]}}])",
          R"(["x"])", R"(["f", "q", "back"])",
          R"([{"kernel": "dim_order_ops::_to_dim_order_copy.out", "args": ["x", "no", "none", "f"]},
               {"kernel": "quantized_decomposed::quantize_per_tensor.out",
                "args": ["f", "scale", "zp", "qmin", "qmax", "char", "q"]},
               {"kernel": "quantized_decomposed::dequantize_per_tensor.out",
                "args": ["q", "scale", "zp", "qmin", "qmax", "char", "none", "back"]}])"),
      {Tensor<int64_t>(DType::kLong, {3}, {0, 1, -100})});
  ExpectValues(r, 0, {0, 1, -100}, {3});
  // q = clamp(1 + round(2·x)): -199 clamps to -128.
  ExpectValues(r, 1, {1, 3, -128}, {3});
  ExpectValues(r, 2, {0, 1, -64.5}, {3});
}

TEST(PteKernels, AliasAndClone) {
  const auto r = RunRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [2]}},
               {"name": "a", "tensor": {"dtype": "float", "sizes": [2]}},
               {"name": "none", "null": null},
               {"name": "c", "tensor": {"dtype": "float", "sizes": [2]}}])",
                                R"(["x"])", R"(["a", "c"])",
                                R"([{"kernel": "aten::alias_copy.out", "args": ["x", "a"]},
               {"kernel": "aten::clone.out", "args": ["a", "none", "c"]}])"),
                           {Floats({2}, {3, -4})});
  ExpectValues(r, 0, {3, -4}, {2});
  ExpectValues(r, 1, {3, -4}, {2});
}

// Prim ops take their operands and the value they write, with no return
// value after it (docs/formats/pte.md §5): the recipe's "ret": null.
TEST(PteKernels, PrimOpsAndSymSize) {
  const model::File file =
      BuildRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [2, 3]}},
               {"name": "dim", "int": 1}, {"name": "n", "int": 0},
               {"name": "numel", "int": 0}, {"name": "k", "int": -7},
               {"name": "q", "int": 0}, {"name": "r", "int": 0}, {"name": "lt", "bool": false}])",
                       R"(["x"])", R"(["n", "numel", "q", "r", "lt"])",
                       R"([{"kernel": "aten::sym_size.int", "args": ["x", "dim", "n"], "ret": null},
               {"kernel": "aten::sym_numel", "args": ["x", "numel"], "ret": null},
               {"kernel": "executorch_prim::floordiv.Scalar", "args": ["k", "n", "q"], "ret": null},
               {"kernel": "executorch_prim::mod.Scalar", "args": ["k", "n", "r"], "ret": null},
               {"kernel": "executorch_prim::lt.Scalar", "args": ["k", "n", "lt"], "ret": null}])"));
  const Built built = Load(file, std::nullopt);
  ASSERT_TRUE(built.program.has_value()) << testing::PrintToString(built.errors);
  const auto r = exec::Run(*built.program, *built.program->FindPlan(""),
                           {Floats({2, 3}, {0, 0, 0, 0, 0, 0})}, RunOptions{});
  ASSERT_FALSE(r.failure) << Describe(r);
  ASSERT_EQ(r.outputs.size(), 5u);
  EXPECT_EQ(r.outputs[0].int_value, 3);
  EXPECT_EQ(r.outputs[1].int_value, 6);
  // Python semantics: -7 // 3 = -3, -7 % 3 = 2.
  EXPECT_EQ(r.outputs[2].int_value, -3);
  EXPECT_EQ(r.outputs[3].int_value, 2);
  EXPECT_TRUE(r.outputs[4].bool_value);
}

TEST(PteKernels, DynamicBoundOutputsResizeToTheInput) {
  const auto r = RunRecipe(
      Plan(
          R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [8], "dynamism": "dynamic_bound"}},
               {"name": "two", "double": 2.0},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [8], "dynamism": "dynamic_bound"}}])",
          R"(["x"])", R"(["y"])",
          R"([{"kernel": "aten::mul.Scalar_out", "args": ["x", "two", "y"]}])"),
      {Floats({3}, {1, 2, 3})});
  ExpectValues(r, 0, {2, 4, 6}, {3});
}

TEST(PteKernels, StaticInputRefusesAnotherShape) {
  const auto r =
      RunRecipe(Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "two", "double": 2.0},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [4]}}])",
                     R"(["x"])", R"(["y"])",
                     R"([{"kernel": "aten::mul.Scalar_out", "args": ["x", "two", "y"]}])"),
                {Floats({3}, {1, 2, 3})});
  ASSERT_TRUE(r.failure);
  EXPECT_NE(r.failure->message.find("has shape [4]"), std::string::npos) << r.failure->message;
}

TEST(PteKernels, UnknownOperatorAndDelegateAreUnsupported) {
  const auto op = RunRecipe(
      Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [2]}},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [2]}}])",
           R"(["x"])", R"(["y"])", R"([{"kernel": "etnp::lstm.out", "args": ["x", "y"]}])"),
      {Floats({2}, {1, 2})});
  ASSERT_TRUE(op.failure);
  EXPECT_EQ(op.failure->outcome, Outcome::kUnsupported);
  EXPECT_NE(op.failure->message.find("etnp::lstm.out"), std::string::npos) << op.failure->message;

  nlohmann::json recipe =
      Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [2], "memory": "none"}},
                                   {"name": "y", "tensor": {"dtype": "float", "sizes": [2], "memory": "none"}}])",
           R"(["x"])", R"(["y"])", R"([{"delegate": "d", "args": ["x", "y"]}])");
  recipe["plans"][0]["delegates"] = nlohmann::json::parse(
      R"([{"name": "d", "backend": "XnnpackBackend", "place": "inline", "payload": {"size": 16, "fill": 1}}])");
  const auto delegate = RunRecipe(recipe, {Floats({2}, {1, 2})});
  ASSERT_TRUE(delegate.failure);
  EXPECT_EQ(delegate.failure->outcome, Outcome::kUnsupported);
  EXPECT_NE(delegate.failure->message.find("XnnpackBackend"), std::string::npos)
      << delegate.failure->message;
}

TEST(PteKernels, WrongArgumentKindIsInvalidNotACrash) {
  const auto r = RunRecipe(
      Plan(R"([{"name": "x", "tensor": {"dtype": "float", "sizes": [2]}},
               {"name": "k", "int": 3},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [2]}}])",
           R"(["x"])", R"(["y"])", R"([{"kernel": "aten::mul.out", "args": ["x", "k", "y"]}])"),
      {Floats({2}, {1, 2})});
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->outcome, Outcome::kInvalid);
  EXPECT_NE(r.failure->message.find("takes a Tensor"), std::string::npos) << r.failure->message;
}

TEST(PteKernels, EveryOperatorOfTheRealFilesHasAKernel) {
  for (const char* name : {"aten::add.out",
                           "aten::sub.out",
                           "aten::mul.out",
                           "aten::mul.Scalar_out",
                           "aten::mm.out",
                           "aten::addmm.out",
                           "aten::permute_copy.out",
                           "aten::view_copy.out",
                           "aten::expand_copy.out",
                           "aten::alias_copy.out",
                           "aten::clone.out",
                           "aten::tanh.out",
                           "aten::neg.out",
                           "aten::pow.Tensor_Scalar_out",
                           "aten::full_like.out",
                           "aten::sum.IntList_out",
                           "aten::mean.out",
                           "aten::eq.Scalar_out",
                           "aten::where.self_out",
                           "aten::convolution.out",
                           "dim_order_ops::_to_dim_order_copy.out",
                           "dim_order_ops::_clone_dim_order.out",
                           "quantized_decomposed::quantize_per_tensor.out",
                           "quantized_decomposed::dequantize_per_tensor.out"}) {
    EXPECT_NE(FindKernel(name), nullptr) << name;
  }
  EXPECT_EQ(FindKernel("cortex_m::quantized_linear.out"), nullptr);
}

}  // namespace
}  // namespace accelcheck::pte::exec::test
