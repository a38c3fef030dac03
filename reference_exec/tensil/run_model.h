// Running a whole .tmodel as the drivers and Tensil's emulator do
// (docs/formats/tensil.md §5.8): constants, inputs, program, outputs.
#pragma once

#include <span>
#include <vector>

#include "reference_exec/tensil/emulator.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck::tensil {

struct ModelOutputs {
  // One entry per outputs[] entry: size x N scalars.
  std::vector<std::vector<Scalar>> outputs;
  RunStats stats;
};

// A machine with the model's constants loaded.
Machine PrepareMachine(const LoadedModel& model);

// Input scalars, one span per inputs[] entry (size x N each; shorter spans
// leave the rest zero). Runs the program under `control` and reads every
// output (none when the deadline expired: stats.out_of_time).
ModelOutputs RunModel(Machine& machine, const LoadedModel& model,
                      const std::vector<std::vector<Scalar>>& inputs,
                      const RunControl& control = {});

}  // namespace accelcheck::tensil
