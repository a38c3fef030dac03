// The SET dialect's rules (rules.def section I), one function per rule.
#include "validators/gemini/validate_set.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "validators/core/phases.h"
#include "validators/core/text.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini::set {

namespace {

// Keeps coordinates far from overflow in volume arithmetic, as for the
// Gemini dialect (docs/formats/gemini.md §4).
constexpr int64_t kMaxCoordinate = int64_t{1} << 32;

struct WorkloadAt {
  const Core* core = nullptr;
  size_t index = 0;
  const Workload& workload() const { return core->workloads[index]; }
};

// Lookups the passes share.
class SetIndex {
 public:
  explicit SetIndex(const Ir& ir) {
    for (const Core& core : ir.cores) {
      for (size_t i = 0; i < core.workloads.size(); ++i) {
        workloads_.emplace(core.workloads[i].id, WorkloadAt{&core, i});
        for (const BufferEntry& e : core.workloads[i].buffer) {
          if (e.type != EntryType::kOfmap || !e.workload_id) continue;
          for (const Send& send : e.sends) {
            // The SET writer lists a block under both ofmap entries of a
            // snapshot at times (docs/formats/gemini.md "The SET dialect"):
            // every labelled producer is kept.
            std::vector<int64_t>& producers = producers_[send.transfer_id];
            if (std::find(producers.begin(), producers.end(), *e.workload_id) == producers.end()) {
              producers.push_back(*e.workload_id);
            }
          }
        }
      }
    }
    for (const Port& port : ir.ports) {
      for (const DramIn& in : port.in) ins_.emplace(in.transfer_id, &in);
      for (const DramOut& out : port.out) outs_.emplace(out.out.transfer_id, &out);
    }
  }

  const WorkloadAt* Workload(int64_t id) const { return Find(workloads_, id); }
  const std::vector<int64_t>* Producers(int64_t transfer_id) const {
    return Find(producers_, transfer_id);
  }
  const DramIn* In(int64_t transfer_id) const {
    const auto* in = Find(ins_, transfer_id);
    return in ? *in : nullptr;
  }
  const DramOut* Out(int64_t transfer_id) const {
    const auto* out = Find(outs_, transfer_id);
    return out ? *out : nullptr;
  }
  bool Produced(int64_t transfer_id) const {
    return Producers(transfer_id) != nullptr || Out(transfer_id) != nullptr;
  }

 private:
  template <typename Map>
  static const typename Map::mapped_type* Find(const Map& map, int64_t key) {
    const auto it = map.find(key);
    return it == map.end() ? nullptr : &it->second;
  }
  std::unordered_map<int64_t, WorkloadAt> workloads_;
  std::unordered_map<int64_t, std::vector<int64_t>> producers_;
  std::unordered_map<int64_t, const DramIn*> ins_;
  std::unordered_map<int64_t, const DramOut*> outs_;
};

struct Context {
  const Ir& ir;
  DiagnosticSink& sink;
  const SetIndex& index;
  const Frontend* frontend;  // null without one

  void Report(const Rule& rule, uint64_t offset, std::string path, std::string message) const {
    sink.Report(rule, LocationAt(offset, std::move(path)), std::move(message));
  }
};

// Calls visit(workload, path) for every workload in core and list order.
template <typename F>
void ForEachWorkload(const Ir& ir, F&& visit) {
  for (const Core& core : ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      visit(core, core.workloads[i], WorkloadPath(core, i));
    }
  }
}

// Calls visit(entry, path, workload, core) for every buffer entry.
template <typename F>
void ForEachEntry(const Ir& ir, F&& visit) {
  ForEachWorkload(ir, [&](const Core& core, const Workload& w, const std::string& path) {
    for (size_t e = 0; e < w.buffer.size(); ++e) {
      visit(w.buffer[e], Str(path, "/buffer/", e), w, core);
    }
  });
}

// ---- Structure ---------------------------------------------------------------

void CheckTopParams(const Context& ctx) {
  const struct {
    std::string_view key;
    int64_t value;
  } params[] = {
      {"top_batch_cut", ctx.ir.top_batch_cut}, {"xlen", ctx.ir.xlen}, {"ylen", ctx.ir.ylen}};
  for (const auto& p : params) {
    if (p.value >= 1) continue;
    ctx.Report(rules::kSetTop, ctx.ir.metadata_offset, Str("/metadata/", p.key),
               Str("metadata ", p.key, " is ", p.value, ", expected at least 1"));
  }
}

