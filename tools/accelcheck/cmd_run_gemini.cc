// accelcheck run IR.json --frontend F.json [--seed S] [--l2-addressed]: the
// functional executor of docs/formats/gemini.md §6.2 on a valid Gemini IR.
#include <iostream>

#include <nlohmann/json.hpp>

#include "reference_exec/gemini/execute.h"
#include "reference_exec/gemini/load.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/console.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "validators/core/core_rules.h"

namespace accelcheck::cli {

namespace {

CommandSpec RunGeminiSpec() {
  std::vector<Flag> flags = {
      {"frontend", true, "FILE", "the frontend IR (required): operations, shapes, kernels"},
      {"seed", true, "S", "seed of the inputs and weights (default 1)"},
      {"l2-addressed", false, "", "keep every L2 tensor at its address in a byte array per core"},
      {"max-l2-bytes", true, "N",
       "most L2 bytes (cores x buffersize) --l2-addressed holds (default 268435456)"},
      {"help", false, "", "print this help"},
  };
  for (Flag& f : RunLimitFlags()) flags.push_back(std::move(f));
  return {
      "run", "run a Gemini schedule tile by tile against the untiled network",
      "usage: accelcheck run IR.json --frontend F.json [--seed S] [--l2-addressed [--max-l2-bytes "
      "N]]\n"
      "Computes every tile of a Gemini schedule only from the pieces the IR declares (a missing\n"
      "piece reads a poison value) and compares each workload's output with the untiled network\n"
      "on the same seeded inputs and weights. Exit 0 when they agree bit for bit, 1 on the first\n"
      "differing element (reported with its workload and tile) or when the IR does not validate.\n"
      "With --l2-addressed each core's L2 is a byte array and every tensor of a snapshot lives at\n"
      "its address (wrapping in its ring region), filled when its snapshot marks it newly_added, "
      "so\n"
      "that live tensors whose bytes overlap corrupt each other; the mismatch then names the "
      "element's\n"
      "L2 address. --time-budget-ms bounds validation and execution together. Exit 3 when the\n"
      "byte array would exceed --max-l2-bytes, or on a limit.\n",
      std::move(flags)};
}

}  // namespace

ExitCode RunGemini(const Args& args) {
  const CommandSpec spec = RunGeminiSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  std::string error;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected exactly one IR file");
  if (!parsed->Has("frontend")) return UsageError(spec, "the functional executor needs --frontend");
  gemini::LoadOptions load;
  if (!ApplyLimitFlags(*parsed, &load.limits, &error)) return UsageError(spec, error);
  // The budget bounds the whole command: it starts before the file is read.
  load.deadline = Deadline(load.limits.time_budget_ms);
  gemini::ExecuteOptions options;
  if (const auto seed = parsed->Get("seed")) {
    const auto value = ParseCount(*seed, &error);
    if (!value) return UsageError(spec, error);
    options.seed = *value;
  }
  options.l2_addressed = parsed->Has("l2-addressed");
  if (const auto max = parsed->Get("max-l2-bytes")) {
    const auto value = ParseCount(*max, &error);
    if (!value) return UsageError(spec, error);
    options.max_l2_bytes = *value;
  }
  const std::string path = parsed->positional[0];
  const bool quiet = parsed->Has("quiet");
  const ProgressOptions progress = ProgressFor(quiet);
  DiagnosticSink sink(Profile{}, path);
  std::optional<gemini::LoadedIr> loaded;
  {
    const Progress validating(progress, "accelcheck run: validating");
    loaded = gemini::LoadIr(path, *parsed->Get("frontend"), load, sink);
  }
  PrintDiagnostics(sink, quiet);
  if (!loaded) {
    const bool unsupported = sink.Has(core_rules::kFormatUnsupported);
    std::cerr << "accelcheck run: " << path
              << (unsupported     ? " is not an IR the functional executor computes"
                  : sink.failed() ? " could not be checked"
                                  : " does not validate")
              << "; nothing executed\n";
    return sink.failed() || unsupported ? ExitCode::kFailure : ExitCode::kErrors;
  }
  gemini::Execution run;
  {
    Progress executing(progress, "accelcheck run: layers and workloads");
    RunControl control{load.deadline,
                       [&](uint64_t done, uint64_t total) { executing.Set(done, total); }};
    run = gemini::Execute(loaded->ir, *loaded->frontend, options, control);
  }
  if (run.out_of_time) {
    DiagnosticSink limit(Profile{}, path);
    ReportRunOutOfTime("execution", load.limits, limit);
    PrintDiagnostics(limit, quiet);
    return ExitCode::kFailure;
  }
  if (run.limit) {
    std::cerr << "accelcheck run: " << path << ": " << *run.limit << " (--max-l2-bytes)\n";
    return ExitCode::kFailure;
  }
  nlohmann::json out = {{"workloads", run.workloads},
                        {"elements_compared", run.elements},
                        {"skipped_layers", run.skipped_layers},
                        {"seed", options.seed},
                        {"tiled_equals_untiled", !run.first_mismatch.has_value()}};
  if (options.l2_addressed) out["l2_addressed"] = true;
  if (run.first_mismatch) {
    const gemini::Mismatch& m = *run.first_mismatch;
    out["first_mismatch"] = {{"core_id", m.core_id},
                             {"workload_id", m.workload_id},
                             {"tile", m.tile},
                             {"layer_name", m.layer},
                             {"at", m.at},
                             {"expected", m.expected},
                             {"actual", m.actual == gemini::kPoison ? nlohmann::json("poison")
                                                                    : nlohmann::json(m.actual)}};
    if (m.l2_address) out["first_mismatch"]["l2_address"] = *m.l2_address;
    if (m.weight) out["first_mismatch"]["weight"] = true;
  }
  std::cout << out.dump(2) << "\n";
  return run.first_mismatch ? ExitCode::kErrors : ExitCode::kConforms;
}

}  // namespace accelcheck::cli
