#include "reference_exec/pte/dtype.h"

#include "validators/core/text.h"

namespace accelcheck::pte::exec {

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kUnsupported:
      return "unsupported";
    case Outcome::kInvalid:
      return "invalid";
    case Outcome::kLimit:
      return "limit";
    case Outcome::kInternal:
      return "internal";
  }
  return "invalid";
}

bool IsSupported(int8_t t) {
  switch (t) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 6:
    case 7:
    case 11:
      return true;
    default:
      return false;
  }
}

std::string DTypeName(int8_t t) {
  switch (t) {
    case 0:
      return "BYTE";
    case 1:
      return "CHAR";
    case 2:
      return "SHORT";
    case 3:
      return "INT";
    case 4:
      return "LONG";
    case 5:
      return "HALF";
    case 6:
      return "FLOAT";
    case 7:
      return "DOUBLE";
    case 11:
      return "BOOL";
    case 15:
      return "BFLOAT16";
    default:
      return Str("ScalarType ", static_cast<int>(t));
  }
}

uint64_t SizeOf(DType t) {
  return Dispatch(t, [](auto tag) -> uint64_t { return sizeof(tag); });
}

DType CheckedDType(int8_t t, const std::string& what) {
  if (!IsSupported(t))
    Unsupported(Str(what, " has dtype ", DTypeName(t), ", which the executor does not run"));
  return static_cast<DType>(t);
}

namespace {

// Rank in ATen's promotion lattice for the types other than the
// uint8/int8 pair.
int Rank(DType t) {
  switch (t) {
    case DType::kBool:
      return 0;
    case DType::kByte:
      return 1;
    case DType::kChar:
      return 1;
    case DType::kShort:
      return 2;
    case DType::kInt:
      return 3;
    case DType::kLong:
      return 4;
    case DType::kFloat:
      return 5;
    case DType::kDouble:
      return 6;
  }
  return 0;
}

}  // namespace

DType Promote(DType a, DType b) {
  if (a == b) return a;
  if ((a == DType::kByte && b == DType::kChar) || (a == DType::kChar && b == DType::kByte))
    return DType::kShort;
  return Rank(a) >= Rank(b) ? a : b;
}

bool CanCast(DType from, DType to) {
  if (IsFloating(from) && !IsFloating(to)) return false;
  if (from != DType::kBool && to == DType::kBool) return false;
  return true;
}

}  // namespace accelcheck::pte::exec
