// A small table-driven command-line parser shared by every subcommand: each
// command declares its flags once (name, whether it takes a value, help), and
// the same table prints the help text, so flags and help cannot drift.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "validators/core/sink.h"

namespace accelcheck::cli {

struct Flag {
  std::string name;  // without the leading "--"; a one-letter name is "-o"
  bool takes_value;
  std::string value_name;  // "N", "FILE", ... for the help text
  std::string help;
  char short_name = 0;  // a one-letter spelling besides --name ("-j" for --jobs), or 0
};

struct ParsedArgs {
  std::map<std::string, std::vector<std::string>> values;  // flag -> each value given
  std::vector<std::string> positional;
  // Every (flag, value) in command-line order, for options whose order
  // across flags matters (--disable and --enable).
  std::vector<std::pair<std::string, std::string>> in_order;

  bool Has(const std::string& flag) const { return values.count(flag) != 0; }
  // The last value given for `flag`.
  std::optional<std::string> Get(const std::string& flag) const;
  const std::vector<std::string>& All(const std::string& flag) const;
};

// Parses `args` against `flags`. Accepts "--flag value", "--flag=value",
// "-o value" for one-letter flags and short names (kept under the flag's
// name: "-j 4" is Get("jobs")) and, after "--", only positionals. A lone "-"
// (standard input) is a positional. On failure returns nothing and sets `error`.
std::optional<ParsedArgs> Parse(const std::vector<std::string>& args,
                                const std::vector<Flag>& flags, std::string* error);

// Parses a non-negative integer flag value; sets `error` when it is not one.
std::optional<uint64_t> ParseCount(std::string_view text, std::string* error);

// "  --name VALUE   help" lines for a command's usage text.
std::string FlagHelp(const std::vector<Flag>& flags);

// The flags every command takes, whether or not its spec declares them:
// -h/--help and -q/--quiet (README.md "Quiet runs and progress").
const std::vector<Flag>& CommonFlags();

// `flags` with each common flag in place of the one of the same name, or
// added at the end: what a command parses and its help lists.
std::vector<Flag> WithCommonFlags(const std::vector<Flag>& flags);

// What every subcommand declares once: its name, the line `accelcheck help`
// lists it with, its usage text and its flags.
struct CommandSpec {
  std::string name;     // "assemble"
  std::string summary;  // one line, for the list of commands
  std::string usage;    // "usage: accelcheck assemble ...\n" and what it does
  std::vector<Flag> flags;
};

// The usage text and the command's options, the common ones included.
void PrintHelp(const CommandSpec& spec, std::ostream& out);

// Parses a subcommand's arguments, with the common flags. On --help prints the help to standard
// output and sets `exit_code` to kConforms; on a bad argument prints the error
// and the usage to standard error, sets it to kUsage and, when given, sets
// `usage_error` to the error. Either way returns nothing: the command returns
// `*exit_code`.
std::optional<ParsedArgs> ParseCommand(const CommandSpec& spec,
                                       const std::vector<std::string>& args, ExitCode* exit_code,
                                       std::string* usage_error = nullptr);

// Prints "accelcheck NAME: message" and the usage to standard error; returns
// kUsage, for errors found after parsing.
ExitCode UsageError(const CommandSpec& spec, const std::string& message);

// Prints "accelcheck <command>: <message>" for a file that could not be read
// or written; returns kFailure (no verdict).
ExitCode IoError(const CommandSpec& spec, const std::string& message);

}  // namespace accelcheck::cli
