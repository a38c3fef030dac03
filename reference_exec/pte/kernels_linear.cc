// mm, addmm and convolution (docs/formats/pte.md §7). All three reduce to
// C += A·B on row-major matrices: float32 through a register-blocked loop
// (GemmAccumulate), double through a plain one. convolution lowers each
// image and group to a matrix of input patches (im2col) first.
#include <algorithm>
#include <cstring>

#include "reference_exec/pte/broadcast.h"
#include "reference_exec/pte/kernels.h"
#include "validators/core/core_rules.h"
#include "validators/core/text.h"

namespace accelcheck::pte::exec {

namespace {

// A tile of R rows by V columns of C stays in registers while the whole
// depth kb of A and B streams past it.
template <int R, int V>
void MicroKernel(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
                 int64_t kb) {
  float acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = c[r * ldc + v];
  for (int64_t p = 0; p < kb; ++p) {
    const float* bp = b + p * ldb;
    for (int r = 0; r < R; ++r) {
      const float ar = a[r * lda + p];
      for (int v = 0; v < V; ++v) acc[r][v] += ar * bp[v];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) c[r * ldc + v] = acc[r][v];
}

// The columns [j, m) that do not fill a whole tile.
void EdgeColumns(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
                 int64_t rows, int64_t j, int64_t m, int64_t kb) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t p = 0; p < kb; ++p) {
      const float ar = a[r * lda + p];
      for (int64_t col = j; col < m; ++col) c[r * ldc + col] += ar * b[p * ldb + col];
    }
  }
}

template <typename T>
void PlainGemmAccumulate(const T* a, const T* b, T* c, int64_t n, int64_t k, int64_t m) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = 0; p < k; ++p) {
      const T ap = a[i * k + p];
      for (int64_t j = 0; j < m; ++j) c[i * m + j] += ap * b[p * m + j];
    }
}

template <typename T>
void Gemm(const T* a, const T* b, T* c, int64_t n, int64_t k, int64_t m) {
  if constexpr (std::is_same_v<T, float>) {
    GemmAccumulate(a, b, c, n, k, m);
  } else {
    PlainGemmAccumulate(a, b, c, n, k, m);
  }
}

// The matrix operands of mm and addmm: floating, one dtype, 2-D, inner
// dimensions equal.
DType CheckMatrices(const KernelArgs& a, const Tensor& x, const Tensor& y, const Tensor& out) {
  if (x.rank() != 2 || y.rank() != 2)
    Invalid(Str(a.op(), ": the matrices have shapes ", ShapeText(x.sizes), " and ",
                ShapeText(y.sizes), ", not 2-D"));
  if (x.size(1) != y.size(0))
    Invalid(Str(a.op(), ": ", ShapeText(x.sizes), " times ", ShapeText(y.sizes),
                ": the inner dimensions differ"));
  const DType t = x.dtype();
  if (y.dtype() != t || out.dtype() != t)
    Invalid(Str(a.op(), ": the matrices and out have dtypes ", DTypeName(t), ", ",
                DTypeName(y.dtype()), ", ", DTypeName(out.dtype()), "; the kernel needs one"));
  if (!IsFloating(t))
    Unsupported(Str(a.op(), " on ", DTypeName(t), " is not run (float and double are)"));
  if (!x.contiguous() || !y.contiguous() || !out.contiguous())
    Unsupported(Str(a.op(), ": a non-contiguous dim_order is not run"));
  return t;
}

// out = beta·bias (broadcast to out's shape), or zeros when beta is 0 (ATen
// then ignores bias, NaN included).
template <typename T>
void FillWithBias(KernelArgs& a, const Tensor* bias, double beta, Tensor& out) {
  T* o = reinterpret_cast<T*>(a.Data(out));
  const uint64_t n = out.numel();
  if (bias == nullptr || beta == 0) {
    std::fill(o, o + n, T{0});
    return;
  }
  const uint8_t* pb = a.Data(*bias);
  const DType tb = bias->dtype();
  const T k = static_cast<T>(beta);
  const std::array<std::vector<int64_t>, 1> strides = {BroadcastStrides(bias->sizes, out.sizes)};
  ForEachBroadcast<1>(out.sizes, strides, [&](uint64_t i, const std::array<int64_t, 1>& at) {
    o[i] = k * LoadAs<T>(tb, pb, at[0]);
  });
}

