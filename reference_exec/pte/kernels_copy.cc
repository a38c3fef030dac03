// Operators that move elements without arithmetic (docs/formats/pte.md §7):
// permute_copy, view_copy, expand_copy, alias_copy, clone, full_like and the
// dim_order copies, which also change the layout and cast the dtype; and
// et_view, which moves no element at all.
#include <algorithm>
#include <cstring>

#include "reference_exec/pte/broadcast.h"
#include "reference_exec/pte/kernels.h"
#include "validators/core/text.h"

namespace accelcheck::pte::exec {

namespace {

void RequireContiguous(const KernelArgs& a, const Tensor& x, const Tensor& out) {
  if (!x.contiguous() || !out.contiguous())
    Unsupported(Str(a.op(), ": a non-contiguous dim_order is not run"));
}

void RequireSameDType(const KernelArgs& a, const Tensor& x, const Tensor& out) {
  if (x.dtype() != out.dtype())
    Invalid(Str(a.op(), ": self is ", DTypeName(x.dtype()), " but out (value ", out.value, ") is ",
                DTypeName(out.dtype())));
}

// out = x element for element, shapes equal, same dtype.
void PlainCopy(KernelArgs& a, Tensor& x, Tensor& out) {
  RequireSameDType(a, x, out);
  a.Resize(out, x.sizes);
  if (x.dim_order != out.dim_order) {
    StridedCopy(x.sizes, a.Data(x), x.dtype(), DimOrderStrides(x.sizes, x.dim_order), a.Data(out),
                out.dtype(), DimOrderStrides(out.sizes, out.dim_order));
    return;
  }
  if (x.nbytes() != 0) std::memmove(a.Data(out), a.Data(x), x.nbytes());
}

// A dim that may be negative, wrapped into [0, rank).
size_t WrapDim(const KernelArgs& a, int64_t dim, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (dim < -r || dim >= r)
    Invalid(Str(a.op(), ": dim ", dim, " is outside a rank ", rank, " tensor"));
  return static_cast<size_t>(dim < 0 ? dim + r : dim);
}

// The memory_format argument: Null, contiguous_format (0) or preserve_format (1) (§2.1).
void CheckMemoryFormat(const KernelArgs& a, size_t k) {
  const auto format = a.OptionalIntArg(k);
  if (format && *format != 0 && *format != 1)
    Invalid(
        Str(a.op(), ": memory_format ", *format, " is neither contiguous (0) nor preserve (1)"));
}

// The dim_order copies: self cast to out's dtype and laid out in out's
// dim_order (dim_order_ops_registry.py); the dim_order argument, when given,
// must be out's.
void DimOrderCopy(KernelArgs& a, bool cast) {
  a.ExpectCount(5);  // self, non_blocking, dim_order, out, ret
  Tensor& x = a.TensorArg(0);
  a.BoolArg(1);
  const auto dim_order = a.OptionalIntListArg(2);
  Tensor& out = a.TensorArg(3);
  if (!cast) RequireSameDType(a, x, out);
  if (dim_order) {
    std::vector<uint8_t> expected;
    for (int64_t d : *dim_order) expected.push_back(static_cast<uint8_t>(d));
    if (dim_order->size() != out.dim_order.size() || expected != out.dim_order)
      Invalid(Str(a.op(), ": the dim_order argument differs from out's dim_order"));
  }
  a.Resize(out, x.sizes);
  StridedCopy(x.sizes, a.Data(x), x.dtype(), DimOrderStrides(x.sizes, x.dim_order), a.Data(out),
              out.dtype(), DimOrderStrides(out.sizes, out.dim_order));
}

}  // namespace

void PermuteCopyOut(KernelArgs& a) {
  a.ExpectCount(4);  // self, dims, out, ret
  Tensor& x = a.TensorArg(0);
  const std::vector<int64_t> dims = a.IntListArg(1);
  Tensor& out = a.TensorArg(2);
  RequireSameDType(a, x, out);
  RequireContiguous(a, x, out);
  if (dims.size() != x.rank())
    Invalid(Str(a.op(), ": ", dims.size(), " dims for a rank ", x.rank(), " tensor"));
  std::vector<bool> seen(x.rank(), false);
  std::vector<int64_t> shape(x.rank());
  std::vector<int64_t> src_strides(x.rank());
  const std::vector<int64_t> strides = ContiguousStrides(x.sizes);
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t d = WrapDim(a, dims[i], x.rank());
    if (seen[d]) Invalid(Str(a.op(), ": dims is not a permutation (", d, " repeats)"));
    seen[d] = true;
    shape[i] = x.sizes[d];
    src_strides[i] = strides[d];
  }
  a.Resize(out, shape);
  StridedCopy(shape, a.Data(x), x.dtype(), src_strides, a.Data(out), out.dtype(),
              ContiguousStrides(shape));
}

