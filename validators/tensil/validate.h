// The validation passes over a decoded Tensil model (docs/formats/tensil.md §7).
#pragma once

#include "validators/core/bytes.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/tensil/arch.h"
#include "validators/tensil/manifest.h"

namespace accelcheck::tensil {

// Per-instruction rules TNS-16 to TNS-26 (and TNS-13 for DRAM0 rows). The caller has
// checked that the program is a whole number of instructions. Returns false
// when the deadline expired.
bool CheckInstructions(ByteView program, const Architecture& arch, const Layout& layout,
                       const Deadline& deadline, DiagnosticSink& sink);

// Whole-program rules TNS-27 to TNS-30, row granular over the four memories. Runs only
// on a program every instruction of which is in range.
bool CheckDataflow(ByteView program, const Model& model, const Layout& layout,
                   const Deadline& deadline, DiagnosticSink& sink);

// .tdata rules TNS-9, TNS-14, TNS-15 for consts[index].
void CheckConstants(ByteView tdata, const Model& model, size_t index, DiagnosticSink& sink);

}  // namespace accelcheck::tensil
