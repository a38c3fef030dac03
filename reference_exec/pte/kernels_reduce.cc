// sum.IntList and mean.dim (docs/formats/pte.md §7): a None or empty dim
// list reduces every dimension. Floating sums accumulate in double,
// integral ones in int64 (wrapping).
#include "reference_exec/pte/broadcast.h"
#include "reference_exec/pte/kernels.h"
#include "validators/core/text.h"

namespace accelcheck::pte::exec {

namespace {

struct Reduction {
  std::vector<int64_t> out_shape;
  // Strides of out (as an accumulator array) read along the input's shape:
  // 0 along the reduced dimensions.
  std::vector<int64_t> out_strides;
  uint64_t count = 1;  // input elements per output element
};

Reduction Plan(const KernelArgs& a, const Tensor& x,
               const std::optional<std::vector<int64_t>>& dims, bool keepdim) {
  const size_t rank = x.rank();
  std::vector<bool> reduced(rank, !dims || dims->empty());
  if (dims) {
    for (int64_t dim : *dims) {
      const int64_t r = static_cast<int64_t>(std::max<size_t>(rank, 1));
      if (dim < -r || dim >= r)
        Invalid(Str(a.op(), ": dim ", dim, " is outside a rank ", rank, " tensor"));
      const size_t d = static_cast<size_t>(dim < 0 ? dim + r : dim);
      if (d < rank) {
        if (reduced[d]) Invalid(Str(a.op(), ": dim ", d, " appears twice"));
        reduced[d] = true;
      }
    }
  }
  Reduction r;
  std::vector<int64_t> kept;  // the input dimension of each output dimension
  for (size_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      r.count *= static_cast<uint64_t>(x.sizes[d]);
      if (keepdim) r.out_shape.push_back(1);
    } else {
      r.out_shape.push_back(x.sizes[d]);
    }
    if (!reduced[d] || keepdim) kept.push_back(reduced[d] ? -1 : static_cast<int64_t>(d));
  }
  const std::vector<int64_t> contiguous = ContiguousStrides(r.out_shape);
  r.out_strides.assign(rank, 0);
  for (size_t k = 0; k < kept.size(); ++k) {
    if (kept[k] >= 0) r.out_strides[static_cast<size_t>(kept[k])] = contiguous[k];
  }
  return r;
}

void Reduce(KernelArgs& a, bool mean) {
  a.ExpectCount(6);  // self, dim, keepdim, dtype, out, ret
  Tensor& x = a.TensorArg(0);
  const auto dims = a.OptionalIntListArg(1);
  const bool keepdim = a.BoolArg(2);
  const auto dtype = a.OptionalIntArg(3);
  Tensor& out = a.TensorArg(4);
  if (dtype && *dtype != out.scalar_type)
    Invalid(Str(a.op(), ": dtype ", DTypeName(static_cast<int8_t>(*dtype)), " but out is ",
                DTypeName(out.dtype())));
  if (!x.contiguous() || !out.contiguous())
    Unsupported(Str(a.op(), ": a non-contiguous dim_order is not run"));
  if (mean && !IsFloating(out.dtype()))
    Invalid(Str(a.op(), ": the mean of ", DTypeName(x.dtype()), " into ", DTypeName(out.dtype()),
                " (out must be floating)"));
  const Reduction r = Plan(a, x, dims, keepdim);
  a.Resize(out, r.out_shape);
  const uint8_t* px = a.Data(x);
  uint8_t* po = a.Data(out);
  const DType tx = x.dtype(), to = out.dtype();
  const uint64_t n = out.numel();
  const std::array<std::vector<int64_t>, 1> strides = {r.out_strides};
  auto accumulate = [&](auto tag) {
    using A = decltype(tag);
    std::vector<A> acc(n, A{0});
    ForEachBroadcast<1>(x.sizes, strides, [&](uint64_t i, const std::array<int64_t, 1>& at) {
      if constexpr (std::is_integral_v<A>) {
        acc[at[0]] = static_cast<A>(static_cast<uint64_t>(acc[at[0]]) +
                                    static_cast<uint64_t>(LoadAs<A>(tx, px, i)));
      } else {
        acc[at[0]] += LoadAs<A>(tx, px, i);
      }
    });
    for (uint64_t i = 0; i < n; ++i) {
      if constexpr (std::is_integral_v<A>) {
        StoreAs<A>(to, po, i, acc[i]);
      } else {
        StoreAs<A>(to, po, i, mean ? acc[i] / static_cast<A>(r.count) : acc[i]);
      }
    }
  };
  if (IsFloating(x.dtype()) || IsFloating(to)) {
    accumulate(double{});
  } else {
    accumulate(int64_t{});
  }
}

}  // namespace

void SumIntListOut(KernelArgs& a) { Reduce(a, false); }
void MeanOut(KernelArgs& a) { Reduce(a, true); }

}  // namespace accelcheck::pte::exec
