// A small table-driven command-line parser shared by every subcommand: each
// command declares its flags once (name, whether it takes a value, help), and
// the same table prints the help text, so flags and help cannot drift.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace accelcheck::cli {

struct Flag {
  std::string name;  // without the leading "--"; a one-letter name is "-o"
  bool takes_value;
  std::string value_name;  // "N", "FILE", ... for the help text
  std::string help;
};

struct ParsedArgs {
  std::map<std::string, std::vector<std::string>> values;  // flag -> each value given
  std::vector<std::string> positional;

  bool Has(const std::string& flag) const { return values.count(flag) != 0; }
  // The last value given for `flag`.
  std::optional<std::string> Get(const std::string& flag) const;
  const std::vector<std::string>& All(const std::string& flag) const;
};

// Parses `args` against `flags`. Accepts "--flag value", "--flag=value",
// "-o value" for one-letter flags and, after "--", only positionals. A lone
// "-" (standard input) is a positional. On failure returns nothing and sets `error`.
std::optional<ParsedArgs> Parse(const std::vector<std::string>& args,
                                const std::vector<Flag>& flags, std::string* error);

// Parses a non-negative integer flag value; sets `error` when it is not one.
std::optional<uint64_t> ParseCount(std::string_view text, std::string* error);

// "  --name VALUE   help" lines for a command's usage text.
std::string FlagHelp(const std::vector<Flag>& flags);

// What every subcommand declares once: its name, its usage text and its flags.
struct CommandSpec {
  std::string name;   // "assemble"
  std::string usage;  // "usage: accelcheck assemble ...\n" and what it does
  std::vector<Flag> flags;
};

// Parses a subcommand's arguments. On --help prints the usage and the flags
// to standard output and sets `exit_code` to 0; on a bad argument prints the
// error and the usage to standard error and sets it to 2. Either way returns
// nothing: the command returns `*exit_code`.
std::optional<ParsedArgs> ParseCommand(const CommandSpec& spec,
                                       const std::vector<std::string>& args, int* exit_code);

// Prints "accelcheck NAME: message" and the usage to standard error; returns
// the usage exit code (2), for errors found after parsing.
int UsageError(const CommandSpec& spec, const std::string& message);

}  // namespace accelcheck::cli
