// The subcommands of `accelcheck`. Each takes the arguments after its name and
// returns the process exit code (docs/ARCHITECTURE.md "Exit codes": 0 conforms, 1 errors, 2 usage,
// 3 I/O, internal error or limit).
#pragma once

#include <string>
#include <vector>

namespace accelcheck::cli {

using Args = std::vector<std::string>;

int RunValidate(const Args& args);        // cmd_validate.cc
int RunRules(const Args& args);           // cmd_rules.cc
int RunInspect(const Args& args);         // cmd_inspect.cc
int RunMutate(const Args& args);          // cmd_mutate.cc
int RunConformance(const Args& args);     // cmd_conformance.cc
int RunGenerate(const Args& args);        // cmd_generate.cc
int RunGenerateGemini(const Args& args);  // cmd_generate_gemini.cc: generate gemini ...
int RunSimulate(const Args& args);        // cmd_simulate.cc
int RunRun(const Args& args);             // cmd_run.cc: dispatches by format
int RunGemini(const Args& args);          // cmd_run_gemini.cc: accelcheck run on a Gemini IR
int RunTensil(const Args& args);          // cmd_run_tensil.cc
int RunAssemble(const Args& args);        // cmd_assemble.cc

}  // namespace accelcheck::cli
