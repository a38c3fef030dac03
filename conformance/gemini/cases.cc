#include "conformance/gemini/cases.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "conformance/gemini/generate.h"
#include "validators/core/json_exception.h"
#include "validators/core/text.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/frontend.h"
#include "validators/gemini/rules.h"

namespace accelcheck::gemini {

namespace {

namespace ac = accelcheck::conformance;
using nlohmann::json;

// One rule's change: on the parsed base, or on its text (for rules about
// the JSON text itself), reported at the JSON pointer `path`; or on the
// frontend IR, which is then the file validated and `frontend_change` gives
// the pointer; or, for the check that needs the frontend, leaving it out.
struct Change {
  const Rule* rule;
  std::string path;
  bool with_frontend = false;
  std::function<void(json&)> change;
  std::function<void(std::string&)> text_change;
  std::vector<const Rule*> also;  // rules that break together with it
  std::function<std::string(json&)> frontend_change = nullptr;
  bool without_frontend = false;
  // A change of the IR that finds its place (the first object it can edit)
  // and returns the JSON pointer to report, instead of `change` and `path`.
  std::function<std::string(json&)> placed = nullptr;
};

GenerateOptions BaseOptions() {
  GenerateOptions o;
  o.layers = 2;
  o.mesh_x = 2;
  o.height = 8;
  o.width = 4;
  o.channels = 8;
  o.tiles = 2;
  o.buffer = 65536;
  return o;
}

// Workload `i` of `core`; throws when the IR has no such workload, so that
// the change declines rather than adds one.
json& W(json& ir, const char* core, int i) { return ir.at(core).at(static_cast<size_t>(i)); }

// Renames workload `from` of `core` to `to`, in its list and wherever a
// destination or DRAM in entry names it.
void RenumberWorkload(json& ir, int core, int from, int to) {
  const auto visit = [&](auto& self, json& v) -> void {
    if (v.is_object()) {
      if (v.contains("core_id") && v.contains("workload_id") && v["core_id"] == core &&
          v["workload_id"] == from) {
        v["workload_id"] = to;
      }
      for (auto& [key, child] : v.items()) self(self, child);
    } else if (v.is_array()) {
      for (json& child : v) self(self, child);
    }
  };
  for (json& w : ir.at(std::to_string(core))) {
    if (w["workload_id"] == from) w["workload_id"] = to;
  }
  visit(visit, ir.at("-1"));
  for (auto& [key, value] : ir.items()) {
    if (value.is_array()) visit(visit, value);
  }
}

// The IR's core keys in numeric order.
std::vector<std::string> CoreKeys(const json& ir) {
  std::vector<std::pair<int64_t, std::string>> cores;
  for (const auto& [key, value] : ir.items()) {
    if (!key.empty() &&
        std::all_of(key.begin(), key.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) &&
        key.size() < 10) {
      cores.emplace_back(std::stoll(key), key);
    }
  }
  std::sort(cores.begin(), cores.end());
  std::vector<std::string> keys;
  for (auto& [id, key] : cores) keys.push_back(std::move(key));
  return keys;
}

// A workload and its JSON pointer "/<core>/<index>".
struct Placed {
  json* workload;
  std::string path;
};

// The first workload, in core and list order, that `pick` takes; throws when
// none does, so that the change declines.
Placed FirstWorkload(json& ir, const std::function<bool(const json&)>& pick) {
  for (const std::string& core : CoreKeys(ir)) {
    json& list = ir.at(core);
    for (size_t i = 0; i < list.size(); ++i) {
      if (pick(list[i])) return {&list[i], Str("/", core, "/", i)};
    }
  }
  throw std::invalid_argument("no workload of the kind the change edits");
}

// The key of a workload's WL0 snapshot: either dialect's (I-S3).
std::string WlKey(const json& w) { return w.contains("wl1_buffer") ? "wl1_buffer" : "wl0_buffer"; }

// A workload's WL0 snapshot, empty when null.
json WlBuffer(const json& w) {
  const json& wl0 = w.at(WlKey(w));
  return wl0.is_array() ? wl0 : json::array();
}

// A tile of a placed workload and its pointer.
struct PlacedTile {
  json* tile;
  std::string path;
};

// The first tile, in workload and tile order, that `pick` takes.
PlacedTile FirstTile(json& ir, const std::function<bool(const json&)>& pick) {
  std::string key;
  const Placed at = FirstWorkload(ir, [&](const json& w) {
    const json& tiles = w.at("tile_info");
    for (size_t t = 0; tiles.contains(Str("tile_num_", t)); ++t) {
      if (pick(tiles.at(Str("tile_num_", t)))) {
        key = Str("tile_num_", t);
        return true;
      }
    }
    return false;
  });
  return {&(*at.workload)["tile_info"][key], Str(at.path, "/tile_info/", key)};
}

// A tile whose ifmap starts at row 0 with padding above, and spans rows.
bool PaddedAbove(const json& tile) {
  return tile.at("tile_padding_tblr").at(0).get<int64_t>() > 0 &&
         tile.at("ifmap_lower").at(2).get<int64_t>() == 0 &&
         tile.at("ifmap_upper").at(2).get<int64_t>() > 0;
}

// The first tile padded above has its window start one row lower, where
// the padding no longer fits.
std::string StartPaddedWindowLower(json& ir) {
  const PlacedTile at = FirstTile(ir, PaddedAbove);
  (*at.tile)["ifmap_lower"][2] = 1;
  return at.path;
}

// Sets `key` of L2 tensor `tensor_id` of `core` to `value` in every snapshot
// from workload `from` on that holds it: a tensor keeps its address, size
// and order while it stays (I-B4).
void SetTensorField(json& ir, const std::string& core, const json& tensor_id,
                    const std::string& key, const json& value, size_t from = 0) {
  json& list = ir.at(core);
  for (size_t i = from; i < list.size(); ++i) {
    for (json& entry : list[i].at("buffer")) {
      if (entry.at("tensor_id") == tensor_id) entry[key] = value;
    }
  }
}

// Moves L2 tensor `tensor_id` of `core` to `address` in every snapshot that
// holds it, so that it keeps one address (I-B4).
void MoveTensor(json& ir, const std::string& core, const json& tensor_id, int64_t address) {
  SetTensorField(ir, core, tensor_id, "address", address);
}

// "/<core>/<i>/buffer/<e>": entry `e` of workload `i`'s L2 snapshot.
std::string EntryPointer(const std::string& core, size_t i, size_t e) {
  return Str("/", core, "/", i, "/buffer/", e);
}

// One L2 tensor of a core: its id and the (workload, entry) positions of the
// snapshots holding it, in order.
struct Tensor {
  std::string core;
  json id;
  std::vector<std::pair<size_t, size_t>> holders;
};

// The IR's tensors in the order they first appear (core, workload, entry).
std::vector<Tensor> Tensors(const json& ir) {
  std::vector<Tensor> tensors;
  for (const std::string& core : CoreKeys(ir)) {
    std::map<std::string, size_t> index;  // tensor_id as text -> tensors[]
    const json& list = ir.at(core);
    for (size_t i = 0; i < list.size(); ++i) {
      const json& buffer = list[i].at("buffer");
      for (size_t e = 0; e < buffer.size(); ++e) {
        const json& id = buffer[e].at("tensor_id");
        const auto [it, inserted] = index.emplace(id.dump(), tensors.size());
        if (inserted) tensors.push_back({core, id, {}});
        tensors[it->second].holders.emplace_back(i, e);
      }
    }
  }
  return tensors;
}

const json& EntryOf(const json& ir, const Tensor& t, size_t holder) {
  const auto [i, e] = t.holders.at(holder);
  return ir.at(t.core).at(i).at("buffer").at(e);
}

int64_t Int(const json& v) { return v.get<int64_t>(); }

// A ring region [start, end) of a snapshot's ring_buffer_info (I-B1).
struct Ring {
  int64_t start = 0, end = 0;
  bool operator==(const Ring&) const = default;
};

// The region of workload `w`'s snapshot holding `address`, or nothing.
std::optional<Ring> RingOf(const json& w, int64_t address) {
  for (const json& region : w.at("ring_buffer_info")) {
    const Ring ring{Int(region.at(0)), Int(region.at(1))};
    if (address >= ring.start && address < ring.end) return ring;
  }
  return std::nullopt;
}

// Whether bytes [a, a + size) and [b, b + other) meet on a ring of `height`
// bytes, where a tensor may wrap around the end (I-B2).
bool MeetOnRing(int64_t a, int64_t size, int64_t b, int64_t other, int64_t height) {
  const auto mod = [height](int64_t x) { return ((x % height) + height) % height; };
  return mod(b - a) < size || mod(a - b) < other;
}

// Whether tensor `t` fits at `address` in the snapshots of workloads `from`
// on that hold it, in the ring of its address there, beside the other
// tensors of that ring; `wrap` lets it run past the ring end.
bool FitsAt(const json& ir, const Tensor& t, int64_t address, size_t from, bool wrap) {
  for (size_t h = 0; h < t.holders.size(); ++h) {
    const auto [i, e] = t.holders[h];
    if (i < from) continue;
    const json& w = ir.at(t.core).at(i);
    const json& entry = EntryOf(ir, t, h);
    const int64_t size = Int(entry.at("size"));
    const std::optional<Ring> ring = RingOf(w, Int(entry.at("address")));
    if (!ring || RingOf(w, address) != ring) return false;
    if (size > ring->end - ring->start || (!wrap && address + size > ring->end)) return false;
    const json& buffer = w.at("buffer");
    for (size_t k = 0; k < buffer.size(); ++k) {
      const int64_t b = Int(buffer[k].at("address"));
      if (k == e || RingOf(w, b) != ring) continue;
      if (MeetOnRing(address - ring->start, size, b - ring->start, Int(buffer[k].at("size")),
                     ring->end - ring->start))
        return false;
    }
  }
  return true;
}

// The first tensor `pick` takes; throws when none does, so that the change
// declines.
const Tensor& FirstTensor(const std::vector<Tensor>& tensors,
                          const std::function<bool(const Tensor&)>& pick) {
  for (const Tensor& t : tensors) {
    if (pick(t)) return t;
  }
  throw std::invalid_argument("no L2 tensor of the kind the change edits");
}

// The index of the first element of `list` that `pick` takes, or nothing.
std::optional<size_t> FirstIndex(const json& list, const std::function<bool(const json&)>& pick) {
  if (!list.is_array()) return std::nullopt;
  for (size_t i = 0; i < list.size(); ++i) {
    if (pick(list[i])) return i;
  }
  return std::nullopt;
}

// Whether an L2 entry lists transfer `t`.
bool Carries(const json& entry, int64_t t) {
  if (!entry.contains("transfer_id")) return false;  // a store entry (§2.3)
  const json& ids = entry.at("transfer_id");
  return ids.is_array() && std::find(ids.begin(), ids.end(), json(t)) != ids.end();
}

// Whether workload `w` reads transfer `t` in one of its ifmaps.
bool Reads(const json& w, int64_t t) {
  return FirstIndex(w.at("ifmap"), [t](const json& f) { return Carries(f, t); }).has_value();
}

// A tensor filled from cores only is no DRAM-queue item: it carries the
// sentinel order, not one of 0..n-1 (I-B9).
bool CoreFed(const json& entry) {
  if (!entry.contains("tensor_order") || entry.at("tensor_order").is_null()) return false;
  if (!entry.contains("source") || entry.at("type") == "ofmap") return false;
  const json& sources = entry.at("source");
  return sources.is_array() && !sources.empty() &&
         std::all_of(sources.begin(), sources.end(),
                     [](const json& source) { return source.at("type") == "core"; });
}

// The first core-fed tensor takes order 0, the first DRAM-queue item's, in
// every snapshot that holds it (I-B9).
std::string OrderCoreFedTensorFirst(json& ir) {
  const std::vector<Tensor> tensors = Tensors(ir);
  const Tensor& t =
      FirstTensor(tensors, [&](const Tensor& tensor) { return CoreFed(EntryOf(ir, tensor, 0)); });
  SetTensorField(ir, t.core, t.id, "tensor_order", 0);
  return EntryPointer(t.core, t.holders[0].first, t.holders[0].second) + "/tensor_order";
}

// The first tensor that can start 8 bytes before its ring end without
// meeting another tensor, modulo the ring, moves there and wraps (I-B2).
std::string WrapTensorAroundRingEnd(json& ir) {
  const std::vector<Tensor> tensors = Tensors(ir);
  int64_t target = 0;
  const Tensor& t = FirstTensor(tensors, [&](const Tensor& tensor) {
    const json& first = EntryOf(ir, tensor, 0);
    const std::optional<Ring> ring =
        RingOf(ir.at(tensor.core).at(tensor.holders[0].first), Int(first.at("address")));
    if (!ring || Int(first.at("size")) <= 8) return false;
    target = ring->end - 8;
    return FitsAt(ir, tensor, target, 0, true);
  });
  MoveTensor(ir, t.core, t.id, target);
  return EntryPointer(t.core, t.holders[0].first, t.holders[0].second);
}

// A ring region of a snapshot cut to end 8 bytes past its highest tensor
// start, so that every tensor still starts inside it.
struct ShrunkRing {
  int64_t start = 0, end = 0;
  std::optional<size_t> too_large;  // the first entry larger than the region
  bool wraps = false;               // an entry that fits runs past the end
  int64_t fitting = 0;              // the bytes of the entries that fit
};

// The first region, in core, workload and region order, that `breaks` takes
// once cut, cut; the pointer to its snapshot. Throws when none is taken.
std::string ShrinkFirstRing(json& ir, const std::function<bool(const ShrunkRing&)>& breaks) {
  for (const std::string& core : CoreKeys(ir)) {
    json& list = ir.at(core);
    for (size_t i = 0; i < list.size(); ++i) {
      const json& buffer = list[i].at("buffer");
      for (json& region : list[i].at("ring_buffer_info")) {
        ShrunkRing cut;
        cut.start = Int(region.at(0));
        cut.end = -1;
        const auto inside = [&](const json& e) {
          return Int(e.at("address")) >= cut.start && Int(e.at("address")) < Int(region.at(1));
        };
        for (const json& e : buffer)
          if (inside(e)) cut.end = std::max(cut.end, Int(e.at("address")) + 8);
        if (cut.end < 0) continue;
        for (size_t e = 0; e < buffer.size(); ++e) {
          if (!inside(buffer[e])) continue;
          const int64_t size = Int(buffer[e].at("size"));
          if (size > cut.end - cut.start) {
            if (!cut.too_large) cut.too_large = e;
            continue;
          }
          cut.fitting += size;
          if (Int(buffer[e].at("address")) + size > cut.end) cut.wraps = true;
        }
        if (!breaks(cut)) continue;
        region.at(1) = cut.end;
        return cut.too_large ? EntryPointer(core, i, *cut.too_large) + "/size"
                             : Str("/", core, "/", i, "/buffer");
      }
    }
  }
  throw std::invalid_argument("no ring region that can shrink below its tensors");
}

// A ring cut below one of its tensors, the others still inside it (I-B3);
// else, where the schedule has no such ring, one cut below the bytes of its
// tensors together, some of which then wrap (I-B2).
std::string ShrinkRingBelowItsTensors(json& ir) {
  try {
    json cut = ir;
    const std::string path =
        ShrinkFirstRing(cut, [](const ShrunkRing& r) { return r.too_large && !r.wraps; });
    ir = std::move(cut);
    return path;
  } catch (const std::invalid_argument&) {
    return ShrinkFirstRing(ir, [](const ShrunkRing& r) { return r.fitting > r.end - r.start; });
  }
}

// A free 8-byte aligned address for tensor `t` in the snapshots of workloads
// `from` on, other than its own: its ring's start or the end of another
// tensor there.
std::optional<int64_t> FreeAddress(const json& ir, const Tensor& t, size_t from) {
  const int64_t own = Int(EntryOf(ir, t, 0).at("address"));
  std::vector<int64_t> candidates;
  for (const auto& [i, e] : t.holders) {
    if (i < from) continue;
    const json& w = ir.at(t.core).at(i);
    if (const auto ring = RingOf(w, own)) candidates.push_back(ring->start);
    for (const json& other : w.at("buffer")) {
      const int64_t end = Int(other.at("address")) + Int(other.at("size"));
      candidates.push_back((end + 7) / 8 * 8);
    }
  }
  for (const int64_t address : candidates) {
    if (address != own && FitsAt(ir, t, address, from, false)) return address;
  }
  return std::nullopt;
}

// The first tensor that stays from one snapshot to the next moves, from
// that next snapshot on, to free bytes: one tensor_id, two addresses (I-B4).
std::string MoveTensorWhileItStays(json& ir) {
  const std::vector<Tensor> tensors = Tensors(ir);
  size_t from = 0, entry = 0;
  int64_t target = 0;
  const Tensor& t = FirstTensor(tensors, [&](const Tensor& tensor) {
    for (size_t h = 1; h < tensor.holders.size(); ++h) {
      if (tensor.holders[h].first != tensor.holders[h - 1].first + 1) continue;
      std::tie(from, entry) = tensor.holders[h];
      const std::optional<int64_t> free = FreeAddress(ir, tensor, from);
      if (free) target = *free;
      return free.has_value();
    }
    return false;
  });
  SetTensorField(ir, t.core, t.id, "address", target, from);
  return EntryPointer(t.core, from, entry);
}

// Whether an L2 entry is an item of the DRAM queue, numbered by
// tensor_order: a store, or a tensor filled from DRAM only (I-B9).
bool DramQueueItem(const json& entry) {
  if (!entry.contains("tensor_order") || entry.at("tensor_order").is_null()) return false;
  if (entry.at("type") == "ofmap") return true;
  const json& sources = entry.contains("source") ? entry.at("source") : json();
  return sources.is_array() && !sources.empty() &&
         std::all_of(sources.begin(), sources.end(),
                     [](const json& source) { return source.at("type") == "DRAM"; });
}

// A tensor that stays moves (above); where none can, a tensor of a single
// snapshot, not in the DRAM queue, takes the id of that snapshot's first
// tensor: the id repeats, and no other snapshot or queue item notices (I-B4).
std::string RepeatOrMoveTensorId(json& ir) {
  try {
    return MoveTensorWhileItStays(ir);
  } catch (const std::invalid_argument&) {
  }
  const std::vector<Tensor> tensors = Tensors(ir);
  const Tensor& t = FirstTensor(tensors, [&](const Tensor& tensor) {
    return tensor.holders.size() == 1 && tensor.holders[0].second > 0 &&
           !DramQueueItem(EntryOf(ir, tensor, 0));
  });
  const auto [i, e] = t.holders[0];
  json& buffer = ir.at(t.core).at(i).at("buffer");
  buffer.at(e)["tensor_id"] = buffer.at(0).at("tensor_id");
  return EntryPointer(t.core, i, e) + "/tensor_id";
}

// The first snapshot of workloads `p`..`last` of a core (`list`) where
// transfer `t` is not carried by one tensor, the same since its first
// holder, or nothing: where the check of I-B8 reports.
std::optional<size_t> LifetimeBreak(const json& list, int64_t t, size_t p, size_t last) {
  std::optional<json> tensor;
  for (size_t i = p; i <= last; ++i) {
    std::vector<json> carriers;
    for (const json& e : list.at(i).at("buffer"))
      if (Carries(e, t)) carriers.push_back(e.at("tensor_id"));
    if (!tensor && carriers.empty()) continue;
    if (carriers.size() != 1 || (tensor && *tensor != carriers[0])) return i;
    tensor = carriers[0];
  }
  return std::nullopt;
}

// The first output a core reads again itself is also listed, in a snapshot
// from its producer's to its last reader's, by another input tensor (not
// the one that snapshot's workload reads it from): two tensors carry it, or
// the data changes tensor with no transfer (I-B8).
std::string CarryForwardedTransferTwice(json& ir) {
  for (const std::string& core : CoreKeys(ir)) {
    json& list = ir.at(core);
    std::map<int64_t, size_t> last_reader;
    for (size_t i = 0; i < list.size(); ++i) {
      for (const json& f : list[i].at("ifmap"))
        for (const json& t : f.at("transfer_id")) last_reader[Int(t)] = i;
    }
    for (size_t p = 0; p < list.size(); ++p) {
      for (const json& ofmap : list[p].at("ofmap")) {
        const int64_t t = Int(ofmap.at("transfer_id"));
        const auto last = last_reader.find(t);
        if (last == last_reader.end() || last->second <= p) continue;
        for (size_t i = p; i <= last->second; ++i) {
          json& buffer = list[i].at("buffer");
          const bool reads = Reads(list[i], t);
          const auto other = FirstIndex(buffer, [&](const json& e) {
            return e.at("type") == "ifmap" && e.contains("transfer_id") &&
                   e.at("transfer_id").is_array() && !Carries(e, t) &&
                   !(reads && e.value("cur_wl_ifmap", false));
          });
          if (!other) continue;
          json& ids = buffer[*other]["transfer_id"];
          ids.push_back(t);
          if (const auto at = LifetimeBreak(list, t, p, last->second))
            return Str("/", core, "/", *at, "/buffer");
          ids.erase(ids.size() - 1);
        }
      }
    }
  }
  throw std::invalid_argument("no output read again on its core beside another input tensor");
}

// A change that cannot apply to this IR for a reason of its own, given
// whole in the decline (not as an object the IR lacks).
class NoPlace : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The first of `changes` that finds its place, each tried on a copy so
// that one that gives up halfway leaves nothing behind; throws the last
// one's reason when none does.
std::string FirstThatFits(json& ir, std::initializer_list<std::string (*)(json&)> changes) {
  std::string reason;  // the first change's: the others are for other schedules
  for (const auto change : changes) {
    json copy = ir;
    try {
      const std::string path = change(copy);
      ir = std::move(copy);
      return path;
    } catch (const NoPlace&) {
      throw;
    } catch (const std::invalid_argument& e) {
      if (reason.empty()) reason = e.what();
    } catch (const json::exception& e) {
      if (reason.empty()) reason = e.what();
    }
  }
  throw std::invalid_argument(reason);
}

// Whether workload `w` holds transfer `t` in its L2 snapshot, or, for a
// weight, in its WL0 snapshot: what a destination must (I-T7).
bool Delivered(const json& w, int64_t t, bool weight) {
  const auto carries = [t](const json& e) { return Carries(e, t); };
  return FirstIndex(w.at("buffer"), carries) || (weight && FirstIndex(WlBuffer(w), carries));
}

// Whether workload `w` reads transfer `t`, as an ifmap or its weight.
bool ReadsAny(const json& w, int64_t t) {
  return Reads(w, t) || (w.contains("weight") && Carries(w.at("weight"), t));
}

// Whether `destinations` name workload `w` of `core`.
bool Lists(const json& destinations, const std::string& core, const json& w) {
  return FirstIndex(destinations,
                    [&](const json& d) {
                      return d.at("type") == "core" && d.at("core_id") == std::stoll(core) &&
                             d.at("workload_id") == w.at("workload_id");
                    })
      .has_value();
}

// Adds workload `w` of `core` to `destinations`, with its layer_name when
// the others give theirs (docs/formats/gemini.md §2.3); the pointer to it.
std::string AddDestination(json& destinations, const std::string& core, const json& w,
                           const std::string& pointer) {
  json d = {{"core_id", std::stoll(core)}, {"type", "core"}, {"workload_id", w.at("workload_id")}};
  if (destinations.empty() || destinations.at(0).contains("layer_name"))
    d["layer_name"] = w.at("layer_name");
  destinations.push_back(std::move(d));
  return Str(pointer, "/destination/", destinations.size() - 1);
}

// The first output and the first later workload of its core whose snapshot
// holds it without reading it: the output is also sent there (I-T8).
std::string SendOutputToAHolderThatDoesNotRead(json& ir) {
  for (const std::string& core : CoreKeys(ir)) {
    json& list = ir.at(core);
    for (size_t p = 0; p < list.size(); ++p) {
      json& ofmaps = list[p].at("ofmap");
      for (size_t o = 0; o < ofmaps.size(); ++o) {
        const int64_t t = Int(ofmaps[o].at("transfer_id"));
        json& destinations = ofmaps[o].at("destination");
        for (size_t k = p + 1; k < list.size(); ++k) {
          if (!Delivered(list[k], t, false) || ReadsAny(list[k], t) ||
              Lists(destinations, core, list[k]))
            continue;
          return AddDestination(destinations, core, list[k], Str("/", core, "/", p, "/ofmap/", o));
        }
      }
    }
  }
  throw std::invalid_argument("no snapshot holding an output its workload does not read");
}

// The first merged input read from two transfers or more no longer lists
// its last one, which its producer still sends there (I-T8).
std::string ReadPartOfAMergedInput(json& ir) {
  for (const std::string& core : CoreKeys(ir)) {
    for (json& reader : ir.at(core)) {
      for (json& f : reader.at("ifmap")) {
        if (f.at("transfer_id").size() < 2) continue;
        const json t = f.at("transfer_id").back();
        for (const std::string& from : CoreKeys(ir)) {
          const json& list = ir.at(from);
          for (size_t p = 0; p < list.size(); ++p) {
            const json& ofmaps = list[p].at("ofmap");
            for (size_t o = 0; o < ofmaps.size(); ++o) {
              if (ofmaps[o].at("transfer_id") != t) continue;
              const auto d = FirstIndex(ofmaps[o].at("destination"), [&](const json& dest) {
                return dest.at("type") == "core" && dest.at("core_id") == std::stoll(core) &&
                       dest.at("workload_id") == reader.at("workload_id");
              });
              if (!d) continue;
              const std::string path = Str("/", from, "/", p, "/ofmap/", o, "/destination/", *d);
              json& ids = f.at("transfer_id");
              ids.erase(ids.size() - 1);
              return path;
            }
          }
        }
      }
    }
  }
  throw std::invalid_argument("no merged input whose producer sends it");
}

// The first DRAM load that no reload order constrains is also sent to the
// first workload whose snapshot does not hold it (I-T7).
std::string SendLoadWhereItIsNotHeld(json& ir) {
  json& outs = ir.at("-1").at("out");
  for (size_t o = 0; o < outs.size(); ++o) {
    if (!outs[o].at("related_ifmap").empty()) continue;  // a reload (I-T11)
    const int64_t t = Int(outs[o].at("transfer_id"));
    const bool weight = outs[o].at("type") == "weight";
    for (const std::string& core : CoreKeys(ir)) {
      for (const json& w : ir.at(core)) {
        if (Delivered(w, t, weight)) continue;
        return AddDestination(outs[o].at("destination"), core, w, Str("/-1/out/", o));
      }
    }
  }
  throw std::invalid_argument("no DRAM load and workload whose snapshot lacks it");
}

// The first output of a core's workload after its first is also sent back
// to the workload before it, through an input tensor of that one's
// snapshot, which then carries it (I-T9).
std::string SendOutputBack(json& ir) {
  for (const std::string& core : CoreKeys(ir)) {
    json& list = ir.at(core);
    for (size_t p = 1; p < list.size(); ++p) {
      if (list[p].at("ofmap").empty()) continue;
      json& ofmap = list[p].at("ofmap").at(0);
      const int64_t t = Int(ofmap.at("transfer_id"));
      json& buffer = list[p - 1].at("buffer");
      const auto input = FirstIndex(buffer, [t](const json& e) {
        return e.at("type") == "ifmap" && e.contains("transfer_id") &&
               e.at("transfer_id").is_array() && !Carries(e, t);
      });
      if (!input || Lists(ofmap.at("destination"), core, list[p - 1])) continue;
      buffer[*input]["transfer_id"].push_back(t);
      return AddDestination(ofmap.at("destination"), core, list[p - 1],
                            Str("/", core, "/", p, "/ofmap/0"));
    }
  }
  throw std::invalid_argument("no core with an output after its first workload");
}

// The elements two ranges ({lower, upper}, inclusive) share.
int64_t SharedVolume(const json& a, const json& b) {
  int64_t volume = 1;
  for (size_t d = 0; d < a.at("lower").size(); ++d) {
    const int64_t lo = std::max(Int(a.at("lower").at(d)), Int(b.at("lower").at(d)));
    const int64_t hi = std::min(Int(a.at("upper").at(d)), Int(b.at("upper").at(d)));
    if (hi < lo) return 0;
    volume *= hi - lo + 1;
  }
  return volume;
}

// Whether a destination of load `out` is on `store`'s core and runs no
// later than it: what I-T11 forbids of a reload.
bool ReadNoLaterThan(const json& out, const json& store) {
  return FirstIndex(out.at("destination"),
                    [&](const json& d) {
                      return d.at("type") == "core" && d.at("core_id") == store.at("core_id") &&
                             Int(d.at("workload_id")) <= Int(store.at("workload_id"));
                    })
      .has_value();
}

// Relates load `o` of `outs` and store `s` of `ins` both ways (I-T3).
void Relate(json& outs, size_t o, json& ins, size_t s) {
  outs[o]["related_ifmap"].push_back(ins[s].at("transfer_id"));
  json& related = ins[s]["related_ofmap"];
  if (!related.is_array()) related = json::array();
  related.push_back(outs[o].at("transfer_id"));
}

bool IsReload(const json& out) {
  return out.at("type") == "fmap" && !out.at("related_ifmap").empty();
}

// The first reload also reads a store that overlaps it and is written
// before the reload is read on its core: its blocks cover it more than
// once (I-T4).
std::string ReloadAnOverlappingStore(json& ir) {
  json& outs = ir.at("-1").at("out");
  json& ins = ir.at("-1").at("in");
  for (size_t o = 0; o < outs.size(); ++o) {
    if (!IsReload(outs[o])) continue;
    const json& related = outs[o].at("related_ifmap");
    for (size_t s = 0; s < ins.size(); ++s) {
      const json& id = ins[s].at("transfer_id");
      if (std::find(related.begin(), related.end(), id) != related.end() ||
          SharedVolume(outs[o], ins[s]) == 0 || ReadNoLaterThan(outs[o], ins[s]))
        continue;
      Relate(outs, o, ins, s);
      return Str("/-1/out/", o);
    }
  }
  if (!FirstIndex(outs, IsReload)) throw std::invalid_argument("no DRAM reload in this schedule");
  throw NoPlace(
      "no clean place among the schedule's reloads: no store overlaps one of them "
      "without being read after it on its core");
}

// In a schedule without reloads: the first load becomes a reload of the
// first store that overlaps it without covering it (I-T4).
std::string ReloadAPartialStore(json& ir) {
  if (FirstIndex(ir.at("-1").at("out"), IsReload))
    throw std::invalid_argument("the schedule has reloads of its own");
  json& outs = ir.at("-1").at("out");
  json& ins = ir.at("-1").at("in");
  for (size_t o = 0; o < outs.size(); ++o) {
    if (outs[o].at("type") != "fmap") continue;
    const int64_t volume = SharedVolume(outs[o], outs[o]);
    for (size_t s = 0; s < ins.size(); ++s) {
      const int64_t shared = SharedVolume(outs[o], ins[s]);
      if (shared == 0 || shared == volume) continue;
      Relate(outs, o, ins, s);
      return Str("/-1/out/", o);
    }
  }
  throw NoPlace("no DRAM reload in this schedule, and no load and store that overlap in part");
}

// The first reload is also sent to a workload of a store's core that holds
// it no later than that store is written (I-T11).
std::string ReadReloadBeforeItsStore(json& ir) {
  json& outs = ir.at("-1").at("out");
  const json& ins = ir.at("-1").at("in");
  for (size_t o = 0; o < outs.size(); ++o) {
    if (!IsReload(outs[o])) continue;
    const int64_t t = Int(outs[o].at("transfer_id"));
    for (const json& id : outs[o].at("related_ifmap")) {
      const auto s = FirstIndex(ins, [&](const json& in) { return in.at("transfer_id") == id; });
      if (!s) continue;
      const std::string core = std::to_string(Int(ins[*s].at("core_id")));
      for (const json& w : ir.at(core)) {
        if (Int(w.at("workload_id")) > Int(ins[*s].at("workload_id"))) continue;
        if (!Delivered(w, t, false) || Lists(outs[o].at("destination"), core, w)) continue;
        AddDestination(outs[o].at("destination"), core, w, "");
        return Str("/-1/out/", o);
      }
    }
  }
  throw std::invalid_argument("no workload of a store's core holds its reload at or before it");
}

// Else the first reload also names a store it shares no element with (its
// coverage holds) that is written no earlier than a core reads the reload
// (I-T11).
std::string RelateReloadToALaterStore(json& ir) {
  json& outs = ir.at("-1").at("out");
  json& ins = ir.at("-1").at("in");
  for (size_t o = 0; o < outs.size(); ++o) {
    if (!IsReload(outs[o])) continue;
    const json& related = outs[o].at("related_ifmap");
    for (size_t s = 0; s < ins.size(); ++s) {
      if (std::find(related.begin(), related.end(), ins[s].at("transfer_id")) != related.end() ||
          SharedVolume(outs[o], ins[s]) != 0 || !ReadNoLaterThan(outs[o], ins[s]))
        continue;
      Relate(outs, o, ins, s);
      return Str("/-1/out/", o);
    }
  }
  if (!FirstIndex(outs, IsReload)) throw std::invalid_argument("no DRAM reload in this schedule");
  throw NoPlace(
      "no clean place among the schedule's reloads: no workload of a store's core holds one "
      "at or before that store, and no store apart from one is written after it is read");
}

// In a schedule without reloads: the first load that the stores overlapping
// it cover exactly, one of them written no earlier than a core reads the
// load, becomes their reload (I-T11; the coverage of I-T4 holds).
std::string ReloadStoresReadLater(json& ir) {
  if (FirstIndex(ir.at("-1").at("out"), IsReload))
    throw std::invalid_argument("the schedule has reloads of its own");
  json& outs = ir.at("-1").at("out");
  json& ins = ir.at("-1").at("in");
  for (size_t o = 0; o < outs.size(); ++o) {
    if (outs[o].at("type") != "fmap") continue;
    std::vector<size_t> stores;
    int64_t covered = 0;
    bool early = false;
    for (size_t s = 0; s < ins.size(); ++s) {
      const int64_t shared = SharedVolume(outs[o], ins[s]);
      if (shared == 0) continue;
      stores.push_back(s);
      covered += shared;
      early = early || ReadNoLaterThan(outs[o], ins[s]);
    }
    if (!early || covered != SharedVolume(outs[o], outs[o])) continue;
    for (const size_t s : stores) Relate(outs, o, ins, s);
    return Str("/-1/out/", o);
  }
  throw NoPlace("no DRAM reload in this schedule, and no load that stores cover exactly");
}

// The highest output channel of each layer over its workloads (the
// layer's output_shape[1] - 1 where the workloads cover it, I-W6).
std::map<std::string, int64_t> LastChannels(const json& ir) {
  std::map<std::string, int64_t> last;
  for (const std::string& core : CoreKeys(ir)) {
    for (const json& w : ir.at(core)) {
      int64_t& k = last[w.at("layer_name").get<std::string>()];
      k = std::max(k, Int(w.at("workload").at(1).at(1)));
    }
  }
  return last;
}

// The first pe workload reaching its layer's last output channel reaches
// one more, and so do its tiles that reach it (I-W6).
std::string ComputeOneChannelMore(json& ir) {
  const std::map<std::string, int64_t> last = LastChannels(ir);
  const Placed at = FirstWorkload(ir, [&](const json& w) {
    return w.at("layer_type") == "pe" &&
           Int(w.at("workload").at(1).at(1)) == last.at(w.at("layer_name").get<std::string>());
  });
  json& k = at.workload->at("workload").at(1).at(1);
  const int64_t channel = Int(k);
  k = channel + 1;
  for (auto& [key, tile] : at.workload->at("tile_info").items()) {
    json& upper = tile.at("ofmap_upper").at(1);
    if (Int(upper) == channel) upper = channel + 1;
  }
  return at.path + "/workload";
}

// Core 1's conv_1 reaches row 8 of an 8-row output; its last tile and that
// tile's padding follow, so the tiles stay consistent (I-W6).
std::string ComputeOneRowMore(json& ir) {
  json& w = W(ir, "1", 1);
  w.at("workload").at(1).at(2) = 8;
  w.at("tile_info").at("tile_num_1").at("ofmap_upper").at(2) = 8;
  w.at("tile_info").at("tile_num_1").at("tile_padding_tblr").at(1) = 2;
  return "/1/1/workload";
}

// The first workload's WL0 snapshot under the resnet34 key (§2.5 item 3);
// a schedule in that dialect already reports it.
std::string UseWl1Key(json& ir) {
  if (FirstWorkload(ir, [](const json&) { return true; }).workload->contains("wl1_buffer"))
    throw NoPlace(Str("the input already breaks ", rules::kWorkloadWl1Dialect.id,
                      ": its WL0 snapshots are under \"wl1_buffer\""));
  const Placed at = FirstWorkload(ir, [](const json&) { return true; });
  json wl0 = at.workload->at("wl0_buffer");
  at.workload->erase("wl0_buffer");
  (*at.workload)["wl1_buffer"] = std::move(wl0);
  return at.path + "/wl1_buffer";
}

// A deadlock needs two cores, each waiting for the other.
void NeedsTwoCores(const json& ir) {
  if (CoreKeys(ir).size() < 2)
    throw NoPlace(
        "single-core schedule: workloads of one core run in order and cannot wait in a "
        "cycle without reading a later output");
}

// The last tensor of the first snapshot holding two moves onto that
// snapshot's first, in every snapshot that holds it (I-B4 keeps it whole).
std::string MoveLastTensorOntoFirst(json& ir) {
  for (const std::string& core : CoreKeys(ir)) {
    const json& list = ir.at(core);
    for (size_t i = 0; i < list.size(); ++i) {
      const json& buffer = list[i].at("buffer");
      if (buffer.size() < 2) continue;
      const json tensor = buffer.back().at("tensor_id");
      MoveTensor(ir, core, tensor, Int(buffer.at(0).at("address")));
      return Str("/", core, "/", i, "/buffer");
    }
  }
  throw std::invalid_argument("no snapshot with two tensors");
}

// The first input tensor filled from sources lists its first source twice:
// the sources overlap (I-B7).
std::string RepeatFirstSource(json& ir) {
  for (const std::string& core : CoreKeys(ir)) {
    json& list = ir.at(core);
    for (size_t i = 0; i < list.size(); ++i) {
      json& buffer = list[i].at("buffer");
      for (size_t e = 0; e < buffer.size(); ++e) {
        if (buffer[e].at("type") != "ifmap" || !buffer[e].contains("source")) continue;
        json& sources = buffer[e].at("source");
        if (!sources.is_array() || sources.empty()) continue;
        json first = sources.at(0);
        sources.push_back(std::move(first));
        return Str(EntryPointer(core, i, e), "/source/", sources.size() - 1);
      }
    }
  }
  throw std::invalid_argument("no input tensor with sources");
}

// Core 0's first workload also reads the output of core 1's last one (rows
// 4..7 of conv_1, transfer 7), from a tensor of its own snapshot: core 0
// then waits for core 1 at its start.
void ReadCore1OutputFirst(json& ir) {
  NeedsTwoCores(ir);
  const json extent = json::array({0, 7, 3, 3});
  const json order = W(ir, "0", 1).at("buffer").at(1).at("tensor_order");
  json& sender = W(ir, "1", 1).at("ofmap").at(0);
  if (sender.at("transfer_id") != 7 || W(ir, "1", 1).at("layer_name") != "conv_1" ||
      sender.at("upper") != extent)
    throw std::invalid_argument("core 1's last workload is not conv_1 sending rows 4..7");
  json& reader = W(ir, "0", 0);
  reader.at("ifmap").push_back({{"align", 8},
                                {"bitwidth", 8},
                                {"lower", {0, 0, 0, 0}},
                                {"upper", extent},
                                {"size", 128},
                                {"transfer_id", {7}}});
  reader.at("buffer").push_back({{"address", 4096},
                                 {"align", 8},
                                 {"bitwidth", 8},
                                 {"cur_wl_ifmap", true},
                                 {"lower", {0, 0, 0, 0}},
                                 {"upper", extent},
                                 {"newly_added", true},
                                 {"size", 128},
                                 {"source", json::array({{{"core_id", 1},
                                                          {"layer_name", "conv_1"},
                                                          {"lower", {0, 0, 0, 0}},
                                                          {"upper", extent},
                                                          {"size", 128},
                                                          {"transfer_id", 7},
                                                          {"type", "core"}}})},
                                 {"tensor_id", 9},
                                 {"tensor_order", order},
                                 {"transfer_id", {7}},
                                 {"type", "ifmap"}});
  sender.at("destination").push_back({{"core_id", 0}, {"type", "core"}, {"workload_id", 0}});
}

// The first core's first workload also reads the output of the last
// workload of another core, from a new core-fed tensor at the end of its
// snapshot: it waits for a workload that waits, through the data the cores
// exchange, for it (I-D1).
std::string ReadAnotherCoresLastOutputFirst(json& ir) {
  NeedsTwoCores(ir);
  const std::vector<std::string> cores = CoreKeys(ir);
  const std::vector<Tensor> tensors = Tensors(ir);
  const auto core_fed = [&](const Tensor& t) { return CoreFed(EntryOf(ir, t, 0)); };
  const json order = EntryOf(ir, FirstTensor(tensors, core_fed), 0).at("tensor_order");
  int64_t tensor_id = 0;
  for (const Tensor& t : tensors)
    if (t.core == cores[0]) tensor_id = std::max(tensor_id, Int(t.id) + 1);
  json& reader = ir.at(cores[0]).at(0);
  int64_t address = 0;
  for (const json& e : reader.at("buffer"))
    address = std::max(address, (Int(e.at("address")) + Int(e.at("size")) + 7) / 8 * 8);
  for (size_t b = 1; b < cores.size(); ++b) {
    const json& sender = ir.at(cores[b]).back();
    if (sender.at("ofmap").empty()) continue;
    json& ofmap = ir.at(cores[b]).back().at("ofmap").at(0);
    const std::optional<Ring> ring = RingOf(reader, address);
    if (!ring || address + Int(ofmap.at("size")) > ring->end) continue;
    const json& like = reader.at("ifmap").at(0);
    const json ids = json::array({ofmap.at("transfer_id")});
    json range = {
        {"lower", ofmap.at("lower")}, {"upper", ofmap.at("upper")}, {"size", ofmap.at("size")}};
    json source = range;
    source.update({{"core_id", std::stoll(cores[b])},
                   {"layer_name", sender.at("layer_name")},
                   {"transfer_id", ofmap.at("transfer_id")},
                   {"type", "core"}});
    json input = range;
    input.update(
        {{"align", like.at("align")}, {"bitwidth", like.at("bitwidth")}, {"transfer_id", ids}});
    json tensor = input;
    tensor.update({{"address", address},
                   {"cur_wl_ifmap", true},
                   {"newly_added", true},
                   {"source", json::array({source})},
                   {"tensor_id", tensor_id},
                   {"tensor_order", order},
                   {"type", "ifmap"}});
    reader.at("ifmap").push_back(std::move(input));
    reader.at("buffer").push_back(std::move(tensor));
    AddDestination(ofmap.at("destination"), cores[0], reader, "");
    return "";
  }
  throw std::invalid_argument("no other core whose last workload sends an output");
}

// The base's deadlock (below), else the first core waiting for another's
// last output.
std::string ReadOtherCoreOutputFirst(json& ir) {
  return FirstThatFits(ir, {[](json& base) {
                              ReadCore1OutputFirst(base);
                              return std::string();
                            },
                            ReadAnotherCoresLastOutputFirst});
}

// The frontend's layer names by layer_index, those `pick` takes first;
// throws when none is taken, so that the change declines.
std::string LayerWhere(const json& frontend, const std::function<bool(const json&)>& pick) {
  std::vector<std::pair<int64_t, std::string>> layers;
  for (const auto& [name, layer] : frontend.items()) {
    if (pick(layer)) layers.emplace_back(layer.at("layer_index").get<int64_t>(), name);
  }
  if (layers.empty()) throw std::invalid_argument("no layer of the kind the change edits");
  return std::min_element(layers.begin(), layers.end())->second;
}

std::string FirstLayer(const json& frontend) {
  return LayerWhere(frontend, [](const json&) { return true; });
}

std::string FirstOf(const json& frontend, std::initializer_list<std::string_view> operations) {
  return LayerWhere(frontend, [&](const json& layer) {
    const std::string operation = layer.at("operation").get<std::string>();
    return std::find(operations.begin(), operations.end(), operation) != operations.end();
  });
}

// The first layer that feeds another layer, and that one.
std::pair<std::string, std::string> FirstLink(const json& frontend) {
  const std::string from = LayerWhere(frontend, [&](const json& layer) {
    for (const json& next : layer.at("next_layer"))
      if (frontend.contains(next.get<std::string>())) return true;
    return false;
  });
  for (const json& next : frontend.at(from).at("next_layer")) {
    if (frontend.contains(next.get<std::string>())) return {from, next.get<std::string>()};
  }
  throw std::invalid_argument("no link");
}

// "/<to>/previous_layer/<j>": where `to` reads `from`.
std::string PreviousPointer(const json& frontend, const std::string& from, const std::string& to) {
  const json& previous = frontend.at(to).at("previous_layer");
  for (size_t j = 0; j < previous.size(); ++j) {
    if (previous[j] == from) return Str(LayerPointer(to), "/previous_layer/", j);
  }
  throw std::invalid_argument("no such previous layer");
}

}  // namespace

std::string CaseBaseIr() {
  std::ostringstream ir, frontend;
  GenerateIr(BaseOptions(), ir, frontend);
  return ir.str();
}

std::string CaseBaseFrontend() {
  std::ostringstream ir, frontend;
  GenerateIr(BaseOptions(), ir, frontend);
  return frontend.str();
}

namespace {

std::vector<Change> Table() {
  using namespace rules;
  return {
      {&kJsonSyntax, "", false, nullptr, [](std::string& t) { t.resize(t.size() / 2); }, {}},
      // The key written twice, whatever the spacing around its colon.
      {&kJsonDuplicateKey,
       "/buffersize",
       false,
       nullptr,
       [](std::string& t) {
         const size_t at = t.find("\"buffersize\"");
         if (at == std::string::npos) throw std::invalid_argument("no \"buffersize\" key");
         t.insert(at, "\"buffersize\":1,");
       },
       {}},
      {&kJsonNumberRange,
       "/buffersize",
       false,
       [](json& ir) { ir.at("buffersize") = 65536.5; },
       nullptr,
       {}},
      {&kSchemaType,
       "/0/0/time",
       false,
       [](json& ir) { W(ir, "0", 0).at("time") = "100"; },
       nullptr,
       {}},
      {&kSchemaMissingKey,
       "/0/0",
       false,
       [](json& ir) { W(ir, "0", 0).erase("ofmap_size"); },
       nullptr,
       {}},
      {&kSchemaUnknownKey,
       "/0/0/colour",
       false,
       [](json& ir) {
         W(ir, "0", 0)["colour"] = 1;
       },
       nullptr,
       {}},
      {&kSchemaEnum,
       "/0/0/buffer/0/type",
       false,
       [](json& ir) { W(ir, "0", 0).at("buffer").at(0).at("type") = "bias"; },
       nullptr,
       {}},
      {&kTopKeys, "/cores", false, [](json& ir) { ir["cores"] = 1; }, nullptr, {}},
      // An idle core one past the mesh.
      {&kTopCoreRange,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const std::string core =
             std::to_string(ir.at("xlen").get<int64_t>() * ir.at("ylen").get<int64_t>());
         ir[core] = json::array();
         return "/" + core;
       }},
      {&kTopParams,
       "/top_batch_cut",
       false,
       [](json& ir) { ir.at("top_batch_cut") = 0; },
       nullptr,
       {}},
      {&kWorkloadBufferKey,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const Placed at = FirstWorkload(ir, [](const json&) { return true; });
         at.workload->erase(WlKey(*at.workload));
         return at.path;
       }},
      {&kWorkloadWl1Dialect, "", false, nullptr, nullptr, {}, nullptr, false, UseWl1Key},
      {&kRangeOrder,
       "/0/0/ifmap/0",
       false,
       [](json& ir) { W(ir, "0", 0).at("ifmap").at(0).at("lower").at(1) = 9; },
       nullptr,
       {}},
      {&kWorkloadWeight,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const Placed at = FirstWorkload(ir, [](const json& w) { return w.contains("weight"); });
         at.workload->erase("weight");
         return at.path;
       }},
      {&kFrontendLayer,
       "/0/0/layer_name",
       true,
       [](json& ir) { W(ir, "0", 0).at("layer_name") = "conv_9"; },
       nullptr,
       {}},
      // The other engine: a convolution on the vector unit keeps its weight,
      // a vector operation on the PE array has none.
      {&kFrontendLayerType,
       "/0/0/layer_type",
       true,
       [](json& ir) {
         json& type = W(ir, "0", 0).at("layer_type");
         type = type == "vp" ? "pe" : "vp";
       },
       nullptr,
       {&kWorkloadWeight}},
      // One group more than the batch has samples.
      {&kTopBatchCut,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         int64_t batch = 0;
         for (const std::string& core : CoreKeys(ir)) {
           for (const json& w : ir.at(core))
             batch = std::max(batch, w.at("workload").at(1).at(0).get<int64_t>() + 1);
         }
         ir.at("top_batch_cut") = batch + 1;
         return std::string("/top_batch_cut");
       }},
      // The last workload of the first core skips an id.
      {&kWorkloadContiguous,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const std::string core = CoreKeys(ir).at(0);
         const int64_t last = ir.at(core).back().at("workload_id").get<int64_t>();
         RenumberWorkload(ir, std::stoi(core), static_cast<int>(last), static_cast<int>(last) + 1);
         return "/" + core;
       }},
      // An id out of order is also one out of place (I-W1).
      {&kWorkloadOrder,
       "/0/1/workload_id",
       false,
       [](json& ir) { W(ir, "0", 1).at("workload_id") = 0; },
       nullptr,
       {&kWorkloadContiguous}},
      // The first workload's last tile is numbered one past its place.
      {&kTileKeys,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const Placed at = FirstWorkload(ir, [](const json&) { return true; });
         json& tiles = (*at.workload)["tile_info"];
         const size_t last = tiles.size() - 1;
         tiles[Str("tile_num_", last + 1)] = tiles.at(Str("tile_num_", last));
         tiles.erase(Str("tile_num_", last));
         return at.path + "/tile_info";
       }},
      // The second tile computes the first one's ofmap again.
      {&kTilePartition,
       "",
       false,
       nullptr,
       nullptr,
       {&kTileWindow},
       nullptr,
       false,
       [](json& ir) {
         const Placed at = FirstWorkload(
             ir, [](const json& w) { return w.at("tile_info").contains("tile_num_1"); });
         json& tiles = (*at.workload)["tile_info"];
         tiles["tile_num_1"]["ofmap_lower"] = tiles["tile_num_0"]["ofmap_lower"];
         tiles["tile_num_1"]["ofmap_upper"] = tiles["tile_num_0"]["ofmap_upper"];
         return at.path + "/tile_info/tile_num_1";
       }},
      // The first tile padded above reads from row 1 instead of 0.
      {&kTileReceptiveField,
       "",
       true,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       StartPaddedWindowLower},
      // The same without the frontend: padding above a window that does not
      // start at row 0.
      {&kTileWindow, "", false, nullptr, nullptr, {}, nullptr, false, StartPaddedWindowLower},
      // The first padded tile loses its padding on one side.
      {&kTilePadding,
       "",
       true,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const auto padded = [](const json& tile) {
           return FirstIndex(tile.at("tile_padding_tblr"),
                             [](const json& p) { return p.get<int64_t>() > 0; });
         };
         const Placed at = FirstWorkload(ir, [&](const json& w) {
           for (const auto& [key, tile] : w.at("tile_info").items())
             if (padded(tile)) return true;
           return false;
         });
         for (auto& [key, tile] : (*at.workload)["tile_info"].items()) {
           if (const auto side = padded(tile)) {
             tile["tile_padding_tblr"][*side] = 0;
             return at.path + "/tile_info/" + key;
           }
         }
         throw std::invalid_argument("no padded tile");
       }},
      {&kTileMiniTile,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const PlacedTile at =
             FirstTile(ir, [](const json& tile) { return tile.contains("loop_order"); });
         (*at.tile)["loop_order"] = "KNHH";
         return at.path;
       }},
      // Where no workload reaches its layer's last channel: core 1's conv_1
      // reaches row 8 of an 8-row output, its last tile and padding following.
      {&kWorkloadShape,
       "",
       true,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         return FirstThatFits(ir, {ComputeOneChannelMore, ComputeOneRowMore});
       }},
      {&kWorkloadTime,
       "/0/0/time",
       false,
       [](json& ir) { W(ir, "0", 0).at("time") = -1; },
       nullptr,
       {}},
      // Half the alignment, on channels that fill both, so the size holds.
      {&kSizeLayout,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const auto whole = [](const json& f) {
           const int64_t channels =
               f.at("upper").at(1).get<int64_t>() - f.at("lower").at(1).get<int64_t>() + 1;
           return channels % 8 == 0;
         };
         const Placed at = FirstWorkload(
             ir, [&](const json& w) { return FirstIndex(w.at("ifmap"), whole).has_value(); });
         const size_t f = *FirstIndex(at.workload->at("ifmap"), whole);
         json& align = (*at.workload)["ifmap"][f]["align"];
         align = align.get<int64_t>() / 2;
         return Str(at.path, "/ifmap/", f);
       }},
      {&kSizeFmap,
       "/0/0/ifmap/0/size",
       false,
       [](json& ir) {
         W(ir, "0", 0).at("ifmap").at(0).at("size") =
             W(ir, "0", 0).at("ifmap").at(0).at("size").get<int64_t>() + 8;
       },
       nullptr,
       {}},
      {&kSizeWeight,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const Placed at = FirstWorkload(ir, [](const json& w) { return w.contains("weight"); });
         json& size = (*at.workload)["weight"]["size"];
         size = size.get<int64_t>() + 8;
         return at.path + "/weight/size";
       }},
      {&kSizeOfmap,
       "/0/0/ofmap/0/size",
       false,
       [](json& ir) {
         W(ir, "0", 0).at("ofmap_size") = W(ir, "0", 0).at("ofmap_size").get<int64_t>() + 8;
       },
       nullptr,
       {}},
      {&kSizeExtent,
       "/0/0/ofmap/0",
       false,
       [](json& ir) { W(ir, "0", 0).at("ofmap").at(0).at("upper").at(3) = 2; },
       nullptr,
       {}},
      {&kTransferUnique,
       "/-1/out/1/transfer_id",
       false,
       [](json& ir) {
         ir.at("-1").at("out").at(1).at("transfer_id") =
             ir.at("-1").at("out").at(0).at("transfer_id");
       },
       nullptr,
       {}},
      // The first store names the layer of another workload than its producer.
      {&kTransferDramIn,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         json& in = ir.at("-1").at("in").at(0);
         const Placed other = FirstWorkload(
             ir, [&](const json& w) { return w.at("layer_name") != in.at("layer_name"); });
         in["layer_name"] = other.workload->at("layer_name");
         return std::string("/-1/in/0");
       }},
      {&kTransferRelated,
       "/-1/in/0/related_ofmap",
       false,
       [](json& ir) {
         ir.at("-1").at("in").at(0)["related_ofmap"] =
             json::array({ir.at("-1").at("out").at(0).at("transfer_id")});
       },
       nullptr,
       {}},
      // Where the schedule has no reload, a load relates to a store it
      // overlaps, which its core may read after the load.
      {&kTransferCoverage,
       "",
       false,
       nullptr,
       nullptr,
       {&kTransferDramOrder},
       nullptr,
       false,
       [](json& ir) {
         return FirstThatFits(ir, {ReloadAnOverlappingStore, ReloadAPartialStore});
       }},
      {&kTransferDramOrder,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         return FirstThatFits(
             ir, {ReadReloadBeforeItsStore, RelateReloadToALaterStore, ReloadStoresReadLater});
       }},
      {&kTransferUnreadDestination,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         return FirstThatFits(ir, {SendOutputToAHolderThatDoesNotRead, ReadPartOfAMergedInput});
       }},
      // The input tensor lists a transfer none of its sources names.
      {&kTransferCausality,
       "",
       false,
       nullptr,
       nullptr,
       {&kTransferUnreadDestination, &kBufferSources},
       nullptr,
       false,
       SendOutputBack},
      {&kTransferProduced,
       "/0/1/ifmap/0/transfer_id",
       false,
       [](json& ir) { W(ir, "0", 1).at("ifmap").at(0).at("transfer_id").at(0) = 99999; },
       nullptr,
       {&kTransferUnreadDestination}},
      {&kTransferDestination,
       "/-1/out/0/destination/0",
       false,
       [](json& ir) { ir.at("-1").at("out").at(0).at("destination").at(0).at("workload_id") = 7; },
       nullptr,
       {}},
      {&kTransferDelivery,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       SendLoadWhereItIsNotHeld},
      {&kTransferConsumerListed,
       "/1/1/ifmap/0/transfer_id",
       false,
       [](json& ir) {
         json& destinations = W(ir, "0", 0).at("ofmap").at(0).at("destination");
         destinations.erase(destinations.size() - 1);
       },
       nullptr,
       {}},
      {&kBufferRegions,
       "/0/0/ring_buffer_info",
       false,
       [](json& ir) {
         W(ir, "0", 0).at("ring_buffer_info").at(0).at(1) = 2 * ir.at("buffersize").get<int64_t>();
       },
       nullptr,
       {}},
      // The first workload's last tensor moves past the L2, in every
      // snapshot that holds it.
      {&kBufferAddress,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const std::string core = CoreKeys(ir).at(0);
         const size_t last = ir.at(core).at(0).at("buffer").size() - 1;
         const json tensor = ir.at(core).at(0).at("buffer").at(last).at("tensor_id");
         MoveTensor(ir, core, tensor, ir.at("buffersize").get<int64_t>());
         return Str("/", core, "/0/buffer/", last, "/address");
       }},
      // The first snapshot's last tensor moves 4 bytes up, in every
      // snapshot that holds it.
      {&kBufferAlign,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const std::string core = CoreKeys(ir).at(0);
         const json& buffer = ir.at(core).at(0).at("buffer");
         const size_t last = buffer.size() - 1;
         MoveTensor(ir, core, buffer.at(last).at("tensor_id"),
                    buffer.at(last).at("address").get<int64_t>() + 4);
         return Str("/", core, "/0/buffer/", last);
       }},
      {&kBufferOverlap, "", false, nullptr, nullptr, {}, nullptr, false, MoveLastTensorOntoFirst},
      // A tensor wraps around its ring end.
      {&kBufferWrap, "", false, nullptr, nullptr, {}, nullptr, false, WrapTensorAroundRingEnd},
      {&kBufferCapacity,
       "",
       false,
       nullptr,
       nullptr,
       {&kBufferWrap},
       nullptr,
       false,
       ShrinkRingBelowItsTensors},
      {&kBufferTensorId, "", false, nullptr, nullptr, {}, nullptr, false, RepeatOrMoveTensorId},
      {&kBufferNewlyAdded,
       "/0/0/buffer/0/newly_added",
       false,
       [](json& ir) { W(ir, "0", 0).at("buffer").at(0).at("newly_added") = false; },
       nullptr,
       {}},
      // The tensor holding the first workload's ifmap no longer says so.
      {&kBufferCurWlIfmap,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const auto holds = [](const json& e) { return e.value("cur_wl_ifmap", false); };
         const Placed at = FirstWorkload(
             ir, [&](const json& w) { return FirstIndex(w.at("buffer"), holds).has_value(); });
         (*at.workload)["buffer"][*FirstIndex(at.workload->at("buffer"), holds)]["cur_wl_ifmap"] =
             false;
         return at.path;
       }},
      {&kBufferSources, "", false, nullptr, nullptr, {}, nullptr, false, RepeatFirstSource},
      // A weight copied from L2 claims to stream from DRAM.
      {&kBufferLiveness,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const auto core = [](const json& e) { return e.value("source", "") == "CORE"; };
         const Placed at = FirstWorkload(ir, [&](const json& w) {
           return w.contains("weight") && FirstIndex(WlBuffer(w), core).has_value();
         });
         json& wl0 =
             (*at.workload)[at.workload->contains("wl0_buffer") ? "wl0_buffer" : "wl1_buffer"];
         wl0[*FirstIndex(wl0, core)]["source"] = "DDR";
         return at.path + "/weight";
       }},
      // The extra tensor lists a transfer none of its sources names.
      {&kBufferForwardLifetime,
       "",
       false,
       nullptr,
       nullptr,
       {&kBufferSources},
       nullptr,
       false,
       CarryForwardedTransferTwice},
      {&kBufferTensorOrder,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       OrderCoreFedTensorFirst},
      // The first store entry names a layer other than its producer's.
      {&kBufferOfmapEntry,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const auto store = [](const json& e) { return e.at("type") == "ofmap"; };
         const Placed at = FirstWorkload(
             ir, [&](const json& w) { return FirstIndex(w.at("buffer"), store).has_value(); });
         const size_t e = *FirstIndex(at.workload->at("buffer"), store);
         json& layer = (*at.workload)["buffer"][e]["layer_name"];
         layer = layer.get<std::string>() + "_other";
         return Str(at.path, "/buffer/", e, "/layer_name");
       }},
      // The first WL0 entry, twice.
      {&kWl0Overlap,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const Placed at = FirstWorkload(ir, [](const json& w) { return !WlBuffer(w).empty(); });
         json& wl0 = (*at.workload)[WlKey(*at.workload)];
         wl0.push_back(wl0[0]);
         return Str(at.path, "/", WlKey(*at.workload), "/", wl0.size() - 1);
       }},
      // The first WL0 entry ends off the 8-byte grid.
      {&kWl0Capacity,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       [](json& ir) {
         const Placed at = FirstWorkload(ir, [](const json& w) { return !WlBuffer(w).empty(); });
         const std::string key = at.workload->contains("wl0_buffer") ? "wl0_buffer" : "wl1_buffer";
         json& size = (*at.workload)[key][0]["size"];
         size = size.get<int64_t>() - 4;
         return Str(at.path, "/", key, "/0");
       }},
      // Core 0 starts by reading core 1's last output, which needs core 0's.
      {&kScheduleDeadlock,
       "",
       false,
       nullptr,
       nullptr,
       {},
       nullptr,
       false,
       ReadOtherCoreOutputFirst},
      // The same, but core 1's conv_1 no longer reads core 0's conv_0: no
      // data cycle, yet core 1 can only send once core 0's conv_0 has freed
      // the space of conv_1's merged tensor (I-D2), and core 0's conv_0
      // waits for that send.
      {&kScheduleSpaceDeadlock,
       "",
       false,
       [](json& ir) {
         ReadCore1OutputFirst(ir);
         W(ir, "1", 1).at("ifmap").at(0).at("transfer_id") = {5};
         json& destinations = W(ir, "0", 0).at("ofmap").at(0).at("destination");
         destinations.erase(destinations.size() - 1);
       },
       nullptr,
       {}},
      // The frontend IR (I-F), validated as the file itself.
      {&kFrontendType,
       "",
       false,
       nullptr,
       nullptr,
       {},
       [](json& fe) {
         const std::string layer = FirstLayer(fe);
         fe[layer]["layer_index"] = std::to_string(fe[layer]["layer_index"].get<int64_t>());
         return LayerPointer(layer) + "/layer_index";
       }},
      {&kFrontendMissingKey,
       "",
       false,
       nullptr,
       nullptr,
       {},
       [](json& fe) {
         const std::string layer = FirstLayer(fe);
         fe.at(layer).erase("next_layer");
         return LayerPointer(layer);
       }},
      {&kFrontendRange,
       "",
       false,
       nullptr,
       nullptr,
       {},
       [](json& fe) {
         const std::string layer = FirstOf(fe, {"conv2d", "max_pool2d", "avg_pool2d"});
         fe[layer]["stride"] = {0, 0};
         return LayerPointer(layer) + "/stride";
       }},
      {&kFrontendName,
       "",
       false,
       nullptr,
       nullptr,
       {},
       [](json& fe) {
         const std::string layer = FirstLayer(fe);
         fe[layer]["name"] = layer + "_renamed";
         return LayerPointer(layer) + "/name";
       }},
      {&kFrontendLayerIndex,
       "",
       false,
       nullptr,
       nullptr,
       {},
       [](json& fe) {
         const std::string layer = FirstLayer(fe);
         fe[layer]["layer_index"] = fe.size();
         return LayerPointer(layer) + "/layer_index";
       }},
      {&kFrontendReference,
       "",
       false,
       nullptr,
       nullptr,
       {},
       [](json& fe) {
         const std::string layer = FirstLayer(fe);
         fe[layer]["next_layer"].push_back("no_such_layer");
         return Str(LayerPointer(layer), "/next_layer/", fe[layer]["next_layer"].size() - 1);
       }},
      // The first layer no longer lists the one it feeds.
      {&kFrontendLink,
       "",
       false,
       nullptr,
       nullptr,
       {},
       [](json& fe) {
         const auto [from, to] = FirstLink(fe);
         json& next = fe[from]["next_layer"];
         next.erase(std::find(next.begin(), next.end(), to));
         return PreviousPointer(fe, from, to);
       }},
      // The first layer and the one it feeds swap their layer_index.
      {&kFrontendOrder,
       "",
       false,
       nullptr,
       nullptr,
       {},
       [](json& fe) {
         const auto [from, to] = FirstLink(fe);
         std::swap(fe[from]["layer_index"], fe[to]["layer_index"]);
         return PreviousPointer(fe, from, to);
       }},
      {&kFrontendInputShape,
       "",
       false,
       nullptr,
       nullptr,
       {},
       [](json& fe) {
         const std::string layer = LayerWhere(fe, [&](const json& l) {
           return !l.at("previous_layer").empty() &&
                  fe.contains(l.at("previous_layer")[0].get<std::string>());
         });
         json& batch = fe[layer]["input_shape"][0][0];
         batch = batch.get<int64_t>() + 1;
         return LayerPointer(layer) + "/input_shape/0";
       }},
      // The first convolution's weight gains an output channel.
      {&kFrontendOperands,
       "",
       false,
       nullptr,
       nullptr,
       {},
       [](json& fe) {
         const std::string layer = FirstOf(fe, {"conv2d"});
         json& k = fe[layer]["input_shape"][1][0];
         k = k.get<int64_t>() + 1;
         return LayerPointer(layer) + "/input_shape/1";
       }},
      // One stride more padding above: one output row more than written.
      {&kFrontendOutputSize,
       "",
       false,
       nullptr,
       nullptr,
       {},
       [](json& fe) {
         const std::string layer = FirstOf(fe, {"conv2d", "max_pool2d", "avg_pool2d"});
         json& top = fe[layer]["padding"][0];
         top = top.get<int64_t>() + fe[layer]["stride"][0].get<int64_t>();
         return LayerPointer(layer) + "/output_shape/0";
       }},
      {&kFrontendUnchecked, "", false, nullptr, nullptr, {}, nullptr, true},
  };
}