// Workload ids are one counter over all cores, emitted in ascending order on
// each core (docs/formats/gemini.md §3).
void CheckWorkloadIds(const Context& ctx) {
  std::unordered_map<int64_t, std::string> first;
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      const Workload& w = core.workloads[i];
      const std::string path = WorkloadPath(core, i);
      if (w.id < 0) {
        ctx.Report(rules::kSetWorkloadIds, w.offset, path,
                   Str("workload_id ", w.id, " is negative"));
        continue;
      }
      if (i > 0 && w.id <= core.workloads[i - 1].id) {
        ctx.Report(rules::kSetWorkloadIds, w.offset, path,
                   Str("workload_id ", w.id, " follows ", core.workloads[i - 1].id, " on core ",
                       core.id, ": ids increase along a core's list"));
      }
      const auto [it, inserted] = first.emplace(w.id, path);
      if (!inserted) {
        ctx.Report(rules::kSetWorkloadIds, w.offset, path,
                   Str("workload_id ", w.id, " is also the id of ", it->second,
                       ": ids are global over the cores in this dialect"));
      }
    }
  }
}

bool RangeOrdered(const Range& r) {
  for (int d = 0; d < 4; ++d) {
    if (r.lo[d] < 0 || r.lo[d] > r.hi[d] || r.hi[d] > kMaxCoordinate) return false;
  }
  return true;
}

void CheckRange(const Context& ctx, const Range& r, uint64_t offset, const std::string& path,
                std::string_view what) {
  if (RangeOrdered(r)) return;
  ctx.Report(rules::kRangeOrder, offset, path,
             Str(what, " ", RangeText(r), " has a negative coordinate, lower > upper, or a ",
                 "coordinate above 2^32"));
}

void CheckRanges(const Context& ctx) {
  ForEachWorkload(ctx.ir, [&](const Core&, const Workload& w, const std::string& path) {
    CheckRange(ctx, w.range, w.offset, Str(path, "/workload"), "workload range");
    CheckRange(ctx, w.ifmap_range, w.offset, Str(path, "/ifmap"), "ifmap range");
    if (w.weight) {
      CheckRange(ctx, w.weight->range, w.weight->offset, Str(path, "/weight"), "weight K bounds");
    }
    if (w.time < 0) {
      ctx.Report(rules::kWorkloadTime, w.offset, Str(path, "/time"),
                 Str("time is ", w.time, ", expected at least 0"));
    }
  });
  ForEachEntry(ctx.ir,
               [&](const BufferEntry& e, const std::string& path, const Workload&, const Core&) {
                 CheckRange(ctx, e.range, e.offset, path, "tensor range");
                 for (size_t s = 0; s < e.sources.size(); ++s) {
                   CheckRange(ctx, e.sources[s].range, e.sources[s].offset,
                              Str(path, "/source/", s), "source range");
                 }
                 for (size_t s = 0; s < e.sends.size(); ++s) {
                   CheckRange(ctx, e.sends[s].range, e.sends[s].offset,
                              Str(path, "/destinations/", s), "block range");
                 }
               });
  for (const Port& port : ctx.ir.ports) {
    for (size_t i = 0; i < port.in.size(); ++i) {
      CheckRange(ctx, port.in[i].range, port.in[i].offset, PortInPath(port, i), "DRAM in range");
    }
    for (size_t i = 0; i < port.out.size(); ++i) {
      CheckRange(ctx, port.out[i].out.range, port.out[i].out.offset, PortOutPath(port, i),
                 "DRAM out range");
    }
  }
}

void CheckStructure(const Context& ctx) {
  CheckTopParams(ctx);
  CheckWorkloadIds(ctx);
  CheckRanges(ctx);
}

// ---- Transfers ---------------------------------------------------------------

void RequireProduced(const Context& ctx, int64_t transfer_id, uint64_t offset,
                     const std::string& path, std::string_view reader) {
  if (ctx.index.Produced(transfer_id)) return;
  ctx.Report(rules::kSetTransferProduced, offset, path,
             Str(reader, " reads transfer_id ", transfer_id,
                 ", which no ofmap block and no DRAM out produces"));
}

