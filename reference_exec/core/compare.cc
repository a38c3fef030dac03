#include "reference_exec/core/compare.h"

#include <charconv>
#include <cmath>

#include "validators/core/text.h"

namespace accelcheck::compare {

namespace {

bool IsIntegral(npy::Kind kind) {
  return kind == npy::Kind::kSigned || kind == npy::Kind::kUnsigned || kind == npy::Kind::kBool;
}

// What one pair of elements contributes: whether it matches and, for a pair
// of finite values, its absolute error and the expected magnitude.
struct PairResult {
  bool matches = false;
  bool finite = false;
  double abs_error = 0;
  double expected_magnitude = 0;
};

// Integers compare exactly, without a detour through double: |a - b| fits
// in 64 unsigned bits for any two int64 or any two uint64.
PairResult CompareIntegers(const npy::Array& expected, const npy::Array& actual, uint64_t i,
                           const Tolerance& tolerance) {
  PairResult result;
  result.finite = true;
  uint64_t difference = 0;
  if (expected.dtype.kind == npy::Kind::kSigned) {
    const int64_t e = expected.Int(i), a = actual.Int(i);
    difference = a >= e ? static_cast<uint64_t>(a) - static_cast<uint64_t>(e)
                        : static_cast<uint64_t>(e) - static_cast<uint64_t>(a);
    result.expected_magnitude = std::fabs(static_cast<double>(e));
  } else {
    const uint64_t e = expected.UInt(i), a = actual.UInt(i);
    difference = a >= e ? a - e : e - a;
    result.expected_magnitude = static_cast<double>(e);
  }
  result.abs_error = static_cast<double>(difference);
  result.matches =
      difference == 0 ||
      (!tolerance.exact &&
       result.abs_error <= tolerance.atol + tolerance.rtol * result.expected_magnitude);
  return result;
}

PairResult CompareFloats(double e, double a, const Tolerance& tolerance) {
  PairResult result;
  if (std::isnan(e) || std::isnan(a)) {
    result.matches = std::isnan(e) && std::isnan(a);  // equal_nan=True
    return result;
  }
  if (std::isinf(e) || std::isinf(a)) {
    result.matches = e == a;
    return result;
  }
  result.finite = true;
  result.abs_error = std::fabs(a - e);
  result.expected_magnitude = std::fabs(e);
  result.matches =
      tolerance.exact
          ? a == e
          : result.abs_error <= tolerance.atol + tolerance.rtol * result.expected_magnitude;
  return result;
}

std::string DoubleText(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return std::string(buffer, end);
}

nlohmann::json FiniteOrNull(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace

std::string Tolerance::Text() const {
  return exact ? "exact" : Str("rtol ", DoubleText(rtol), ", atol ", DoubleText(atol));
}

std::vector<uint64_t> UnflattenIndex(const std::vector<uint64_t>& shape, uint64_t flat) {
  std::vector<uint64_t> index(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) continue;
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

std::string IndexText(const std::vector<uint64_t>& index) {
  std::string text = "[";
  for (size_t d = 0; d < index.size(); ++d) text += Str(d == 0 ? "" : ",", index[d]);
  return text + "]";
}

std::string ShapeText(const std::vector<uint64_t>& shape) {
  std::string text = "(";
  for (size_t d = 0; d < shape.size(); ++d) text += Str(d == 0 ? "" : ", ", shape[d]);
  if (shape.size() == 1) text += ",";
  return text + ")";
}

std::string ElementText(const npy::Array& array, uint64_t i) {
  switch (array.dtype.kind) {
    case npy::Kind::kSigned:
      return Str(array.Int(i));
    case npy::Kind::kUnsigned:
      return Str(array.UInt(i));
    case npy::Kind::kBool:
      return array.UInt(i) != 0 ? "True" : "False";
    case npy::Kind::kFloat:
      if (array.dtype.bytes == 4) {
        // The shortest text that reads back as the same float32.
        const auto value = static_cast<float>(array.values[i]);
        if (!std::isfinite(value)) return DoubleText(value);
        char buffer[64];
        const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
        return std::string(buffer, end);
      }
      return DoubleText(array.values[i]);
    case npy::Kind::kBFloat16:
      return DoubleText(array.values[i]);
  }
  return "?";
}

Comparison Compare(const npy::Array& expected, const npy::Array& actual, const Tolerance& tolerance,
                   size_t max_listed) {
  Comparison result;
  if (expected.dtype.kind != actual.dtype.kind || expected.dtype.bytes != actual.dtype.bytes) {
    result.incompatible =
        Str("dtype ", actual.dtype.Name(), " differs from the expected ", expected.dtype.Name());
    return result;
  }
  if (expected.shape != actual.shape) {
    result.incompatible = Str("shape ", ShapeText(actual.shape), " differs from the expected ",
                              ShapeText(expected.shape));
    return result;
  }
  const bool integral = IsIntegral(expected.dtype.kind);
  result.elements = expected.count();
  for (uint64_t i = 0; i < result.elements; ++i) {
    const PairResult pair = integral
                                ? CompareIntegers(expected, actual, i, tolerance)
                                : CompareFloats(expected.values[i], actual.values[i], tolerance);
    if (pair.finite) {
      result.max_abs_error = std::max(result.max_abs_error, pair.abs_error);
      if (pair.expected_magnitude != 0) {
        result.max_rel_error =
            std::max(result.max_rel_error, pair.abs_error / pair.expected_magnitude);
      }
    }
    if (pair.matches) continue;
    ++result.mismatches;
    if (result.first_mismatches.size() < max_listed) {
      result.first_mismatches.push_back(
          {UnflattenIndex(expected.shape, i), ElementText(expected, i), ElementText(actual, i)});
    }
  }
  return result;
}

std::string SummaryText(const Comparison& comparison, const Tolerance& tolerance) {
  if (!comparison.incompatible.empty()) return comparison.incompatible;
  const std::string errors = Str("max absolute error ", DoubleText(comparison.max_abs_error),
                                 ", max relative error ", DoubleText(comparison.max_rel_error));
  if (comparison.equal()) {
    return Str("equal, ", comparison.elements, " elements (", tolerance.Text(), "); ", errors);
  }
  return Str(comparison.mismatches, " of ", comparison.elements, " elements differ (",
             tolerance.Text(), "); ", errors);
}

std::vector<std::string> MismatchLines(const Comparison& comparison) {
  std::vector<std::string> lines;
  for (const Mismatch& m : comparison.first_mismatches)
    lines.push_back(Str(IndexText(m.index), ": expected ", m.expected, ", actual ", m.actual));
  if (comparison.mismatches > comparison.first_mismatches.size())
    lines.push_back(
        Str("... and ", comparison.mismatches - comparison.first_mismatches.size(), " more"));
  return lines;
}

nlohmann::json ToJson(const Comparison& comparison, const Tolerance& tolerance) {
  nlohmann::json out = {{"equal", comparison.equal()}};
  out["tolerance"] = tolerance.exact
                         ? nlohmann::json("exact")
                         : nlohmann::json{{"rtol", tolerance.rtol}, {"atol", tolerance.atol}};
  if (!comparison.incompatible.empty()) {
    out["incompatible"] = comparison.incompatible;
    return out;
  }
  out["elements"] = comparison.elements;
  out["mismatches"] = comparison.mismatches;
  out["max_abs_error"] = FiniteOrNull(comparison.max_abs_error);
  out["max_rel_error"] = FiniteOrNull(comparison.max_rel_error);
  out["first_mismatches"] = nlohmann::json::array();
  for (const Mismatch& m : comparison.first_mismatches) {
    out["first_mismatches"].push_back(
        {{"index", m.index}, {"expected", m.expected}, {"actual", m.actual}});
  }
  return out;
}

}  // namespace accelcheck::compare
