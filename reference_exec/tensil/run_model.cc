#include "reference_exec/tensil/run_model.h"

#include <algorithm>

namespace accelcheck::tensil {

Machine PrepareMachine(const LoadedModel& model) {
  Machine machine(model.model.arch);
  const FileEntry& consts = model.model.consts.front();
  machine.LoadConstants(model.constants.bytes(), consts.base, model.model.load_consts_to_local);
  return machine;
}

ModelOutputs RunModel(Machine& machine, const LoadedModel& model,
                      const std::vector<std::vector<Scalar>>& inputs, const RunControl& control) {
  const uint64_t n = model.model.arch.array_size;
  for (size_t i = 0; i < model.model.inputs.size() && i < inputs.size(); ++i) {
    const IoEntry& entry = model.model.inputs[i];
    const size_t count = std::min<size_t>(inputs[i].size(), entry.size * n);
    machine.WriteDram0(entry.base, std::span<const Scalar>(inputs[i].data(), count));
  }
  ModelOutputs result;
  result.stats = machine.Run(model.program.bytes(), model.layout, control);
  if (result.stats.out_of_time) return result;
  for (const IoEntry& entry : model.model.outputs)
    result.outputs.push_back(machine.ReadDram0(entry.base, entry.size));
  return result;
}

}  // namespace accelcheck::tensil
