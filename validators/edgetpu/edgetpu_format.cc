// The edgetpu Format: content detection, the validation pipeline and
// inspection (docs/formats/edgetpu.md).
#include "validators/edgetpu/edgetpu_format.h"

#include <algorithm>
#include <filesystem>
#include <functional>
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

// Decode -> executables, bitstreams, parameters, hints, layers, layouts and
// conventions, each pass group only on what the one before found sound
// (docs/ARCHITECTURE.md "Phases"); the layout pass skips by itself the
// layers G reports. The decoded package, for the operator's checks, when
// every pass ran.
std::optional<PackageView> ValidatePackage(const PackageBytes& p, const InputBuffer& file,
                                           const ValidateContext& context, DiagnosticSink& sink) {
  auto view = DecodePackage(p.bytes, p.file_offset, p.path, context, sink, &file);
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
  ValidateConventions(*view, sink);
  return view;
}

// A bare package is identified as the runtime identifies one it is handed
// (docs/formats/edgetpu.md §2).
bool IsPackage(ByteView bytes) { return HasBytesAt(bytes, 4, "DWN1"); }

void ValidateFile(const InputBuffer& file, const ValidateContext& context, DiagnosticSink& sink) {
  const FlatbufferRegion region{file.bytes(), 0, ""};
  const bool has_ops = ForEachPackage(
      file.bytes(), context, sink,
      [&](const PackageBytes& p) { return ValidatePackage(p, file, context, sink); },
      [&](const EdgetpuOp* op, const PackageView& view) {
        // The operator's tensors against the package's main executable
        // (EDG-11 to EDG-16); a bare package has no operator to check.
        if (op != nullptr) ValidateOperatorIo(region, *op, view, sink);
      });
  if (!has_ops) {
    sink.Report(rules::kNoEdgetpuOp, Location{},
                Str("no operator has the custom code ", kCustomOpName,
                    ": the model runs on the CPU only (compile it with edgetpu_compiler)"));
  }
}

// EDG-90: the parameter-caching tokens of a file's packages, each once; 0
// (no caching) is no token.
std::vector<SharedValue> CacheTokens(ByteView file, const ValidateContext& context) {
  DiagnosticSink quiet(Profile{}, "");
  std::vector<SharedValue> tokens;
  ForEachPackage(
      file, context, quiet,
      [&](const PackageBytes& p) {
        return DecodePackage(p.bytes, p.file_offset, p.path, context, quiet);
      },
      [&](const EdgetpuOp*, const PackageView& view) {
        for (const ExecutableView& exe : view.executables) {
          const uint64_t token = exe.executable->parameter_caching_token();
          std::string name = Str("parameter_caching_token ", Hex(token));
          const bool seen = std::any_of(tokens.begin(), tokens.end(),
                                        [&](const SharedValue& v) { return v.name == name; });
          if (token == 0 || seen) continue;
          tokens.push_back(
              {std::move(name),
               exe.buffer.region.AtObject(exe.executable, "parameter_caching_token"),
               "the compiler gives files compiled together one token, so that their parameters "
               "share the Edge TPU's cache; files compiled apart with one token make the runtime "
               "take one's cached parameters for the other's"});
        }
      });
  return tokens;
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
    ValidateFile(input, context, sink);
  }

  std::vector<SharedValue> SharedValues(const InputBuffer& input,
                                        const ValidateContext& context) const override {
    return CacheTokens(input.bytes(), context);
  }

  nlohmann::json Inspect(const InputBuffer& input, const ValidateContext& context,
                         DiagnosticSink& sink) const override {
    return IsPackage(input.bytes()) ? InspectPackage(input.bytes(), context, sink)
                                    : InspectModel(input.bytes(), context, sink);
  }
};

}  // namespace

bool ForEachPackage(ByteView file, const ValidateContext& context, DiagnosticSink& sink,
                    const DecodePackageFn& decode, const VisitPackageFn& visit) {
  if (IsPackage(file)) {
    if (const auto view = decode({file, 0, ""})) visit(nullptr, *view);
    return true;
  }
  if (!VerifyModel(file, context.limits, sink)) return true;
  const tfl::Model& model = *tfl::GetModel(file.data());
  const uint64_t before = sink.blocking_count();
  const std::vector<EdgetpuOp> ops = FindEdgetpuOps(file, model, sink);
  for (const EdgetpuOp& op : ops) {
    if (OutOfTime(context, sink)) return true;
    const auto package = ReadCustomOptions(op, sink);
    if (!package) continue;
    const auto view = decode(*package);
    if (view && !OutOfTime(context, sink)) visit(&op, *view);
  }
  return !ops.empty() || sink.blocking_count() != before;
}

const Format& EdgetpuFormat() {
  static const EdgetpuFormatImpl kFormat;
  return kFormat;
}

}  // namespace accelcheck::edgetpu
