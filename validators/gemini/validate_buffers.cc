// I-B: the L2 and WL0 snapshots. Each workload's `buffer` is the L2 content
// before it starts; consecutive snapshots of a core describe one allocation.
#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "validators/core/text.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini {

namespace {

bool Holds(const std::vector<int64_t>& ids, int64_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::string EntryPath(const Core& core, size_t w, size_t e) {
  return Str(WorkloadPath(core, w), "/buffer/", e);
}

// I-B1: regions are [start, end) inside the buffer and pairwise disjoint.
bool CheckRegions(const Context& ctx, const Core& core, size_t i) {
  const Workload& w = core.workloads[i];
  auto rings = w.rings;
  bool ok = !rings.empty();
  if (rings.empty()) {
    ctx.sink.Report(rules::kBufferRegions,
                    LocationAt(w.offset, WorkloadPath(core, i) + "/ring_buffer_info"),
                    "ring_buffer_info names no region");
  }
  for (const auto& [start, end] : rings) {
    if (start < 0 || start >= end || end > ctx.ir.buffersize) {
      ctx.sink.Report(rules::kBufferRegions,
                      LocationAt(w.offset, WorkloadPath(core, i) + "/ring_buffer_info"),
                      Str("ring region [", Hex(start), ", ", Hex(end),
                          ") is not inside [0, buffersize ", Hex(ctx.ir.buffersize), ")"));
      ok = false;
    }
  }
  std::sort(rings.begin(), rings.end());
  for (size_t r = 1; r < rings.size(); ++r) {
    if (rings[r].first < rings[r - 1].second) {
      ctx.sink.Report(rules::kBufferRegions,
                      LocationAt(w.offset, WorkloadPath(core, i) + "/ring_buffer_info"),
                      Str("ring regions starting at ", Hex(rings[r - 1].first), " and ",
                          Hex(rings[r].first), " overlap"));
      ok = false;
    }
  }
  return ok;
}

// The region holding `address`, or -1.
int RegionOf(const Workload& w, int64_t address) {
  for (size_t r = 0; r < w.rings.size(); ++r) {
    if (address >= w.rings[r].first && address < w.rings[r].second) return static_cast<int>(r);
  }
  return -1;
}

// I-B1, I-B2, I-B3 and the 8-byte granularity of L2 addresses.
void CheckPlacement(const Context& ctx, const Core& core, size_t i) {
  const Workload& w = core.workloads[i];
  // Per region: (address relative to the region, size, entry index).
  std::map<int, std::vector<std::array<int64_t, 3>>> placed;
  for (size_t e = 0; e < w.buffer.size(); ++e) {
    const BufferEntry& entry = w.buffer[e];
    const std::string path = EntryPath(core, i, e);
    if (entry.address % 8 != 0 || entry.size % 8 != 0 || entry.size < 0) {
      ctx.sink.Report(rules::kBufferAlign, LocationAt(entry.offset, path),
                      Str("address ", Hex(entry.address), " and size ", Hex(entry.size),
                          " must be multiples of 8"));
      continue;
    }
    const int region = RegionOf(w, entry.address);
    if (region < 0) {
      ctx.sink.Report(rules::kBufferAddress, LocationAt(entry.offset, path + "/address"),
                      Str("address ", Hex(entry.address), " lies in no ring region (buffersize ",
                          Hex(ctx.ir.buffersize), ")"));
      continue;
    }
    const auto [start, end] = w.rings[region];
    if (entry.size > end - start) {
      ctx.sink.Report(
          rules::kBufferCapacity, LocationAt(entry.offset, path + "/size"),
          Str("size ", Hex(entry.size), " exceeds ring region [", Hex(start), ", ", Hex(end), ")"));
      continue;
    }
    if (entry.address + entry.size > end) {
      ctx.sink.Report(rules::kBufferWrap, LocationAt(entry.offset, path),
                      Str("tensor at ", Hex(entry.address), " + size ", Hex(entry.size),
                          " wraps around the region end ", Hex(end)));
    }
    placed[region].push_back({entry.address - start, entry.size, static_cast<int64_t>(e)});
  }
  for (auto& [region, items] : placed) {
    const int64_t height = w.rings[region].second - w.rings[region].first;
    int64_t total = 0;
    for (const auto& item : items) total = SaturatingAdd(total, item[1]);
    if (total > height) {
      ctx.sink.Report(rules::kBufferCapacity,
                      LocationAt(w.offset, WorkloadPath(core, i) + "/buffer"),
                      Str("the snapshot's tensors in region ", region, " total ", Hex(total),
                          " bytes, more than its ", Hex(height)));
      continue;
    }
    // On a ring, tensors sorted by start are disjoint when each ends before
    // the next starts, the last one modulo the ring height.
    std::sort(items.begin(), items.end());
    for (size_t k = 0; k < items.size() && items.size() > 1; ++k) {
      const auto& a = items[k];
      const auto& b = items[(k + 1) % items.size()];
      const int64_t next_start = k + 1 < items.size() ? b[0] : b[0] + height;
      if (a[0] + a[1] > next_start) {
        const BufferEntry& ea = w.buffer[a[2]];
        const BufferEntry& eb = w.buffer[b[2]];
        ctx.sink.Report(rules::kBufferOverlap, LocationAt(eb.offset, EntryPath(core, i, b[2])),
                        Str("tensor ", eb.tensor_id, " at ", Hex(eb.address), " overlaps tensor ",
                            ea.tensor_id, " at ", Hex(ea.address), " + size ", Hex(ea.size)));
        break;
      }
    }
  }
}

// I-B11.
void CheckWl0(const Context& ctx, const Core& core, size_t i) {
  const Workload& w = core.workloads[i];
  std::vector<std::pair<int64_t, size_t>> order;
  for (size_t e = 0; e < w.wl0.size(); ++e) order.emplace_back(w.wl0[e].address, e);
  std::sort(order.begin(), order.end());
  for (size_t k = 1; k < order.size(); ++k) {
    const Wl0Entry& a = w.wl0[order[k - 1].second];
    const Wl0Entry& b = w.wl0[order[k].second];
    if (SaturatingAdd(a.address, a.size) > b.address) {
      ctx.sink.Report(
          rules::kWl0Overlap,
          LocationAt(b.offset, Str(WorkloadPath(core, i), "/wl0_buffer/", order[k].second)),
          Str("WL0 entry at ", Hex(b.address), " overlaps the entry at ", Hex(a.address),
              " + size ", Hex(a.size)));
      return;
    }
  }
}

// I-B11, the capacity side. The WL0 size is a hardware parameter the IR does
// not carry; what the IR fixes is that an entry is a real, 64-bit aligned
// extent (as L2 ones, §2.4) and holds at most the weight block it streams:
// the DRAM out block (DDR) or the L2 weight tensor (CORE).
void CheckWl0Capacity(const Context& ctx, const Core& core, size_t i) {
  const Workload& w = core.workloads[i];
  for (size_t e = 0; e < w.wl0.size(); ++e) {
    const Wl0Entry& entry = w.wl0[e];
    const std::string path = Str(WorkloadPath(core, i), "/wl0_buffer/", e);
    if (entry.address < 0 || entry.size < 8 || entry.address % 8 != 0 || entry.size % 8 != 0) {
      ctx.sink.Report(rules::kWl0Capacity, LocationAt(entry.offset, path),
                      Str("WL0 entry at address ", entry.address, " with size ", entry.size,
                          "; expected an address >= 0 and a size >= 8, both multiples of 8"));
      continue;
    }
    int64_t block = 0;
    for (int64_t id : entry.transfer_ids) {
      int64_t size = -1;
      if (entry.source == Wl0Source::kDdr) {
        if (const auto out = ctx.index.DramOut(id)) size = ctx.ir.dram_out[*out].size;
      } else {
        for (const BufferEntry& b : w.buffer) {
          if (b.type == EntryType::kWeight && Holds(b.transfer_ids, id)) size = b.size;
        }
      }
      if (size < 0) {
        block = -1;  // the block is unknown: gemini.buffer.liveness or gemini.transfer.produced
        break;
      }
      block = SaturatingAdd(block, size);
    }
    if (block >= 0 && !entry.transfer_ids.empty() && entry.size > block) {
      ctx.sink.Report(rules::kWl0Capacity, LocationAt(entry.offset, path + "/size"),
                      Str("WL0 entry of size ", entry.size, " exceeds the ", block,
                          " bytes of the weight block", entry.transfer_ids.size() == 1 ? "" : "s",
                          " it holds (",
                          entry.source == Wl0Source::kDdr ? "DRAM out" : "L2 weight tensor", ")"));
    }
  }
}

// I-B7: sources tile the tensor, and name the ids the tensor lists.
void CheckSources(const Context& ctx, const Core& core, size_t i, size_t e) {
  const BufferEntry& entry = core.workloads[i].buffer[e];
  if (!entry.has_sources) return;
  const std::string path = EntryPath(core, i, e);
  std::vector<int64_t> ids;
  int64_t covered = 0;
  for (size_t s = 0; s < entry.sources.size(); ++s) {
    const Source& source = entry.sources[s];
    const std::string source_path = Str(path, "/source/", s);
    ids.push_back(source.transfer_id);
    if (!Contains(entry.range, source.range)) {
      ctx.sink.Report(
          rules::kBufferSources, LocationAt(source.offset, source_path),
          Str("source ", RangeText(source.range), " lies outside tensor ", RangeText(entry.range)));
      return;
    }
    for (size_t u = 0; u < s; ++u) {
      if (Intersects(source.range, entry.sources[u].range)) {
        ctx.sink.Report(rules::kBufferSources, LocationAt(source.offset, source_path),
                        Str("source ", s, " ", RangeText(source.range), " overlaps source ", u, " ",
                            RangeText(entry.sources[u].range)));
        return;
      }
    }
    covered = SaturatingAdd(covered, *Volume(source.range));
    if (source.type == SourceType::kDram) {
      if (source.core_id != -1 || !ctx.index.DramOut(source.transfer_id)) {
        ctx.sink.Report(rules::kBufferSources, LocationAt(source.offset, source_path),
                        Str("DRAM source of transfer ", source.transfer_id, " with core_id ",
                            source.core_id, "; expected core_id -1 and a DRAM out transfer_id"));
      }
    } else if (const auto producer = ctx.index.OfmapProducer(source.transfer_id)) {
      const Workload& p = ctx.index.At(*producer);
      const Core& pcore = ctx.index.CoreOf(*producer);
      if (source.core_id != pcore.id || source.layer != p.layer) {
        ctx.sink.Report(
            rules::kBufferSources, LocationAt(source.offset, source_path),
            Str("core source of transfer ", source.transfer_id, " names core ", source.core_id,
                " layer ", Quoted(ctx.ir.LayerName(source.layer)), " but workload ", p.id,
                " of core ", pcore.id, " (", Quoted(ctx.ir.LayerName(p.layer)), ") produces it"));
      }
    } else {
      ctx.sink.Report(
          rules::kBufferSources, LocationAt(source.offset, source_path),
          Str("core source names transfer ", source.transfer_id, ", which no ofmap produces"));
    }
  }
  const int64_t volume = *Volume(entry.range);
  if (covered != volume) {
    ctx.sink.Report(rules::kBufferSources, LocationAt(entry.offset, path + "/source"),
                    Str("sources cover ", covered, " of the ", volume, " elements of tensor ",
                        RangeText(entry.range)));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto listed = entry.transfer_ids;
  std::sort(listed.begin(), listed.end());
  if (ids != listed) {
    ctx.sink.Report(rules::kBufferSources, LocationAt(entry.offset, path + "/transfer_id"),
                    Str("transfer_id lists ", listed.size(), " ids but the sources carry ",
                        ids.size(), " distinct ids"));
  }
}

// I-B6: each ifmap lies in exactly one cur_wl_ifmap tensor, and each such
// tensor serves an ifmap.
void CheckCurrentIfmaps(const Context& ctx, const Core& core, size_t i) {
  const Workload& w = core.workloads[i];
  std::vector<bool> used(w.buffer.size(), false);
  for (size_t f = 0; f < w.ifmaps.size(); ++f) {
    const Ifmap& ifmap = w.ifmaps[f];
    size_t holders = 0;
    size_t holder = 0;
    for (size_t e = 0; e < w.buffer.size(); ++e) {
      const BufferEntry& entry = w.buffer[e];
      if (!entry.cur_wl_ifmap) continue;
      const bool all = std::all_of(ifmap.transfer_ids.begin(), ifmap.transfer_ids.end(),
                                   [&](int64_t id) { return Holds(entry.transfer_ids, id); });
      if (all && !ifmap.transfer_ids.empty()) {
        ++holders;
        holder = e;
      }
    }
    const std::string path = Str(WorkloadPath(core, i), "/ifmap/", f);
    if (holders != 1) {
      ctx.sink.Report(rules::kBufferCurWlIfmap, LocationAt(ifmap.offset, path),
                      Str("ifmap ", f, " of workload ", w.id, " is held by ", holders,
                          " cur_wl_ifmap tensors; expected 1"));
      continue;
    }
    used[holder] = true;
    const BufferEntry& entry = w.buffer[holder];
    if (!Contains(entry.range, ifmap.range) || entry.align != ifmap.align ||
        entry.bitwidth != ifmap.bitwidth) {
      ctx.sink.Report(
          rules::kBufferCurWlIfmap, LocationAt(ifmap.offset, path),
          Str("ifmap ", RangeText(ifmap.range), " (align ", ifmap.align, ", bitwidth ",
              ifmap.bitwidth, ") does not fit tensor ", entry.tensor_id, " ",
              RangeText(entry.range), " (align ", entry.align, ", bitwidth ", entry.bitwidth, ")"));
    }
  }
  for (size_t e = 0; e < w.buffer.size(); ++e) {
    if (w.buffer[e].cur_wl_ifmap && !used[e]) {
      ctx.sink.Report(rules::kBufferCurWlIfmap,
                      LocationAt(w.buffer[e].offset, EntryPath(core, i, e) + "/cur_wl_ifmap"),
                      Str("tensor ", w.buffer[e].tensor_id,
                          " is marked cur_wl_ifmap but holds no ifmap of workload ", w.id));
    }
  }
}

// I-B8: the weight of a pe workload is in L2 and WL0 (source CORE), or only
// in WL0 (source DDR).
void CheckWeightResidency(const Context& ctx, const Core& core, size_t i) {
  const Workload& w = core.workloads[i];
  if (!w.weight) return;
  for (int64_t id : w.weight->transfer_ids) {
    const bool in_l2 = std::any_of(w.buffer.begin(), w.buffer.end(), [&](const BufferEntry& e) {
      return e.type == EntryType::kWeight && Holds(e.transfer_ids, id);
    });
    const Wl0Source want = in_l2 ? Wl0Source::kCore : Wl0Source::kDdr;
    const bool in_wl0 = std::any_of(w.wl0.begin(), w.wl0.end(), [&](const Wl0Entry& e) {
      return e.source == want && Holds(e.transfer_ids, id);
    });
    if (!in_wl0) {
      ctx.sink.Report(rules::kBufferLiveness,
                      LocationAt(w.weight->offset, WorkloadPath(core, i) + "/weight"),
                      Str("weight transfer ", id, " of workload ", w.id,
                          in_l2 ? " is in L2 but no WL0 entry with source CORE holds it"
                                : " is not in L2 and no WL0 entry with source DDR holds it"));
    }
  }
}

// The tensor_ids of w's snapshot carrying transfer t.
std::vector<int64_t> Carriers(const Workload& w, int64_t t) {
  std::vector<int64_t> ids;
  for (const BufferEntry& e : w.buffer) {
    if (Holds(e.transfer_ids, t)) ids.push_back(e.tensor_id);
  }
  return ids;
}

// I-B8 for transfers a core forwards to itself: once a snapshot at or after
// the producer holds the data, one tensor keeps holding it through the last
// reader; a gap or a change of tensor moves data no transfer describes.
// (Real files allocate the tensor at the producer's own snapshot; the
// reference scheduler at the first reader's, which is as sound.)
void CheckForwardLifetimes(const Context& ctx, const Core& core) {
  std::unordered_map<int64_t, size_t> last_reader;  // transfer -> position
  for (size_t i = 0; i < core.workloads.size(); ++i) {
    for (const Ifmap& f : core.workloads[i].ifmaps) {
      for (int64_t id : f.transfer_ids) last_reader[id] = i;
    }
  }
  for (size_t p = 0; p < core.workloads.size(); ++p) {
    const Workload& producer = core.workloads[p];
    for (const Ofmap& ofmap : producer.ofmaps) {
      const auto it = last_reader.find(ofmap.transfer_id);
      if (it == last_reader.end() || it->second <= p) continue;  // gemini.transfer.consumer_listed
      const size_t last = it->second;
      std::optional<int64_t> tensor;
      for (size_t i = p; i <= last; ++i) {
        const std::vector<int64_t> carriers = Carriers(core.workloads[i], ofmap.transfer_id);
        if (!tensor && carriers.empty()) continue;
        std::string problem;
        if (carriers.size() != 1) {
          problem = Str(carriers.size(), " tensors carry it");
        } else if (tensor && *tensor != carriers[0]) {
          problem =
              Str("tensor ", carriers[0], " carries it where tensor ", *tensor, " did before");
        }
        if (!problem.empty()) {
          ctx.sink.Report(
              rules::kBufferForwardLifetime,
              LocationAt(core.workloads[i].offset, WorkloadPath(core, i) + "/buffer"),
              Str("transfer ", ofmap.transfer_id, " of workload ", producer.id, " is read on core ",
                  core.id, " until workload ", core.workloads[last].id,
                  ", but in the snapshot of workload ", core.workloads[i].id, " ", problem,
                  "; expected one tensor from its first holder through workload ",
                  core.workloads[last].id));
          break;
        }
        tensor = carriers[0];
      }
    }
  }
}

// I-B4, I-B5, I-B10 over the sequence of one core's snapshots.
void CheckSnapshotSequence(const Context& ctx, const Core& core) {
  struct Seen {
    int64_t address, size;
    std::optional<int64_t> order;
    size_t first, last;
    bool removed = false;
  };
  std::unordered_map<int64_t, Seen> tensors;
  std::unordered_map<int64_t, size_t> previous;  // tensor_id -> entry, in the previous snapshot
  for (size_t i = 0; i < core.workloads.size(); ++i) {
    const Workload& w = core.workloads[i];
    std::unordered_map<int64_t, size_t> current;
    for (size_t e = 0; e < w.buffer.size(); ++e) {
      const BufferEntry& entry = w.buffer[e];
      const std::string path = EntryPath(core, i, e);
      if (!current.emplace(entry.tensor_id, e).second) {
        ctx.sink.Report(rules::kBufferTensorId, LocationAt(entry.offset, path + "/tensor_id"),
                        Str("tensor_id ", entry.tensor_id,
                            " appears twice in the snapshot of workload ", w.id));
        continue;
      }
      const bool was_present = previous.count(entry.tensor_id) != 0;
      if (entry.newly_added && *entry.newly_added == was_present) {
        ctx.sink.Report(rules::kBufferNewlyAdded, LocationAt(entry.offset, path + "/newly_added"),
                        Str("tensor ", entry.tensor_id, " has newly_added ",
                            *entry.newly_added ? "true" : "false", " but it is ",
                            was_present ? "" : "not ", "in the previous snapshot"));
      }
      auto [it, inserted] = tensors.emplace(
          entry.tensor_id, Seen{entry.address, entry.size, entry.tensor_order, i, i});
      Seen& seen = it->second;
      if (inserted) {
        // I-B10: a store entry first appears in its producer's snapshot.
        if (entry.type == EntryType::kOfmap && entry.layer != w.layer) {
          ctx.sink.Report(
              rules::kBufferOfmapEntry, LocationAt(entry.offset, path + "/layer_name"),
              Str("ofmap entry ", entry.tensor_id, " names layer ",
                  Quoted(ctx.ir.LayerName(entry.layer)), " but first appears before workload ",
                  w.id, " of layer ", Quoted(ctx.ir.LayerName(w.layer))));
        }
        continue;
      }
      if (!was_present) {
        ctx.sink.Report(rules::kBufferTensorId, LocationAt(entry.offset, path + "/tensor_id"),
                        Str("tensor ", entry.tensor_id, " reappears before workload ", w.id,
                            " after leaving the buffer"));
      } else if (seen.address != entry.address || seen.size != entry.size ||
                 seen.order != entry.tensor_order) {
        ctx.sink.Report(
            rules::kBufferTensorId, LocationAt(entry.offset, path),
            Str("tensor ", entry.tensor_id, " moves from address ", Hex(seen.address), " size ",
                Hex(seen.size), " to address ", Hex(entry.address), " size ", Hex(entry.size)));
      }
      seen.last = i;
    }
    // I-B10: start_send is true only on a store entry's last appearance.
    for (const auto& [tensor, e] : previous) {
      const Workload& before = core.workloads[i - 1];
      const BufferEntry& entry = before.buffer[e];
      if (entry.type != EntryType::kOfmap || !entry.start_send) continue;
      const bool stays = current.count(tensor) != 0;
      if (*entry.start_send == stays) {
        ctx.sink.Report(
            rules::kBufferOfmapEntry,
            LocationAt(entry.offset, EntryPath(core, i - 1, e) + "/start_send"),
            Str("ofmap entry ", tensor, " has start_send ", *entry.start_send ? "true" : "false",
                " but ", stays ? "stays" : "leaves", " after workload ", before.id));
      }
    }
    previous = std::move(current);
  }
}

// I-B9: DRAM-queue items carry 0..n-1 once each; core-fed tensors carry n.
void CheckTensorOrder(const Context& ctx) {
  std::map<int64_t, std::pair<uint64_t, std::string>> orders;  // order -> first item
  std::unordered_map<uint64_t, int64_t> items;                 // item key -> its order
  struct CoreFed {
    int64_t order;
    uint64_t offset;
    size_t core, workload, entry;
  };
  std::vector<CoreFed> core_fed;
  const auto add = [&](uint64_t key, int64_t order, uint64_t offset, const std::string& path) {
    const auto [it, inserted] = items.emplace(key, order);
    if (!inserted) return;
    if (!orders.emplace(order, std::make_pair(offset, path)).second) {
      ctx.sink.Report(rules::kBufferTensorOrder, LocationAt(offset, path + "/tensor_order"),
                      Str("tensor_order ", order, " is already used by ", orders[order].second));
    }
  };
  for (size_t c = 0; c < ctx.ir.cores.size(); ++c) {
    const Core& core = ctx.ir.cores[c];
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      const Workload& w = core.workloads[i];
      for (size_t e = 0; e < w.buffer.size(); ++e) {
        const BufferEntry& entry = w.buffer[e];
        if (!entry.tensor_order) continue;
        const bool from_dram =
            entry.type == EntryType::kOfmap ||
            (!entry.sources.empty() &&
             std::all_of(entry.sources.begin(), entry.sources.end(),
                         [](const Source& s) { return s.type == SourceType::kDram; }));
        const uint64_t key = (uint64_t{c} << 48) ^ static_cast<uint64_t>(entry.tensor_id);
        if (from_dram) {
          add(key, *entry.tensor_order, entry.offset, EntryPath(core, i, e));
        } else {
          core_fed.push_back({*entry.tensor_order, entry.offset, c, i, e});
        }
      }
      for (size_t e = 0; e < w.wl0.size(); ++e) {
        const Wl0Entry& entry = w.wl0[e];
        if (entry.source != Wl0Source::kDdr || !entry.tensor_order || entry.transfer_ids.empty())
          continue;
        const uint64_t key = (uint64_t{1} << 63) ^ (uint64_t{c} << 48) ^
                             static_cast<uint64_t>(entry.transfer_ids[0]);
        add(key, *entry.tensor_order, entry.offset, Str(WorkloadPath(core, i), "/wl0_buffer/", e));
      }
    }
  }
  const auto n = static_cast<int64_t>(orders.size());
  int64_t expected = 0;
  for (const auto& [order, first] : orders) {
    if (order != expected) {
      ctx.sink.Report(rules::kBufferTensorOrder,
                      LocationAt(first.first, first.second + "/tensor_order"),
                      Str("tensor_order ", order, " leaves a gap: the ", n,
                          " DRAM-queue items should carry 0..", n - 1));
      return;
    }
    ++expected;
  }
  for (const CoreFed& fed : core_fed) {
    if (fed.order != n) {
      const std::string path = EntryPath(ctx.ir.cores[fed.core], fed.workload, fed.entry);
      ctx.sink.Report(
          rules::kBufferTensorOrder, LocationAt(fed.offset, path + "/tensor_order"),
          Str("core-fed tensor has tensor_order ", fed.order, "; expected the sentinel ", n));
      return;
    }
  }
}

}  // namespace

void CheckBuffers(const Context& ctx) {
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      if (CheckRegions(ctx, core, i)) CheckPlacement(ctx, core, i);
      CheckWl0(ctx, core, i);
      CheckWl0Capacity(ctx, core, i);
      for (size_t e = 0; e < core.workloads[i].buffer.size(); ++e) CheckSources(ctx, core, i, e);
      CheckCurrentIfmaps(ctx, core, i);
      CheckWeightResidency(ctx, core, i);
    }
    CheckSnapshotSequence(ctx, core);
    CheckForwardLifetimes(ctx, core);
  }
  CheckTensorOrder(ctx);
}

}  // namespace accelcheck::gemini
