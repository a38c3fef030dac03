// The bases keep the invariants of docs/formats/neff.md §4, checked here
// directly on their documents: the header against info.json and the kelf
// file, neff.json's lists, dense var_ids, queue sets and semaphores, every
// block triggered once in id order, descriptors inside their variables and
// moving as many elements on both sides, tensor maps, constants and tables.
#include "conformance/neff/bases.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "validators/core/npy.h"

namespace accelcheck::neff::conformance {
namespace {

using ByteVector = std::vector<uint8_t>;

const ByteVector& BytesOf(const Neff& neff, const std::string& name) {
  static const ByteVector kNone;
  const Member* m = Find(neff, name);
  if (!m) return kNone;
  const auto* bytes = std::get_if<ByteVector>(&m->content);
  return bytes ? *bytes : kNone;
}

bool Has(const Neff& neff, const std::string& name) { return Find(neff, name) != nullptr; }

uint64_t ElementsOf(const Json& sizes, const std::string& dtype) {
  uint64_t n = sizes[0].get<uint64_t>() / *DtypeSize(dtype);
  for (size_t k = 1; k < sizes.size(); ++k) n *= sizes[k].get<uint64_t>();
  return n;
}

// The last byte an access pattern reaches past its offset (§2.13).
uint64_t Extent(const Json& sizes, const Json& steps) {
  uint64_t extent = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    extent += (sizes[k].get<uint64_t>() - 1) * steps[k].get<uint64_t>();
  }
  return extent;
}

// NEFF-39: inside the variable, or inside the usable bytes of the state
// buffer's partitions.
void ExpectInside(const Json& desc, const std::string& side, const Json& vars,
                  const std::string& target) {
  const std::string var = desc[side];
  const uint64_t off = desc[side + "_off"];
  const Json& sizes = desc[side + "_sizes"];
  const Json& steps = desc[side + "_steps"];
  EXPECT_EQ(steps[0], 1);
  if (vars[var]["type"] == "state-buffer") {
    uint64_t partitions = 0, bytes = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
      const uint64_t span = (sizes[k].get<uint64_t>() - 1) * steps[k].get<uint64_t>();
      if (steps[k].get<uint64_t>() == kPartitionStep) {
        partitions += sizes[k].get<uint64_t>() - 1;
      } else if (steps[k].get<uint64_t>() < kPartitionStep) {
        bytes += span;
      } else {
        EXPECT_EQ(sizes[k], 1);  // transpose-engine steps move nothing
      }
    }
    EXPECT_LT((off >> 18) + partitions, kPartitions) << var;
    EXPECT_LT((off & (kPartitionStep - 1)) + bytes, UsablePartitionBytes(target)) << var;
  } else {
    EXPECT_LT(off + Extent(sizes, steps), vars[var]["size"].get<uint64_t>()) << var;
  }
}

// The kelf file neff.json's operator names (NEFF-21, §6: kelf-0.json or
// kelf-a.json).
const Json& KelfOf(const Neff& neff) {
  const Json& graph = *JsonOf(neff, "neff.json");
  return *JsonOf(neff, graph["nodes"].back()["attrs"]["kelf"].get<std::string>());
}

void CheckHeader(const Neff& neff) {
  const Json& info = *JsonOf(neff, "info.json");
  const Json& kelf = KelfOf(neff);
  EXPECT_EQ(info["name"], FieldText(neff.header.name));  // NEFF-9
  Json per_node = Json::array();
  for (uint8_t n : neff.header.tpb_per_node) per_node.push_back(n);
  EXPECT_EQ(info["num_tpb_per_node"], per_node);  // NEFF-10, NEFF-42
  EXPECT_EQ(info["num_tpb"], neff.header.num_tpb);
  EXPECT_EQ(kelf["graphs"].size(), neff.header.lnc_size);  // NEFF-11
  if (neff.header.neff_version_major == 2) {
    EXPECT_EQ(neff.header.feature_bits & 0x7FFFFFFFF8000000, 0u);  // NEFF-6
  }
}

