#include "validators/gemini/set_decode.h"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "validators/core/json_decoder.h"
#include "validators/core/text.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/rules.h"

namespace accelcheck::gemini::set {

namespace {

const JsonSchemaRules kSchemaRules{&rules::kJsonSyntax,       &rules::kSchemaType,
                                   &rules::kJsonNumberRange,  &rules::kSchemaMissingKey,
                                   &rules::kSchemaUnknownKey, &rules::kJsonDuplicateKey};

enum class ObjectKind : uint8_t {
  kMetadata,
  kPortPosition,
  kPort,
  kDramIn,
  kDramOut,
  kOutDestination,
  kWorkload,
  kIfmap,
  kWeight,
  kBufferEntry,
  kOfmapRange,
  kSource,
  kSend,
  kSendTarget,
  kCount
};

class Decoder : public JsonDecoder {
 public:
  Decoder(ByteView text, const Limits& limits, DiagnosticSink& sink, Ir* ir,
          const InputBuffer* input)
      : JsonDecoder(text, limits, sink, kSchemaRules, input), ir_(*ir), layers_(&ir->layers) {}

  bool Run() {
    Top();
    return Finish();
  }

 private:
  template <size_t N, typename F>
  uint64_t Fields(const JsonKeys<N>& keys, ObjectKind kind, F&& read) {
    return JsonDecoder::Fields(keys, key_orders_[static_cast<size_t>(kind)], std::forward<F>(read));
  }
  bool Layer(uint32_t* out);
  // A bound: 4 coordinates, or one integer, a weight's K bound, read into
  // coordinate 1 (docs/formats/gemini.md "The SET dialect").
  bool Bound(std::array<int64_t, 4>* out);
  bool RangePair(Range* out);
  // "type": the index of `value` in `names`, else reported.
  template <size_t N>
  std::optional<size_t> Enum(const JsonKeys<N>& names, std::string_view what);
  // "id": a core id, or the list of DRAM ports.
  void IdOrPorts(int64_t* id, std::vector<int64_t>* ports);

  void Top();
  void Metadata();
  void Dram();
  void PortObject(Port* port);
  void DramInEntry(DramIn* in);
  void DramOutEntry(DramOut* out);
  void OutDestination(Destination* d);
  void WorkloadObject(Workload* w);
  void IfmapObject(Workload* w);
  void WeightObject(Weight* weight);
  void BufferEntryObject(BufferEntry* e);
  void OfmapRange(Range* range);
  void SourceEntry(Source* s);
  void SendEntry(Send* send);
  void SendTargetEntry(SendTarget* target);

