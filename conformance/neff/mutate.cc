// One small change per rule of validators/neff/rules.def: each takes a valid
// NEFF (read back into documents with Read) and breaks exactly that rule.
// Most change one JSON value or program slot and repack with a fresh
// data_size and hash; the container rules patch the tar, the payload or the
// header bytes on the way out, and keep the stale hash only where the rule
// is about it.
#include "conformance/neff/mutate.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>

#include "conformance/gzip_writer.h"
#include "conformance/neff/bases.h"
#include "conformance/neff/model.h"
#include "validators/core/bytes.h"
#include "validators/core/checked.h"
#include "validators/core/limits.h"
#include "validators/core/text.h"
#include "validators/neff/rules.h"

namespace accelcheck::neff::conformance {

namespace {

namespace ac = accelcheck::conformance;
using Buffer = std::vector<uint8_t>;

// What one change works on: the documents, then patches of the tar, the
// payload and the file as they are written.
struct Ctx {
  Neff neff;
  uint64_t seed = 0;
  std::string path = {};  // where the validator reports the rule
  std::function<bool(WrittenTar&)> tar_patch = {};
  std::function<bool(Buffer&)> payload_patch = {};  // the padded payload, before the hash
  std::function<bool(Buffer&)> file_patch = {};     // the sealed file
};

using Result = ac::OrDeclined<bool>;
ac::Declined No(std::string why) { return {std::move(why)}; }

struct Change {
  const Rule* rule;
  std::function<Result(Ctx&)> change;
  std::vector<const Rule*> also = {};
};

// --- finding things in the documents ---

std::string Prefix(const std::string& subgraph) { return subgraph + "/"; }

// The kelf graphs in order: (name, definition member).
std::vector<std::pair<std::string, std::string>> Graphs(const Neff& n) {
  std::vector<std::pair<std::string, std::string>> graphs;
  const Json* graph = JsonOf(n, "neff.json");
  std::string kelf = "kelf-0.json";
  if (graph != nullptr && graph->contains("nodes")) {
    for (const Json& node : (*graph)["nodes"]) {
      if (node.value("op", "") == "tvm_op" && node.contains("attrs") &&
          node["attrs"].contains("kelf")) {
        kelf = node["attrs"]["kelf"].get<std::string>();
      }
    }
  }
  const Json* k = JsonOf(n, kelf);
  if (k == nullptr || !k->contains("graphs")) return graphs;
  for (const Json& g : (*k)["graphs"]) {
    graphs.emplace_back(g.value("name", ""), g.value("definition", ""));
  }
  return graphs;
}

struct Sub {
  std::string name;
  std::string def_member;
  Json* def = nullptr;
};

std::optional<Sub> Subgraph(Ctx& c, size_t index = 0) {
  const auto graphs = Graphs(c.neff);
  if (index >= graphs.size()) return std::nullopt;
  Json* def = JsonOf(c.neff, graphs[index].second);
  if (def == nullptr) return std::nullopt;
  return Sub{graphs[index].first, graphs[index].second, def};
}

// An engine's JSON member and document, and its program member.
struct EngineDoc {
  std::string key;
  std::string json_member;
  std::string program_member;
  Json* doc = nullptr;
};

std::optional<EngineDoc> EngineOf(Ctx& c, const Sub& sg, std::string_view key) {
  const Json& def = *sg.def;
  const std::string k(key);
  if (!def.contains(k) || !def.contains(k + "_instr")) return std::nullopt;
  EngineDoc e{k, Prefix(sg.name) + def[k].get<std::string>(),
              Prefix(sg.name) + def[k + "_instr"].get<std::string>()};
  e.doc = JsonOf(c.neff, e.json_member);
  if (e.doc == nullptr) return std::nullopt;
  return e;
}

// The first engine of the first subgraph with DMA blocks.
std::optional<EngineDoc> EngineWithBlocks(Ctx& c, size_t min_blocks = 1) {
  const std::optional<Sub> sg = Subgraph(c);
  if (!sg) return std::nullopt;
  for (std::string_view key : {"sp", "pool", "act", "pe", "dve"}) {
    std::optional<EngineDoc> e = EngineOf(c, *sg, key);
    if (e && (*e->doc).contains("dma") && (*e->doc)["dma"].size() >= min_blocks) return e;
  }
  return std::nullopt;
}

Buffer* BytesOf(Neff& n, std::string_view name) {
  Member* m = Find(n, name);
  return m == nullptr ? nullptr : std::get_if<Buffer>(&m->content);
}

void Remove(Neff& n, std::string_view name) {
  std::erase_if(n.members, [&](const Member& m) { return m.name == name; });
}

void Add(Neff& n, std::string name, Buffer bytes, char typeflag = '0', std::string link = {}) {
  n.members.push_back({.name = std::move(name),
                       .content = std::move(bytes),
                       .layout = {},
                       .typeflag = typeflag,
                       .linkname = std::move(link)});
}

Buffer Text(std::string_view text) { return Buffer(text.begin(), text.end()); }

// The trigger slots of `program` as (offset, queue, id).
struct Slot {
  uint64_t offset;
  std::string queue;
  uint32_t id;
};
std::vector<Slot> TriggerSlots(const Buffer& program) {
  std::vector<Slot> slots;
  for (uint64_t at = 0; at + 64 <= program.size(); at += 64) {
    if (program[at] != kOpcodeTrigger) continue;
    const auto* q = reinterpret_cast<const char*>(program.data() + at + trigger_offset::kQueue);
    slots.push_back({at, std::string(q, strnlen(q, trigger_offset::kQueueLength)),
                     *ReadLE<uint32_t>(program, at + trigger_offset::kBlockId)});
  }
  return slots;
}
void SetTriggerId(Buffer& program, uint64_t slot, uint32_t id) {
  for (int i = 0; i < 4; ++i) program[slot + trigger_offset::kBlockId + i] = (id >> (8 * i)) & 0xFF;
}
void SetTriggerQueue(Buffer& program, uint64_t slot, std::string_view queue) {
  std::fill_n(program.begin() + slot + trigger_offset::kQueue, trigger_offset::kQueueLength, 0);
  std::copy(queue.begin(), queue.end(), program.begin() + slot + trigger_offset::kQueue);
}

// The last block of a queue (the highest id), with its trigger.
struct Target {
  EngineDoc engine;
  size_t block = 0;
  std::string queue;
  int64_t id = 0;
  Buffer* program = nullptr;
  uint64_t slot = 0;
};
std::optional<Target> LastBlockOfAQueue(Ctx& c, int64_t min_id = 0) {
  std::optional<EngineDoc> e = EngineWithBlocks(c);
  if (!e) return std::nullopt;
  Json& dma = (*e->doc)["dma"];
  Buffer* program = BytesOf(c.neff, e->program_member);
  if (program == nullptr) return std::nullopt;
  for (size_t i = dma.size(); i-- > 0;) {
    const std::string queue = dma[i].value("queue", "");
    const int64_t id = dma[i].value("id", int64_t{-1});
    if (id < min_id) continue;
    bool last = true;
    for (const Json& other : dma) {
      last = last && !(other.value("queue", "") == queue && other.value("id", int64_t{-1}) > id);
    }
    if (!last) continue;
    for (const Slot& s : TriggerSlots(*program)) {
      if (s.queue == queue && s.id == id) return Target{*e, i, queue, id, program, s.offset};
    }
  }
  return std::nullopt;
}

Json& QueueSetOf(Json& def, const std::string& queue) { return def["dma_queue"][queue]; }

// The semaphore NEFF-49 gives a block of `id` on `queue`.
Json SemaphoreFor(Json& def, const std::string& queue, int64_t id) {
  Json& set = QueueSetOf(def, queue);
  const auto count = static_cast<int64_t>(set.value("num_queues", 1));
  return set["semaphore_set"][static_cast<size_t>(id % count)];
}

// A descriptor satisfying `pred`, with its path.
struct DescAt {
  Json* desc = nullptr;
  std::string path;  // "sg00/SP.json:/dma/0/desc/0"
};
DescAt FindDesc(Ctx& c, const std::function<bool(const Json&, const Json& def)>& pred) {
  const std::optional<Sub> sg = Subgraph(c);
  if (!sg) return {};
  for (std::string_view key : {"sp", "pool", "act", "pe", "dve"}) {
    std::optional<EngineDoc> e = EngineOf(c, *sg, key);
    if (!e || !e->doc->contains("dma")) continue;
    Json& dma = (*e->doc)["dma"];
    for (size_t i = 0; i < dma.size(); ++i) {
      if (!dma[i].contains("desc")) continue;
      for (size_t j = 0; j < dma[i]["desc"].size(); ++j) {
        if (pred(dma[i]["desc"][j], *sg->def)) {
          return {&dma[i]["desc"][j], Str(e->json_member, ":/dma/", i, "/desc/", j)};
        }
      }
    }
  }
  return {};
}

std::string VarType(const Json& def, const Json& name) {
  if (!name.is_string() || !def["var"].contains(name.get<std::string>())) return "";
  return def["var"][name.get<std::string>()].value("type", "");
}

int64_t NextVarId(const Json& def) {
  int64_t next = 0;
  for (const auto& [name, v] : def["var"].items())
    next = std::max(next, v.value("var_id", int64_t{0}) + 1);
  return next;
}

// Adds an unused variable to the first subgraph.
Result AddVariable(Ctx& c, const std::string& name, Json var) {
  std::optional<Sub> sg = Subgraph(c);
  if (!sg) return No("no subgraph");
  var["var_id"] = NextVarId(*sg->def);
  (*sg->def)["var"][name] = std::move(var);
  c.path = Str(sg->def_member, ":/var/", name);
  return true;
}

// The first variable of `type` in the first subgraph.
std::optional<std::pair<std::string, Json*>> VarOfType(Ctx& c, std::string_view type) {
  std::optional<Sub> sg = Subgraph(c);
  if (!sg) return std::nullopt;
  for (auto& [name, v] : (*sg->def)["var"].items()) {
    if (v.value("type", "") == type) return std::pair{name, &v};
  }
  return std::nullopt;
}

// Moves the `side` ("from" or "to") of the first descriptor whose side is a
// variable of type `from_type` onto a variable of type `to_type` of the same
// size.
Result Retarget(Ctx& c, const std::string& side, std::string_view from_type,
                std::string_view to_type) {
  std::optional<std::pair<std::string, Json*>> target = VarOfType(c, to_type);
  if (!target) return No(Str("no ", to_type));
  const Json size = (*target->second)["size"];
  DescAt d = FindDesc(c, [&](const Json& desc, const Json& def) {
    const std::string var = desc.value(side, "");
    return VarType(def, desc.value(side, Json())) == from_type && def["var"][var]["size"] == size;
  });
  if (d.desc == nullptr)
    return No(Str("no ", side, " side on a ", from_type, " the size of a ", to_type));
  (*d.desc)[side] = target->first;
  c.path = Str(d.path, "/", side);
  return true;
}

// --- tar patches ---

// The first member holding bytes: its index (that of its entry).
std::optional<size_t> FirstNonEmpty(const Neff& n) {
  for (size_t i = 0; i < n.members.size(); ++i) {
    if (n.members[i].typeflag == '0' && !Bytes(n.members[i]).empty()) return i;
  }
  return std::nullopt;
}

void SetOctal(Buffer& tar, uint64_t at, uint64_t length, uint64_t value) {
  std::string digits(length - 1, '0');
  for (uint64_t i = length - 1; i-- > 0 && value != 0; value /= 8) digits[i] = '0' + value % 8;
  std::copy(digits.begin(), digits.end(), tar.begin() + at);
  tar[at + length - 1] = ' ';
}

std::vector<Change> Changes() {
  using J = Json;
  std::vector<Change> changes;
  const auto add = [&](const Rule& rule, std::function<Result(Ctx&)> f,
                       std::vector<const Rule*> also = {}) {
    changes.push_back({&rule, std::move(f), std::move(also)});
  };

  // A. Header
  add(rules::kHeaderTruncated, [](Ctx& c) -> Result {
    c.file_patch = [](Buffer& f) { return f.resize(1000), true; };
    c.path = "header";
    return true;
  });
  add(rules::kHeaderSize, [](Ctx& c) -> Result {
    c.neff.header.header_size = 512;
    c.path = "header.header_size";
    return true;
  });
  add(rules::kPkgVersion, [](Ctx& c) -> Result {
    c.neff.header.pkg_version = 3;
    c.path = "header.pkg_version";
    return true;
  });
  add(rules::kDataSize, [](Ctx& c) -> Result {
    c.neff.header.data_size = uint64_t{1} << 40;
    c.path = "header.data_size";
    return true;
  });
  add(rules::kTrailingBytes, [](Ctx& c) -> Result {
    c.file_patch = [](Buffer& f) { return f.resize(f.size() + 100, 0), true; };
    c.path = "payload";
    return true;
  });
  add(rules::kVersion, [](Ctx& c) -> Result {
    c.neff.header.neff_version_major = 3;
    c.path = "header.neff_version_major";
    return true;
  });
  add(rules::kFeatureTrapdoor, [](Ctx& c) -> Result {
    c.neff.header.neff_version_major = 2;
    c.neff.header.feature_bits |= uint64_t{1} << 27;
    c.path = "header.feature_bits";
    return true;
  });
  add(rules::kFeatureBits, [](Ctx& c) -> Result {
    c.neff.header.feature_bits |= 1;
    c.path = "header.feature_bits";
    return true;
  });
  add(rules::kHashMismatch, [](Ctx& c) -> Result {
    c.file_patch = [](Buffer& f) { return f[0xAC] ^= 0xFF, true; };
    c.path = "header.hash";
    return true;
  });
  add(rules::kHashOrder, [](Ctx& c) -> Result {
    c.neff.hash_order =
        c.neff.hash_order == HashOrder::kPlain ? HashOrder::kWordReversed : HashOrder::kPlain;
    c.path = "header.hash";
    return true;
  });
  add(rules::kHashTail, [](Ctx& c) -> Result {
    if (c.neff.header.pkg_version != 2) return No("only an MD5 leaves a tail");
    c.file_patch = [](Buffer& f) { return std::fill_n(f.begin() + 0xBC, 16, 'A'), true; };
    c.path = "header.hash";
    return true;
  });
  add(rules::kHeaderString, [](Ctx& c) -> Result {
    c.neff.header.build_version.fill('b');
    c.path = "header.neff_build_version";
    return true;
  });
  add(rules::kHeaderInfoName, [](Ctx& c) -> Result {
    Json* info = JsonOf(c.neff, "info.json");
    if (info == nullptr) return No("no info.json");
    (*info)["name"] = "another.neff";
    c.path = "info.json:/name";
    return true;
  });
  add(rules::kTpb, [](Ctx& c) -> Result {
    Json* info = JsonOf(c.neff, "info.json");
    if (info == nullptr || !info->contains("num_tpb_per_node")) return No("no num_tpb_per_node");
    (*info)["num_tpb_per_node"][1] = 7;
    c.path = "info.json:/num_tpb_per_node";
    return true;
  });
  add(rules::kLncSize, [](Ctx& c) -> Result {
    c.neff.header.lnc_size = c.neff.header.lnc_size == 1 ? 0 : 3;
    c.path = "header.lnc_size";
    return true;
  });
  add(rules::kHeaderPadding, [](Ctx& c) -> Result {
    c.neff.header.pad[10] = 1;
    c.path = "header.pad";
    return true;
  });
  add(rules::kUuid, [](Ctx& c) -> Result {
    c.neff.header.uuid.fill(0);
    c.path = "header.uuid";
    return true;
  });

  // B. Payload and tar
  add(rules::kPayloadKind, [](Ctx& c) -> Result {
    c.payload_patch = [](Buffer& p) {
      // Neither the gzip magic nor, for a plain tar, the ustar magic (§1.1).
      p[0] = 0x42;
      if (p.size() > tar_field::kMagic.at) p[tar_field::kMagic.at] = 'X';
      return true;
    };
    c.path = "payload";
    return true;
  });
  add(rules::kGzip, [](Ctx& c) -> Result {
    if (c.neff.compression != Compression::kGzip) return No("the payload is not compressed");
    c.payload_patch = [](Buffer& p) {
      for (size_t i = 12; i < 40 && i < p.size(); ++i) p[i] ^= 0x5A;
      return true;
    };
    c.path = "payload";
    return true;
  });
  add(rules::kPayloadPadding, [](Ctx& c) -> Result {
    if (c.neff.compression != Compression::kGzip) return No("the payload is not compressed");
    c.payload_patch = [](Buffer& p) {
      // The gzip member ends in its 8-byte trailer; padding follows.
      if (p.back() != 0) return false;
      p.back() = 1;
      return true;
    };
    c.path = "payload";
    return true;
  });
  add(rules::kTarTruncated, [](Ctx& c) -> Result {
    c.tar_patch = [](WrittenTar& t) {
      const uint64_t h = t.headers.back();
      SetOctal(t.bytes, h + tar_field::kSize.at, 12, t.bytes.size());
      RewriteTarChecksum(t.bytes, h);
      return true;
    };
    c.path = "";
    return true;
  });
  add(rules::kTarChecksum, [](Ctx& c) -> Result {
    c.tar_patch = [](WrittenTar& t) {
      t.bytes[t.headers.back() + tar_field::kChecksum.at + 1] ^= 0x01;
      return true;
    };
    return true;
  });
  add(rules::kTarMagic, [](Ctx& c) -> Result {
    c.tar_patch = [](WrittenTar& t) {
      if (t.headers.size() < 2) return false;
      t.bytes[t.headers[1] + tar_field::kMagic.at + 4] = 'X';
      RewriteTarChecksum(t.bytes, t.headers[1]);
      return true;
    };
    return true;
  });
  add(rules::kTarField, [](Ctx& c) -> Result {
    c.tar_patch = [](WrittenTar& t) {
      t.bytes[t.headers.back() + tar_field::kMode.at + 2] = 'x';
      RewriteTarChecksum(t.bytes, t.headers.back());
      return true;
    };
    return true;
  });
  add(rules::kTarEnd, [](Ctx& c) -> Result {
    c.tar_patch = [](WrittenTar& t) { return t.bytes.resize(t.bytes.size() + 512, 0x01), true; };
    return true;
  });
  add(rules::kTarPax, [](Ctx& c) -> Result {
    // The first record's length one too large: it no longer ends at its
    // newline (NEFF-57).
    c.neff.dialect = Dialect::kPax;
    c.tar_patch = [](WrittenTar& t) {
      if (t.pax_headers.empty()) return false;
      const uint64_t data = t.pax_headers[0] + kTarBlock;
      const auto space = std::find(t.bytes.begin() + data, t.bytes.end(), ' ');
      if (space == t.bytes.end() || space == t.bytes.begin() + data) return false;
      uint8_t& last_digit = *(space - 1);
      last_digit = last_digit == '9' ? '8' : last_digit + 1;
      return true;
    };
    return true;
  });
  add(rules::kTarPaxSize, [](Ctx& c) -> Result {
    // A size record of the member's true size, and a size field one short,
    // which a reader ignoring pax would take (NEFF-58).
    const std::optional<size_t> index = FirstNonEmpty(c.neff);
    if (!index) return No("no member holds bytes");
    c.neff.dialect = Dialect::kPax;
    Member& member = c.neff.members[*index];
    const uint64_t size = Bytes(member).size();
    member.pax.emplace_back("size", Str(size));
    c.tar_patch = [index = *index, size](WrittenTar& t) {
      if (index >= t.headers.size()) return false;
      SetOctal(t.bytes, t.headers[index] + tar_field::kSize.at, 12, size - 1);
      RewriteTarChecksum(t.bytes, t.headers[index]);
      return true;
    };
    return true;
  });
  add(rules::kTarEntryType, [](Ctx& c) -> Result {
    Add(c.neff, "sg00/link.bin", {}, '2', "PE.bin");
    return true;
  });
  add(rules::kTarName, [](Ctx& c) -> Result {
    Add(c.neff, "../escape.json", Text("{}"));
    return true;
  });
  add(rules::kTarDuplicate, [](Ctx& c) -> Result {
    const Member* info = Find(c.neff, "info.json");
    if (info == nullptr) return No("no info.json");
    Add(c.neff, "./info.json", Bytes(*info));
    return true;
  });
  add(rules::kMemberIgnored, [](Ctx& c) -> Result {
    Add(c.neff, "sg00/wavegraph-bin.json", Text("{}"));
    return true;
  });

  // C. JSON members and the graph
  add(rules::kJsonSyntax, [](Ctx& c) -> Result {
    Member* info = Find(c.neff, "info.json");
    if (info == nullptr) return No("no info.json");
    info->content = Text("{\"name\": ");
    c.path = "";
    return true;
  });
  add(rules::kJsonType, [](Ctx& c) -> Result {
    Json* info = JsonOf(c.neff, "info.json");
    if (info == nullptr) return No("no info.json");
    (*info)["num_tpb"] = "1";
    c.path = "info.json:/num_tpb";
    return true;
  });
  add(rules::kJsonNumberRange, [](Ctx& c) -> Result {
    Json* info = JsonOf(c.neff, "info.json");
    if (info == nullptr) return No("no info.json");
    (*info)["num_tpb"] = 1.5;
    c.path = "info.json:/num_tpb";
    return true;
  });
  add(rules::kJsonMissingKey, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json& desc, const Json&) { return desc.contains("to_off"); });
    if (d.desc == nullptr) return No("no descriptor");
    d.desc->erase("to_off");
    c.path = d.path;
    return true;
  });
  add(rules::kGraphMissing, [](Ctx& c) -> Result {
    Remove(c.neff, "neff.json");
    return true;
  });
  add(rules::kGraphKelf, [](Ctx& c) -> Result {
    Json* graph = JsonOf(c.neff, "neff.json");
    if (graph == nullptr) return No("no neff.json");
    for (Json& node : (*graph)["nodes"]) {
      if (node.value("op", "") == "tvm_op") node["attrs"]["kelf"] = "kelf-9.json";
    }
    c.path = "neff.json:/nodes";
    return true;
  });
  add(rules::kGraphIndex, [](Ctx& c) -> Result {
    Json* graph = JsonOf(c.neff, "neff.json");
    if (graph == nullptr) return No("no neff.json");
    (*graph)["arg_nodes"].push_back(999);
    c.path = Str("neff.json:/arg_nodes/", (*graph)["arg_nodes"].size() - 1);
    return true;
  });
  add(rules::kKelfTarget, [](Ctx& c) -> Result {
    Json* kelf = JsonOf(c.neff, "kelf-0.json");
    if (kelf == nullptr) return No("no kelf-0.json");
    (*kelf)["target"] = "zeta";
    c.path = "kelf-0.json:/target";
    return true;
  });
  add(rules::kKelfDefinition, [](Ctx& c) -> Result {
    Json* kelf = JsonOf(c.neff, "kelf-0.json");
    if (kelf == nullptr) return No("no kelf-0.json");
    (*kelf)["graphs"][0]["definition"] = "sg00/missing.json";
    c.path = "kelf-0.json:/graphs/0/definition";
    return true;
  });
  add(rules::kKelfDirectory, [](Ctx& c) -> Result {
    Json* kelf = JsonOf(c.neff, "kelf-0.json");
    const std::optional<Sub> sg = Subgraph(c);
    if (kelf == nullptr || !sg) return No("no kelf-0.json");
    Member* def = Find(c.neff, sg->def_member);
    def->name = Str("def_", sg->name, ".json");
    (*kelf)["graphs"][0]["definition"] = def->name;
    c.path = "kelf-0.json:/graphs/0/definition";
    return true;
  });
  add(rules::kKelfDuplicateGraph, [](Ctx& c) -> Result {
    Json* kelf = JsonOf(c.neff, "kelf-0.json");
    if (kelf == nullptr) return No("no kelf-0.json");
    (*kelf)["graphs"].push_back((*kelf)["graphs"][0]);
    c.path = Str("kelf-0.json:/graphs/", (*kelf)["graphs"].size() - 1, "/name");
    return true;
  });

  // D. def.json
  add(rules::kDefEngine, [](Ctx& c) -> Result {
    std::optional<Sub> sg = Subgraph(c);
    if (!sg) return No("no subgraph");
    std::optional<EngineDoc> pe = EngineOf(c, *sg, "pe");
    if (!pe || !(*pe->doc)["dma"].empty()) return No("the PE engine moves data");
    sg->def->erase("pe");
    Remove(c.neff, pe->json_member);
    c.path = "";
    return true;
  });
  add(rules::kVarIds, [](Ctx& c) -> Result {
    std::optional<std::pair<std::string, Json*>> v = VarOfType(c, "input");
    if (!v) return No("no input variable");
    (*v->second)["var_id"] = 999;
    c.path = Str(Subgraph(c)->def_member, ":/var/", v->first, "/var_id");
    return true;
  });
  add(rules::kVarType, [](Ctx& c) -> Result {
    std::optional<std::pair<std::string, Json*>> v = VarOfType(c, "input");
    if (!v) return No("no input variable");
    (*v->second)["type"] = "scratch";
    c.path = Str(Subgraph(c)->def_member, ":/var/", v->first, "/type");
    return true;
  });
  add(rules::kVarStateBuffer, [](Ctx& c) -> Result {
    Result r = AddVariable(c, "SB2", J{{"type", "state-buffer"}, {"ops", J::array()}});
    c.path = Str(Subgraph(c)->def_member, ":/var");
    return r;
  });
  add(rules::kVarNoOutput, [](Ctx& c) -> Result {
    std::optional<Sub> sg = Subgraph(c);
    if (!sg) return No("no subgraph");
    uint64_t outputs = 0;
    for (auto& [name, v] : (*sg->def)["var"].items()) {
      if (v.value("type", "") == "output") {
        v["type"] = "virtual";
        v["backing_variable_off"] = 0;
        ++outputs;
      }
    }
    if (outputs == 0) return No("no output variable");
    // The tensor map's entries stay: only inputs and outputs need one.
    c.path = Str(sg->def_member, ":/var");
    return true;
  });
  add(rules::kVarSize, [](Ctx& c) -> Result {
    return AddVariable(c, "scratch0", J{{"type", "tmp-buf"}, {"ops", J::array()}});
  });
  add(rules::kVarAlignment, [](Ctx& c) -> Result {
    return AddVariable(c, "scratch0",
                       J{{"type", "tmp-buf"}, {"size", 64}, {"alignment", 3}, {"ops", J::array()}});
  });
  add(rules::kVarFabricPath, [](Ctx& c) -> Result {
    return AddVariable(
        c, "scratch0",
        J{{"type", "tmp-buf"}, {"size", 64}, {"fabric_path", "side"}, {"ops", J::array()}});
  });
  add(rules::kVarFileName, [](Ctx& c) -> Result {
    return AddVariable(
        c, "scratch0",
        J{{"type", "tmp-buf"}, {"size", 64}, {"file_name", "scratch.npy"}, {"ops", J::array()}});
  });
  add(rules::kVarNpy, [](Ctx& c) -> Result {
    std::optional<std::pair<std::string, Json*>> v = VarOfType(c, "file");
    if (!v || !v->second->contains("file_name")) return No("no file variable");
    const std::string member =
        Prefix(Subgraph(c)->name) + (*v->second)["file_name"].get<std::string>();
    Member* m = Find(c.neff, member);
    if (m == nullptr || !member.ends_with(".npy")) return No("no .npy constant");
    m->content = Text("\x93NUMPY but not really");
    c.path = Str(Subgraph(c)->def_member, ":/var/", v->first, "/file_name");
    return true;
  });
  add(rules::kVarFileSize, [](Ctx& c) -> Result {
    std::optional<std::pair<std::string, Json*>> v = VarOfType(c, "file");
    if (!v) return No("no file variable");
    (*v->second)["size"] = (*v->second)["size"].get<int64_t>() * 2;
    c.path = Str(Subgraph(c)->def_member, ":/var/", v->first, "/file_name");
    return true;
  });
  add(rules::kVarTypeField, [](Ctx& c) -> Result {
    std::optional<std::pair<std::string, Json*>> v = VarOfType(c, "input");
    if (!v) return No("no input variable");
    (*v->second)["backing_variable_off"] = 0;
    c.path = Str(Subgraph(c)->def_member, ":/var/", v->first, "/backing_variable_off");
    return true;
  });
  // A queue set no block uses, with semaphores of its own.
  const auto add_queue = [](Ctx& c, Json set) -> Result {
    std::optional<Sub> sg = Subgraph(c);
    if (!sg) return No("no subgraph");
    (*sg->def)["dma_queue"]["qExtra0"] = std::move(set);
    c.path = Str(sg->def_member, ":/dma_queue/qExtra0");
    return true;
  };
  add(rules::kQueueType, [=](Ctx& c) -> Result {
    return add_queue(
        c, J{{"type", "sideways"}, {"num_queues", 1}, {"owner", "sp"}, {"semaphore_set", {900}}});
  });
  add(rules::kQueueCount,
      [=](Ctx& c) -> Result {
        return add_queue(
            c,
            J{{"type", "in"}, {"num_queues", 17}, {"owner", "sp"}, {"semaphore_set", J::array()}});
      },
      {&rules::kQueueSemaphores});
  add(rules::kQueueOwner, [=](Ctx& c) -> Result {
    return add_queue(
        c, J{{"type", "in"}, {"num_queues", 1}, {"owner", "gpu"}, {"semaphore_set", {900}}});
  });
  add(rules::kQueueSemaphores, [=](Ctx& c) -> Result {
    return add_queue(
        c, J{{"type", "in"}, {"num_queues", 1}, {"owner", "sp"}, {"semaphore_set", {900, 901}}});
  });
  const auto add_reservation = [](Ctx& c, Json r) -> Result {
    std::optional<Sub> sg = Subgraph(c);
    if (!sg) return No("no subgraph");
    Json& list = (*sg->def)["runtime_statebuffer_reservation"];
    if (!list.is_array()) list = J::array();
    list.push_back(std::move(r));
    c.path = Str(sg->def_member, ":/runtime_statebuffer_reservation/", list.size() - 1);
    return true;
  };
  add(rules::kReservationType, [=](Ctx& c) -> Result {
    return add_reservation(c, J{{"type", "scratch"},
                                {"base_partition", 0},
                                {"partitions", 128},
                                {"offset", 100000},
                                {"size", 8}});
  });
  add(rules::kReservationShape, [=](Ctx& c) -> Result {
    return add_reservation(c, J{{"type", "evtaccel"},
                                {"base_partition", 0},
                                {"partitions", 200},
                                {"offset", 100000},
                                {"size", 8}});
  });
  add(rules::kReservationAccess, [=](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json& desc, const Json& def) {
      return VarType(def, desc.value("to", J())) == "state-buffer";
    });
    if (d.desc == nullptr) return No("no descriptor writes the state buffer");
    const int64_t byte = (*d.desc)["to_off"].get<int64_t>() & 0x3FFFF;
    Result r = add_reservation(c, J{{"type", "evtaccel"},
                                    {"base_partition", 0},
                                    {"partitions", 128},
                                    {"offset", byte},
                                    {"size", 8}});
    c.path = d.path + "/to_off";
    return r;
  });
  add(rules::kFeatures, [](Ctx& c) -> Result {
    std::optional<Sub> sg = Subgraph(c);
    if (!sg) return No("no subgraph");
    Json& features = (*sg->def)["neff_features"];
    if (c.neff.header.lnc_size > 1) {
      features = J::array();
    } else {
      features.push_back("neff_feature_vnc");
    }
    c.path = Str(sg->def_member, ":/neff_features");
    return true;
  });

  // E. Engine JSON and DMA descriptors
  add(rules::kEngineNames, [](Ctx& c) -> Result {
    std::optional<EngineDoc> e = EngineWithBlocks(c);
    if (!e) return No("no engine");
    (*e->doc)["instr"] = "Other.bin";
    c.path = e->json_member + ":/instr";
    return true;
  });
  add(rules::kEngineSelfName, [](Ctx& c) -> Result {
    std::optional<EngineDoc> e = EngineWithBlocks(c);
    if (!e) return No("no engine");
    (*e->doc)["name"] = "Other.json";
    c.path = e->json_member + ":/name";
    return true;
  });
  add(rules::kBlockIds,
      [](Ctx& c) -> Result {
        std::optional<Target> t = LastBlockOfAQueue(c);
        if (!t) return No("no block");
        // Unless another queue of the engine has the id, the engine's ids get
        // a gap; the queue's ids and its triggers' order break with them.
        Json& block = (*t->engine.doc)["dma"][t->block];
        const int64_t id = t->id + 1000;
        block["id"] = id;
        block["semaphore"] = SemaphoreFor(*Subgraph(c)->def, t->queue, id);
        SetTriggerId(*t->program, t->slot, static_cast<uint32_t>(id));
        c.path = Str(t->engine.json_member, ":/dma/", t->block, "/id");
        return true;
      },
      {&rules::kBlockQueueId, &rules::kTriggerOrder});
  add(rules::kBlockQueue,
      [](Ctx& c) -> Result {
        std::optional<Target> t = LastBlockOfAQueue(c);
        if (!t) return No("no block");
        (*t->engine.doc)["dma"][t->block]["queue"] = "qMissing";
        SetTriggerQueue(*t->program, t->slot, "qMissing");
        c.path = Str(t->engine.json_member, ":/dma/", t->block, "/queue");
        return true;
      },
      {&rules::kTriggerTarget});
  add(rules::kBlockOwner,
      [](Ctx& c) -> Result {
        std::optional<Target> t = LastBlockOfAQueue(c);
        if (!t) return No("no block");
        QueueSetOf(*Subgraph(c)->def, t->queue)["owner"] = t->engine.key == "pe" ? "dve" : "pe";
        c.path = Str(t->engine.json_member, ":/dma/", t->block, "/queue");
        return true;
      },
      {&rules::kTriggerTarget});
  add(rules::kBlockSemaphore, [](Ctx& c) -> Result {
    std::optional<Target> t = LastBlockOfAQueue(c);
    if (!t) return No("no block");
    (*t->engine.doc)["dma"][t->block]["semaphore"] = 4000;
    c.path = Str(t->engine.json_member, ":/dma/", t->block, "/semaphore");
    return true;
  });
  add(rules::kBlockEmpty, [](Ctx& c) -> Result {
    std::optional<Target> t = LastBlockOfAQueue(c);
    if (!t) return No("no block");
    (*t->engine.doc)["dma"][t->block]["desc"] = J::array();
    c.path = Str(t->engine.json_member, ":/dma/", t->block, "/desc");
    return true;
  });
  add(rules::kDescVariable, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json& desc, const Json&) { return desc.contains("from"); });
    if (d.desc == nullptr) return No("no descriptor");
    (*d.desc)["from"] = "undeclared";
    c.path = d.path + "/from";
    return true;
  });
  add(rules::kDescPattern, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json& desc, const Json&) {
      return desc.contains("to_sizes") && desc["to_sizes"].size() < 4;
    });
    if (d.desc == nullptr) return No("no descriptor");
    (*d.desc)["to_sizes"].push_back(1);
    c.path = d.path + "/to_sizes";
    return true;
  });
  add(rules::kDescPatternValues, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json& desc, const Json&) {
      return desc.contains("from_sizes") && desc.contains("to_sizes");
    });
    if (d.desc == nullptr) return No("no descriptor");
    (*d.desc)["from_sizes"][0] = 0;
    (*d.desc)["to_sizes"][0] = 0;
    c.path = d.path + "/from_sizes/0";
    return true;
  });
  add(rules::kDescFirstStep, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json& desc, const Json&) { return desc.contains("to_steps"); });
    if (d.desc == nullptr) return No("no descriptor");
    (*d.desc)["to_steps"][0] = 0;
    c.path = d.path + "/to_steps/0";
    return true;
  });
  add(rules::kDescDtype, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json& desc, const Json&) {
      return desc.value("from_dtype", "") == desc.value("to_dtype", "") && !desc.contains("op");
    });
    if (d.desc == nullptr) return No("no copy");
    (*d.desc)["from_dtype"] = "float128";
    (*d.desc)["to_dtype"] = "float128";
    c.path = d.path + "/from_dtype";
    return true;
  });
  add(rules::kDescRowBytes, [](Ctx& c) -> Result {
    // Rows one byte short of whole elements on both sides.
    DescAt d = FindDesc(c, [&](const Json& desc, const Json&) {
      const std::string dtype = desc.value("from_dtype", "uint8");
      return (!desc.contains("op") || desc["op"] == "copy") && dtype != "uint8" &&
             dtype != "int8" && desc["from_sizes"][0] == desc["to_sizes"][0];
    });
    if (d.desc == nullptr) return No("no copy of elements wider than a byte");
    for (const char* key : {"from_sizes", "to_sizes"}) {
      (*d.desc)[key][0] = (*d.desc)[key][0].get<int64_t>() - 1;
    }
    c.path = d.path + "/from_sizes/0";
    return true;
  });
  add(rules::kDescElements, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json& desc, const Json&) {
      return desc.contains("to_sizes") && desc["to_sizes"].size() > 1 && desc["to_sizes"][1] > 1;
    });
    if (d.desc == nullptr) return No("no descriptor of several rows");
    (*d.desc)["to_sizes"][1] = (*d.desc)["to_sizes"][1].get<int64_t>() - 1;
    c.path = d.path;
    return true;
  });
  add(rules::kDescOp, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json&, const Json&) { return true; });
    if (d.desc == nullptr) return No("no descriptor");
    (*d.desc)["op"] = "teleport";
    c.path = d.path + "/op";
    return true;
  });
  add(rules::kDescTiling, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json&, const Json&) { return true; });
    if (d.desc == nullptr) return No("no descriptor");
    (*d.desc)["num_tiling_dimensions"] = 9;
    c.path = d.path + "/num_tiling_dimensions";
    return true;
  });
  add(rules::kDescBounds, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json& desc, const Json& def) {
      const std::string type = VarType(def, desc.value("from", J()));
      return !type.empty() && type != "state-buffer";
    });
    if (d.desc == nullptr) return No("no descriptor reads a sized variable");
    const std::optional<Sub> sg = Subgraph(c);
    (*d.desc)["from_off"] = (*sg->def)["var"][(*d.desc)["from"].get<std::string>()]["size"];
    c.path = d.path + "/from_off";
    return true;
  });

  // F. Programs
  const auto with_program = [](Ctx& c, const std::function<bool(Buffer&)>& edit,
                               std::string what) -> Result {
    std::optional<EngineDoc> e = EngineWithBlocks(c);
    if (!e) return No("no engine moves data");
    Buffer* program = BytesOf(c.neff, e->program_member);
    if (program == nullptr || !edit(*program)) return No(what);
    c.path = "";  // the slot
    return true;
  };
  add(rules::kProgramSlots, [=](Ctx& c) -> Result {
    return with_program(
        c, [](Buffer& p) { return p.resize(p.size() + 10, 0), true; }, "");
  });
  add(rules::kTriggerTarget, [=](Ctx& c) -> Result {
    return with_program(
        c,
        [](Buffer& p) {
          const std::vector<Slot> slots = TriggerSlots(p);
          if (slots.empty()) return false;
          ProgramSlot extra = TriggerSlot(slots.back().queue, 999);
          p.insert(p.end(), extra.begin(), extra.end());
          return true;
        },
        "no trigger");
  });
  add(rules::kTriggerCount, [=](Ctx& c) -> Result {
    return with_program(
        c,
        [](Buffer& p) {
          const std::vector<Slot> slots = TriggerSlots(p);
          if (slots.empty()) return false;
          p.erase(p.begin() + slots.back().offset, p.begin() + slots.back().offset + 64);
          return true;
        },
        "no trigger");
  });
  add(rules::kTriggerOrder, [=](Ctx& c) -> Result {
    return with_program(
        c,
        [](Buffer& p) {
          const std::vector<Slot> slots = TriggerSlots(p);
          for (size_t i = 0; i < slots.size(); ++i) {
            for (size_t j = i + 1; j < slots.size(); ++j) {
              if (slots[i].queue != slots[j].queue) continue;
              SetTriggerId(p, slots[i].offset, slots[j].id);
              SetTriggerId(p, slots[j].offset, slots[i].id);
              return true;
            }
          }
          return false;
        },
        "no queue triggers two blocks");
  });
  add(rules::kProgramFirstSlot, [=](Ctx& c) -> Result {
    return with_program(
        c, [](Buffer& p) { return !p.empty() && (p[0] = kOpcodeSemaphore, true); },
        "an empty program");
  });

  // G. Cross-file consistency
  add(rules::kInfoHeader, [](Ctx& c) -> Result {
    Json* info = JsonOf(c.neff, "info.json");
    if (info == nullptr) return No("no info.json");
    (*info)["num_tpb"] = 2;
    c.path = "info.json:/num_tpb";
    return true;
  });
  const auto tensor_entry = [](Ctx& c) -> std::pair<Json*, std::string> {
    std::optional<Sub> sg = Subgraph(c);
    std::optional<std::pair<std::string, Json*>> v = VarOfType(c, "input");
    Json* map = sg ? JsonOf(c.neff, Prefix(sg->name) + "tensor_map.json") : nullptr;
    if (!v || map == nullptr || !map->contains(v->first)) return {nullptr, ""};
    return {map, v->first};
  };
  add(rules::kTensorMapEntry, [=](Ctx& c) -> Result {
    auto [map, name] = tensor_entry(c);
    if (map == nullptr) return No("no tensor map entry of an input");
    map->erase(name);
    c.path = Str(Subgraph(c)->def_member, ":/var/", name);
    return true;
  });
  add(rules::kTensorMapSize, [=](Ctx& c) -> Result {
    auto [map, name] = tensor_entry(c);
    if (map == nullptr) return No("no tensor map entry of an input");
    (*map)[name]["tf_shape"].push_back(2);
    c.path = Str(Prefix(Subgraph(c)->name), "tensor_map.json:/", name, "/tf_shape");
    return true;
  });
  const auto activation = [](Ctx& c) -> std::optional<EngineDoc> {
    std::optional<Sub> sg = Subgraph(c);
    if (!sg) return std::nullopt;
    std::optional<EngineDoc> act = EngineOf(c, *sg, "act");
    if (!act || !act->doc->contains("act_info") ||
        (*act->doc)["activation_function_sets"].empty()) {
      return std::nullopt;
    }
    return act;
  };
  add(rules::kActivationSet, [=](Ctx& c) -> Result {
    std::optional<EngineDoc> act = activation(c);
    if (!act) return No("no activation set in use");
    (*act->doc)["activation_function_sets"].push_back("unknown_set");
    c.path = act->json_member + ":/activation_function_sets";
    return true;
  });
  add(rules::kActivationFiles, [=](Ctx& c) -> Result {
    std::optional<EngineDoc> act = activation(c);
    if (!act) return No("no activation set in use");
    const std::string set = (*act->doc)["activation_function_sets"][0];
    const std::string prefix = Prefix(Subgraph(c)->name);
    const Json* catalogue = JsonOf(c.neff, prefix + (*act->doc)["act_info"].get<std::string>());
    if (catalogue == nullptr) return No("no activation catalogue");
    for (const Json& s : (*catalogue)["act_func_sets"]) {
      if (s.value("name", "") == set) {
        Remove(c.neff, prefix + s["bkt_bin"].get<std::string>());
        c.path = "";
        return true;
      }
    }
    return No("the set is not catalogued");
  });
  add(rules::kDveTables, [](Ctx& c) -> Result {
    std::optional<Sub> sg = Subgraph(c);
    std::optional<EngineDoc> dve = sg ? EngineOf(c, *sg, "dve") : std::nullopt;
    if (!dve || !dve->doc->contains("dve_tables") || (*dve->doc)["dve_tables"].empty()) {
      return No("no DVE tables");
    }
    const Json& tables = (*dve->doc)["dve_tables"][0];
    if (!tables.is_object() || tables.empty()) return No("no DVE table files");
    const std::string key = tables.begin().key();
    Remove(c.neff, Prefix(sg->name) + tables.begin().value().get<std::string>());
    c.path = Str(dve->json_member, ":/dve_tables/0/", key);
    return true;
  });
  add(rules::kMemberUnreferenced, [](Ctx& c) -> Result {
    Add(c.neff, "sg00/stray.bin", Buffer(16, 0));
    return true;
  });

  // H. Derived invariants
  add(rules::kJsonDuplicateKey, [](Ctx& c) -> Result {
    Member* info = Find(c.neff, "info.json");
    if (info == nullptr) return No("no info.json");
    const Buffer bytes = Bytes(*info);
    std::string text(bytes.begin(), bytes.end());
    text.insert(text.find('{') + 1, "\"num_tpb\": 1, ");
    info->content = Text(text);
    c.path = "info.json:/num_tpb";
    return true;
  });
  add(rules::kBlockQueueId,
      [](Ctx& c) -> Result {
        std::optional<Target> t = LastBlockOfAQueue(c, 1);
        if (!t) return No("no queue has two blocks");
        Json& block = (*t->engine.doc)["dma"][t->block];
        block["id"] = t->id - 1;
        block["semaphore"] = SemaphoreFor(*Subgraph(c)->def, t->queue, t->id - 1);
        SetTriggerId(*t->program, t->slot, static_cast<uint32_t>(t->id - 1));
        c.path = Str(t->engine.json_member, ":/dma/", t->block, "/id");
        return true;
      },
      {&rules::kTriggerOrder});
  add(rules::kBlockSemaphoreIndex, [](Ctx& c) -> Result {
    std::optional<Target> t = LastBlockOfAQueue(c);
    if (!t) return No("no block");
    Json& set = QueueSetOf(*Subgraph(c)->def, t->queue)["semaphore_set"];
    if (set.size() < 2) return No("the queue set has one semaphore");
    Json& block = (*t->engine.doc)["dma"][t->block];
    block["semaphore"] = SemaphoreFor(*Subgraph(c)->def, t->queue, t->id + 1);
    c.path = Str(t->engine.json_member, ":/dma/", t->block, "/semaphore");
    return true;
  });
  add(rules::kBlockOverlap, [](Ctx& c) -> Result {
    std::optional<Target> t = LastBlockOfAQueue(c);
    if (!t) return No("no block");
    Json& desc = (*t->engine.doc)["dma"][t->block]["desc"];
    desc.push_back(desc[0]);
    c.path = Str(t->engine.json_member, ":/dma/", t->block, "/desc");
    return true;
  });
  add(rules::kDescOpDtype, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json& desc, const Json&) {
      return !desc.contains("op") || desc["op"] == "copy" ? desc.value("to_dtype", "") == "float32"
                                                          : false;
    });
    if (d.desc == nullptr) return No("no float32 copy");
    (*d.desc)["from_dtype"] = "float32";
    (*d.desc)["to_dtype"] = "int32";
    c.path = d.path + "/to_dtype";
    return true;
  });
  add(rules::kDescCastSameDtype, [](Ctx& c) -> Result {
    DescAt d = FindDesc(c, [](const Json& desc, const Json&) {
      return desc.value("op", "copy") == "copy" && !desc.contains("transpose_op") &&
             !desc.contains("from_arr");
    });
    if (d.desc == nullptr) return No("no copy");
    (*d.desc)["op"] = "cast";
    c.path = d.path + "/to_dtype";
    return true;
  });
  // NEFF-53: a descriptor's side moved onto a variable of the same size that
  // moves data the other way.
  add(rules::kDescDirection, [](Ctx& c) { return Retarget(c, "to", "output", "input"); });
  add(rules::kDescReadsOutput, [](Ctx& c) { return Retarget(c, "from", "input", "output"); });
  add(rules::kMemberReference, [](Ctx& c) -> Result {
    std::optional<Sub> sg = Subgraph(c);
    if (!sg) return No("no subgraph");
    (*sg->def)["dma_dbg"] = J::array({"debug/dma.dbg"});
    c.path = Str(sg->def_member, ":/dma_dbg/0");
    return true;
  });
  add(rules::kGraphSignature, [](Ctx& c) -> Result {
    Json* graph = JsonOf(c.neff, "neff.json");
    if (graph == nullptr) return No("no neff.json");
    for (size_t i = 0; i < (*graph)["nodes"].size(); ++i) {
      Json& node = (*graph)["nodes"][i];
      if (node.value("op", "") == "tvm_op") {
        node["attrs"]["num_inputs"] = "7";
        c.path = Str("neff.json:/nodes/", i, "/attrs/num_inputs");
        return true;
      }
    }
    return No("no tvm_op node");
  });
  add(rules::kSubgraphDma, [](Ctx& c) -> Result {
    const auto graphs = Graphs(c.neff);
    if (graphs.size() < 2) return No("one subgraph");
    // The second subgraph becomes a copy of the first, blocks and all.
    const std::string from = Prefix(graphs[0].first), to = Prefix(graphs[1].first);
    std::erase_if(c.neff.members, [&](const Member& m) { return m.name.starts_with(to); });
    std::vector<Member> copies;
    for (const Member& m : c.neff.members) {
      if (!m.name.starts_with(from)) continue;
      copies.push_back(m);
      copies.back().name = to + m.name.substr(from.size());
    }
    c.neff.members.insert(c.neff.members.end(), copies.begin(), copies.end());
    c.path = "kelf-0.json:/graphs/1";
    return true;
  });
  return changes;
}

