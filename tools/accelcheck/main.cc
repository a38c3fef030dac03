// accelcheck: validates, inspects and mutates ML-accelerator executables.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include "tools/accelcheck/commands.h"

namespace {

using namespace accelcheck;
using namespace accelcheck::cli;

// The usage text: one line per command, from its CommandSpec.
std::string Usage() {
  std::string usage =
      "usage: accelcheck <command> [options] [files]\n"
      "\n"
      "commands:\n";
  for (const Command& command : Commands()) {
    std::string name = "  " + command.spec().name;
    name.resize(std::max<size_t>(name.size() + 2, 16), ' ');
    usage += name + command.spec().summary + "\n";
  }
  usage +=
      "\n"
      "Run `accelcheck help <command>` or `accelcheck <command> --help` for a command's "
      "options.\n"
      "Exit codes: 0 conforms, 1 errors found, 2 usage error, 3 I/O, internal error or limit.\n";
  return usage;
}

const Command* FindCommand(std::string_view name) {
  for (const Command& command : Commands()) {
    if (command.spec().name == name) return &command;
  }
  return nullptr;
}

ExitCode UnknownCommand(const std::string& name) {
  std::cerr << "accelcheck: unknown command '" << name << "'\n\n" << Usage();
  return ExitCode::kUsage;
}

// accelcheck help [COMMAND]
ExitCode Help(const Args& args) {
  if (args.empty()) {
    std::cout << Usage();
    return ExitCode::kConforms;
  }
  if (args.size() > 1) {
    std::cerr << "accelcheck help: expected one command\n\n" << Usage();
    return ExitCode::kUsage;
  }
  const Command* command = FindCommand(args[0]);
  if (command == nullptr) return UnknownCommand(args[0]);
  PrintHelp(command->spec(), std::cout);
  return ExitCode::kConforms;
}

ExitCode Main(const Args& args) {
  if (args.empty()) {
    std::cerr << Usage();
    return ExitCode::kUsage;
  }
  const std::string& name = args[0];
  const Args rest(args.begin() + 1, args.end());
  if (const Command* command = FindCommand(name)) return command->run(rest);
  if (name == "help" || name == "--help" || name == "-h") return Help(rest);
  if (name == "--version") {
    std::cout << VersionText();
    return ExitCode::kConforms;
  }
  return UnknownCommand(name);
}

}  // namespace

// Every command reports its own failures; an exception that still reaches
// here is a defect, reported as an internal error with no verdict (exit 3)
// rather than an abort.
int main(int argc, char** argv) {
  try {
    return static_cast<int>(Main(Args(argv + 1, argv + argc)));
  } catch (const std::exception& e) {
    std::cerr << "accelcheck: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "accelcheck: internal error\n";
  }
  return static_cast<int>(accelcheck::ExitCode::kFailure);
}
