// accelcheck simulate IR.json [--bandwidth GBps] [--svg OUT.svg] [-o OUT.json]:
// the schedule simulator of docs/formats/gemini.md §6.1 over a valid Gemini IR.
#include <iostream>

#include "reference_exec/gemini/load.h"
#include "reference_exec/gemini/simulate.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "validators/core/output_file.h"
#include "validators/core/report.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

namespace {

CommandSpec SimulateGeminiSpec() {
  std::vector<Flag> flags = {
      {"bandwidth", true, "GBps", "DRAM bandwidth in GB/s"},
      {"clock", true, "GHz", "core clock: cycles per ns (default 1)"},
      {"frontend", true, "FILE", "the frontend IR, to validate against"},
      {"svg", true, "FILE", "also write a Gantt chart and L2 occupancy plot"},
      {"o", true, "FILE", "write the JSON there instead of standard output"},
      {"help", false, "", "print this help"},
  };
  for (Flag& f : LimitFlags()) flags.push_back(std::move(f));
  return {
      "simulate", "time a Gemini schedule per core, with DRAM traffic and L2 use",
      "usage: accelcheck simulate IR.json [--bandwidth GBps] [--frontend F.json] [--svg OUT.svg] "
      "[-o OUT.json]\n"
      "Times the schedule: per-core timelines from `time`, DRAM transfers on one channel at the\n"
      "bandwidth (default: the _bwNN_ of the file name, else 16), L2 occupancy from the "
      "snapshots,\n"
      "and the wait-for cycle when the cores deadlock. Exit 1 when the IR does not validate or\n"
      "the schedule deadlocks.\n",
      std::move(flags)};
}

std::optional<double> Positive(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  try {
    size_t used = 0;
    const double value = std::stod(*text, &used);
    if (used == text->size() && value > 0) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

ExitCode RunSimulateGemini(const Args& args) {
  const CommandSpec spec = SimulateGeminiSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  std::string error;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected exactly one IR file");
  Limits limits;
  if (!ApplyLimitFlags(*parsed, &limits, &error)) return UsageError(spec, error);
  const std::string path = parsed->positional[0];
  gemini::SimulateOptions options;
  if (const auto bw = gemini::BandwidthFromName(path)) options.bandwidth_gbps = *bw;
  if (parsed->Has("bandwidth")) {
    const auto bw = Positive(parsed->Get("bandwidth"));
    if (!bw) return UsageError(spec, "--bandwidth takes a positive number of GB/s");
    options.bandwidth_gbps = *bw;
  }
  if (parsed->Has("clock")) {
    const auto clock = Positive(parsed->Get("clock"));
    if (!clock) return UsageError(spec, "--clock takes a positive number of GHz");
    options.clock_ghz = *clock;
  }

  DiagnosticSink sink(Profile{}, path);
  const auto loaded = gemini::LoadValidIr(path, parsed->Get("frontend").value_or(""), limits, sink);
  for (const Diagnostic& d : sink.diagnostics()) std::cerr << TextLine(d) << "\n";
  if (!loaded) {
    std::cerr << "accelcheck simulate: " << path << " does not validate; nothing simulated\n";
    return sink.failed() ? ExitCode::kFailure : ExitCode::kErrors;
  }
  const gemini::Simulation sim = gemini::Simulate(loaded->ir, options);
  const std::string json = gemini::SimulationJson(loaded->ir, sim, options).dump(2) + "\n";
  if (const auto out = parsed->Get("o")) {
    if (!WriteOutputFile(*out, AsBytes(json), &error)) return IoError(spec, error);
  } else {
    std::cout << json;
  }
  if (const auto svg = parsed->Get("svg")) {
    if (!WriteOutputFile(*svg, AsBytes(gemini::SimulationSvg(loaded->ir, sim)), &error))
      return IoError(spec, error);
  }
  return sim.deadlock ? ExitCode::kErrors : ExitCode::kConforms;
}

}  // namespace accelcheck::cli
