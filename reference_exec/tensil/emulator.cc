#include "reference_exec/tensil/emulator.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <span>
#include <type_traits>

namespace accelcheck::tensil {

void Memory::Touch(uint64_t page, Recent* recent) {
  auto& slot = pages_[page];
  if (!slot) slot = std::make_unique<Scalar[]>(kPageRows * width_);
  *recent = {page, slot.get()};
}

namespace {

// FixedBase.doMAC = rtl util.macFixedPoint (docs/formats/tensil.md §5.2): the exact
// x*y + z, rounded half to even at the binary point, then saturated.
template <int kWidth, int kPoint>
struct Fixed {
  // Wide enough for x*y + (z << point): 32 bits up to 16-bit types.
  using Wide = std::conditional_t<(kWidth <= 16), int32_t, int64_t>;
  static constexpr Wide kMin = -(Wide{1} << (kWidth - 1));
  static constexpr Wide kMax = (Wide{1} << (kWidth - 1)) - 1;
  static constexpr Scalar kOne = Scalar{1} << kPoint;
  // mac(0, y, z) = mac(x, 0, z) = z for every z of the type: z << point has
  // no fraction and is in range. MatMul skips such lanes.
  static constexpr bool kZeroProductKeepsSum = true;

  static Scalar Saturate(Wide v) { return static_cast<Scalar>(std::clamp(v, kMin, kMax)); }
  // m / 2^point, ties to even: adding half - 1 and the parity of the
  // truncated quotient carries into the quotient exactly when the fraction
  // is above one half, or is one half and the quotient is odd. Branch-free,
  // so that the MatMul lanes vectorise.
  static Scalar Round(Wide m) {
    constexpr Wide kHalfMinusOne = (Wide{1} << (kPoint - 1)) - 1;
    return Saturate((m + kHalfMinusOne + ((m >> kPoint) & 1)) >> kPoint);
  }
  static Scalar Mac(Scalar x, Scalar y, Scalar z) {
    return Round(static_cast<Wide>(x) * static_cast<Wide>(y) +
                 static_cast<Wide>(z) * (Wide{1} << kPoint));
  }
  // mac(a, 1.0, b) and mac(a, 1.0, -b): the exact sum has no fraction, so
  // only the saturation remains.
  static Scalar Plus(Scalar a, Scalar b) {
    return Saturate(static_cast<Wide>(a) + static_cast<Wide>(b));
  }
  static Scalar Minus(Scalar a, Scalar b) {
    return Saturate(static_cast<Wide>(a) - static_cast<Wide>(b));
  }
  static Scalar Times(Scalar a, Scalar b) {
    return Round(static_cast<Wide>(a) * static_cast<Wide>(b));
  }
  static bool Less(Scalar a, Scalar b) { return a < b; }
  static bool IsZero(Scalar a) { return a == 0; }
  // Chisel: -x in kWidth bits wraps for the most negative value.
  static Scalar Abs(Scalar a) { return a == kMin ? a : (a < 0 ? -a : a); }
};

using Fp8bp4 = Fixed<8, 4>;
using Fp16bp8 = Fixed<16, 8>;
using Fp18bp10 = Fixed<18, 10>;
using Fp32bp16 = Fixed<32, 16>;

// FLOAT32: Java float x*y + z, two roundings (no fused multiply-add).
struct Float {
  static constexpr Scalar kOne = std::bit_cast<Scalar>(1.0f);
  // 0 * inf is NaN, and 0 * w + -0 is +0: every lane is computed.
  static constexpr bool kZeroProductKeepsSum = false;

  static float F(Scalar s) { return std::bit_cast<float>(s); }
  static Scalar S(float f) { return std::bit_cast<Scalar>(f); }
  static Scalar Mac(Scalar x, Scalar y, Scalar z) {
    const float product = F(x) * F(y);
    return S(product + F(z));
  }
  static Scalar Plus(Scalar a, Scalar b) { return S(F(a) + F(b)); }
  static Scalar Minus(Scalar a, Scalar b) { return S(F(a) - F(b)); }
  static Scalar Times(Scalar a, Scalar b) { return S(F(a) * F(b)); }
  static bool Less(Scalar a, Scalar b) { return F(a) < F(b); }
  static bool IsZero(Scalar a) { return F(a) == 0.0f; }
  static Scalar Abs(Scalar a) { return S(std::fabs(F(a))); }
};

}  // namespace

class Machine::Impl {
 public:
  Impl(const Architecture& a)
      : n(a.array_size),
        local(a.local_depth, n),
        acc(a.accumulator_depth, n),
        dram0(a.dram0_depth, n),
        dram1(a.dram1_depth, n),
        registers(a.simd_registers_depth * n, 0),
        weights((n + 1) * n, 0),
        zeros(n, 0) {}
  virtual ~Impl() = default;
  virtual RunStats Run(ByteView program, const Layout& layout, const RunControl& control) = 0;

