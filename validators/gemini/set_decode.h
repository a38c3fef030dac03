// Streaming decode of a scheduler IR in the SET generator's dialect into the
// tables of set_model.h (docs/formats/gemini.md "The SET dialect"), reporting
// syntax, type and key problems under the Gemini schema rules.
#pragma once

#include "validators/core/bytes.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/gemini/set_model.h"

namespace accelcheck::gemini::set {

// As gemini::DecodeIr: false when the text could not be decoded to the end.
bool DecodeSetIr(ByteView text, const Limits& limits, DiagnosticSink& sink, Ir* ir,
                 const InputBuffer* input = nullptr);

}  // namespace accelcheck::gemini::set