void CheckProduced(const Context& ctx) {
  ForEachWorkload(ctx.ir, [&](const Core&, const Workload& w, const std::string& path) {
    for (int64_t t : w.ifmap_ids) RequireProduced(ctx, t, w.offset, Str(path, "/ifmap"), "ifmap");
    if (w.weight) {
      for (int64_t t : w.weight->transfer_ids) {
        RequireProduced(ctx, t, w.weight->offset, Str(path, "/weight"), "weight");
      }
    }
  });
  ForEachEntry(
      ctx.ir, [&](const BufferEntry& e, const std::string& path, const Workload&, const Core&) {
        for (int64_t t : e.transfer_ids) RequireProduced(ctx, t, e.offset, path, "tensor");
        for (size_t s = 0; s < e.sources.size(); ++s) {
          const Source& source = e.sources[s];
          const bool dram = source.type == SourceType::kDram;
          if (dram ? ctx.index.Out(source.transfer_id) != nullptr
                   : ctx.index.Producers(source.transfer_id) != nullptr) {
            continue;
          }
          ctx.Report(rules::kSetTransferProduced, source.offset, Str(path, "/source/", s),
                     Str(dram ? "DRAM" : "core", " source transfer_id ", source.transfer_id, " is ",
                         dram ? "no DRAM out's id" : "no ofmap block's id"));
        }
      });
}

// `workload_id` names a workload of core `core_id`; else the reason.
std::optional<std::string> WorkloadOnCore(const Context& ctx, int64_t core_id,
                                          int64_t workload_id) {
  const WorkloadAt* at = ctx.index.Workload(workload_id);
  if (at == nullptr) return Str("names workload ", workload_id, ", which no core runs");
  if (at->core->id != core_id) {
    return Str("names workload ", workload_id, " on core ", core_id, ", but core ", at->core->id,
               " runs it");
  }
  return std::nullopt;
}

void CheckDestinations(const Context& ctx) {
  for (const Port& port : ctx.ir.ports) {
    for (size_t i = 0; i < port.in.size(); ++i) {
      const DramIn& in = port.in[i];
      if (const auto why = WorkloadOnCore(ctx, in.core_id, in.workload_id)) {
        ctx.Report(rules::kSetTransferDestination, in.offset, PortInPath(port, i),
                   Str("DRAM in entry of transfer_id ", in.transfer_id, " ", *why));
      }
    }
    for (size_t i = 0; i < port.out.size(); ++i) {
      const gemini::DramOut& out = port.out[i].out;
      for (size_t d = 0; d < out.destinations.size(); ++d) {
        const Destination& dest = out.destinations[d];
        if (const auto why = WorkloadOnCore(ctx, dest.core_id, dest.workload_id)) {
          ctx.Report(rules::kSetTransferDestination, out.offset,
                     Str(PortOutPath(port, i), "/destination/", d),
                     Str("destination of DRAM out ", out.transfer_id, " ", *why));
        }
      }
    }
  }
  ForEachEntry(ctx.ir,
               [&](const BufferEntry& e, const std::string& path, const Workload&, const Core&) {
                 for (size_t s = 0; s < e.sends.size(); ++s) {
                   for (size_t t = 0; t < e.sends[s].targets.size(); ++t) {
                     const SendTarget& target = e.sends[s].targets[t];
                     const std::string at = Str(path, "/destinations/", s, "/destination/", t);
                     std::optional<std::string> why;
                     if (target.type == DestinationType::kDram) {
                       if (target.ports.empty())
                         why = "is a DRAM destination without a list of ports";
                     } else if (!target.ports.empty()) {
                       why = "is a core destination with a list of ports";
                     } else {
                       why = WorkloadOnCore(ctx, target.core_id, target.workload_id);
                     }
                     if (why) {
                       ctx.Report(rules::kSetTransferDestination, e.sends[s].offset, at,
                                  Str("destination of block ", e.sends[s].transfer_id, " ", *why));
                     }
                   }
                 }
               });
}

// "[0,1]".
std::string PortList(const std::vector<int64_t>& ports) {
  std::string text = "[";
  for (size_t i = 0; i < ports.size(); ++i) text += Str(i ? "," : "", ports[i]);
  return text + "]";
}

bool SameIn(const DramIn& a, const DramIn& b) {
  return a.core_id == b.core_id && a.workload_id == b.workload_id && a.range.lo == b.range.lo &&
         a.range.hi == b.range.hi && a.related_ofmap == b.related_ofmap;
}

bool SameOut(const DramOut& a, const DramOut& b) {
  const auto& x = a.out;
  const auto& y = b.out;
  return x.type == y.type && x.range.lo == y.range.lo && x.range.hi == y.range.hi &&
         x.size == y.size && x.related_ifmap == y.related_ifmap && a.priority == b.priority &&
         std::equal(x.destinations.begin(), x.destinations.end(), y.destinations.begin(),
                    y.destinations.end(), [](const Destination& d, const Destination& e) {
                      return d.core_id == e.core_id && d.workload_id == e.workload_id;
                    });
}

