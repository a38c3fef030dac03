#include "reference_exec/tensil/emulator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace accelcheck::tensil {

Scalar* Memory::Row(uint64_t row) {
  const uint64_t page = row >> kPageBits;
  if (page != last_page_) {
    auto& slot = pages_[page];
    if (!slot) slot = std::make_unique<Scalar[]>((size_t{1} << kPageBits) * width_);
    last_page_ = page;
    last_ = slot.get();
  }
  return last_ + (row & ((uint64_t{1} << kPageBits) - 1)) * width_;
}

namespace {

// FixedBase.doMAC = rtl util.macFixedPoint (spec/tensil.md §5.2): the exact
// x*y + z, rounded half to even at the binary point, then saturated.
template <int kWidth, int kPoint>
struct Fixed {
  // Wide enough for x*y + (z << point): 32 bits up to 16-bit types.
  using Wide = std::conditional_t<(kWidth <= 16), int32_t, int64_t>;
  static constexpr Wide kMin = -(Wide{1} << (kWidth - 1));
  static constexpr Wide kMax = (Wide{1} << (kWidth - 1)) - 1;
  static constexpr Scalar kOne = Scalar{1} << kPoint;

  static Scalar Round(Wide m) {
    constexpr Wide kHalf = Wide{1} << (kPoint - 1);
    Wide r = m >> kPoint;
    const Wide fraction = m & ((Wide{1} << kPoint) - 1);
    r += static_cast<Wide>((fraction > kHalf) | ((fraction == kHalf) & static_cast<Wide>(r & 1)));
    return static_cast<Scalar>(std::clamp(r, kMin, kMax));
  }
  static Scalar Mac(Scalar x, Scalar y, Wide z) {
    return Round(static_cast<Wide>(x) * static_cast<Wide>(y) + z * (Wide{1} << kPoint));
  }
  static Scalar Plus(Scalar a, Scalar b) { return Mac(a, kOne, b); }
  static Scalar Minus(Scalar a, Scalar b) { return Mac(a, kOne, -static_cast<Wide>(b)); }
  static Scalar Times(Scalar a, Scalar b) { return Mac(a, b, 0); }
  static bool Less(Scalar a, Scalar b) { return a < b; }
  static bool IsZero(Scalar a) { return a == 0; }
  // Chisel: -x in kWidth bits wraps for the most negative value.
  static Scalar Abs(Scalar a) { return a == kMin ? a : (a < 0 ? -a : a); }
};

// FLOAT32: Java float x*y + z, two roundings (no fused multiply-add).
struct Float {
  using Wide = Scalar;
  static constexpr Scalar kOne = std::bit_cast<Scalar>(1.0f);
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
  virtual RunStats Run(ByteView program, const Layout& layout) = 0;

  const uint64_t n;
  Memory local, acc, dram0, dram1;
  std::vector<Scalar> registers;  // simd_registers_depth x N
  std::vector<Scalar> weights;    // row 0 = bias, rows 1..N = weights
  std::vector<Scalar> zeros;
};

namespace {

template <class A>
class Executor final : public Machine::Impl {
 public:
  using Machine::Impl::Impl;

  RunStats Run(ByteView program, const Layout& layout) override {
    RunStats stats;
    const uint64_t count = program.size() / layout.instruction_bytes;
    for (uint64_t i = 0; i < count; ++i) {
      const Instruction in = DecodeAt(program, i, layout);
      const Fields f = FieldsOf(in, layout);
      switch (in.opcode()) {
        case kMatMul: MatMul(in.flags(), f, &stats); break;
        case kDataMove: DataMove(in.flags(), f); break;
        case kLoadWeights: LoadWeights(in.flags(), f, in.operand1); break;
        case kSimd: Simd(in.flags(), f); break;
        default: break;  // Wait: no data path (spec/tensil.md §5.7)
      }
    }
    stats.instructions = count;
    return stats;
  }

 private:
  static uint64_t At(uint64_t address, uint64_t i, uint64_t stride) { return address + (i << stride); }

