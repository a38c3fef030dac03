#include "reference_exec/pte/npy_io.h"

#include "validators/core/text.h"

namespace accelcheck::pte::exec {

npy::DType NpyDTypeOf(DType t) {
  switch (t) {
    case DType::kByte:
      return {npy::Kind::kUnsigned, 1, false};
    case DType::kBool:
      return {npy::Kind::kBool, 1, false};
    case DType::kChar:
      return {npy::Kind::kSigned, 1, false};
    case DType::kShort:
      return {npy::Kind::kSigned, 2, false};
    case DType::kInt:
      return {npy::Kind::kSigned, 4, false};
    case DType::kLong:
      return {npy::Kind::kSigned, 8, false};
    case DType::kFloat:
      return {npy::Kind::kFloat, 4, false};
    case DType::kDouble:
      return {npy::Kind::kFloat, 8, false};
  }
  return {};
}

namespace {

// NumPy writes a bool array as '|b1'; an array of uint8 0s and 1s is taken
// too, as older tools write masks that way.
bool IsBoolArray(const npy::DType& given) {
  return given == npy::DType{npy::Kind::kBool, 1, false} ||
         given == npy::DType{npy::Kind::kUnsigned, 1, false};
}

}  // namespace

std::optional<HostTensor> FromNpy(const npy::Array& array, int8_t want, std::string* error) {
  if (!IsSupported(want)) {
    *error = Str("the input is ", DTypeName(want), ", which the executor does not run");
    return std::nullopt;
  }
  const DType t = static_cast<DType>(want);
  const npy::DType expected = NpyDTypeOf(t);
  npy::DType given = array.dtype;
  given.big_endian = false;
  if (!(given == expected) && !(t == DType::kBool && IsBoolArray(given))) {
    *error = Str("the input is ", DTypeName(t), " (an array of ", expected.Descr(), "), given ",
                 array.dtype.Descr());
    return std::nullopt;
  }
  if (t == DType::kBool) {
    for (uint64_t i = 0; i < array.count(); ++i) {
      if (array.UInt(i) > 1) {
        *error = Str("element ", i, " of a BOOL input is ", array.UInt(i), ", not 0 or 1");
        return std::nullopt;
      }
    }
  }
  HostTensor out;
  out.scalar_type = want;
  for (uint64_t s : array.shape) out.sizes.push_back(static_cast<int64_t>(s));
  // Array::data holds each element's little-endian bytes, as tensors do.
  out.bytes = array.data;
  return out;
}

std::optional<HostTensor> InputFromNpy(const fb::ExecutionPlan& plan, size_t i,
                                       const npy::Array& array, std::string* error) {
  const int32_t v = plan.inputs()->Get(static_cast<uint32_t>(i));
  const auto* tensor = plan.values()->Get(static_cast<uint32_t>(v))->val_as_Tensor();
  if (tensor != nullptr) return FromNpy(array, static_cast<int8_t>(tensor->scalar_type()), error);
  const DType scalar = array.dtype.kind == npy::Kind::kFloat ? DType::kDouble : DType::kLong;
  return FromNpy(array, static_cast<int8_t>(scalar), error);
}

npy::Array ToNpyArray(const HostTensor& tensor) {
  const DType t = CheckedDType(tensor.scalar_type, "an output");
  const uint64_t size = SizeOf(t);
  const uint64_t n = tensor.bytes.size() / size;
  std::vector<uint64_t> bits(n, 0);
  for (uint64_t i = 0; i < n; ++i) {
    for (uint64_t b = 0; b < size; ++b)
      bits[i] |= static_cast<uint64_t>(tensor.bytes[i * size + b]) << (8 * b);
  }
  std::vector<uint64_t> shape;
  for (int64_t s : tensor.sizes) shape.push_back(static_cast<uint64_t>(s));
  return npy::FromBits(NpyDTypeOf(t), std::move(shape), bits);
}

std::vector<uint8_t> ToNpy(const HostTensor& tensor) { return npy::Write(ToNpyArray(tensor)); }

std::optional<npy::Array> OutputToNpy(const HostValue& value) {
  switch (value.type) {
    case fb::KernelTypes::Tensor:
      if (!IsSupported(value.tensor.scalar_type)) return std::nullopt;
      return ToNpyArray(value.tensor);
    case fb::KernelTypes::Int:
      return npy::FromBits({npy::Kind::kSigned, 8, false}, {},
                           {static_cast<uint64_t>(value.int_value)});
    case fb::KernelTypes::Double:
      return npy::FromValues({npy::Kind::kFloat, 8, false}, {}, {value.double_value});
    case fb::KernelTypes::Bool:
      return npy::FromValues({npy::Kind::kBool, 1, false}, {}, {value.bool_value ? 1.0 : 0.0});
    case fb::KernelTypes::String: {
      std::vector<uint64_t> bytes(value.string_value.begin(), value.string_value.end());
      for (uint64_t& byte : bytes) byte &= 0xff;  // char may be signed
      return npy::FromBits({npy::Kind::kUnsigned, 1, false}, {bytes.size()}, bytes);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace accelcheck::pte::exec
