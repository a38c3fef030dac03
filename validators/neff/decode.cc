// Decoding the JSON members (docs/formats/neff.md §2). Writers add keys
// freely (debug keys, comments starting with '#'), so keys a document kind
// does not read are skipped without a finding; what is read is typed.
#include <cstring>
#include <set>

#include "validators/core/json_decoder.h"
#include "validators/core/text.h"
#include "validators/neff/documents.h"
#include "validators/neff/rules.h"

namespace accelcheck::neff {

namespace {

const JsonSchemaRules kSchemaRules = {
    &rules::kJsonSyntax,     &rules::kJsonType, &rules::kJsonNumberRange,
    &rules::kJsonMissingKey, nullptr,           &rules::kJsonDuplicateKey};

class Decoder : public JsonDecoder {
 public:
  Decoder(ByteView text, const Limits& limits, DiagnosticSink& sink)
      : JsonDecoder(text, limits, sink, kSchemaRules) {}

  // The root object, read by `read`; false when the text does not decode.
  template <typename F>
  bool Root(std::string_view what, F&& read) {
    const bool object = reader_.Peek() == JsonKind::kObject;
    if (object) {
      read();
    } else if (reader_.Peek() != JsonKind::kInvalid) {
      Report(rules::kJsonType, Str(what, " is not a JSON object"));
      reader_.Skip();
    }
    return Finish() && object;
  }

  bool Text(std::string* out) {
    std::string_view view;
    if (!String(&view)) return false;
    out->assign(view);
    return true;
  }
  template <typename T>
  bool Value(std::optional<Located<T>>* out) {
    reader_.Peek();
    Located<T> value{.offset = reader_.offset()};
    if (!Read(&value.value)) return false;
    *out = std::move(value);
    return true;
  }
  template <typename T>
  bool Value(std::optional<T>* out) {
    T value{};
    if (!Read(&value)) return false;
    *out = std::move(value);
    return true;
  }
  bool Read(std::string* out) { return Text(out); }
  bool Read(int64_t* out) { return Int(out); }
  bool Read(double* out) { return Real(out); }
  bool Read(std::vector<int64_t>* out) { return IntList(out); }
  bool Read(Dims* out) {
    scratch_.clear();
    if (!IntList(&scratch_)) return false;
    for (const int64_t v : scratch_) out->push_back(v);
    return true;
  }
  bool Read(std::vector<std::string>* out) {
    return List(out, [this](std::string* s) { Text(s); });
  }
  bool Read(std::vector<std::vector<int64_t>>* out) {
    return List(out, [this](std::vector<int64_t>* v) { IntList(v); });
  }

  // An object whose keys are names (variables, queue sets, tensors): each
  // key to `read(key, key_offset)`, a repeated one reported and skipped.
  template <typename F>
  void Map(std::string_view what, F&& read) {
    if (!ExpectObject(what)) return;
    std::set<std::string, std::less<>> seen;
    std::string_view key;
    uint64_t key_offset = 0;
    reader_.BeginObject();
    while (reader_.NextKey(&key, &key_offset)) {
      if (!seen.emplace(key).second) {
        ReportDuplicateKey(key, key_offset);
        reader_.Skip();
        continue;
      }
      const std::string name(key);
      read(name, key_offset);
    }
  }

  // A member name the document gives, kept for NEFF-54.
  void Ref(std::vector<Reference>* out, std::optional<Located<std::string>>* value = nullptr) {
    reader_.Peek();
    Reference ref{.pointer = reader_.Pointer(), .offset = reader_.offset()};
    if (!Text(&ref.name)) return;
    if (value != nullptr) *value = Located<std::string>{ref.name, ref.offset};
    out->push_back(std::move(ref));
  }
  void RefList(std::vector<Reference>* out) {
    Elements("a list of file names", [&](uint64_t) { Ref(out); });
  }
  void Skip() { reader_.Skip(); }
  JsonKind Peek() { return reader_.Peek(); }
  uint64_t offset() { return reader_.offset(); }

