// The run-time state of a program's values (docs/formats/pte.md §2.5, §3.4):
// tensors with their current shape and where their bytes live, and the
// scalar values prim ops and kernels read and write.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference_exec/pte/dtype.h"
#include "validators/pte/schema/program_generated.h"

namespace accelcheck::pte::exec {

namespace fb = executorch_flatbuffer;

struct Tensor {
  int8_t scalar_type = 0;
  uint64_t element_size = 1;
  std::vector<int64_t> sizes;  // the current shape (kernels resize outputs)
  std::vector<uint8_t> dim_order;
  uint64_t capacity_numel = 0;  // the serialized shape's numel: the bound of a resize
  fb::TensorShapeDynamism dynamism = fb::TensorShapeDynamism::STATIC;
  uint8_t* data = nullptr;  // null: no data (a freed tensor, an input never set)
  uint32_t value = 0;       // the value that declares it
  // Where planned memory puts it (allocation_info), whatever the mode.
  bool planned = false;
  uint32_t memory_id = 0;
  uint64_t memory_offset = 0;

  uint64_t numel() const {
    uint64_t n = 1;
    for (int64_t s : sizes) n *= static_cast<uint64_t>(s);
    return n;
  }
  uint64_t nbytes() const { return numel() * element_size; }
  uint64_t capacity_bytes() const { return capacity_numel * element_size; }
  size_t rank() const { return sizes.size(); }
  int64_t size(size_t d) const { return sizes[d]; }
  DType dtype() const;      // a supported type, or an unsupported failure
  bool contiguous() const;  // dim_order is 0, 1, ..., rank-1
};

// Values as the kernels see them. Lists and strings are read from the
// program when they are used; an IntList's items name Int values, whose
// current numbers it holds (§2.5).
struct Value {
  fb::KernelTypes type = fb::KernelTypes::NONE;
  int64_t int_value = 0;
  double double_value = 0;
  bool bool_value = false;
  uint32_t tensor = 0;  // index of the Tensor, for Tensor values
};

// A tensor handed to or taken from a run: its bytes, C order, in its dtype.
struct HostTensor {
  int8_t scalar_type = static_cast<int8_t>(DType::kFloat);
  std::vector<int64_t> sizes;
  std::vector<uint8_t> bytes;
};

// An output of a method: a tensor, or a scalar of a constant method.
struct HostValue {
  fb::KernelTypes type = fb::KernelTypes::Null;
  HostTensor tensor;
  int64_t int_value = 0;
  double double_value = 0;
  bool bool_value = false;
  std::string string_value;
};

// Row-major strides of `sizes` in elements.
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& sizes);
// Strides of a tensor laid out in `dim_order` (dim_order[0] outermost).
std::vector<int64_t> DimOrderStrides(const std::vector<int64_t>& sizes,
                                     const std::vector<uint8_t>& dim_order);
std::string ShapeText(const std::vector<int64_t>& sizes);

}  // namespace accelcheck::pte::exec
