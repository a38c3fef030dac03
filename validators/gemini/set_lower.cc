#include "validators/gemini/set_lower.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "validators/gemini/validate.h"

namespace accelcheck::gemini {

namespace {

constexpr int64_t kBlockBytes = set::kBitsPerBlock / 8;

int64_t BytesOf(int64_t bits) { return bits / 8 + (bits % 8 != 0); }

// `r` in the frame that starts at `origin`: the dialect's bounds are all
// absolute, the Gemini tables' local to a tensor or a workload (§2.3).
Range Shifted(const Range& r, const std::array<int64_t, 4>& origin) {
  Range local;
  for (int d = 0; d < 4; ++d) {
    local.lo[d] = r.lo[d] - origin[d];
    local.hi[d] = r.hi[d] - origin[d];
  }
  return local;
}

Destination DestinationOf(const set::SendTarget& target) {
  if (target.type == DestinationType::kDram) return {-1, DestinationType::kDram, 0, target.layer};
  return {target.core_id, DestinationType::kCore, target.workload_id, target.layer};
}

// The blocks each producer's ofmap entries send, first listing first, in the
// producer's frame.
std::unordered_map<int64_t, std::vector<Ofmap>> OfmapsByProducer(const set::Ir& set_ir) {
  std::unordered_map<int64_t, std::array<int64_t, 4>> origin;
  for (const set::Core& core : set_ir.cores) {
    for (const set::Workload& w : core.workloads) origin.emplace(w.id, w.range.lo);
  }
  std::unordered_map<int64_t, std::vector<Ofmap>> ofmaps;
  std::set<std::pair<int64_t, int64_t>> listed;  // (producer, transfer_id)
  for (const set::Core& core : set_ir.cores) {
    for (const set::Workload& w : core.workloads) {
      for (const set::BufferEntry& e : w.buffer) {
        if (e.type != EntryType::kOfmap || !e.workload_id) continue;
        const auto producer = origin.find(*e.workload_id);
        if (producer == origin.end()) continue;
        for (const set::Send& send : e.sends) {
          if (!listed.emplace(*e.workload_id, send.transfer_id).second) continue;
          Ofmap ofmap{Shifted(send.range, producer->second),
                      BytesOf(send.size),
                      send.transfer_id,
                      {},
                      send.offset};
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

bool SendsToDram(const set::BufferEntry& e) {
  return std::any_of(e.sends.begin(), e.sends.end(), [](const set::Send& send) {
    return std::any_of(send.targets.begin(), send.targets.end(),
                       [](const set::SendTarget& t) { return t.type == DestinationType::kDram; });
  });
}

// Feature maps are packed int8 (align 1): the dialect sizes them at 8 bits
// an element, with no channel alignment (gemini.set.blocks).
BufferEntry EntryOf(const set::BufferEntry& e) {
  BufferEntry entry;
  entry.address = e.address * kBlockBytes;
  entry.size = e.blocks * kBlockBytes;
  entry.type = e.type;
  entry.layer = e.layer;
  entry.transfer_ids = e.transfer_ids;
  entry.sources = e.sources;
  entry.has_sources = !e.sources.empty();
  entry.offset = e.offset;
  if (e.type == EntryType::kWeight) {
    entry.range = e.range;
  } else {
    entry.range = Shifted(e.range, e.range.lo);
    for (Source& s : entry.sources) s.range = Shifted(s.range, e.range.lo);
    entry.align = 1;
    entry.bitwidth = 8;
  }
  if (e.type == EntryType::kOfmap) {
    // A block stored to DRAM leaves when its sending ends.
    entry.start_send = e.end_sending && SendsToDram(e);
  } else {
    entry.newly_added = e.start_loading;
  }
  return entry;
}

// One id per tensor of a core: the same blocks, transfers and producer in
// two snapshots are one tensor that stays.
class TensorIds {
 public:
  int64_t Of(const set::BufferEntry& e) {
    const auto key = std::make_tuple(e.type, e.address, e.blocks, e.transfer_ids,
                                     e.type == EntryType::kOfmap ? e.workload_id : std::nullopt);
    return ids_.emplace(key, static_cast<int64_t>(ids_.size())).first->second;
  }

 private:
  std::map<std::tuple<EntryType, int64_t, int64_t, std::vector<int64_t>, std::optional<int64_t>>,
           int64_t>
      ids_;
};

// A SET workload is computed whole: one tile, its ofmap bounds, reading the
// receptive field of them (docs/formats/gemini.md "The SET dialect").
std::optional<Tile> WholeWorkloadTile(const Workload& w, const FrontendLayer& layer) {
  const std::optional<InputWindow> window = TileInputWindow(layer, w.range);
  if (!window) return std::nullopt;
  Tile tile;
  tile.ofmap = w.range;
  tile.ifmap = window->ifmap;
  if (layer.op == Op::kAdd) tile.ifmap2 = window->ifmap;
  tile.padding = window->padding;
  tile.time_pred = static_cast<double>(w.time);
  tile.offset = w.offset;
  return tile;
}

Workload WorkloadOf(const set::Workload& w, std::vector<Ofmap> ofmaps, TensorIds& tensor_ids) {
  Workload out;
  out.id = w.id;
  out.layer = w.layer;
  out.type = w.weight ? LayerType::kPe : LayerType::kVp;
  out.range = w.range;
  out.ofmap_size = BytesOf(w.ofmap_size);
  out.time = w.time;
  out.rings = {{0, set::kRingBlocks * kBlockBytes}};
  out.ofmaps = std::move(ofmaps);
  // The ifmap bounds, in the frame of the tensor that holds them: the ifmap
  // entry labelled with this workload.
  Range ifmap = w.ifmap_range;
  // Each kept entry by address: its index in out.buffer, and what it lowers.
  std::unordered_multimap<int64_t, std::pair<size_t, const set::BufferEntry*>> by_address;
  for (const set::BufferEntry& e : w.buffer) {
    const bool current = e.type == EntryType::kIfmap && e.workload_id == w.id;
    if (current) ifmap = Shifted(w.ifmap_range, e.range.lo);
    const auto [from, to] = by_address.equal_range(e.address);
    const auto seen = std::find_if(
        from, to, [&](const auto& kept) { return set::SameTensor(*kept.second.second, e); });
    if (seen != to) {
      out.buffer[seen->second.first].cur_wl_ifmap |= current;
      continue;
    }
    by_address.emplace(e.address, std::pair{out.buffer.size(), &e});
    BufferEntry& entry = out.buffer.emplace_back(EntryOf(e));
    entry.cur_wl_ifmap = current;
    entry.tensor_id = tensor_ids.Of(e);
  }
  out.ifmaps.push_back({8, 8, ifmap, 0, w.ifmap_ids, w.offset});
  if (w.weight) out.weight = w.weight;
  out.offset = w.offset;
  return out;
}

}  // namespace

Ir LowerSetIr(const set::Ir& set_ir, const Frontend* frontend) {
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
    TensorIds tensor_ids;
    for (const set::Workload& w : core.workloads) {
      Workload& workload =
          lowered.workloads.emplace_back(WorkloadOf(w, std::move(ofmaps[w.id]), tensor_ids));
      const FrontendLayer* layer = frontend ? frontend->Find(set_ir.LayerName(w.layer)) : nullptr;
      if (layer == nullptr) continue;
      if (auto tile = WholeWorkloadTile(workload, *layer)) workload.tiles.push_back(*tile);
    }
  }
  // A DRAM out's destinations name a workload, not its layer: the layer is
  // the workload's.
  std::unordered_map<int64_t, uint32_t> layer_of;
  for (const set::Core& core : set_ir.cores) {
    for (const set::Workload& w : core.workloads) layer_of.emplace(w.id, w.layer);
  }
  std::unordered_set<int64_t> ins, outs;
  for (const set::Port& port : set_ir.ports) {
    for (const DramIn& in : port.in) {
      if (ins.insert(in.transfer_id).second) ir.dram_in.push_back(in);
    }
    for (const set::DramOut& out : port.out) {
      if (!outs.insert(out.out.transfer_id).second) continue;
      DramOut& lowered = ir.dram_out.emplace_back(out.out);
      lowered.size = BytesOf(out.out.size);
      for (Destination& d : lowered.destinations) {
        const auto layer = layer_of.find(d.workload_id);
        if (d.layer == kNoLayer && layer != layer_of.end()) d.layer = layer->second;
      }
    }
  }
  ir.dram_offset = set_ir.dram_offset;
  return ir;
}

}  // namespace accelcheck::gemini