 private:
  std::vector<int64_t> scratch_;  // a list of integers being read, reused
};

// --- neff.json ---

void ReadNode(Decoder& d, GraphNode* node) {
  static constexpr JsonKeys<5> kKeys = {"op", "name", "inputs", "output_names", "attrs"};
  static thread_local JsonKeyOrder order;
  node->offset = d.offset();
  if (!d.ExpectObject("a node")) return;
  const uint64_t seen = d.Fields(kKeys, order, [&](int field) {
    switch (field) {
      case 0:
        d.Text(&node->op);
        break;
      case 1:
        d.Text(&node->name);
        break;
      case 2:
        d.Elements("a list of inputs", [&](uint64_t) {
          ++node->input_count;
          std::vector<int64_t> entry;
          if (d.IntList(&entry) && entry.size() >= 2) node->inputs.push_back({entry[0], entry[1]});
        });
        break;
      case 3:
        d.Read(&node->output_names);
        break;
      case 4:
        d.Map("the node's attrs", [&](const std::string& key, uint64_t) {
          if (d.Peek() != JsonKind::kString) return d.Skip();
          d.Text(&node->attrs[key]);
        });
        break;
    }
  });
  d.RequireKeys(kKeys, seen, KeyBits({0, 1}), node->offset, "a node");
}

// ["list_<kind>", [...]]: the tag, then the values read by `read_values`.
template <typename F>
void ReadTaggedList(Decoder& d, F&& read_values) {
  d.Elements("a tagged list", [&](uint64_t i) {
    if (i == 1) return read_values();
    d.Skip();
  });
}

void ReadGraphAttrs(Decoder& d, Graph* g) {
  static constexpr JsonKeys<3> kKeys = {"shape", "storage_id", "dltype"};
  static thread_local JsonKeyOrder order;
  g->attrs_offset = d.offset();
  if (!d.ExpectObject("attrs")) return;
  d.Fields(kKeys, order, [&](int field) {
    switch (field) {
      case 0:
        ReadTaggedList(d, [&] { d.Read(&g->shapes.emplace()); });
        break;
      case 1:
        ReadTaggedList(d, [&] {
          d.Elements("a list", [&](uint64_t) {
            d.Skip();
            g->storage_id_count = g->storage_id_count.value_or(0) + 1;
          });
          if (!g->storage_id_count) g->storage_id_count = 0;
        });
        break;
      case 2:
        ReadTaggedList(d, [&] { d.Read(&g->dltypes.emplace()); });
        break;
    }
  });
}

void ReadSignatureInput(Decoder& d, SignatureInput* in) {
  static constexpr JsonKeys<3> kKeys = {"id", "dtype", "shape"};
  static thread_local JsonKeyOrder order;
  in->offset = d.offset();
  if (!d.ExpectObject("a signature input")) return;
  d.Fields(kKeys, order, [&](int field) {
    switch (field) {
      case 0:
        d.Value(&in->id);
        break;
      case 1:
        d.Text(&in->dtype);
        break;
      case 2:
        d.IntList(&in->shape);
        break;
    }
  });
}

// metadata.signatures.default.inputs, the only part NEFF-55 reads.
void ReadMetadata(Decoder& d, Graph* g) {
  static constexpr JsonKeys<1> kMetadata = {"signatures"};
  static constexpr JsonKeys<1> kSignatures = {"default"};
  static constexpr JsonKeys<1> kDefault = {"inputs"};
  static thread_local JsonKeyOrder order_metadata, order_signatures, order_default;
  if (!d.ExpectObject("metadata")) return;
  d.Fields(kMetadata, order_metadata, [&](int) {
    if (!d.ExpectObject("signatures")) return;
    d.Fields(kSignatures, order_signatures, [&](int) {
      if (!d.ExpectObject("the default signature")) return;
      d.Fields(kDefault, order_default, [&](int) {
        g->signature_offset = d.offset();
        auto& inputs = g->signature_inputs.emplace();
        d.Map("the signature's inputs", [&](const std::string& name, uint64_t) {
          inputs.push_back({.name = name});
          ReadSignatureInput(d, &inputs.back());
        });
      });
    });
  });
}

// --- def.json ---

VarType VarTypeOf(std::string_view text) {
  static constexpr std::array<std::string_view, 8> kNames = {
      "state-buffer", "input", "output", "file", "tmp-buf", "virtual", "pointer", "dge-table"};
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == text) return static_cast<VarType>(i);
  }
  return VarType::kUnknown;
}

