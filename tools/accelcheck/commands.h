// The subcommands of `accelcheck`. Each takes the arguments after its name and
// returns the process exit code (docs/ARCHITECTURE.md "Exit codes"), and
// declares its name, summary, usage and flags once in its CommandSpec.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "tools/accelcheck/options.h"
#include "validators/core/sink.h"

namespace accelcheck::cli {

using Args = std::vector<std::string>;

// A subcommand as `accelcheck` dispatches it.
struct Command {
  const CommandSpec& (*spec)();
  ExitCode (*run)(const Args& args);
};

// Every subcommand, in the order the usage text lists them.
std::span<const Command> Commands();  // commands.cc

// `accelcheck --version`: the version, then the commit the build was configured
// at ("unknown" outside a git checkout), the compiler, the build type and the
// formats compiled in, one per line (version.cc).
std::string VersionText();

// The commands every format has, run on whichever formats the inputs are.
const CommandSpec& ValidateSpec();  // cmd_validate.cc
ExitCode RunValidate(const Args& args);
const CommandSpec& RulesSpec();  // cmd_rules.cc
ExitCode RunRules(const Args& args);
const CommandSpec& InspectSpec();  // cmd_inspect.cc
ExitCode RunInspect(const Args& args);
const CommandSpec& MutateSpec();  // cmd_mutate.cc
ExitCode RunMutate(const Args& args);
const CommandSpec& ConformanceSpec();  // cmd_conformance.cc
ExitCode RunConformance(const Args& args);
const CommandSpec& CompareSpec();  // cmd_compare.cc
ExitCode RunCompare(const Args& args);
const CommandSpec& GoldenSpec();  // cmd_golden.cc
ExitCode RunGolden(const Args& args);

// The commands some formats have (format_commands.cc): each finds the format
// in the registry (tools/accelcheck/registry.h) and runs its implementation.
const CommandSpec& GenerateSpec();
ExitCode RunGenerate(const Args& args);
const CommandSpec& SimulateSpec();
ExitCode RunSimulate(const Args& args);
const CommandSpec& RunSpec();
ExitCode RunRun(const Args& args);
const CommandSpec& AssembleSpec();
ExitCode RunAssemble(const Args& args);

// The formats' implementations, which the registry names.
ExitCode RunGeneratePte(const Args& args);     // cmd_generate_pte.cc: generate pte ...
ExitCode RunGenerateGemini(const Args& args);  // cmd_generate_gemini.cc: generate gemini ...
ExitCode RunSimulateGemini(const Args& args);  // cmd_simulate_gemini.cc
ExitCode RunGemini(const Args& args);          // cmd_run_gemini.cc: run on a Gemini IR
ExitCode RunTensil(const Args& args);          // cmd_run_tensil.cc: run on a Tensil model
ExitCode RunPte(const Args& args);
ExitCode RunNeff(const Args& args);            // cmd_run_neff.cc: the DMA blocks
ExitCode RunEdgetpu(const Args& args);         // cmd_run_edgetpu.cc: link, replay, re-layout //
                                               // cmd_run_pte.cc: run an ExecuTorch program
ExitCode RunAssembleTensil(const Args& args);  // cmd_assemble_tensil.cc

}  // namespace accelcheck::cli