// The changes in rule-table order.
const std::vector<Change>& Changes() {
  static const std::vector<Change> kChanges = [] {
    std::vector<Change> table = Table();
    const RuleTable all = AllRules();
    const auto order = [&](const Change& c) {
      return std::find(all.begin(), all.end(), c.rule) - all.begin();
    };
    std::stable_sort(table.begin(), table.end(),
                     [&](const Change& a, const Change& b) { return order(a) < order(b); });
    return table;
  }();
  return kChanges;
}

// The base with the change. Text changes apply to the text as it is; the
// others to the parsed IR, written back compact. The changes name the
// objects they edit (core "0", its first workload, ...): on an IR without
// them they throw, or edit something else, which the check of the result
// then rejects.
// The changed text and the pointer to report.
struct ChangedText {
  std::string text;
  std::string path;
};

ac::OrDeclined<ChangedText> Changed(const std::string& text, const Change& c) {
  const auto lacks = [&](const std::string& what) {
    return ac::Declined{Str("cannot break ", c.rule->id,
                            " in this IR: it lacks what the change edits (", what, ")")};
  };
  try {
    ChangedText changed{text, c.path};
    if (c.text_change) {
      c.text_change(changed.text);
    } else {
      json ir = json::parse(text);
      if (c.placed) {
        changed.path = c.placed(ir);
      } else {
        c.change(ir);
      }
      changed.text = ir.dump();
    }
    return changed;
  } catch (const NoPlace& e) {
    return ac::Declined{Str("cannot break ", c.rule->id, " in this IR: ", e.what())};
  } catch (const std::exception& e) {
    return lacks(JsonExceptionText(e.what()));
  }
}