  // spec/tensil.md §5.3: bias first, then input lanes 0..N-1, rounding and
  // saturating at every step like the systolic array.
  void MatMul(uint8_t flags, const Fields& f, RunStats* stats) {
    std::vector<Scalar>& y = scratch_;
    y.resize(n);
    for (uint64_t i = 0; i <= f.size; ++i) {
      const Scalar* x = (flags & kMatMulZeroes) ? zeros.data() : local.Row(At(f.address0, i, f.stride0));
      std::copy_n(weights.data(), n, y.data());
      for (uint64_t j = 0; j < n; ++j) {
        const Scalar xj = x[j];
        const Scalar* w = weights.data() + (j + 1) * n;
        Scalar* out = y.data();
        for (uint64_t k = 0; k < n; ++k) out[k] = A::Mac(xj, w[k], out[k]);
      }
      Scalar* row = acc.Row(At(f.address1, i, f.stride1));
      if (flags & kMatMulAccumulate) {
        for (uint64_t k = 0; k < n; ++k) row[k] = A::Plus(row[k], y[k]);
      } else {
        std::copy_n(y.data(), n, row);
      }
    }
    stats->macs += (f.size + 1) * n * n;
  }

  // spec/tensil.md §5.5
  void DataMove(uint8_t kind, const Fields& f) {
    for (uint64_t i = 0; i <= f.size; ++i) {
      Scalar* l = local.Row(At(f.address0, i, f.stride0));
      const uint64_t other = At(f.address1, i, f.stride1);
      switch (kind) {
        case kDram0ToLocal: std::copy_n(dram0.Row(other), n, l); break;
        case kLocalToDram0: std::copy_n(l, n, dram0.Row(other)); break;
        case kDram1ToLocal: std::copy_n(dram1.Row(other), n, l); break;
        case kLocalToDram1: std::copy_n(l, n, dram1.Row(other)); break;
        case kAccToLocal: std::copy_n(acc.Row(other), n, l); break;
        case kLocalToAcc: std::copy_n(l, n, acc.Row(other)); break;
        case kLocalToAccAccumulate: {
          Scalar* a = acc.Row(other);
          for (uint64_t k = 0; k < n; ++k) a[k] = A::Plus(a[k], l[k]);
          break;
        }
      }
    }
  }

  // spec/tensil.md §5.4: rows pushed from i = size down to 0, each shifting
  // the register down one row; partial loads keep the older rows.
  void LoadWeights(uint8_t flags, const Fields& f, uint64_t size) {
    for (uint64_t step = 0; step <= size; ++step) {
      const uint64_t i = size - step;
      std::memmove(weights.data() + n, weights.data(), n * n * sizeof(Scalar));
      const Scalar* row = (flags & kLoadWeightsZeroes) ? zeros.data() : local.Row(At(f.address0, i, f.stride0));
      std::copy_n(row, n, weights.data());
    }
  }

  Scalar Op(uint64_t op, Scalar l, Scalar r, Scalar input) const {
    const Scalar one = A::kOne;
    switch (op) {
      case kSimdNoOp: return input;
      case kSimdZero: return 0;
      case kSimdMove: return l;
      case kSimdNot: return A::IsZero(l) ? one : 0;
      case kSimdAnd: return !A::IsZero(l) && !A::IsZero(r) ? one : 0;
      case kSimdOr: return !A::IsZero(l) || !A::IsZero(r) ? one : 0;
      case kSimdIncrement: return A::Plus(l, one);
      case kSimdDecrement: return A::Minus(l, one);
      case kSimdAdd: return A::Plus(l, r);
      case kSimdSubtract: return A::Minus(l, r);
      case kSimdMultiply: return A::Times(l, r);
      case kSimdAbs: return A::Abs(l);
      case kSimdGreaterThan: return A::Less(r, l) ? one : 0;
      case kSimdGreaterThanEqual: return !A::Less(l, r) ? one : 0;
      case kSimdMin: return A::Less(r, l) ? r : l;
      default: return A::Less(l, r) ? r : l;  // kSimdMax
    }
  }

