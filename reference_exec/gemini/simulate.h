// The schedule simulator of docs/formats/gemini.md §6.1: in-order cores that block
// on missing inputs, one DRAM channel timed at a bandwidth, and the L2
// occupancy replayed from the snapshots. It takes a decoded IR (executors
// never re-parse bytes), normally one that validated; it also runs to the end
// on any IR that decodes (`simulate --allow-invalid`), so that the picture of
// a schedule that deadlocks shows where its cores stop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reference_exec/run_control.h"
#include "validators/gemini/model.h"

namespace accelcheck::gemini {

struct SimulateOptions {
  double bandwidth_gbps = 16;  // DRAM bytes per ns
  double clock_ghz = 1;        // cycles per ns: `time` is in core cycles
};

struct WorkloadSpan {
  int64_t workload_id;
  uint32_t layer;
  uint64_t start, end;
  int64_t l2_bytes;  // the snapshot's total
};

struct DramSpan {
  int64_t transfer_id;
  bool store;  // DRAM in (a store) or DRAM out (a load)
  int64_t bytes;
  uint64_t start, end;
};

struct CoreTimeline {
  int64_t core_id;
  std::vector<WorkloadSpan> workloads;
  uint64_t busy = 0;
  int64_t peak_l2 = 0;
  // When the cores deadlock: the workload this core stopped at, waiting.
  std::optional<int64_t> blocked_at;
};

struct Simulation {
  uint64_t total_cycles = 0;
  std::vector<CoreTimeline> cores;
  std::vector<DramSpan> dram;
  uint64_t dram_bytes = 0;
  // Set when the cores stop with work left: the workloads that wait for each
  // other, as (core id, workload id) pairs in wait-for order (each waits for
  // the one before it, the first for the last) when `wait_cycle`; otherwise
  // an input is never produced, and these are the workloads blocked on it.
  std::optional<std::vector<std::pair<int64_t, int64_t>>> deadlock;
  bool wait_cycle = false;
  // The run's deadline expired: the timeline stops there and means nothing.
  bool out_of_time = false;
};

// Checks `control`'s deadline and reports the workloads done as it goes.
Simulation Simulate(const Ir& ir, const SimulateOptions& options, const RunControl& control = {});

// "…_bw16_…" in a file name: 16 GB/s.
std::optional<double> BandwidthFromName(const std::string& path);

nlohmann::json SimulationJson(const Ir& ir, const Simulation& sim, const SimulateOptions& options);
// A self-contained SVG (simulation_svg.cc): a Gantt chart of workloads per
// core with the DRAM channel over a time axis in cycles, a legend of the
// layers' colours and the DRAM directions, the L2 occupancy of each core on a
// scale set by the peak, and, when the cores deadlock, where each stops and
// the wait-for cycle between them.
std::string SimulationSvg(const Ir& ir, const Simulation& sim);

}  // namespace accelcheck::gemini
