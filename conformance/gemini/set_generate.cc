#include "conformance/gemini/set_generate.h"

#include <algorithm>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "validators/core/text.h"
#include "validators/gemini/set_model.h"

namespace accelcheck::gemini {

namespace {

using nlohmann::json;

constexpr int64_t kRing = set::kRingBlocks;

// An inclusive NCHW box as the dialect writes it.
struct Box {
  std::array<int64_t, 4> lo{};
  std::array<int64_t, 4> hi{};
  int64_t Volume() const {
    int64_t v = 1;
    for (int d = 0; d < 4; ++d) v *= hi[d] - lo[d] + 1;
    return v;
  }
  int64_t Bits() const { return Volume() * 8; }  // int8 tensors
};

int64_t BlocksOf(int64_t bits) { return (bits + set::kBitsPerBlock - 1) / set::kBitsPerBlock; }

struct Placement {
  int64_t address = 0;
  int64_t blocks = 0;
};

// Each core's next free block, round the ring.
class Ring {
 public:
  Placement Take(int64_t blocks) {
    const Placement p{next_, blocks};
    next_ = (next_ + blocks) % kRing;
    return p;
  }

 private:
  int64_t next_ = 0;
};

class SetWriter {
 public:
  explicit SetWriter(const GenerateOptions& o) : o_(o), cores_(o.mesh_x * o.mesh_y) {}

  std::optional<std::string> Write(std::ostream& out);

 private:
  int64_t MeshId(int core) const {
    return (core / o_.mesh_x) * (o_.mesh_x + 2) + core % o_.mesh_x + 1;
  }
  // The two DRAM ports of a core's mesh row: its west and east ends.
  json RowPorts(int core) const {
    const int row = core / o_.mesh_x;
    return json::array({2 * row, 2 * row + 1});
  }
  int64_t WorkloadId(int layer, int core) const { return int64_t{layer} * cores_ + core; }
  // Output channels [lo, hi] of `core`'s workload.
  std::pair<int64_t, int64_t> Channels(int core) const {
    return {o_.channels * core / cores_, o_.channels * (core + 1) / cores_ - 1};
  }
  Box BlockOf(int core) const {
    const auto [lo, hi] = Channels(core);
    return {{0, lo, 0, 0}, {o_.batch - 1, hi, o_.height - 1, o_.width - 1}};
  }
  // A block sent core to core goes in two transfers, split along W, as the
  // real writer splits them (docs/formats/gemini.md "The SET dialect").
  std::vector<Box> Parts(const Box& b) const {
    if (b.hi[3] == b.lo[3]) return {b};
    const int64_t mid = (b.lo[3] + b.hi[3] + 1) / 2;
    Box west = b, east = b;
    west.hi[3] = mid - 1;
    east.lo[3] = mid;
    return {west, east};
  }
  Box Whole() const {
    return {{0, 0, 0, 0}, {o_.batch - 1, o_.channels - 1, o_.height - 1, o_.width - 1}};
  }
  static json Lower(const Box& b) { return b.lo; }
  static json Upper(const Box& b) { return b.hi; }

  json DramOut(int64_t transfer_id, const char* type, const std::string& layer, json lower,
               json upper, int64_t bits, const std::vector<std::pair<int, int64_t>>& destinations);
  void Layer(int layer);

