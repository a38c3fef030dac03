// I-T: every transfer has one producer, reaches its destinations, and DRAM
// stores and reloads refer to each other consistently.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "validators/core/text.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini {

namespace {

bool Holds(const std::vector<int64_t>& ids, int64_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::string Name(const Context& ctx, const Core& core, const Workload& w) {
  return Str("workload ", w.id, " (", Quoted(ctx.ir.LayerName(w.layer)), ") of core ", core.id);
}

// I-T1.
void CheckUnique(const Context& ctx) {
  std::unordered_set<int64_t> ofmap_ids;
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      const Workload& w = core.workloads[i];
      for (size_t o = 0; o < w.ofmaps.size(); ++o) {
        if (!ofmap_ids.insert(w.ofmaps[o].transfer_id).second) {
          ctx.sink.Report(rules::kTransferUnique,
                          LocationAt(w.ofmaps[o].offset,
                                     Str(WorkloadPath(core, i), "/ofmap/", o, "/transfer_id")),
                          Str("ofmap transfer_id ", w.ofmaps[o].transfer_id, " of ",
                              Name(ctx, core, w), " is produced by an earlier ofmap too"));
        }
      }
    }
  }
  std::unordered_set<int64_t> out_ids;
  for (size_t i = 0; i < ctx.ir.dram_out.size(); ++i) {
    const DramOut& out = ctx.ir.dram_out[i];
    const std::string path = DramOutPath(i) + "/transfer_id";
    if (!out_ids.insert(out.transfer_id).second) {
      ctx.sink.Report(rules::kTransferUnique, LocationAt(out.offset, path),
                      Str("DRAM out transfer_id ", out.transfer_id, " repeats"));
    } else if (ofmap_ids.count(out.transfer_id) != 0) {
      ctx.sink.Report(
          rules::kTransferUnique, LocationAt(out.offset, path),
          Str("DRAM out transfer_id ", out.transfer_id, " is also an ofmap transfer_id"));
    }
  }
  std::unordered_set<int64_t> in_ids;
  for (size_t i = 0; i < ctx.ir.dram_in.size(); ++i) {
    const DramIn& in = ctx.ir.dram_in[i];
    const std::string path = DramInPath(i) + "/transfer_id";
    if (!in_ids.insert(in.transfer_id).second) {
      ctx.sink.Report(rules::kTransferUnique, LocationAt(in.offset, path),
                      Str("DRAM in transfer_id ", in.transfer_id, " repeats"));
    } else if (out_ids.count(in.transfer_id) != 0) {
      ctx.sink.Report(
          rules::kTransferUnique, LocationAt(in.offset, path),
          Str("DRAM in transfer_id ", in.transfer_id, " is also a DRAM out transfer_id"));
    }
  }
}

// I-T2: each DRAM in is the store of one ofmap, and the other way round.
void CheckDramIn(const Context& ctx) {
  std::unordered_set<int64_t> stored;
  for (size_t i = 0; i < ctx.ir.dram_in.size(); ++i) {
    const DramIn& in = ctx.ir.dram_in[i];
    stored.insert(in.transfer_id);
    const auto ref = ctx.index.FindWorkload(in.core_id, in.workload_id);
    const auto producer = ctx.index.OfmapProducer(in.transfer_id);
    std::string problem;
    if (!ref) {
      problem = Str("DRAM in transfer ", in.transfer_id, " names workload ", in.workload_id,
                    " of core ", in.core_id, ", which does not exist");
    } else if (!producer || !(*producer == *ref)) {
      problem = Str("DRAM in transfer ", in.transfer_id, " is not an ofmap of workload ",
                    in.workload_id, " of core ", in.core_id);
    } else {
      const Workload& w = ctx.index.At(*ref);
      const auto ofmap = std::find_if(w.ofmaps.begin(), w.ofmaps.end(), [&](const Ofmap& o) {
        return o.transfer_id == in.transfer_id;
      });
      const bool to_dram =
          std::any_of(ofmap->destinations.begin(), ofmap->destinations.end(),
                      [](const Destination& d) { return d.type == DestinationType::kDram; });
      if (!to_dram) {
        problem = Str("ofmap transfer ", in.transfer_id, " of workload ", w.id,
                      " has no DRAM destination");
      } else if (in.layer != w.layer) {
        problem = Str("DRAM in layer ", Quoted(ctx.ir.LayerName(in.layer)),
                      " is not the producer's layer ", Quoted(ctx.ir.LayerName(w.layer)));
      } else if (in.range.lo != w.range.lo || in.range.hi != w.range.hi) {
        problem = Str("DRAM in range ", RangeText(in.range),
                      " is not the producer's workload range ", RangeText(w.range));
      }
    }
    if (!problem.empty())
      ctx.sink.Report(rules::kTransferDramIn, LocationAt(in.offset, DramInPath(i)), problem);
  }
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      const Workload& w = core.workloads[i];
      for (size_t o = 0; o < w.ofmaps.size(); ++o) {
        const Ofmap& ofmap = w.ofmaps[o];
        const bool to_dram =
            std::any_of(ofmap.destinations.begin(), ofmap.destinations.end(),
                        [](const Destination& d) { return d.type == DestinationType::kDram; });
        if (to_dram && stored.count(ofmap.transfer_id) == 0) {
          ctx.sink.Report(rules::kTransferDramIn,
                          LocationAt(ofmap.offset, Str(WorkloadPath(core, i), "/ofmap/", o)),
                          Str("ofmap transfer ", ofmap.transfer_id, " of ", Name(ctx, core, w),
                              " goes to DRAM but no DRAM in entry stores it"));
        }
      }
    }
  }
}

