// The operators the executor runs (docs/formats/pte.md §7): one function per
// operator family, found by registry name ("aten::add.out") in one table.
// A kernel reads its arguments through KernelArgs, which checks every
// argument's kind and throws RunFailure on a contract the program breaks.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference_exec/pte/tensor.h"

namespace accelcheck::pte::exec {

// A Scalar argument: an Int, Double or Bool value (§7 "Scalar").
struct Scalar {
  DType type = DType::kLong;  // kLong, kDouble or kBool
  int64_t i = 0;
  double d = 0;
  double AsDouble() const { return type == DType::kDouble ? d : static_cast<double>(i); }
  int64_t AsInt() const { return type == DType::kDouble ? static_cast<int64_t>(d) : i; }
};

class KernelArgs {
 public:
  KernelArgs(std::string_view op, std::span<const int32_t> args, std::vector<Value>& values,
             std::vector<Tensor>& tensors, const fb::ExecutionPlan& plan,
             uint64_t max_scratch_bytes)
      : op_(op),
        args_(args),
        values_(values),
        tensors_(tensors),
        plan_(plan),
        max_scratch_bytes_(max_scratch_bytes) {}

  std::string_view op() const { return op_; }
  size_t size() const { return args_.size(); }
  // Fails unless the call has `n` arguments (the schema's, then the return).
  void ExpectCount(size_t n) const;

  Tensor& TensorArg(size_t k);
  // A Tensor? argument: nothing for Null or the empty BYTE stand-in (§2.5).
  Tensor* OptionalTensorArg(size_t k);
  int64_t IntArg(size_t k) const;
  std::optional<int64_t> OptionalIntArg(size_t k) const;
  bool BoolArg(size_t k) const;
  double DoubleArg(size_t k) const;  // a Double or an Int
  Scalar ScalarArg(size_t k) const;
  std::vector<int64_t> IntListArg(size_t k) const;
  std::optional<std::vector<int64_t>> OptionalIntListArg(size_t k) const;
  // The value an argument names, to write the result of a prim op.
  Value& ValueArg(size_t k);

  // The bytes of `t`, failing when it has none (a freed tensor).
  uint8_t* Data(Tensor& t) const;
  const uint8_t* Data(const Tensor& t) const;
  // Gives `out` the shape `sizes` under the resize rules of §7: a STATIC
  // tensor keeps its shape; a bounded one may hold at most its serialized numel.
  void Resize(Tensor& out, const std::vector<int64_t>& sizes) const;
  // Scratch space for a kernel, bounded by --max-tensor-bytes.
  std::vector<uint8_t> Scratch(uint64_t bytes) const;

  std::string Describe(size_t k) const;  // "argument 2 (value 7)"

 private:
  const Value& At(size_t k) const;
  const fb::EValue* Serialized(size_t k) const;

  std::string_view op_;
  std::span<const int32_t> args_;
  std::vector<Value>& values_;
  std::vector<Tensor>& tensors_;
  const fb::ExecutionPlan& plan_;
  uint64_t max_scratch_bytes_;
};

using Kernel = void (*)(KernelArgs&);

// The kernel registered under `name` ("aten::add.out"), or null.
Kernel FindKernel(std::string_view name);
// Every registered name, in table order (for the docs and tests).
std::vector<std::string_view> KernelNames();

// The families, each in its own file.
void AddOut(KernelArgs& a);  // kernels_elementwise.cc
void SubOut(KernelArgs& a);
void MulOut(KernelArgs& a);
void MulScalarOut(KernelArgs& a);
void TanhOut(KernelArgs& a);
void NegOut(KernelArgs& a);
void PowTensorScalarOut(KernelArgs& a);
void EqScalarOut(KernelArgs& a);
void WhereSelfOut(KernelArgs& a);
void MmOut(KernelArgs& a);  // kernels_linear.cc
void AddmmOut(KernelArgs& a);
void ConvolutionOut(KernelArgs& a);
void PermuteCopyOut(KernelArgs& a);  // kernels_copy.cc
void ViewCopyOut(KernelArgs& a);
void EtView(KernelArgs& a);
void ExpandCopyOut(KernelArgs& a);
void AliasCopyOut(KernelArgs& a);
void CloneOut(KernelArgs& a);
void FullLikeOut(KernelArgs& a);
void ToDimOrderCopyOut(KernelArgs& a);
void CloneDimOrderOut(KernelArgs& a);
void SumIntListOut(KernelArgs& a);  // kernels_reduce.cc
void MeanOut(KernelArgs& a);
void QuantizePerTensorOut(KernelArgs& a);  // kernels_quantize.cc
void DequantizePerTensorOut(KernelArgs& a);
void PrimBinary(KernelArgs& a);  // kernels_prim.cc
void PrimUnary(KernelArgs& a);
void SymSize(KernelArgs& a);
void SymNumel(KernelArgs& a);

// C += A·B for row-major A [n,k], B [k,m], C [n,m] (kernels_linear.cc), the
// blocked loop the matmul and convolution kernels share.
void GemmAccumulate(const float* a, const float* b, float* c, int64_t n, int64_t k, int64_t m);

}  // namespace accelcheck::pte::exec
