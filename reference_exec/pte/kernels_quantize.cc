// quantize_per_tensor and dequantize_per_tensor (docs/formats/pte.md §7),
// computed in float32 as the portable kernels do: q = clamp(zp +
// nearbyint(x · (1/scale))), x = (q − zp) · scale.
#include <cmath>

#include "reference_exec/pte/kernels.h"
#include "validators/core/text.h"

namespace accelcheck::pte::exec {

namespace {

struct QuantParams {
  double scale;
  int64_t zero_point, quant_min, quant_max;
};

QuantParams ReadParams(const KernelArgs& a, const Tensor& quantized) {
  QuantParams q{a.DoubleArg(1), a.IntArg(2), a.IntArg(3), a.IntArg(4)};
  const int64_t dtype = a.IntArg(5);
  if (dtype != quantized.scalar_type)
    Invalid(Str(a.op(), ": dtype ", DTypeName(static_cast<int8_t>(dtype)),
                " but the quantized tensor is ", DTypeName(quantized.dtype())));
  if (!IsIntegral(quantized.dtype()))
    Invalid(Str(a.op(), ": the quantized tensor is ", DTypeName(quantized.dtype())));
  if (q.quant_min > q.quant_max)
    Invalid(Str(a.op(), ": quant_min ", q.quant_min, " exceeds quant_max ", q.quant_max));
  if (!(q.scale > 0) || !std::isfinite(q.scale))
    Invalid(Str(a.op(), ": scale ", q.scale, " is not positive"));
  return q;
}

}  // namespace

void QuantizePerTensorOut(KernelArgs& a) {
  a.ExpectCount(8);  // input, scale, zero_point, quant_min, quant_max, dtype, out, ret
  Tensor& x = a.TensorArg(0);
  Tensor& out = a.TensorArg(6);
  const QuantParams q = ReadParams(a, out);
  if (!IsFloating(x.dtype())) Invalid(Str(a.op(), ": the input is ", DTypeName(x.dtype())));
  a.Resize(out, x.sizes);
  const uint8_t* px = a.Data(x);
  uint8_t* po = a.Data(out);
  const float inverse = 1.0f / static_cast<float>(q.scale);
  const uint64_t n = out.numel();
  for (uint64_t i = 0; i < n; ++i) {
    const float scaled = std::nearbyint(inverse * LoadAs<float>(x.dtype(), px, i));
    const float shifted = static_cast<float>(q.zero_point) + scaled;
    const double clamped =
        std::min<double>(std::max<double>(shifted, static_cast<double>(q.quant_min)),
                         static_cast<double>(q.quant_max));
    StoreAs<int64_t>(out.dtype(), po, i, Convert<int64_t>(clamped));
  }
}

void DequantizePerTensorOut(KernelArgs& a) {
  // input, scale, zero_point, quant_min, quant_max, dtype, out_dtype, out, ret
  a.ExpectCount(9);
  Tensor& x = a.TensorArg(0);
  const QuantParams q = ReadParams(a, x);
  const auto out_dtype = a.OptionalIntArg(6);
  Tensor& out = a.TensorArg(7);
  if (out_dtype && *out_dtype != out.scalar_type)
    Invalid(Str(a.op(), ": out_dtype ", DTypeName(static_cast<int8_t>(*out_dtype)), " but out is ",
                DTypeName(out.dtype())));
  if (!IsFloating(out.dtype())) Invalid(Str(a.op(), ": out is ", DTypeName(out.dtype())));
  a.Resize(out, x.sizes);
  const uint8_t* px = a.Data(x);
  uint8_t* po = a.Data(out);
  const float scale = static_cast<float>(q.scale);
  const uint64_t n = out.numel();
  for (uint64_t i = 0; i < n; ++i) {
    const int64_t v = LoadAs<int64_t>(x.dtype(), px, i);
    StoreAs<float>(
        out.dtype(), po, i,
        static_cast<float>(static_cast<double>(v) - static_cast<double>(q.zero_point)) * scale);
  }
}

}  // namespace accelcheck::pte::exec