// I-T3: related_ofmap and related_ifmap name each other.
void CheckRelated(const Context& ctx) {
  for (size_t i = 0; i < ctx.ir.dram_in.size(); ++i) {
    const DramIn& in = ctx.ir.dram_in[i];
    for (int64_t id : in.related_ofmap) {
      const auto out = ctx.index.DramOut(id);
      if (!out) {
        ctx.sink.Report(rules::kTransferRelated,
                        LocationAt(in.offset, DramInPath(i) + "/related_ofmap"),
                        Str("related_ofmap names ", id, ", which is no DRAM out transfer_id"));
      } else if (!Holds(ctx.ir.dram_out[*out].related_ifmap, in.transfer_id)) {
        ctx.sink.Report(rules::kTransferRelated,
                        LocationAt(in.offset, DramInPath(i) + "/related_ofmap"),
                        Str("related_ofmap names DRAM out ", id,
                            ", whose related_ifmap does not name ", in.transfer_id));
      }
    }
  }
  for (size_t o = 0; o < ctx.ir.dram_out.size(); ++o) {
    const DramOut& out = ctx.ir.dram_out[o];
    if (out.type == OutType::kWeight && !out.related_ifmap.empty()) {
      ctx.sink.Report(rules::kTransferRelated,
                      LocationAt(out.offset, DramOutPath(o) + "/related_ifmap"),
                      Str("weight DRAM out ", out.transfer_id, " has a non-empty related_ifmap"));
      continue;
    }
    for (int64_t id : out.related_ifmap) {
      const auto in = ctx.index.DramIn(id);
      if (!in) {
        ctx.sink.Report(rules::kTransferRelated,
                        LocationAt(out.offset, DramOutPath(o) + "/related_ifmap"),
                        Str("related_ifmap names ", id, ", which is no DRAM in transfer_id"));
      } else if (!Holds(ctx.ir.dram_in[*in].related_ofmap, out.transfer_id)) {
        ctx.sink.Report(rules::kTransferRelated,
                        LocationAt(out.offset, DramOutPath(o) + "/related_ifmap"),
                        Str("related_ifmap names DRAM in ", id,
                            ", whose related_ofmap does not name ", out.transfer_id));
      }
    }
  }
}

// I-T4: a reload is exactly the union of the stores it reads.
void CheckCoverage(const Context& ctx) {
  for (size_t o = 0; o < ctx.ir.dram_out.size(); ++o) {
    const DramOut& out = ctx.ir.dram_out[o];
    if (out.type != OutType::kFmap || out.related_ifmap.empty()) continue;
    int64_t covered = 0;
    for (int64_t id : out.related_ifmap) {
      const auto in = ctx.index.DramIn(id);
      if (!in) continue;
      if (const auto part = Intersect(out.range, ctx.ir.dram_in[*in].range))
        covered = SaturatingAdd(covered, *Volume(*part));
    }
    const int64_t volume = *Volume(out.range);
    if (covered != volume) {
      ctx.sink.Report(rules::kTransferCoverage, LocationAt(out.offset, DramOutPath(o)),
                      Str("DRAM out ", out.transfer_id, " ", RangeText(out.range), " has ", volume,
                          " elements but its related in blocks cover ", covered));
    }
  }
}

