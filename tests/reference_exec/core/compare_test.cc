// Comparing arrays: every dtype, the tolerance at its edges, NaN and
// infinities as numpy.testing.assert_allclose(equal_nan=True) treats them,
// int64 beyond 2^53, and the mismatch listing with multi-dimensional indices.
#include "reference_exec/core/compare.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace accelcheck::compare {
namespace {

using npy::DType;
using npy::Kind;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

npy::Array Of(DType dtype, std::vector<double> values, std::vector<uint64_t> shape = {}) {
  if (shape.empty()) shape = {values.size()};
  return npy::FromValues(dtype, std::move(shape), values);
}

Tolerance Exact() { return Tolerance{true, 0, 0}; }
Tolerance Close(double rtol, double atol) { return Tolerance{false, rtol, atol}; }

TEST(Compare, EveryDtypeEqualsItselfAndSeesAOneUnitChange) {
  const std::vector<DType> dtypes = {
      {Kind::kBool, 1, false},     {Kind::kSigned, 1, false},   {Kind::kSigned, 2, true},
      {Kind::kSigned, 4, false},   {Kind::kSigned, 8, false},   {Kind::kUnsigned, 1, false},
      {Kind::kUnsigned, 2, false}, {Kind::kUnsigned, 4, true},  {Kind::kUnsigned, 8, false},
      {Kind::kFloat, 2, false},    {Kind::kBFloat16, 2, false}, {Kind::kFloat, 4, true},
      {Kind::kFloat, 8, false}};
  for (const DType& dtype : dtypes) {
    SCOPED_TRACE(dtype.Name());
    const npy::Array a = Of(dtype, {0, 1, 1, 0});
    EXPECT_TRUE(Compare(a, a, Exact()).equal());
    const npy::Array b = Of(dtype, {0, 1, 0, 0});
    const Comparison c = Compare(a, b, Exact());
    EXPECT_FALSE(c.equal());
    EXPECT_EQ(c.mismatches, 1u);
    ASSERT_EQ(c.first_mismatches.size(), 1u);
    EXPECT_EQ(c.first_mismatches[0].index, std::vector<uint64_t>{2});
    EXPECT_EQ(c.max_abs_error, 1.0);
  }
}

TEST(Compare, TheToleranceIsInclusiveAtItsEdge) {
  const npy::Array expected = Of({Kind::kFloat, 8, false}, {100.0});
  // atol + rtol * |expected| = 1 + 0.01 * 100 = 2.
  EXPECT_TRUE(Compare(expected, Of({Kind::kFloat, 8, false}, {102.0}), Close(0.01, 1)).equal());
  EXPECT_FALSE(
      Compare(expected, Of({Kind::kFloat, 8, false}, {102.0000001}), Close(0.01, 1)).equal());
  EXPECT_TRUE(Compare(expected, Of({Kind::kFloat, 8, false}, {98.0}), Close(0.01, 1)).equal());
  // The tolerance is relative to the expected value, not the actual one.
  const npy::Array zero = Of({Kind::kFloat, 8, false}, {0.0});
  const npy::Array small = Of({Kind::kFloat, 8, false}, {1e-9});
  EXPECT_FALSE(Compare(zero, small, Close(0.5, 0)).equal());
  EXPECT_TRUE(Compare(small, zero, Close(1.0, 0)).equal());
}

TEST(Compare, ExactFloatsCompareByValue) {
  const DType f4{Kind::kFloat, 4, false};
  EXPECT_TRUE(Compare(Of(f4, {0.0}), Of(f4, {-0.0}), Exact()).equal());
  EXPECT_FALSE(Compare(Of(f4, {1.0}), Of(f4, {std::nextafter(1.0f, 2.0f)}), Exact()).equal());
}

TEST(Compare, NaNEqualsNaNOnlyInTheSamePosition) {
  const DType f8{Kind::kFloat, 8, false};
  EXPECT_TRUE(Compare(Of(f8, {kNaN, 1}), Of(f8, {kNaN, 1}), Close(0, 0)).equal());
  EXPECT_TRUE(Compare(Of(f8, {kNaN, 1}), Of(f8, {kNaN, 1}), Exact()).equal());
  const Comparison moved = Compare(Of(f8, {kNaN, 1}), Of(f8, {1, kNaN}), Close(1e9, 1e9));
  EXPECT_EQ(moved.mismatches, 2u);
  EXPECT_EQ(moved.first_mismatches[0].expected, "nan");
  // NaN pairs count toward neither error.
  EXPECT_EQ(moved.max_abs_error, 0.0);
}

TEST(Compare, InfinitiesMatchOnlyTheSameInfinity) {
  const DType f8{Kind::kFloat, 8, false};
  EXPECT_TRUE(Compare(Of(f8, {kInf, -kInf}), Of(f8, {kInf, -kInf}), Close(0, 0)).equal());
  EXPECT_FALSE(Compare(Of(f8, {kInf}), Of(f8, {-kInf}), Close(1e9, 1e9)).equal());
  EXPECT_FALSE(Compare(Of(f8, {kInf}), Of(f8, {1e308}), Close(1e9, 1e9)).equal());
}

TEST(Compare, Int64BeyondTwoToThe53IsExact) {
  const DType i8{Kind::kSigned, 8, false};
  const uint64_t big = (uint64_t{1} << 53) + 1;
  const npy::Array a = npy::FromBits(i8, {1}, {big});
  const npy::Array b = npy::FromBits(i8, {1}, {big - 1});
  // As doubles both are 2^53; as integers they differ by one.
  ASSERT_EQ(a.values, b.values);
  const Comparison c = Compare(a, b, Exact());
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_EQ(c.first_mismatches[0].expected, "9007199254740993");
  EXPECT_EQ(c.first_mismatches[0].actual, "9007199254740992");
  EXPECT_TRUE(Compare(a, b, Close(0, 1)).equal());
  // The extremes: |INT64_MIN - INT64_MAX| does not overflow.
  const npy::Array lo = npy::FromBits(i8, {1}, {uint64_t{1} << 63});
  const npy::Array hi = npy::FromBits(i8, {1}, {(uint64_t{1} << 63) - 1});
  EXPECT_EQ(Compare(lo, hi, Exact()).max_abs_error, std::ldexp(1.0, 64));
  const DType u8{Kind::kUnsigned, 8, false};
  EXPECT_FALSE(Compare(npy::FromBits(u8, {1}, {UINT64_MAX}),
                       npy::FromBits(u8, {1}, {UINT64_MAX - 1}), Exact())
                   .equal());
}

TEST(Compare, ListsTheFirstMismatchesWithTheirIndices) {
  const DType i4{Kind::kSigned, 4, false};
  std::vector<double> expected(2 * 3 * 8, 0), actual = expected;
  for (uint64_t flat : {7u, 23u, 31u, 40u}) actual[flat] = 5;
  const Comparison c = Compare(Of(i4, expected, {2, 3, 8}), Of(i4, actual, {2, 3, 8}), Exact(), 3);
  EXPECT_EQ(c.mismatches, 4u);
  ASSERT_EQ(c.first_mismatches.size(), 3u);
  EXPECT_EQ(IndexText(c.first_mismatches[0].index), "[0,0,7]");
  EXPECT_EQ(IndexText(c.first_mismatches[1].index), "[0,2,7]");
  EXPECT_EQ(IndexText(c.first_mismatches[2].index), "[1,0,7]");
  const auto lines = MismatchLines(c);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1], "[0,2,7]: expected 0, actual 5");
  EXPECT_EQ(lines[3], "... and 1 more");
  EXPECT_EQ(SummaryText(c, Exact()).rfind("4 of 48 elements differ (exact)", 0), 0u);
}