bool IsFrontend(const ac::NamedFile& file) {
  return LooksLikeFrontend(ByteView(file.bytes.data(), file.bytes.size()));
}

// A frontend rule's change: the base's frontend IR (the file itself, or its
// companion) changed, validated alone.
ac::OrDeclined<ac::Mutated> ApplyToFrontend(const Change& c, const ac::Base& base,
                                            const std::string& name) {
  const ac::NamedFile* frontend = IsFrontend(base.files[0]) ? &base.files[0] : nullptr;
  for (const ac::NamedFile& companion : base.companions) {
    if (frontend == nullptr && IsFrontend(companion)) frontend = &companion;
  }
  if (frontend == nullptr) {
    return ac::Declined{Str(c.rule->id, " is a rule of the frontend IR: mutate the frontend IR, ",
                            "or give it with --frontend FILE")};
  }
  try {
    json changed = json::parse(frontend->bytes.begin(), frontend->bytes.end());
    const std::string path = c.frontend_change(changed);
    const std::string text = changed.dump();
    return ac::Mutated{{{name, std::vector<uint8_t>(text.begin(), text.end())}}, {}, path};
  } catch (const std::exception& e) {
    return ac::Declined{Str("cannot break ", c.rule->id,
                            " in this frontend IR: it lacks what the change edits (",
                            JsonExceptionText(e.what()), ")")};
  }
}

