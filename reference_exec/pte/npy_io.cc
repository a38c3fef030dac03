#include "reference_exec/pte/npy_io.h"

#include "validators/core/text.h"

namespace accelcheck::pte::exec {

npy::DType NpyDTypeOf(DType t) {
  switch (t) {
    case DType::kByte:
      return {npy::Kind::kUnsigned, 1, false};
    case DType::kBool:
      return {npy::Kind::kUnsigned, 1, false};
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

std::optional<HostTensor> FromNpy(const npy::Array& array, int8_t want, std::string* error) {
  if (!IsSupported(want)) {
    *error = Str("the input is ", DTypeName(want), ", which the executor does not run");
    return std::nullopt;
  }
  const DType t = static_cast<DType>(want);
  npy::DType expected = NpyDTypeOf(t);
  npy::DType given = array.dtype;
  given.big_endian = false;
  if (!(given == expected)) {
    *error = Str("the input is ", DTypeName(t), " (an array of ", expected.Descr(), "), given ",
                 array.dtype.Descr());
    return std::nullopt;
  }
  HostTensor out;
  out.scalar_type = want;
  for (uint64_t s : array.shape) out.sizes.push_back(static_cast<int64_t>(s));
  out.bytes.resize(array.count() * SizeOf(t));
  for (uint64_t i = 0; i < array.count(); ++i) {
    const double v = array.values[i];
    if (t == DType::kBool && v != 0 && v != 1) {
      *error = Str("element ", i, " of a BOOL input is ", v, ", not 0 or 1");
      return std::nullopt;
    }
    StoreAs<double>(t, out.bytes.data(), i, v);
  }
  return out;
}

std::vector<uint8_t> ToNpy(const HostTensor& tensor) {
  const DType t = CheckedDType(tensor.scalar_type, "an output");
  const uint64_t n = tensor.bytes.size() / SizeOf(t);
  std::vector<double> values(n);
  for (uint64_t i = 0; i < n; ++i) values[i] = LoadAs<double>(t, tensor.bytes.data(), i);
  std::vector<uint64_t> shape;
  for (int64_t s : tensor.sizes) shape.push_back(static_cast<uint64_t>(s));
  return npy::Write(values, shape, NpyDTypeOf(t));
}

}  // namespace accelcheck::pte::exec
