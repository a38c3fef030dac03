// The passes over a decoded package (docs/formats/edgetpu.md §4 C to I),
// each reporting every problem of its area.
#pragma once

#include <string>

#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/edgetpu/package.h"
#include "validators/edgetpu/tflite.h"

namespace accelcheck::edgetpu {

// Reports at `object` of `exe` (a null object has no offset), `path` inside it.
inline void ReportAt(DiagnosticSink& sink, const Rule& rule, const ExecutableView& exe,
                     const void* object, const std::string& path, std::string message) {
  sink.Report(rule, exe.buffer.region.AtObject(object, path), std::move(message));
}

// C: the executables as a set and one by one (EDG-28 to EDG-40, EDG-97).
void ValidateExecutableSet(const PackageView& view, DiagnosticSink& sink);
// D: instruction bitstreams and their field offsets (EDG-41 to EDG-53, EDG-94).
void ValidateBitstreams(const PackageView& view, DiagnosticSink& sink);
// E: the parameters (EDG-54, EDG-55).
void ValidateParameters(const PackageView& view, DiagnosticSink& sink);
// F: the DMA hints, as the driver's transfer plan (EDG-57 to EDG-68, §6.2).
void ValidateHints(const PackageView& view, DiagnosticSink& sink);
// G: every input and output layer (EDG-69 to EDG-76).
void ValidateLayers(const PackageView& view, DiagnosticSink& sink);
// H: the output layouts and shape_info, and how the runtime copies outputs
// (EDG-77, EDG-79 to EDG-85, EDG-95). False when `deadline` expired first.
bool ValidateLayouts(const PackageView& view, const Deadline& deadline, DiagnosticSink& sink);

// I: the compiler's conventions for where a package's parts lie (EDG-86 to
// EDG-89).
void ValidateConventions(const PackageView& view, DiagnosticSink& sink);

// A: the operator's tensors against the main executable's layers (EDG-11 to
// EDG-16, §2.7); `file` is the TFLite model the operator belongs to.
void ValidateOperatorIo(const FlatbufferRegion& file, const EdgetpuOp& op, const PackageView& view,
                        DiagnosticSink& sink);

}  // namespace accelcheck::edgetpu
