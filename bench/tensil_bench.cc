// Measures the Tensil emulator's throughput and the validation time of
// Tensil models. Run through bench/run.sh.
//
//   tensil_bench emulate MODEL.tmodel [INPUT.tdata] [--repeat R]
//       one inference (input: scalars in the model's data type, as .tdata
//       bytes; zeros when absent), best of R: instructions, MACs, MAC/s,
//       and the share of the MACs computed (the others multiply by zero)
//   tensil_bench validate [--repeat R] MODEL.tmodel...
//       full validation (manifest, program, constants, dataflow) of each
//       model, best of R
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "reference_exec/tensil/run_model.h"
#include "validators/core/format.h"
#include "validators/tensil/tensil_format.h"

namespace {

using namespace accelcheck;
using namespace accelcheck::tensil;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

InputBuffer ReadOrExit(const std::string& path) {
  std::string error;
  auto buffer = ReadFileLimited(path, uint64_t{1} << 32, &error);
  if (!buffer) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), error.c_str());
    std::exit(3);
  }
  return std::move(*buffer);
}

ValidateContext ContextFor(const std::string& path) {
  ValidateContext context;
  context.path = path;
  context.limits.time_budget_ms = 0;
  return context;
}

int Emulate(const std::string& path, const std::string& input_path, int repeat) {
  const InputBuffer tmodel = ReadOrExit(path);
  DiagnosticSink sink(Profile{}, path);
  const auto loaded = LoadModel(tmodel, ContextFor(path), sink);
  if (!loaded) {
    std::fprintf(stderr, "%s does not validate\n", path.c_str());
    return 1;
  }
  std::vector<Scalar> input;
  if (!input_path.empty())
    input = DecodeScalars(ReadOrExit(input_path).bytes(), loaded->model.arch.data_type);

  double best = 1e300;
  RunStats stats;
  for (int r = 0; r < repeat; ++r) {
    Machine machine = PrepareMachine(*loaded);
    const auto start = Clock::now();
    stats = RunModel(machine, *loaded, {input}).stats;
    best = std::min(best, Seconds(start));
  }
  std::printf(
      "%-60s %9llu instructions %12llu MACs  %8.4f s  %.3g MAC/s  (%.1f%% computed: %.3g MAC/s)\n",
      path.c_str(), static_cast<unsigned long long>(stats.instructions),
      static_cast<unsigned long long>(stats.macs), best, static_cast<double>(stats.macs) / best,
      100.0 * static_cast<double>(stats.computed_macs) / static_cast<double>(stats.macs),
      static_cast<double>(stats.computed_macs) / best);
  return 0;
}

int Validate(const std::vector<std::string>& paths, int repeat) {
  const Format& tensil = TensilFormat();
  int status = 0;
  for (const std::string& path : paths) {
    const InputBuffer tmodel = ReadOrExit(path);
    double best = 1e300;
    uint64_t errors = 0;
    for (int r = 0; r < repeat; ++r) {
      DiagnosticSink sink(Profile{}, path);
      const auto start = Clock::now();
      tensil.Validate(tmodel, ContextFor(path), sink);
      best = std::min(best, Seconds(start));
      errors = sink.error_count();
    }
    std::printf("%-60s %9.3f ms  %llu errors\n", path.c_str(), best * 1e3,
                static_cast<unsigned long long>(errors));
    if (errors != 0) status = 1;
  }
  return status;
}

int Usage() {
  std::fprintf(stderr,
               "usage: tensil_bench emulate MODEL.tmodel [INPUT.tdata] [--repeat R]\n"
               "       tensil_bench validate [--repeat R] MODEL.tmodel...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return Usage();
  const std::string command = argv[1];
  int repeat = 1;
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else {
      files.push_back(arg);
    }
  }
  if (command == "emulate" && (files.size() == 1 || files.size() == 2)) {
    return Emulate(files[0], files.size() == 2 ? files[1] : "", repeat);
  }
  if (command == "validate" && !files.empty()) return Validate(files, repeat);
  return Usage();
}