void CheckPorts(const Context& ctx) {
  const auto positioned = [&](int64_t id) {
    return std::any_of(ctx.ir.port_positions.begin(), ctx.ir.port_positions.end(),
                       [&](const PortPosition& p) { return p.id == id; });
  };
  std::unordered_map<int64_t, std::vector<int64_t>> in_ports;  // the ports listing each in id
  for (const Port& port : ctx.ir.ports) {
    if (!positioned(port.id)) {
      ctx.Report(rules::kSetDramPorts, port.offset, Str("/DRAM/", port.id),
                 Str("DRAM port ", port.id, " has no position in metadata.DRAM"));
    }
    for (size_t i = 0; i < port.in.size(); ++i) {
      const DramIn& in = port.in[i];
      in_ports[in.transfer_id].push_back(port.id);
      if (!SameIn(in, *ctx.index.In(in.transfer_id))) {
        ctx.Report(rules::kSetDramPorts, in.offset, PortInPath(port, i),
                   Str("DRAM in entry of transfer_id ", in.transfer_id,
                       " differs from its copy in another port"));
      }
    }
    for (size_t i = 0; i < port.out.size(); ++i) {
      const DramOut& out = port.out[i];
      const int64_t id = out.out.transfer_id;
      std::string why;
      if (!SameOut(out, *ctx.index.Out(id))) why = "differs from its copy in another port";
      if (ctx.index.In(id) != nullptr) why = "is also the id of a DRAM in entry";
      if (!why.empty()) {
        ctx.Report(rules::kSetDramPorts, out.out.offset, PortOutPath(port, i),
                   Str("DRAM out transfer_id ", id, " ", why));
      }
    }
  }
  // A block stored to DRAM is striped over the ports its destination names,
  // and each of those ports lists it (docs/formats/gemini.md "The SET dialect").
  ForEachEntry(
      ctx.ir, [&](const BufferEntry& e, const std::string& path, const Workload&, const Core&) {
        for (size_t s = 0; s < e.sends.size(); ++s) {
          for (const SendTarget& target : e.sends[s].targets) {
            if (target.type != DestinationType::kDram || target.ports.empty()) continue;
            std::vector<int64_t> want = target.ports;
            std::sort(want.begin(), want.end());
            const auto it = in_ports.find(e.sends[s].transfer_id);
            std::vector<int64_t> have = it == in_ports.end() ? std::vector<int64_t>{} : it->second;
            std::sort(have.begin(), have.end());
            if (want == have) continue;
            ctx.Report(rules::kSetDramPorts, e.sends[s].offset, Str(path, "/destinations/", s),
                       Str("block ", e.sends[s].transfer_id, " goes to DRAM ports ", PortList(want),
                           " but the in lists of ports ", have.empty() ? "none" : PortList(have),
                           " hold it"));
          }
        }
      });
}

