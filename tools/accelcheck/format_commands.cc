// The subcommands only some formats have: generate, simulate, run, assemble.
// Each finds the format in the registry and hands the arguments to that
// format's implementation, which parses them with its own CommandSpec.
#include <algorithm>
#include <iostream>

#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

namespace {

using Implementation = FormatCommand FormatEntry::*;

std::vector<const FormatEntry*> FormatsWith(Implementation command) {
  std::vector<const FormatEntry*> formats;
  for (const FormatEntry& format : Formats()) {
    if (format.*command != nullptr) formats.push_back(&format);
  }
  return formats;
}

std::string IdsWith(Implementation command) {
  return FormatIds([command](const FormatEntry& format) { return format.*command != nullptr; });
}

// "  gemini  <description>" for each format with `command`, for a usage text.
std::string FormatLines(Implementation command) {
  size_t width = 0;
  for (const FormatEntry* format : FormatsWith(command))
    width = std::max(width, format->id().size());
  std::string lines;
  for (const FormatEntry* format : FormatsWith(command)) {
    std::string id(format->id());
    id.resize(width, ' ');
    lines += Str("  ", id, "  ", format->validator.description(), "\n");
  }
  return lines;
}

bool AsksForHelp(const Args& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const std::string& arg) { return arg == "--help" || arg == "-h"; });
}

// The format of a file argument, or null when it is not a readable file of a
// known format. Flags and their values that start with '-' are passed over
// (and "-" too: standard input is the implementation's to read).
const FormatEntry* FormatOfFile(const std::string& arg) {
  if (arg.empty() || arg[0] == '-') return nullptr;
  DiagnosticSink scratch(Profile{}, arg);
  const auto buffer = ReadInput(arg, Limits{}, scratch);
  return buffer ? DetectFormat(buffer->bytes()) : nullptr;
}

// Runs `command` of the format of the first argument that is a file of a
// format with it. Files that are not recognised by content (Tensil assembly
// and programs) reach the only format with the command, when just one has
// it: its own parser then reports what is wrong, and prints its --help.
ExitCode DispatchByContent(const CommandSpec& spec, Implementation command, const Args& args) {
  const FormatEntry* unsupported = nullptr;
  std::string unsupported_file;
  for (const std::string& arg : args) {
    const FormatEntry* format = FormatOfFile(arg);
    if (format == nullptr) continue;
    if (format->*command != nullptr) return (format->*command)(args);
    if (unsupported == nullptr) {
      unsupported = format;
      unsupported_file = arg;
    }
  }
  if (unsupported != nullptr) {
    return UsageError(spec, Str(unsupported_file, " is a ", unsupported->id(), " file, and ",
                                spec.name, " supports ", IdsWith(command)));
  }
  const std::vector<const FormatEntry*> formats = FormatsWith(command);
  if (formats.size() == 1) return (formats[0]->*command)(args);
  if (AsksForHelp(args)) {
    PrintHelp(spec, std::cout);
    return ExitCode::kConforms;
  }
  return UsageError(
      spec, Str("no argument is a file of a format with ", spec.name, " (", IdsWith(command), ")"));
}

}  // namespace

const CommandSpec& GenerateSpec() {
  static const CommandSpec kSpec{
      "generate",
      Str("write a valid file of FORMAT (", IdsWith(&FormatEntry::generate), ")"),
      Str("usage: accelcheck generate FORMAT [options]\n"
          "Writes a valid file of FORMAT. The formats with a generator:\n",
          FormatLines(&FormatEntry::generate),
          "Run `accelcheck generate FORMAT --help` for its options.\n"),
      {{"help", false, "", "print this help"}}};
  return kSpec;
}

// generate FORMAT ...: the format is the first argument.
ExitCode RunGenerate(const Args& args) {
  const CommandSpec& spec = GenerateSpec();
  const FormatEntry* format = args.empty() ? nullptr : FindFormat(args[0]);
  if (format != nullptr && format->generate != nullptr)
    return format->generate(Args(args.begin() + 1, args.end()));
  if (format != nullptr) {
    return UsageError(spec, Str(format->id(), " has no generator; generate supports ",
                                IdsWith(&FormatEntry::generate)));
  }
  ExitCode exit_code = ExitCode::kConforms;
  if (!ParseCommand(spec, args, &exit_code)) return exit_code;
  return UsageError(spec,
                    Str("expected the format to generate: ", IdsWith(&FormatEntry::generate)));
}

const CommandSpec& SimulateSpec() {
  static const CommandSpec kSpec{
      "simulate",
      Str("time a schedule per core, with DRAM traffic and L2 use (",
          IdsWith(&FormatEntry::simulate), ")"),
      Str("usage: accelcheck simulate FILE [options]\n"
          "Simulates FILE on the simulator of its format. The formats with one:\n",
          FormatLines(&FormatEntry::simulate),
          "Run `accelcheck simulate FILE --help` for the simulator's options.\n"),
      {}};
  return kSpec;
}

ExitCode RunSimulate(const Args& args) {
  return DispatchByContent(SimulateSpec(), &FormatEntry::simulate, args);
}

const CommandSpec& RunSpec() {
  static const CommandSpec kSpec{
      "run",
      Str("run a model on its format's reference executor (", IdsWith(&FormatEntry::run), ")"),
      Str("usage: accelcheck run MODEL [options]\n"
          "Runs a model on the reference executor of its format:\n",
          FormatLines(&FormatEntry::run),
          "Run `accelcheck run MODEL --help` for the executor's options.\n"),
      {}};
  return kSpec;
}

ExitCode RunRun(const Args& args) { return DispatchByContent(RunSpec(), &FormatEntry::run, args); }

const CommandSpec& AssembleSpec() {
  static const CommandSpec kSpec{
      "assemble",
      Str("assemble a program for an architecture (", IdsWith(&FormatEntry::assemble), ")"),
      Str("usage: accelcheck assemble SOURCE [options]\n"
          "Assembles SOURCE with the assembler of its format. The formats with one:\n",
          FormatLines(&FormatEntry::assemble),
          "Run `accelcheck assemble --help` for the assembler's options.\n"),
      {}};
  return kSpec;
}

ExitCode RunAssemble(const Args& args) {
  return DispatchByContent(AssembleSpec(), &FormatEntry::assemble, args);
}

}  // namespace accelcheck::cli
