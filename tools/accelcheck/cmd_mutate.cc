// accelcheck mutate FILE --rule ID -o OUT [--seed N]: writes a copy of a valid
// input that breaks exactly one rule. `--list [--format F]` prints the rules
// each format's mutator can break. FILE may be a .pte or a .ptd, a Tensil
// .tmodel (written as OUT.tmodel with OUT.tprog and OUT.tdata beside it) or a
// Gemini scheduler IR. Companions (--data, --frontend) are the files the
// input is validated with; a rule between two files shows only when the
// result is validated with them.
#include <iostream>

#include "conformance/mutator.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/options.h"
#include "tools/accelcheck/registry.h"

namespace accelcheck::cli {

const CommandSpec& MutateSpec() {
  static const CommandSpec kSpec{
      "mutate",
      "write a copy of FILE that breaks exactly one rule (--list)",
      "usage: accelcheck mutate FILE --rule ID -o OUT [--seed N] [--data FILE] [--frontend FILE]\n"
      "       accelcheck mutate --list [--format ID]\n",
      {
          {"rule", true, "ID", "the rule to break"},
          {"o", true, "OUT",
           "where to write the mutated file (a Tensil model: OUT.tmodel, .tprog, .tdata)"},
          {"seed", true, "N", "picks among the places the rule can be broken (default 0)"},
          {"data", true, "FILE",
           "a companion the input is validated with, such as a .ptd or a .tarch (repeatable)"},
          {"frontend", true, "FILE",
           "the frontend IR of a Gemini scheduler IR (a companion, like --data)"},
          {"list", false, "", "list the rules the mutators can break"},
          {"format", true, "ID", "with --list: only this format"},
          {"help", false, "", "print this help"},
      }};
  return kSpec;
}

namespace {

using conformance::Provider;

ExitCode List(const ParsedArgs& parsed) {
  const std::optional<std::string> only = parsed.Get("format");
  bool any = false;
  for (const Provider* provider : Providers()) {
    if (only && provider->format() != *only) continue;
    any = true;
    for (const conformance::MutationCase& c : provider->Cases()) std::cout << c.rule->id << "\n";
  }
  if (!any && only) return UsageError(MutateSpec(), "no mutator for format " + *only);
  return ExitCode::kConforms;
}

// How to validate the result: with its companions, and with --format when
// the change left it unrecognisable.
void PrintWritten(const conformance::WrittenMutation& written, const Rule& rule,
                  std::string_view format) {
  std::cout << "wrote";
  for (size_t i = 0; i < written.files.size(); ++i)
    std::cout << (i == 0 ? " " : ", ") << written.files[i];
  std::cout << ": breaks " << rule.id;
  if (!written.companions.empty() || !written.detected) {
    std::cout << " (validate with";
    if (!written.detected) std::cout << " --format " << format;
    for (const std::string& companion : written.companions) std::cout << " --data " << companion;
    std::cout << ")";
  }
  std::cout << "\n";
}

ExitCode Mutate(const ParsedArgs& parsed) {
  const CommandSpec& spec = MutateSpec();
  if (parsed.Has("list")) return List(parsed);
  std::string error;
  const std::optional<std::string> rule_id = parsed.Get("rule");
  const std::optional<std::string> out_path = parsed.Get("o");
  if (parsed.positional.size() != 1 || !rule_id || !out_path)
    return UsageError(spec, "FILE, --rule and -o are required");
  uint64_t seed = 0;
  if (const auto s = parsed.Get("seed")) {
    const std::optional<uint64_t> n = ParseCount(*s, &error);
    if (!n) return UsageError(spec, "--seed: " + error);
    seed = *n;
  }
  const Rule* rule = FindRule(*rule_id);
  if (rule == nullptr) return UsageError(spec, "unknown rule " + *rule_id);

  MutationInput input{parsed.positional[0], parsed.All("data")};
  for (const std::string& frontend : parsed.All("frontend")) input.companions.push_back(frontend);
  const std::optional<InputBuffer> bytes =
      ReadFileLimited(input.path, Limits{}.max_file_size, &error);
  if (!bytes) {
    std::cerr << "accelcheck mutate: " << input.path << ": " << error << "\n";
    return ExitCode::kFailure;
  }
  const FormatEntry* format = DetectFormat(bytes->bytes());
  const Provider* provider = format ? format->conformance : nullptr;
  if (provider == nullptr) {
    std::cerr << "accelcheck mutate: " << input.path << ": no mutator for this file's format\n";
    return ExitCode::kErrors;
  }
  const conformance::MutationResult written =
      conformance::MutateFile(format->validator, *provider, input, *rule, seed, *out_path);
  if (const auto* declined = std::get_if<conformance::Declined>(&written)) {
    std::cerr << "accelcheck mutate: " << input.path << ": " << declined->reason << "\n";
    return ExitCode::kErrors;
  }
  if (const auto* failed = std::get_if<conformance::WriteFailed>(&written))
    return IoError(MutateSpec(), failed->reason);
  if (!parsed.Has("quiet"))
    PrintWritten(std::get<conformance::WrittenMutation>(written), *rule, format->id());
  return ExitCode::kConforms;
}

}  // namespace

ExitCode RunMutate(const Args& args) {
  ExitCode exit_code = ExitCode::kConforms;
  const std::optional<ParsedArgs> parsed = ParseCommand(MutateSpec(), args, &exit_code);
  if (!parsed) return exit_code;
  return Mutate(*parsed);
}

}  // namespace accelcheck::cli