void CheckNeffJson(const Neff& neff) {
  const Json& graph = *JsonOf(neff, "neff.json");
  const Json& nodes = graph["nodes"];
  ASSERT_EQ(graph["node_row_ptr"].size(), nodes.size() + 1);  // NEFF-21
  const uint64_t rows = graph["node_row_ptr"].back();
  for (const char* list : {"shape", "storage_id", "dltype"}) {
    EXPECT_EQ(graph["attrs"][list][1].size(), rows) << list;  // NEFF-55
  }
  const Json& op = nodes.back();
  EXPECT_EQ(op["attrs"]["func_name"], "__kelf");
  EXPECT_TRUE(Has(neff, op["attrs"]["kelf"]));
  EXPECT_EQ(op["attrs"]["num_inputs"], std::to_string(op["inputs"].size()));
  EXPECT_EQ(op["attrs"]["num_outputs"], std::to_string(op["output_names"].size()));
  EXPECT_EQ(graph["heads"].size(), op["output_names"].size());
  const Json& signature = graph["metadata"]["signatures"]["default"]["inputs"];
  uint64_t id = 0;
  for (const uint64_t arg : graph["arg_nodes"]) {
    EXPECT_EQ(signature[nodes[arg]["name"].get<std::string>()]["id"], id++);
  }
}

struct Subgraph {
  std::string dir;
  const Json* def = nullptr;
};

// NEFF-24, 25, 28, 30, 43.
void CheckVariables(const Neff& neff, const Subgraph& sg) {
  const Json& vars = (*sg.def)["var"];
  std::set<uint64_t> ids;
  int state_buffers = 0, outputs = 0;
  const Json& tensor_map = *JsonOf(neff, sg.dir + "tensor_map.json");
  for (const auto& [name, var] : vars.items()) {
    ids.insert(var["var_id"].get<uint64_t>());
    state_buffers += var["type"] == "state-buffer";
    outputs += var["type"] == "output";
    if (var["type"] == "input" || var["type"] == "output") {
      ASSERT_TRUE(tensor_map.contains(name)) << name;
      const Json& entry = tensor_map[name];
      uint64_t bytes = *DtypeSize(entry["dtype"].get<std::string>());
      for (const uint64_t d : entry["tf_shape"]) bytes *= d;
      EXPECT_EQ(bytes, var["size"]) << name;
    }
    if (var["type"] == "file") {
      std::string error;
      const auto array =
          npy::Read(BytesOf(neff, sg.dir + var["file_name"].get<std::string>()), &error);
      ASSERT_TRUE(array) << error;
      EXPECT_EQ(array->data.size(), var["size"]) << name;
      EXPECT_EQ(std::popcount(var["alignment"].get<uint64_t>()), 1);
    }
  }
  EXPECT_EQ(ids.size(), vars.size());
  EXPECT_EQ(*ids.rbegin(), vars.size() - 1);
  EXPECT_EQ(state_buffers, 1);
  EXPECT_GE(outputs, 1);
}

void CheckQueueSets(const Subgraph& sg) {
  std::set<uint64_t> semaphores;
  for (const auto& [name, queue] : (*sg.def)["dma_queue"].items()) {
    const Json& set = queue["semaphore_set"];
    ASSERT_EQ(set.size(), queue["num_queues"]);
    for (size_t i = 0; i < set.size(); ++i) {
      EXPECT_EQ(set[i], set[0].get<uint64_t>() + i);
      EXPECT_TRUE(semaphores.insert(set[i].get<uint64_t>()).second) << name;  // NEFF-30
    }
  }
}

