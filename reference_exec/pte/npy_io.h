// Tensors to and from NumPy .npy arrays (validators/core/npy.h), as the run
// command and golden cases hand them to the executor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reference_exec/pte/tensor.h"
#include "validators/core/npy.h"

namespace accelcheck::pte::exec {

// The tensor an array holds, for an input of ScalarType `want`: the array's
// dtype must be the one `want` is stored as (BOOL arrives as uint8 0/1).
// Nothing, with the reason, otherwise.
std::optional<HostTensor> FromNpy(const npy::Array& array, int8_t want, std::string* error);

// The .npy bytes of a tensor of a supported dtype (BOOL as uint8; LONG
// exact up to 2^53).
std::vector<uint8_t> ToNpy(const HostTensor& tensor);

// The .npy dtype a ScalarType is written as.
npy::DType NpyDTypeOf(DType t);

}  // namespace accelcheck::pte::exec