  // spec/tensil.md §5.6, following the RTL where it and the emulator differ.
  void Simd(uint8_t flags, const Fields& f) {
    std::vector<Scalar>& result = scratch_;
    result.resize(n);
    std::vector<Scalar>& input = input_;
    if (flags & kSimdRead) {
      input.assign(acc.Row(f.address1), acc.Row(f.address1) + n);
    } else {
      input.assign(n, 0);
    }
    const auto source = [&](uint64_t s) { return s == 0 ? input.data() : registers.data() + (s - 1) * n; };
    const Scalar* l = source(f.simd_left);
    const Scalar* r = source(f.simd_right);
    for (uint64_t k = 0; k < n; ++k) result[k] = Op(f.simd_op, l[k], r[k], input[k]);
    if (f.simd_dest != 0 && f.simd_op != kSimdNoOp) {
      std::copy_n(result.data(), n, registers.data() + (f.simd_dest - 1) * n);
    }
    if (flags & kSimdWrite) {
      Scalar* out = acc.Row(f.address0);
      if (flags & kSimdAccumulate) {
        for (uint64_t k = 0; k < n; ++k) out[k] = A::Plus(out[k], result[k]);
      } else {
        std::copy_n(result.data(), n, out);
      }
    }
  }

  std::vector<Scalar> scratch_, input_;
};

std::unique_ptr<Machine::Impl> MakeImpl(const Architecture& arch) {
  switch (arch.data_type) {
    case DataType::kFp8bp4: return std::make_unique<Executor<Fixed<8, 4>>>(arch);
    case DataType::kFp16bp8: return std::make_unique<Executor<Fixed<16, 8>>>(arch);
    case DataType::kFp18bp10: return std::make_unique<Executor<Fixed<18, 10>>>(arch);
    case DataType::kFp32bp16: return std::make_unique<Executor<Fixed<32, 16>>>(arch);
    case DataType::kFloat32: return std::make_unique<Executor<Float>>(arch);
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
      case DataType::kFp8bp4: out[i] = static_cast<int8_t>(p[0]); break;
      case DataType::kFp16bp8: out[i] = static_cast<int16_t>(p[0] | p[1] << 8); break;
      case DataType::kFp18bp10: {
        // The low 18 bits, sign-extended from bit 17 (Fixed18bp10.fromBytes).
        const uint32_t word = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16;
        out[i] = static_cast<Scalar>((word & 0x3ffff) ^ 0x20000) - 0x20000;
        break;
      }
      case DataType::kFp32bp16:
        out[i] = static_cast<Scalar>(uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24);
        break;
      case DataType::kFloat32:  // big-endian (DataOutputStream.writeFloat)
        out[i] = static_cast<Scalar>(uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3]);
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
    std::copy_n(scalars.data() + row * n, std::min<uint64_t>(n, scalars.size() - row * n), target.Row(base + row));
  }
}

void Machine::WriteDram0(uint64_t row, std::span<const Scalar> values) {
  const uint64_t n = arch_.array_size;
  for (uint64_t r = 0; r * n < values.size(); ++r) {
    std::copy_n(values.data() + r * n, std::min<uint64_t>(n, values.size() - r * n), impl_->dram0.Row(row + r));
  }
}

std::vector<Scalar> Machine::ReadDram0(uint64_t row, uint64_t rows) {
  const uint64_t n = arch_.array_size;
  std::vector<Scalar> out(rows * n);
  for (uint64_t r = 0; r < rows; ++r) std::copy_n(impl_->dram0.Row(row + r), n, out.data() + r * n);
  return out;
}

RunStats Machine::Run(ByteView program, const Layout& layout) { return impl_->Run(program, layout); }

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
  return std::ldexp(static_cast<double>(value), -static_cast<int>(InfoOf(arch_.data_type).fraction));
}

}  // namespace accelcheck::tensil
