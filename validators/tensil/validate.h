// The validation passes over a decoded Tensil model (docs/formats/tensil.md §7).
#pragma once

#include <string>

#include "validators/core/bytes.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/tensil/arch.h"
#include "validators/tensil/manifest.h"

namespace accelcheck::tensil {

// The program as the passes see it: its bytes, and the name of its .tprog
// when the file validated is the .tmodel that names it (the member of
// diagnostics at its bytes; empty for a .tprog validated itself).
struct Program {
  ByteView bytes;
  std::string member;
};

// Where instruction `index` is: its bytes and the object path "prog[index]".
Location InstructionAt(const Program& program, const Layout& layout, uint64_t index);

// Per-instruction rules TNS-16 to TNS-26 (and TNS-13 for DRAM0 rows). The caller has
// checked that the program is a whole number of instructions. Returns false
// when the deadline expired.
bool CheckInstructions(const Program& program, const Architecture& arch, const Layout& layout,
                       const Deadline& deadline, DiagnosticSink& sink);

// Whole-program rules TNS-27 to TNS-30, row granular over the four memories. Runs only
// on a program every instruction of which is in range.
bool CheckDataflow(const Program& program, const Model& model, const Layout& layout,
                   const Deadline& deadline, DiagnosticSink& sink);

// .tdata rules TNS-9, TNS-14, TNS-15 for consts[index].
void CheckConstants(ByteView tdata, const Model& model, size_t index, DiagnosticSink& sink);

}  // namespace accelcheck::tensil
