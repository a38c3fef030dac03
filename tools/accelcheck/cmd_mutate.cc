// accelcheck mutate FILE --rule ID -o OUT [--seed N]: writes a copy of a valid
// input that breaks exactly one rule. `--list [--format F]` prints the rules
// each format's mutator can break. FILE may be a .pte or a .ptd, a Tensil
// .tmodel (written as OUT.tmodel with OUT.tprog and OUT.tdata beside it) or a
// Gemini scheduler IR, each also as a gzip stream of it (the result is
// written inflated). Companions (--data, --frontend) are the files the
// input is validated with; a rule between two files shows only when the
// result is validated with them.
#include <filesystem>
#include <iostream>

#include "conformance/mutator.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/options.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/compressed.h"
#include "validators/core/output_file.h"

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

// A gzip input is mutated from its inflated bytes. The mutators read an
// input by its path, so the inflated file is staged in a directory of its
// own beside the output, removed when the command ends.
ExitCode StageInflated(const std::string& out_path, MutationInput* input,
                       std::optional<InputBuffer>* bytes,
                       std::optional<StagingDirectory>* staging) {
  DiagnosticSink sink(Profile{}, input->path);
  std::optional<InputBuffer> plain = Decompress(std::move(**bytes), Limits{}, sink);
  if (!plain) {
    for (const Diagnostic& d : sink.diagnostics()) {
      std::cerr << "accelcheck mutate: " << input->path << ": " << d.rule->id << ": " << d.message
                << "\n";
    }
    return ExitCode::kErrors;
  }
  std::string error;
  const std::filesystem::path out_dir = std::filesystem::path(out_path).parent_path();
  std::optional<StagingDirectory> dir =
      StagingDirectory::In(out_dir.empty() ? "." : out_dir, &error);
  if (!dir) return IoError(MutateSpec(), error);
  staging->emplace(std::move(*dir));
  std::string name = std::filesystem::path(input->path).filename().string();
  if (name.ends_with(".gz")) name.resize(name.size() - 3);
  const std::filesystem::path staged = (*staging)->path() / name;
  if (!WriteOutputFile(staged, plain->bytes(), &error)) return IoError(MutateSpec(), error);
  input->path = staged.string();
  *bytes = std::move(plain);
  return ExitCode::kConforms;
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
  const std::string name = input.path;
  std::optional<InputBuffer> bytes = ReadFileLimited(input.path, Limits{}.max_file_size, &error);
  if (!bytes) {
    std::cerr << "accelcheck mutate: " << name << ": " << error << "\n";
    return ExitCode::kFailure;
  }
  std::optional<StagingDirectory> inflated;
  if (IsCompressed(bytes->bytes())) {
    const ExitCode staged = StageInflated(*out_path, &input, &bytes, &inflated);
    if (staged != ExitCode::kConforms) return staged;
  }
  const FormatEntry* format = DetectFormat(bytes->bytes());
  const Provider* provider = format ? format->conformance : nullptr;
  if (provider == nullptr) {
    std::cerr << "accelcheck mutate: " << name << ": no mutator for this file's format\n";
    return ExitCode::kErrors;
  }
  const conformance::MutationResult written =
      conformance::MutateFile(format->validator, *provider, input, *rule, seed, *out_path);
  if (const auto* declined = std::get_if<conformance::Declined>(&written)) {
    std::cerr << "accelcheck mutate: " << name << ": " << declined->reason << "\n";
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
