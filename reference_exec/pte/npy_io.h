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
// dtype must be the one `want` is written as (BOOL also as uint8 0/1).
// Nothing, with the reason, otherwise. Every value is taken exactly.
std::optional<HostTensor> FromNpy(const npy::Array& array, int8_t want, std::string* error);

// Plan input `i` from its array: a tensor input's as FromNpy takes it; a
// scalar input takes a 0-d array of the traced value (docs/formats/pte.md
// §3.5), integer or float.
std::optional<HostTensor> InputFromNpy(const fb::ExecutionPlan& plan, size_t i,
                                       const npy::Array& array, std::string* error);

// A tensor of a supported dtype as an array, exactly (BOOL as bool).
npy::Array ToNpyArray(const HostTensor& tensor);
// The .npy bytes of the same.
std::vector<uint8_t> ToNpy(const HostTensor& tensor);

// An output as an array: a tensor as ToNpyArray gives it, an Int as a 0-d
// int64, a Double as float64, a Bool as bool, a String as its bytes (uint8).
// Nothing for a value no array holds (None, a list, a tensor of a dtype the
// executor does not run).
std::optional<npy::Array> OutputToNpy(const HostValue& value);

// The .npy dtype a ScalarType is written as.
npy::DType NpyDTypeOf(DType t);

}  // namespace accelcheck::pte::exec
