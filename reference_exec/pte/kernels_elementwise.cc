// Elementwise operators with ATen broadcasting and type promotion
// (docs/formats/pte.md §7): add, sub, mul, mul.Scalar, tanh, neg,
// pow.Tensor_Scalar, eq.Scalar, where.self. Each computes in the promoted
// type (int64 for integral types) and casts to out's dtype; the common case
// of one floating dtype and equal shapes runs a plain loop the compiler
// vectorises.
#include <cmath>

#include "reference_exec/pte/broadcast.h"
#include "reference_exec/pte/kernels.h"
#include "validators/core/text.h"

namespace accelcheck::pte::exec {

namespace {

// Elementwise kernels read every tensor in C order: any other dim_order is
// run only when every operand has the same shape and dim_order.
void CheckLayouts(const KernelArgs& a, std::initializer_list<const Tensor*> tensors,
                  const std::vector<int64_t>& out_shape) {
  const Tensor* first = *tensors.begin();
  bool same = true;
  bool contiguous = true;
  for (const Tensor* t : tensors) {
    same = same && t->sizes == out_shape && t->dim_order == first->dim_order;
    contiguous = contiguous && t->contiguous();
  }
  if (!same && !contiguous)
    Unsupported(Str(a.op(), ": broadcasting over a non-contiguous dim_order is not run"));
}

void CheckCast(const KernelArgs& a, DType from, const Tensor& out) {
  if (!CanCast(from, out.dtype()))
    Invalid(Str(a.op(), ": the result type ", DTypeName(from), " cannot be cast to out's ",
                DTypeName(out.dtype()), " (value ", out.value, ")"));
}

// Integral arithmetic wraps, as two's complement hardware does, instead of
// overflowing (undefined in C++).
template <typename C>
C Add(C p, C q) {
  if constexpr (std::is_integral_v<C>) {
    return static_cast<C>(static_cast<uint64_t>(p) + static_cast<uint64_t>(q));
  } else {
    return p + q;
  }
}
template <typename C>
C Mul(C p, C q) {
  if constexpr (std::is_integral_v<C>) {
    return static_cast<C>(static_cast<uint64_t>(p) * static_cast<uint64_t>(q));
  } else {
    return p * q;
  }
}

// The type a kernel computes in: floating types as themselves, every
// integral type and bool as int64.
template <typename F>
void WithComputeType(DType common, F&& f) {
  if (common == DType::kFloat) return f(float{});
  if (common == DType::kDouble) return f(double{});
  return f(int64_t{});
}

// out = op(x, y) over the broadcast shape, computed in C.
template <typename C, typename Op>
void BinaryLoop(KernelArgs& a, const Tensor& x, const Tensor& y, Tensor& out, Op op) {
  const uint8_t* px = a.Data(x);
  const uint8_t* py = a.Data(y);
  uint8_t* po = a.Data(out);
  const DType tx = x.dtype(), ty = y.dtype(), to = out.dtype();
  const uint64_t n = out.numel();
  if constexpr (!std::is_same_v<C, int64_t>) {
    if (tx == to && ty == to && sizeof(C) == SizeOf(to) && IsFloating(to)) {
      const C* xs = reinterpret_cast<const C*>(px);
      const C* ys = reinterpret_cast<const C*>(py);
      C* os = reinterpret_cast<C*>(po);
      if (x.sizes == out.sizes && y.sizes == out.sizes) {
        for (uint64_t i = 0; i < n; ++i) os[i] = op(xs[i], ys[i]);
        return;
      }
      if (x.sizes == out.sizes && y.numel() == 1) {
        const C s = ys[0];
        for (uint64_t i = 0; i < n; ++i) os[i] = op(xs[i], s);
        return;
      }
    }
  }
  const std::array<std::vector<int64_t>, 2> strides = {BroadcastStrides(x.sizes, out.sizes),
                                                       BroadcastStrides(y.sizes, out.sizes)};
  ForEachBroadcast<2>(out.sizes, strides, [&](uint64_t i, const std::array<int64_t, 2>& at) {
    StoreAs<C>(to, po, i, op(LoadAs<C>(tx, px, at[0]), LoadAs<C>(ty, py, at[1])));
  });
}

// A binary tensor-tensor kernel: shapes broadcast, types promote.
template <typename MakeOp>
void BinaryKernel(KernelArgs& a, Tensor& x, Tensor& y, Tensor& out, MakeOp make_op) {
  const std::vector<int64_t> shape = BroadcastShapes(a.op(), x.sizes, y.sizes);
  a.Resize(out, shape);
  CheckLayouts(a, {&x, &y, &out}, shape);
  const DType common = Promote(x.dtype(), y.dtype());
  CheckCast(a, common, out);
  WithComputeType(common, [&](auto tag) {
    using C = decltype(tag);
    BinaryLoop<C>(a, x, y, out, make_op(C{}));
  });
}

// alpha of add and sub: no floating alpha with an integral common type,
// no bool alpha for sub (§7).
template <typename C>
C Alpha(const KernelArgs& a, const Scalar& alpha, DType common, bool allow_bool) {
  if (alpha.type == DType::kDouble && !IsFloating(common))
    Invalid(Str(a.op(), ": a floating alpha with the integral type ", DTypeName(common)));
  if (alpha.type == DType::kBool && !allow_bool) Invalid(Str(a.op(), ": alpha is a Bool"));
  return static_cast<C>(alpha.type == DType::kDouble ? alpha.d : static_cast<double>(alpha.i));
}

void AddOrSub(KernelArgs& a, bool subtract) {
  a.ExpectCount(5);  // self, other, alpha, out, ret
  Tensor& x = a.TensorArg(0);
  Tensor& y = a.TensorArg(1);
  const Scalar alpha = a.ScalarArg(2);
  Tensor& out = a.TensorArg(3);
  const DType common = Promote(x.dtype(), y.dtype());
  if (subtract && common == DType::kBool) Invalid(Str(a.op(), ": bool operands"));
  BinaryKernel(a, x, y, out, [&](auto tag) {
    using C = decltype(tag);
    const C k = Alpha<C>(a, alpha, common, !subtract);
    const C sign = subtract ? C(-1) : C(1);
    return [k, sign](C p, C q) { return Add(p, Mul(Mul(sign, k), q)); };
  });
}

// The promoted type of a tensor and a Scalar: the scalar raises the
// category (bool < integral < floating) to its default type only (§7).
DType PromoteWithScalar(DType tensor, const Scalar& s) {
  if (s.type == DType::kDouble && !IsFloating(tensor)) return DType::kFloat;
  if (s.type == DType::kLong && tensor == DType::kBool) return DType::kLong;
  return tensor;
}

template <typename C>
C ScalarAs(const Scalar& s) {
  return static_cast<C>(s.type == DType::kDouble ? s.d : static_cast<double>(s.i));
}

// out = op(x) elementwise in C, x and out of the same shape.
template <typename C, typename Op>
void UnaryLoop(KernelArgs& a, const Tensor& x, Tensor& out, Op op) {
  const uint8_t* px = a.Data(x);
  uint8_t* po = a.Data(out);
  const DType tx = x.dtype(), to = out.dtype();
  const uint64_t n = out.numel();
  if constexpr (!std::is_same_v<C, int64_t>) {
    if (tx == to && sizeof(C) == SizeOf(to) && IsFloating(to)) {
      const C* xs = reinterpret_cast<const C*>(px);
      C* os = reinterpret_cast<C*>(po);
      for (uint64_t i = 0; i < n; ++i) os[i] = op(xs[i]);
      return;
    }
  }
  for (uint64_t i = 0; i < n; ++i) StoreAs<C>(to, po, i, op(LoadAs<C>(tx, px, i)));
}

// A unary kernel computing in `common`, out resized to x's shape.
template <typename MakeOp>
void UnaryKernel(KernelArgs& a, Tensor& x, Tensor& out, DType common, MakeOp make_op) {
  a.Resize(out, x.sizes);
  if (x.dim_order != out.dim_order)
    Unsupported(Str(a.op(), ": self and out have different dim_orders"));
  CheckCast(a, common, out);
  WithComputeType(common, [&](auto tag) {
    using C = decltype(tag);
    UnaryLoop<C>(a, x, out, make_op(C{}));
  });
}

}  // namespace

void AddOut(KernelArgs& a) { AddOrSub(a, false); }
void SubOut(KernelArgs& a) { AddOrSub(a, true); }

void MulOut(KernelArgs& a) {
  a.ExpectCount(4);  // self, other, out, ret
  BinaryKernel(a, a.TensorArg(0), a.TensorArg(1), a.TensorArg(2), [](auto tag) {
    using C = decltype(tag);
    return [](C p, C q) { return Mul(p, q); };
  });
}

void MulScalarOut(KernelArgs& a) {
  a.ExpectCount(4);  // self, other, out, ret
  Tensor& x = a.TensorArg(0);
  const Scalar s = a.ScalarArg(1);
  UnaryKernel(a, x, a.TensorArg(2), PromoteWithScalar(x.dtype(), s), [&](auto tag) {
    using C = decltype(tag);
    const C k = ScalarAs<C>(s);
    return [k](C p) { return Mul(p, k); };
  });
}

void TanhOut(KernelArgs& a) {
  a.ExpectCount(3);  // self, out, ret
  Tensor& x = a.TensorArg(0);
  // An integral input gives a floating result (§7).
  const DType common = IsFloating(x.dtype()) ? x.dtype() : DType::kFloat;
  UnaryKernel(a, x, a.TensorArg(1), common, [](auto tag) {
    using C = decltype(tag);
    return [](C p) { return C(std::tanh(p)); };
  });
}

void NegOut(KernelArgs& a) {
  a.ExpectCount(3);  // self, out, ret
  Tensor& x = a.TensorArg(0);
  if (x.dtype() == DType::kBool) Invalid(Str(a.op(), ": a bool tensor cannot be negated"));
  UnaryKernel(a, x, a.TensorArg(1), x.dtype(), [](auto tag) {
    using C = decltype(tag);
    return [](C p) { return Mul(C(-1), p); };
  });
}

void PowTensorScalarOut(KernelArgs& a) {
  a.ExpectCount(4);  // self, exponent, out, ret
  Tensor& x = a.TensorArg(0);
  const Scalar e = a.ScalarArg(1);
  UnaryKernel(a, x, a.TensorArg(2), PromoteWithScalar(x.dtype(), e), [&](auto tag) {
    using C = decltype(tag);
    const double k = e.AsDouble();
    return [k](C p) {
      if constexpr (std::is_floating_point_v<C>) {
        return k == 2 ? C(p * p) : C(std::pow(p, static_cast<C>(k)));
      } else {
        return Convert<C>(std::pow(static_cast<double>(p), k));
      }
    };
  });
}

void EqScalarOut(KernelArgs& a) {
  a.ExpectCount(4);  // self, other, out, ret
  Tensor& x = a.TensorArg(0);
  const Scalar s = a.ScalarArg(1);
  Tensor& out = a.TensorArg(2);
  a.Resize(out, x.sizes);
  const DType common = PromoteWithScalar(x.dtype(), s);
  const uint8_t* px = a.Data(x);
  uint8_t* po = a.Data(out);
  const DType tx = x.dtype(), to = out.dtype();
  const uint64_t n = out.numel();
  WithComputeType(common, [&](auto tag) {
    using C = decltype(tag);
    const C k = ScalarAs<C>(s);
    for (uint64_t i = 0; i < n; ++i) StoreAs<bool>(to, po, i, LoadAs<C>(tx, px, i) == k);
  });
}

void WhereSelfOut(KernelArgs& a) {
  a.ExpectCount(5);  // condition, self, other, out, ret
  Tensor& cond = a.TensorArg(0);
  Tensor& x = a.TensorArg(1);
  Tensor& y = a.TensorArg(2);
  Tensor& out = a.TensorArg(3);
  if (cond.dtype() != DType::kBool && cond.dtype() != DType::kByte)
    Invalid(Str(a.op(), ": the condition is ", DTypeName(cond.dtype()), ", not BOOL"));
  const std::vector<int64_t> shape =
      BroadcastShapes(a.op(), BroadcastShapes(a.op(), cond.sizes, x.sizes), y.sizes);
  a.Resize(out, shape);
  CheckLayouts(a, {&cond, &x, &y, &out}, shape);
  const DType common = Promote(x.dtype(), y.dtype());
  CheckCast(a, common, out);
  const uint8_t* pc = a.Data(cond);
  const uint8_t* px = a.Data(x);
  const uint8_t* py = a.Data(y);
  uint8_t* po = a.Data(out);
  const DType tc = cond.dtype(), tx = x.dtype(), ty = y.dtype(), to = out.dtype();
  const std::array<std::vector<int64_t>, 3> strides = {BroadcastStrides(cond.sizes, shape),
                                                       BroadcastStrides(x.sizes, shape),
                                                       BroadcastStrides(y.sizes, shape)};
  WithComputeType(common, [&](auto tag) {
    using C = decltype(tag);
    ForEachBroadcast<3>(shape, strides, [&](uint64_t i, const std::array<int64_t, 3>& at) {
      const bool c = LoadAs<bool>(tc, pc, at[0]);
      StoreAs<C>(to, po, i, c ? LoadAs<C>(tx, px, at[1]) : LoadAs<C>(ty, py, at[2]));
    });
  });
}

}  // namespace accelcheck::pte::exec
