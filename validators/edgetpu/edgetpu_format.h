// The Edge TPU format: DarwiNN packages inside TensorFlow Lite models.
#pragma once

#include <functional>
#include <optional>

#include "validators/core/format.h"
#include "validators/edgetpu/custom_options.h"
#include "validators/edgetpu/package.h"
#include "validators/edgetpu/tflite.h"

namespace accelcheck::edgetpu {

const Format& EdgetpuFormat();

// Calls `visit` with each package of `file` that `decode` decodes: those of
// the Edge TPU operators of a model, with the operator, or a bare package,
// without one (model -> Edge TPU operators -> per operator: custom options
// -> package; docs/ARCHITECTURE.md "Phases"). What stands in the way goes to
// `sink`. False when the file is a model without Edge TPU operators and
// nothing else is wrong with it.
using DecodePackageFn = std::function<std::optional<PackageView>(const PackageBytes&)>;
using VisitPackageFn = std::function<void(const EdgetpuOp*, const PackageView&)>;
bool ForEachPackage(ByteView file, const ValidateContext& context, DiagnosticSink& sink,
                    const DecodePackageFn& decode, const VisitPackageFn& visit);

}  // namespace accelcheck::edgetpu
