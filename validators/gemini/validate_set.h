// The validation passes over a decoded SET-dialect IR (docs/formats/gemini.md
// "The SET dialect"), in phase order: structure -> transfers -> order and
// buffers.
#pragma once

#include "validators/core/format.h"
#include "validators/core/sink.h"
#include "validators/gemini/set_model.h"

namespace accelcheck::gemini::set {

void ValidateSetIr(const Ir& ir, const ValidateContext& context, DiagnosticSink& sink);

}  // namespace accelcheck::gemini::set
