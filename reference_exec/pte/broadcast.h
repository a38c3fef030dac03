// ATen broadcasting (docs/formats/pte.md §7): shapes aligned at their last
// dimension, a size 1 stretched to the other size.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "reference_exec/pte/tensor.h"

namespace accelcheck::pte::exec {

// The broadcast shape of `a` and `b`; fails (naming `op`) when a pair of
// dimensions is neither equal nor 1.
std::vector<int64_t> BroadcastShapes(std::string_view op, const std::vector<int64_t>& a,
                                     const std::vector<int64_t>& b);

// The element strides of a contiguous tensor of shape `in` read as shape
// `out` (0 along broadcast dimensions). `in` must broadcast to `out`.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& in,
                                      const std::vector<int64_t>& out);

// Calls f(out_index, offsets) for every element of `shape` in C order, with
// the element offset of each of the N inputs by its strides.
template <size_t N, typename F>
void ForEachBroadcast(const std::vector<int64_t>& shape,
                      const std::array<std::vector<int64_t>, N>& strides, F&& f) {
  uint64_t total = 1;
  for (int64_t s : shape) total *= static_cast<uint64_t>(s);
  if (total == 0) return;
  const size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  std::array<int64_t, N> offsets{};
  const int64_t inner = rank == 0 ? 1 : shape[rank - 1];
  std::array<int64_t, N> inner_stride{};
  for (size_t k = 0; k < N; ++k) inner_stride[k] = rank == 0 ? 0 : strides[k][rank - 1];
  for (uint64_t out = 0; out < total;) {
    std::array<int64_t, N> at = offsets;
    for (int64_t i = 0; i < inner; ++i, ++out) {
      f(out, at);
      for (size_t k = 0; k < N; ++k) at[k] += inner_stride[k];
    }
    // Carry into the outer dimensions.
    for (size_t d = rank == 0 ? 0 : rank - 1; d-- > 0;) {
      ++index[d];
      for (size_t k = 0; k < N; ++k) offsets[k] += strides[k][d];
      if (index[d] < shape[d]) break;
      for (size_t k = 0; k < N; ++k) offsets[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
  }
}

// Copies every element of `shape` in C order: the source element at offset
// at[0] (in `from`'s dtype) to the destination at at[1] (in `to`'s dtype).
void StridedCopy(const std::vector<int64_t>& shape, const uint8_t* src, DType from,
                 const std::vector<int64_t>& src_strides, uint8_t* dst, DType to,
                 const std::vector<int64_t>& dst_strides);

}  // namespace accelcheck::pte::exec
