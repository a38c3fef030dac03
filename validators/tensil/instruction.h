// One .tprog instruction: the raw operands and header as stored, and the
// fields they hold under an architecture's layout (docs/formats/tensil.md §4.2, §4.3).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/tensil/arch.h"

namespace accelcheck::tensil {

enum Opcode : uint8_t { kWait = 0, kMatMul = 1, kDataMove = 2, kLoadWeights = 3, kSimd = 4 };

// MatMul flags.
inline constexpr uint8_t kMatMulAccumulate = 1, kMatMulZeroes = 2;
// LoadWeights flags.
inline constexpr uint8_t kLoadWeightsZeroes = 1;
// SIMD flags.
inline constexpr uint8_t kSimdRead = 1, kSimdWrite = 2, kSimdAccumulate = 4;
// DataMove kinds (the whole flags nibble).
enum DataMoveKind : uint8_t {
  kDram0ToLocal = 0,
  kLocalToDram0 = 1,
  kDram1ToLocal = 2,
  kLocalToDram1 = 3,
  kAccToLocal = 12,
  kLocalToAcc = 13,
  kLocalToAccAccumulate = 15,
};
bool IsDataMoveKind(uint8_t flags);

// SIMD ops (SIMDOp.scala = rtl simd/Op.scala).
enum SimdOp : uint8_t {
  kSimdNoOp,
  kSimdZero,
  kSimdMove,
  kSimdNot,
  kSimdAnd,
  kSimdOr,
  kSimdIncrement,
  kSimdDecrement,
  kSimdAdd,
  kSimdSubtract,
  kSimdMultiply,
  kSimdAbs,
  kSimdGreaterThan,
  kSimdGreaterThanEqual,
  kSimdMin,
  kSimdMax,
};
std::string_view SimdOpName(uint8_t op);
bool SimdOpIsUnary(uint8_t op);    // reads only the left source
bool SimdOpIsNullary(uint8_t op);  // Zero and NoOp read no register

struct Instruction {
  // As stored.
  uint64_t operand0 = 0, operand1 = 0, operand2 = 0;
  uint8_t header = 0;
  // The header: flags bits 0..3, opcode bits 4..6, tid bit 7.
  uint8_t flags() const { return header & 0xf; }
  uint8_t opcode() const { return (header >> 4) & 0x7; }
  uint8_t tid() const { return header >> 7; }
};

// Operand fields under a layout.
struct Fields {
  uint64_t address0, stride0, padding0;
  uint64_t address1, stride1, padding1;
  uint64_t size, padding2;  // operand2 as a size
  // operand2 as a SIMD sub-instruction.
  uint64_t simd_dest, simd_right, simd_left, simd_op, simd_padding;
};
Fields FieldsOf(const Instruction& instruction, const Layout& layout);

// The instruction at `index` of a .tprog (the caller checks the length).
Instruction DecodeAt(ByteView program, uint64_t index, const Layout& layout);
void Encode(const Instruction& instruction, const Layout& layout, std::vector<uint8_t>* out);

// Builds operands from fields; bits beyond a field's width are dropped.
uint64_t PackOperand(uint64_t address, unsigned address_bits, uint64_t stride, unsigned stride_bits,
                     uint64_t padding);
uint64_t PackSimd(const Layout& layout, uint64_t op, uint64_t left, uint64_t right, uint64_t dest,
                  uint64_t padding);

inline uint64_t LowBits(uint64_t value, unsigned bits) {
  return bits >= 64 ? value : value & ((uint64_t{1} << bits) - 1);
}
inline uint64_t HighBits(uint64_t value, unsigned from) { return from >= 64 ? 0 : value >> from; }

}  // namespace accelcheck::tensil