// out += alpha·(x·y).
template <typename T>
void AccumulateProduct(KernelArgs& a, const Tensor& x, const Tensor& y, double alpha, Tensor& out) {
  const int64_t n = x.size(0), k = x.size(1), m = y.size(1);
  const T* px = reinterpret_cast<const T*>(a.Data(x));
  const T* py = reinterpret_cast<const T*>(a.Data(y));
  T* po = reinterpret_cast<T*>(a.Data(out));
  if (alpha == 1) {
    Gemm<T>(px, py, po, n, k, m);
    return;
  }
  std::vector<uint8_t> scratch = a.Scratch(out.nbytes());
  T* product = reinterpret_cast<T*>(scratch.data());
  std::fill(product, product + n * m, T{0});
  Gemm<T>(px, py, product, n, k, m);
  const T scale = static_cast<T>(alpha);
  for (int64_t i = 0; i < n * m; ++i) po[i] += scale * product[i];
}

void MatrixProduct(KernelArgs& a, const Tensor* bias, const Tensor& x, const Tensor& y, double beta,
                   double alpha, Tensor& out) {
  const DType t = CheckMatrices(a, x, y, out);
  const std::vector<int64_t> shape = {x.size(0), y.size(1)};
  if (bias != nullptr) BroadcastShapes(a.op(), bias->sizes, shape);
  a.Resize(out, shape);
  Dispatch(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      FillWithBias<T>(a, bias, beta, out);
      AccumulateProduct<T>(a, x, y, alpha, out);
    }
  });
}

// The spatial parameters of a convolution, one per spatial dimension (a
// single value stands for all of them).
std::vector<int64_t> PerDimension(const KernelArgs& a, const std::vector<int64_t>& list,
                                  size_t dims, const char* what, int64_t minimum) {
  if (list.size() != 1 && list.size() != dims)
    Invalid(
        Str(a.op(), ": ", what, " has ", list.size(), " items for ", dims, " spatial dimensions"));
  std::vector<int64_t> out(dims);
  for (size_t d = 0; d < dims; ++d) {
    out[d] = list.size() == 1 ? list[0] : list[d];
    // The bound keeps every size computed from them far from overflow.
    if (out[d] < minimum || out[d] > (int64_t{1} << 31))
      Invalid(Str(a.op(), ": ", what, " ", out[d], " is outside [", minimum, ", 2^31]"));
  }
  return out;
}

// The geometry of a 1-D or 2-D convolution, 1-D as 2-D with height 1.
struct ConvShape {
  int64_t batch, in_channels, in_h, in_w;
  int64_t out_channels, kernel_h, kernel_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
  int64_t groups, out_h, out_w;
};

