// NumPy .npy arrays (format versions 1.0, 2.0 and 3.0): how the reference
// executors take inputs and give outputs. The reader checks every header
// field against the bytes present before it allocates, so that any file,
// however hostile, is either read or refused with a reason.
//
// Every dtype an executor needs: bool, signed and unsigned integers of 1-8
// bytes, float16, bfloat16, float32 and float64, in either byte order.
// NumPy has no bfloat16; the descr '<V2' is what np.save writes for an
// ml_dtypes.bfloat16 array (docs/ARCHITECTURE.md "NumPy arrays").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "validators/core/bytes.h"

namespace accelcheck::npy {

enum class Kind : uint8_t {
  kSigned,
  kUnsigned,
  kFloat,     // IEEE binary16, binary32 or binary64
  kBool,      // one byte, 0 or 1
  kBFloat16,  // the upper half of a binary32
};

struct DType {
  Kind kind = Kind::kFloat;
  unsigned bytes = 4;  // 1, 2, 4 or 8 (float: 2, 4 or 8; bool: 1; bfloat16: 2)
  bool big_endian = false;

  std::string Descr() const;  // "<f4", ">i2", "|u1", "|b1", "<V2" (bfloat16), ...
  std::string Name() const;   // "float32", "int64", "bool", "bfloat16", ...
  bool operator==(const DType&) const = default;
};

// The dtype a descr names, or nothing when it names none of the above.
std::optional<DType> ParseDescr(const std::string& descr);

struct Array {
  DType dtype;
  std::vector<uint64_t> shape;  // () for a scalar
  // Every element in C order, converted to double: exact for every float
  // dtype, bool, and integers up to 2^53 in magnitude.
  std::vector<double> values;
  // Every element in C order as its little-endian bytes (dtype.bytes each),
  // whatever the file's byte order: the exact path, for 64-bit integers
  // beyond 2^53 and for bit-for-bit comparison.
  std::vector<uint8_t> data;

  uint64_t count() const { return values.size(); }
  // Element `i`'s bits, zero-extended (two's complement for signed
  // integers, the IEEE encoding for floats).
  uint64_t Bits(uint64_t i) const;
  // Element `i` of an integer or bool array, exactly.
  int64_t Int(uint64_t i) const;    // a signed dtype (sign-extended)
  uint64_t UInt(uint64_t i) const;  // an unsigned or bool dtype
};

// What a .npy header says, checked against the bytes present: the data
// is exactly count * dtype.bytes bytes at data_offset, to the end.
struct Layout {
  DType dtype;
  std::vector<uint64_t> shape;
  bool fortran = false;
  uint64_t count = 0;  // elements
  uint64_t data_offset = 0;
};

// The layout of a .npy file without reading its data, or nothing with
// `error` set (the same checks and messages as Read).
std::optional<Layout> ReadLayout(ByteView bytes, std::string* error,
                                 uint64_t max_elements = uint64_t{1} << 32);

// Reads an array, or returns nothing and sets `error`. `max_elements` bounds
// what a header may ask for.
std::optional<Array> Read(ByteView bytes, std::string* error,
                          uint64_t max_elements = uint64_t{1} << 32);

// An array of `dtype` from each element's bits (as Array::Bits gives
// them); `values` follow from the bits.
Array FromBits(DType dtype, std::vector<uint64_t> shape, const std::vector<uint64_t>& bits);

// An array of `dtype` and `shape` holding `bytes`: its elements,
// little-endian in C order (a trailing partial element is dropped).
Array FromBytes(DType dtype, std::vector<uint64_t> shape, ByteView bytes);

// An array of `dtype` holding `values` converted as Write converts them.
Array FromValues(DType dtype, std::vector<uint64_t> shape, const std::vector<double>& values);

// The bytes of a version 1.0 file (2.0 when the header needs it) holding
// `array` exactly, in its dtype's byte order, C order.
std::vector<uint8_t> Write(const Array& array);

// The same for `values` as `dtype`: floats round to nearest even (float16
// and bfloat16 too), bool is value != 0, integer dtypes take the values
// rounded toward zero; the caller keeps them in range.
std::vector<uint8_t> Write(const std::vector<double>& values, const std::vector<uint64_t>& shape,
                           DType dtype);

// IEEE binary16 and bfloat16 to and from double, rounding to nearest even.
double HalfToDouble(uint16_t bits);
uint16_t DoubleToHalf(double value);
double BFloat16ToDouble(uint16_t bits);
uint16_t DoubleToBFloat16(double value);

}  // namespace accelcheck::npy