void ReadVariable(Decoder& d, Variable* v, std::vector<Reference>* references) {
  static constexpr JsonKeys<9> kKeys = {"type",
                                        "var_id",
                                        "size",
                                        "alignment",
                                        "fabric_path",
                                        "file_name",
                                        "backing_variable_off",
                                        "referenced_var_id",
                                        "list"};
  static thread_local JsonKeyOrder order;
  v->offset = d.offset();
  if (!d.ExpectObject("a variable")) return;
  const uint64_t seen = d.Fields(kKeys, order, [&](int field) {
    switch (field) {
      case 0:
        if (d.Text(&v->type_text)) v->type = VarTypeOf(v->type_text);
        break;
      case 1:
        d.Value(&v->var_id);
        break;
      case 2:
        d.Value(&v->size);
        break;
      case 3:
        d.Value(&v->alignment);
        break;
      case 4:
        d.Value(&v->fabric_path);
        break;
      case 5:
        d.Ref(references, &v->file_name);
        break;
      case 6:
        d.Value(&v->backing_variable_off);
        break;
      case 7:
        d.Value(&v->referenced_var_id);
        break;
      case 8:
        d.Value(&v->list);
        break;
    }
  });
  d.RequireKeys(kKeys, seen, KeyBits({0, 1}), v->offset, Str("variable ", Quoted(v->name)));
}

void ReadQueueSet(Decoder& d, QueueSet* q) {
  static constexpr JsonKeys<5> kKeys = {"type", "num_queues", "owner", "semaphore_set",
                                        "fabric_path"};
  static thread_local JsonKeyOrder order;
  q->offset = d.offset();
  if (!d.ExpectObject("a queue set")) return;
  d.Fields(kKeys, order, [&](int field) {
    switch (field) {
      case 0:
        d.Value(&q->type);
        break;
      case 1:
        d.Value(&q->num_queues);
        break;
      case 2:
        d.Value(&q->owner);
        break;
      case 3:
        d.Value(&q->semaphore_set);
        break;
      case 4:
        d.Value(&q->fabric_path);
        break;
    }
  });
}

void ReadReservation(Decoder& d, Reservation* r) {
  static constexpr JsonKeys<5> kKeys = {"type", "base_partition", "partitions", "offset", "size"};
  static thread_local JsonKeyOrder order;
  r->at = d.offset();
  if (!d.ExpectObject("a reservation")) return;
  const uint64_t seen = d.Fields(kKeys, order, [&](int field) {
    switch (field) {
      case 0:
        d.Text(&r->type);
        break;
      case 1:
        d.Value(&r->base_partition);
        break;
      case 2:
        d.Value(&r->partitions);
        break;
      case 3:
        d.Value(&r->offset);
        break;
      case 4:
        d.Value(&r->size);
        break;
    }
  });
  d.RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3, 4}), r->at, "a reservation");
}

// def.json keys: the engines' JSONs and programs (pe, pe_instr, ...), the
// debug file lists, then the rest.
constexpr JsonKeys<26> kDefinitionKeys = {"pe",
                                          "act",
                                          "pool",
                                          "dve",
                                          "sp",
                                          "pe_instr",
                                          "act_instr",
                                          "pool_instr",
                                          "dve_instr",
                                          "sp_instr",
                                          "var",
                                          "dma_queue",
                                          "runtime_statebuffer_reservation",
                                          "neff_features",
                                          "pe_dbg",
                                          "act_dbg",
                                          "pool_dbg",
                                          "dve_dbg",
                                          "sp_dbg",
                                          "pe_asm_dbg",
                                          "act_asm_dbg",
                                          "pool_asm_dbg",
                                          "dve_asm_dbg",
                                          "sp_asm_dbg",
                                          "dma_dbg",
                                          "asm_dbg"};