ConvShape ConvGeometry(KernelArgs& a, const Tensor& in, const Tensor& w) {
  if ((in.rank() != 3 && in.rank() != 4) || w.rank() != in.rank())
    Unsupported(Str(a.op(), ": input ", ShapeText(in.sizes), " and weight ", ShapeText(w.sizes),
                    ": only 1-D and 2-D convolutions are run"));
  const size_t dims = in.rank() - 2;
  const auto stride = PerDimension(a, a.IntListArg(3), dims, "stride", 1);
  const auto padding = PerDimension(a, a.IntListArg(4), dims, "padding", 0);
  const auto dilation = PerDimension(a, a.IntListArg(5), dims, "dilation", 1);
  if (a.BoolArg(6)) Unsupported(Str(a.op(), ": transposed convolution is not run"));
  ConvShape s{};
  s.groups = a.IntArg(8);
  s.batch = in.size(0);
  s.in_channels = in.size(1);
  s.out_channels = w.size(0);
  const bool two_d = dims == 2;
  s.in_h = two_d ? in.size(2) : 1;
  s.in_w = in.size(in.rank() - 1);
  s.kernel_h = two_d ? w.size(2) : 1;
  s.kernel_w = w.size(w.rank() - 1);
  s.stride_h = two_d ? stride[0] : 1;
  s.stride_w = stride.back();
  s.pad_h = two_d ? padding[0] : 0;
  s.pad_w = padding.back();
  s.dil_h = two_d ? dilation[0] : 1;
  s.dil_w = dilation.back();
  // groups is checked against the channels before it multiplies anything.
  if (s.groups < 1 || s.groups > s.in_channels || s.in_channels % s.groups != 0 ||
      s.out_channels % s.groups != 0 || w.size(1) * s.groups != s.in_channels)
    Invalid(Str(a.op(), ": groups ", s.groups, " do not divide input ", ShapeText(in.sizes),
                " and weight ", ShapeText(w.sizes)));
  const int64_t span_h = s.dil_h * (s.kernel_h - 1) + 1;
  const int64_t span_w = s.dil_w * (s.kernel_w - 1) + 1;
  s.out_h = (s.in_h + 2 * s.pad_h - span_h) / s.stride_h + 1;
  s.out_w = (s.in_w + 2 * s.pad_w - span_w) / s.stride_w + 1;
  if (s.in_h + 2 * s.pad_h < span_h || s.in_w + 2 * s.pad_w < span_w)
    Invalid(Str(a.op(), ": the kernel ", ShapeText(w.sizes), " is larger than the padded input ",
                ShapeText(in.sizes)));
  return s;
}

// The patches of one image and group: row (c, kh, kw), column (oh, ow).
template <typename T>
void Im2Col(const T* image, const ConvShape& s, int64_t channels, T* col) {
  const int64_t plane = s.out_h * s.out_w;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t kh = 0; kh < s.kernel_h; ++kh)
      for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
        T* row = col + ((c * s.kernel_h + kh) * s.kernel_w + kw) * plane;
        for (int64_t oh = 0; oh < s.out_h; ++oh) {
          const int64_t ih = oh * s.stride_h - s.pad_h + kh * s.dil_h;
          for (int64_t ow = 0; ow < s.out_w; ++ow) {
            const int64_t iw = ow * s.stride_w - s.pad_w + kw * s.dil_w;
            const bool inside = ih >= 0 && ih < s.in_h && iw >= 0 && iw < s.in_w;
            row[oh * s.out_w + ow] = inside ? image[(c * s.in_h + ih) * s.in_w + iw] : T{0};
          }
        }
      }
}

template <typename T>
void Convolve(KernelArgs& a, const Tensor& in, const Tensor& w, const Tensor* bias,
              const ConvShape& s, Tensor& out) {
  const int64_t group_in = s.in_channels / s.groups;
  const int64_t group_out = s.out_channels / s.groups;
  const int64_t depth = group_in * s.kernel_h * s.kernel_w;
  const int64_t plane = s.out_h * s.out_w;
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(depth), static_cast<uint64_t>(plane), &bytes) ||
      __builtin_mul_overflow(bytes, sizeof(T), &bytes))
    LimitHit(core_rules::kLimitTensorBytes,
             Str(a.op(), ": the input patches need more than 2^64 bytes"));
  std::vector<uint8_t> scratch = a.Scratch(bytes);
  T* col = reinterpret_cast<T*>(scratch.data());
  const T* pin = reinterpret_cast<const T*>(a.Data(in));
  const T* pw = reinterpret_cast<const T*>(a.Data(w));
  T* po = reinterpret_cast<T*>(a.Data(out));
  const uint8_t* pb = bias != nullptr ? a.Data(*bias) : nullptr;
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t oc = 0; oc < s.out_channels; ++oc) {
      const T value = pb != nullptr ? LoadAs<T>(bias->dtype(), pb, oc) : T{0};
      std::fill_n(po + (n * s.out_channels + oc) * plane, plane, value);
    }
    for (int64_t g = 0; g < s.groups; ++g) {
      Im2Col(pin + (n * s.in_channels + g * group_in) * s.in_h * s.in_w, s, group_in, col);
      Gemm<T>(pw + g * group_out * depth, col, po + (n * s.out_channels + g * group_out) * plane,
              group_out, depth, plane);
    }
  }
}

}  // namespace

