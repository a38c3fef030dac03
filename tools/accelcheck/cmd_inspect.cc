// accelcheck inspect FILE: the decoded structure, with byte offsets, as JSON.
#include <exception>
#include <iostream>
#include <new>

#include <nlohmann/json.hpp>

#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/console.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/core_rules.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

namespace {

bool HasDisassembler(const FormatEntry& format) { return format.disassemble != nullptr; }

}  // namespace

const CommandSpec& InspectSpec() {
  static const CommandSpec kSpec = [] {
    std::vector<Flag> flags = {
        {"format", true, "ID", "decode as format ID instead of detecting it"},
        {"data", true, "FILE", "a companion file, such as the .ptd of a .pte (repeatable)"},
        {"disasm", false, "",
         Str("print a program as assembly instead of JSON (", FormatIds(HasDisassembler), ")")},
        {"member", true, "NAME",
         "print one member of a container (a NEFF's archive member) to standard output"},
        {"help", false, "", "print this help"},
    };
    const std::vector<Flag> limits = LimitFlags();
    flags.insert(flags.end(), limits.begin(), limits.end());
    const std::vector<Flag> targets = TargetFlags();
    flags.insert(flags.end(), targets.begin(), targets.end());
    return CommandSpec{
        "inspect", "print the decoded structure of FILE as JSON with byte offsets",
        "usage: accelcheck inspect [options] FILE|-\n"
        "Prints the decoded structure as JSON. When the input does not decode, prints\n"
        "the diagnostics on standard error and exits 1 (3 for I/O errors and limits).\n",
        std::move(flags)};
  }();
  return kSpec;
}

namespace {

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

// The format whose disassembler --disasm uses: the one named by --format, else
// the detected one, else the only format with a disassembler (programs of
// several files, such as a Tensil .tprog, are not recognised by content).
const FormatEntry* DisassemblingFormat(const FormatEntry* forced,
                                       const std::optional<InputBuffer>& buffer) {
  if (forced != nullptr) return forced;
  const FormatEntry* detected = buffer ? DetectFormat(buffer->bytes()) : nullptr;
  if (detected != nullptr && HasDisassembler(*detected)) return detected;
  const FormatEntry* only = nullptr;
  for (const FormatEntry& format : Formats()) {
    if (!HasDisassembler(format)) continue;
    if (only != nullptr) return nullptr;
    only = &format;
  }
  return only;
}

// inspect --disasm: the program as text on standard output.
ExitCode Disassemble(const CommandSpec& spec, const FormatEntry* forced,
                     const std::optional<InputBuffer>& buffer, const ValidateContext& context,
                     bool quiet, DiagnosticSink& sink) {
  const FormatEntry* format = DisassemblingFormat(forced, buffer);
  if (format == nullptr || !HasDisassembler(*format)) {
    return UsageError(spec, Str("--disasm reads programs of ", FormatIds(HasDisassembler),
                                forced != nullptr ? Str(", not ", forced->id()) : ""));
  }
  const auto text = buffer ? format->disassemble(*buffer, context, sink) : std::nullopt;
  PrintDiagnostics(sink, quiet);
  if (!text) return sink.failed() ? ExitCode::kFailure : ExitCode::kErrors;
  std::cout << *text << std::flush;
  return ExitCode::kConforms;
}

// inspect --member NAME: the member's bytes, as they are, on standard output.
ExitCode PrintMember(const FormatEntry* format, const std::optional<InputBuffer>& buffer,
                     const ValidateContext& context, const std::string& member, bool quiet,
                     DiagnosticSink& sink) {
  std::string error;
  std::optional<std::vector<uint8_t>> bytes;
  if (format != nullptr) {
    try {
      bytes = format->validator.ReadMember(*buffer, context, member, &error);
    } catch (const std::bad_alloc&) {
      sink.Report(core_rules::kInternalError, {}, "out of memory while reading the member");
    } catch (const std::exception& e) {
      sink.Report(core_rules::kInternalError, {}, Str("unexpected exception: ", e.what()));
    }
  }
  PrintDiagnostics(sink, quiet);
  if (!bytes) {
    if (!error.empty()) std::cerr << "accelcheck inspect: " << error << "\n";
    return sink.failed() ? ExitCode::kFailure : ExitCode::kErrors;
  }
  std::cout.write(reinterpret_cast<const char*>(bytes->data()),
                  static_cast<std::streamsize>(bytes->size()));
  std::cout.flush();
  return ExitCode::kConforms;
}

}  // namespace

ExitCode RunInspect(const Args& args) {
  const CommandSpec& spec = InspectSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  std::string error;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected exactly one input file");
  ValidateContext context;
  if (!ApplyLimitFlags(*parsed, &context.limits, &error)) return UsageError(spec, error);
  if (!ApplyTargetFlags(*parsed, &context.targets, &error)) return UsageError(spec, error);
  const FormatEntry* forced = nullptr;
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
  const bool quiet = parsed->Has("quiet");
  if (parsed->Has("disasm")) return Disassemble(spec, forced, buffer, context, quiet, sink);
  const FormatEntry* format = !buffer             ? nullptr
                              : forced != nullptr ? forced
                                                  : DetectFormat(buffer->bytes());
  if (buffer && format == nullptr) {
    sink.Report(core_rules::kFormatUnknown, {}, "content matches no supported format");
  }
  if (auto member = parsed->Get("member")) {
    return PrintMember(format, buffer, context, *member, quiet, sink);
  }
  nlohmann::json structure;
  if (format != nullptr) structure = InspectGuarded(format->validator, *buffer, context, sink);
  // The diagnostics go to standard error; a decoded file may still have some.
  PrintDiagnostics(sink, quiet);
  if (structure.is_null()) {
    // A null structure with no diagnostic would be a validator bug; it still
    // must not look like a decoded file.
    return sink.failed() ? ExitCode::kFailure : ExitCode::kErrors;
  }
  std::cout << structure.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n"
            << std::flush;
  return sink.failed() ? ExitCode::kFailure : ExitCode::kConforms;
}

}  // namespace accelcheck::cli