// I-T5, I-T10: what a workload reads is produced, and its producer lists the
// reader as a destination and runs first on a shared core.
void CheckReads(const Context& ctx) {
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      const Workload& w = core.workloads[i];
      const std::string path = WorkloadPath(core, i);
      const auto check = [&](int64_t id, uint64_t offset, const std::string& where) {
        if (const auto producer = ctx.index.OfmapProducer(id)) {
          const Workload& p = ctx.index.At(*producer);
          const Core& pcore = ctx.index.CoreOf(*producer);
          const Ofmap& ofmap = *std::find_if(p.ofmaps.begin(), p.ofmaps.end(),
                                             [&](const Ofmap& o) { return o.transfer_id == id; });
          const bool listed = std::any_of(ofmap.destinations.begin(), ofmap.destinations.end(),
                                          [&](const Destination& d) {
                                            return d.type == DestinationType::kCore &&
                                                   d.core_id == core.id && d.workload_id == w.id;
                                          });
          if (!listed) {
            ctx.sink.Report(rules::kTransferConsumerListed, LocationAt(offset, where),
                            Str(Name(ctx, core, w), " reads transfer ", id, " but its producer, ",
                                Name(ctx, pcore, p), ", does not list it as a destination"));
          } else if (pcore.id == core.id && p.id >= w.id) {
            ctx.sink.Report(
                rules::kTransferConsumerListed, LocationAt(offset, where),
                Str(Name(ctx, core, w), " reads transfer ", id, " produced by workload ", p.id,
                    ", which runs later on the same core"));
          }
          return;
        }
        if (const auto out = ctx.index.DramOut(id)) {
          const DramOut& dram = ctx.ir.dram_out[*out];
          // A weight block stays in L2 for later tiles of its layer; only its
          // first readers are destinations of the DRAM load.
          if (dram.type == OutType::kWeight) return;
          const bool listed = std::any_of(
              dram.destinations.begin(), dram.destinations.end(),
              [&](const Destination& d) { return d.core_id == core.id && d.workload_id == w.id; });
          if (!listed) {
            ctx.sink.Report(rules::kTransferConsumerListed, LocationAt(offset, where),
                            Str(Name(ctx, core, w), " reads DRAM out ", id,
                                ", which does not list it as a destination"));
          }
          return;
        }
        ctx.sink.Report(rules::kTransferProduced, LocationAt(offset, where),
                        Str(Name(ctx, core, w), " reads transfer ", id,
                            ", which no ofmap and no DRAM out produces"));
      };
      for (size_t f = 0; f < w.ifmaps.size(); ++f) {
        for (int64_t id : w.ifmaps[f].transfer_ids)
          check(id, w.ifmaps[f].offset, Str(path, "/ifmap/", f, "/transfer_id"));
      }
      if (w.weight) {
        for (int64_t id : w.weight->transfer_ids)
          check(id, w.weight->offset, path + "/weight/transfer_id");
      }
    }
  }
}

// Does workload w hold transfer t in its L2 snapshot (or, for a weight, in WL0)?
bool Delivered(const Workload& w, int64_t t, bool weight) {
  for (const BufferEntry& e : w.buffer) {
    if (Holds(e.transfer_ids, t)) return true;
  }
  if (weight) {
    for (const Wl0Entry& e : w.wl0) {
      if (Holds(e.transfer_ids, t)) return true;
    }
  }
  return false;
}

bool Reads(const Workload& w, int64_t t) {
  for (const Ifmap& f : w.ifmaps) {
    if (Holds(f.transfer_ids, t)) return true;
  }
  return w.weight && Holds(w.weight->transfer_ids, t);
}

