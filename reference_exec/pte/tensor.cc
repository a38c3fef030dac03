#include "reference_exec/pte/tensor.h"

#include "validators/core/text.h"

namespace accelcheck::pte::exec {

DType Tensor::dtype() const { return CheckedDType(scalar_type, Str("value ", value)); }

bool Tensor::contiguous() const {
  for (size_t d = 0; d < dim_order.size(); ++d) {
    if (dim_order[d] != d) return false;
  }
  return true;
}

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * sizes[d];
  return strides;
}

std::vector<int64_t> DimOrderStrides(const std::vector<int64_t>& sizes,
                                     const std::vector<uint8_t>& dim_order) {
  std::vector<int64_t> strides(sizes.size(), 1);
  int64_t stride = 1;
  for (size_t k = dim_order.size(); k-- > 0;) {
    strides[dim_order[k]] = stride;
    stride *= sizes[dim_order[k]];
  }
  return strides;
}

std::string ShapeText(const std::vector<int64_t>& sizes) {
  std::string text = "[";
  for (size_t d = 0; d < sizes.size(); ++d) text += Str(d ? ", " : "", sizes[d]);
  return text + "]";
}

}  // namespace accelcheck::pte::exec
