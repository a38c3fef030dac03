// `accelcheck inspect` for Edge TPU models and bare packages.
#pragma once

#include <nlohmann/json.hpp>

#include "validators/core/format.h"

namespace accelcheck::edgetpu {

// The model's Edge TPU operators with their packages, or null when the
// model does not verify (the reasons go to `sink`).
nlohmann::json InspectModel(ByteView file, const ValidateContext& context, DiagnosticSink& sink);
// A bare DWN1 package.
nlohmann::json InspectPackage(ByteView package, const ValidateContext& context,
                              DiagnosticSink& sink);

}  // namespace accelcheck::edgetpu