  std::array<JsonKeyOrder, static_cast<size_t>(ObjectKind::kCount)> key_orders_{};
  Ir& ir_;
  LayerTable layers_;
};

bool Decoder::Layer(uint32_t* out) { return ReadLayer(*this, layers_, out); }

bool Decoder::Bound(std::array<int64_t, 4>* out) {
  if (reader_.Peek() == JsonKind::kNumber) return Int(&(*out)[1]);
  return IntArray(out);
}

bool Decoder::RangePair(Range* out) { return ReadRangePair(*this, out); }

template <size_t N>
std::optional<size_t> Decoder::Enum(const JsonKeys<N>& names, std::string_view what) {
  const Location at = Here();
  std::string_view value;
  if (!String(&value)) return std::nullopt;
  const int index = JsonKeyIndex(names, value);
  if (index >= 0) return static_cast<size_t>(index);
  std::string allowed;
  for (std::string_view name : names) allowed += Str(allowed.empty() ? "" : ", ", Quoted(name));
  sink_.Report(rules::kSchemaEnum, at, Str(what, " ", Quoted(value), " is not one of ", allowed));
  return std::nullopt;
}

void Decoder::IdOrPorts(int64_t* id, std::vector<int64_t>* ports) {
  if (reader_.Peek() == JsonKind::kArray) {
    IntList(ports);
  } else {
    Int(id);
  }
}

// ---- Top level and DRAM ------------------------------------------------------

void Decoder::Top() {
  if (!ExpectKind(JsonKind::kObject, "the top-level object")) return;
  bool has_metadata = false;
  bool has_dram = false;
  std::set<std::string, std::less<>> seen;  // a hostile document may hold millions of keys
  std::string_view key;
  uint64_t key_offset = 0;
  reader_.BeginObject();
  while (reader_.NextKey(&key, &key_offset)) {
    const Location at{key_offset, key.size() + 2, reader_.Pointer()};
    if (!seen.emplace(key).second) {
      sink_.Report(rules::kJsonDuplicateKey, at,
                   Str("key ", Quoted(key), " appears twice in one object"));
      reader_.Skip();
    } else if (key == "metadata") {
      has_metadata = true;
      Metadata();
    } else if (key == "DRAM") {
      has_dram = true;
      Dram();
    } else if (const auto id = CoreKey(key)) {
      ir_.cores.emplace_back();
      Core& core = ir_.cores.back();
      core.id = *id;
      core.offset = reader_.offset();
      List(&core.workloads, [this](Workload* w) { WorkloadObject(w); });
    } else {
      sink_.Report(rules::kSetTop, at,
                   Str("top-level key ", Quoted(key),
                       " is neither a core's mesh id nor one of metadata, DRAM"));
      reader_.Skip();
    }
  }
  if (reader_.failed()) return;
  if (!has_metadata)
    sink_.Report(rules::kSetTop, LocationAt(0, ""), "the document has no \"metadata\"");
  if (!has_dram) sink_.Report(rules::kSetTop, LocationAt(0, ""), "the document has no \"DRAM\"");
  std::sort(ir_.cores.begin(), ir_.cores.end(),
            [](const Core& a, const Core& b) { return a.id < b.id; });
}

void Decoder::Metadata() {
  static constexpr JsonKeys<4> kKeys = {"DRAM", "top_batch_cut", "xlen", "ylen"};
  if (!ExpectObject("the metadata object")) return;
  ir_.metadata_offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kMetadata, [&](int field) {
    switch (field) {
      case 0: {
        if (!ExpectObject("an object of DRAM port positions")) break;
        std::string_view key;
        uint64_t key_offset = 0;
        reader_.BeginObject();
        while (reader_.NextKey(&key, &key_offset)) {
          static constexpr JsonKeys<2> kXy = {"x", "y"};
          PortPosition position;
          const auto id = CoreKey(key);
          if (!id) {
            ReportKey(rules::kSetTop, key, key_offset,
                      Str("DRAM port key ", Quoted(key), " is not a decimal id"));
            reader_.Skip();
            continue;
          }
          position.id = *id;
          if (!ExpectObject("a port position {x, y}")) continue;
          const uint64_t at = reader_.offset();
          const uint64_t xy = Fields(kXy, ObjectKind::kPortPosition,
                                     [&](int f) { Int(f == 0 ? &position.x : &position.y); });
          RequireKeys(kXy, xy, KeyBits({0, 1}), at, "DRAM port position");
          ir_.port_positions.push_back(position);
        }
        break;
      }
      case 1:
        Int(&ir_.top_batch_cut);
        break;
      case 2:
        Int(&ir_.xlen);
        break;
      case 3:
        Int(&ir_.ylen);
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3}), ir_.metadata_offset, "metadata");
  std::sort(ir_.port_positions.begin(), ir_.port_positions.end(),
            [](const PortPosition& a, const PortPosition& b) { return a.id < b.id; });
}

void Decoder::Dram() {
  if (!ExpectObject("the DRAM object of ports")) return;
  ir_.dram_offset = reader_.offset();
  std::string_view key;
  uint64_t key_offset = 0;
  std::unordered_set<int64_t> ids;
  reader_.BeginObject();
  while (reader_.NextKey(&key, &key_offset)) {
    const auto id = CoreKey(key);
    if (!id || !ids.insert(*id).second) {
      ReportKey(id ? rules::kJsonDuplicateKey : rules::kSetTop, key, key_offset,
                id ? Str("key ", Quoted(key), " appears twice in one object")
                   : Str("DRAM port key ", Quoted(key), " is not a decimal id"));
      reader_.Skip();
      continue;
    }
    ir_.ports.emplace_back();
    ir_.ports.back().id = *id;
    PortObject(&ir_.ports.back());
  }
  std::sort(ir_.ports.begin(), ir_.ports.end(),
            [](const Port& a, const Port& b) { return a.id < b.id; });
}

void Decoder::PortObject(Port* port) {
  static constexpr JsonKeys<2> kKeys = {"in", "out"};
  if (!ExpectObject("a DRAM port object")) return;
  port->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kPort, [&](int field) {
    if (field == 0) {
      List(&port->in, [this](DramIn* in) { DramInEntry(in); });
    } else {
      List(&port->out, [this](DramOut* out) { DramOutEntry(out); });
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1}), port->offset, "DRAM port");
}

