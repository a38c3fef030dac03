#include "conformance/gemini/cases.h"

#include <fstream>
#include <sstream>

#include "conformance/gemini/generate.h"
#include "validators/gemini/rules.h"

namespace accelcheck::gemini {

namespace {

using nlohmann::json;

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

json& W(json& ir, const char* core, int i) { return ir[core][i]; }

std::string ExpectationOf(const Rule& rule) {
  switch (rule.category) {
    case Category::kMalformed: return "malformed";
    case Category::kUnsupported: return "unsupported";
    case Category::kLimit: return "limit";
    case Category::kInternal: return "internal";
    case Category::kInvalid: break;
  }
  return "invalid";
}

bool WriteText(const std::filesystem::path& path, const std::string& text, std::string* error) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (out) return true;
  if (error) *error = "cannot write " + path.string();
  return false;
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

const std::vector<CaseMutation>& CaseMutations() {
  using namespace rules;
  static const std::vector<CaseMutation> kMutations = {
      {&kJsonSyntax, "", false, nullptr, [](std::string& t) { t.resize(t.size() / 2); }, {}},
      {&kJsonDuplicateKey, "/buffersize", false, nullptr,
       [](std::string& t) { t.replace(t.find("\"buffersize\":"), 13, "\"buffersize\":1,\"buffersize\":"); }, {}},
      {&kJsonNumberRange, "/buffersize", false, [](json& ir) { ir["buffersize"] = 65536.5; }, nullptr, {}},
      {&kSchemaType, "/0/0/time", false, [](json& ir) { W(ir, "0", 0)["time"] = "100"; }, nullptr, {}},
      {&kSchemaMissingKey, "/0/0", false, [](json& ir) { W(ir, "0", 0).erase("ofmap_size"); }, nullptr, {}},
      {&kSchemaUnknownKey, "/0/0/colour", false, [](json& ir) { W(ir, "0", 0)["colour"] = 1; }, nullptr, {}},
      {&kSchemaEnum, "/0/0/buffer/0/type", false, [](json& ir) { W(ir, "0", 0)["buffer"][0]["type"] = "bias"; }, nullptr, {}},
      {&kTopKeys, "/cores", false, [](json& ir) { ir["cores"] = 1; }, nullptr, {}},
      {&kTopCoreRange, "/1", false, [](json& ir) { ir["xlen"] = 1; }, nullptr, {}},
      {&kTopParams, "/top_batch_cut", false, [](json& ir) { ir["top_batch_cut"] = 0; }, nullptr, {}},
      {&kWorkloadBufferKey, "/0/0", false, [](json& ir) { W(ir, "0", 0).erase("wl0_buffer"); }, nullptr, {}},
      {&kWorkloadWl1Dialect, "/0/0/wl1_buffer", false,
       [](json& ir) {
         W(ir, "0", 0)["wl1_buffer"] = W(ir, "0", 0)["wl0_buffer"];
         W(ir, "0", 0).erase("wl0_buffer");
       },
       nullptr, {}},
      {&kRangeOrder, "/0/0/ifmap/0", false, [](json& ir) { W(ir, "0", 0)["ifmap"][0]["lower"][1] = 9; }, nullptr, {}},
      {&kWorkloadWeight, "/0/0", false, [](json& ir) { W(ir, "0", 0).erase("weight"); }, nullptr, {}},
      {&kFrontendLayer, "/0/0/layer_name", true, [](json& ir) { W(ir, "0", 0)["layer_name"] = "conv_9"; }, nullptr, {}},
      {&kFrontendLayerType, "/0/0/layer_type", true, [](json& ir) { W(ir, "0", 0)["layer_type"] = "vp"; }, nullptr,
       {&kWorkloadWeight}},
      {&kWorkloadOrder, "/0/1/workload_id", false, [](json& ir) { W(ir, "0", 1)["workload_id"] = 0; }, nullptr, {}},
      {&kTileKeys, "/0/0/tile_info", false,
       [](json& ir) {
         json& tiles = W(ir, "0", 0)["tile_info"];
         tiles["tile_num_2"] = tiles["tile_num_1"];
         tiles.erase("tile_num_1");
       },
       nullptr, {}},
      {&kTilePartition, "/0/0/tile_info/tile_num_1", false,
       [](json& ir) { W(ir, "0", 0)["tile_info"]["tile_num_1"]["ofmap_lower"][2] = 0; }, nullptr, {}},
      {&kTileReceptiveField, "/0/0/tile_info/tile_num_1", true,
       [](json& ir) {
         json& lower = W(ir, "0", 0)["tile_info"]["tile_num_1"]["ifmap_lower"];
         lower[2] = lower[2].get<int64_t>() + 1;
       },
       nullptr, {}},
      {&kTilePadding, "/0/0/tile_info/tile_num_0", true,
       [](json& ir) { W(ir, "0", 0)["tile_info"]["tile_num_0"]["tile_padding_tblr"][0] = 0; }, nullptr, {}},
      {&kTileMiniTile, "/0/0/tile_info/tile_num_0", false,
       [](json& ir) { W(ir, "0", 0)["tile_info"]["tile_num_0"]["loop_order"] = "KNHH"; }, nullptr, {}},
      {&kWorkloadTime, "/0/0/time", false, [](json& ir) { W(ir, "0", 0)["time"] = -1; }, nullptr, {}},
      {&kSizeLayout, "/0/0/ifmap/0", false, [](json& ir) { W(ir, "0", 0)["ifmap"][0]["align"] = 4; }, nullptr, {}},
      {&kSizeFmap, "/0/0/ifmap/0/size", false,
       [](json& ir) { W(ir, "0", 0)["ifmap"][0]["size"] = W(ir, "0", 0)["ifmap"][0]["size"].get<int64_t>() + 8; }, nullptr, {}},
      {&kSizeWeight, "/0/0/weight/size", false,
       [](json& ir) { W(ir, "0", 0)["weight"]["size"] = W(ir, "0", 0)["weight"]["size"].get<int64_t>() + 8; }, nullptr, {}},
      {&kSizeOfmap, "/0/0/ofmap/0/size", false,
       [](json& ir) { W(ir, "0", 0)["ofmap_size"] = W(ir, "0", 0)["ofmap_size"].get<int64_t>() + 8; }, nullptr, {}},
      {&kSizeExtent, "/0/0/ofmap/0", false, [](json& ir) { W(ir, "0", 0)["ofmap"][0]["upper"][3] = 2; }, nullptr, {}},
      {&kTransferUnique, "/-1/out/1/transfer_id", false,
       [](json& ir) { ir["-1"]["out"][1]["transfer_id"] = ir["-1"]["out"][0]["transfer_id"]; }, nullptr, {}},
      {&kTransferDramIn, "/-1/in/0", false, [](json& ir) { ir["-1"]["in"][0]["upper"][3] = 2; }, nullptr, {}},
      {&kTransferRelated, "/-1/in/0/related_ofmap", false,
       [](json& ir) { ir["-1"]["in"][0]["related_ofmap"] = json::array({ir["-1"]["out"][0]["transfer_id"]}); }, nullptr, {}},
      {&kTransferProduced, "/0/1/ifmap/0/transfer_id", false,
       [](json& ir) { W(ir, "0", 1)["ifmap"][0]["transfer_id"][0] = 99999; }, nullptr, {&kTransferUnreadDestination}},
      {&kTransferDestination, "/-1/out/0/destination/0", false,
       [](json& ir) { ir["-1"]["out"][0]["destination"][0]["workload_id"] = 7; }, nullptr, {}},
      {&kTransferDelivery, "/-1/out/0/destination/2", false,
       [](json& ir) {
         ir["-1"]["out"][0]["destination"].push_back(
             {{"core_id", 0}, {"layer_name", "conv_1"}, {"type", "core"}, {"workload_id", 1}});
       },
       nullptr, {}},
      {&kTransferConsumerListed, "/1/1/ifmap/0/transfer_id", false,
       [](json& ir) {
         json& destinations = W(ir, "0", 0)["ofmap"][0]["destination"];
         destinations.erase(destinations.size() - 1);
       },
       nullptr, {}},
      {&kBufferRegions, "/0/0/ring_buffer_info", false,
       [](json& ir) { W(ir, "0", 0)["ring_buffer_info"][0][1] = 2 * ir["buffersize"].get<int64_t>(); }, nullptr, {}},
      {&kBufferAddress, "/0/0/buffer/1/address", false,
       [](json& ir) { W(ir, "0", 0)["buffer"][1]["address"] = ir["buffersize"]; }, nullptr, {}},
      {&kBufferAlign, "/0/0/buffer/1", false,
       [](json& ir) { W(ir, "0", 0)["buffer"][1]["address"] = W(ir, "0", 0)["buffer"][1]["address"].get<int64_t>() + 4; },
       nullptr, {}},
      {&kBufferOverlap, "/0/0/buffer/1", false,
       [](json& ir) { W(ir, "0", 0)["buffer"][1]["address"] = W(ir, "0", 0)["buffer"][1]["address"].get<int64_t>() - 8; },
       nullptr, {}},
      {&kBufferTensorId, "/0/1/buffer/1/tensor_id", false,
       [](json& ir) { W(ir, "0", 1)["buffer"][1]["tensor_id"] = W(ir, "0", 1)["buffer"][0]["tensor_id"]; }, nullptr, {}},
      {&kBufferNewlyAdded, "/0/0/buffer/0/newly_added", false,
       [](json& ir) { W(ir, "0", 0)["buffer"][0]["newly_added"] = false; }, nullptr, {}},
      {&kBufferCurWlIfmap, "/0/0/ifmap/0", false, [](json& ir) { W(ir, "0", 0)["buffer"][1]["cur_wl_ifmap"] = false; },
       nullptr, {}},
      {&kBufferSources, "/0/0/buffer/1/source/1", false,
       [](json& ir) { W(ir, "0", 0)["buffer"][1]["source"].push_back(W(ir, "0", 0)["buffer"][1]["source"][0]); }, nullptr,
       {}},
      {&kBufferLiveness, "/0/0/weight", false, [](json& ir) { W(ir, "0", 0)["wl0_buffer"][0]["source"] = "DDR"; }, nullptr,
       {}},
      {&kBufferTensorOrder, "/0/1/buffer/2/tensor_order", false,
       [](json& ir) { W(ir, "0", 1)["buffer"][2]["tensor_order"] = W(ir, "0", 0)["buffer"][0]["tensor_order"]; }, nullptr,
       {}},
      {&kBufferOfmapEntry, "/0/1/buffer/2/layer_name", false,
       [](json& ir) { W(ir, "0", 1)["buffer"][2]["layer_name"] = "conv_0"; }, nullptr, {}},
      {&kWl0Overlap, "/0/0/wl0_buffer/1", false,
       [](json& ir) { W(ir, "0", 0)["wl0_buffer"].push_back(W(ir, "0", 0)["wl0_buffer"][0]); }, nullptr, {}},
  };
  return kMutations;
}

bool WriteGeminiCases(const std::filesystem::path& dir, json& cases, std::string* error) {
  const std::filesystem::path out = dir / "gemini";
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  const std::string base = CaseBaseIr();
  if (ec || !WriteText(out / "valid_base.json", base, error) ||
      !WriteText(out / "valid_base.frontend.json", CaseBaseFrontend(), error)) {
    if (error && error->empty()) *error = "cannot create " + out.string();
    return false;
  }
  cases.push_back({{"id", "gemini.valid.base"}, {"format", "gemini"}, {"file", "gemini/valid_base.json"},
                   {"data", "gemini/valid_base.frontend.json"}, {"expect", "valid"}});
  for (const CaseMutation& m : CaseMutations()) {
    std::string text;
    if (m.text_change) {
      text = base;
      m.text_change(text);
    } else {
      json ir = json::parse(base);
      m.change(ir);
      text = ir.dump();
    }
    std::string file = std::string(m.rule->id);
    for (char& c : file) {
      if (c == '.') c = '_';
    }
    file = "gemini/" + file + ".json";
    if (!WriteText(dir / file, text, error)) return false;
    json c = {{"id", std::string(m.rule->id)},
              {"format", "gemini"},
              {"file", file},
              {"base", "valid_base.json"},
              {"expect", ExpectationOf(*m.rule)},
              {"rule", std::string(m.rule->id)},
              {"location", {{"path", m.path}, {"offset", nullptr}}}};
    if (m.with_frontend) c["data"] = "gemini/valid_base.frontend.json";
    if (!m.also.empty()) {
      c["also"] = json::array();
      for (const Rule* r : m.also) c["also"].push_back(std::string(r->id));
    }
    cases.push_back(std::move(c));
  }
  return true;
}

}  // namespace accelcheck::gemini