  const uint64_t n;
  Memory local, acc, dram0, dram1;
  std::vector<Scalar> registers;  // simd_registers_depth x N
  std::vector<Scalar> weights;    // row 0 = bias, rows 1..N = weights
  std::vector<Scalar> zeros;
};

namespace {

// One MatMul row (docs/formats/tensil.md §5.3): out = bias, then for the input
// lanes j in order, out_k = mac(x_j, W[j+1][k], out_k). `lanes` lists the j
// to compute: all of them, or for fixed-point types those whose weight row
// is not zero; a zero x_j is skipped there too (Fixed::kZeroProductKeepsSum).
// With Accumulate, `sum` (an accumulator row) becomes plus(sum, out).
// Returns the number of input lanes computed.
//
// kN is N when known at compile time (0 otherwise): the row then lives in
// registers across the input lanes instead of going through memory.
template <class A, uint64_t kN>
[[gnu::always_inline]] inline uint64_t MatMulRowOf(const Scalar* __restrict weights,
                                                   std::span<const uint32_t> lanes,
                                                   const Scalar* __restrict x,
                                                   Scalar* __restrict out, Scalar* __restrict sum,
                                                   uint64_t runtime_n) {
  const uint64_t n = kN != 0 ? kN : runtime_n;
  std::array<Scalar, kN != 0 ? kN : 1> registers;
  Scalar* __restrict y = kN != 0 ? registers.data() : out;
  std::copy_n(weights, n, y);
  uint64_t computed = 0;
  for (const uint32_t j : lanes) {
    const Scalar xj = x[j];
    if (A::kZeroProductKeepsSum && xj == 0) continue;
    const Scalar* __restrict w = weights + (j + 1) * n;
    for (uint64_t k = 0; k < n; ++k) y[k] = A::Mac(xj, w[k], y[k]);
    ++computed;
  }
  if (sum != nullptr) {
    for (uint64_t k = 0; k < n; ++k) sum[k] = A::Plus(sum[k], y[k]);
  } else if (kN != 0) {
    std::copy_n(y, n, out);
  }
  return computed;
}

// The array sizes of the shipped architectures (docs/formats/tensil.md §1) get a
// loop of their own.
template <class A>
[[gnu::always_inline]] inline uint64_t MatMulRowAnyN(const Scalar* weights,
                                                     std::span<const uint32_t> lanes,
                                                     const Scalar* x, Scalar* out, Scalar* sum,
                                                     uint64_t n) {
  switch (n) {
    case 8:
      return MatMulRowOf<A, 8>(weights, lanes, x, out, sum, n);
    case 16:
      return MatMulRowOf<A, 16>(weights, lanes, x, out, sum, n);
    case 32:
      return MatMulRowOf<A, 32>(weights, lanes, x, out, sum, n);
    default:
      return MatMulRowOf<A, 0>(weights, lanes, x, out, sum, n);
  }
}

// The lane loop is the emulator's hot path: on x86-64 it is cloned per
// instruction set, and vectorises 2-4x wider with AVX2 / AVX-512 than with
// the baseline's SSE2 (bench/README.md). One overload per data type, as
// clang clones no function template.
#if defined(__x86_64__) && defined(__gnu_linux__)
#define TENSIL_LANE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TENSIL_LANE_CLONES
#endif
#define TENSIL_MATMUL_ROW(A)                                                                       \
  TENSIL_LANE_CLONES uint64_t MatMulRow(A, const Scalar* weights, std::span<const uint32_t> lanes, \
                                        const Scalar* x, Scalar* out, Scalar* sum, uint64_t n) {   \
    return MatMulRowAnyN<A>(weights, lanes, x, out, sum, n);                                       \
  }
TENSIL_MATMUL_ROW(Fp8bp4)
TENSIL_MATMUL_ROW(Fp16bp8)
TENSIL_MATMUL_ROW(Fp18bp10)
TENSIL_MATMUL_ROW(Fp32bp16)
TENSIL_MATMUL_ROW(Float)
#undef TENSIL_MATMUL_ROW
#undef TENSIL_LANE_CLONES

template <class A>
class Executor final : public Machine::Impl {
 public:
  explicit Executor(const Architecture& a) : Machine::Impl(a), row_is_zero_(n + 1, 1), scratch_(n) {
    FindMatMulLanes();
  }

