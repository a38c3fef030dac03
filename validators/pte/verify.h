// The flatbuffers Verifier as the precondition of every later phase
// (as the TFLite and ONNX loaders use it): size checked first, limits from Limits, and a failing
// buffer narrowed down to the object that breaks it.
#pragma once

#include <cstdint>

#include <flatbuffers/flatbuffers.h>

#include "validators/core/bytes.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"

namespace accelcheck::pte {

// The flatbuffers 2.0.8 Verifier aligns a vector's length prefix to 4 bytes
// but not its elements to their size, so a [long], [uint64] or [double]
// vector can pass it at an address that is not a multiple of 8, and reading
// it is then undefined behaviour. Writers always align elements; every reader
// of 8-byte vectors asks this first. An empty vector has nothing to read,
// and the flatbuffers builder does not align it.
template <typename T>
bool ElementsAligned(const flatbuffers::Vector<T>* vector) {
  return vector == nullptr || vector->size() == 0 ||
         reinterpret_cast<uintptr_t>(vector->Data()) % alignof(T) == 0;
}

// Verifies `program` ([0, program_size) of a .pte) against program.fbs with
// identifier ET12 (PTE-13). False, with a diagnostic, when it does not verify.
bool VerifyProgram(ByteView program, const Limits& limits, DiagnosticSink& sink);

// The same for the flatbuffer of a .ptd (flat_tensor.fbs, FT01; PTE-64).
bool VerifyFlatTensor(ByteView buffer, const Limits& limits, DiagnosticSink& sink);

}  // namespace accelcheck::pte
