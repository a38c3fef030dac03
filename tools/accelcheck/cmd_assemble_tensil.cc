// accelcheck assemble PROG.tasm --arch A.tarch -o PROG.tprog: Tensil assembly
// (the syntax `inspect --disasm` prints, validators/tensil/disasm.h) to bytes.
#include <iostream>

#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/console.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "validators/core/output_file.h"
#include "validators/core/text.h"
#include "validators/tensil/disasm.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck::cli {

namespace {

const CommandSpec& AssembleTensilSpec() {
  static const CommandSpec kSpec{
      "assemble",
      "assemble a Tensil program for an architecture",
      "usage: accelcheck assemble PROG.tasm --arch A.tarch|M.tmodel -o PROG.tprog\n"
      "Assembles Tensil assembly, one instruction per line as `inspect --disasm` prints it,\n"
      "into a .tprog laid out for the architecture. Exit 1 on the first line that does not\n"
      "assemble.\n",
      {
          {"arch", true, "FILE", "the architecture: a .tarch, or a .tmodel's arch"},
          {"o", true, "FILE", "the .tprog to write"},
          {"help", false, "", "print this help"},
      }};
  return kSpec;
}

}  // namespace

ExitCode RunAssembleTensil(const Args& args) {
  const CommandSpec& spec = AssembleTensilSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const auto parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected exactly one assembly file");
  const auto arch_path = parsed->Get("arch");
  const auto out_path = parsed->Get("o");
  if (!arch_path)
    return UsageError(spec, "--arch is required: the layout depends on the architecture");
  if (!out_path) return UsageError(spec, "-o is required");

  ValidateContext context;
  context.companions = {*arch_path};
  const std::string source = parsed->positional[0];
  DiagnosticSink sink(Profile{}, DisplayName(source));
  const auto text = ReadInput(source, context.limits, sink);
  const auto arch = text ? tensil::CompanionArchitecture(context, sink) : std::nullopt;
  PrintDiagnostics(sink, parsed->Has("quiet"));
  if (!text) return ExitCode::kFailure;
  if (!arch) return ExitCode::kErrors;

  tensil::AssembleError error;
  const auto bytes = tensil::Assemble(
      std::string_view(reinterpret_cast<const char*>(text->bytes().data()), text->size()),
      *tensil::LayoutOf(*arch), &error);
  if (!bytes) {
    std::cerr << DisplayName(source) << ":" << error.line << ": " << error.message << "\n";
    return ExitCode::kErrors;
  }
  std::string write_error;
  if (!WriteOutputFile(*out_path, *bytes, &write_error)) return IoError(spec, write_error);
  return ExitCode::kConforms;
}

}  // namespace accelcheck::cli
