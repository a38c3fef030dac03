#include "reference_exec/pte/broadcast.h"

#include <cstring>

#include "validators/core/text.h"

namespace accelcheck::pte::exec {

std::vector<int64_t> BroadcastShapes(std::string_view op, const std::vector<int64_t>& a,
                                     const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank, 1);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t y = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (x != y && x != 1 && y != 1)
      Invalid(Str(op, ": shapes ", ShapeText(a), " and ", ShapeText(b), " do not broadcast"));
    out[rank - 1 - k] = x == 1 ? y : x;
  }
  return out;
}

std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& in,
                                      const std::vector<int64_t>& out) {
  const std::vector<int64_t> contiguous = ContiguousStrides(in);
  std::vector<int64_t> strides(out.size(), 0);
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t d = out.size() - in.size() + k;
    strides[d] = in[k] == 1 ? 0 : contiguous[k];
  }
  return strides;
}

void StridedCopy(const std::vector<int64_t>& shape, const uint8_t* src, DType from,
                 const std::vector<int64_t>& src_strides, uint8_t* dst, DType to,
                 const std::vector<int64_t>& dst_strides) {
  const std::array<std::vector<int64_t>, 2> strides = {src_strides, dst_strides};
  if (from == to) {
    Dispatch(from, [&](auto tag) {
      using T = decltype(tag);
      ForEachBroadcast<2>(shape, strides, [&](uint64_t, const std::array<int64_t, 2>& at) {
        std::memcpy(dst + at[1] * sizeof(T), src + at[0] * sizeof(T), sizeof(T));
      });
    });
    return;
  }
  Dispatch(to, [&](auto tag) {
    using T = decltype(tag);
    ForEachBroadcast<2>(shape, strides, [&](uint64_t, const std::array<int64_t, 2>& at) {
      StoreAs<T>(to, dst, at[1], LoadAs<T>(from, src, at[0]));
    });
  });
}

}  // namespace accelcheck::pte::exec
