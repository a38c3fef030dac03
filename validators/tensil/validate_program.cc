// Per-instruction rules, one function each (docs/formats/tensil.md §7.4).
#include <algorithm>

#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/tensil/instruction.h"
#include "validators/tensil/rules.h"
#include "validators/tensil/validate.h"

namespace accelcheck::tensil {

namespace {

struct Site {
  const Architecture& arch;
  const Layout& layout;
  const Instruction& in;
  const Fields& f;
  uint64_t index;
  const Program& program;
  DiagnosticSink& sink;

  void Report(const Rule& rule, const std::string& message) const {
    sink.Report(rule, InstructionAt(program, layout, index), message);
  }
};

// address + size * 2^stride: the last row an instruction touches, or nothing
// on overflow (docs/formats/tensil.md §4.2: size is count - 1).
std::optional<uint64_t> LastRow(uint64_t address, uint64_t size, uint64_t stride) {
  if (stride >= 64) return size == 0 ? std::optional<uint64_t>(address) : std::nullopt;
  const auto step = CheckedMul(size, uint64_t{1} << stride);
  return step ? CheckedAdd(address, *step) : std::nullopt;
}

std::string RowText(uint64_t address, uint64_t size, uint64_t stride) {
  return Str("address ", Hex(address), " + size ", Hex(size), " x 2^", stride);
}

const char* OpcodeName(uint8_t opcode) {
  switch (opcode) {
    case kWait:
      return "Wait";
    case kMatMul:
      return "MatMul";
    case kDataMove:
      return "DataMove";
    case kLoadWeights:
      return "LoadWeights";
    case kSimd:
      return "SIMD";
    default:
      return "?";
  }
}

// The memory on operand1's side of a DataMove.
struct Memory {
  const char* name;
  uint64_t depth;
};
Memory OtherMemory(const Architecture& arch, uint8_t kind) {
  if (kind == kDram0ToLocal || kind == kLocalToDram0) return {"DRAM0", arch.dram0_depth};
  if (kind == kDram1ToLocal || kind == kLocalToDram1) return {"DRAM1", arch.dram1_depth};
  return {"accumulators", arch.accumulator_depth};
}

// TNS-16
bool CheckTid(const Site& s) {
  if (s.in.tid() == 0 || s.arch.number_of_threads > 1) return true;
  s.Report(rules::kInstrTid, Str("header ", Hex(s.in.header),
                                 " sets the thread bit 7 in a single-thread architecture"));
  return false;
}

// TNS-17
bool CheckOpcode(const Site& s) {
  if (s.in.opcode() <= kSimd) return true;
  s.Report(rules::kInstrOpcode,
           Str("opcode ", static_cast<int>(s.in.opcode()), " (header ", Hex(s.in.header),
               ") is not Wait 0, MatMul 1, DataMove 2, LoadWeights 3 or SIMD 4"));
  return false;
}

// TNS-18
bool CheckFlags(const Site& s) {
  const uint8_t flags = s.in.flags();
  bool valid = true;
  const char* expected = "";
  switch (s.in.opcode()) {
    case kWait:
      valid = flags == 0;
      expected = "0";
      break;
    case kMatMul:
      valid = flags <= 3;
      expected = "0..3";
      break;
    case kDataMove:
      valid = IsDataMoveKind(flags);
      expected = "one of 0, 1, 2, 3, 12, 13, 15";
      break;
    case kLoadWeights:
      valid = flags <= 1;
      expected = "0 or 1";
      break;
    case kSimd:
      valid = flags <= 7;
      expected = "0..7";
      break;
  }
  if (!valid) {
    s.Report(rules::kInstrFlags,
             Str(OpcodeName(s.in.opcode()), " flags are ", Hex(flags), ", expected ", expected));
  }
  return valid;
}

// TNS-19: operand bits above the fields.
void CheckPadding(const Site& s, bool operand1_is_size) {
  const auto report = [&](const char* operand, uint64_t padding, unsigned from) {
    if (padding != 0) {
      s.Report(rules::kInstrPadding,
               Str(operand, " padding above bit ", from, " is ", Hex(padding), ", expected 0"));
    }
  };
  report("operand0", s.f.padding0, s.layout.op0_address_bits + s.layout.stride0_bits);
  if (!operand1_is_size)
    report("operand1", s.f.padding1, s.layout.op1_address_bits + s.layout.stride1_bits);
  if (s.in.opcode() == kSimd) {
    report("operand2", s.f.simd_padding, s.layout.simd_instruction_bits);
  } else if (s.in.opcode() != kLoadWeights) {
    report("operand2", s.f.padding2, s.layout.op2_address_bits);
  }
}

// TNS-20
void CheckStrides(const Site& s, bool check_stride1) {
  if (s.f.stride0 >= s.arch.stride0_depth) {
    s.Report(rules::kInstrStride,
             Str("stride0 ", s.f.stride0, " is not below stride0_depth ", s.arch.stride0_depth));
  }
  if (check_stride1 && s.f.stride1 >= s.arch.stride1_depth) {
    s.Report(rules::kInstrStride,
             Str("stride1 ", s.f.stride1, " is not below stride1_depth ", s.arch.stride1_depth));
  }
}

void CheckLocalRange(const Site& s, uint64_t size) {
  const auto last = LastRow(s.f.address0, size, s.f.stride0);
  if (!last || *last >= s.arch.local_depth) {
    s.Report(rules::kInstrLocalRange, Str("local ", RowText(s.f.address0, size, s.f.stride0),
                                          " is not below local_depth ", Hex(s.arch.local_depth)));
  }
}

void CheckOtherRange(const Site& s, const Memory& memory) {
  const auto last = LastRow(s.f.address1, s.f.size, s.f.stride1);
  if (!last || *last >= memory.depth) {
    s.Report(rules::kInstrOtherRange,
             Str(memory.name, " ", RowText(s.f.address1, s.f.size, s.f.stride1),
                 " is not below its depth ", Hex(memory.depth)));
  }
}

// StreamGen: size < min(local_depth, depth of the other memory).
void CheckSize(const Site& s, uint64_t size, const Memory& other) {
  const uint64_t limit = std::min(s.arch.local_depth, other.depth);
  if (size >= limit) {
    s.Report(rules::kInstrSize,
             Str("size ", Hex(size), " is not below min(local_depth ", Hex(s.arch.local_depth),
                 ", ", other.name, " depth ", Hex(other.depth), ")"));
  }
}

void CheckZeroesOperand(const Site& s) {
  if (s.f.address0 != 0 || s.f.stride0 != 0) {
    s.Report(rules::kInstrZeroesOperand, Str("Zeroes ignores local address ", Hex(s.f.address0),
                                             " stride ", s.f.stride0, "; the compiler writes 0"));
  }
}

// TNS-13 for the program: DataMoves that touch DRAM0's last two vectors.
void CheckProbeRows(const Site& s) {
  if (s.arch.dram0_depth < 2) return;
  const auto last = LastRow(s.f.address1, s.f.size, s.f.stride1);
  if (last && *last < s.arch.dram0_depth && *last >= s.arch.dram0_depth - 2) {
    s.Report(rules::kModelProbeRows,
             Str("DRAM0 row ", Hex(*last),
                 " is one of the last two, which the drivers' flush probe overwrites"));
  }
}

// TNS-21
void CheckMatMul(const Site& s) {
  const Memory acc{"accumulators", s.arch.accumulator_depth};
  CheckPadding(s, false);
  CheckStrides(s, true);
  if (s.in.flags() & kMatMulZeroes) {
    CheckZeroesOperand(s);
  } else {
    CheckLocalRange(s, s.f.size);
  }
  CheckOtherRange(s, acc);
  CheckSize(s, s.f.size, acc);
}

// TNS-22
void CheckDataMove(const Site& s) {
  const Memory other = OtherMemory(s.arch, s.in.flags());
  CheckPadding(s, false);
  CheckStrides(s, true);
  CheckLocalRange(s, s.f.size);
  CheckOtherRange(s, other);
  CheckSize(s, s.f.size, other);
  if (s.in.flags() == kDram0ToLocal || s.in.flags() == kLocalToDram0) CheckProbeRows(s);
}

// TNS-23: operand1 is the size; operand2 is unused.
void CheckLoadWeights(const Site& s) {
  const uint64_t size = s.in.operand1;
  CheckPadding(s, true);
  CheckStrides(s, false);
  if (s.in.flags() & kLoadWeightsZeroes) {
    CheckZeroesOperand(s);
  } else {
    CheckLocalRange(s, size);
  }
  if (size >= s.arch.local_depth) {
    s.Report(rules::kInstrSize,
             Str("size ", Hex(size), " is not below local_depth ", Hex(s.arch.local_depth)));
  }
  if (size > s.arch.array_size + 1) {
    s.Report(rules::kLoadWeightsRows,
             Str("size ", size, " exceeds array_size + 1 = ", s.arch.array_size + 1));
  } else if (size == s.arch.array_size + 1) {
    s.Report(rules::kLoadWeightsOversize,
             Str("size ", size, " pushes ", size + 1, " rows into a register of ",
                 s.arch.array_size + 1, "; the first row is shifted out"));
  }
  if (s.in.operand2 != 0) {
    s.Report(rules::kLoadWeightsOperand2, Str("operand2 is ", Hex(s.in.operand2), ", expected 0"));
  }
}

bool SimdConsumesInput(const Fields& f) {
  if (SimdOpIsNullary(static_cast<uint8_t>(f.simd_op))) return false;
  if (SimdOpIsUnary(static_cast<uint8_t>(f.simd_op))) return f.simd_left == 0;
  return f.simd_left == 0 || f.simd_right == 0;
}

void CheckSimdAddresses(const Site& s) {
  const bool read = s.in.flags() & kSimdRead, write = s.in.flags() & kSimdWrite;
  if (s.f.address0 >= s.arch.accumulator_depth) {
    s.Report(rules::kSimdAccRange,
             Str("write accumulator ", Hex(s.f.address0), " is not below accumulator_depth ",
                 Hex(s.arch.accumulator_depth)));
  }
  if (s.f.address1 >= s.arch.accumulator_depth) {
    s.Report(rules::kSimdAccRange,
             Str("read accumulator ", Hex(s.f.address1), " is not below accumulator_depth ",
                 Hex(s.arch.accumulator_depth)));
  }
  if (s.f.stride0 != 0 || s.f.stride1 != 0) {
    s.Report(rules::kSimdStride,
             Str("stride fields are ", s.f.stride0, " and ", s.f.stride1, ", expected 0"));
  }
  if (!write && s.f.address0 != 0) {
    s.Report(rules::kSimdUnusedAddress,
             Str("write accumulator ", Hex(s.f.address0), " without Write"));
  }
  if (!read && s.f.address1 != 0) {
    s.Report(rules::kSimdUnusedAddress,
             Str("read accumulator ", Hex(s.f.address1), " without Read"));
  }
}

void CheckSimdRegisters(const Site& s) {
  const std::pair<const char*, uint64_t> operands[] = {{"left source", s.f.simd_left},
                                                       {"right source", s.f.simd_right},
                                                       {"destination", s.f.simd_dest}};
  for (const auto& [what, value] : operands) {
    if (value > s.arch.simd_registers_depth) {
      s.Report(rules::kSimdRegister,
               Str(what, " names register ", value, " of ", s.arch.simd_registers_depth));
    }
  }
}

// TNS-25. The RTL Validator's rule "no Read and a source is Input" is not used:
// it rejects the compiler's own Zero -> R1 (docs/formats/tensil.md §5.6 item 5).
void CheckSimdUsage(const Site& s) {
  const uint8_t flags = s.in.flags();
  const bool read = flags & kSimdRead, write = flags & kSimdWrite,
             accumulate = flags & kSimdAccumulate;
  const uint8_t op = static_cast<uint8_t>(s.f.simd_op);
  if (read && s.f.simd_left != 0 && s.f.simd_right != 0) {
    s.Report(rules::kSimdReadWithoutInput,
             "Read is set but neither source is Input; the read is never consumed");
  }
  if (write && s.f.simd_dest != 0) {
    s.Report(rules::kSimdWriteDest,
             Str("Write with destination register ", s.f.simd_dest,
                 ": the RTL also writes the accumulator, the emulator does not"));
  }
  if (accumulate && !(write && s.f.simd_dest == 0)) {
    s.Report(rules::kSimdAccumulate,
             "Accumulate without Write to Output accumulates only in the emulator");
  }
  if (!read && SimdConsumesInput(s.f)) {
    s.Report(rules::kSimdInputWithoutRead,
             Str(SimdOpName(op),
                 " consumes Input without Read: the RTL stalls, the emulator uses zeros"));
  }
  if (SimdOpIsNullary(op) && (s.f.simd_left != 0 || s.f.simd_right != 0)) {
    s.Report(rules::kSimdZeroSources,
             Str(SimdOpName(op), " names sources ", s.f.simd_left, " and ", s.f.simd_right));
  }
  if (s.f.simd_dest == 0 && !write) {
    s.Report(rules::kSimdDead,
             Str(SimdOpName(op), " to Output without Write: the result is discarded"));
  }
  const bool emulated = op == kSimdZero || op == kSimdMove || op == kSimdAdd ||
                        op == kSimdSubtract || op == kSimdMultiply || op == kSimdMin ||
                        op == kSimdMax;
  if (!emulated) {
    s.Report(rules::kSimdOpUnemulated, Str("SIMD op ", SimdOpName(op), " (", s.f.simd_op,
                                           ") is not implemented by Tensil's emulator"));
  }
}

// TNS-24, TNS-25
void CheckSimd(const Site& s) {
  CheckPadding(s, false);
  CheckSimdAddresses(s);
  CheckSimdRegisters(s);
  CheckSimdUsage(s);
}

// TNS-26
void CheckWait(const Site& s) {
  const uint64_t thread = LowBits(s.in.operand0, s.layout.tid_bits);
  const uint64_t rest = HighBits(s.in.operand0, s.layout.tid_bits);
  if (thread >= s.arch.number_of_threads) {
    s.Report(rules::kWaitOperands,
             Str("Wait names thread ", thread, " of ", s.arch.number_of_threads));
  }
  if (rest != 0 || s.in.operand1 != 0 || s.in.operand2 != 0) {
    s.Report(rules::kWaitOperands,
             Str("Wait operands are ", Hex(s.in.operand0), ", ", Hex(s.in.operand1), ", ",
                 Hex(s.in.operand2), "; only the thread bits of operand0 may be set"));
  }
}

}  // namespace

Location InstructionAt(const Program& program, const Layout& layout, uint64_t index) {
  return Location{index * layout.instruction_bytes, layout.instruction_bytes,
                  Str("prog[", index, "]"), program.member};
}

bool CheckInstructions(const Program& program, const Architecture& arch, const Layout& layout,
                       const Deadline& deadline, DiagnosticSink& sink) {
  const uint64_t count = program.bytes.size() / layout.instruction_bytes;
  for (uint64_t i = 0; i < count; ++i) {
    if ((i & 0xfff) == 0 && deadline.expired()) return false;
    const Instruction in = DecodeAt(program.bytes, i, layout);
    const Fields f = FieldsOf(in, layout);
    const Site site{arch, layout, in, f, i, program, sink};
    const bool tid_ok = CheckTid(site);
    if (!CheckOpcode(site) || !CheckFlags(site) || !tid_ok) continue;
    switch (in.opcode()) {
      case kWait:
        CheckWait(site);
        break;
      case kMatMul:
        CheckMatMul(site);
        break;
      case kDataMove:
        CheckDataMove(site);
        break;
      case kLoadWeights:
        CheckLoadWeights(site);
        break;
      case kSimd:
        CheckSimd(site);
        break;
    }
  }
  return true;
}

}  // namespace accelcheck::tensil
