#include "conformance/neff/builder.h"

#include <algorithm>
#include <bit>
#include <map>
#include <stdexcept>

#include "validators/core/npy.h"
#include "validators/core/text.h"

namespace accelcheck::neff::conformance {
namespace {

using ByteVector = std::vector<uint8_t>;

constexpr uint64_t kQueuesPerSet = 16;        // num_queues of every real set (§2.8)
constexpr uint64_t kFirstSemaphore = 8;       // where real semaphore sets start
constexpr uint64_t kTransposeStep = 1 << 25;  // the real transposes' third step (§2.13)
constexpr uint64_t kTableEntryBytes = 32;     // bytes per activation table entry (§2.14)

bool IsTrn2(const Spec& spec) { return spec.target == "cayman"; }

uint64_t SizeOf(std::string_view dtype) {
  const std::optional<uint64_t> size = DtypeSize(dtype);
  if (!size) throw std::invalid_argument(Str("unknown dtype \"", dtype, "\""));
  return *size;
}

uint64_t Elements(const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

// The keys of every object in bytewise order, as the compiler writes def.json,
// the engine JSONs and the tensor maps.
Json SortedKeys(const Json& json) {
  if (json.is_array()) {
    Json out = Json::array();
    for (const Json& item : json) out.push_back(SortedKeys(item));
    return out;
  }
  if (!json.is_object()) return json;
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  Json out = Json::object();
  for (const std::string& key : keys) out[key] = SortedKeys(json.at(key));
  return out;
}

Member JsonMember(std::string name, Json document, JsonLayout layout) {
  Member member;
  member.name = std::move(name);
  member.content = std::move(document);
  member.layout = layout;
  return member;
}

Member BytesMember(std::string name, ByteVector data) {
  Member member;
  member.name = std::move(name);
  member.content = std::move(data);
  return member;
}

ByteVector TextBytes(std::string_view text) { return ByteVector(text.begin(), text.end()); }

// Table contents: the sources give no meaning, so any bytes do; a short
// period keeps them small once compressed.
ByteVector Pattern(uint64_t size, uint8_t seed) {
  ByteVector bytes(size);
  for (uint64_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>((i * 31 + seed) % 251);
  return bytes;
}

std::string InSubgraph(uint32_t subgraph, std::string_view file) {
  return Str(SubgraphName(subgraph), "/", file);
}

// Real files name an engine's members by its stem (SP.json); the
// write-up's example by its key (sp.json). Readers follow def.json (§6).
std::string_view EngineFileStem(const Spec& spec, Engine e) {
  return spec.writeup_names ? EngineKey(e) : EngineStem(e);
}
std::string JsonName(const Spec& spec, Engine e) { return Str(EngineFileStem(spec, e), ".json"); }
std::string ProgramName(const Spec& spec, Engine e) { return Str(EngineFileStem(spec, e), ".bin"); }
// kelf-0.json in real files, kelf-a.json in the write-up's example (§6).
std::string KelfName(const Spec& spec) {
  return spec.writeup_names ? "kelf-a.json" : "kelf-0.json";
}
std::string AsmDebugName(Engine e) { return Str("debug_info_asm_", EngineStem(e), ".dbg"); }
std::string BackendDebugName(Engine e) { return Str("debug_info_backend_", EngineStem(e), ".dbg"); }
constexpr std::string_view kDmaDebugName = "debug_info_backend_DMA.dbg";
constexpr std::string_view kActInfoName = "act_info.json";

std::string ConstantFileName(const Constant& c) {
  return Str("value_sg0000_", c.name, "_CRSM.npy");
}

// --- DMA blocks --------------------------------------------------------------

struct PlacedBlock {
  const Block* block = nullptr;
  Engine engine = Engine::kSp;
  uint64_t id = 0;
  uint64_t semaphore = 0;
  size_t index = 0;  // in Spec order
};

uint64_t FirstSemaphore(size_t queue_index) {
  return kFirstSemaphore + kQueuesPerSet * queue_index;
}

std::vector<PlacedBlock> Place(const Spec& spec) {
  std::map<std::string, uint64_t> next_id;
  std::vector<PlacedBlock> placed;
  for (size_t i = 0; i < spec.blocks.size(); ++i) {
    const Block& block = spec.blocks[i];
    const auto queue = std::find_if(spec.queues.begin(), spec.queues.end(),
                                    [&](const QueueSet& q) { return q.name == block.queue; });
    if (queue == spec.queues.end()) {
      throw std::invalid_argument(Str("block ", i, " names no declared queue set: ", block.queue));
    }
    const uint64_t id = next_id[block.queue]++;
    const auto queue_index = static_cast<size_t>(queue - spec.queues.begin());
    placed.push_back(
        {&block, queue->owner, id, FirstSemaphore(queue_index) + id % kQueuesPerSet, i});
  }
  return placed;
}

void AddSide(const Side& side, std::string_view prefix, Json& out) {
  out[std::string(prefix)] = side.var;
  out[Str(prefix, "_dtype")] = side.dtype;
  out[Str(prefix, "_off")] = side.off;
  out[Str(prefix, "_sizes")] = side.sizes;
  out[Str(prefix, "_steps")] = side.steps;
}

Json DescriptorJson(const Descriptor& d) {
  Json out = Json::object();
  if (d.from_arr.empty()) {
    AddSide(d.from, "from", out);
  } else {
    Json sources = Json::array();
    for (const Side& source : d.from_arr) {
      Json entry = Json::object();
      AddSide(source, "from", entry);
      sources.push_back(std::move(entry));
    }
    out["from_arr"] = std::move(sources);
  }
  AddSide(d.to, "to", out);
  if (d.scale) out["scale"] = *d.scale;
  if (!d.scale_dtype.empty()) out["scale_dtype"] = d.scale_dtype;
  if (d.constant) out["constant"] = *d.constant;
  if (!d.constant_dtype.empty()) out["constant_dtype"] = d.constant_dtype;
  if (d.num_tiling_dimensions) out["num_tiling_dimensions"] = *d.num_tiling_dimensions;
  if (!d.op.empty()) out["op"] = d.op;
  if (!d.transpose_op.empty()) {
    out["transpose_element_size"] = d.transpose_element_size;
    out["transpose_op"] = d.transpose_op;
    out["transpose_shape"] = d.transpose_shape;
  }
  return out;
}

Json BlockJson(const PlacedBlock& p) {
  Json desc = Json::array();
  for (const Descriptor& d : p.block->desc) desc.push_back(DescriptorJson(d));
  const std::string comment =
      p.block->comment.empty() ? Str("I-", p.index, "-0-block-1") : p.block->comment;
  return {{"#comment", comment},
          {"desc", std::move(desc)},
          {"id", p.id},
          {"queue", p.block->queue},
          {"semaphore", p.semaphore}};
}

// --- Subgraph members ----------------------------------------------------------

struct DveTable {
  std::string_view key;
  uint64_t size;
};

// The DVE tables of real files (§2.14).
std::vector<DveTable> DveTables(const Spec& spec) {
  if (IsTrn2(spec)) {
    return {{"control_fast_table", 4096},
            {"control_slow_table", 4096},
            {"datapath_table", 16384},
            {"opcode_table", 1024}};
  }
  return {{"control_table", 2048}, {"datapath_table", 8192}, {"opcode_table", 2048}};
}

std::string DveTableName(const DveTable& table) { return Str("default_", table.key, ".bin"); }

struct ActivationSet {
  std::string name;
  std::vector<std::pair<std::string, uint64_t>> functions;  // bucket entries per function
};

const std::vector<ActivationSet>& Catalogue() {
  static const std::vector<ActivationSet> sets = {
      {"exp_and_others", {{"exp", 4}, {"identity", 1}, {"copy", 1}, {"relu", 1}, {"tanh", 2}}},
      {"gelu_and_others", {{"gelu", 4}, {"identity", 1}, {"copy", 1}}},
      {"sigmoid_and_others", {{"sigmoid", 4}, {"identity", 1}}}};
  return sets;
}

const ActivationSet& FindSet(std::string_view name) {
  for (const ActivationSet& set : Catalogue()) {
    if (set.name == name) return set;
  }
  throw std::invalid_argument(Str("no activation function set \"", name, "\""));
}

Json ActInfoJson() {
  Json sets = Json::array();
  for (const ActivationSet& set : Catalogue()) {
    Json act = Json::object();
    for (const auto& [function, entries] : set.functions) act[function] = entries;
    sets.push_back({{"name", set.name},
                    {"bkt_bin", Str(set.name, "_bkt.bin")},
                    {"ctrl_bin", Str(set.name, "_ctrl.bin")},
                    {"profile_json", Str(set.name, ".json")},
                    {"act", std::move(act)}});
  }
  return {{"pwp_file_keys", {"bkt_bin", "ctrl_bin", "profile_json"}},
          {"act_func_sets", std::move(sets)}};
}

// A used set's profile and its bucket and control tables (§2.14): one
// control entry per function, `entries` bucket entries each.
void AddActivationSet(const ActivationSet& set, uint32_t subgraph, std::vector<Member>& out) {
  Json profiles = Json::array();
  Json bkt_start = Json::object(), ctl_start = Json::object();
  Json bkt_exp = Json::object(), ctl_exp = Json::object();
  uint64_t bkt = 0, ctl = 0;
  for (const auto& [function, entries] : set.functions) {
    profiles.push_back({{"func_name", Str(function, "_", entries, "p")},
                        {"func_id", profiles.size() + 1},
                        {"exp_offset", 0},
                        {"use_multipass", false}});
    bkt_start[function] = bkt;
    ctl_start[function] = ctl;
    bkt_exp[function] = {{"0", {bkt}}};
    ctl_exp[function] = {{"0", {ctl}}};
    bkt += entries;
    ctl += 1;
  }
  const std::string bkt_name = Str(set.name, "_bkt.bin"), ctl_name = Str(set.name, "_ctrl.bin");
  Json profile = {{"bkt_bin", bkt_name},
                  {"ctl_bin", ctl_name},
                  {"profile_meta_data", std::move(profiles)},
                  {"bkt_entry_cnt", bkt},
                  {"ctl_entry_cnt", ctl},
                  {"func_to_bkt_start_idx", std::move(bkt_start)},
                  {"func_to_ctl_start_idx", std::move(ctl_start)},
                  {"func_exp_to_bkt_start_idx", std::move(bkt_exp)},
                  {"func_exp_to_ctl_start_idx", std::move(ctl_exp)}};
  out.push_back(JsonMember(InSubgraph(subgraph, Str(set.name, ".json")), std::move(profile), {}));
  out.push_back(BytesMember(InSubgraph(subgraph, bkt_name), Pattern(bkt * kTableEntryBytes, 1)));
  out.push_back(BytesMember(InSubgraph(subgraph, ctl_name), Pattern(ctl * kTableEntryBytes, 2)));
}

class SubgraphWriter {
 public:
  SubgraphWriter(const Spec& spec, const std::vector<PlacedBlock>& blocks, uint32_t index)
      : spec_(spec), blocks_(blocks), index_(index) {}

  void Write(std::vector<Member>& out) const {
    out.push_back(JsonMember(InSubgraph(index_, "def.json"), Definition(), {4, true}));
    for (const Engine e : kEngines) {
      out.push_back(JsonMember(InSubgraph(index_, JsonName(spec_, e)), EngineJson(e), kCompact));
      out.push_back(BytesMember(InSubgraph(index_, ProgramName(spec_, e)), Program(e)));
      out.push_back(BytesMember(InSubgraph(index_, AsmDebugName(e)),
                                TextBytes(Str("asm debug info of ", EngineStem(e)))));
      out.push_back(BytesMember(InSubgraph(index_, BackendDebugName(e)),
                                TextBytes(Str("backend debug info of ", EngineStem(e)))));
    }
    out.push_back(
        BytesMember(InSubgraph(index_, kDmaDebugName), TextBytes("backend debug info of DMA")));
    out.push_back(JsonMember(InSubgraph(index_, "tensor_map.json"), TensorMap(), {4, true}));
    out.push_back(JsonMember(InSubgraph(index_, kActInfoName), ActInfoJson(), {}));
    for (const std::string& set : ActivationSets()) AddActivationSet(FindSet(set), index_, out);
    uint8_t seed = 3;
    for (const DveTable& table : DveTables(spec_)) {
      out.push_back(
          BytesMember(InSubgraph(index_, DveTableName(table)), Pattern(table.size, seed++)));
    }
    for (const Constant& c : spec_.constants) {
      out.push_back(BytesMember(InSubgraph(index_, ConstantFileName(c)), Npy(c)));
    }
  }

 private:
  bool first() const { return index_ == 0; }

  std::vector<std::string> ActivationSets() const {
    return first() ? spec_.activation_sets : std::vector<std::string>{};
  }

  // var_ids dense from 0 (NEFF-24): the state buffer, inputs, spills,
  // outputs, constants.
  Json Variables() const {
    Json var = Json::object();
    uint64_t id = 0;
    var["SB"] = {{"type", "state-buffer"}, {"var_id", id++}};
    const auto tensor = [&](const Tensor& t, std::string_view type) {
      var[t.name] = {{"ops", Json::array()},
                     {"size", t.Bytes()},
                     {"type", std::string(type)},
                     {"var_id", id++}};
    };
    for (const Tensor& t : spec_.inputs) tensor(t, "input");
    if (first()) {
      for (const VirtualVar& v : spec_.virtuals) {
        var[v.name] = {{"backing_variable_off", v.backing_variable_off},
                       {"fabric_path", "main"},
                       {"ops", Json::array()},
                       {"size", v.size},
                       {"type", "virtual"},
                       {"var_id", id++}};
      }
    }
    for (const Tensor& t : spec_.outputs) tensor(t, "output");
    for (const Constant& c : spec_.constants) {
      const uint64_t size = c.data.size();
      var[c.name] = {{"alignment", std::bit_ceil(size)},
                     {"fabric_path", "main"},
                     {"file_name", ConstantFileName(c)},
                     {"ops", Json::array()},
                     {"size", size},
                     {"type", "file"},
                     {"var_id", id++}};
    }
    return var;
  }

  // Only the first subgraph moves data (NEFF-56).
  Json Queues() const {
    Json queues = Json::object();
    if (!first()) return queues;
    for (size_t i = 0; i < spec_.queues.size(); ++i) {
      const QueueSet& q = spec_.queues[i];
      Json semaphores = Json::array();
      for (uint64_t s = 0; s < kQueuesPerSet; ++s) semaphores.push_back(FirstSemaphore(i) + s);
      queues[q.name] = {{"fabric_path", "main"},
                        {"num_queues", kQueuesPerSet},
                        {"owner", std::string(EngineKey(q.owner))},
                        {"semaphore_set", std::move(semaphores)},
                        {"type", q.type}};
    }
    return queues;
  }

  Json Definition() const {
    Json def = Json::object();
    if (IsTrn2(spec_)) def["#rank_world_size"] = 0;
    for (const Engine e : kEngines) {
      const std::string key(EngineKey(e));
      def[key] = JsonName(spec_, e);
      def[key + "_asm_dbg"] = {AsmDebugName(e)};
      def[key + "_dbg"] = {BackendDebugName(e)};
      def[key + "_instr"] = ProgramName(spec_, e);
    }
    def["cc_streams"] = {{"num_streams", 0}};
    def["debug_info"] = Json::object();
    def["dma_dbg"] = {std::string(kDmaDebugName)};
    def["dma_queue"] = Queues();
    def["name"] = "definition";
    def["neff_features"] = spec_.lnc > 1 ? Json{"neff_feature_vnc"} : Json::array();
    def["runtime_event_count"] = 12;
    def["runtime_semaphore_count"] = 3;
    if (IsTrn2(spec_)) {
      // The evtaccel carve-out of real Trn2 files (§2.9, NEFF-31).
      def["runtime_statebuffer_reservation"] = {{{"base_partition", 0},
                                                 {"offset", UsablePartitionBytes(spec_.target)},
                                                 {"partitions", kPartitions},
                                                 {"size", 8},
                                                 {"type", "evtaccel"}}};
    }
    def["var"] = Variables();
    def["version"] = "0.6";
    return SortedKeys(def);
  }

  Json EngineJson(Engine e) const {
    Json dma = Json::array();
    if (first()) {
      for (const PlacedBlock& p : blocks_) {
        if (p.engine == e) dma.push_back(BlockJson(p));
      }
    }
    Json engine = {
        {"dma", std::move(dma)}, {"instr", ProgramName(spec_, e)}, {"name", JsonName(spec_, e)}};
    if (e == Engine::kAct) {
      engine["act_info"] = std::string(kActInfoName);
      engine["act_semaphore"] = 12;
      engine["activation_function_sets"] = ActivationSets();
    }
    if (e == Engine::kDve) {
      Json tables = Json::object();
      for (const DveTable& table : DveTables(spec_))
        tables[std::string(table.key)] = DveTableName(table);
      // An array of one entry (§2.14); `= {tables}` is a copy of the object
      // under clang, which takes a one-element list of a json as a copy.
      engine["dve_tables"] = Json::array({std::move(tables)});
    }
    return SortedKeys(engine);
  }

  // The start slot (NEFF-50), a trigger per block in Spec order (NEFF-41,
  // NEFF-48), DVE's compute, and a closing semaphore slot.
  ByteVector Program(Engine e) const {
    std::vector<ProgramSlot> slots = {Slot(kOpcodeStart)};
    if (first()) {
      for (const PlacedBlock& p : blocks_) {
        if (p.engine == e)
          slots.push_back(TriggerSlot(p.block->queue, static_cast<uint32_t>(p.id)));
      }
    }
    if (e == Engine::kDve) slots.insert(slots.end(), 2, Slot(0x41));
    slots.push_back(Slot(kOpcodeSemaphore));
    return ProgramBytes(slots);
  }

  static std::string FormatOf(const std::vector<uint64_t>& shape, bool constant) {
    if (shape.size() == 4) return constant ? "CRSM" : "NCHW";
    return std::string("NCHW").substr(0, std::max<size_t>(shape.size(), 1));
  }

  // An entry per input and output, and per constant (§2.5, NEFF-43).
  Json TensorMap() const {
    Json map = Json::object();
    const auto entry = [&](const std::string& name, const std::string& dtype,
                           const std::vector<uint64_t>& shape, const char* kind,
                           const std::string& file) {
      const std::string format = FormatOf(shape, kind == nullptr);
      Json e = {{"dtype", dtype},      {"is_const", kind == nullptr},
                {"layer_name", name},  {"sim_format", format},
                {"sim_shape", shape},  {"tf_file", file},
                {"tf_format", format}, {"tf_shape", shape}};
      if (kind) e["kind"] = kind;
      map[name] = std::move(e);
    };
    for (const Tensor& t : spec_.inputs)
      entry(t.name, t.dtype, t.shape, "input", Str("value_", t.name, ".npy"));
    for (const Tensor& t : spec_.outputs)
      entry(t.name, t.dtype, t.shape, "output", Str("value_", t.name, ".npy"));
    for (const Constant& c : spec_.constants)
      entry(c.name, c.dtype, c.shape, nullptr, ConstantFileName(c));
    return SortedKeys(map);
  }

  static ByteVector Npy(const Constant& c) {
    const uint64_t size = SizeOf(c.dtype);
    if (c.data.size() != Elements(c.shape) * size) {
      throw std::invalid_argument(
          Str("constant ", c.name, " has ", c.data.size(), " bytes, not its shape's"));
    }
    npy::DType dtype;
    if (c.dtype == "bfloat16") {
      dtype = {npy::Kind::kBFloat16, 2};
    } else if (c.dtype.starts_with("float")) {
      dtype = {npy::Kind::kFloat, static_cast<unsigned>(size)};
    } else {
      dtype = {c.dtype.starts_with("u") ? npy::Kind::kUnsigned : npy::Kind::kSigned,
               static_cast<unsigned>(size)};
    }
    std::vector<uint64_t> bits(c.data.size() / size);
    for (uint64_t i = 0; i < bits.size(); ++i) {
      for (uint64_t b = 0; b < size; ++b) bits[i] |= uint64_t{c.data[i * size + b]} << (8 * b);
    }
    return npy::Write(npy::FromBits(dtype, c.shape, bits));
  }

  const Spec& spec_;
  const std::vector<PlacedBlock>& blocks_;
  uint32_t index_;
};

// --- Top-level members (§2.3 - §2.5) ------------------------------------------

Json NeffJson(const Spec& spec) {
  Json nodes = Json::array(), inputs = Json::array(), arg_nodes = Json::array();
  Json shapes = Json::array(), dtypes = Json::array(), signature = Json::object();
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    const Tensor& t = spec.inputs[i];
    nodes.push_back({{"op", "null"},
                     {"name", t.name},
                     {"inputs", Json::array()},
                     {"output_names", {t.name}},
                     {"is_param", "0"}});
    inputs.push_back({i, 0, 0});
    arg_nodes.push_back(i);
    shapes.push_back(t.shape);
    dtypes.push_back(t.dtype);
    signature[t.name] = {{"id", i}, {"dtype", t.dtype}, {"shape", t.shape}};
  }
  // One output per logical core (§2.3).
  Json output_names = Json::array(), heads = Json::array();
  const size_t op_node = spec.inputs.size();
  for (uint32_t core = 0; core < spec.lnc; ++core) {
    for (const Tensor& t : spec.outputs) {
      heads.push_back({op_node, output_names.size(), 0});
      output_names.push_back(t.name);
      shapes.push_back(t.shape);
      dtypes.push_back(t.dtype);
    }
  }
  nodes.push_back({{"op", "tvm_op"},
                   {"name", "sg_coreV10"},
                   {"attrs",
                    {{"func_name", "__kelf"},
                     {"flatten_data", "0"},
                     {"num_inputs", std::to_string(inputs.size())},
                     {"kelf", KelfName(spec)},
                     {"num_outputs", std::to_string(output_names.size())}}},
                   {"inputs", std::move(inputs)},
                   {"output_names", output_names}});
  Json storage = Json::array(), row_ptr = Json::array();
  for (size_t i = 0; i < shapes.size(); ++i) storage.push_back(i);
  for (size_t i = 0; i <= op_node; ++i) row_ptr.push_back(i);
  row_ptr.push_back(shapes.size());
  return {{"nodes", std::move(nodes)},
          {"arg_nodes", std::move(arg_nodes)},
          {"heads", std::move(heads)},
          {"attrs",
           {{"shape", {"list_shape", std::move(shapes)}},
            {"storage_id", {"list_int", std::move(storage)}},
            {"dltype", {"list_str", std::move(dtypes)}}}},
          {"node_row_ptr", std::move(row_ptr)},
          {"metadata",
           {{"signatures",
             {{"default", {{"inputs", std::move(signature)}, {"outputs", Json::object()}}}}}}}};
}

Json KelfJson(const Spec& spec) {
  Json graphs = Json::array();
  for (uint32_t i = 0; i < spec.lnc; ++i) {
    graphs.push_back({{"definition", InSubgraph(i, "def.json")}, {"name", SubgraphName(i)}});
  }
  return {{"graphs", std::move(graphs)}, {"version", "0.5"}, {"target", spec.target}};
}

Json InfoJson(const Spec& spec, const Header& header) {
  Json per_node = Json::array();
  for (uint8_t n : header.tpb_per_node) per_node.push_back(n);
  return {{"tool_version", IsTrn2(spec) ? "2.21.18209.0+043b1bf7" : "2.18.121.0+9e31e41a"},
          {"kelp_version", "Dynamic"},
          {"name", spec.name},
          {"num_tpb", header.num_tpb},
          {"num_tpb_requested", header.requested_tpb_count},
          {"num_tpb_per_node", std::move(per_node)}};
}

Json MetricsJson() {
  Json metrics = Json::array();
  for (const auto& [name, unit] : {std::pair{"TPBCount", "Count"},
                                   {"EstimatedLowerBoundLatency", "Milliseconds"},
                                   {"EstimatedUpperBoundThroughput", "Count/Second"},
                                   {"InferentiaDRAMUsage", "Bytes"}}) {
    metrics.push_back({{"MetricName", name},
                       {"Value", name == std::string_view("TPBCount") ? 1 : 0},
                       {"Unit", unit}});
  }
  return metrics;
}

Header HeaderOf(const Spec& spec) {
  Header header;
  header.neff_version_major = spec.neff_version_major;
  header.feature_bits = spec.feature_bits;
  header.lnc_size = spec.lnc;
  SetFieldText(header.name, spec.name);
  return header;
}

// Bytewise by name (§1.5), neff.json last on Trn2.
void Order(std::vector<Member>& members, bool neff_json_last) {
  std::sort(members.begin(), members.end(),
            [](const Member& a, const Member& b) { return a.name < b.name; });
  if (!neff_json_last) return;
  std::stable_partition(members.begin(), members.end(),
                        [](const Member& m) { return m.name != "neff.json"; });
}

}  // namespace

std::string_view EngineKey(Engine engine) {
  switch (engine) {
    case Engine::kPe:
      return "pe";
    case Engine::kAct:
      return "act";
    case Engine::kPool:
      return "pool";
    case Engine::kDve:
      return "dve";
    case Engine::kSp:
      return "sp";
  }
  return "";
}

std::string_view EngineStem(Engine engine) {
  switch (engine) {
    case Engine::kPe:
      return "PE";
    case Engine::kAct:
      return "Activation";
    case Engine::kPool:
      return "Pool";
    case Engine::kDve:
      return "DVE";
    case Engine::kSp:
      return "SP";
  }
  return "";
}

std::optional<uint64_t> DtypeSize(std::string_view dtype) {
  static const std::map<std::string_view, uint64_t> sizes = {
      {"float8e3", 1}, {"float8e4", 1}, {"float8e5", 1}, {"float16", 2}, {"bfloat16", 2},
      {"float32", 4},  {"float32r", 4}, {"uint8", 1},    {"int8", 1},    {"uint16", 2},
      {"int16", 2},    {"uint32", 4},   {"int32", 4},    {"uint64", 8},  {"int64", 8}};
  const auto it = sizes.find(dtype);
  if (it == sizes.end()) return std::nullopt;
  return it->second;
}

uint64_t UsablePartitionBytes(std::string_view target) {
  return target == "cayman" ? 229376 - 8 : 196608;
}

uint64_t Tensor::Bytes() const { return Elements(shape) * SizeOf(dtype); }

Spec Trn1Spec() { return Spec{}; }

Spec Trn2Spec() {
  Spec spec;
  spec.target = "cayman";
  spec.lnc = 2;
  spec.neff_version_major = 2;
  spec.feature_bits = 0xC00;
  spec.neff_json_last = true;
  return spec;
}

std::vector<std::string> ActivationCatalogue() {
  std::vector<std::string> names;
  for (const ActivationSet& set : Catalogue()) names.push_back(set.name);
  return names;
}

std::string SubgraphName(uint32_t index) { return Str("sg", index < 10 ? "0" : "", index); }

namespace {

Side RowsSide(const std::string& var, uint64_t off, const std::string& dtype, uint64_t rows,
              uint64_t elements) {
  const uint64_t row_bytes = elements * SizeOf(dtype);
  const uint64_t row_step = var == "SB" ? kPartitionStep : row_bytes;
  return {var, off, {row_bytes, rows}, {1, static_cast<int64_t>(row_step)}, dtype};
}

}  // namespace

Descriptor MoveRows(const std::string& from, uint64_t from_off, const std::string& from_dtype,
                    const std::string& to, uint64_t to_off, const std::string& to_dtype,
                    uint64_t rows, uint64_t elements) {
  Descriptor d;
  d.op = from_dtype == to_dtype ? "copy" : "cast";
  d.from = RowsSide(from, from_off, from_dtype, rows, elements);
  d.to = RowsSide(to, to_off, to_dtype, rows, elements);
  return d;
}

Descriptor TransposeToSb(const std::string& from, uint64_t from_off, uint64_t sb_address,
                         uint64_t n, const std::string& dtype) {
  const uint64_t element = SizeOf(dtype);
  const auto row = static_cast<int64_t>(n * element);
  Descriptor d;
  d.op = "";
  d.from = {from,
            from_off,
            {n * element, n, 1, 1},
            {1, row, row * static_cast<int64_t>(n), row * static_cast<int64_t>(n)},
            dtype};
  d.to = {"SB",
          sb_address,
          {n * element, n, 1, 1},
          {1, static_cast<int64_t>(kPartitionStep), static_cast<int64_t>(kTransposeStep), row},
          dtype};
  d.num_tiling_dimensions = 2;
  d.transpose_op = "WZXY";
  d.transpose_shape = {1, 1, n, n};
  d.transpose_element_size = element;
  return d;
}

Neff Build(const Spec& spec) {
  if (spec.lnc == 0) throw std::invalid_argument("a NEFF has at least one subgraph");
  Neff neff;
  neff.header = HeaderOf(spec);
  neff.dialect = spec.dialect;
  neff.stamp = spec.stamp;
  neff.hash_order = spec.hash_order;
  neff.compression = spec.compression;
  std::vector<Member>& members = neff.members;
  members.push_back(JsonMember("neff.json", NeffJson(spec), {4, true}));
  members.push_back(JsonMember(KelfName(spec), KelfJson(spec), {4, true}));
  members.push_back(
      JsonMember("info.json", InfoJson(spec, neff.header), {IsTrn2(spec) ? 2 : 4, false}));
  if (!IsTrn2(spec)) members.push_back(JsonMember("metrics.json", MetricsJson(), {2, false}));
  members.push_back(BytesMember("debug_info/debug_info_penguin.dbg_sg000000",
                                TextBytes("debug info of the Penguin instructions")));
  const std::vector<PlacedBlock> blocks = Place(spec);
  for (uint32_t i = 0; i < spec.lnc; ++i) {
    if (spec.directory_entries) {
      Member dir = BytesMember(SubgraphName(i) + "/", {});
      dir.typeflag = '5';
      members.push_back(std::move(dir));
    }
    SubgraphWriter(spec, blocks, i).Write(members);
  }
  Order(members, spec.neff_json_last);
  if (spec.dialect == Dialect::kPax) {
    const std::string time = Str(spec.stamp.mtime, ".593741376");
    for (Member& m : members) m.pax = {{"ctime", time}, {"atime", time}, {"mtime", time}};
  }
  return neff;
}

}  // namespace accelcheck::neff::conformance
