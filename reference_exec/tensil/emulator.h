// Bit-exact emulation of the Tensil processing unit (docs/formats/tensil.md §5).
// The emulator never reads bytes: it runs a model the validator has decoded
// and found free of errors (LoadModel).
//
// Where Tensil's Scala emulator and the RTL disagree, this follows the RTL:
//  - all 16 SIMD ops run, with the semantics of rtl simd/ALU.scala (the Scala
//    emulator implements 7 and throws on the rest);
//  - SIMD Write sends the ALU result to the accumulator even when the
//    destination is a register (ALU.scala: "the result always goes to
//    io.output"), and Accumulate applies only to that accumulator write;
//  - Abs of the most negative value wraps to itself (Chisel width semantics).
// SIMD consuming Input without Read reads zeros, like the Scala emulator (the
// RTL would stall; the validator warns, tensil.instr.simd_input_unread).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "reference_exec/run_control.h"
#include "validators/core/bytes.h"
#include "validators/tensil/arch.h"
#include "validators/tensil/instruction.h"
#include "validators/tensil/manifest.h"

namespace accelcheck::tensil {

// Scalars are held as int32: the sign-extended value of a fixed-point type,
// or the bit pattern of a FLOAT32.
using Scalar = int32_t;

class Memory {
 public:
  // Pages of 1024 rows, so that a 2^32-row DRAM costs only what is used.
  static constexpr unsigned kPageBits = 10;
  static constexpr uint64_t kPageRows = uint64_t{1} << kPageBits;

  Memory(uint64_t depth, uint64_t width) : depth_(depth), width_(width) {}
  // The row, allocated (zeroed) when first touched.
  Scalar* Row(uint64_t row) {
    const uint64_t page = row >> kPageBits;
    Recent& recent = recent_[page % kRecentPages];
    if (recent.page != page) Touch(page, &recent);
    return recent.rows + (row & (kPageRows - 1)) * width_;
  }
  uint64_t depth() const { return depth_; }

 private:
  // The pages used last, by page number modulo kRecentPages: one SIMD
  // instruction reads one accumulator page and writes another, and a
  // DataMove's rows may straddle two, without a map lookup per row.
  static constexpr uint64_t kRecentPages = 4;
  struct Recent {
    uint64_t page = UINT64_MAX;
    Scalar* rows = nullptr;
  };
  void Touch(uint64_t page, Recent* recent);

  uint64_t depth_, width_;
  std::unordered_map<uint64_t, std::unique_ptr<Scalar[]>> pages_;
  Recent recent_[kRecentPages];
};

struct RunStats {
  uint64_t instructions = 0;
  uint64_t macs = 0;  // multiply-accumulates of MatMul, N x N per row
  // Those of `macs` computed: the others had a zero input or weight of a
  // fixed-point type, which leaves the sum unchanged.
  uint64_t computed_macs = 0;
  // The run's deadline expired after `instructions` of the program.
  bool out_of_time = false;
};

class Machine {
 public:
  // Every memory, register and weight starts at zero (docs/formats/tensil.md §5.1).
  explicit Machine(const Architecture& arch);
  Machine(Machine&&) noexcept;
  Machine& operator=(Machine&&) noexcept;
  ~Machine();

  const Architecture& arch() const { return arch_; }

  // Copies consts (the .tdata bytes, decoded per data type) to DRAM1, or to
  // local memory for load_consts_to_local, at `base` vectors.
  void LoadConstants(ByteView tdata, uint64_t base, bool to_local);
  // Stores the low `width` bits of each value, sign-extended, as a DRAM word
  // of the data type holds them: every scalar in the machine is a value of
  // its type, which the MatMul fast path relies on.
  void WriteDram0(uint64_t row, std::span<const Scalar> values);
  std::vector<Scalar> ReadDram0(uint64_t row, uint64_t rows);

  // Runs the instructions in program order, checking `control`'s deadline
  // and reporting the instructions done every kInstructionsPerCheck.
  RunStats Run(ByteView program, const Layout& layout, const RunControl& control = {});
  static constexpr uint64_t kInstructionsPerCheck = 1024;

  // The value 1.0, and conversions between floats and scalars (fromFloat:
  // round half up and saturate, as FixedBase.fromFloat).
  Scalar FromFloat(float value) const;
  double ToDouble(Scalar value) const;

  class Impl;

 private:
  Architecture arch_;
  std::unique_ptr<Impl> impl_;
};

// Decodes scalars from .tdata bytes (FLOAT32 big-endian, fixed little-endian).
std::vector<Scalar> DecodeScalars(ByteView bytes, DataType type);

}  // namespace accelcheck::tensil