// NEFF-23, 33, 34, 37, 39, 40, 41, 47 - 53 for one engine of a subgraph.
void CheckEngine(const Neff& neff, const Subgraph& sg, Engine engine, const std::string& target,
                 uint64_t* blocks) {
  const Json& def = *sg.def;
  const std::string key(EngineKey(engine));
  const Json& json = *JsonOf(neff, sg.dir + def[key].get<std::string>());
  const ByteVector& program = BytesOf(neff, sg.dir + def[key + "_instr"].get<std::string>());
  EXPECT_EQ(json["instr"], def[key + "_instr"]);
  ASSERT_FALSE(program.empty());
  EXPECT_EQ(program.size() % 64, 0u);
  EXPECT_EQ(program[0], kOpcodeStart);
  for (size_t at = 0; at < program.size(); at += 64) EXPECT_EQ(program[at + 1], kSlotWords);

  std::map<std::string, std::vector<uint64_t>> ids_per_queue;
  std::vector<Trigger> expected;
  for (const Json& block : json["dma"]) {
    const std::string queue = block["queue"];
    const Json& set = def["dma_queue"][queue];
    EXPECT_EQ(set["owner"], key);
    const uint64_t id = block["id"];
    EXPECT_EQ(block["semaphore"], set["semaphore_set"][id % set["num_queues"].get<uint64_t>()]);
    ids_per_queue[queue].push_back(id);
    expected.push_back({queue, static_cast<uint32_t>(id)});
    ++*blocks;
    std::set<uint64_t> written;  // NEFF-51, for single-row-step patterns
    for (const Json& desc : block["desc"]) {
      const std::string from_dtype = desc["from_dtype"], to_dtype = desc["to_dtype"];
      EXPECT_EQ(ElementsOf(desc["from_sizes"], from_dtype), ElementsOf(desc["to_sizes"], to_dtype));
      const std::string op = desc.value("op", "");
      EXPECT_EQ(op == "cast", from_dtype != to_dtype);  // NEFF-52
      if (op.empty()) {
        EXPECT_EQ(desc["transpose_op"], "WZXY");
      }
      ExpectInside(desc, "from", def["var"], target);
      ExpectInside(desc, "to", def["var"], target);
      const std::string from_type = def["var"][desc["from"].get<std::string>()]["type"];
      const std::string to_type = def["var"][desc["to"].get<std::string>()]["type"];
      EXPECT_NE(from_type, "output");  // NEFF-53
      EXPECT_NE(to_type, "input");
      EXPECT_NE(to_type, "file");
      const uint64_t row_bytes = desc["to_sizes"][0], rows = desc["to_sizes"][1];
      for (uint64_t r = 0; r < rows; ++r) {
        const uint64_t row =
            desc["to_off"].get<uint64_t>() + r * desc["to_steps"][1].get<uint64_t>();
        for (uint64_t b = 0; b < row_bytes; ++b) {
          EXPECT_TRUE(written.insert(row + b).second) << "overlapping writes";
        }
      }
    }
  }
  for (const auto& [queue, ids] : ids_per_queue) {
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], i) << queue;  // NEFF-47
  }
  EXPECT_EQ(Triggers(program), expected);  // NEFF-41, NEFF-48
}

void CheckTables(const Neff& neff, const Subgraph& sg) {
  const Json& act = *JsonOf(neff, sg.dir + (*sg.def)["act"].get<std::string>());
  const Json& act_info = *JsonOf(neff, sg.dir + act["act_info"].get<std::string>());
  for (const std::string set : act["activation_function_sets"]) {  // NEFF-44
    const auto entry =
        std::find_if(act_info["act_func_sets"].begin(), act_info["act_func_sets"].end(),
                     [&](const Json& s) { return s["name"] == set; });
    ASSERT_NE(entry, act_info["act_func_sets"].end()) << set;
    for (const char* file : {"profile_json", "bkt_bin", "ctrl_bin"}) {
      EXPECT_TRUE(Has(neff, sg.dir + (*entry)[file].get<std::string>())) << file;
    }
  }
  const Json& dve = *JsonOf(neff, sg.dir + (*sg.def)["dve"].get<std::string>());
  for (const Json& tables : dve["dve_tables"]) {
    for (const auto& [key, file] : tables.items())
      EXPECT_TRUE(Has(neff, sg.dir + file.get<std::string>()));
  }
}

void CheckBase(const Neff& neff) {
  CheckHeader(neff);
  CheckNeffJson(neff);
  const Json& kelf = KelfOf(neff);
  const std::string target = kelf["target"];
  for (size_t i = 0; i < kelf["graphs"].size(); ++i) {
    const Json& graph = kelf["graphs"][i];
    const std::string dir = graph["name"].get<std::string>() + "/";
    SCOPED_TRACE(dir);
    const Json* def = JsonOf(neff, graph["definition"].get<std::string>());
    ASSERT_NE(def, nullptr);
    const Subgraph sg{dir, def};
    CheckVariables(neff, sg);
    CheckQueueSets(sg);
    CheckTables(neff, sg);
    uint64_t blocks = 0;
    for (const Engine e : kEngines) CheckEngine(neff, sg, e, target, &blocks);
    if (i > 0) {
      EXPECT_EQ(blocks, 0u);  // NEFF-56
    } else {
      EXPECT_GT(blocks, 0u);
    }
    const bool vnc = (*def)["neff_features"] == Json{"neff_feature_vnc"};
    EXPECT_EQ(vnc, neff.header.lnc_size == 2);  // NEFF-32
    EXPECT_EQ(def->contains("runtime_statebuffer_reservation"), target == "cayman");
  }
}

