// The flatbuffers Verifier as the precondition of every later phase
// (spec/anchors.md §3): size checked first, limits from Limits, and a failing
// buffer narrowed down to the object that breaks it.
#pragma once

#include "validators/core/bytes.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"

namespace accelcheck::pte {

// Verifies `program` ([0, program_size) of a .pte) against program.fbs with
// identifier ET12 (#13). False, with a diagnostic, when it does not verify.
bool VerifyProgram(ByteView program, const Limits& limits, DiagnosticSink& sink);

// The same for the flatbuffer of a .ptd (flat_tensor.fbs, FT01; #64).
bool VerifyFlatTensor(ByteView buffer, const Limits& limits, DiagnosticSink& sink);

}  // namespace accelcheck::pte
