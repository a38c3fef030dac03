// NumPy .npy arrays (format versions 1.0, 2.0 and 3.0): how the reference
// executors take inputs and give outputs. The reader checks every header
// field against the bytes present before it allocates, so that any file,
// however hostile, is either read or refused with a reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "validators/core/bytes.h"

namespace accelcheck::npy {

enum class Kind : uint8_t { kSigned, kUnsigned, kFloat };

struct DType {
  Kind kind = Kind::kFloat;
  unsigned bytes = 4;  // 1, 2, 4 or 8 (float: 4 or 8)
  bool big_endian = false;

  std::string Descr() const;  // "<f4", ">i2", "|u1", ...
  bool operator==(const DType&) const = default;
};

struct Array {
  DType dtype;
  std::vector<uint64_t> shape;  // () for a scalar
  // Every element in C order, converted to double (exact for every integer
  // up to 2^53 and every float32/float64).
  std::vector<double> values;

  uint64_t count() const { return values.size(); }
};

// Reads an array, or returns nothing and sets `error`. `max_elements` bounds
// what a header may ask for.
std::optional<Array> Read(ByteView bytes, std::string* error,
                          uint64_t max_elements = uint64_t{1} << 32);

// The bytes of a version 1.0 file (2.0 when the header needs it) holding
// `values` as `dtype`, C order. Integer dtypes take the values rounded
// toward zero; the caller keeps them in range.
std::vector<uint8_t> Write(const std::vector<double>& values, const std::vector<uint64_t>& shape,
                           DType dtype);

}  // namespace accelcheck::npy
