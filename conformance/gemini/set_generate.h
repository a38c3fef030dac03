// The reference scheduler's writer of the SET generator's dialect
// (docs/formats/gemini.md "The SET dialect"): a chain of 3x3 convolutions,
// each layer cut by output channels into one workload per core of the mesh,
// so every workload reads every block of the layer before it. Workload and
// transfer ids are global counters in emission order (a topological order),
// the network input and the weights come from DRAM, the last layer stores to
// DRAM over the two ports of its core's mesh row, and each core places its
// tensors one after the other round its ring of 1 KiB blocks, so tensors
// wrap around the ring's end as the allocator allows. An ofmap with a
// workload after it on its core is held for that workload while it is sent.
// The frontend IR is the one the Gemini dialect's writer gives the same
// convolutions, with the same layer names.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "conformance/gemini/generate.h"

namespace accelcheck::gemini {

// Writes the IR for options.layers convolutions of options.batch x
// options.channels x options.height x options.width on the mesh, and the
// frontend IR of those layers (the one GenerateIr writes for them); nullopt
// on success, else why the options cannot be scheduled (more cores than
// channels, a snapshot larger than the ring, layer kinds other than conv).
std::optional<std::string> GenerateSetIr(const GenerateOptions& options, std::ostream& ir,
                                         std::ostream& frontend);

// The conformance base of the dialect: two layers on a 2x1 mesh, and its
// frontend IR.
std::string CaseBaseSetIr();
std::string CaseBaseSetFrontend();

}  // namespace accelcheck::gemini