void Decoder::DramInEntry(DramIn* in) {
  static constexpr JsonKeys<6> kKeys = {"core_id", "workload_id", "lower",
                                        "upper",   "transfer_id", "related_ofmap"};
  if (!ExpectObject("a DRAM in object")) return;
  in->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kDramIn, [&](int field) {
    switch (field) {
      case 0:
        Int(&in->core_id);
        break;
      case 1:
        Int(&in->workload_id);
        break;
      case 2:
        IntArray(&in->range.lo);
        break;
      case 3:
        IntArray(&in->range.hi);
        break;
      case 4:
        Int(&in->transfer_id);
        break;
      case 5:
        IntList(&in->related_ofmap);
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3, 4}), in->offset, "DRAM in entry");
}

void Decoder::DramOutEntry(DramOut* entry) {
  static constexpr JsonKeys<9> kKeys = {"transfer_id", "type",          "layer_name",
                                        "lower",       "upper",         "size",
                                        "priority",    "related_ifmap", "destination"};
  gemini::DramOut& out = entry->out;
  if (!ExpectObject("a DRAM out object")) return;
  out.offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kDramOut, [&](int field) {
    switch (field) {
      case 0:
        Int(&out.transfer_id);
        break;
      case 1: {
        static constexpr JsonKeys<2> kTypes = {"weight", "fmap"};
        if (const auto type = Enum(kTypes, "DRAM out type")) {
          out.type = *type == 0 ? OutType::kWeight : OutType::kFmap;
        }
        break;
      }
      case 2:
        Layer(&entry->layer);
        break;
      case 3:
        Bound(&out.range.lo);
        break;
      case 4:
        Bound(&out.range.hi);
        break;
      case 5:
        Int(&out.size);
        break;
      case 6:
        Int(&entry->priority);
        break;
      case 7:
        IntList(&out.related_ifmap);
        break;
      case 8:
        List(&out.destinations, [this](Destination* d) { OutDestination(d); });
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 3, 4, 5, 6, 7, 8}), out.offset, "DRAM out entry");
}

void Decoder::OutDestination(Destination* d) {
  static constexpr JsonKeys<3> kKeys = {"id", "type", "workload_id"};
  if (!ExpectObject("a destination object")) return;
  const uint64_t at = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kOutDestination, [&](int field) {
    switch (field) {
      case 0:
        Int(&d->core_id);
        break;
      case 1: {
        static constexpr JsonKeys<1> kTypes = {"core"};
        Enum(kTypes, "DRAM out destination type");
        break;
      }
      case 2:
        Int(&d->workload_id);
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2}), at, "destination");
}

// ---- Workloads -------------------------------------------------------------

void Decoder::WorkloadObject(Workload* w) {
  static constexpr JsonKeys<9> kKeys = {"workload_id", "layer_name", "layer_type",
                                        "workload",    "ofmap_size", "time",
                                        "ifmap",       "weight",     "buffer"};
  if (!ExpectObject("a workload object")) return;
  w->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kWorkload, [&](int field) {
    switch (field) {
      case 0:
        Int(&w->id);
        break;
      case 1:
        Layer(&w->layer);
        break;
      case 2: {
        static constexpr JsonKeys<5> kTypes = {"conv2d", "fc", "pool", "element_wise",
                                               "point_to_point"};
        if (const auto type = Enum(kTypes, "layer_type")) w->type = static_cast<LayerType>(*type);
        break;
      }
      case 3:
        RangePair(&w->range);
        break;
      case 4:
        Int(&w->ofmap_size);
        break;
      case 5:
        Int(&w->time);
        break;
      case 6:
        IfmapObject(w);
        break;
      case 7:
        w->weight.emplace();
        WeightObject(&*w->weight);
        break;
      case 8:
        List(&w->buffer, [this](BufferEntry* e) { BufferEntryObject(e); });
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3, 4, 5, 6, 8}), w->offset, "workload");
}

