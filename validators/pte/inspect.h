// `accelcheck inspect` for .pte and .ptd: the decoded structure as JSON, with
// the byte offset of every table ("@offset").
#pragma once

#include <nlohmann/json.hpp>

#include "validators/core/format.h"

namespace accelcheck::pte {

nlohmann::json InspectPte(const InputBuffer& input, const ValidateContext& context,
                          DiagnosticSink& sink);
nlohmann::json InspectPtd(const InputBuffer& input, const ValidateContext& context,
                          DiagnosticSink& sink);

}  // namespace accelcheck::pte
