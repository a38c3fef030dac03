// The scalar operators of dynamic-shape and control-flow programs
// (docs/formats/pte.md §5): executorch_prim::<op>.Scalar on Int, Double and
// Bool values, and aten::sym_size.int / sym_numel. The last argument is the
// value that receives the result.
#include <cmath>

#include "reference_exec/pte/kernels.h"
#include "validators/core/text.h"

namespace accelcheck::pte::exec {

namespace {

std::string_view OpName(const KernelArgs& a) {
  std::string_view name = a.op();
  name.remove_prefix(std::min(name.size(), std::string_view("executorch_prim::").size()));
  return name.substr(0, name.find('.'));
}

void SetInt(Value& v, int64_t x) {
  v.type = fb::KernelTypes::Int;
  v.int_value = x;
}
void SetDouble(Value& v, double x) {
  v.type = fb::KernelTypes::Double;
  v.double_value = x;
}
void SetBool(Value& v, bool x) {
  v.type = fb::KernelTypes::Bool;
  v.bool_value = x;
}

// Integer arithmetic that wraps instead of overflowing.
int64_t Wrap(uint64_t x) { return static_cast<int64_t>(x); }

// Python's floor division and modulo on ints (the sign follows the divisor).
int64_t FloorDiv(const KernelArgs& a, int64_t p, int64_t q) {
  if (q == 0) Invalid(Str(a.op(), ": division by zero"));
  if (p == INT64_MIN && q == -1) return INT64_MIN;
  const int64_t d = p / q;
  return (p % q != 0 && ((p < 0) != (q < 0))) ? d - 1 : d;
}
int64_t FloorMod(const KernelArgs& a, int64_t p, int64_t q) {
  if (q == 0) Invalid(Str(a.op(), ": modulo by zero"));
  if (q == -1) return 0;
  const int64_t r = p % q;
  return (r != 0 && ((r < 0) != (q < 0))) ? r + q : r;
}

}  // namespace

void PrimBinary(KernelArgs& a) {
  a.ExpectCount(3);  // a, b, out
  const Scalar x = a.ScalarArg(0);
  const Scalar y = a.ScalarArg(1);
  Value& out = a.ValueArg(2);
  const std::string_view op = OpName(a);
  const bool ints = x.type != DType::kDouble && y.type != DType::kDouble;
  const double dx = x.AsDouble(), dy = y.AsDouble();
  if (op == "eq") return SetBool(out, ints ? x.i == y.i : dx == dy);
  if (op == "gt") return SetBool(out, ints ? x.i > y.i : dx > dy);
  if (op == "ge") return SetBool(out, ints ? x.i >= y.i : dx >= dy);
  if (op == "lt") return SetBool(out, ints ? x.i < y.i : dx < dy);
  if (op == "le") return SetBool(out, ints ? x.i <= y.i : dx <= dy);
  if (op == "truediv") return SetDouble(out, dx / dy);
  if (ints) {
    const uint64_t ux = static_cast<uint64_t>(x.i), uy = static_cast<uint64_t>(y.i);
    if (op == "add") return SetInt(out, Wrap(ux + uy));
    if (op == "sub") return SetInt(out, Wrap(ux - uy));
    if (op == "mul") return SetInt(out, Wrap(ux * uy));
    if (op == "floordiv") return SetInt(out, FloorDiv(a, x.i, y.i));
    if (op == "mod") return SetInt(out, FloorMod(a, x.i, y.i));
    if (op == "sym_max") return SetInt(out, std::max(x.i, y.i));
    if (op == "sym_min") return SetInt(out, std::min(x.i, y.i));
  } else {
    if (op == "add") return SetDouble(out, dx + dy);
    if (op == "sub") return SetDouble(out, dx - dy);
    if (op == "mul") return SetDouble(out, dx * dy);
    if (op == "floordiv") return SetDouble(out, std::floor(dx / dy));
    if (op == "mod") return SetDouble(out, dx - std::floor(dx / dy) * dy);
    if (op == "sym_max") return SetDouble(out, std::max(dx, dy));
    if (op == "sym_min") return SetDouble(out, std::min(dx, dy));
  }
  Unsupported(Str(a.op(), " is not run"));
}

void PrimUnary(KernelArgs& a) {
  a.ExpectCount(2);  // a, out
  const Scalar x = a.ScalarArg(0);
  Value& out = a.ValueArg(1);
  const std::string_view op = OpName(a);
  if (op == "neg") {
    if (x.type == DType::kDouble) return SetDouble(out, -x.d);
    return SetInt(out, Wrap(0 - static_cast<uint64_t>(x.i)));
  }
  if (op == "sym_float") return SetDouble(out, x.AsDouble());
  if (op == "sym_int") return SetInt(out, x.type == DType::kDouble ? Convert<int64_t>(x.d) : x.i);
  if (op == "sym_not") return SetBool(out, x.AsDouble() == 0);
  Unsupported(Str(a.op(), " is not run"));
}

void SymSize(KernelArgs& a) {
  a.ExpectCount(3);  // self, dim, out
  const Tensor& x = a.TensorArg(0);
  const int64_t dim = a.IntArg(1);
  const int64_t rank = static_cast<int64_t>(x.rank());
  if (dim < -rank || dim >= rank)
    Invalid(Str(a.op(), ": dim ", dim, " of a rank ", rank, " tensor"));
  SetInt(a.ValueArg(2), x.sizes[static_cast<size_t>(dim < 0 ? dim + rank : dim)]);
}

void SymNumel(KernelArgs& a) {
  a.ExpectCount(2);  // self, out
  const Tensor& x = a.TensorArg(0);
  SetInt(a.ValueArg(1), static_cast<int64_t>(x.numel()));
}

}  // namespace accelcheck::pte::exec
