#include "tools/accelcheck/commands.h"

namespace accelcheck::cli {

std::span<const Command> Commands() {
  static const Command kCommands[] = {
      {ValidateSpec, RunValidate},       {RulesSpec, RunRules},
      {InspectSpec, RunInspect},         {MutateSpec, RunMutate},
      {ConformanceSpec, RunConformance}, {GenerateSpec, RunGenerate},
      {SimulateSpec, RunSimulate},       {RunSpec, RunRun},
      {AssembleSpec, RunAssemble},       {CompareSpec, RunCompare},
      {GoldenSpec, RunGolden},
  };
  return kCommands;
}

}  // namespace accelcheck::cli
