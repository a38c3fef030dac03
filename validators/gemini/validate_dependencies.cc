// I-D: the wait-for graph of in-order cores that block on missing inputs
// must be acyclic; a cycle is reported as its (core, workload) pairs.
#include <algorithm>

#include "validators/core/text.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini {

namespace {

class Graph {
 public:
  explicit Graph(const Ir& ir) {
    for (const Core& core : ir.cores) {
      base_.push_back(static_cast<uint32_t>(refs_.size()));
      for (uint32_t w = 0; w < core.workloads.size(); ++w)
        refs_.push_back({static_cast<uint32_t>(base_.size() - 1), w});
    }
    edges_.resize(refs_.size());
  }
  uint32_t Node(WorkloadRef ref) const { return base_[ref.core] + ref.index; }
  void Edge(WorkloadRef from, WorkloadRef to) { edges_[Node(from)].push_back(Node(to)); }

  // Iterative DFS; returns one cycle, in edge order.
  std::optional<std::vector<WorkloadRef>> Cycle() const {
    enum : uint8_t { kNew, kOpen, kDone };
    std::vector<uint8_t> state(refs_.size(), kNew);
    std::vector<uint32_t> parent(refs_.size(), UINT32_MAX);
    std::vector<std::pair<uint32_t, size_t>> stack;
    for (uint32_t root = 0; root < refs_.size(); ++root) {
      if (state[root] != kNew) continue;
      stack.emplace_back(root, 0);
      state[root] = kOpen;
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (next == edges_[node].size()) {
          state[node] = kDone;
          stack.pop_back();
          continue;
        }
        const uint32_t to = edges_[node][next++];
        if (state[to] == kOpen) {
          std::vector<WorkloadRef> cycle;
          for (uint32_t n = node; n != to; n = parent[n]) cycle.push_back(refs_[n]);
          cycle.push_back(refs_[to]);
          std::reverse(cycle.begin(), cycle.end());
          return cycle;
        }
        if (state[to] == kNew) {
          state[to] = kOpen;
          parent[to] = node;
          stack.emplace_back(to, 0);
        }
      }
    }
    return std::nullopt;
  }

 private:
  std::vector<uint32_t> base_;
  std::vector<WorkloadRef> refs_;
  std::vector<std::vector<uint32_t>> edges_;
};

void AddProgramOrder(const Ir& ir, Graph& graph) {
  for (uint32_t c = 0; c < ir.cores.size(); ++c) {
    for (uint32_t w = 1; w < ir.cores[c].workloads.size(); ++w) graph.Edge({c, w - 1}, {c, w});
  }
}

// Producer -> reader for every id read; DRAM store -> every reader of a
// reload that depends on it (I-D1).
void AddDataEdges(const Ir& ir, const IrIndex& index, Graph& graph) {
  for (uint32_t c = 0; c < ir.cores.size(); ++c) {
    for (uint32_t w = 0; w < ir.cores[c].workloads.size(); ++w) {
      const Workload& workload = ir.cores[c].workloads[w];
      const auto read = [&](int64_t id) {
        if (const auto producer = index.OfmapProducer(id)) {
          graph.Edge(*producer, {c, w});
          return;
        }
        const auto out = index.DramOut(id);
        if (!out) return;
        for (int64_t store : ir.dram_out[*out].related_ifmap) {
          const auto in = index.DramIn(store);
          if (!in) continue;
          if (const auto producer =
                  index.FindWorkload(ir.dram_in[*in].core_id, ir.dram_in[*in].workload_id)) {
            graph.Edge(*producer, {c, w});
          }
        }
      };
      for (const Ifmap& f : workload.ifmaps) {
        for (int64_t id : f.transfer_ids) read(id);
      }
      if (workload.weight) {
        for (int64_t id : workload.weight->transfer_ids) read(id);
      }
    }
  }
}

// I-D2: a tensor first present at workload a of core c and filled by a
// remote producer p occupies space that is free only once (c, a-1) is done.
// The producer's send waits for that space, and a core sends before it
// starts its next workload, so (c, a-1) precedes p's successor on its core.
void AddSpaceEdges(const Ir& ir, const IrIndex& index, Graph& graph) {
  for (uint32_t c = 0; c < ir.cores.size(); ++c) {
    const Core& core = ir.cores[c];
    for (uint32_t a = 1; a < core.workloads.size(); ++a) {
      for (const BufferEntry& entry : core.workloads[a].buffer) {
        if (!entry.newly_added || !*entry.newly_added) continue;
        for (const Source& source : entry.sources) {
          if (source.type != SourceType::kCore || source.core_id == core.id) continue;
          const auto producer = index.OfmapProducer(source.transfer_id);
          if (!producer || producer->index + 1 >= ir.cores[producer->core].workloads.size())
            continue;
          graph.Edge({c, a - 1}, {producer->core, producer->index + 1});
        }
      }
    }
  }
}

std::string CycleText(const Ir& ir, const std::vector<WorkloadRef>& cycle) {
  std::string out;
  for (const WorkloadRef& ref : cycle) {
    out += Str(out.empty() ? "" : " -> ", "(core ", ir.cores[ref.core].id, ", workload ",
               ir.cores[ref.core].workloads[ref.index].id, ")");
  }
  return out;
}

}  // namespace

std::optional<std::vector<WorkloadRef>> FindWaitCycle(const Ir& ir, const IrIndex& index,
                                                      bool space_edges) {
  Graph graph(ir);
  AddProgramOrder(ir, graph);
  AddDataEdges(ir, index, graph);
  if (space_edges) AddSpaceEdges(ir, index, graph);
  return graph.Cycle();
}

void CheckDependencies(const Context& ctx) {
  if (const auto cycle = FindWaitCycle(ctx.ir, ctx.index, false)) {
    const Workload& first = ctx.index.At(cycle->front());
    ctx.sink.Report(rules::kScheduleDeadlock,
                    Location{first.offset, std::nullopt,
                             WorkloadPath(ctx.index.CoreOf(cycle->front()), cycle->front().index)},
                    Str("workloads wait for each other in a cycle: ", CycleText(ctx.ir, *cycle)));
    return;
  }
  if (ctx.ir.cores.size() < 2) return;
  if (const auto cycle = FindWaitCycle(ctx.ir, ctx.index, true)) {
    const Workload& first = ctx.index.At(cycle->front());
    ctx.sink.Report(
        rules::kScheduleSpaceDeadlock,
        Location{first.offset, std::nullopt,
                 WorkloadPath(ctx.index.CoreOf(cycle->front()), cycle->front().index)},
        Str("with L2 space freed only by earlier workloads, workloads wait in a cycle: ",
            CycleText(ctx.ir, *cycle)));
  }
}

}  // namespace accelcheck::gemini
