// The edgetpu Format: content detection, the validation pipeline and
// inspection (docs/formats/edgetpu.md).
#include "validators/edgetpu/edgetpu_format.h"

#include <filesystem>

#include "validators/core/phases.h"

#include "validators/core/text.h"
#include "validators/edgetpu/custom_options.h"
#include "validators/edgetpu/inspect.h"
#include "validators/edgetpu/package.h"
#include "validators/edgetpu/rules.h"
#include "validators/edgetpu/tflite.h"
#include "validators/edgetpu/validate.h"

namespace accelcheck::edgetpu {

namespace {

// Decode -> executables, bitstreams, parameters, hints, layers and layouts,
// each pass group only on what the one before found sound
// (docs/ARCHITECTURE.md "Phases"); the layout pass skips by itself the
// layers G reports.
void ValidatePackage(ByteView bytes, uint64_t file_offset, const std::string& path,
                     const ValidateContext& context, DiagnosticSink& sink) {
  const auto view = DecodePackage(bytes, file_offset, path, context.limits, sink);
  if (!view || OutOfTime(context, sink)) return;
  ValidateExecutableSet(*view, sink);
  ValidateBitstreams(*view, sink);
  ValidateParameters(*view, sink);
  ValidateHints(*view, sink);
  ValidateLayers(*view, sink);
  if (!ValidateLayouts(*view, context.deadline, sink)) OutOfTime(context, sink);
}

// A bare package is identified as the runtime identifies one it is handed
// (docs/formats/edgetpu.md §2).
bool IsPackage(ByteView bytes) { return HasBytesAt(bytes, 4, "DWN1"); }

// model -> Edge TPU operators -> per operator: custom options -> package
// (docs/ARCHITECTURE.md "Phases").
void ValidateModel(ByteView file, const ValidateContext& context, DiagnosticSink& sink) {
  if (!VerifyModel(file, context.limits, sink)) return;
  const tfl::Model& model = *tfl::GetModel(file.data());
  const uint64_t before = sink.blocking_count();
  const std::vector<EdgetpuOp> ops = FindEdgetpuOps(file, model, sink);
  if (ops.empty() && sink.blocking_count() == before) {
    sink.Report(rules::kNoEdgetpuOp, Location{},
                Str("no operator has the custom code ", kCustomOpName,
                    ": the model runs on the CPU only (compile it with edgetpu_compiler)"));
  }
  for (const EdgetpuOp& op : ops) {
    if (OutOfTime(context, sink)) return;
    const auto package = ReadCustomOptions(op, sink);
    if (!package) continue;
    ValidatePackage(package->bytes, package->file_offset, package->path, context, sink);
  }
}

class EdgetpuFormatImpl final : public Format {
 public:
  std::string_view id() const override { return "edgetpu"; }
  std::string_view description() const override {
    return "Edge TPU DarwiNN packages inside TensorFlow Lite models (.tflite, TFL3)";
  }
  RuleTable rules() const override { return AllRules(); }

  // The TensorFlow Lite identifier, or a bare package's (docs/formats/edgetpu.md §2).
  bool Detect(ByteView bytes) const override {
    return HasBytesAt(bytes, 4, "TFL3") || IsPackage(bytes);
  }
  bool Resembles(const std::string& path, ByteView bytes) const override {
    return std::filesystem::path(path).extension() == ".tflite" || HasBytesAt(bytes, 4, "TFL") ||
           HasBytesAt(bytes, 4, "DWN");
  }
  bool TakesCompanion(const std::string&, ByteView) const override { return false; }
  std::string_view companion_kinds() const override { return "no companion file"; }

  void Validate(const InputBuffer& input, const ValidateContext& context,
                DiagnosticSink& sink) const override {
    if (IsPackage(input.bytes())) {
      ValidatePackage(input.bytes(), 0, "", context, sink);
    } else {
      ValidateModel(input.bytes(), context, sink);
    }
  }

  nlohmann::json Inspect(const InputBuffer& input, const ValidateContext& context,
                         DiagnosticSink& sink) const override {
    return IsPackage(input.bytes()) ? InspectPackage(input.bytes(), context, sink)
                                    : InspectModel(input.bytes(), context, sink);
  }
};

}  // namespace

const Format& EdgetpuFormat() {
  static const EdgetpuFormatImpl kFormat;
  return kFormat;
}

}  // namespace accelcheck::edgetpu
