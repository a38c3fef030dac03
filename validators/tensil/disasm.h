// Tensil assembly: one instruction per line, every field named, so that any
// .tprog disassembles and assembles back to the same bytes.
//
//   DataMove dram1->local local=0 dram1=0 size=288
//   LoadWeights local=0 size=32
//   MatMul accumulate local=289 acc=33 size=30 stride0=1
//   SIMD read write op=max left=in right=r1 dest=out wacc=1 racc=0
//   Wait thread=0
//   .bytes 00 00 00 70          (any encoding the forms above cannot express)
//
// Numbers are decimal or 0x-prefixed hex; fields left out are 0; text after
// ';' is a comment. A header with the tid bit set adds "tid=1".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/tensil/arch.h"
#include "validators/tensil/instruction.h"

namespace accelcheck::tensil {

std::string DisassembleOne(const Instruction& instruction, const Layout& layout);

// The instruction as a `.bytes` line, whatever its fields hold.
std::string RawBytesLine(const Instruction& instruction, const Layout& layout);

// The whole program, one line per instruction; the caller has checked that
// the program is a whole number of instructions.
std::string Disassemble(ByteView program, const Layout& layout);

struct AssembleError {
  uint64_t line = 0;  // 1-based
  std::string message;
};

// Assembles `text`, or returns the first error.
std::optional<std::vector<uint8_t>> Assemble(std::string_view text, const Layout& layout,
                                             AssembleError* error);

}  // namespace accelcheck::tensil