bool Lists(const std::vector<int64_t>& ids, int64_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

void CheckRelated(const Context& ctx) {
  for (const Port& port : ctx.ir.ports) {
    for (size_t i = 0; i < port.in.size(); ++i) {
      const DramIn& in = port.in[i];
      for (int64_t o : in.related_ofmap) {
        const DramOut* out = ctx.index.Out(o);
        if (out != nullptr && Lists(out->out.related_ifmap, in.transfer_id)) continue;
        ctx.Report(rules::kSetRelated, in.offset, Str(PortInPath(port, i), "/related_ofmap"),
                   out == nullptr ? Str("related_ofmap names ", o, ", which is no DRAM out")
                                  : Str("DRAM out ", o, " does not list ", in.transfer_id,
                                        " in its related_ifmap"));
      }
    }
    for (size_t i = 0; i < port.out.size(); ++i) {
      const gemini::DramOut& out = port.out[i].out;
      for (int64_t t : out.related_ifmap) {
        const DramIn* in = ctx.index.In(t);
        if (in != nullptr && Lists(in->related_ofmap, out.transfer_id)) continue;
        ctx.Report(rules::kSetRelated, out.offset, Str(PortOutPath(port, i), "/related_ifmap"),
                   in == nullptr ? Str("related_ifmap names ", t, ", which is no DRAM in")
                                 : Str("DRAM in ", t, " does not list ", out.transfer_id,
                                       " in its related_ofmap"));
      }
    }
  }
}

void CheckTransfers(const Context& ctx) {
  CheckProduced(ctx);
  CheckDestinations(ctx);
  CheckPorts(ctx);
  CheckRelated(ctx);
}

// ---- I-D3: every dependency from a smaller to a larger id ---------------------

void ReportOrder(const Context& ctx, uint64_t offset, const std::string& path,
                 std::string message) {
  ctx.Report(rules::kSetTopologicalOrder, offset, path,
             Str(message, ": ids are a topological order in this dialect"));
}

// The latest workload whose store DRAM out `out` reloads.
int64_t LatestStore(const Context& ctx, const gemini::DramOut& out) {
  int64_t latest = -1;
  for (int64_t t : out.related_ifmap) {
    if (const DramIn* in = ctx.index.In(t)) latest = std::max(latest, in->workload_id);
  }
  return latest;
}

void CheckReadOrder(const Context& ctx, const Workload& w, int64_t t, uint64_t offset,
                    const std::string& path) {
  if (const auto* producers = ctx.index.Producers(t)) {
    for (int64_t p : *producers) {
      if (p >= w.id) {
        ReportOrder(ctx, offset, path,
                    Str("workload ", w.id, " reads transfer_id ", t, " of workload ", p));
      }
    }
  } else if (const DramOut* out = ctx.index.Out(t)) {
    const int64_t store = LatestStore(ctx, out->out);
    if (store >= w.id) {
      ReportOrder(
          ctx, offset, path,
          Str("workload ", w.id, " reloads transfer_id ", t, ", stored by workload ", store));
    }
  }
}

void CheckTopologicalOrder(const Context& ctx) {
  ForEachWorkload(ctx.ir, [&](const Core&, const Workload& w, const std::string& path) {
    for (int64_t t : w.ifmap_ids) CheckReadOrder(ctx, w, t, w.offset, Str(path, "/ifmap"));
    if (w.weight) {
      for (int64_t t : w.weight->transfer_ids) {
        CheckReadOrder(ctx, w, t, w.weight->offset, Str(path, "/weight"));
      }
    }
    // 0 says the ifmap waits for no workload (a network input).
    if (w.max_workload_id < 0 || (w.max_workload_id >= w.id && w.max_workload_id != 0)) {
      ReportOrder(ctx, w.offset, Str(path, "/ifmap/max_workload_id"),
                  Str("workload ", w.id, " waits for workload ", w.max_workload_id));
    }
    for (size_t e = 0; e < w.buffer.size(); ++e) {
      const BufferEntry& entry = w.buffer[e];
      if (entry.type != EntryType::kOfmap || !entry.workload_id) continue;
      for (size_t s = 0; s < entry.sends.size(); ++s) {
        for (const SendTarget& target : entry.sends[s].targets) {
          if (target.type != DestinationType::kCore || target.workload_id > *entry.workload_id) {
            continue;
          }
          ReportOrder(ctx, entry.sends[s].offset, Str(path, "/buffer/", e, "/destinations/", s),
                      Str("workload ", *entry.workload_id, " sends block ",
                          entry.sends[s].transfer_id, " to workload ", target.workload_id));
        }
      }
    }
  });
  for (const Port& port : ctx.ir.ports) {
    for (size_t i = 0; i < port.out.size(); ++i) {
      const gemini::DramOut& out = port.out[i].out;
      const int64_t store = LatestStore(ctx, out);
      for (const Destination& dest : out.destinations) {
        if (dest.workload_id > store) continue;
        ReportOrder(ctx, out.offset, PortOutPath(port, i),
                    Str("DRAM out ", out.transfer_id, " goes to workload ", dest.workload_id,
                        " but reloads the store of workload ", store));
      }
    }
  }
}

// ---- With the frontend IR (docs/formats/gemini.md "The SET dialect") --------

// The layer_type a frontend operation runs as; nullopt for operations the
// dialect's five types do not name.
std::optional<LayerType> LayerTypeOf(Op op) {
  switch (op) {
    case Op::kConv2d:
      return LayerType::kConv2d;
    case Op::kDense:
      return LayerType::kFc;
    case Op::kMaxPool:
    case Op::kAvgPool:
      return LayerType::kPool;
    case Op::kAdd:
      return LayerType::kElementWise;
    case Op::kQuantize:
    case Op::kOther:
      return std::nullopt;
  }
  return std::nullopt;
}

// I-S5: the layer exists, and its layer_type is the frontend operation's.
bool CheckLayer(const Context& ctx, const Workload& w, const FrontendLayer* layer,
                const std::string& path) {
  const std::string& name = ctx.ir.LayerName(w.layer);
  if (layer == nullptr) {
    ctx.Report(rules::kFrontendLayer, w.offset, Str(path, "/layer_name"),
               Str("layer ", Quoted(name), " of workload ", w.id, " is not in the frontend IR"));
    return false;
  }
  const std::optional<LayerType> expected = LayerTypeOf(layer->op);
  if (expected && *expected != w.type) {
    ctx.Report(
        rules::kFrontendLayerType, w.offset, Str(path, "/layer_type"),
        Str("layer ", Quoted(name), " has operation ", Quoted(layer->operation), " but layer_type ",
            LayerTypeName(w.type), "; expected ", LayerTypeName(*expected)));
  }
  return true;
}

// I-W6: the workload lies inside its layer's output shape.
bool CheckShape(const Context& ctx, const Workload& w, const FrontendLayer& layer,
                const std::string& path) {
  for (int d = 0; d < 4; ++d) {
    if (w.range.hi[d] < layer.output_shape[d]) continue;
    ctx.Report(rules::kWorkloadShape, w.offset, Str(path, "/workload"),
               Str("workload ", RangeText(w.range), " exceeds layer ", Quoted(layer.name),
                   " output shape [", layer.output_shape[0], ",", layer.output_shape[1], ",",
                   layer.output_shape[2], ",", layer.output_shape[3], "] in dimension ", d));
    return false;
  }
  return true;
}

// I-W4 for a whole workload: its ifmap bounds hold every input element its
// ofmap bounds need.
void CheckReceptiveField(const Context& ctx, const Workload& w, const FrontendLayer& layer,
                         const std::string& path) {
  const std::optional<InputWindow> window = TileInputWindow(layer, w.range);
  if (!window || Contains(w.ifmap_range, window->ifmap)) return;
  ctx.Report(rules::kSetReceptiveField, w.offset, Str(path, "/ifmap"),
             Str("ifmap ", RangeText(w.ifmap_range), " of workload ", RangeText(w.range),
                 " does not hold its receptive field ", RangeText(window->ifmap), " (",
                 layer.operation, " kernel ", layer.kernel[0], "x", layer.kernel[1], ", stride ",
                 layer.stride[0], ", padding ", layer.padding[0], "/", layer.padding[1], ")"));
}

void CheckAgainstFrontend(const Context& ctx) {
  if (ctx.frontend == nullptr) return;
  ForEachWorkload(ctx.ir, [&](const Core&, const Workload& w, const std::string& path) {
    const FrontendLayer* layer = ctx.frontend->Find(ctx.ir.LayerName(w.layer));
    if (!CheckLayer(ctx, w, layer, path)) return;
    // An unordered range has its error from CheckRanges, in this group; its
    // coordinates may lie near -2^63, where the receptive field overflows.
    if (!RangeOrdered(w.range) || !CheckShape(ctx, w, *layer, path)) return;
    CheckReceptiveField(ctx, w, *layer, path);
  });
}

// ---- Buffers -------------------------------------------------------------------

bool InRing(const BufferEntry& e) {
  return e.address >= 0 && e.address < kRingBlocks && e.blocks >= 1 && e.blocks <= kRingBlocks;
}

// The allocator's modular validity (docs/formats/gemini.md §3): sorted by
// address, each tensor ends at or before the next begins, the last one
// wrapping around to the first.
void CheckSnapshotRing(const Context& ctx, const Workload& w, const std::string& path) {
  std::vector<size_t> placed;
  for (size_t e = 0; e < w.buffer.size(); ++e) {
    const BufferEntry& entry = w.buffer[e];
    if (!InRing(entry)) {
      ctx.Report(rules::kSetRing, entry.offset, Str(path, "/buffer/", e),
                 Str("blocks [", entry.address, ", +", entry.blocks, ") do not lie in the ring of ",
                     kRingBlocks, " blocks"));
      continue;
    }
    placed.push_back(e);
  }
  std::sort(placed.begin(), placed.end(), [&](size_t a, size_t b) {
    return w.buffer[a].address != w.buffer[b].address ? w.buffer[a].address < w.buffer[b].address
                                                      : a < b;
  });
  placed.erase(
      std::unique(placed.begin(), placed.end(),
                  [&](size_t a, size_t b) { return SameTensor(w.buffer[a], w.buffer[b]); }),
      placed.end());
  for (size_t i = 0; i < placed.size() && placed.size() > 1; ++i) {
    const BufferEntry& a = w.buffer[placed[i]];
    const size_t next = placed[(i + 1) % placed.size()];
    const BufferEntry& b = w.buffer[next];
    const int64_t gap = ((b.address - a.address) % kRingBlocks + kRingBlocks) % kRingBlocks;
    if (gap >= a.blocks) continue;
    ctx.Report(rules::kSetRing, b.offset, Str(path, "/buffer/", next),
               Str("blocks [", b.address, ", +", b.blocks, ") overlap blocks [", a.address, ", +",
                   a.blocks, ") of ", path, "/buffer/", placed[i], " in the ring of ", kRingBlocks,
                   " blocks"));
  }
}

void CheckRing(const Context& ctx) {
  ForEachWorkload(ctx.ir, [&](const Core&, const Workload& w, const std::string& path) {
    CheckSnapshotRing(ctx, w, path);
  });
}

// The size in bits a tensor's blocks hold, or nullopt when it overflows.
std::optional<int64_t> EntryBits(const BufferEntry& e) {
  if (e.type == EntryType::kOfmap) return e.size;
  if (e.type == EntryType::kWeight) {
    int64_t bits = 0;
    for (const Source& s : e.sources) bits = SaturatingAdd(bits, s.size);
    return bits;
  }
  const std::optional<int64_t> volume = Volume(e.range);
  int64_t bits;
  if (!volume || __builtin_mul_overflow(*volume, 8, &bits)) return std::nullopt;
  return bits;
}

void CheckBlocks(const Context& ctx) {
  ForEachEntry(ctx.ir, [&](const BufferEntry& e, const std::string& path, const Workload&,
                           const Core&) {
    const std::optional<int64_t> bits = EntryBits(e);
    if (!bits || *bits < 0 || *bits == INT64_MAX) {
      ctx.Report(rules::kSetBlocks, e.offset, path, "the tensor's size in bits is out of range");
      return;
    }
    const int64_t want = *bits / kBitsPerBlock + (*bits % kBitsPerBlock != 0);
    if (e.blocks == want) return;
    ctx.Report(rules::kSetBlocks, e.offset, Str(path, "/block"),
               Str("block is ", e.blocks, " but ", *bits, " bits take ", want, " blocks of ",
                   kBitsPerBlock, " bits"));
  });
}

void CheckOutPriority(const Context& ctx) {
  for (const Port& port : ctx.ir.ports) {
    for (size_t i = 0; i < port.out.size(); ++i) {
      const DramOut& out = port.out[i];
      if (out.out.destinations.empty()) continue;
      int64_t first = INT64_MAX;
      for (const Destination& d : out.out.destinations) first = std::min(first, d.workload_id);
      if (out.priority == first) continue;
      ctx.Report(
          rules::kSetPriority, out.out.offset, Str(PortOutPath(port, i), "/priority"),
          Str("priority is ", out.priority, " but the first destination is workload ", first));
    }
  }
}

// A tensor loaded only from DRAM queues at the smallest priority of its
// DRAM outs; others carry none.
void CheckEntryPriority(const Context& ctx) {
  ForEachEntry(ctx.ir, [&](const BufferEntry& e, const std::string& path, const Workload&,
                           const Core&) {
    if (e.type == EntryType::kOfmap) return;
    const bool from_dram = !e.sources.empty() &&
                           std::all_of(e.sources.begin(), e.sources.end(),
                                       [](const Source& s) { return s.type == SourceType::kDram; });
    std::optional<int64_t> want;
    if (from_dram) {
      int64_t first = INT64_MAX;
      for (const Source& s : e.sources) {
        if (const DramOut* out = ctx.index.Out(s.transfer_id)) {
          first = std::min(first, out->priority);
        }
      }
      want = first;
    }
    if (e.priority == want) return;
    ctx.Report(rules::kSetPriority, e.offset, Str(path, "/priority"),
               !want ? "a tensor with sources on cores has a priority"
               : !e.priority
                   ? Str("a tensor loaded only from DRAM has no priority; expected ", *want)
                   : Str("priority is ", *e.priority, " but its DRAM sources' first is ", *want));
  });
}

// start_loading marks a tensor's first snapshot on its core; an ifmap's
// end_loading holds from its consumer's snapshot on, a weight's only at
// its first (docs/formats/gemini.md "The SET dialect").
void CheckLoading(const Context& ctx) {
  for (const Core& core : ctx.ir.cores) {
    std::multimap<int64_t, const BufferEntry*> seen_at;  // by address
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      const Workload& w = core.workloads[i];
      for (size_t e = 0; e < w.buffer.size(); ++e) {
        const BufferEntry& entry = w.buffer[e];
        if (entry.type == EntryType::kOfmap) continue;
        const std::string path = Str(WorkloadPath(core, i), "/buffer/", e);
        const auto [from, to] = seen_at.equal_range(entry.address);
        const bool first = std::none_of(
            from, to, [&](const auto& item) { return SameTensor(*item.second, entry); });
        if (entry.start_loading != first) {
          ctx.Report(
              rules::kSetLoading, entry.offset, Str(path, "/start_loading"),
              Str("start_loading is ", entry.start_loading ? "true" : "false", " but the tensor ",
                  first ? "is new" : "was in an earlier snapshot", " on core ", core.id));
        }
        const bool loaded = entry.type == EntryType::kWeight
                                ? first
                                : entry.workload_id && w.id >= *entry.workload_id;
        if (entry.end_loading != loaded) {
          ctx.Report(rules::kSetLoading, entry.offset, Str(path, "/end_loading"),
                     Str("end_loading is ", entry.end_loading ? "true" : "false", " at workload ",
                         w.id, " for ",
                         entry.type == EntryType::kWeight
                             ? Str("a weight ", first ? "at" : "after", " its first snapshot")
                             : Str("an ifmap of workload ", entry.workload_id.value_or(-1))));
        }
        if (first) seen_at.emplace(entry.address, &entry);
      }
    }
  }
}

