// The operator table and the argument accessors every kernel uses
// (docs/formats/pte.md §7, "Argument layout").
#include "reference_exec/pte/kernels.h"

#include <cstring>

#include "validators/core/core_rules.h"
#include "validators/core/text.h"

namespace accelcheck::pte::exec {

namespace {

struct Registration {
  std::string_view name;
  Kernel kernel;
};

// Registry names are name + "." + overload (§2.5 "Operators").
constexpr Registration kKernels[] = {
    {"aten::add.out", AddOut},
    {"aten::sub.out", SubOut},
    {"aten::mul.out", MulOut},
    {"aten::mul.Scalar_out", MulScalarOut},
    {"aten::tanh.out", TanhOut},
    {"aten::neg.out", NegOut},
    {"aten::pow.Tensor_Scalar_out", PowTensorScalarOut},
    {"aten::eq.Scalar_out", EqScalarOut},
    {"aten::where.self_out", WhereSelfOut},
    {"aten::mm.out", MmOut},
    {"aten::addmm.out", AddmmOut},
    {"aten::convolution.out", ConvolutionOut},
    {"aten::permute_copy.out", PermuteCopyOut},
    {"aten::view_copy.out", ViewCopyOut},
    {"executorch_prim::et_view.default", EtView},
    {"aten::expand_copy.out", ExpandCopyOut},
    {"aten::alias_copy.out", AliasCopyOut},
    {"aten::clone.out", CloneOut},
    {"aten::full_like.out", FullLikeOut},
    {"aten::sum.IntList_out", SumIntListOut},
    {"aten::mean.out", MeanOut},
    {"dim_order_ops::_to_dim_order_copy.out", ToDimOrderCopyOut},
    {"dim_order_ops::_clone_dim_order.out", CloneDimOrderOut},
    {"quantized_decomposed::quantize_per_tensor.out", QuantizePerTensorOut},
    {"quantized_decomposed::dequantize_per_tensor.out", DequantizePerTensorOut},
    {"executorch_prim::add.Scalar", PrimBinary},
    {"executorch_prim::sub.Scalar", PrimBinary},
    {"executorch_prim::mul.Scalar", PrimBinary},
    {"executorch_prim::floordiv.Scalar", PrimBinary},
    {"executorch_prim::truediv.Scalar", PrimBinary},
    {"executorch_prim::mod.Scalar", PrimBinary},
    {"executorch_prim::eq.Scalar", PrimBinary},
    {"executorch_prim::gt.Scalar", PrimBinary},
    {"executorch_prim::ge.Scalar", PrimBinary},
    {"executorch_prim::lt.Scalar", PrimBinary},
    {"executorch_prim::le.Scalar", PrimBinary},
    {"executorch_prim::sym_max.Scalar", PrimBinary},
    {"executorch_prim::sym_min.Scalar", PrimBinary},
    {"executorch_prim::neg.Scalar", PrimUnary},
    {"executorch_prim::sym_float.Scalar", PrimUnary},
    {"executorch_prim::sym_int.Scalar", PrimUnary},
    {"executorch_prim::sym_not.Scalar", PrimUnary},
    {"aten::sym_size.int", SymSize},
    {"aten::sym_numel", SymNumel},
};

std::string_view TypeName(fb::KernelTypes t) {
  const char* name = fb::EnumNameKernelTypes(t);
  return name != nullptr && *name != '\0' ? name : "an unknown type";
}

}  // namespace

Kernel FindKernel(std::string_view name) {
  for (const Registration& r : kKernels) {
    if (r.name == name) return r.kernel;
  }
  return nullptr;
}

std::vector<std::string_view> KernelNames() {
  std::vector<std::string_view> names;
  for (const Registration& r : kKernels) names.push_back(r.name);
  return names;
}

void KernelArgs::ExpectCount(size_t n) const {
  if (args_.size() != n) {
    Invalid(Str(op_, " takes ", n, " arguments (its schema's and the return value), the call has ",
                args_.size()));
  }
}

std::string KernelArgs::Describe(size_t k) const {
  return Str(op_, " argument ", k, " (value ", k < args_.size() ? args_[k] : -1, ")");
}

const Value& KernelArgs::At(size_t k) const {
  if (k >= args_.size()) Invalid(Str(op_, " has no argument ", k));
  return values_[static_cast<size_t>(args_[k])];
}

const fb::EValue* KernelArgs::Serialized(size_t k) const {
  return plan_.values()->Get(static_cast<uint32_t>(args_[k]));
}

Value& KernelArgs::ValueArg(size_t k) {
  At(k);
  return values_[static_cast<size_t>(args_[k])];
}

Tensor& KernelArgs::TensorArg(size_t k) {
  const Value& v = At(k);
  if (v.type != fb::KernelTypes::Tensor)
    Invalid(Str(Describe(k), " is ", TypeName(v.type), ", the kernel takes a Tensor"));
  return tensors_[v.tensor];
}

Tensor* KernelArgs::OptionalTensorArg(size_t k) {
  const Value& v = At(k);
  if (v.type == fb::KernelTypes::Null) return nullptr;
  Tensor& t = TensorArg(k);
  if (t.scalar_type == static_cast<int8_t>(DType::kByte) && t.sizes.size() == 1 && t.sizes[0] == 0)
    return nullptr;
  return &t;
}

int64_t KernelArgs::IntArg(size_t k) const {
  const Value& v = At(k);
  if (v.type != fb::KernelTypes::Int)
    Invalid(Str(Describe(k), " is ", TypeName(v.type), ", the kernel takes an Int"));
  return v.int_value;
}

std::optional<int64_t> KernelArgs::OptionalIntArg(size_t k) const {
  if (At(k).type == fb::KernelTypes::Null) return std::nullopt;
  return IntArg(k);
}

bool KernelArgs::BoolArg(size_t k) const {
  const Value& v = At(k);
  if (v.type != fb::KernelTypes::Bool)
    Invalid(Str(Describe(k), " is ", TypeName(v.type), ", the kernel takes a Bool"));
  return v.bool_value;
}

double KernelArgs::DoubleArg(size_t k) const {
  const Value& v = At(k);
  if (v.type == fb::KernelTypes::Double) return v.double_value;
  if (v.type == fb::KernelTypes::Int) return static_cast<double>(v.int_value);
  Invalid(Str(Describe(k), " is ", TypeName(v.type), ", the kernel takes a Double"));
}

Scalar KernelArgs::ScalarArg(size_t k) const {
  const Value& v = At(k);
  switch (v.type) {
    case fb::KernelTypes::Int:
      return {DType::kLong, v.int_value, 0};
    case fb::KernelTypes::Double:
      return {DType::kDouble, 0, v.double_value};
    case fb::KernelTypes::Bool:
      return {DType::kBool, v.bool_value ? 1 : 0, 0};
    default:
      Invalid(Str(Describe(k), " is ", TypeName(v.type), ", the kernel takes a Scalar"));
  }
}

std::vector<int64_t> KernelArgs::IntListArg(size_t k) const {
  const Value& v = At(k);
  if (v.type != fb::KernelTypes::IntList)
    Invalid(Str(Describe(k), " is ", TypeName(v.type), ", the kernel takes an IntList"));
  // Items are indices of Int values (§2.5); the validator checked them.
  const auto* items = Serialized(k)->val_as_IntList()->items();
  std::vector<int64_t> out;
  out.reserve(items->size());
  for (const int64_t item : *items) {
    const Value& element = values_[static_cast<size_t>(item)];
    if (element.type != fb::KernelTypes::Int)
      Invalid(Str(Describe(k), " has an item that is not an Int"));
    out.push_back(element.int_value);
  }
  return out;
}

std::optional<std::vector<int64_t>> KernelArgs::OptionalIntListArg(size_t k) const {
  if (At(k).type == fb::KernelTypes::Null) return std::nullopt;
  return IntListArg(k);
}

uint8_t* KernelArgs::Data(Tensor& t) const {
  if (t.data == nullptr && t.capacity_bytes() != 0)
    Invalid(
        Str(op_, " reads or writes value ", t.value, ", which holds no data (freed or never set)"));
  return t.data;
}

const uint8_t* KernelArgs::Data(const Tensor& t) const { return Data(const_cast<Tensor&>(t)); }

void KernelArgs::Resize(Tensor& out, const std::vector<int64_t>& sizes) const {
  if (sizes == out.sizes) return;
  if (sizes.size() != out.sizes.size())
    Invalid(Str(op_, ": out (value ", out.value, ") has rank ", out.sizes.size(),
                " but the result has shape ", ShapeText(sizes)));
  if (out.dynamism == fb::TensorShapeDynamism::STATIC)
    Invalid(Str(op_, ": the STATIC out (value ", out.value, ") has shape ", ShapeText(out.sizes),
                " but the result has shape ", ShapeText(sizes)));
  uint64_t numel = 1;
  for (int64_t s : sizes) {
    if (s < 0 || __builtin_mul_overflow(numel, static_cast<uint64_t>(s), &numel))
      Invalid(Str(op_, ": the result shape ", ShapeText(sizes), " has no valid element count"));
  }
  if (numel > out.capacity_numel)
    Invalid(Str(op_, ": the result shape ", ShapeText(sizes), " has ", numel,
                " elements, more than the bound ", out.capacity_numel, " of out (value ", out.value,
                ")"));
  out.sizes = sizes;
}

std::vector<uint8_t> KernelArgs::Scratch(uint64_t bytes) const {
  if (bytes > max_scratch_bytes_)
    LimitHit(core_rules::kLimitTensorBytes,
             Str(op_, " needs ", bytes, " bytes of scratch, more than --max-tensor-bytes ",
                 max_scratch_bytes_));
  return std::vector<uint8_t>(bytes);
}

}  // namespace accelcheck::pte::exec
