#include "reference_exec/gemini/simulate.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <unordered_map>

#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini {

namespace {

// One pending DRAM transfer: a store of an ofmap (DRAM in) or a load (DRAM out).
struct Request {
  int64_t transfer_id;
  bool store;
  int64_t bytes;
  uint64_t ready;
};

// Cycles past the end of the uint64 range are clamped: an IR that did not
// validate may hold any size or time (simulate --allow-invalid).
uint64_t AddCycles(uint64_t a, uint64_t b) { return CheckedAdd(a, b).value_or(UINT64_MAX); }

class Simulator {
 public:
  Simulator(const Ir& ir, const SimulateOptions& options, const RunControl& control)
      : ir_(ir), index_(ir), options_(options), control_(control) {}

  Simulation Run();

 private:
  uint64_t TransferCycles(int64_t bytes) const {
    const double ns = static_cast<double>(std::max<int64_t>(bytes, 0)) / options_.bandwidth_gbps;
    const double cycles = std::ceil(ns * options_.clock_ghz);
    return cycles < 0x1p64 ? static_cast<uint64_t>(cycles) : UINT64_MAX;
  }
  void FindDeadlock();
  // When every id the workload reads is available, the latest of those times.
  std::optional<uint64_t> InputsReady(const Workload& w) const;
  void QueueReadyLoads();
  void Finish(uint32_t core, const Workload& w, uint64_t start);

  const Ir& ir_;
  IrIndex index_;
  SimulateOptions options_;
  const RunControl& control_;
  Simulation sim_;
  std::unordered_map<int64_t, uint64_t> available_;  // transfer id -> cycle it is readable
  std::unordered_map<int64_t, uint64_t> stored_;     // DRAM in id -> cycle its store ends
  std::vector<bool> load_queued_;
  std::vector<Request> pending_;
  std::vector<size_t> pc_;
  std::vector<uint64_t> core_free_;
  uint64_t channel_free_ = 0;
};

std::optional<uint64_t> Simulator::InputsReady(const Workload& w) const {
  uint64_t ready = 0;
  const auto need = [&](int64_t id) {
    const auto it = available_.find(id);
    if (it == available_.end()) return false;
    ready = std::max(ready, it->second);
    return true;
  };
  for (const Ifmap& f : w.ifmaps) {
    for (int64_t id : f.transfer_ids) {
      if (!need(id)) return std::nullopt;
    }
  }
  if (w.weight) {
    for (int64_t id : w.weight->transfer_ids) {
      if (!need(id)) return std::nullopt;
    }
  }
  return ready;
}

// A load may start once every store it reads back has reached DRAM.
void Simulator::QueueReadyLoads() {
  for (size_t o = 0; o < ir_.dram_out.size(); ++o) {
    if (load_queued_[o]) continue;
    const DramOut& out = ir_.dram_out[o];
    uint64_t ready = 0;
    bool all = true;
    for (int64_t id : out.related_ifmap) {
      const auto it = stored_.find(id);
      if (it == stored_.end()) {
        all = false;
        break;
      }
      ready = std::max(ready, it->second);
    }
    if (!all) continue;
    load_queued_[o] = true;
    pending_.push_back({out.transfer_id, false, out.size, ready});
  }
}

void Simulator::Finish(uint32_t core, const Workload& w, uint64_t start) {
  const uint64_t end = AddCycles(start, static_cast<uint64_t>(std::max<int64_t>(w.time, 0)));
  int64_t l2 = 0;
  for (const BufferEntry& e : w.buffer) l2 = SaturatingAdd(l2, e.size);
  CoreTimeline& timeline = sim_.cores[core];
  timeline.workloads.push_back({w.id, w.layer, start, end, l2});
  timeline.busy += end - start;
  timeline.peak_l2 = std::max(timeline.peak_l2, l2);
  core_free_[core] = end;
  for (const Ofmap& ofmap : w.ofmaps) {
    available_[ofmap.transfer_id] = end;
    for (const Destination& d : ofmap.destinations) {
      if (d.type == DestinationType::kDram)
        pending_.push_back({ofmap.transfer_id, true, ofmap.size, end});
    }
  }
}

Simulation Simulator::Run() {
  const size_t cores = ir_.cores.size();
  pc_.assign(cores, 0);
  core_free_.assign(cores, 0);
  load_queued_.assign(ir_.dram_out.size(), false);
  uint64_t workloads = 0, done = 0;
  for (const Core& core : ir_.cores) {
    sim_.cores.push_back({core.id, {}, 0, 0, std::nullopt});
    workloads += core.workloads.size();
  }
  QueueReadyLoads();
  for (;;) {
    if (control_.deadline.expired()) {
      sim_.out_of_time = true;
      return sim_;
    }
    // The earliest thing that can happen next: a workload start or a DRAM
    // transfer start (ties: cores first, in core order; then requests in
    // queue order), so the run is deterministic.
    std::optional<std::pair<uint64_t, size_t>> best_core;
    for (size_t c = 0; c < cores; ++c) {
      if (pc_[c] >= ir_.cores[c].workloads.size()) continue;
      const auto ready = InputsReady(ir_.cores[c].workloads[pc_[c]]);
      if (!ready) continue;
      const uint64_t start = std::max(*ready, core_free_[c]);
      if (!best_core || start < best_core->first) best_core = {start, c};
    }
    std::optional<std::pair<uint64_t, size_t>> best_request;
    for (size_t r = 0; r < pending_.size(); ++r) {
      const uint64_t start = std::max(pending_[r].ready, channel_free_);
      if (!best_request || start < best_request->first) best_request = {start, r};
    }
    if (!best_core && !best_request) break;
    if (best_core && (!best_request || best_core->first <= best_request->first)) {
      const size_t c = best_core->second;
      Finish(static_cast<uint32_t>(c), ir_.cores[c].workloads[pc_[c]], best_core->first);
      ++pc_[c];
      control_.Report(++done, workloads);
      continue;
    }
    const Request request = pending_[best_request->second];
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(best_request->second));
    const uint64_t start = best_request->first;
    const uint64_t end = AddCycles(start, TransferCycles(request.bytes));
    channel_free_ = end;
    sim_.dram.push_back({request.transfer_id, request.store, request.bytes, start, end});
    sim_.dram_bytes += static_cast<uint64_t>(std::max<int64_t>(request.bytes, 0));
    if (request.store) {
      stored_[request.transfer_id] = end;
      QueueReadyLoads();
    } else {
      available_[request.transfer_id] = end;
    }
  }
  for (size_t c = 0; c < cores; ++c) {
    sim_.total_cycles = std::max(sim_.total_cycles, core_free_[c]);
  }
  for (const DramSpan& span : sim_.dram) sim_.total_cycles = std::max(sim_.total_cycles, span.end);
  FindDeadlock();
  return sim_;
}

