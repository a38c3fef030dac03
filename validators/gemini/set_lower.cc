#include "validators/gemini/set_lower.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace accelcheck::gemini {

namespace {

constexpr int64_t kBlockBytes = set::kBitsPerBlock / 8;

int64_t BytesOf(int64_t bits) { return bits / 8 + (bits % 8 != 0); }

Destination DestinationOf(const set::SendTarget& target) {
  if (target.type == DestinationType::kDram) return {-1, DestinationType::kDram, 0, target.layer};
  return {target.core_id, DestinationType::kCore, target.workload_id, target.layer};
}

// The blocks each producer's ofmap entries send, first listing first.
std::unordered_map<int64_t, std::vector<Ofmap>> OfmapsByProducer(const set::Ir& set_ir) {
  std::unordered_map<int64_t, std::vector<Ofmap>> ofmaps;
  std::set<std::pair<int64_t, int64_t>> listed;  // (producer, transfer_id)
  for (const set::Core& core : set_ir.cores) {
    for (const set::Workload& w : core.workloads) {
      for (const set::BufferEntry& e : w.buffer) {
        if (e.type != EntryType::kOfmap || !e.workload_id) continue;
        for (const set::Send& send : e.sends) {
          if (!listed.emplace(*e.workload_id, send.transfer_id).second) continue;
          Ofmap ofmap{send.range, BytesOf(send.size), send.transfer_id, {}, send.offset};
          for (const set::SendTarget& target : send.targets) {
            ofmap.destinations.push_back(DestinationOf(target));
          }
          ofmaps[*e.workload_id].push_back(std::move(ofmap));
        }
      }
    }
  }
  return ofmaps;
}

BufferEntry EntryOf(const set::BufferEntry& e) {
  BufferEntry entry;
  entry.address = e.address * kBlockBytes;
  entry.size = e.blocks * kBlockBytes;
  entry.range = e.range;
  entry.type = e.type;
  entry.layer = e.layer;
  entry.transfer_ids = e.transfer_ids;
  entry.sources = e.sources;
  entry.has_sources = !e.sources.empty();
  entry.offset = e.offset;
  return entry;
}

Workload WorkloadOf(const set::Workload& w, std::vector<Ofmap> ofmaps) {
  Workload out;
  out.id = w.id;
  out.layer = w.layer;
  out.type = w.weight ? LayerType::kPe : LayerType::kVp;
  out.range = w.range;
  out.ofmap_size = BytesOf(w.ofmap_size);
  out.time = w.time;
  out.rings = {{0, set::kRingBlocks * kBlockBytes}};
  out.ifmaps.push_back({8, 8, w.ifmap_range, 0, w.ifmap_ids, w.offset});
  out.ofmaps = std::move(ofmaps);
  std::unordered_multimap<int64_t, const set::BufferEntry*> by_address;
  for (const set::BufferEntry& e : w.buffer) {
    const auto [from, to] = by_address.equal_range(e.address);
    if (std::any_of(from, to, [&](const auto& seen) { return set::SameTensor(*seen.second, e); })) {
      continue;
    }
    by_address.emplace(e.address, &e);
    out.buffer.push_back(EntryOf(e));
  }
  if (w.weight) out.weight = w.weight;
  out.offset = w.offset;
  return out;
}

}  // namespace

Ir LowerSetIr(const set::Ir& set_ir) {
  Ir ir;
  ir.buffersize = set::kRingBlocks * kBlockBytes;
  ir.top_batch_cut = set_ir.top_batch_cut;
  ir.xlen = set_ir.xlen;
  ir.ylen = set_ir.ylen;
  ir.layers = set_ir.layers;
  std::unordered_map<int64_t, std::vector<Ofmap>> ofmaps = OfmapsByProducer(set_ir);
  for (const set::Core& core : set_ir.cores) {
    Core& lowered = ir.cores.emplace_back();
    lowered.id = core.id;
    lowered.offset = core.offset;
    for (const set::Workload& w : core.workloads) {
      lowered.workloads.push_back(WorkloadOf(w, std::move(ofmaps[w.id])));
    }
  }
  std::unordered_set<int64_t> ins, outs;
  for (const set::Port& port : set_ir.ports) {
    for (const DramIn& in : port.in) {
      if (ins.insert(in.transfer_id).second) ir.dram_in.push_back(in);
    }
    for (const set::DramOut& out : port.out) {
      if (!outs.insert(out.out.transfer_id).second) continue;
      ir.dram_out.push_back(out.out);
      ir.dram_out.back().size = BytesOf(out.out.size);
    }
  }
  ir.dram_offset = set_ir.dram_offset;
  return ir;
}

}  // namespace accelcheck::gemini
