// accelcheck simulate IR.json [--bandwidth GBps] [--svg OUT.svg] [-o OUT.json]:
// the schedule simulator of docs/formats/gemini.md §6.1 over a valid Gemini IR
// (or, with --allow-invalid, any IR that decodes).
#include <iostream>

#include "reference_exec/gemini/load.h"
#include "reference_exec/gemini/simulate.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/console.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "validators/core/output_file.h"
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
      {"allow-invalid", false, "",
       "simulate an IR that decodes but breaks rules (exit 1 all the same)"},
      {"help", false, "", "print this help"},
  };
  for (Flag& f : RunLimitFlags()) flags.push_back(std::move(f));
  return {"simulate", "time a Gemini schedule per core, with DRAM traffic and L2 use",
          "usage: accelcheck simulate IR.json [--bandwidth GBps] [--frontend F.json]\n"
          "                           [--svg OUT.svg] [-o OUT.json] [--allow-invalid]\n"
          "Times the schedule: per-core timelines from `time`, DRAM transfers on one channel\n"
          "at the bandwidth (default: the _bwNN_ of the file name, else 16), L2 occupancy\n"
          "from the snapshots, and the wait-for cycle when the cores deadlock. The SVG has a\n"
          "time axis in cycles, a legend of the layers and DRAM directions, each core's L2\n"
          "occupancy on a scale set by the peak and, when the cores deadlock, where each\n"
          "stops, with the cycle drawn between them. Only a valid IR is simulated, unless\n"
          "--allow-invalid: then any IR that decodes is, so that a schedule the validator\n"
          "rejects (gemini.schedule.deadlock) can be drawn. --time-budget-ms bounds\n"
          "validation and simulation together. Exit 1 when the IR does not validate or the\n"
          "schedule deadlocks, 3 on a limit.\n",
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

// --bandwidth and --clock over the defaults; a message when one is not a
// positive number.
std::optional<std::string> ReadOptions(const ParsedArgs& parsed, const std::string& path,
                                       gemini::SimulateOptions* options) {
  if (const auto bw = gemini::BandwidthFromName(path)) options->bandwidth_gbps = *bw;
  if (parsed.Has("bandwidth")) {
    const auto bw = Positive(parsed.Get("bandwidth"));
    if (!bw) return "--bandwidth takes a positive number of GB/s";
    options->bandwidth_gbps = *bw;
  }
  if (parsed.Has("clock")) {
    const auto clock = Positive(parsed.Get("clock"));
    if (!clock) return "--clock takes a positive number of GHz";
    options->clock_ghz = *clock;
  }
  return std::nullopt;
}

// The JSON, to -o or standard output, and the SVG when asked.
ExitCode WriteResults(const CommandSpec& spec, const ParsedArgs& parsed, const gemini::Ir& ir,
                      const gemini::Simulation& sim, const gemini::SimulateOptions& options) {
  std::string error;
  const std::string json = gemini::SimulationJson(ir, sim, options).dump(2) + "\n";
  if (const auto out = parsed.Get("o")) {
    if (!WriteOutputFile(*out, AsBytes(json), &error)) return IoError(spec, error);
  } else {
    std::cout << json << std::flush;
  }
  if (const auto svg = parsed.Get("svg")) {
    if (!WriteOutputFile(*svg, AsBytes(gemini::SimulationSvg(ir, sim)), &error))
      return IoError(spec, error);
  }
  return ExitCode::kConforms;
}

}  // namespace

ExitCode RunSimulateGemini(const Args& args) {
  const CommandSpec spec = SimulateGeminiSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  std::string error;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected exactly one IR file");
  gemini::LoadOptions load;
  if (!ApplyLimitFlags(*parsed, &load.limits, &error)) return UsageError(spec, error);
  // The budget bounds the whole command: it starts before the file is read.
  load.deadline = Deadline(load.limits.time_budget_ms);
  load.allow_invalid = parsed->Has("allow-invalid");
  const std::string path = parsed->positional[0];
  gemini::SimulateOptions options;
  if (const auto problem = ReadOptions(*parsed, path, &options)) return UsageError(spec, *problem);

  const bool quiet = parsed->Has("quiet");
  const ProgressOptions progress = ProgressFor(quiet);
  DiagnosticSink sink(Profile{}, path);
  std::optional<gemini::LoadedIr> loaded;
  {
    const Progress validating(progress, "accelcheck simulate: validating");
    loaded = gemini::LoadIr(path, parsed->Get("frontend").value_or(""), load, sink);
  }
  PrintDiagnostics(sink, quiet);
  if (!loaded) {
    std::cerr << "accelcheck simulate: " << path
              << (sink.failed()        ? " could not be checked"
                  : load.allow_invalid ? " does not decode"
                                       : " does not validate")
              << "; nothing simulated\n";
    return sink.failed() ? ExitCode::kFailure : ExitCode::kErrors;
  }
  gemini::Simulation sim;
  {
    Progress simulating(progress, "accelcheck simulate: workloads");
    RunControl control{load.deadline,
                       [&](uint64_t done, uint64_t total) { simulating.Set(done, total); }};
    sim = gemini::Simulate(loaded->ir, options, control);
  }
  if (sim.out_of_time) {
    DiagnosticSink limit(Profile{}, path);
    ReportRunOutOfTime("simulation", load.limits, limit);
    PrintDiagnostics(limit, quiet);
    return ExitCode::kFailure;
  }
  if (const ExitCode written = WriteResults(spec, *parsed, loaded->ir, sim, options);
      written != ExitCode::kConforms)
    return written;
  return sim.deadlock || sink.error_count() != 0 ? ExitCode::kErrors : ExitCode::kConforms;
}

}  // namespace accelcheck::cli