// Cores that stopped with work left wait at their next workload, for a cycle
// of workloads or for an input that is never produced.
void Simulator::FindDeadlock() {
  bool stuck = false;
  for (size_t c = 0; c < ir_.cores.size(); ++c) {
    if (pc_[c] >= ir_.cores[c].workloads.size()) continue;
    stuck = true;
    sim_.cores[c].blocked_at = ir_.cores[c].workloads[pc_[c]].id;
  }
  if (!stuck) return;
  std::vector<std::pair<int64_t, int64_t>> waiting;
  if (const auto cycle = FindWaitCycle(ir_, index_, false)) {
    for (const WorkloadRef& ref : *cycle)
      waiting.emplace_back(ir_.cores[ref.core].id, index_.At(ref).id);
    sim_.wait_cycle = true;
  } else {
    for (const CoreTimeline& core : sim_.cores) {
      if (core.blocked_at) waiting.emplace_back(core.core_id, *core.blocked_at);
    }
  }
  sim_.deadlock = std::move(waiting);
}

}  // namespace

Simulation Simulate(const Ir& ir, const SimulateOptions& options, const RunControl& control) {
  return Simulator(ir, options, control).Run();
}

std::optional<double> BandwidthFromName(const std::string& path) {
  static const std::regex kPattern("_bw([0-9]+)_");
  std::smatch match;
  const std::string name =
      path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (!std::regex_search(name, match, kPattern)) return std::nullopt;
  const double value = std::stod(match[1].str());
  if (value <= 0) return std::nullopt;
  return value;
}

nlohmann::json SimulationJson(const Ir& ir, const Simulation& sim, const SimulateOptions& options) {
  nlohmann::json cores = nlohmann::json::array();
  for (const CoreTimeline& core : sim.cores) {
    nlohmann::json workloads = nlohmann::json::array();
    for (const WorkloadSpan& w : core.workloads) {
      workloads.push_back({{"workload_id", w.workload_id},
                           {"layer_name", ir.LayerName(w.layer)},
                           {"start", w.start},
                           {"end", w.end},
                           {"l2_bytes", w.l2_bytes}});
    }
    const double utilisation = sim.total_cycles == 0 ? 0.0
                                                     : static_cast<double>(core.busy) /
                                                           static_cast<double>(sim.total_cycles);
    cores.push_back({{"core_id", core.core_id},
                     {"busy_cycles", core.busy},
                     {"utilisation", utilisation},
                     {"peak_l2_bytes", core.peak_l2},
                     {"peak_l2_fraction", ir.buffersize > 0 ? static_cast<double>(core.peak_l2) /
                                                                  static_cast<double>(ir.buffersize)
                                                            : 0.0},
                     {"workloads", std::move(workloads)}});
    if (core.blocked_at) cores.back()["blocked_at"] = *core.blocked_at;
  }
  nlohmann::json dram = nlohmann::json::array();
  uint64_t channel_busy = 0;
  for (const DramSpan& span : sim.dram) {
    channel_busy += span.end - span.start;
    dram.push_back({{"transfer_id", span.transfer_id},
                    {"kind", span.store ? "store" : "load"},
                    {"bytes", span.bytes},
                    {"start", span.start},
                    {"end", span.end}});
  }
  nlohmann::json deadlock = nullptr;
  if (sim.deadlock) {
    deadlock = nlohmann::json::array();
    for (const auto& [core, workload] : *sim.deadlock)
      deadlock.push_back({{"core_id", core}, {"workload_id", workload}});
  }
  nlohmann::json out = {
      {"total_cycles", sim.total_cycles},
      {"bandwidth_gbps", options.bandwidth_gbps},
      {"clock_ghz", options.clock_ghz},
      {"buffersize", ir.buffersize},
      {"dram_bytes", sim.dram_bytes},
      {"dram_utilisation", sim.total_cycles == 0 ? 0.0
                                                 : static_cast<double>(channel_busy) /
                                                       static_cast<double>(sim.total_cycles)},
      {"deadlock", deadlock},
      {"cores", std::move(cores)},
      {"dram", std::move(dram)}};
  if (sim.deadlock) out["wait_cycle"] = sim.wait_cycle;
  return out;
}

}  // namespace accelcheck::gemini
