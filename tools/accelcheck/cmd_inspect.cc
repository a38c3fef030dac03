// accelcheck inspect FILE: the decoded structure, with byte offsets, as JSON.
#include <exception>
#include <iostream>
#include <new>

#include <nlohmann/json.hpp>

#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "validators/core/core_rules.h"
#include "validators/core/format.h"
#include "validators/core/report.h"
#include "validators/core/text.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck::cli {

namespace {

CommandSpec InspectSpec() {
  std::vector<Flag> flags = {
      {"format", true, "ID", "decode as format ID instead of detecting it"},
      {"data", true, "FILE", "a companion file, such as the .ptd of a .pte (repeatable)"},
      {"disasm", false, "", "print a Tensil program as assembly instead of JSON"},
      {"help", false, "", "print this help"},
  };
  const std::vector<Flag> limits = LimitFlags();
  flags.insert(flags.end(), limits.begin(), limits.end());
  return {"inspect",
          "usage: accelcheck inspect [options] FILE|-\n"
          "Prints the decoded structure as JSON. When the input does not decode, prints\n"
          "the diagnostics on standard error and exits 1 (3 for I/O errors and limits).\n",
          std::move(flags)};
}

nlohmann::json InspectGuarded(const Format& format, const InputBuffer& buffer,
                              const ValidateContext& context, DiagnosticSink& sink) {
  try {
    return format.Inspect(buffer, context, sink);
  } catch (const std::bad_alloc&) {
    sink.Report(core_rules::kInternalError, {}, "out of memory while decoding the file");
  } catch (const std::exception& e) {
    sink.Report(core_rules::kInternalError, {}, Str("unexpected exception: ", e.what()));
  }
  return nullptr;
}

// The diagnostics go to standard error; a decoded file may still have some.
void PrintDiagnostics(const DiagnosticSink& sink) {
  for (const Diagnostic& d : sink.diagnostics()) std::cerr << TextLine(d) << "\n";
}

}  // namespace

int RunInspect(const Args& args) {
  const CommandSpec spec = InspectSpec();
  int exit_code = 0;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  std::string error;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected exactly one input file");
  ValidateContext context;
  if (!ApplyLimitFlags(*parsed, &context.limits, &error)) return UsageError(spec, error);
  const Format* forced = nullptr;
  if (auto id = parsed->Get("format")) {
    forced = FindFormat(*id);
    if (forced == nullptr) return UsageError(spec, Str("unknown format '", *id, "'"));
  }
  context.path = parsed->positional[0];
  context.companions = parsed->All("data");
  context.deadline = Deadline(context.limits.time_budget_ms);

  const std::string name = DisplayName(context.path);
  DiagnosticSink sink(Profile{}, name);
  const std::optional<InputBuffer> buffer = ReadInput(context.path, context.limits, sink);
  if (parsed->Has("disasm")) {
    // Only Tensil has a disassembler, and its programs are not detected by
    // content: --disasm reads the input as Tensil.
    if (forced != nullptr && forced->id() != "tensil")
      return UsageError(spec, "--disasm reads Tensil models and programs");
    const auto text = buffer ? tensil::DisassembleInput(*buffer, context, sink) : std::nullopt;
    PrintDiagnostics(sink);
    if (!text) return static_cast<int>(sink.failed() ? ExitCode::kFailure : ExitCode::kErrors);
    std::cout << *text << std::flush;
    return static_cast<int>(ExitCode::kConforms);
  }
  const Format* format = !buffer             ? nullptr
                         : forced != nullptr ? forced
                                             : DetectFormat(buffer->bytes());
  if (buffer && format == nullptr) {
    sink.Report(core_rules::kFormatUnknown, {}, "content matches no supported format");
  }
  nlohmann::json structure;
  if (format != nullptr) structure = InspectGuarded(*format, *buffer, context, sink);
  PrintDiagnostics(sink);
  if (structure.is_null()) {
    // A null structure with no diagnostic would be a validator bug; it still
    // must not look like a decoded file.
    return static_cast<int>(sink.failed() ? ExitCode::kFailure : ExitCode::kErrors);
  }
  std::cout << structure.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n"
            << std::flush;
  return static_cast<int>(sink.failed() ? ExitCode::kFailure : ExitCode::kConforms);
}

}  // namespace accelcheck::cli