void ReadDefinitionField(Decoder& d, int field, Definition* def) {
  if (field < 5) return d.Ref(&def->references, &def->engine_json[field]);
  if (field < 10) return d.Ref(&def->references, &def->engine_program[field - 5]);
  switch (field) {
    case 10:
      d.Map("var", [&](const std::string& name, uint64_t) {
        def->var_index.emplace(name, def->vars.size());
        def->vars.push_back({.name = name});
        ReadVariable(d, &def->vars.back(), &def->references);
      });
      break;
    case 11:
      d.Map("dma_queue", [&](const std::string& name, uint64_t) {
        def->queue_index.emplace(name, def->queues.size());
        def->queues.push_back({.name = name});
        ReadQueueSet(d, &def->queues.back());
      });
      break;
    case 12:
      d.List(&def->reservations, [&](Reservation* r) { ReadReservation(d, r); });
      break;
    case 13:
      d.Value(&def->features);
      break;
    default:
      d.RefList(&def->references);
      break;
  }
}

// --- engine JSON ---

// The keys of one descriptor: both sides' fields, then the operation's.
constexpr JsonKeys<20> kDescriptorKeys = {"from",
                                          "from_off",
                                          "from_sizes",
                                          "from_steps",
                                          "from_dtype",
                                          "to",
                                          "to_off",
                                          "to_sizes",
                                          "to_steps",
                                          "to_dtype",
                                          "op",
                                          "num_tiling_dimensions",
                                          "from_arr",
                                          "scale",
                                          "scale_dtype",
                                          "constant",
                                          "constant_dtype",
                                          "transpose_op",
                                          "transpose_shape",
                                          "transpose_element_size"};

void ReadSideField(Decoder& d, int field, Side* side) {
  switch (field) {
    case 0:
      d.Value(&side->var);
      break;
    case 1:
      d.Value(&side->off);
      break;
    case 2:
      d.Value(&side->sizes);
      break;
    case 3:
      d.Value(&side->steps);
      break;
    case 4:
      d.Value(&side->dtype);
      break;
  }
}

void ReadSource(Decoder& d, Side* side) {
  static constexpr JsonKeys<5> kKeys = {"from", "from_off", "from_sizes", "from_steps",
                                        "from_dtype"};
  static thread_local JsonKeyOrder order;
  const uint64_t offset = d.offset();
  if (!d.ExpectObject("a from_arr source")) return;
  // A source holds the from parts of a descriptor (§2.11): all but the
  // dtype are required, as they are of a from.
  const uint64_t seen = d.Fields(kKeys, order, [&](int field) { ReadSideField(d, field, side); });
  d.RequireKeys(kKeys, seen, KeyBits({1, 2, 3}), offset, "a from_arr source");
}