void GemmAccumulate(const float* a, const float* b, float* c, int64_t n, int64_t k, int64_t m) {
  constexpr int kRows = 4;
  constexpr int kCols = 8;
  // A block of B (kDepth rows by kWidth columns) is reused by every row of A.
  constexpr int64_t kDepth = 256;
  constexpr int64_t kWidth = 512;
  for (int64_t j0 = 0; j0 < m; j0 += kWidth) {
    const int64_t j1 = std::min(m, j0 + kWidth);
    for (int64_t p0 = 0; p0 < k; p0 += kDepth) {
      const int64_t kb = std::min(k, p0 + kDepth) - p0;
      const float* ab = a + p0;
      const float* bb = b + p0 * m;
      int64_t i = 0;
      for (; i + kRows <= n; i += kRows) {
        int64_t j = j0;
        for (; j + kCols <= j1; j += kCols)
          MicroKernel<kRows, kCols>(ab + i * k, k, bb + j, m, c + i * m + j, m, kb);
        EdgeColumns(ab + i * k, k, bb, m, c + i * m, m, kRows, j, j1, kb);
      }
      for (; i < n; ++i) {
        int64_t j = j0;
        for (; j + kCols <= j1; j += kCols)
          MicroKernel<1, kCols>(ab + i * k, k, bb + j, m, c + i * m + j, m, kb);
        EdgeColumns(ab + i * k, k, bb, m, c + i * m, m, 1, j, j1, kb);
      }
    }
  }
}

void MmOut(KernelArgs& a) {
  a.ExpectCount(4);  // self, mat2, out, ret
  MatrixProduct(a, nullptr, a.TensorArg(0), a.TensorArg(1), 0, 1, a.TensorArg(2));
}

void AddmmOut(KernelArgs& a) {
  a.ExpectCount(7);  // self, mat1, mat2, beta, alpha, out, ret
  const Scalar beta = a.ScalarArg(3);
  const Scalar alpha = a.ScalarArg(4);
  MatrixProduct(a, &a.TensorArg(0), a.TensorArg(1), a.TensorArg(2), beta.AsDouble(),
                alpha.AsDouble(), a.TensorArg(5));
}

void ConvolutionOut(KernelArgs& a) {
  // input, weight, bias, stride, padding, dilation, transposed,
  // output_padding, groups, out, ret
  a.ExpectCount(11);
  Tensor& in = a.TensorArg(0);
  Tensor& w = a.TensorArg(1);
  Tensor* bias = a.OptionalTensorArg(2);
  Tensor& out = a.TensorArg(9);
  const ConvShape s = ConvGeometry(a, in, w);
  const DType t = in.dtype();
  if (w.dtype() != t || out.dtype() != t || (bias != nullptr && bias->dtype() != t))
    Invalid(Str(a.op(), ": input, weight, bias and out need one dtype"));
  if (!IsFloating(t))
    Unsupported(Str(a.op(), " on ", DTypeName(t), " is not run (float and double are)"));
  if (!in.contiguous() || !w.contiguous() || !out.contiguous())
    Unsupported(Str(a.op(), ": a non-contiguous dim_order is not run"));
  if (bias != nullptr && bias->numel() != static_cast<uint64_t>(s.out_channels))
    Invalid(Str(a.op(), ": bias ", ShapeText(bias->sizes), " for ", s.out_channels, " channels"));
  std::vector<int64_t> shape = {s.batch, s.out_channels};
  if (in.rank() == 4) shape.push_back(s.out_h);
  shape.push_back(s.out_w);
  a.Resize(out, shape);
  Dispatch(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) Convolve<T>(a, in, w, bias, s, out);
  });
}

}  // namespace accelcheck::pte::exec