  RunStats Run(ByteView program, const Layout& layout, const RunControl& control) override {
    RunStats stats;
    const uint64_t count = program.size() / layout.instruction_bytes;
    for (uint64_t i = 0; i < count; ++i) {
      if (i % Machine::kInstructionsPerCheck == 0) {
        if (control.deadline.expired()) {
          stats.instructions = i;
          stats.out_of_time = true;
          return stats;
        }
        control.Report(i, count);
      }
      const Instruction in = DecodeAt(program, i, layout);
      const Fields f = FieldsOf(in, layout);
      switch (in.opcode()) {
        case kMatMul:
          MatMul(in.flags(), f, &stats);
          break;
        case kDataMove:
          DataMove(in.flags(), f);
          break;
        case kLoadWeights:
          LoadWeights(in.flags(), f, in.operand1);
          break;
        case kSimd:
          Simd(in.flags(), f);
          break;
        default:
          break;  // Wait: no data path (docs/formats/tensil.md §5.7)
      }
    }
    stats.instructions = count;
    return stats;
  }

 private:
  static uint64_t At(uint64_t address, uint64_t i, uint64_t stride) {
    return address + (i << stride);
  }

  // docs/formats/tensil.md §5.3: bias first, then input lanes 0..N-1, rounding and
  // saturating at every step like the systolic array.
  void MatMul(uint8_t flags, const Fields& f, RunStats* stats) {
    uint64_t computed = 0;
    for (uint64_t i = 0; i <= f.size; ++i) {
      const Scalar* x =
          (flags & kMatMulZeroes) ? zeros.data() : local.Row(At(f.address0, i, f.stride0));
      Scalar* row = acc.Row(At(f.address1, i, f.stride1));
      if (flags & kMatMulAccumulate) {
        computed += MatMulRow(A{}, weights.data(), lanes_, x, scratch_.data(), row, n);
      } else {
        computed += MatMulRow(A{}, weights.data(), lanes_, x, row, nullptr, n);
      }
    }
    stats->macs += (f.size + 1) * n * n;
    stats->computed_macs += computed * n;
  }

  // The input lanes MatMulRow computes: those whose weight row is not zero.
  void FindMatMulLanes() {
    lanes_.clear();
    for (uint32_t j = 0; j < n; ++j) {
      if (!A::kZeroProductKeepsSum || !row_is_zero_[j + 1]) lanes_.push_back(j);
    }
  }

  // docs/formats/tensil.md §5.5
  void DataMove(uint8_t kind, const Fields& f) {
    for (uint64_t i = 0; i <= f.size; ++i) {
      Scalar* l = local.Row(At(f.address0, i, f.stride0));
      const uint64_t other = At(f.address1, i, f.stride1);
      switch (kind) {
        case kDram0ToLocal:
          std::copy_n(dram0.Row(other), n, l);
          break;
        case kLocalToDram0:
          std::copy_n(l, n, dram0.Row(other));
          break;
        case kDram1ToLocal:
          std::copy_n(dram1.Row(other), n, l);
          break;
        case kLocalToDram1:
          std::copy_n(l, n, dram1.Row(other));
          break;
        case kAccToLocal:
          std::copy_n(acc.Row(other), n, l);
          break;
        case kLocalToAcc:
          std::copy_n(l, n, acc.Row(other));
          break;
        case kLocalToAccAccumulate: {
          Scalar* a = acc.Row(other);
          for (uint64_t k = 0; k < n; ++k) a[k] = A::Plus(a[k], l[k]);
          break;
        }
      }
    }
  }

  // docs/formats/tensil.md §5.4: rows pushed from i = size down to 0, each shifting
  // the register down one row; partial loads keep the older rows. The end
  // state in one step: W[r] = row r for r <= min(size, N), and the older
  // rows moved down by size + 1 (those pushed past row N are gone).
  void LoadWeights(uint8_t flags, const Fields& f, uint64_t size) {
    if (size < n) {
      const uint64_t kept = n - size;  // rows 0..kept-1 move to size+1..N
      std::memmove(weights.data() + (size + 1) * n, weights.data(), kept * n * sizeof(Scalar));
      std::memmove(row_is_zero_.data() + size + 1, row_is_zero_.data(), kept);
    }
    for (uint64_t r = 0; r <= std::min(size, n); ++r) {
      const Scalar* row =
          (flags & kLoadWeightsZeroes) ? zeros.data() : local.Row(At(f.address0, r, f.stride0));
      std::copy_n(row, n, weights.data() + r * n);
      row_is_zero_[r] = std::all_of(row, row + n, [](Scalar v) { return v == 0; });
    }
    FindMatMulLanes();
  }

