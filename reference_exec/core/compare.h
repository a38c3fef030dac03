// Comparing an executor's output array with the expected one, as
// `accelcheck compare` and the golden runner do (docs/ARCHITECTURE.md
// "Comparing arrays"). An element matches, as numpy.testing.assert_allclose
// with equal_nan=True decides, when
//   |actual - expected| <= atol + rtol * |expected|,
// or both are NaN, or both are the same infinity. Exact comparison is equality of
// values: integers compared as integers (int64 and uint64 past 2^53
// included), floats by value (so -0 equals +0, and NaN equals NaN in the
// same position).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "validators/core/npy.h"

namespace accelcheck::compare {

struct Tolerance {
  bool exact = false;
  // numpy.testing.assert_allclose's defaults.
  double rtol = 1e-7;
  double atol = 0;

  std::string Text() const;  // "exact" or "rtol 1e-07, atol 0"
};

struct Mismatch {
  std::vector<uint64_t> index;  // multi-dimensional, C order
  std::string expected;         // the element as text, exactly
  std::string actual;
};

struct Comparison {
  // Set when the arrays cannot be compared element by element: "shape (2, 3)
  // differs from the expected (3, 2)", "dtype int64 differs from the
  // expected int32". Nothing else is then filled in.
  std::string incompatible;
  uint64_t elements = 0;
  uint64_t mismatches = 0;
  // Over the pairs of finite elements; relative to a nonzero expected value.
  double max_abs_error = 0;
  double max_rel_error = 0;
  std::vector<Mismatch> first_mismatches;  // at most the number asked for

  bool equal() const { return incompatible.empty() && mismatches == 0; }
};

// Compares `actual` with `expected` element by element when their shapes
// and dtypes (byte order aside) agree, listing the first `max_listed`
// mismatches.
Comparison Compare(const npy::Array& expected, const npy::Array& actual, const Tolerance& tolerance,
                   size_t max_listed = 5);

// "[0,2,7]": the index of flat element `flat` in an array of `shape`;
// "[]" for a scalar.
std::string IndexText(const std::vector<uint64_t>& index);
std::vector<uint64_t> UnflattenIndex(const std::vector<uint64_t>& shape, uint64_t flat);

// "(2, 3)", as NumPy prints a shape.
std::string ShapeText(const std::vector<uint64_t>& shape);

// Element `i` as text: integers in full, floats with enough digits to
// round-trip their dtype, "nan", "inf", "-inf".
std::string ElementText(const npy::Array& array, uint64_t i);

// The lines `compare` prints for one pair, after "NAME: ".
std::string SummaryText(const Comparison& comparison, const Tolerance& tolerance);
std::vector<std::string> MismatchLines(const Comparison& comparison);

// The comparison as a JSON object (errors that are not finite as null).
nlohmann::json ToJson(const Comparison& comparison, const Tolerance& tolerance);

}  // namespace accelcheck::compare