void Decoder::IfmapObject(Workload* w) {
  static constexpr JsonKeys<4> kKeys = {"lower", "upper", "transfer_id", "max_workload_id"};
  if (!ExpectObject("an ifmap object")) return;
  const uint64_t at = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kIfmap, [&](int field) {
    switch (field) {
      case 0:
        IntArray(&w->ifmap_range.lo);
        break;
      case 1:
        IntArray(&w->ifmap_range.hi);
        break;
      case 2:
        IntList(&w->ifmap_ids);
        break;
      case 3:
        Int(&w->max_workload_id);
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3}), at, "ifmap");
}

void Decoder::WeightObject(Weight* weight) {
  static constexpr JsonKeys<3> kKeys = {"lower", "upper", "transfer_id"};
  if (!ExpectObject("a weight object")) return;
  weight->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kWeight, [&](int field) {
    switch (field) {
      case 0:
        Bound(&weight->range.lo);
        break;
      case 1:
        Bound(&weight->range.hi);
        break;
      case 2:
        IntList(&weight->transfer_ids);
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2}), weight->offset, "weight");
}

void Decoder::BufferEntryObject(BufferEntry* e) {
  // "start_ending" is the SET writer's own second spelling of a flag on an
  // ofmap's last snapshot; it carries nothing the validator checks.
  static constexpr JsonKeys<18> kKeys = {
      "type",          "address",     "block",       "layer",         "lower",
      "upper",         "priority",    "workload_id", "start_loading", "end_loading",
      "transfer_id",   "source",      "ofmap_range", "size",          "destinations",
      "start_sending", "end_sending", "start_ending"};
  if (!ExpectObject("a buffer entry object")) return;
  e->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kBufferEntry, [&](int field) {
    switch (field) {
      case 0: {
        static constexpr JsonKeys<3> kTypes = {"ifmap", "ofmap", "weight"};
        if (const auto type = Enum(kTypes, "buffer entry type")) {
          e->type = static_cast<EntryType>(*type);
        }
        break;
      }
      case 1:
        Int(&e->address);
        break;
      case 2:
        Int(&e->blocks);
        break;
      case 3:
        Layer(&e->layer);
        break;
      case 4:
        Bound(&e->range.lo);
        break;
      case 5:
        Bound(&e->range.hi);
        break;
      case 6: {
        int64_t priority;
        if (Int(&priority)) e->priority = priority;
        break;
      }
      case 7: {
        int64_t id;
        if (Int(&id)) e->workload_id = id;
        break;
      }
      case 8:
        Bool(&e->start_loading);
        break;
      case 9:
        Bool(&e->end_loading);
        break;
      case 10:
        IntList(&e->transfer_ids);
        break;
      case 11:
        List(&e->sources, [this](Source* s) { SourceEntry(s); });
        break;
      case 12: {
        Range ignored;
        OfmapRange(&ignored);
        break;
      }
      case 13:
        Int(&e->size);
        break;
      case 14:
        List(&e->sends, [this](Send* send) { SendEntry(send); });
        break;
      case 15:
        Bool(&e->start_sending);
        break;
      case 16:
        Bool(&e->end_sending);
        break;
      case 17: {
        bool ignored;
        Bool(&ignored);
        break;
      }
    }
  });
  // Two key sets (docs/formats/gemini.md "The SET dialect"): tensors being
  // loaded, and ofmaps being sent.
  uint64_t required = KeyBits({0, 1, 2, 3, 4, 5});
  if (e->type == EntryType::kOfmap) {
    required |= KeyBits({7, 13, 14, 15, 16});
  } else {
    required |= KeyBits({8, 9, 10, 11});
    if (e->type == EntryType::kIfmap) required |= KeyBits({7});
  }
  RequireKeys(kKeys, seen, required, e->offset, "buffer entry");
}