// I-T6, I-T7, I-T8, I-T9 for one destination of transfer t.
void CheckDestination(const Context& ctx, const Destination& d, int64_t t,
                      std::optional<WorkloadRef> producer, bool weight, uint64_t offset,
                      const std::string& path) {
  if (d.type == DestinationType::kDram) return;
  const auto ref = ctx.index.FindWorkload(d.core_id, d.workload_id);
  if (!ref) {
    ctx.sink.Report(rules::kTransferDestination, LocationAt(offset, path),
                    Str("transfer ", t, " names destination workload ", d.workload_id, " of core ",
                        d.core_id, ", which does not exist"));
    return;
  }
  const Workload& w = ctx.index.At(*ref);
  const Core& core = ctx.index.CoreOf(*ref);
  if (d.layer != kNoLayer && d.layer != w.layer) {
    ctx.sink.Report(rules::kTransferDestination, LocationAt(offset, path + "/layer_name"),
                    Str("destination layer ", Quoted(ctx.ir.LayerName(d.layer)), " of transfer ", t,
                        " is not ", Name(ctx, core, w), "'s layer"));
    return;
  }
  if (!Delivered(w, t, weight)) {
    ctx.sink.Report(rules::kTransferDelivery, LocationAt(offset, path),
                    Str("transfer ", t, " is sent to ", Name(ctx, core, w),
                        " but its snapshot holds no tensor carrying it"));
    return;
  }
  if (!producer) return;  // the remaining checks are about ofmap transfers
  if (!Reads(w, t)) {
    ctx.sink.Report(
        rules::kTransferUnreadDestination, LocationAt(offset, path),
        Str("transfer ", t, " is sent to ", Name(ctx, core, w), ", which does not read it"));
  }
  const Workload& p = ctx.index.At(*producer);
  if (ctx.index.CoreOf(*producer).id == core.id && w.id <= p.id) {
    ctx.sink.Report(rules::kTransferCausality, LocationAt(offset, path),
                    Str("transfer ", t, " of workload ", p.id, " is sent to workload ", w.id,
                        ", which runs earlier on the same core"));
  }
}

void CheckDestinations(const Context& ctx) {
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      const Workload& w = core.workloads[i];
      for (size_t o = 0; o < w.ofmaps.size(); ++o) {
        const Ofmap& ofmap = w.ofmaps[o];
        const auto producer = ctx.index.FindWorkload(core.id, w.id);
        for (size_t d = 0; d < ofmap.destinations.size(); ++d) {
          CheckDestination(ctx, ofmap.destinations[d], ofmap.transfer_id, producer, false,
                           ofmap.offset,
                           Str(WorkloadPath(core, i), "/ofmap/", o, "/destination/", d));
        }
      }
    }
  }
  for (size_t o = 0; o < ctx.ir.dram_out.size(); ++o) {
    const DramOut& out = ctx.ir.dram_out[o];
    for (size_t d = 0; d < out.destinations.size(); ++d) {
      CheckDestination(ctx, out.destinations[d], out.transfer_id, std::nullopt,
                       out.type == OutType::kWeight, out.offset,
                       Str(DramOutPath(o), "/destination/", d));
    }
  }
}

// I-T11: a reload is read on the producer's core only after the store.
void CheckDramOrder(const Context& ctx) {
  for (size_t o = 0; o < ctx.ir.dram_out.size(); ++o) {
    const DramOut& out = ctx.ir.dram_out[o];
    for (int64_t id : out.related_ifmap) {
      const auto in = ctx.index.DramIn(id);
      if (!in) continue;
      const DramIn& store = ctx.ir.dram_in[*in];
      for (const Destination& d : out.destinations) {
        if (d.type != DestinationType::kCore || d.core_id != store.core_id ||
            d.workload_id > store.workload_id)
          continue;
        ctx.sink.Report(rules::kTransferDramOrder, LocationAt(out.offset, DramOutPath(o)),
                        Str("DRAM out ", out.transfer_id, " reloads store ", id, " of workload ",
                            store.workload_id, " but is read by workload ", d.workload_id,
                            " of the same core, which runs no later"));
      }
    }
  }
}

}  // namespace

void CheckTransfers(const Context& ctx) {
  const uint64_t before = ctx.sink.blocking_count();
  CheckUnique(ctx);
  // Everything below resolves ids through the index: only with unique ids.
  if (ctx.sink.blocking_count() != before) return;
  CheckDramIn(ctx);
  CheckRelated(ctx);
  CheckCoverage(ctx);
  CheckReads(ctx);
  CheckDestinations(ctx);
  CheckDramOrder(ctx);
}

}  // namespace accelcheck::gemini