  const GenerateOptions& o_;
  const int cores_;
  int64_t next_transfer_ = 0;
  std::vector<json> workloads_;  // per core
  std::vector<json> ports_in_;   // per port
  std::vector<json> ports_out_;  // per port
  std::vector<Ring> rings_;
  // The block each core's workload of the last layer sent, per consumer.
  std::vector<std::vector<int64_t>> sends_;  // [producer core][consumer core]
  // The ofmap entry held into the core's next snapshot.
  std::vector<json> held_;
  int64_t input_id_ = -1;
};

json SetWriter::DramOut(int64_t transfer_id, const char* type, const std::string& layer, json lower,
                        json upper, int64_t bits,
                        const std::vector<std::pair<int, int64_t>>& destinations) {
  json dest = json::array();
  int64_t priority = INT64_MAX;
  for (const auto& [core, workload] : destinations) {
    dest.push_back({{"id", MeshId(core)}, {"type", "core"}, {"workload_id", workload}});
    priority = std::min(priority, workload);
  }
  return {{"destination", dest},
          {"layer_name", layer},
          {"lower", lower},
          {"priority", priority},
          {"related_ifmap", json::array()},
          {"size", bits},
          {"transfer_id", transfer_id},
          {"type", type},
          {"upper", upper}};
}

void SetWriter::Layer(int layer) {
  const std::string name = ConvolutionName(layer);
  const bool last = layer + 1 == o_.layers;
  const Box whole = Whole();
  // Every workload's own transfers, before any snapshot names them.
  std::vector<int64_t> weight_ids(cores_);
  // Per core: its store to DRAM, or per consumer and part a transfer.
  const size_t parts = last ? 1 : Parts(BlockOf(0)).size();
  std::vector<std::vector<int64_t>> send_ids(
      cores_, std::vector<int64_t>(last ? 1 : static_cast<size_t>(cores_) * parts));
  for (int core = 0; core < cores_; ++core) {
    const auto [k_lo, k_hi] = Channels(core);
    weight_ids[core] = next_transfer_++;
    const int64_t weight_bits = (k_hi - k_lo + 1) * o_.channels * 9 * 8;
    ports_out_[0].push_back(DramOut(weight_ids[core], "weight", name, k_lo, k_hi, weight_bits,
                                    {{core, WorkloadId(layer, core)}}));
    for (int64_t& id : send_ids[core]) id = next_transfer_++;
  }
  for (int core = 0; core < cores_; ++core) {
    const int64_t id = WorkloadId(layer, core);
    const Box block = BlockOf(core);
    const auto [k_lo, k_hi] = Channels(core);
    Ring& ring = rings_[core];
    json buffer = json::array();
    if (!held_[core].is_null()) {
      held_[core]["end_sending"] = true;
      held_[core]["start_ending"] = true;
      buffer.push_back(std::move(held_[core]));
      held_[core] = nullptr;
    }
    // The weight, from DRAM.
    const int64_t weight_bits = (k_hi - k_lo + 1) * o_.channels * 9 * 8;
    const Placement w = ring.Take(BlocksOf(weight_bits));
    buffer.push_back({{"address", w.address},
                      {"block", w.blocks},
                      {"end_loading", true},
                      {"layer", name},
                      {"lower", k_lo},
                      {"priority", id},
                      {"source", json::array({{{"id", json::array({0})},
                                               {"lower", k_lo},
                                               {"size", weight_bits},
                                               {"transfer_id", weight_ids[core]},
                                               {"type", "DRAM"},
                                               {"upper", k_hi}}})},
                      {"start_loading", true},
                      {"transfer_id", json::array({weight_ids[core]})},
                      {"type", "weight"},
                      {"upper", k_hi}});
    // The input: the network input from DRAM, or every block of the layer before.
    json sources = json::array();
    std::vector<int64_t> reads;
    int64_t max_workload = 0;
    if (layer == 0) {
      sources.push_back({{"channel", json::array({0, o_.channels - 1})},
                         {"id", json::array({0})},
                         {"layer_name", "input"},
                         {"lower", Lower(whole)},
                         {"size", whole.Bits()},
                         {"transfer_id", input_id_},
                         {"type", "DRAM"},
                         {"upper", Upper(whole)}});
      reads.push_back(input_id_);
    } else {
      for (int producer = 0; producer < cores_; ++producer) {
        const std::vector<Box> from = Parts(BlockOf(producer));
        for (size_t part = 0; part < from.size(); ++part) {
          const int64_t t = sends_[producer][core * from.size() + part];
          sources.push_back({{"channel", json::array({from[part].lo[1], from[part].hi[1]})},
                             {"id", MeshId(producer)},
                             {"layer_name", ConvolutionName(layer - 1)},
                             {"lower", Lower(from[part])},
                             {"size", from[part].Bits()},
                             {"transfer_id", t},
                             {"type", "core"},
                             {"upper", Upper(from[part])}});
          reads.push_back(t);
        }
        max_workload = std::max(max_workload, WorkloadId(layer - 1, producer));
      }
    }
    std::sort(reads.begin(), reads.end());
    const Placement in = ring.Take(BlocksOf(whole.Bits()));
    json ifmap = {{"address", in.address}, {"block", in.blocks},    {"end_loading", true},
                  {"layer", name},         {"lower", Lower(whole)}, {"source", sources},
                  {"start_loading", true}, {"transfer_id", reads},  {"type", "ifmap"},
                  {"upper", Upper(whole)}, {"workload_id", id}};
    if (layer == 0) ifmap["priority"] = 0;  // the input's first reader is workload 0
    buffer.push_back(std::move(ifmap));
    // The ofmap, sent to each workload of the next layer or stored to DRAM.
    json sends = json::array();
    const std::vector<Box> parts_of_block = last ? std::vector<Box>{block} : Parts(block);
    for (size_t s = 0; s < send_ids[core].size(); ++s) {
      const Box& sent = parts_of_block[s % parts];
      json target;
      if (last) {
        target = {{"id", RowPorts(core)}, {"layer_name", "output"}, {"type", "DRAM"}};
        const json in_entry = {{"core_id", MeshId(core)},        {"lower", Lower(block)},
                               {"related_ofmap", json::array()}, {"transfer_id", send_ids[core][s]},
                               {"upper", Upper(block)},          {"workload_id", id}};
        for (const json& port : RowPorts(core)) ports_in_[port.get<size_t>()].push_back(in_entry);
      } else {
        const int consumer = static_cast<int>(s / parts);
        target = {{"id", MeshId(consumer)},
                  {"layer_name", ConvolutionName(layer + 1)},
                  {"type", "core"},
                  {"workload_id", WorkloadId(layer + 1, consumer)}};
      }
      sends.push_back({{"destination", json::array({target})},
                       {"lower", Lower(sent)},
                       {"size", sent.Bits()},
                       {"transfer_id", send_ids[core][s]},
                       {"upper", Upper(sent)}});
    }
    const Placement o = ring.Take(BlocksOf(block.Bits()));
    const bool held = !last;  // the core runs the next layer's workload after it
    json ofmap = {{"address", o.address},  {"block", o.blocks},      {"destinations", sends},
                  {"end_sending", !held},  {"layer", name},          {"lower", Lower(block)},
                  {"size", block.Bits()},  {"start_sending", !held}, {"type", "ofmap"},
                  {"upper", Upper(block)}, {"workload_id", id}};
    if (held) held_[core] = ofmap;
    buffer.push_back(std::move(ofmap));
    const json weight = {
        {"lower", k_lo}, {"transfer_id", json::array({weight_ids[core]})}, {"upper", k_hi}};
    workloads_[core].push_back({{"buffer", std::move(buffer)},
                                {"ifmap",
                                 {{"lower", Lower(whole)},
                                  {"max_workload_id", max_workload},
                                  {"transfer_id", reads},
                                  {"upper", Upper(whole)}}},
                                {"layer_name", name},
                                {"layer_type", "conv2d"},
                                {"ofmap_size", block.Bits()},
                                {"time", block.Volume() * o_.channels * 9 / 64 + 1},
                                {"weight", weight},
                                {"workload", json::array({Lower(block), Upper(block)})},
                                {"workload_id", id}});
  }
  sends_ = send_ids;
}

std::optional<std::string> SetWriter::Write(std::ostream& out) {
  if (!o_.kinds.empty()) return "the SET dialect is written for a chain of convolutions only";
  if (o_.channels < cores_)
    return Str("the mesh has ", cores_, " cores but only ", o_.channels,
               " channels to split among them");
  // The ring holds 8 Mbit: larger tensors are refused before their sizes
  // are multiplied out in 64 bits (in doubles, which cannot overflow here).
  const double ring_bits = static_cast<double>(kRing * set::kBitsPerBlock);
  const auto d = [](int64_t v) { return static_cast<double>(v); };
  if (d(o_.batch) * d(o_.channels) * d(o_.height) * d(o_.width) * 8 > ring_bits ||
      d(o_.channels) * d(o_.channels) * 72 > ring_bits) {
    return "a layer's input or weights alone are larger than the ring of 1024 KiB";
  }
  // A snapshot holds a weight, an input, an ofmap and the ofmap held before,
  // each block no larger than the whole tensor.
  const int64_t snapshot =
      BlocksOf(o_.channels * o_.channels * 9 * 8) + 3 * BlocksOf(Whole().Bits());
  if (snapshot > kRing) {
    return Str("a snapshot takes up to ", snapshot, " blocks, more than the ring's ", kRing);
  }
  const int ports = 2 * o_.mesh_y;
  workloads_.assign(cores_, json::array());
  ports_in_.assign(ports, json::array());
  ports_out_.assign(ports, json::array());
  rings_.assign(cores_, Ring{});
  held_.assign(cores_, nullptr);
  input_id_ = next_transfer_++;
  std::vector<std::pair<int, int64_t>> first_layer;
  for (int core = 0; core < cores_; ++core) first_layer.emplace_back(core, WorkloadId(0, core));
  const Box whole = Whole();
  ports_out_[0].push_back(
      DramOut(input_id_, "fmap", "input", Lower(whole), Upper(whole), whole.Bits(), first_layer));
  for (int layer = 0; layer < o_.layers; ++layer) Layer(layer);
  json doc = json::object();
  json positions = json::object();
  json dram = json::object();
  for (int p = 0; p < ports; ++p) {
    positions[std::to_string(p)] = {{"x", p % 2}, {"y", p / 2}};
    dram[std::to_string(p)] = {{"in", ports_in_[p]}, {"out", ports_out_[p]}};
  }
  for (int core = 0; core < cores_; ++core) doc[std::to_string(MeshId(core))] = workloads_[core];
  doc["DRAM"] = std::move(dram);
  doc["metadata"] = {
      {"DRAM", positions}, {"top_batch_cut", 1}, {"xlen", o_.mesh_x}, {"ylen", o_.mesh_y}};
  out << doc.dump(1);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> GenerateSetIr(const GenerateOptions& options, std::ostream& ir,
                                         std::ostream& frontend) {
  if (options.layers < 1 || options.mesh_x < 1 || options.mesh_y < 1 || options.batch < 1 ||
      options.channels < 1 || options.height < 1 || options.width < 1) {
    return "sizes are whole numbers of at least 1";
  }
  if (auto problem = SetWriter(options).Write(ir)) return problem;
  GenerateFrontend(options, frontend);
  return std::nullopt;
}

namespace {

GenerateOptions SetBaseOptions() {
  GenerateOptions o;
  o.layers = 2;
  o.mesh_x = 2;
  o.channels = 8;
  o.height = 8;
  o.width = 4;
  return o;
}

}  // namespace

std::string CaseBaseSetIr() {
  std::ostringstream ir, frontend;
  GenerateSetIr(SetBaseOptions(), ir, frontend);
  return ir.str();
}

std::string CaseBaseSetFrontend() {
  std::ostringstream ir, frontend;
  GenerateSetIr(SetBaseOptions(), ir, frontend);
  return frontend.str();
}

}  // namespace accelcheck::gemini
