#include "reference_exec/gemini/load.h"

#include "validators/core/compressed.h"
#include "validators/core/core_rules.h"
#include "validators/core/format.h"
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

}  // namespace

std::optional<LoadedIr> LoadIr(const std::string& path, const std::string& frontend_path,
                               const LoadOptions& options, DiagnosticSink& sink) {
  std::optional<InputBuffer> buffer = ReadModelFile(path, options.limits, sink);
  if (!buffer) return std::nullopt;
  const bool set_dialect = LooksLikeSetIr(buffer->bytes());
  if (!set_dialect && !LooksLikeIr(buffer->bytes())) {
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
  const Frontend* frontend = loaded.frontend ? &*loaded.frontend : nullptr;
  if (set_dialect) {
    auto ir = DecodeAndValidateSet(buffer->bytes(), context, frontend, sink, &*buffer);
    if (!ir || !HandedOver(sink, options)) return std::nullopt;
    loaded.ir = LowerSetIr(*ir, frontend);
    return loaded;
  }
  auto ir = DecodeAndValidate(buffer->bytes(), context, frontend, sink, &*buffer);
  if (!ir || !HandedOver(sink, options)) return std::nullopt;
  loaded.ir = std::move(*ir);
  return loaded;
}

std::optional<LoadedIr> LoadValidIr(const std::string& path, const std::string& frontend_path,
                                    const Limits& limits, DiagnosticSink& sink) {
  return LoadIr(path, frontend_path, {limits, Deadline(limits.time_budget_ms), false}, sink);
}

}  // namespace accelcheck::gemini
