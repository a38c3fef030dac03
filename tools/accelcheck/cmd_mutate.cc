// accelcheck mutate FILE --rule ID -o OUT [--seed N]: writes a copy of a valid
// file that breaks exactly one rule. `--list [--format F]` prints the rules
// each format's mutator can break. FILE may be a .pte or a .ptd; a rule that
// holds between a .pte and its .ptd shows only when the result is validated
// with that .ptd (--data).
#include <fstream>
#include <iostream>

#include "conformance/mutator.h"
#include "conformance/pte/mutate.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/options.h"
#include "validators/core/format.h"

namespace accelcheck::cli {

namespace {

const CommandSpec& MutateSpec() {
  static const CommandSpec kSpec{
      "mutate",
      "usage: accelcheck mutate FILE --rule ID -o OUT [--seed N]\n"
      "       accelcheck mutate --list [--format ID]\n",
      {
      {"rule", true, "ID", "the rule to break"},
      {"o", true, "OUT", "where to write the mutated file"},
      {"seed", true, "N", "picks among the places the rule can be broken (default 0)"},
      {"list", false, "", "list the rules the mutators can break"},
      {"format", true, "ID", "with --list: only this format"},
      {"help", false, "", "print this help"},
      }};
  return kSpec;
}

int List(const ParsedArgs& parsed) {
  const std::optional<std::string> only = parsed.Get("format");
  bool any = false;
  for (const Format* format : AllFormats()) {
    if (only && format->id() != *only) continue;
    const Mutator* mutator = FindMutator(format->id());
    if (mutator == nullptr) continue;
    any = true;
    for (const Rule* rule : mutator->rules()) std::cout << rule->id << "\n";
  }
  if (!any && only) return UsageError(MutateSpec(), "no mutator for format " + *only);
  return 0;
}

}  // namespace

int RunMutate(const Args& args) {
  const CommandSpec& spec = MutateSpec();
  int exit_code = 0;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  if (parsed->Has("list")) return List(*parsed);
  std::string error;
  const std::optional<std::string> rule_id = parsed->Get("rule");
  const std::optional<std::string> out_path = parsed->Get("o");
  if (parsed->positional.size() != 1 || !rule_id || !out_path) return UsageError(spec, "FILE, --rule and -o are required");
  uint64_t seed = 0;
  if (const auto s = parsed->Get("seed")) {
    const std::optional<uint64_t> n = ParseCount(*s, &error);
    if (!n) return UsageError(spec, "--seed: " + error);
    seed = *n;
  }
  const Rule* rule = FindRule(*rule_id);
  if (rule == nullptr) return UsageError(spec, "unknown rule " + *rule_id);

  const std::string& path = parsed->positional[0];
  const std::optional<InputBuffer> input = ReadFileLimited(path, Limits{}.max_file_size, &error);
  if (!input) {
    std::cerr << "accelcheck mutate: " << path << ": " << error << "\n";
    return 3;
  }
  const Format* format = DetectFormat(input->bytes());
  const Mutator* mutator = format ? FindMutator(format->id()) : nullptr;
  if (mutator == nullptr) {
    std::cerr << "accelcheck mutate: " << path << ": no mutator for this file's format\n";
    return 1;
  }
  const std::optional<std::vector<uint8_t>> mutated = mutator->Apply(input->bytes(), *rule, seed, &error);
  if (!mutated) {
    std::cerr << "accelcheck mutate: " << path << ": " << error << "\n";
    return 1;
  }
  std::ofstream out(*out_path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(mutated->data()), static_cast<std::streamsize>(mutated->size()));
  if (!out) {
    std::cerr << "accelcheck mutate: cannot write " << *out_path << "\n";
    return 3;
  }
  std::cout << "wrote " << *out_path << ": breaks " << rule->id;
  if (format->id() == "pte" && pte::NeedsCompanion(*rule)) {
    std::cout << " against the input's companion .ptd (validate with --data FILE.ptd)";
  }
  std::cout << "\n";
  return 0;
}

}  // namespace accelcheck::cli
