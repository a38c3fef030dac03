// The validation passes over a decoded IR, one per area of docs/formats/gemini.md §5,
// in phase order: structure -> tiles -> sizes -> transfers -> buffers ->
// dependencies. Each pass assumes the invariants of the earlier ones.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "validators/core/format.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/gemini/frontend.h"
#include "validators/gemini/model.h"

namespace accelcheck::gemini {

// A workload by position: ir.cores[core].workloads[index].
struct WorkloadRef {
  uint32_t core = 0;
  uint32_t index = 0;
  bool operator==(const WorkloadRef&) const = default;
};

// Lookups the transfer and buffer passes share.
class IrIndex {
 public:
  explicit IrIndex(const Ir& ir);
  std::optional<WorkloadRef> FindWorkload(int64_t core_id, int64_t workload_id) const;
  // The workload whose ofmap carries `transfer_id` (the first, when repeated).
  std::optional<WorkloadRef> OfmapProducer(int64_t transfer_id) const;
  std::optional<size_t> DramOut(int64_t transfer_id) const;
  std::optional<size_t> DramIn(int64_t transfer_id) const;
  const Workload& At(WorkloadRef ref) const { return ir_.cores[ref.core].workloads[ref.index]; }
  const Core& CoreOf(WorkloadRef ref) const { return ir_.cores[ref.core]; }

 private:
  const Ir& ir_;
  std::unordered_map<uint64_t, WorkloadRef> workloads_;
  std::unordered_map<int64_t, WorkloadRef> ofmaps_;
  std::unordered_map<int64_t, size_t> dram_out_;
  std::unordered_map<int64_t, size_t> dram_in_;
};

struct Context {
  const Ir& ir;
  DiagnosticSink& sink;
  const Frontend* frontend;  // null without --frontend
  const IrIndex& index;
};

void CheckStructure(const Context& ctx);     // validate_structure.cc: I-S, I-W1
void CheckTiles(const Context& ctx);         // validate_tiles.cc: I-W3..W7
void CheckSizes(const Context& ctx);         // validate_sizes.cc: I-Z
void CheckTransfers(const Context& ctx);     // validate_transfers.cc: I-T
void CheckBuffers(const Context& ctx);       // validate_buffers.cc: I-B
void CheckDependencies(const Context& ctx);  // validate_dependencies.cc: I-D

// The wait-for graph of I-D1 (and the space edges of I-D2 when asked): a
// cycle as the list of workloads on it, or nullopt when it is acyclic.
std::optional<std::vector<WorkloadRef>> FindWaitCycle(const Ir& ir, const IrIndex& index,
                                                      bool space_edges);

// What a tile of `layer` reads to compute `ofmap` (I-W4): for conv, dense
// and pools the receptive field clipped to the input (all input channels for
// conv and dense) and the padding the clipping implies; for element-wise
// layers the ofmap box itself. nullopt for operations without a modelled
// window, or a layer without an input shape.
struct InputWindow {
  Range ifmap;
  std::array<int64_t, 4> padding{};  // top, bottom, left, right
  bool windowed = false;
};
std::optional<InputWindow> TileInputWindow(const FrontendLayer& layer, const Range& ofmap);

// Runs every phase, gating each on the blocking diagnostics of the earlier.
void ValidateIr(const Ir& ir, const Frontend* frontend, const ValidateContext& context,
                DiagnosticSink& sink);

}  // namespace accelcheck::gemini
