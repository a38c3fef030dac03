#include "conformance/gemini/cases.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "conformance/gemini/generate.h"
#include "validators/core/json_exception.h"
#include "validators/core/text.h"
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
  visit(visit, ir["-1"]);
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

// Moves L2 tensor `tensor_id` of `core` to `address` in every snapshot that
// holds it, so that it keeps one address (I-B4).
void MoveTensor(json& ir, const std::string& core, const json& tensor_id, int64_t address) {
  for (json& w : ir.at(core)) {
    for (json& entry : w.at("buffer")) {
      if (entry.at("tensor_id") == tensor_id) entry["address"] = address;
    }
  }
}

// The index of the first element of `list` that `pick` takes, or nothing.
std::optional<size_t> FirstIndex(const json& list, const std::function<bool(const json&)>& pick) {
  if (!list.is_array()) return std::nullopt;
  for (size_t i = 0; i < list.size(); ++i) {
    if (pick(list[i])) return i;
  }
  return std::nullopt;
}

// Core 0's first workload also reads the output of core 1's last one (rows
// 4..7 of conv_1, transfer 7), from a tensor of its own snapshot: core 0
// then waits for core 1 at its start.
void ReadCore1OutputFirst(json& ir) {
  const json extent = json::array({0, 7, 3, 3});
  json& reader = W(ir, "0", 0);
  reader["ifmap"].push_back({{"align", 8},
                             {"bitwidth", 8},
                             {"lower", {0, 0, 0, 0}},
                             {"upper", extent},
                             {"size", 128},
                             {"transfer_id", {7}}});
  reader["buffer"].push_back({{"address", 4096},
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
                              {"tensor_order", W(ir, "0", 1)["buffer"][1]["tensor_order"]},
                              {"transfer_id", {7}},
                              {"type", "ifmap"}});
  W(ir, "1", 1)
  ["ofmap"][0]["destination"].push_back({{"core_id", 0}, {"type", "core"}, {"workload_id", 0}});
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
       [](json& ir) { ir["buffersize"] = 65536.5; },
       nullptr,
       {}},
      {&kSchemaType,
       "/0/0/time",
       false,
       [](json& ir) {
         W(ir, "0", 0)["time"] = "100";
       },
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
       [](json& ir) {
         W(ir, "0", 0)["buffer"][0]["type"] = "bias";
       },
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
       [](json& ir) { ir["top_batch_cut"] = 0; },
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
      {&kWorkloadWl1Dialect,
       "/0/0/wl1_buffer",
       false,
       [](json& ir) {
         W(ir, "0", 0)["wl1_buffer"] = W(ir, "0", 0)["wl0_buffer"];
         W(ir, "0", 0).erase("wl0_buffer");
       },
       nullptr,
       {}},
      {&kRangeOrder,
       "/0/0/ifmap/0",
       false,
       [](json& ir) {
         W(ir, "0", 0)["ifmap"][0]["lower"][1] = 9;
       },
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
       [](json& ir) {
         W(ir, "0", 0)["layer_name"] = "conv_9";
       },
       nullptr,
       {}},
      // The other engine: a convolution on the vector unit keeps its weight,
      // a vector operation on the PE array has none.
      {&kFrontendLayerType,
       "/0/0/layer_type",
       true,
       [](json& ir) {
         json& type = W(ir, "0", 0)["layer_type"];
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
         ir["top_batch_cut"] = batch + 1;
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
       [](json& ir) {
         W(ir, "0", 1)["workload_id"] = 0;
       },
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
      // Core 1's conv_1 reaches row 8 of an 8-row output; its last tile and
      // that tile's padding follow, so the tiles stay consistent.
      {&kWorkloadShape,
       "/1/1/workload",
       true,
       [](json& ir) {
         W(ir, "1", 1)["workload"][1][2] = 8;
         W(ir, "1", 1)["tile_info"]["tile_num_1"]["ofmap_upper"][2] = 8;
         W(ir, "1", 1)["tile_info"]["tile_num_1"]["tile_padding_tblr"][1] = 2;
       },
       nullptr,
       {}},
      {&kWorkloadTime,
       "/0/0/time",
       false,
       [](json& ir) {
         W(ir, "0", 0)["time"] = -1;
       },
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
         W(ir, "0", 0)["ifmap"][0]["size"] = W(ir, "0", 0)["ifmap"][0]["size"].get<int64_t>() + 8;
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
         W(ir, "0", 0)["ofmap_size"] = W(ir, "0", 0)["ofmap_size"].get<int64_t>() + 8;
       },
       nullptr,
       {}},
      {&kSizeExtent,
       "/0/0/ofmap/0",
       false,
       [](json& ir) {
         W(ir, "0", 0)["ofmap"][0]["upper"][3] = 2;
       },
       nullptr,
       {}},
      {&kTransferUnique,
       "/-1/out/1/transfer_id",
       false,
       [](json& ir) { ir["-1"]["out"][1]["transfer_id"] = ir["-1"]["out"][0]["transfer_id"]; },
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
         ir["-1"]["in"][0]["related_ofmap"] = json::array({ir["-1"]["out"][0]["transfer_id"]});
       },
       nullptr,
       {}},
      // Core 0's input reload depends on core 0's own output store: rows 0..3
      // of 0..4, and read before the store.
      {&kTransferCoverage,
       "/-1/out/2",
       false,
       [](json& ir) {
         ir["-1"]["out"][2]["related_ifmap"] = {6};
         ir["-1"]["in"][0]["related_ofmap"] = {2};
       },
       nullptr,
       {&kTransferDramOrder}},
      // Core 1's input reload depends on both stores (covered exactly), the
      // one of core 1 being written after core 1 reads the reload.
      {&kTransferDramOrder,
       "/-1/out/3",
       false,
       [](json& ir) {
         ir["-1"]["out"][3]["related_ifmap"] = {6, 7};
         ir["-1"]["in"][0]["related_ofmap"] = {3};
         ir["-1"]["in"][1]["related_ofmap"] = {3};
       },
       nullptr,
       {}},
      // Core 0's conv_1 reads only core 0's rows of the merged tensor.
      {&kTransferUnreadDestination,
       "/1/0/ofmap/0/destination/0",
       false,
       [](json& ir) {
         W(ir, "0", 1)["ifmap"][0]["transfer_id"] = {4};
       },
       nullptr,
       {}},
      // Core 0's conv_1 output is also sent back to conv_0, through the input
      // tensor of its snapshot.
      {&kTransferCausality,
       "/0/1/ofmap/0/destination/1",
       false,
       [](json& ir) {
         W(ir, "0", 1)
         ["ofmap"][0]["destination"].push_back(
             {{"core_id", 0}, {"type", "core"}, {"workload_id", 0}});
         W(ir, "0", 0)["buffer"][1]["transfer_id"].push_back(6);
       },
       nullptr,
       {&kTransferUnreadDestination, &kBufferSources}},
      {&kTransferProduced,
       "/0/1/ifmap/0/transfer_id",
       false,
       [](json& ir) {
         W(ir, "0", 1)["ifmap"][0]["transfer_id"][0] = 99999;
       },
       nullptr,
       {&kTransferUnreadDestination}},
      {&kTransferDestination,
       "/-1/out/0/destination/0",
       false,
       [](json& ir) { ir["-1"]["out"][0]["destination"][0]["workload_id"] = 7; },
       nullptr,
       {}},
      {&kTransferDelivery,
       "/-1/out/0/destination/2",
       false,
       [](json& ir) {
         ir["-1"]["out"][0]["destination"].push_back(
             {{"core_id", 0}, {"layer_name", "conv_1"}, {"type", "core"}, {"workload_id", 1}});
       },
       nullptr,
       {}},
      {&kTransferConsumerListed,
       "/1/1/ifmap/0/transfer_id",
       false,
       [](json& ir) {
         json& destinations = W(ir, "0", 0)["ofmap"][0]["destination"];
         destinations.erase(destinations.size() - 1);
       },
       nullptr,
       {}},
      {&kBufferRegions,
       "/0/0/ring_buffer_info",
       false,
       [](json& ir) {
         W(ir, "0", 0)["ring_buffer_info"][0][1] = 2 * ir["buffersize"].get<int64_t>();
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
      // The first snapshot's last tensor moves onto its first, in every
      // snapshot that holds it.
      {&kBufferOverlap,
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
         if (last == 0) throw std::invalid_argument("one tensor in the first snapshot");
         MoveTensor(ir, core, buffer.at(last).at("tensor_id"),
                    buffer.at(0).at("address").get<int64_t>());
         return Str("/", core, "/0/buffer");
       }},
      // Core 0's store entry ends 64 bytes past the ring end; the weight
      // moves up to leave the wrapped bytes free.
      {&kBufferWrap,
       "/0/1/buffer/2",
       false,
       [](json& ir) {
         W(ir, "0", 1)["buffer"][0]["address"] = 1088;
         W(ir, "0", 1)["buffer"][2]["address"] = ir["buffersize"].get<int64_t>() - 64;
       },
       nullptr,
       {}},
      // A ring ending just past the last tensor's start: every tensor starts
      // inside it, but together they do not fit, so the last one wraps.
      {&kBufferCapacity,
       "/0/1/buffer",
       false,
       [](json& ir) {
         W(ir, "0", 1)
         ["ring_buffer_info"][0][1] = W(ir, "0", 1)["buffer"][2]["address"].get<int64_t>() + 8;
       },
       nullptr,
       {&kBufferWrap}},
      {&kBufferTensorId,
       "/0/1/buffer/1/tensor_id",
       false,
       [](json& ir) {
         W(ir, "0", 1)["buffer"][1]["tensor_id"] = W(ir, "0", 1)["buffer"][0]["tensor_id"];
       },
       nullptr,
       {}},
      {&kBufferNewlyAdded,
       "/0/0/buffer/0/newly_added",
       false,
       [](json& ir) {
         W(ir, "0", 0)["buffer"][0]["newly_added"] = false;
       },
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
      {&kBufferSources,
       "/0/0/buffer/1/source/1",
       false,
       [](json& ir) {
         W(ir, "0", 0)["buffer"][1]["source"].push_back(W(ir, "0", 0)["buffer"][1]["source"][0]);
       },
       nullptr,
       {}},
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
      // Transfer 4 is listed in conv_0's input tensor, then in conv_1's merged
      // one: the data would move between tensors with no transfer.
      {&kBufferForwardLifetime,
       "/0/1/buffer",
       false,
       [](json& ir) {
         W(ir, "0", 0)["buffer"][1]["transfer_id"].push_back(4);
       },
       nullptr,
       {&kBufferSources}},
      {&kBufferTensorOrder,
       "/0/1/buffer/2/tensor_order",
       false,
       [](json& ir) {
         W(ir, "0", 1)["buffer"][2]["tensor_order"] = W(ir, "0", 0)["buffer"][0]["tensor_order"];
       },
       nullptr,
       {}},
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
      {&kScheduleDeadlock, "", false, ReadCore1OutputFirst, nullptr, {}},
      // The same, but core 1's conv_1 no longer reads core 0's conv_0: no
      // data cycle, yet core 1 can only send once core 0's conv_0 has freed
      // the space of conv_1's merged tensor (I-D2), and core 0's conv_0
      // waits for that send.
      {&kScheduleSpaceDeadlock,
       "",
       false,
       [](json& ir) {
         ReadCore1OutputFirst(ir);
         W(ir, "1", 1)["ifmap"][0]["transfer_id"] = {5};
         json& destinations = W(ir, "0", 0)["ofmap"][0]["destination"];
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
    return cases;
  }();
  return kCases;
}

}  // namespace accelcheck::gemini
