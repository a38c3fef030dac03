// accelcheck run IR.json --frontend F.json [--seed S]: the functional
// executor of spec/gemini.md §6.2 on a valid Gemini IR.
#include <iostream>

#include <nlohmann/json.hpp>

#include "reference_exec/gemini/execute.h"
#include "reference_exec/gemini/load.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "validators/core/report.h"

namespace accelcheck::cli {

namespace {


CommandSpec RunGeminiSpec() {
  std::vector<Flag> flags = {
      {"frontend", true, "FILE", "the frontend IR (required): operations, shapes, kernels"},
      {"seed", true, "S", "seed of the inputs and weights (default 1)"},
      {"help", false, "", "print this help"},
  };
  for (Flag& f : LimitFlags()) flags.push_back(std::move(f));
  return {"run",
          "usage: accelcheck run IR.json --frontend F.json [--seed S]\n"
          "Computes every tile of a Gemini schedule only from the pieces the IR declares (a missing\n"
          "piece reads a poison value) and compares each workload's output with the untiled network\n"
          "on the same seeded inputs and weights. Exit 0 when they agree bit for bit, 1 on the first\n"
          "differing element (reported with its workload and tile) or when the IR does not validate.\n",
          std::move(flags)};
}

}  // namespace

int RunGemini(const Args& args) {
  const CommandSpec spec = RunGeminiSpec();
  int exit_code = 0;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  std::string error;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected exactly one IR file");
  if (!parsed->Has("frontend")) return UsageError(spec, "the functional executor needs --frontend");
  Limits limits;
  if (!ApplyLimitFlags(*parsed, &limits, &error)) return UsageError(spec, error);
  gemini::ExecuteOptions options;
  if (const auto seed = parsed->Get("seed")) {
    const auto value = ParseCount(*seed, &error);
    if (!value) return UsageError(spec, error);
    options.seed = *value;
  }
  const std::string path = parsed->positional[0];
  DiagnosticSink sink(Profile{}, path);
  const auto loaded = gemini::LoadValidIr(path, *parsed->Get("frontend"), limits, sink);
  for (const Diagnostic& d : sink.diagnostics()) std::cerr << TextLine(d) << "\n";
  if (!loaded) {
    std::cerr << "accelcheck run: " << path << " does not validate; nothing executed\n";
    return static_cast<int>(sink.failed() ? ExitCode::kFailure : ExitCode::kErrors);
  }
  const gemini::Execution run = gemini::Execute(loaded->ir, *loaded->frontend, options);
  nlohmann::json out = {{"workloads", run.workloads},
                        {"elements_compared", run.elements},
                        {"skipped_layers", run.skipped_layers},
                        {"seed", options.seed},
                        {"tiled_equals_untiled", !run.first_mismatch.has_value()}};
  if (run.first_mismatch) {
    const gemini::Mismatch& m = *run.first_mismatch;
    out["first_mismatch"] = {{"core_id", m.core_id},
                             {"workload_id", m.workload_id},
                             {"tile", m.tile},
                             {"layer_name", m.layer},
                             {"at", m.at},
                             {"expected", m.expected},
                             {"actual", m.actual == gemini::kPoison ? nlohmann::json("poison") : nlohmann::json(m.actual)}};
  }
  std::cout << out.dump(2) << "\n";
  return static_cast<int>(run.first_mismatch ? ExitCode::kErrors : ExitCode::kConforms);
}

}  // namespace accelcheck::cli
