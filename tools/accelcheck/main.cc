// accelcheck: validates, inspects and mutates ML-accelerator executables.
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "tools/accelcheck/commands.h"
#include "validators/core/report.h"

namespace {

constexpr std::string_view kUsage =
    "usage: accelcheck <command> [options] [files]\n"
    "\n"
    "commands:\n"
    "  validate FILE|DIR...   check files against every rule of their format\n"
    "  rules                  list the rules (--format F, --output md|json|text)\n"
    "  inspect FILE           print the decoded structure as JSON with byte offsets\n"
    "  mutate FILE --rule ID -o OUT\n"
    "                         write a copy that breaks exactly one rule (--list)\n"
    "  conformance DIR        run a conformance suite (--generate DIR writes ours)\n"
    "  generate FORMAT ...    write a valid file from a recipe (pte: --recipe R.json -o OUT)\n"
    "  simulate IR.json       time a Gemini schedule per core, with DRAM traffic and L2 use\n"
    "  run MODEL ...          run a model on its format's reference executor\n"
    "  assemble PROG.tasm --arch A.tarch -o PROG.tprog\n"
    "                         assemble a Tensil program (inspect --disasm prints one)\n"
    "\n"
    "Run `accelcheck <command> --help` for a command's options.\n"
    "Exit codes: 0 conforms, 1 errors found, 2 usage error, 3 I/O, internal error or limit.\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace accelcheck::cli;
  if (argc < 2) {
    std::fputs(kUsage.data(), stderr);
    return 2;
  }
  const std::string command = argv[1];
  const Args args(argv + 2, argv + argc);
  if (command == "validate") return RunValidate(args);
  if (command == "rules") return RunRules(args);
  if (command == "inspect") return RunInspect(args);
  if (command == "mutate") return RunMutate(args);
  if (command == "conformance") return RunConformance(args);
  if (command == "generate") return RunGenerate(args);
  if (command == "simulate") return RunSimulate(args);
  if (command == "run") return RunRun(args);
  if (command == "assemble") return RunAssemble(args);
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage.data(), stdout);
    return 0;
  }
  if (command == "--version") {
    std::printf("accelcheck %s\n", accelcheck::kToolVersion.data());
    return 0;
  }
  std::fprintf(stderr, "accelcheck: unknown command '%s'\n\n%s", command.c_str(), kUsage.data());
  return 2;
}