TEST(Compare, ShapeAndDtypeMustAgree) {
  const DType i4{Kind::kSigned, 4, false};
  const Comparison shape = Compare(Of(i4, {1, 2}, {1, 2}), Of(i4, {1, 2}, {2, 1}), Exact());
  EXPECT_FALSE(shape.equal());
  EXPECT_EQ(shape.incompatible, "shape (2, 1) differs from the expected (1, 2)");
  const Comparison dtype = Compare(Of(i4, {1}), Of({Kind::kSigned, 8, false}, {1}), Exact());
  EXPECT_EQ(dtype.incompatible, "dtype int64 differs from the expected int32");
  // The byte order is not part of the value.
  EXPECT_TRUE(Compare(Of(i4, {1}), Of({Kind::kSigned, 4, true}, {1}), Exact()).equal());
}

TEST(Compare, ReportsTheLargestErrors) {
  const DType f8{Kind::kFloat, 8, false};
  const Comparison c = Compare(Of(f8, {1, 10, 0}), Of(f8, {1.5, 11, 0.25}), Close(0, 0));
  EXPECT_EQ(c.max_abs_error, 1.0);
  EXPECT_EQ(c.max_rel_error, 0.5);  // the zero expected value has no relative error
  const nlohmann::json json = ToJson(c, Close(0, 0));
  EXPECT_EQ(json["mismatches"], 3);
  EXPECT_EQ(json["first_mismatches"][0]["index"], nlohmann::json::array({0}));
  EXPECT_EQ(json["max_abs_error"], 1.0);
}

TEST(Compare, ElementsPrintExactly) {
  EXPECT_EQ(ElementText(Of({Kind::kFloat, 4, false}, {0.1}), 0), "0.1");
  EXPECT_EQ(ElementText(Of({Kind::kFloat, 8, false}, {0.1}), 0), "0.1");
  EXPECT_EQ(ElementText(Of({Kind::kFloat, 2, false}, {0.5}), 0), "0.5");
  EXPECT_EQ(ElementText(Of({Kind::kBool, 1, false}, {1}), 0), "True");
  EXPECT_EQ(ElementText(Of({Kind::kFloat, 4, false}, {-kInf}), 0), "-inf");
  EXPECT_EQ(ShapeText({}), "()");
  EXPECT_EQ(ShapeText({3}), "(3,)");
  EXPECT_EQ(IndexText({}), "[]");
}

}  // namespace
}  // namespace accelcheck::compare
