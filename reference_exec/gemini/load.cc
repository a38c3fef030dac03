#include "reference_exec/gemini/load.h"

#include "validators/core/compressed.h"
#include "validators/core/core_rules.h"
#include "validators/core/format.h"
#include "validators/core/text.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/gemini_format.h"
#include "validators/gemini/set_lower.h"

namespace accelcheck::gemini {

namespace {

ValidateContext ContextFor(const std::string& path, const LoadOptions& options) {
  ValidateContext context;
  context.limits = options.limits;
  context.path = path;
  context.deadline = options.deadline;
  return context;
}

// Whether a decoded IR goes to the executor: validated to the end, and valid
// unless the caller takes invalid ones.
bool HandedOver(const DiagnosticSink& sink, const LoadOptions& options) {
  return !sink.failed() && (sink.blocking_count() == 0 || options.allow_invalid);
}

std::optional<LoadedIr> LoadSetIr(const InputBuffer& buffer, const std::string& path,
                                  const std::string& frontend_path, const LoadOptions& options,
                                  DiagnosticSink& sink) {
  if (options.needs_tiles) {
    sink.Report(core_rules::kFormatUnsupported, Location{},
                "an IR of the SET generator's dialect has no tile_info and no frontend IR names "
                "its layers, so the functional executor cannot compute it (docs/formats/gemini.md "
                "§10); simulate runs it");
    return std::nullopt;
  }
  if (!frontend_path.empty()) {
    sink.Report(core_rules::kCompanionUnused, Location{std::nullopt, std::nullopt, frontend_path},
                Str("an IR of the SET generator's dialect has no frontend IR: ",
                    Quoted(frontend_path), " is not read"));
    return std::nullopt;
  }
  auto ir = DecodeAndValidateSet(buffer.bytes(), ContextFor(path, options), sink, &buffer);
  if (!ir || !HandedOver(sink, options)) return std::nullopt;
  return LoadedIr{LowerSetIr(*ir), std::nullopt};
}

}  // namespace

std::optional<LoadedIr> LoadIr(const std::string& path, const std::string& frontend_path,
                               const LoadOptions& options, DiagnosticSink& sink) {
  std::optional<InputBuffer> buffer = ReadModelFile(path, options.limits, sink);
  if (!buffer) return std::nullopt;
  if (LooksLikeSetIr(buffer->bytes())) {
    return LoadSetIr(*buffer, path, frontend_path, options, sink);
  }
  if (!LooksLikeIr(buffer->bytes())) {
    sink.Report(core_rules::kFormatUnknown, Location{}, "the file is not a Gemini scheduler IR");
    return std::nullopt;
  }
  LoadedIr loaded;
  ValidateContext context = ContextFor(path, options);
  if (!frontend_path.empty()) {
    context.companions.push_back(frontend_path);
    loaded.frontend = LoadFrontend(context, sink);
    if (!loaded.frontend) return std::nullopt;
  }
  auto ir = DecodeAndValidate(buffer->bytes(), context,
                              loaded.frontend ? &*loaded.frontend : nullptr, sink, &*buffer);
  if (!ir || !HandedOver(sink, options)) return std::nullopt;
  loaded.ir = std::move(*ir);
  return loaded;
}

std::optional<LoadedIr> LoadValidIr(const std::string& path, const std::string& frontend_path,
                                    const Limits& limits, DiagnosticSink& sink) {
  return LoadIr(path, frontend_path, {limits, Deadline(limits.time_budget_ms), false, false}, sink);
}

}  // namespace accelcheck::gemini