// The file of a changed NEFF: its package written with the patches.
std::optional<Buffer> Write(const Ctx& c) {
  const Package package = ToPackage(c.neff);
  WrittenTar tar = WriteTar(package.entries, package.dialect, package.stamp);
  if (c.tar_patch && !c.tar_patch(tar)) return std::nullopt;
  Buffer payload = package.compression == Compression::kGzip
                       ? accelcheck::conformance::Gzip(tar.bytes)
                       : tar.bytes;
  if (package.pad_block > 1) payload.resize(AlignUp(payload.size(), package.pad_block), 0);
  if (c.payload_patch && !c.payload_patch(payload)) return std::nullopt;
  Buffer file = Seal(package.header, payload, package.hash_order);
  if (c.file_patch && !c.file_patch(file)) return std::nullopt;
  return file;
}

// The position of `rule` in the rule table: cases come in its order.
size_t RuleIndex(const Rule* rule) {
  const RuleTable table = AllRules();
  return static_cast<size_t>(std::find(table.begin(), table.end(), rule) - table.begin());
}

class NeffProvider final : public ac::Provider {
 public:
  NeffProvider() {
    for (Change& change : Changes()) {
      cases_.push_back(
          {.rule = change.rule,
           .also = change.also,
           .needs_companions = false,
           .apply = [f = change.change](const ac::Base& base, uint64_t seed,
                                        const std::string& name) -> ac::OrDeclined<ac::Mutated> {
             std::string error;
             std::optional<Neff> neff = Read(base.files[0].bytes, &error);
             if (!neff) return No("the base does not read: " + error);
             Ctx c{.neff = std::move(*neff), .seed = seed};
             Result r = f(c);
             if (const auto* declined = std::get_if<ac::Declined>(&r)) return *declined;
             std::optional<Buffer> file = Write(c);
             if (!file) return No("the base offers no place for the change");
             // The validator's path is the JSON pointer inside the member.
             const size_t pointer = c.path.find(":/");
             return ac::Mutated{
                 .files = {{name, std::move(*file)}},
                 .companions = {},
                 .path = pointer == std::string::npos ? c.path : c.path.substr(pointer + 1)};
           }});
    }
    std::stable_sort(cases_.begin(), cases_.end(), [](const auto& a, const auto& b) {
      return RuleIndex(a.rule) < RuleIndex(b.rule);
    });
  }
  std::string_view format() const override { return "neff"; }
  std::vector<ac::Base> Bases() const override {
    std::vector<ac::Base> bases;
    for (const NamedBase& base : conformance::Bases()) {
      bases.push_back({"neff.valid." + base.name,
                       base.name + ".neff",
                       {{"valid_" + base.name + ".neff", conformance::Write(base.neff)}},
                       {}});
    }
    return bases;
  }
  const std::vector<ac::MutationCase>& Cases() const override { return cases_; }
  ac::OrDeclined<ac::Base> ReadBase(const std::string& path,
                                    const std::vector<std::string>& companions) const override {
    if (!companions.empty()) return No("a NEFF takes no companion file");
    std::string error;
    std::optional<InputBuffer> input = ReadFileLimited(path, Limits{}.max_file_size, &error);
    if (!input) return No(error);
    ac::Base base;
    base.files.push_back({std::filesystem::path(path).filename().string(),
                          Buffer(input->bytes().begin(), input->bytes().end())});
    return base;
  }
  std::string_view companion_option() const override { return "(none)"; }

 private:
  std::vector<ac::MutationCase> cases_;
};

}  // namespace

const ac::Provider& NeffConformance() {
  static const NeffProvider kProvider;
  return kProvider;
}

}  // namespace accelcheck::neff::conformance
