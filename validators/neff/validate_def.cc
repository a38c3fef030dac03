// def.json (docs/formats/neff.md §2.6 to §2.9, §4 D): engines, variables,
// queue sets, state-buffer reservations and features.
#include <algorithm>
#include <map>
#include <set>

#include "validators/core/json_reader.h"
#include "validators/core/npy.h"
#include "validators/core/text.h"
#include "validators/neff/rules.h"
#include "validators/neff/validate.h"

namespace accelcheck::neff {

using namespace rules;

namespace {

std::string VarPath(const Variable& v, std::string_view key = {}) {
  std::string path = Str("/var/", PointerToken(v.name));
  if (!key.empty()) path += Str("/", key);
  return path;
}

std::string QueuePath(const QueueSet& q, std::string_view key = {}) {
  std::string path = Str("/dma_queue/", PointerToken(q.name));
  if (!key.empty()) path += Str("/", key);
  return path;
}

template <typename T>
Location ValueAt(const std::optional<Located<T>>& value, uint64_t fallback, std::string path) {
  return Location{value ? value->offset : fallback, std::nullopt, std::move(path)};
}

// NEFF-23: each engine's JSON and program named and present.
void CheckEngineMembers(Neff& neff, Subgraph& sg, DiagnosticSink& sink) {
  const Definition& def = *sg.def;
  for (size_t e = 0; e < kEngineCount; ++e) {
    const std::string_view key = kEngineKeys[e];
    const std::string program_key = Str(key, "_instr");
    for (const auto& [ref, name] : {std::pair{&def.engine_json[e], std::string(key)},
                                    std::pair{&def.engine_program[e], program_key}}) {
      if (!*ref) {
        sink.Report(kDefEngine, Location{0, std::nullopt, ""},
                    Str("def.json has no ", Quoted(name),
                        "; the runtime runs the subgraph without that engine's work"));
      } else if (!neff.Reach(sg.Member((*ref)->value))) {
        sink.Report(kDefEngine, Location{(*ref)->offset, std::nullopt, Str("/", name)},
                    Str(Quoted(name), " names ", Quoted((*ref)->value),
                        ", which is not a member of ", Quoted(sg.name_prefix())));
      }
    }
    if (def.engine_json[e]) sg.engine_member[e] = sg.Member(def.engine_json[e]->value);
  }
}

// NEFF-24, NEFF-25: var_ids exactly 0..n-1, types, the state buffer and
// the outputs.
void CheckVariableSet(const Definition& def, DiagnosticSink& sink) {
  std::map<int64_t, const Variable*> ids;
  uint64_t state_buffers = 0, outputs = 0;
  for (const Variable& v : def.vars) {
    if (v.type == VarType::kUnknown && !v.type_text.empty()) {
      sink.Report(kVarType, Location{v.offset, std::nullopt, VarPath(v, "type")},
                  Str("type ", Quoted(v.type_text),
                      " is not one of state-buffer, input, output, "
                      "file, tmp-buf, virtual, pointer, dge-table"));
    }
    state_buffers += v.type == VarType::kStateBuffer;
    outputs += v.type == VarType::kOutput;
    if (!v.var_id) continue;
    const auto [it, added] = ids.emplace(*v.var_id, &v);
    if (!added) {
      sink.Report(kVarIds, Location{v.offset, std::nullopt, VarPath(v, "var_id")},
                  Str("var_id ", *v.var_id, " is also variable ", Quoted(it->second->name),
                      "'s (Unexpected var_ids set!)"));
    }
  }
  for (const auto& [id, v] : ids) {
    if (id < 0 || static_cast<uint64_t>(id) >= def.vars.size()) {
      sink.Report(kVarIds, Location{v->offset, std::nullopt, VarPath(*v, "var_id")},
                  Str("var_id ", id, " is outside 0 to ", def.vars.size() - 1, " for ",
                      def.vars.size(), " variables (Unexpected var_ids set!)"));
    }
  }
  if (state_buffers != 1) {
    sink.Report(kVarStateBuffer, Location{0, std::nullopt, "/var"},
                Str("the subgraph declares ", state_buffers,
                    " state-buffer variables; real files declare exactly one, SB"));
  }
  if (outputs == 0) {
    sink.Report(kVarNoOutput, Location{0, std::nullopt, "/var"},
                "the subgraph declares no output variable (no Outputs)");
  }
}

// NEFF-28: a file variable's constant, .npy data or raw bytes.
void CheckConstant(Neff& neff, const Subgraph& sg, const Variable& v, DiagnosticSink& sink) {
  const std::string member = sg.Member(v.file_name->value);
  const Location where{v.file_name->offset, std::nullopt, VarPath(v, "file_name")};
  if (!neff.Reach(member)) {
    sink.Report(kVarFileName, where,
                Str("file_name ", Quoted(v.file_name->value), " is not a member of ",
                    Quoted(sg.name_prefix())));
    return;
  }
  const ByteView bytes = neff.container.Find(member)->data;
  uint64_t data_bytes = bytes.size();
  if (member.ends_with(".npy")) {
    std::string error;
    const std::optional<npy::Layout> layout = npy::ReadLayout(bytes, &error, ~uint64_t{0});
    if (!layout) {
      sink.Report(kVarNpy, where, Str(Quoted(member), " is not NumPy data: ", error));
      return;
    }
    data_bytes = layout->count * layout->dtype.bytes;
  }
  if (v.size && v.size->value > 0 && data_bytes != static_cast<uint64_t>(v.size->value)) {
    sink.Report(kVarFileSize, where,
                Str(Quoted(member), " holds ", data_bytes, " bytes of data; the variable is ",
                    v.size->value, " bytes"));
  }
}

// NEFF-29: a DGE table lists the variables whose addresses the descriptor
// generation engine fills in at run time (§2.7): each once, each a variable
// in device memory, never the state buffer or a DGE table.
void CheckDgeTableList(const Definition& def, const Variable& v, DiagnosticSink& sink) {
  if (v.type != VarType::kDgeTable) return;
  if (!v.list || v.list->value.empty()) {
    sink.Report(kVarTypeField, ValueAt(v.list, v.offset, VarPath(v, "list")),
                Str("DGE table ", Quoted(v.name), " lists no variable"));
    return;
  }
  std::set<int64_t> seen;
  for (int64_t id : v.list->value) {
    const auto listed = std::find_if(def.vars.begin(), def.vars.end(),
                                     [&](const Variable& other) { return other.var_id == id; });
    std::string problem;
    if (listed == def.vars.end()) {
      problem = "which is no variable's var_id";
    } else if (listed->type == VarType::kStateBuffer || listed->type == VarType::kDgeTable) {
      problem = Str("variable ", Quoted(listed->name), " of type ", Quoted(listed->type_text),
                    ", which has no device address");
    } else if (!seen.insert(id).second) {
      problem = "a second time";
    }
    if (!problem.empty()) {
      sink.Report(kVarTypeField, ValueAt(v.list, v.offset, VarPath(v, "list")),
                  Str("list holds ", id, ", ", problem));
      return;
    }
  }
}

// NEFF-26 to NEFF-29: each variable's fields for its type.
void CheckVariable(Neff& neff, const Subgraph& sg, const Variable& v, DiagnosticSink& sink) {
  const Definition& def = *sg.def;
  // The state buffer's extent is the target's, a DGE table's the runtime's
  // (one entry per listed variable): neither has a size (NEFF-26).
  const bool sized = v.type != VarType::kStateBuffer && v.type != VarType::kDgeTable;
  if (v.size ? v.size->value < 1 : sized) {
    sink.Report(kVarSize, ValueAt(v.size, v.offset, VarPath(v, "size")),
                v.size ? Str("variable ", Quoted(v.name), " has size ", v.size->value)
                       : Str("variable ", Quoted(v.name), " of type ", Quoted(v.type_text),
                             " has no size"));
  }
  if (v.alignment) {
    const int64_t a = v.alignment->value;
    if (a < 0 || (a & (a - 1)) != 0) {
      sink.Report(kVarAlignment, ValueAt(v.alignment, v.offset, VarPath(v, "alignment")),
                  Str("alignment ", a, " is not a power of two"));
    }
  }
  if (v.fabric_path && v.fabric_path->value != "main" && v.fabric_path->value != "alt") {
    sink.Report(kVarFabricPath, ValueAt(v.fabric_path, v.offset, VarPath(v, "fabric_path")),
                Str("fabric_path ", Quoted(v.fabric_path->value), " is neither main nor alt"));
  }
  if (v.type == VarType::kFile && !v.file_name) {
    sink.Report(kVarFileName, Location{v.offset, std::nullopt, VarPath(v)},
                Str("file variable ", Quoted(v.name), " has no file_name"));
  } else if (v.file_name && v.type != VarType::kFile) {
    sink.Report(kVarFileName, ValueAt(v.file_name, v.offset, VarPath(v, "file_name")),
                Str("file_name is on a variable of type ", Quoted(v.type_text),
                    "; only file variables have one"));
  } else if (v.file_name) {
    CheckConstant(neff, sg, v, sink);
  }
  const auto misplaced = [&](const auto& field, std::string_view key, VarType owner) {
    if (field && v.type != owner) {
      sink.Report(kVarTypeField, ValueAt(field, v.offset, VarPath(v, key)),
                  Str(key, " is on a variable of type ", Quoted(v.type_text), "; only ",
                      VarTypeName(owner), " variables have one"));
      return true;
    }
    return false;
  };
  const auto known_id = [&](int64_t id) {
    return std::any_of(def.vars.begin(), def.vars.end(),
                       [&](const Variable& other) { return other.var_id == id; });
  };
  misplaced(v.backing_variable_off, "backing_variable_off", VarType::kVirtual);
  if (!misplaced(v.referenced_var_id, "referenced_var_id", VarType::kPointer) &&
      v.referenced_var_id && !known_id(v.referenced_var_id->value)) {
    sink.Report(kVarTypeField,
                ValueAt(v.referenced_var_id, v.offset, VarPath(v, "referenced_var_id")),
                Str("referenced_var_id ", v.referenced_var_id->value, " is no variable's var_id"));
  }
  if (!misplaced(v.list, "list", VarType::kDgeTable)) CheckDgeTableList(def, v, sink);
}

// NEFF-30: queue sets.
void CheckQueueSets(const Definition& def, DiagnosticSink& sink) {
  static constexpr std::string_view kTypes[] = {"in", "out", "data", "embedding_update", "dynamic"};
  std::map<int64_t, const QueueSet*> semaphores;
  for (const QueueSet& q : def.queues) {
    if (!q.type ||
        std::find(std::begin(kTypes), std::end(kTypes), q.type->value) == std::end(kTypes)) {
      sink.Report(kQueueType, ValueAt(q.type, q.offset, QueuePath(q, "type")),
                  q.type ? Str("queue set ", Quoted(q.name), " has type ", Quoted(q.type->value),
                               ", not in, out, data, embedding_update or dynamic")
                         : Str("queue set ", Quoted(q.name), " has no type"));
    }
    if (q.num_queues && (q.num_queues->value < 1 || q.num_queues->value > 16)) {
      sink.Report(kQueueCount, ValueAt(q.num_queues, q.offset, QueuePath(q, "num_queues")),
                  Str("num_queues is ", q.num_queues->value, ", not from 1 to 16"));
    }
    if (q.owner &&
        std::find(kEngineKeys.begin(), kEngineKeys.end(), q.owner->value) == kEngineKeys.end()) {
      sink.Report(kQueueOwner, ValueAt(q.owner, q.offset, QueuePath(q, "owner")),
                  Str("owner ", Quoted(q.owner->value), " is not pe, act, pool, dve or sp"));
    }
    if (q.fabric_path && q.fabric_path->value != "main" && q.fabric_path->value != "alt") {
      sink.Report(kVarFabricPath, ValueAt(q.fabric_path, q.offset, QueuePath(q, "fabric_path")),
                  Str("fabric_path ", Quoted(q.fabric_path->value), " is neither main nor alt"));
    }
    if (!q.semaphore_set) continue;
    const Location at = ValueAt(q.semaphore_set, q.offset, QueuePath(q, "semaphore_set"));
    if (q.semaphore_set->value.size() != q.queue_count()) {
      sink.Report(kQueueSemaphores, at,
                  Str("semaphore_set has ", q.semaphore_set->value.size(), " entries for ",
                      q.queue_count(), " queues"));
    }
    for (int64_t s : q.semaphore_set->value) {
      const auto [it, added] = semaphores.emplace(s, &q);
      if (!added && it->second != &q) {
        sink.Report(kQueueSemaphores, at,
                    Str("semaphore ", s, " also belongs to queue set ", Quoted(it->second->name)));
        break;
      }
    }
  }
}

// NEFF-31: evtaccel reservations inside the state buffer.
void CheckReservations(const Neff& neff, const Definition& def, DiagnosticSink& sink) {
  const StateBuffer& sb = neff.state_buffer;
  const bool cayman = neff.kelf && (neff.kelf->target == "cayman" || neff.kelf->target == "v3");
  for (size_t i = 0; i < def.reservations.size(); ++i) {
    const Reservation& r = def.reservations[i];
    const Location at{r.at, std::nullopt, Str("/runtime_statebuffer_reservation/", i)};
    if (r.type != "evtaccel") {
      sink.Report(kReservationType, at,
                  Str("reservation type ", Quoted(r.type), " is not evtaccel"));
      continue;
    }
    if (!r.base_partition || !r.partitions || !r.offset || !r.size) continue;
    const int64_t base = *r.base_partition, count = *r.partitions, off = *r.offset, size = *r.size;
    const auto partitions = static_cast<int64_t>(sb.partitions);
    const auto bytes = static_cast<int64_t>(sb.partition_bytes);
    if (base < 0 || count < 1 || count > partitions - base || off < 0 || size < 1 ||
        size > bytes - off) {
      sink.Report(kReservationShape, at,
                  Str("partitions ", base, " + ", count, ", bytes ", off, " + ", size,
                      " do not lie inside ", sb.partitions, " partitions of ", sb.partition_bytes,
                      " bytes"));
    } else if (cayman && (base != 0 || count != 128 || size != 8)) {
      sink.Report(kReservationShape, at,
                  Str("on cayman the evtaccel reservation is base_partition 0, partitions 128, "
                      "size 8; this one is ",
                      base, ", ", count, ", ", size));
    }
  }
}

// NEFF-32: the vnc feature exactly with two logical cores.
void CheckFeatures(const Neff& neff, const Definition& def, DiagnosticSink& sink) {
  const bool vnc = def.features && std::find(def.features->value.begin(), def.features->value.end(),
                                             "neff_feature_vnc") != def.features->value.end();
  const bool wanted = neff.header.lnc_size > 1;
  if (vnc != wanted) {
    sink.Report(kFeatures, ValueAt(def.features, 0, "/neff_features"),
                Str("neff_features ", vnc ? "holds" : "lacks", " neff_feature_vnc with lnc_size ",
                    neff.header.lnc_size));
  }
}

}  // namespace

void DecodeDefinitions(Neff& neff) {
  const Limits& limits = neff.context.limits;
  for (Subgraph& sg : neff.subgraphs) {
    if (const tar::Member* def = JsonMember(neff, sg.definition)) {
      sg.def = DecodeDefinition(def->data, limits, neff.In(sg.definition));
    }
    sg.tensor_map_member = sg.Member("tensor_map.json");
    neff.reached.insert(sg.tensor_map_member);
    if (const tar::Member* map = JsonMember(neff, sg.tensor_map_member)) {
      sg.tensor_map = DecodeTensorMap(map->data, limits, neff.In(sg.tensor_map_member));
    }
  }
}

void CheckDefinition(Neff& neff, Subgraph& sg) {
  DiagnosticSink& sink = neff.In(sg.definition);
  const Definition& def = *sg.def;
  CheckEngineMembers(neff, sg, sink);
  CheckVariableSet(def, sink);
  for (const Variable& v : def.vars) CheckVariable(neff, sg, v, sink);
  CheckQueueSets(def, sink);
  CheckReservations(neff, def, sink);
  CheckFeatures(neff, def, sink);
}

}  // namespace accelcheck::neff
