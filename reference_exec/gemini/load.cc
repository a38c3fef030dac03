#include "reference_exec/gemini/load.h"

#include "validators/core/compressed.h"
#include "validators/core/core_rules.h"
#include "validators/core/format.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/gemini_format.h"

namespace accelcheck::gemini {

std::optional<LoadedIr> LoadIr(const std::string& path, const std::string& frontend_path,
                               const LoadOptions& options, DiagnosticSink& sink) {
  std::optional<InputBuffer> buffer = ReadModelFile(path, options.limits, sink);
  if (!buffer) return std::nullopt;
  if (!LooksLikeIr(buffer->bytes())) {
    sink.Report(core_rules::kFormatUnknown, Location{}, "the file is not a Gemini scheduler IR");
    return std::nullopt;
  }
  LoadedIr loaded;
  ValidateContext context;
  context.limits = options.limits;
  context.path = path;
  context.deadline = options.deadline;
  if (!frontend_path.empty()) {
    context.companions.push_back(frontend_path);
    loaded.frontend = LoadFrontend(context, sink);
    if (!loaded.frontend) return std::nullopt;
  }
  auto ir = DecodeAndValidate(buffer->bytes(), context,
                              loaded.frontend ? &*loaded.frontend : nullptr, sink, &*buffer);
  if (!ir || sink.failed()) return std::nullopt;
  if (sink.blocking_count() != 0 && !options.allow_invalid) return std::nullopt;
  loaded.ir = std::move(*ir);
  return loaded;
}

std::optional<LoadedIr> LoadValidIr(const std::string& path, const std::string& frontend_path,
                                    const Limits& limits, DiagnosticSink& sink) {
  return LoadIr(path, frontend_path, {limits, Deadline(limits.time_budget_ms), false}, sink);
}

}  // namespace accelcheck::gemini