// The cases have one change per rule, so `seed` has nothing to pick. A case
// is validated with the frontend only for a rule about it (the others do not
// list the frontend rules they may break).
ac::OrDeclined<ac::Mutated> ApplyToBase(const Change& c, const ac::Base& base,
                                        const std::string& name) {
  if (c.frontend_change) return ApplyToFrontend(c, base, name);
  const std::vector<uint8_t>& bytes = base.files[0].bytes;
  if (IsFrontend(base.files[0])) {
    return ac::Declined{
        Str(c.rule->id, " is a rule of the scheduler IR, and the input is a frontend IR")};
  }
  if (LooksLikeSetIr(ByteView(bytes.data(), bytes.size()))) {
    return ac::Declined{Str(c.rule->id, " is a case of the Gemini dialect, and the input is an ",
                            "IR of the SET generator's dialect")};
  }
  // I-F9: the same schedule, without the frontend it was given.
  if (c.without_frontend) return ac::Mutated{{{name, bytes}}, {}, c.path};
  ac::OrDeclined<ChangedText> changed = Changed(std::string(bytes.begin(), bytes.end()), c);
  if (auto* declined = std::get_if<ac::Declined>(&changed)) return std::move(*declined);
  const ChangedText& result_text = std::get<ChangedText>(changed);
  const std::string& text = result_text.text;
  ac::Mutated result{
      {{name, std::vector<uint8_t>(text.begin(), text.end())}}, {}, result_text.path};
  if (c.with_frontend) {
    for (const ac::NamedFile& companion : base.companions)
      result.companions.push_back(companion.name);
  }
  return result;
}

}  // namespace

const std::vector<ac::MutationCase>& MutationCases() {
  static const std::vector<ac::MutationCase> kCases = [] {
    std::vector<ac::MutationCase> cases;
    for (const Change& c : Changes()) {
      cases.push_back({c.rule, c.also, c.with_frontend || c.without_frontend,
                       [&c](const ac::Base& base, uint64_t /*seed*/, const std::string& name) {
                         return ApplyToBase(c, base, name);
                       }});
    }
    for (ac::MutationCase& c : SetMutationCases()) cases.push_back(std::move(c));
    return cases;
  }();
  return kCases;
}

}  // namespace accelcheck::gemini