TEST(Bases, KeepTheInvariants) {
  for (const NamedBase& base : Bases()) {
    SCOPED_TRACE(base.name);
    CheckBase(base.neff);
  }
}

TEST(Bases, AreSmallAndShowWhatTheyPromise) {
  const std::vector<NamedBase> bases = Bases();
  ASSERT_EQ(bases.size(), 5u);
  for (const NamedBase& base : bases) {
    EXPECT_LE(Write(base.neff).size(), base.name == "plain" ? 65536u : 21504u) << base.name;
  }
  const Neff& stream = bases[0].neff;
  EXPECT_EQ(stream.dialect, Dialect::kUstar);
  EXPECT_EQ(stream.hash_order, HashOrder::kWordReversed);
  EXPECT_TRUE(Has(stream, "metrics.json"));

  const Neff& lnc2 = bases[1].neff;
  EXPECT_EQ(lnc2.dialect, Dialect::kGnu);
  EXPECT_EQ(lnc2.hash_order, HashOrder::kPlain);
  EXPECT_EQ(Find(lnc2, "sg00/")->typeflag, '5');
  EXPECT_EQ(lnc2.members.back().name, "neff.json");
  EXPECT_EQ(lnc2.header.feature_bits, 0xC00u);
  EXPECT_TRUE(Has(lnc2, "sg00/exp_and_others_bkt.bin"));
  EXPECT_TRUE(Has(lnc2, "sg01/value_sg0000_ident_CRSM.npy"));
  const std::string pool = JsonOf(lnc2, "sg00/Pool.json")->dump();
  const std::string sp = JsonOf(lnc2, "sg00/SP.json")->dump();
  EXPECT_NE(pool.find("\"op\":\"cast\""), std::string::npos);
  EXPECT_NE(sp.find("\"transpose_op\":\"WZXY\""), std::string::npos);
  EXPECT_FALSE((*JsonOf(lnc2, "sg00/Activation.json"))["dma"].empty());

  const Neff& plain = bases[2].neff;
  EXPECT_EQ(plain.compression, Compression::kNone);
  EXPECT_EQ(Write(plain)[kHeaderSize + 257], 'u');  // the tar's magic right after the header

  // §6: each of the write-up's differences from real files.
  const Neff& writeup = bases[3].neff;
  EXPECT_EQ(writeup.dialect, Dialect::kGnu);
  EXPECT_EQ(writeup.hash_order, HashOrder::kPlain);
  EXPECT_EQ(Find(writeup, "sg00/")->typeflag, '5');
  EXPECT_TRUE(Has(writeup, "kelf-a.json"));
  EXPECT_FALSE(Has(writeup, "kelf-0.json"));
  for (const char* name : {"sg00/sp.json", "sg00/pool.json", "sg00/pe.json", "sg00/act.json",
                           "sg00/dve.json", "sg00/sp.bin"}) {
    EXPECT_TRUE(Has(writeup, name)) << name;
  }
  EXPECT_FALSE(Has(writeup, "sg00/SP.json"));
  const std::string writeup_sp = JsonOf(writeup, "sg00/sp.json")->dump();
  EXPECT_EQ(writeup_sp.find("num_tiling_dimensions"), std::string::npos);
  EXPECT_NE(writeup_sp.find("\"from\":\"x\""), std::string::npos);

  // §1.5: neuronx-cc 2.0's pax archive, each member's times in its records.
  const Neff& pax = bases[4].neff;
  EXPECT_EQ(pax.dialect, Dialect::kPax);
  EXPECT_EQ(pax.hash_order, HashOrder::kPlain);
  EXPECT_EQ(pax.stamp.owner, "");
  for (const Member& m : pax.members) {
    ASSERT_EQ(m.pax.size(), 3u) << m.name;
    EXPECT_EQ(m.pax[2].first, "mtime");
  }
  std::string error;
  const auto read = Read(Write(pax), &error);
  ASSERT_TRUE(read) << error;
  EXPECT_EQ(*read, pax);
}

TEST(Builder, RefusesABlockOnAnUndeclaredQueue) {
  Spec spec = StreamSpec();
  spec.blocks.push_back({"qNowhere", {}});
  EXPECT_THROW(Build(spec), std::invalid_argument);
}

}  // namespace
}  // namespace accelcheck::neff::conformance