// An ofmap entry appears first at its producer's snapshot. Sent at once
// (start_sending), that is its only snapshot; otherwise it stays for the
// core's next workload, which the store overlaps, and ends there.
void CheckSending(const Context& ctx) {
  for (const Core& core : ctx.ir.cores) {
    struct Appearance {
      size_t index;
      size_t entry;
    };
    std::map<int64_t, std::vector<Appearance>> by_producer;
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      const std::vector<BufferEntry>& buffer = core.workloads[i].buffer;
      for (size_t e = 0; e < buffer.size(); ++e) {
        if (buffer[e].type == EntryType::kOfmap && buffer[e].workload_id) {
          by_producer[*buffer[e].workload_id].push_back({i, e});
        }
      }
    }
    for (const auto& [producer, appearances] : by_producer) {
      const Appearance& head = appearances.front();
      const BufferEntry& first = core.workloads[head.index].buffer[head.entry];
      const std::string path = Str(WorkloadPath(core, head.index), "/buffer/", head.entry);
      std::optional<std::string> why;
      if (core.workloads[head.index].id != producer) {
        why = Str("first appears at workload ", core.workloads[head.index].id);
      } else if (first.start_sending) {
        if (appearances.size() != 1 || !first.end_sending) {
          why = "is sent at once (start_sending) but is not one snapshot ending its send";
        }
      } else {
        const bool held = appearances.size() == 2 && appearances[1].index == head.index + 1;
        const BufferEntry* last =
            held ? &core.workloads[head.index + 1].buffer[appearances[1].entry] : nullptr;
        if (!held || first.end_sending || last->start_sending || !last->end_sending) {
          why =
              "is not sent at once but is not held to the core's next workload, where it ends "
              "its send (end_sending)";
        }
      }
      if (why) {
        ctx.Report(rules::kSetSending, first.offset, path,
                   Str("the ofmap entry of workload ", producer, " ", *why));
      }
    }
  }
}

void CheckBuffers(const Context& ctx) {
  CheckRing(ctx);
  CheckBlocks(ctx);
  CheckOutPriority(ctx);
  CheckEntryPriority(ctx);
  CheckLoading(ctx);
  CheckSending(ctx);
}

}  // namespace

void ValidateSetIr(const Ir& ir, const Frontend* frontend, const ValidateContext& context,
                   DiagnosticSink& sink) {
  const SetIndex index(ir);
  const Context ctx{ir, sink, index, frontend};
  using Pass = void (*)(const Context&);
  static constexpr Pass kStructure[] = {CheckStructure, CheckAgainstFrontend};
  static constexpr Pass kTransfers[] = {CheckTransfers};
  static constexpr Pass kSchedule[] = {CheckTopologicalOrder, CheckBuffers};
  static constexpr PassGroup<Context> kGroups[] = {kStructure, kTransfers, kSchedule};
  RunPassGroups<Context>(kGroups, ctx, context, sink);
}

}  // namespace accelcheck::gemini::set