  template <class Op>
  void Lanes(const Scalar* l, const Scalar* r, Scalar* out, Op op) const {
    for (uint64_t k = 0; k < n; ++k) out[k] = op(l[k], r[k]);
  }

  // The op of every lane; the switch is outside the lane loops.
  void Apply(uint64_t op, const Scalar* l, const Scalar* r, const Scalar* input,
             Scalar* out) const {
    const auto truth = [](bool v) { return v ? A::kOne : Scalar{0}; };
    switch (op) {
      case kSimdNoOp:
        std::copy_n(input, n, out);
        return;
      case kSimdZero:
        std::fill_n(out, n, 0);
        return;
      case kSimdMove:
        std::copy_n(l, n, out);
        return;
      case kSimdNot:
        return Lanes(l, r, out, [&](Scalar a, Scalar) { return truth(A::IsZero(a)); });
      case kSimdAnd:
        return Lanes(l, r, out,
                     [&](Scalar a, Scalar b) { return truth(!A::IsZero(a) && !A::IsZero(b)); });
      case kSimdOr:
        return Lanes(l, r, out,
                     [&](Scalar a, Scalar b) { return truth(!A::IsZero(a) || !A::IsZero(b)); });
      case kSimdIncrement:
        return Lanes(l, r, out, [](Scalar a, Scalar) { return A::Plus(a, A::kOne); });
      case kSimdDecrement:
        return Lanes(l, r, out, [](Scalar a, Scalar) { return A::Minus(a, A::kOne); });
      case kSimdAdd:
        return Lanes(l, r, out, [](Scalar a, Scalar b) { return A::Plus(a, b); });
      case kSimdSubtract:
        return Lanes(l, r, out, [](Scalar a, Scalar b) { return A::Minus(a, b); });
      case kSimdMultiply:
        return Lanes(l, r, out, [](Scalar a, Scalar b) { return A::Times(a, b); });
      case kSimdAbs:
        return Lanes(l, r, out, [](Scalar a, Scalar) { return A::Abs(a); });
      case kSimdGreaterThan:
        return Lanes(l, r, out, [&](Scalar a, Scalar b) { return truth(A::Less(b, a)); });
      case kSimdGreaterThanEqual:
        return Lanes(l, r, out, [&](Scalar a, Scalar b) { return truth(!A::Less(a, b)); });
      case kSimdMin:
        return Lanes(l, r, out, [](Scalar a, Scalar b) { return A::Less(b, a) ? b : a; });
      default:
        return Lanes(l, r, out,
                     [](Scalar a, Scalar b) { return A::Less(a, b) ? b : a; });  // kSimdMax
    }
  }

  // docs/formats/tensil.md §5.6, following the RTL where it and the emulator differ.
  void Simd(uint8_t flags, const Fields& f) {
    const Scalar* input = (flags & kSimdRead) ? acc.Row(f.address1) : zeros.data();
    const auto source = [&](uint64_t s) { return s == 0 ? input : registers.data() + (s - 1) * n; };
    Scalar* result = scratch_.data();
    Apply(f.simd_op, source(f.simd_left), source(f.simd_right), input, result);
    if (f.simd_dest != 0 && f.simd_op != kSimdNoOp) {
      std::copy_n(result, n, registers.data() + (f.simd_dest - 1) * n);
    }
    if (flags & kSimdWrite) {
      Scalar* out = acc.Row(f.address0);
      if (flags & kSimdAccumulate) {
        for (uint64_t k = 0; k < n; ++k) out[k] = A::Plus(out[k], result[k]);
      } else {
        std::copy_n(result, n, out);
      }
    }
  }