void ReadDescriptor(Decoder& d, Descriptor* desc) {
  static thread_local JsonKeyOrder order;
  desc->offset = d.offset();
  if (!d.ExpectObject("a descriptor")) return;
  const uint64_t seen = d.Fields(kDescriptorKeys, order, [&](int field) {
    if (field < 5) return ReadSideField(d, field, &desc->from);
    if (field < 10) return ReadSideField(d, field - 5, &desc->to);
    switch (field) {
      case 10:
        d.Value(&desc->op);
        break;
      case 11:
        d.Value(&desc->num_tiling_dimensions);
        break;
      case 12:
        d.List(&desc->from_arr.emplace(), [&](Side* s) { ReadSource(d, s); });
        break;
      case 13:
        desc->has_scale = true;
        d.Value(&desc->scale);
        break;
      case 14:
        desc->has_scale_dtype = true;
        d.Value(&desc->scale_dtype);
        break;
      case 15:
        desc->has_constant = true;
        d.Value(&desc->constant);
        break;
      case 16:
        desc->has_constant_dtype = true;
        d.Value(&desc->constant_dtype);
        break;
      case 17:
        d.Value(&desc->transpose_op);
        break;
      case 18:
        d.Value(&desc->transpose_shape);
        break;
      case 19:
        d.Value(&desc->transpose_element_size);
        break;
    }
  });
  // The documentation requires the offsets, steps and sizes of both sides;
  // a CCE descriptor's from_arr replaces the from fields.
  const uint64_t from = seen & KeyBits({12}) ? 0 : KeyBits({1, 2, 3});
  d.RequireKeys(kDescriptorKeys, seen, from | KeyBits({5, 6, 7, 8}), desc->offset, "a descriptor");
}

void ReadBlock(Decoder& d, Block* block) {
  static constexpr JsonKeys<5> kKeys = {"id", "queue", "instance_name", "semaphore", "desc"};
  static thread_local JsonKeyOrder order;
  block->offset = d.offset();
  if (!d.ExpectObject("a DMA block")) return;
  const uint64_t seen = d.Fields(kKeys, order, [&](int field) {
    switch (field) {
      case 0:
        d.Value(&block->id);
        break;
      case 1:
        d.Value(&block->queue);
        break;
      case 2:
        d.Value(&block->instance_name);
        break;
      case 3:
        d.Value(&block->semaphore);
        break;
      case 4:
        block->has_desc = true;
        d.List(&block->desc, [&](Descriptor* desc) { ReadDescriptor(d, desc); });
        break;
    }
  });
  d.RequireKeys(kKeys, seen, KeyBits({0, 4}), block->offset, "a DMA block");
}

void ReadDveTables(Decoder& d, std::vector<Reference>* tables) {
  d.Elements("a list of DVE table sets", [&](uint64_t) {
    d.Map("a DVE table set", [&](const std::string&, uint64_t) { d.Ref(tables); });
  });
}

}  // namespace

std::string_view VarTypeName(VarType type) {
  static constexpr std::array<std::string_view, 9> kNames = {
      "state-buffer", "input",   "output",    "file",   "tmp-buf",
      "virtual",      "pointer", "dge-table", "unknown"};
  return kNames[static_cast<size_t>(type)];
}

std::optional<uint64_t> InvalidUtf8At(ByteView text) {
  uint64_t i = 0;
  const uint64_t n = text.size();
  while (i < n) {
    // ASCII, nearly all of a real member, 32 bytes and then 8 at a time.
    uint64_t words[4];
    if (n - i >= 32 &&
        (std::memcpy(words, text.data() + i, 32),
         ((words[0] | words[1] | words[2] | words[3]) & 0x8080808080808080ull) == 0)) {
      i += 32;
      continue;
    }
    if (n - i >= 8 &&
        (std::memcpy(words, text.data() + i, 8), (words[0] & 0x8080808080808080ull) == 0)) {
      i += 8;
      continue;
    }
    const uint8_t b = text[i];
    if (b < 0x80) {
      ++i;
      continue;
    }
    const int extra = b >= 0xF0 && b <= 0xF4 ? 3 : b >= 0xE0 ? 2 : b >= 0xC2 && b < 0xE0 ? 1 : -1;
    if (extra < 0 || n - i <= static_cast<uint64_t>(extra)) return i;
    for (int k = 1; k <= extra; ++k) {
      if ((text[i + k] & 0xC0) != 0x80) return i;
    }
    // No overlong forms, surrogates or code points past U+10FFFF.
    const uint8_t second = text[i + 1];
    if ((b == 0xE0 && second < 0xA0) || (b == 0xED && second >= 0xA0) ||
        (b == 0xF0 && second < 0x90) || (b == 0xF4 && second >= 0x90)) {
      return i;
    }
    i += static_cast<uint64_t>(extra) + 1;
  }
  return std::nullopt;
}

