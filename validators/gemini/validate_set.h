// The validation passes over a decoded SET-dialect IR (docs/formats/gemini.md
// "The SET dialect"), in phase order: structure -> transfers -> order and
// buffers.
#pragma once

#include "validators/core/format.h"
#include "validators/core/sink.h"
#include "validators/gemini/frontend.h"
#include "validators/gemini/set_model.h"

namespace accelcheck::gemini::set {

// With a frontend IR, each workload is also checked against its layer:
// gemini.frontend.layer, gemini.frontend.layer_type, gemini.workload.shape
// and gemini.set.receptive_field.
void ValidateSetIr(const Ir& ir, const Frontend* frontend, const ValidateContext& context,
                   DiagnosticSink& sink);

}  // namespace accelcheck::gemini::set
