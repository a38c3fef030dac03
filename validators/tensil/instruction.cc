#include "validators/tensil/instruction.h"

namespace accelcheck::tensil {

namespace {

constexpr std::string_view kSimdOpNames[16] = {
    "noop",      "zero",          "move", "not",      "and",      "or",
    "increment", "decrement",     "add",  "subtract", "multiply", "abs",
    "greater",   "greater_equal", "min",  "max",
};

uint64_t ReadField(ByteView bytes, uint64_t offset, unsigned length) {
  uint64_t value = 0;
  for (unsigned i = 0; i < length; ++i) value |= uint64_t{bytes[offset + i]} << (8 * i);
  return value;
}

void WriteField(uint64_t value, unsigned length, std::vector<uint8_t>* out) {
  for (unsigned i = 0; i < length; ++i) out->push_back(static_cast<uint8_t>(value >> (8 * i)));
}

}  // namespace

bool IsDataMoveKind(uint8_t flags) {
  return flags <= kLocalToDram1 || flags == kAccToLocal || flags == kLocalToAcc ||
         flags == kLocalToAccAccumulate;
}

std::string_view SimdOpName(uint8_t op) { return kSimdOpNames[op & 0xf]; }

bool SimdOpIsUnary(uint8_t op) {
  return op == kSimdMove || op == kSimdNot || op == kSimdIncrement || op == kSimdDecrement ||
         op == kSimdAbs;
}

bool SimdOpIsNullary(uint8_t op) { return op == kSimdZero || op == kSimdNoOp; }

Fields FieldsOf(const Instruction& in, const Layout& l) {
  Fields f{};
  f.address0 = LowBits(in.operand0, l.op0_address_bits);
  f.stride0 = LowBits(HighBits(in.operand0, l.op0_address_bits), l.stride0_bits);
  f.padding0 = HighBits(in.operand0, l.op0_address_bits + l.stride0_bits);
  f.address1 = LowBits(in.operand1, l.op1_address_bits);
  f.stride1 = LowBits(HighBits(in.operand1, l.op1_address_bits), l.stride1_bits);
  f.padding1 = HighBits(in.operand1, l.op1_address_bits + l.stride1_bits);
  f.size = LowBits(in.operand2, l.op2_address_bits);
  f.padding2 = HighBits(in.operand2, l.op2_address_bits);
  const unsigned k = l.simd_operand_bits;
  f.simd_dest = LowBits(in.operand2, k);
  f.simd_right = LowBits(HighBits(in.operand2, k), k);
  f.simd_left = LowBits(HighBits(in.operand2, 2 * k), k);
  f.simd_op = LowBits(HighBits(in.operand2, 3 * k), 4);
  f.simd_padding = HighBits(in.operand2, l.simd_instruction_bits);
  return f;
}

Instruction DecodeAt(ByteView program, uint64_t index, const Layout& l) {
  const uint64_t base = index * l.instruction_bytes;
  Instruction in;
  in.operand0 = ReadField(program, base, l.op0_bytes);
  in.operand1 = ReadField(program, base + l.op0_bytes, l.op1_bytes);
  in.operand2 = ReadField(program, base + l.op0_bytes + l.op1_bytes, l.op2_bytes);
  in.header = program[base + l.instruction_bytes - 1];
  return in;
}

void Encode(const Instruction& in, const Layout& l, std::vector<uint8_t>* out) {
  WriteField(in.operand0, l.op0_bytes, out);
  WriteField(in.operand1, l.op1_bytes, out);
  WriteField(in.operand2, l.op2_bytes, out);
  out->push_back(in.header);
}

uint64_t PackOperand(uint64_t address, unsigned address_bits, uint64_t stride, unsigned stride_bits,
                     uint64_t padding) {
  const unsigned top = address_bits + stride_bits;
  uint64_t value = LowBits(address, address_bits);
  if (address_bits < 64) value |= LowBits(stride, stride_bits) << address_bits;
  if (top < 64) value |= padding << top;
  return value;
}

uint64_t PackSimd(const Layout& l, uint64_t op, uint64_t left, uint64_t right, uint64_t dest,
                  uint64_t padding) {
  const unsigned k = l.simd_operand_bits;
  uint64_t value = LowBits(dest, k) | LowBits(right, k) << k | LowBits(left, k) << (2 * k) |
                   LowBits(op, 4) << (3 * k);
  if (l.simd_instruction_bits < 64) value |= padding << l.simd_instruction_bits;
  return value;
}

}  // namespace accelcheck::tensil
