#include "validators/gemini/validate.h"

#include "validators/core/phases.h"
#include "validators/core/text.h"

namespace accelcheck::gemini {

namespace {
uint64_t WorkloadKey(int64_t core_id, int64_t workload_id) {
  return (static_cast<uint64_t>(core_id) << 40) ^ static_cast<uint64_t>(workload_id);
}
}  // namespace

IrIndex::IrIndex(const Ir& ir) : ir_(ir) {
  for (uint32_t c = 0; c < ir.cores.size(); ++c) {
    const Core& core = ir.cores[c];
    for (uint32_t w = 0; w < core.workloads.size(); ++w) {
      const Workload& workload = core.workloads[w];
      workloads_.emplace(WorkloadKey(core.id, workload.id), WorkloadRef{c, w});
      for (const Ofmap& ofmap : workload.ofmaps)
        ofmaps_.emplace(ofmap.transfer_id, WorkloadRef{c, w});
    }
  }
  for (size_t i = 0; i < ir.dram_out.size(); ++i) dram_out_.emplace(ir.dram_out[i].transfer_id, i);
  for (size_t i = 0; i < ir.dram_in.size(); ++i) dram_in_.emplace(ir.dram_in[i].transfer_id, i);
}

std::optional<WorkloadRef> IrIndex::FindWorkload(int64_t core_id, int64_t workload_id) const {
  if (core_id < 0 || workload_id < 0) return std::nullopt;
  const auto it = workloads_.find(WorkloadKey(core_id, workload_id));
  if (it == workloads_.end()) return std::nullopt;
  const Workload& w = At(it->second);
  if (CoreOf(it->second).id != core_id || w.id != workload_id) return std::nullopt;
  return it->second;
}

std::optional<WorkloadRef> IrIndex::OfmapProducer(int64_t transfer_id) const {
  const auto it = ofmaps_.find(transfer_id);
  if (it == ofmaps_.end()) return std::nullopt;
  return it->second;
}

std::optional<size_t> IrIndex::DramOut(int64_t transfer_id) const {
  const auto it = dram_out_.find(transfer_id);
  if (it == dram_out_.end()) return std::nullopt;
  return it->second;
}

std::optional<size_t> IrIndex::DramIn(int64_t transfer_id) const {
  const auto it = dram_in_.find(transfer_id);
  if (it == dram_in_.end()) return std::nullopt;
  return it->second;
}

void ValidateIr(const Ir& ir, const Frontend* frontend, const ValidateContext& context,
                DiagnosticSink& sink) {
  const IrIndex index(ir);
  const Context ctx{ir, sink, frontend, index};
  // Each pass relies on the invariants of the earlier ones: ranges ordered
  // before volumes, transfers resolved before snapshots are followed, and so
  // on (docs/ARCHITECTURE.md "Phases").
  static constexpr void (*kPasses[])(const Context&) = {
      CheckStructure, CheckTiles, CheckSizes, CheckTransfers, CheckBuffers, CheckDependencies};
  RunPasses<Context>(kPasses, ctx, context, sink);
}

}  // namespace accelcheck::gemini
