// The edgetpu Format: content detection, the validation pipeline and
// inspection (docs/formats/edgetpu.md).
#include "validators/edgetpu/edgetpu_format.h"

#include <filesystem>
#include <optional>

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
// layers G reports. The decoded package, for the operator's checks, when
// every pass ran.
std::optional<PackageView> ValidatePackage(ByteView bytes, uint64_t file_offset,
                                           const std::string& path, const ValidateContext& context,
                                           DiagnosticSink& sink) {
  auto view = DecodePackage(bytes, file_offset, path, context.limits, sink);
  if (!view || OutOfTime(context, sink)) return std::nullopt;
  ValidateExecutableSet(*view, sink);
  ValidateBitstreams(*view, sink);
  ValidateParameters(*view, sink);
  ValidateHints(*view, sink);
  ValidateLayers(*view, sink);
  if (!ValidateLayouts(*view, context.deadline, sink)) {
    OutOfTime(context, sink);
    return std::nullopt;
  }
  return view;
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
  const FlatbufferRegion region{file, 0, ""};
  if (ops.empty() && sink.blocking_count() == before) {
    sink.Report(rules::kNoEdgetpuOp, Location{},
                Str("no operator has the custom code ", kCustomOpName,
                    ": the model runs on the CPU only (compile it with edgetpu_compiler)"));
  }
  for (const EdgetpuOp& op : ops) {
    if (OutOfTime(context, sink)) return;
    const auto package = ReadCustomOptions(op, sink);
    if (!package) continue;
    const auto view =
        ValidatePackage(package->bytes, package->file_offset, package->path, context, sink);
    // The operator's tensors against the package's main executable
    // (EDG-11 to EDG-16); a bare package has no operator to check.
    if (view && !OutOfTime(context, sink)) ValidateOperatorIo(region, op, *view, sink);
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