void Decoder::OfmapRange(Range* range) {
  static constexpr JsonKeys<2> kKeys = {"lower", "upper"};
  if (!ExpectObject("an ofmap_range object")) return;
  const uint64_t at = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kOfmapRange,
                               [&](int field) { IntArray(field == 0 ? &range->lo : &range->hi); });
  RequireKeys(kKeys, seen, KeyBits({0, 1}), at, "ofmap_range");
}

void Decoder::SourceEntry(Source* s) {
  static constexpr JsonKeys<8> kKeys = {"type",  "id",          "layer_name", "lower",
                                        "upper", "transfer_id", "size",       "channel"};
  if (!ExpectObject("a source object")) return;
  s->offset = reader_.offset();
  std::vector<int64_t> ports;
  const uint64_t seen = Fields(kKeys, ObjectKind::kSource, [&](int field) {
    switch (field) {
      case 0: {
        static constexpr JsonKeys<2> kTypes = {"DRAM", "core"};
        if (const auto type = Enum(kTypes, "source type")) {
          s->type = *type == 0 ? SourceType::kDram : SourceType::kCore;
        }
        break;
      }
      case 1:
        IdOrPorts(&s->core_id, &ports);
        break;
      case 2:
        Layer(&s->layer);
        break;
      case 3:
        Bound(&s->range.lo);
        break;
      case 4:
        Bound(&s->range.hi);
        break;
      case 5:
        Int(&s->transfer_id);
        break;
      case 6:
        Int(&s->size);
        break;
      case 7: {
        std::array<int64_t, 2> channels;
        IntArray(&channels);
        break;
      }
    }
  });
  if (s->type == SourceType::kDram) s->core_id = -1;
  RequireKeys(kKeys, seen, KeyBits({0, 1, 3, 4, 5, 6}), s->offset, "source");
}

void Decoder::SendEntry(Send* send) {
  static constexpr JsonKeys<5> kKeys = {"transfer_id", "lower", "upper", "size", "destination"};
  if (!ExpectObject("a destinations entry object")) return;
  send->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kSend, [&](int field) {
    switch (field) {
      case 0:
        Int(&send->transfer_id);
        break;
      case 1:
        IntArray(&send->range.lo);
        break;
      case 2:
        IntArray(&send->range.hi);
        break;
      case 3:
        Int(&send->size);
        break;
      case 4:
        List(&send->targets, [this](SendTarget* target) { SendTargetEntry(target); });
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3, 4}), send->offset, "destinations entry");
}

void Decoder::SendTargetEntry(SendTarget* target) {
  static constexpr JsonKeys<4> kKeys = {"type", "id", "workload_id", "layer_name"};
  if (!ExpectObject("a destination object")) return;
  const uint64_t at = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kSendTarget, [&](int field) {
    switch (field) {
      case 0: {
        static constexpr JsonKeys<2> kTypes = {"core", "DRAM"};
        if (const auto type = Enum(kTypes, "destination type")) {
          target->type = *type == 0 ? DestinationType::kCore : DestinationType::kDram;
        }
        break;
      }
      case 1:
        IdOrPorts(&target->core_id, &target->ports);
        break;
      case 2:
        Int(&target->workload_id);
        break;
      case 3:
        Layer(&target->layer);
        break;
    }
  });
  uint64_t required = KeyBits({0, 1, 3});
  if (target->type == DestinationType::kCore) required |= KeyBits({2});
  RequireKeys(kKeys, seen, required, at, "destination");
}

}  // namespace

bool DecodeSetIr(ByteView text, const Limits& limits, DiagnosticSink& sink, Ir* ir,
                 const InputBuffer* input) {
  Decoder decoder(text, limits, sink, ir, input);
  return decoder.Run();
}

std::string WorkloadPath(const Core& core, size_t index) { return Str("/", core.id, "/", index); }
std::string PortInPath(const Port& port, size_t index) {
  return Str("/DRAM/", port.id, "/in/", index);
}
std::string PortOutPath(const Port& port, size_t index) {
  return Str("/DRAM/", port.id, "/out/", index);
}

}  // namespace accelcheck::gemini::set