std::optional<Graph> DecodeGraph(ByteView text, const Limits& limits, DiagnosticSink& sink) {
  static constexpr JsonKeys<6> kKeys = {"nodes",        "arg_nodes", "heads",
                                        "node_row_ptr", "attrs",     "metadata"};
  static thread_local JsonKeyOrder order;
  Decoder d(text, limits, sink);
  Graph g;
  const bool ok = d.Root("neff.json", [&] {
    const uint64_t seen = d.Fields(kKeys, order, [&](int field) {
      switch (field) {
        case 0:
          d.List(&g.nodes, [&](GraphNode* node) { ReadNode(d, node); });
          break;
        case 1:
          d.Read(&g.arg_nodes);
          break;
        case 2:
          d.Read(&g.heads);
          break;
        case 3:
          d.Read(&g.node_row_ptr);
          break;
        case 4:
          ReadGraphAttrs(d, &g);
          break;
        case 5:
          ReadMetadata(d, &g);
          break;
      }
    });
    d.RequireKeys(kKeys, seen, KeyBits({0}), 0, "neff.json");
  });
  if (!ok) return std::nullopt;
  return g;
}

std::optional<Kelf> DecodeKelf(ByteView text, const Limits& limits, DiagnosticSink& sink) {
  static constexpr JsonKeys<3> kKeys = {"graphs", "version", "target"};
  static constexpr JsonKeys<2> kGraphKeys = {"definition", "name"};
  static thread_local JsonKeyOrder order, graph_order;
  Decoder d(text, limits, sink);
  Kelf kelf;
  const bool ok = d.Root("the kelf file", [&] {
    const uint64_t seen = d.Fields(kKeys, order, [&](int field) {
      switch (field) {
        case 0:
          d.List(&kelf.graphs, [&](KelfGraph* graph) {
            graph->offset = d.offset();
            if (!d.ExpectObject("a kelf graph")) return;
            const uint64_t graph_seen = d.Fields(kGraphKeys, graph_order, [&](int f) {
              d.Text(f == 0 ? &graph->definition : &graph->name);
            });
            d.RequireKeys(kGraphKeys, graph_seen, KeyBits({0, 1}), graph->offset, "a kelf graph");
          });
          break;
        case 1:
          d.Skip();
          break;
        case 2:
          kelf.target_offset = d.offset();
          d.Text(&kelf.target);
          break;
      }
    });
    d.RequireKeys(kKeys, seen, KeyBits({0, 1, 2}), 0, "the kelf file");
  });
  if (!ok) return std::nullopt;
  return kelf;
}

std::optional<Info> DecodeInfo(ByteView text, const Limits& limits, DiagnosticSink& sink) {
  static constexpr JsonKeys<4> kKeys = {"name", "num_tpb", "num_tpb_requested", "num_tpb_per_node"};
  static thread_local JsonKeyOrder order;
  Decoder d(text, limits, sink);
  Info info;
  const bool ok = d.Root("info.json", [&] {
    d.Fields(kKeys, order, [&](int field) {
      switch (field) {
        case 0:
          d.Value(&info.name);
          break;
        case 1:
          d.Value(&info.num_tpb);
          break;
        case 2:
          d.Value(&info.num_tpb_requested);
          break;
        case 3:
          d.Value(&info.num_tpb_per_node);
          break;
      }
    });
  });
  if (!ok) return std::nullopt;
  return info;
}

