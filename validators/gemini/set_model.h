// The decoded scheduler IR of the SET generator's dialect (docs/formats/gemini.md
// "The SET dialect"): compact typed tables like model.h's, sharing its types
// where the two dialects mean the same thing (ranges, DRAM in entries, DRAM
// out destinations, buffer sources, interned layer names). What only this
// dialect has gets its own fields: workload ids global over the cores, L2
// addresses in 1 KiB blocks of a ring, the DRAM queue `priority`, and the
// loading and sending flags of each snapshot entry.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "validators/gemini/model.h"

namespace accelcheck::gemini::set {

// The ring of L2 blocks the SET allocator places tensors in: 1024 blocks
// of 1 KiB per core (docs/formats/gemini.md "The SET dialect").
constexpr int64_t kRingBlocks = 1024;
constexpr int64_t kBitsPerBlock = 1024 * 8;

enum class LayerType : uint8_t { kConv2d, kFc, kPool, kElementWise, kPointToPoint };

// Its layer_type spelling.
inline std::string_view LayerTypeName(LayerType type) {
  static constexpr std::string_view kNames[] = {"conv2d", "fc", "pool", "element_wise",
                                                "point_to_point"};
  return kNames[static_cast<size_t>(type)];
}

// buffer[].destinations[].destination[]: a core (with the workload that
// receives the block) or DRAM (with the ports the block is striped over).
struct SendTarget {
  DestinationType type = DestinationType::kCore;
  int64_t core_id = 0;  // a core target's mesh id
  int64_t workload_id = -1;
  std::vector<int64_t> ports;  // a DRAM target's ports
  uint32_t layer = kNoLayer;
};

// buffer[].destinations[]: one block of an ofmap and where it goes.
struct Send {
  int64_t transfer_id = 0;
  Range range;
  int64_t size = 0;  // bits
  std::vector<SendTarget> targets;
  uint64_t offset = 0;
};

// buffer[]: an ifmap or weight being loaded, or an ofmap being sent.
struct BufferEntry {
  EntryType type = EntryType::kIfmap;
  int64_t address = 0;  // in blocks
  int64_t blocks = 0;
  uint32_t layer = kNoLayer;
  Range range;  // a weight's K bounds are range.lo[1]..range.hi[1]
  std::optional<int64_t> priority;
  // An ifmap's consuming workload; an ofmap's producing workload.
  std::optional<int64_t> workload_id;
  bool start_loading = false;
  bool end_loading = false;
  bool start_sending = false;
  bool end_sending = false;
  int64_t size = 0;  // an ofmap's, in bits
  std::vector<int64_t> transfer_ids;
  std::vector<Source> sources;  // size in bits; a DRAM source has core_id -1
  std::vector<Send> sends;
  uint64_t offset = 0;
};

// One tensor listed twice in a snapshot: the SET writer lists a tensor again
// for each workload it is loaded for, with the same blocks and transfers.
inline bool SameTensor(const BufferEntry& a, const BufferEntry& b) {
  return a.type == b.type && a.address == b.address && a.blocks == b.blocks &&
         a.transfer_ids == b.transfer_ids;
}

struct Workload {
  int64_t id = 0;
  uint32_t layer = kNoLayer;
  LayerType type = LayerType::kConv2d;
  Range range;
  int64_t ofmap_size = 0;  // bits
  int64_t time = 0;
  Range ifmap_range;
  int64_t max_workload_id = 0;  // the latest workload its ifmap waits for
  std::vector<int64_t> ifmap_ids;
  std::optional<Weight> weight;  // K bounds as in BufferEntry::range
  std::vector<BufferEntry> buffer;
  uint64_t offset = 0;
};

struct Core {
  int64_t id = 0;  // the mesh id, its key
  std::vector<Workload> workloads;
  uint64_t offset = 0;
};

// DRAM.<port>.out[]: Gemini's -1.out with the queue priority and layer.
struct DramOut {
  gemini::DramOut out;
  int64_t priority = 0;
  uint32_t layer = kNoLayer;
};

struct Port {
  int64_t id = 0;
  std::vector<DramIn> in;
  std::vector<DramOut> out;
  uint64_t offset = 0;
};

struct PortPosition {
  int64_t id = 0;
  int64_t x = 0;
  int64_t y = 0;
};

struct Ir {
  int64_t top_batch_cut = 0;
  int64_t xlen = 0;
  int64_t ylen = 0;
  std::vector<PortPosition> port_positions;  // metadata.DRAM, sorted by id
  uint64_t metadata_offset = 0;
  std::vector<Core> cores;  // sorted by id
  std::vector<Port> ports;  // sorted by id
  uint64_t dram_offset = 0;
  std::vector<std::string> layers;

  const std::string& LayerName(uint32_t layer) const { return LayerNameIn(layers, layer); }
};

// JSON pointers of the dialect's objects.
std::string WorkloadPath(const Core& core, size_t index);
std::string PortInPath(const Port& port, size_t index);
std::string PortOutPath(const Port& port, size_t index);

}  // namespace accelcheck::gemini::set
