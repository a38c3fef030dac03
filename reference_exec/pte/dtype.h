// The element types the executor computes with (docs/formats/pte.md §2.1):
// their C++ types, ATen's type promotion and casting rules (§7).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "reference_exec/pte/failure.h"

namespace accelcheck::pte::exec {

// ScalarType numbers of the types the kernels run. Others (HALF, BFLOAT16,
// the quantized and bit types) end a run as unsupported.
enum class DType : int8_t {
  kByte = 0,    // uint8
  kChar = 1,    // int8
  kShort = 2,   // int16
  kInt = 3,     // int32
  kLong = 4,    // int64
  kFloat = 6,   // float32
  kDouble = 7,  // float64
  kBool = 11,
};

bool IsSupported(int8_t scalar_type);
// "FLOAT", or "ScalarType 5" for a type this executor does not run.
std::string DTypeName(int8_t scalar_type);
inline std::string DTypeName(DType t) { return DTypeName(static_cast<int8_t>(t)); }
// Bytes per element of a supported type.
uint64_t SizeOf(DType t);
// A supported type, or an unsupported failure naming `what`.
DType CheckedDType(int8_t scalar_type, const std::string& what);

inline bool IsFloating(DType t) { return t == DType::kFloat || t == DType::kDouble; }
inline bool IsIntegral(DType t) { return !IsFloating(t) && t != DType::kBool; }

// ATen promoteTypes over the supported types (uint8 with int8 gives int16).
DType Promote(DType a, DType b);
// ATen canCast: no floating to integral, nothing but bool to bool.
bool CanCast(DType from, DType to);

// Calls f(T{}) with the C++ type of `t`.
template <typename F>
decltype(auto) Dispatch(DType t, F&& f) {
  switch (t) {
    case DType::kByte:
      return f(uint8_t{});
    case DType::kChar:
      return f(int8_t{});
    case DType::kShort:
      return f(int16_t{});
    case DType::kInt:
      return f(int32_t{});
    case DType::kLong:
      return f(int64_t{});
    case DType::kFloat:
      return f(float{});
    case DType::kDouble:
      return f(double{});
    case DType::kBool:
      return f(bool{});
  }
  return f(float{});
}

// Converts one element as a C++ static_cast does; a bool is v != 0. Floating
// values outside an integral type's range saturate instead of being undefined.
template <typename To, typename From>
To Convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From{};
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (!(v == v)) return To{};  // NaN
    const long double x = v;
    if (x <= static_cast<long double>(std::numeric_limits<To>::min()))
      return std::numeric_limits<To>::min();
    if (x >= static_cast<long double>(std::numeric_limits<To>::max()))
      return std::numeric_limits<To>::max();
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Element i of an array of type `t` at `base`, converted to T. The bytes may
// be unaligned.
template <typename T>
T LoadAs(DType t, const uint8_t* base, uint64_t i) {
  return Dispatch(t, [&](auto tag) -> T {
    using S = decltype(tag);
    S s;
    std::memcpy(&s, base + i * sizeof(S), sizeof(S));
    return Convert<T>(s);
  });
}

template <typename T>
void StoreAs(DType t, uint8_t* base, uint64_t i, T v) {
  Dispatch(t, [&](auto tag) {
    using D = decltype(tag);
    const D d = Convert<D>(v);
    std::memcpy(base + i * sizeof(D), &d, sizeof(D));
  });
}

}  // namespace accelcheck::pte::exec