std::optional<TensorMap> DecodeTensorMap(ByteView text, const Limits& limits,
                                         DiagnosticSink& sink) {
  static constexpr JsonKeys<3> kKeys = {"dtype", "kind", "tf_shape"};
  static thread_local JsonKeyOrder order;
  Decoder d(text, limits, sink);
  TensorMap map;
  const bool ok = d.Root("tensor_map.json", [&] {
    d.Map("tensor_map.json", [&](const std::string& name, uint64_t) {
      TensorMapEntry& entry = map[name];
      entry.offset = d.offset();
      if (!d.ExpectObject("a tensor entry")) return;
      d.Fields(kKeys, order, [&](int field) {
        switch (field) {
          case 0:
            d.Text(&entry.dtype);
            break;
          case 1:
            d.Text(&entry.kind);
            break;
          case 2:
            d.Value(&entry.tf_shape);
            break;
        }
      });
    });
  });
  if (!ok) return std::nullopt;
  return map;
}

std::optional<ActivationCatalogue> DecodeActivationCatalogue(ByteView text, const Limits& limits,
                                                             DiagnosticSink& sink) {
  static constexpr JsonKeys<1> kKeys = {"act_func_sets"};
  static constexpr JsonKeys<4> kSetKeys = {"name", "bkt_bin", "ctrl_bin", "profile_json"};
  static thread_local JsonKeyOrder order, set_order;
  Decoder d(text, limits, sink);
  ActivationCatalogue sets;
  const bool ok = d.Root("act_info.json", [&] {
    d.Fields(kKeys, order, [&](int) {
      d.List(&sets, [&](ActivationSet* set) {
        const uint64_t at = d.offset();
        if (!d.ExpectObject("an activation set")) return;
        const uint64_t seen = d.Fields(kSetKeys, set_order, [&](int field) {
          if (field == 0) return static_cast<void>(d.Text(&set->name));
          d.Ref(&set->files);
        });
        d.RequireKeys(kSetKeys, seen, KeyBits({0}), at, "an activation set");
      });
    });
  });
  if (!ok) return std::nullopt;
  return sets;
}

std::optional<Definition> DecodeDefinition(ByteView text, const Limits& limits,
                                           DiagnosticSink& sink) {
  static thread_local JsonKeyOrder order;
  Decoder d(text, limits, sink);
  Definition def;
  const bool ok = d.Root("def.json", [&] {
    const uint64_t seen =
        d.Fields(kDefinitionKeys, order, [&](int field) { ReadDefinitionField(d, field, &def); });
    d.RequireKeys(kDefinitionKeys, seen, KeyBits({10, 11}), 0, "def.json");
  });
  if (!ok) return std::nullopt;
  return def;
}

std::optional<EngineDocument> DecodeEngine(ByteView text, const Limits& limits,
                                           DiagnosticSink& sink, const BlockVisitor& on_block) {
  static constexpr JsonKeys<6> kKeys = {
      "dma", "instr", "name", "act_info", "activation_function_sets", "dve_tables"};
  static thread_local JsonKeyOrder order;
  Decoder d(text, limits, sink);
  EngineDocument doc;
  // One block read after another: its descriptor list keeps its storage.
  Block block;
  const bool ok = d.Root("an engine JSON", [&] {
    const uint64_t seen = d.Fields(kKeys, order, [&](int field) {
      switch (field) {
        case 0:
          doc.has_dma = d.Elements("a list of DMA blocks", [&](uint64_t index) {
            std::vector<Descriptor> storage = std::move(block.desc);
            storage.clear();
            block = Block{};
            block.desc = std::move(storage);
            ReadBlock(d, &block);
            ++doc.block_count;
            on_block(index, block);
          });
          break;
        case 1:
          d.Value(&doc.instr);
          break;
        case 2:
          d.Value(&doc.name);
          break;
        case 3:
          d.Value(&doc.act_info);
          break;
        case 4:
          d.Value(&doc.activation_sets);
          break;
        case 5:
          ReadDveTables(d, &doc.dve_tables);
          break;
      }
    });
    d.RequireKeys(kKeys, seen, KeyBits({0}), 0, "an engine JSON");
  });
  if (!ok) return std::nullopt;
  return doc;
}

void CheckJsonText(ByteView text, const Limits& limits, DiagnosticSink& sink) {
  Decoder d(text, limits, sink);
  d.Skip();
  d.Finish();
}

}  // namespace accelcheck::neff