namespace {

// The shape `size` gives `x`'s elements, one -1 inferred from the element
// count (§7); the count must not change.
std::vector<int64_t> ViewShape(const KernelArgs& a, const Tensor& x, std::vector<int64_t> shape) {
  std::optional<size_t> inferred;
  uint64_t known = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1 && !inferred) {
      inferred = d;
    } else if (shape[d] < 0 ||
               __builtin_mul_overflow(known, static_cast<uint64_t>(shape[d]), &known)) {
      Invalid(Str(a.op(), ": size ", ShapeText(shape), " is not a shape"));
    }
  }
  if (inferred) {
    if (known == 0 || x.numel() % known != 0)
      Invalid(
          Str(a.op(), ": cannot infer -1 in ", ShapeText(shape), " for ", x.numel(), " elements"));
    shape[*inferred] = static_cast<int64_t>(x.numel() / known);
    known = x.numel();
  }
  if (known != x.numel())
    Invalid(Str(a.op(), ": ", ShapeText(shape), " holds ", known, " elements, self ",
                ShapeText(x.sizes), " has ", x.numel()));
  return shape;
}

}  // namespace

void ViewCopyOut(KernelArgs& a) {
  a.ExpectCount(4);  // self, size, out, ret
  Tensor& x = a.TensorArg(0);
  const std::vector<int64_t> shape = a.IntListArg(1);
  Tensor& out = a.TensorArg(2);
  RequireSameDType(a, x, out);
  RequireContiguous(a, x, out);
  a.Resize(out, ViewShape(a, x, shape));
  if (x.nbytes() != 0) std::memmove(a.Data(out), a.Data(x), x.nbytes());
}

// A view copies nothing: out takes self's shape as `size` says and points at
// self's data, wherever out was planned (docs/formats/pte.md PTE-66).
void EtView(KernelArgs& a) {
  a.ExpectCount(3);  // self, size, out: no return value
  Tensor& x = a.TensorArg(0);
  const std::vector<int64_t> shape = a.IntListArg(1);
  Tensor& out = a.TensorArg(2);
  RequireSameDType(a, x, out);
  RequireContiguous(a, x, out);
  if (shape.size() != out.rank())
    Invalid(Str(a.op(), ": size ", ShapeText(shape), " for the rank ", out.rank(), " out (value ",
                out.value, ")"));
  a.Resize(out, ViewShape(a, x, shape));
  out.data = a.Data(x);
  // Writing out later writes self's bytes: out can grow no further than they go.
  out.capacity_numel = std::min(out.capacity_numel, x.capacity_numel);
}

void ExpandCopyOut(KernelArgs& a) {
  a.ExpectCount(5);  // self, size, implicit, out, ret
  Tensor& x = a.TensorArg(0);
  std::vector<int64_t> shape = a.IntListArg(1);
  a.BoolArg(2);
  Tensor& out = a.TensorArg(3);
  RequireSameDType(a, x, out);
  RequireContiguous(a, x, out);
  if (shape.size() < x.rank())
    Invalid(Str(a.op(), ": size ", ShapeText(shape), " has fewer dimensions than self ",
                ShapeText(x.sizes)));
  const size_t lead = shape.size() - x.rank();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d < lead) {
      if (shape[d] < 0) Invalid(Str(a.op(), ": a new leading dimension is ", shape[d]));
      continue;
    }
    const int64_t have = x.sizes[d - lead];
    if (shape[d] == -1) shape[d] = have;
    if (shape[d] != have && have != 1)
      Invalid(Str(a.op(), ": self ", ShapeText(x.sizes), " does not expand to ", ShapeText(shape)));
  }
  a.Resize(out, shape);
  StridedCopy(shape, a.Data(x), x.dtype(), BroadcastStrides(x.sizes, shape), a.Data(out),
              out.dtype(), ContiguousStrides(shape));
}

void AliasCopyOut(KernelArgs& a) {
  a.ExpectCount(3);  // self, out, ret
  PlainCopy(a, a.TensorArg(0), a.TensorArg(1));
}

void CloneOut(KernelArgs& a) {
  a.ExpectCount(4);  // self, memory_format, out, ret
  CheckMemoryFormat(a, 1);
  PlainCopy(a, a.TensorArg(0), a.TensorArg(2));
}

void FullLikeOut(KernelArgs& a) {
  a.ExpectCount(5);  // self, fill_value, memory_format, out, ret
  Tensor& x = a.TensorArg(0);
  const Scalar fill = a.ScalarArg(1);
  CheckMemoryFormat(a, 2);
  Tensor& out = a.TensorArg(3);
  a.Resize(out, x.sizes);
  uint8_t* po = a.Data(out);
  const uint64_t n = out.numel();
  Dispatch(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T value = fill.type == DType::kDouble ? Convert<T>(fill.d) : Convert<T>(fill.i);
    for (uint64_t i = 0; i < n; ++i) std::memcpy(po + i * sizeof(T), &value, sizeof(T));
  });
}

void ToDimOrderCopyOut(KernelArgs& a) { DimOrderCopy(a, true); }
void CloneDimOrderOut(KernelArgs& a) { DimOrderCopy(a, false); }

}  // namespace accelcheck::pte::exec
