// The .pte and .ptd schemas through the core's flatbuffer verification
// (validators/core/flatbuffer.h): where each schema's failures are located.
#pragma once

#include <cstdint>

#include "validators/core/bytes.h"
#include "validators/core/flatbuffer.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"

namespace accelcheck::pte {

// Verifies `program` ([0, program_size) of a .pte) against program.fbs with
// identifier ET12 (PTE-13). False, with a diagnostic, when it does not verify.
bool VerifyProgram(ByteView program, const Limits& limits, DiagnosticSink& sink);

// The same for the flatbuffer of a .ptd (flat_tensor.fbs, FT01; PTE-64).
bool VerifyFlatTensor(ByteView buffer, const Limits& limits, DiagnosticSink& sink);

}  // namespace accelcheck::pte