  std::vector<uint8_t> row_is_zero_;  // per weight row, all lanes zero
  std::vector<uint32_t> lanes_;       // FindMatMulLanes
  std::vector<Scalar> scratch_;
};

std::unique_ptr<Machine::Impl> MakeImpl(const Architecture& arch) {
  switch (arch.data_type) {
    case DataType::kFp8bp4:
      return std::make_unique<Executor<Fp8bp4>>(arch);
    case DataType::kFp16bp8:
      return std::make_unique<Executor<Fp16bp8>>(arch);
    case DataType::kFp18bp10:
      return std::make_unique<Executor<Fp18bp10>>(arch);
    case DataType::kFp32bp16:
      return std::make_unique<Executor<Fp32bp16>>(arch);
    case DataType::kFloat32:
      return std::make_unique<Executor<Float>>(arch);
  }
  return nullptr;
}

}  // namespace

Machine::Machine(const Architecture& arch) : arch_(arch), impl_(MakeImpl(arch)) {}
Machine::Machine(Machine&&) noexcept = default;
Machine& Machine::operator=(Machine&&) noexcept = default;
Machine::~Machine() = default;

std::vector<Scalar> DecodeScalars(ByteView bytes, DataType type) {
  const DataTypeInfo& info = InfoOf(type);
  std::vector<Scalar> out(bytes.size() / info.bytes);
  for (size_t i = 0; i < out.size(); ++i) {
    const uint8_t* p = bytes.data() + i * info.bytes;
    switch (type) {
      case DataType::kFp8bp4:
        out[i] = static_cast<int8_t>(p[0]);
        break;
      case DataType::kFp16bp8:
        out[i] = static_cast<int16_t>(p[0] | p[1] << 8);
        break;
      case DataType::kFp18bp10: {
        // The low 18 bits, sign-extended from bit 17 (Fixed18bp10.fromBytes).
        const uint32_t word = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16;
        out[i] = static_cast<Scalar>((word & 0x3ffff) ^ 0x20000) - 0x20000;
        break;
      }
      case DataType::kFp32bp16:
        out[i] = static_cast<Scalar>(uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 |
                                     uint32_t{p[3]} << 24);
        break;
      case DataType::kFloat32:  // big-endian (DataOutputStream.writeFloat)
        out[i] = static_cast<Scalar>(uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 |
                                     uint32_t{p[2]} << 8 | p[3]);
        break;
    }
  }
  return out;
}

void Machine::LoadConstants(ByteView tdata, uint64_t base, bool to_local) {
  const std::vector<Scalar> scalars = DecodeScalars(tdata, arch_.data_type);
  Memory& target = to_local ? impl_->local : impl_->dram1;
  const uint64_t n = arch_.array_size;
  for (uint64_t row = 0; row * n < scalars.size(); ++row) {
    std::copy_n(scalars.data() + row * n, std::min<uint64_t>(n, scalars.size() - row * n),
                target.Row(base + row));
  }
}

namespace {

// The low `width` bits of `value`, sign-extended (a no-op at 32 bits).
Scalar SignExtend(Scalar value, unsigned width) {
  const uint32_t sign = uint32_t{1} << (width - 1);
  const uint32_t low = static_cast<uint32_t>(value) & (sign | (sign - 1));
  return static_cast<Scalar>((low ^ sign) - sign);
}

}  // namespace

void Machine::WriteDram0(uint64_t row, std::span<const Scalar> values) {
  const uint64_t n = arch_.array_size;
  const bool fixed = arch_.data_type != DataType::kFloat32;
  const unsigned width = InfoOf(arch_.data_type).width;
  for (uint64_t r = 0; r * n < values.size(); ++r) {
    Scalar* target = impl_->dram0.Row(row + r);
    const uint64_t count = std::min<uint64_t>(n, values.size() - r * n);
    for (uint64_t k = 0; k < count; ++k) {
      const Scalar value = values[r * n + k];
      target[k] = fixed ? SignExtend(value, width) : value;
    }
  }
}

std::vector<Scalar> Machine::ReadDram0(uint64_t row, uint64_t rows) {
  const uint64_t n = arch_.array_size;
  std::vector<Scalar> out(rows * n);
  for (uint64_t r = 0; r < rows; ++r) std::copy_n(impl_->dram0.Row(row + r), n, out.data() + r * n);
  return out;
}

RunStats Machine::Run(ByteView program, const Layout& layout, const RunControl& control) {
  return impl_->Run(program, layout, control);
}

Scalar Machine::FromFloat(float value) const {
  const DataTypeInfo& info = InfoOf(arch_.data_type);
  if (arch_.data_type == DataType::kFloat32) return std::bit_cast<Scalar>(value);
  // Java Math.round(float * 2^bp): the product is exact in float, then
  // floor(x + 0.5); saturation to the type's range.
  const float scaled = value * static_cast<float>(uint64_t{1} << info.fraction);
  const double rounded = std::floor(static_cast<double>(scaled) + 0.5);
  const double low = -std::ldexp(1.0, static_cast<int>(info.width) - 1);
  const double high = std::ldexp(1.0, static_cast<int>(info.width) - 1) - 1;
  if (std::isnan(rounded)) return 0;
  return static_cast<Scalar>(std::clamp(rounded, low, high));
}

double Machine::ToDouble(Scalar value) const {
  if (arch_.data_type == DataType::kFloat32) return std::bit_cast<float>(value);
  return std::ldexp(static_cast<double>(value),
                    -static_cast<int>(InfoOf(arch_.data_type).fraction));
}

}  // namespace accelcheck::tensil
