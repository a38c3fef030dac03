#include "validators/gemini/decode.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <future>
#include <set>
#include <unordered_set>

#include "validators/core/beside.h"
#include "validators/core/json_decoder.h"
#include "validators/core/text.h"
#include "validators/gemini/rules.h"

namespace accelcheck::gemini {

namespace {

// How the IR's decoding problems are reported (docs/formats/gemini.md §4).
const JsonSchemaRules kSchemaRules{&rules::kJsonSyntax,       &rules::kSchemaType,
                                   &rules::kJsonNumberRange,  &rules::kSchemaMissingKey,
                                   &rules::kSchemaUnknownKey, &rules::kJsonDuplicateKey};

// The object kinds of the IR whose keys Fields() reads, each with its own
// key order.
enum class ObjectKind : uint8_t {
  kDestination,
  kDramIn,
  kDramOut,
  kDram,
  kSource,
  kBufferEntry,
  kWl0Entry,
  kIfmap,
  kOfmap,
  kWeight,
  kTile,
  kWorkload,
  kCount
};

class Decoder : public JsonDecoder {
 public:
  Decoder(ByteView text, const Limits& limits, DiagnosticSink& sink, Ir* ir,
          const InputBuffer* input)
      : JsonDecoder(text, limits, sink, kSchemaRules, input), ir_(*ir), layers_(&ir->layers) {}

  // What one reader met among the root object's keys.
  struct TopKeys {
    uint64_t seen = 0;  // bits of kTopKeys
    // Sets: a hostile document may hold millions of keys.
    std::set<std::string, std::less<>> unknown;
    std::unordered_set<int64_t> core_ids;
  };
  TopKeys TakeKeys() { return std::move(top_keys_); }

  bool Run();
  // Decodes the root object's members from `offset` on (a member boundary,
  // CoreListBoundary), for the second half of a document read in two; false
  // when a syntax error or the depth limit ended them.
  bool MembersFrom(uint64_t offset);
  // Decodes up to `split` while `second` decodes from it, and takes the
  // second half's tables when the split was a boundary of the root object
  // and the halves share no top-level key; else reads on alone.
  struct Half;
  bool RunSplit(uint64_t split, std::future<Half>& second, bool* adopted);

 private:
  bool Layer(uint32_t* out);
  bool Coordinates(std::array<int64_t, 4>* out) { return IntArray(out); }
  bool RangePair(Range* out);  // [[lower], [upper]]

  template <size_t N, typename F>
  uint64_t Fields(const JsonKeys<N>& keys, ObjectKind kind, F&& read) {
    return JsonDecoder::Fields(keys, key_orders_[static_cast<size_t>(kind)], std::forward<F>(read));
  }

  static constexpr JsonKeys<5> kTopKeys = {"-1", "buffersize", "top_batch_cut", "xlen", "ylen"};
  void Top();
  // The root object's members until it closes, or until the next token is
  // at `stop_at` (then true).
  bool TopMembers(TopKeys& keys, std::optional<uint64_t> stop_at);
  // Reports the top-level keys missing from a document read to its end.
  void FinishTop(const TopKeys& keys, bool complete);
  bool Adopt(TopKeys& keys, Half& second);
  void RemapLayers(Ir& other);
  void Dram();
  void DramInEntry(DramIn* in);
  void DramOutEntry(DramOut* out);
  void DestinationEntry(Destination* d);
  void CoreList(Core* core);
  void WorkloadObject(Workload* w);
  void TileInfo(std::vector<Tile>* tiles);
  void TileObject(Tile* t);
  void IfmapEntry(Ifmap* f);
  void OfmapEntry(Ofmap* f);
  void WeightObject(Weight* w);
  void BufferEntryObject(BufferEntry* e);
  void SourceEntry(Source* s);
  void Wl0EntryObject(Wl0Entry* e);
  void Rings(std::vector<std::pair<int64_t, int64_t>>* rings);

  std::array<JsonKeyOrder, static_cast<size_t>(ObjectKind::kCount)> key_orders_{};
  // TileInfo's working lists, kept across workloads.
  struct TileKey {
    int64_t k;
    size_t position;  // in the order read
    uint64_t key_offset;
    size_t key_size;
  };
  std::vector<TileKey> tile_keys_;
  std::vector<Tile> tile_scratch_;
  size_t last_tile_count_ = 0;
  Ir& ir_;
  LayerTable layers_;
  TopKeys top_keys_;
};

bool Decoder::Layer(uint32_t* out) { return ReadLayer(*this, layers_, out); }

bool Decoder::RangePair(Range* out) { return ReadRangePair(*this, out); }

// Reads a string field whose value must be one of `names`; returns the index.
template <size_t N>
std::optional<size_t> EnumIndex(const JsonKeys<N>& names, std::string_view value) {
  const int index = JsonKeyIndex(names, value);
  if (index < 0) return std::nullopt;
  return static_cast<size_t>(index);
}

// ---- DRAM ------------------------------------------------------------------

void Decoder::DestinationEntry(Destination* d) {
  static constexpr JsonKeys<4> kKeys = {"core_id", "type", "workload_id", "layer_name"};
  if (!ExpectKind(JsonKind::kObject, "a destination object")) return;
  const uint64_t at = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kDestination, [&](int field) {
    switch (field) {
      case 0:
        Int(&d->core_id);
        break;
      case 1: {
        std::string_view type;
        if (!String(&type)) break;
        static constexpr JsonKeys<2> kTypes = {"core", "DRAM"};
        const auto index = EnumIndex(kTypes, type);
        if (!index) {
          Report(rules::kSchemaEnum,
                 Str("destination type ", Quoted(type), " is neither \"core\" nor \"DRAM\""));
          break;
        }
        d->type = *index == 0 ? DestinationType::kCore : DestinationType::kDram;
        break;
      }
      case 2:
        Int(&d->workload_id);
        break;
      case 3:
        Layer(&d->layer);
        break;
    }
  });
  uint64_t required = KeyBits({0, 1});
  if (d->type == DestinationType::kCore) required |= KeyBits({2});
  RequireKeys(kKeys, seen, required, at, "destination");
}

void Decoder::DramInEntry(DramIn* in) {
  static constexpr JsonKeys<7> kKeys = {"core_id", "workload_id", "layer_name",   "lower",
                                        "upper",   "transfer_id", "related_ofmap"};
  if (!ExpectKind(JsonKind::kObject, "a DRAM in object")) return;
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
        Layer(&in->layer);
        break;
      case 3:
        Coordinates(&in->range.lo);
        break;
      case 4:
        Coordinates(&in->range.hi);
        break;
      case 5:
        Int(&in->transfer_id);
        break;
      case 6:
        IntList(&in->related_ofmap);
        break;
    }
  });
  // related_ofmap is absent on network outputs (docs/formats/gemini.md §2.1).
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3, 4, 5}), in->offset, "DRAM in entry");
}

void Decoder::DramOutEntry(DramOut* out) {
  static constexpr JsonKeys<7> kKeys = {"transfer_id", "type",          "lower",      "upper",
                                        "size",        "related_ifmap", "destination"};
  if (!ExpectKind(JsonKind::kObject, "a DRAM out object")) return;
  out->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kDramOut, [&](int field) {
    switch (field) {
      case 0:
        Int(&out->transfer_id);
        break;
      case 1: {
        std::string_view type;
        if (!String(&type)) break;
        if (type == "weight") {
          out->type = OutType::kWeight;
        } else if (type == "fmap") {
          out->type = OutType::kFmap;
        } else {
          Report(rules::kSchemaEnum,
                 Str("DRAM out type ", Quoted(type), " is neither \"weight\" nor \"fmap\""));
        }
        break;
      }
      case 2:
        Coordinates(&out->range.lo);
        break;
      case 3:
        Coordinates(&out->range.hi);
        break;
      case 4:
        Int(&out->size);
        break;
      case 5:
        IntList(&out->related_ifmap);
        break;
      case 6:
        List(&out->destinations, [this](Destination* d) { DestinationEntry(d); });
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3, 4, 5, 6}), out->offset, "DRAM out entry");
}

void Decoder::Dram() {
  static constexpr JsonKeys<2> kKeys = {"in", "out"};
  if (!ExpectKind(JsonKind::kObject, "the DRAM object")) return;
  ir_.dram_offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kDram, [&](int field) {
    if (field == 0) {
      List(&ir_.dram_in, [this](DramIn* in) { DramInEntry(in); });
    } else {
      List(&ir_.dram_out, [this](DramOut* out) { DramOutEntry(out); });
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1}), ir_.dram_offset, "the DRAM object \"-1\"");
}

// ---- Workloads -------------------------------------------------------------

void Decoder::SourceEntry(Source* s) {
  static constexpr JsonKeys<7> kKeys = {"core_id", "layer_name",  "lower", "upper",
                                        "size",    "transfer_id", "type"};
  if (!ExpectKind(JsonKind::kObject, "a source object")) return;
  s->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kSource, [&](int field) {
    switch (field) {
      case 0:
        Int(&s->core_id);
        break;
      case 1:
        Layer(&s->layer);
        break;
      case 2:
        Coordinates(&s->range.lo);
        break;
      case 3:
        Coordinates(&s->range.hi);
        break;
      case 4:
        Int(&s->size);
        break;
      case 5:
        Int(&s->transfer_id);
        break;
      case 6: {
        std::string_view type;
        if (!String(&type)) break;
        if (type == "DRAM") {
          s->type = SourceType::kDram;
        } else if (type == "core") {
          s->type = SourceType::kCore;
        } else {
          Report(rules::kSchemaEnum,
                 Str("source type ", Quoted(type), " is neither \"DRAM\" nor \"core\""));
        }
        break;
      }
    }
  });
  uint64_t required = KeyBits({0, 2, 3, 4, 5, 6});
  if (s->type == SourceType::kCore) required |= KeyBits({1});
  RequireKeys(kKeys, seen, required, s->offset, "source");
}

void Decoder::BufferEntryObject(BufferEntry* e) {
  static constexpr JsonKeys<15> kKeys = {
      "address",     "align",     "bitwidth",     "lower",        "upper",
      "size",        "tensor_id", "tensor_order", "type",         "layer_name",
      "newly_added", "source",    "transfer_id",  "cur_wl_ifmap", "start_send"};
  if (!ExpectKind(JsonKind::kObject, "a buffer entry object")) return;
  e->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kBufferEntry, [&](int field) {
    switch (field) {
      case 0:
        Int(&e->address);
        break;
      case 1:
        Int(&e->align);
        break;
      case 2:
        Int(&e->bitwidth);
        break;
      case 3:
        Coordinates(&e->range.lo);
        break;
      case 4:
        Coordinates(&e->range.hi);
        break;
      case 5:
        Int(&e->size);
        break;
      case 6:
        Int(&e->tensor_id);
        break;
      case 7:
        OptionalInt(&e->tensor_order);
        break;
      case 8: {
        std::string_view type;
        if (!String(&type)) break;
        static constexpr JsonKeys<3> kTypes = {"ifmap", "ofmap", "weight"};
        const auto index = EnumIndex(kTypes, type);
        if (!index) {
          Report(rules::kSchemaEnum,
                 Str("buffer entry type ", Quoted(type), " is not ifmap, ofmap or weight"));
          break;
        }
        e->type = static_cast<EntryType>(*index);
        break;
      }
      case 9:
        Layer(&e->layer);
        break;
      case 10: {
        bool value;
        if (Bool(&value)) e->newly_added = value;
        break;
      }
      case 11:
        e->has_sources = true;
        List(&e->sources, [this](Source* s) { SourceEntry(s); });
        break;
      case 12:
        IntList(&e->transfer_ids);
        break;
      case 13:
        Bool(&e->cur_wl_ifmap);
        break;
      case 14: {
        bool value;
        if (Bool(&value)) e->start_send = value;
        break;
      }
    }
  });
  // Three key sets (docs/formats/gemini.md §2.2): ifmap, weight (+layer_name), and
  // ofmap store entries (layer_name, start_send; no source or transfer_id).
  uint64_t required = KeyBits({0, 1, 2, 3, 4, 5, 6, 7, 8});
  switch (e->type) {
    case EntryType::kIfmap:
      required |= KeyBits({10, 11, 12});
      break;
    case EntryType::kWeight:
      required |= KeyBits({9, 10, 11, 12});
      break;
    case EntryType::kOfmap:
      required |= KeyBits({9, 14});
      break;
  }
  RequireKeys(kKeys, seen, required, e->offset, "buffer entry");
}

void Decoder::Wl0EntryObject(Wl0Entry* e) {
  static constexpr JsonKeys<10> kKeys = {"address", "align",  "bitwidth",     "layer_name",
                                         "size",    "source", "tensor_order", "transfer_id",
                                         "lower",   "upper"};
  if (!ExpectKind(JsonKind::kObject, "a WL0 entry object")) return;
  e->offset = reader_.offset();
  Range range;
  const uint64_t seen = Fields(kKeys, ObjectKind::kWl0Entry, [&](int field) {
    switch (field) {
      case 0:
        Int(&e->address);
        break;
      case 1:
        Int(&e->align);
        break;
      case 2:
        Int(&e->bitwidth);
        break;
      case 3:
        Layer(&e->layer);
        break;
      case 4:
        Int(&e->size);
        break;
      case 5: {
        std::string_view source;
        if (!String(&source)) break;
        if (source == "DDR") {
          e->source = Wl0Source::kDdr;
        } else if (source == "CORE") {
          e->source = Wl0Source::kCore;
        } else {
          Report(rules::kSchemaEnum,
                 Str("WL0 source ", Quoted(source), " is neither \"DDR\" nor \"CORE\""));
        }
        break;
      }
      case 6:
        OptionalInt(&e->tensor_order);
        break;
      case 7:
        IntList(&e->transfer_ids);
        break;
      case 8:
        Coordinates(&range.lo);
        break;
      case 9:
        Coordinates(&range.hi);
        break;
    }
  });
  uint64_t required = KeyBits({0, 1, 2, 3, 4, 5, 6, 7});
  // lower and upper come together or not at all (the description's example has neither).
  if (seen & KeyBits({8, 9})) required |= KeyBits({8, 9});
  RequireKeys(kKeys, seen, required, e->offset, "WL0 entry");
  if ((seen & KeyBits({8, 9})) == KeyBits({8, 9})) e->range = range;
}

void Decoder::IfmapEntry(Ifmap* f) {
  static constexpr JsonKeys<6> kKeys = {"align", "bitwidth", "lower",
                                        "upper", "size",     "transfer_id"};
  if (!ExpectKind(JsonKind::kObject, "an ifmap object")) return;
  f->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kIfmap, [&](int field) {
    switch (field) {
      case 0:
        Int(&f->align);
        break;
      case 1:
        Int(&f->bitwidth);
        break;
      case 2:
        Coordinates(&f->range.lo);
        break;
      case 3:
        Coordinates(&f->range.hi);
        break;
      case 4:
        Int(&f->size);
        break;
      case 5:
        IntList(&f->transfer_ids);
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3, 4, 5}), f->offset, "ifmap");
}

void Decoder::OfmapEntry(Ofmap* f) {
  static constexpr JsonKeys<5> kKeys = {"destination", "lower", "upper", "size", "transfer_id"};
  if (!ExpectKind(JsonKind::kObject, "an ofmap object")) return;
  f->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kOfmap, [&](int field) {
    switch (field) {
      case 0:
        List(&f->destinations, [this](Destination* d) { DestinationEntry(d); });
        break;
      case 1:
        Coordinates(&f->range.lo);
        break;
      case 2:
        Coordinates(&f->range.hi);
        break;
      case 3:
        Int(&f->size);
        break;
      case 4:
        Int(&f->transfer_id);
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3, 4}), f->offset, "ofmap");
}

void Decoder::WeightObject(Weight* w) {
  static constexpr JsonKeys<4> kKeys = {"lower", "upper", "size", "transfer_id"};
  if (!ExpectKind(JsonKind::kObject, "a weight object")) return;
  w->offset = reader_.offset();
  const uint64_t seen = Fields(kKeys, ObjectKind::kWeight, [&](int field) {
    switch (field) {
      case 0:
        Coordinates(&w->range.lo);
        break;
      case 1:
        Coordinates(&w->range.hi);
        break;
      case 2:
        Int(&w->size);
        break;
      case 3:
        IntList(&w->transfer_ids);
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3}), w->offset, "weight");
}

void Decoder::TileObject(Tile* t) {
  static constexpr JsonKeys<15> kKeys = {
      "ifmap_lower",       "ifmap_upper",  "ofmap_lower",  "ofmap_upper",   "single_tile_time_pred",
      "tile_padding_tblr", "ifmap_lower2", "ifmap_upper2", "act_mini_tile", "ci_cut_num",
      "cut_mode",          "layer_name",   "loop_order",   "mtc0_mtk0",     "out_mini_tile"};
  if (!ExpectKind(JsonKind::kObject, "a tile object")) return;
  t->offset = reader_.offset();
  Range ifmap2;
  std::array<int64_t, 2> mtc{};
  const uint64_t seen = Fields(kKeys, ObjectKind::kTile, [&](int field) {
    switch (field) {
      case 0:
        Coordinates(&t->ifmap.lo);
        break;
      case 1:
        Coordinates(&t->ifmap.hi);
        break;
      case 2:
        Coordinates(&t->ofmap.lo);
        break;
      case 3:
        Coordinates(&t->ofmap.hi);
        break;
      case 4:
        Real(&t->time_pred);
        break;
      case 5:
        IntArray(&t->padding);
        break;
      case 6:
        Coordinates(&ifmap2.lo);
        break;
      case 7:
        Coordinates(&ifmap2.hi);
        break;
      case 8:
        IntArray(&t->act_mini_tile);
        break;
      case 9:
        Int(&t->ci_cut_num);
        break;
      case 10: {
        std::string_view mode;
        if (!String(&mode)) break;
        // KN appears in resnet34_b16 besides the KC/KH/KW/KK of the notes.
        static constexpr JsonKeys<5> kModes = {"KC", "KH", "KW", "KK", "KN"};
        if (!EnumIndex(kModes, mode))
          Report(rules::kSchemaEnum,
                 Str("cut_mode ", Quoted(mode), " is not KC, KH, KW, KK or KN"));
        break;
      }
      case 11: {
        std::string_view layer;  // the workload's name (docs/formats/gemini.md §2.2); not kept
        String(&layer);
        break;
      }
      case 12: {
        std::string_view order;
        if (String(&order)) t->loop_order.assign(order);
        break;
      }
      case 13:
        IntArray(&mtc);
        break;
      case 14:
        IntArray(&t->out_mini_tile);
        break;
    }
  });
  uint64_t required = KeyBits({0, 1, 2, 3, 4, 5});
  if (seen & KeyBits({6, 7})) required |= KeyBits({6, 7});
  // The pe tile keys come as one set (docs/formats/gemini.md §2.2).
  constexpr uint64_t kPeKeys = KeyBits({8, 9, 10, 11, 12, 13, 14});
  if (seen & kPeKeys) required |= kPeKeys;
  RequireKeys(kKeys, seen, required, t->offset, "tile");
  t->has_pe_fields = (seen & kPeKeys) == kPeKeys;
  if ((seen & KeyBits({6, 7})) == KeyBits({6, 7})) t->ifmap2 = ifmap2;
}

// tile_info: {"tile_num_0": {...}, ...}; the key check is I-W2.
// "tile_num_<k>" with k decimal, no sign or leading zero: k, or -1.
int64_t TileNumber(std::string_view key) {
  constexpr std::string_view kPrefix = "tile_num_";
  if (key.substr(0, kPrefix.size()) != kPrefix || key.size() == kPrefix.size() ||
      key.size() > kPrefix.size() + 9) {
    return -1;
  }
  const std::string_view digits = key.substr(kPrefix.size());
  if (digits[0] == '0' && digits.size() > 1) return -1;
  int64_t k = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    k = k * 10 + (c - '0');
  }
  return k;
}

// tile_info: {"tile_num_0": {...}, ...}; the key check is I-W2. Tiles are
// decoded in place; only when the keys come out of numeric order (writers
// that sort keys as strings put tile_num_10 before tile_num_2) or repeat are
// they moved into order through a scratch list.
void Decoder::TileInfo(std::vector<Tile>* tiles) {
  if (!ExpectKind(JsonKind::kObject, "the tile_info object")) return;
  const uint64_t at = reader_.offset();
  tile_keys_.clear();
  tiles->clear();
  tiles->reserve(last_tile_count_);
  bool in_order = true;
  std::string_view key;
  uint64_t key_offset = 0;
  reader_.BeginObject();
  while (reader_.NextKey(&key, &key_offset)) {
    const int64_t k = TileNumber(key);
    if (k < 0) {
      sink_.Report(rules::kTileKeys, Location{key_offset, key.size() + 2, reader_.Pointer()},
                   Str("tile_info key ", Quoted(key), " is not tile_num_<k>"));
      reader_.Skip();
      continue;
    }
    in_order = in_order && k == static_cast<int64_t>(tile_keys_.size());
    tile_keys_.push_back(TileKey{k, tiles->size(), key_offset, key.size()});
    tiles->emplace_back();
    TileObject(&tiles->back());
  }
  if (reader_.failed()) return;
  last_tile_count_ = tiles->size();
  if (tile_keys_.empty()) {
    sink_.Report(rules::kTileKeys, Location{at, reader_.offset() - at, reader_.Pointer()},
                 "tile_info holds no tile");
    return;
  }
  if (in_order) return;
  // The first of two equal keys is kept, the later reported.
  std::sort(tile_keys_.begin(), tile_keys_.end(), [](const TileKey& a, const TileKey& b) {
    return std::pair(a.k, a.position) < std::pair(b.k, b.position);
  });
  tile_scratch_.clear();
  tile_scratch_.reserve(tiles->size());
  int64_t missing = -1;  // the first k absent from 0..n-1
  for (size_t i = 0; i < tile_keys_.size(); ++i) {
    const TileKey& entry = tile_keys_[i];
    if (i > 0 && entry.k == tile_keys_[i - 1].k) {
      sink_.Report(rules::kJsonDuplicateKey,
                   Location{entry.key_offset, entry.key_size + 2,
                            Str(reader_.Pointer(), "/tile_num_", entry.k)},
                   Str("key ", Quoted(Str("tile_num_", entry.k)), " appears twice in one object"));
      continue;
    }
    const auto next = static_cast<int64_t>(tile_scratch_.size());
    if (missing < 0 && entry.k != next) missing = next;
    tile_scratch_.push_back(std::move((*tiles)[entry.position]));
  }
  tiles->swap(tile_scratch_);
  if (missing >= 0) {
    sink_.Report(rules::kTileKeys, Location{at, reader_.offset() - at, reader_.Pointer()},
                 Str("tile_info has ", tiles->size(), " tiles but no tile_num_", missing));
  }
}

void Decoder::Rings(std::vector<std::pair<int64_t, int64_t>>* rings) {
  List(rings, [this](std::pair<int64_t, int64_t>* ring) {
    std::array<int64_t, 2> bounds{};
    if (IntArray(&bounds)) *ring = {bounds[0], bounds[1]};
  });
}

void Decoder::WorkloadObject(Workload* w) {
  static constexpr JsonKeys<15> kKeys = {
      "workload_id", "layer_name",        "layer_type",       "workload", "ofmap_size", "time",
      "tile_info",   "tile_padding_tblr", "ring_buffer_info", "ifmap",    "ofmap",      "buffer",
      "weight",      "wl0_buffer",        "wl1_buffer"};
  if (!ExpectKind(JsonKind::kObject, "a workload object")) return;
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
        std::string_view type;
        if (!String(&type)) break;
        static constexpr JsonKeys<3> kTypes = {"pe", "vp", "dt"};
        const auto index = EnumIndex(kTypes, type);
        if (!index) {
          Report(rules::kSchemaEnum, Str("layer_type ", Quoted(type), " is not pe, vp or dt"));
          break;
        }
        w->type = static_cast<LayerType>(*index);
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
        TileInfo(&w->tiles);
        break;
      case 7:
        IntArray(&w->padding);
        break;
      case 8:
        Rings(&w->rings);
        break;
      case 9:
        List(&w->ifmaps, [this](Ifmap* f) { IfmapEntry(f); });
        break;
      case 10:
        List(&w->ofmaps, [this](Ofmap* f) { OfmapEntry(f); });
        break;
      case 11:
        List(&w->buffer, [this](BufferEntry* e) { BufferEntryObject(e); });
        break;
      case 12:
        w->weight.emplace();
        WeightObject(&*w->weight);
        break;
      case 13:
      case 14:
        w->wl1_key = field == 14;
        if (reader_.Peek() == JsonKind::kNull) {
          reader_.ReadNull();
        } else {
          List(&w->wl0, [this](Wl0Entry* e) { Wl0EntryObject(e); });
        }
        break;
    }
  });
  RequireKeys(kKeys, seen, KeyBits({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), w->offset, "workload");
  const uint64_t wl_keys = seen & KeyBits({13, 14});
  if (wl_keys == KeyBits({13, 14})) {
    sink_.Report(rules::kWorkloadBufferKey, Location{w->offset, std::nullopt, reader_.Pointer()},
                 "workload has both wl0_buffer and wl1_buffer");
  } else if (wl_keys == 0 && !reader_.failed()) {
    sink_.Report(rules::kWorkloadBufferKey, Location{w->offset, std::nullopt, reader_.Pointer()},
                 "workload has neither wl0_buffer nor wl1_buffer");
  }
}

void Decoder::CoreList(Core* core) {
  core->offset = reader_.offset();
  List(&core->workloads, [this](Workload* w) { WorkloadObject(w); });
}

// ---- Top level -------------------------------------------------------------

void Decoder::Top() {
  if (!ExpectKind(JsonKind::kObject, "the top-level object")) return;
  reader_.BeginObject();
  TopMembers(top_keys_, std::nullopt);
  FinishTop(top_keys_, !reader_.failed());
}

bool Decoder::TopMembers(TopKeys& keys, std::optional<uint64_t> stop_at) {
  std::string_view key;
  uint64_t key_offset = 0;
  while (true) {
    // Only a stop inside the root object: once it has closed, a core list
    // at `stop_at` lies past the document's end.
    if (stop_at && reader_.NextTokenOffset() == *stop_at) return !reader_.failed();
    if (!reader_.NextKey(&key, &key_offset)) return false;
    const Location at{key_offset, key.size() + 2, reader_.Pointer()};
    const int index = JsonKeyIndex(kTopKeys, key);
    if (index >= 0) {
      const uint64_t bit = uint64_t{1} << index;
      if (keys.seen & bit) {
        sink_.Report(rules::kJsonDuplicateKey, at,
                     Str("key ", Quoted(key), " appears twice in one object"));
        reader_.Skip();
        continue;
      }
      keys.seen |= bit;
      switch (index) {
        case 0:
          Dram();
          break;
        case 1:
          Int(&ir_.buffersize);
          break;
        case 2:
          Int(&ir_.top_batch_cut);
          break;
        case 3:
          Int(&ir_.xlen);
          break;
        case 4:
          Int(&ir_.ylen);
          break;
      }
      continue;
    }
    if (const auto id = CoreKey(key)) {
      if (!keys.core_ids.insert(*id).second) {
        sink_.Report(rules::kJsonDuplicateKey, at,
                     Str("key ", Quoted(key), " appears twice in one object"));
        reader_.Skip();
        continue;
      }
      ir_.cores.emplace_back();
      ir_.cores.back().id = *id;
      if (ExpectKind(JsonKind::kArray, "a list of workloads")) CoreList(&ir_.cores.back());
      continue;
    }
    const bool repeated = keys.unknown.find(key) != keys.unknown.end();
    sink_.Report(repeated ? rules::kJsonDuplicateKey : rules::kTopKeys, at,
                 repeated ? Str("key ", Quoted(key), " appears twice in one object")
                          : Str("top-level key ", Quoted(key),
                                " is neither a core id nor one of -1, buffersize, "
                                "top_batch_cut, xlen, ylen"));
    if (!repeated) keys.unknown.emplace(key);
    reader_.Skip();
  }
}

void Decoder::FinishTop(const TopKeys& keys, bool complete) {
  std::sort(ir_.cores.begin(), ir_.cores.end(),
            [](const Core& a, const Core& b) { return a.id < b.id; });
  if (!complete) return;
  for (size_t i = 0; i < kTopKeys.size(); ++i) {
    if (!(keys.seen & (uint64_t{1} << i))) {
      sink_.Report(rules::kTopKeys, Location{0, std::nullopt, ""},
                   Str("the document has no top-level key ", Quoted(kTopKeys[i])));
    }
  }
}

bool Decoder::Run() {
  Top();
  return Finish();
}

// The second half of a document read in two: its tables, what it reported
// (in order, to be reported again after the first half's), and its keys.
struct Decoder::Half {
  Ir ir;
  DiagnosticSink sink{Profile{}, ""};
  TopKeys keys;
  bool failed = false;          // a syntax error or the depth limit ended its members
  size_t members_reported = 0;  // what it reported before Finish()
  bool finished = false;        // read to the end, nothing after it
};

bool Decoder::MembersFrom(uint64_t offset) {
  reader_.ContinueRootObjectAt(offset);
  TopMembers(top_keys_, std::nullopt);
  return !reader_.failed();
}

bool Decoder::RunSplit(uint64_t split, std::future<Half>& second, bool* adopted) {
  if (!ExpectKind(JsonKind::kObject, "the top-level object")) {
    second.wait();
    return Finish();
  }
  reader_.BeginObject();
  if (TopMembers(top_keys_, split)) {
    Half half = second.get();
    if (Adopt(top_keys_, half)) {
      // What the second half reported, then the missing keys, then its end:
      // the order of one reader.
      const std::vector<Diagnostic>& reported = half.sink.diagnostics();
      const auto replay = [&](size_t from, size_t to) {
        for (size_t i = from; i < to; ++i) {
          sink_.Report(*reported[i].rule, reported[i].location, reported[i].message);
        }
      };
      replay(0, half.members_reported);
      FinishTop(top_keys_, !half.failed);
      replay(half.members_reported, reported.size());
      *adopted = true;
      return half.finished;
    }
    TopMembers(top_keys_, std::nullopt);  // the halves disagree: read on alone
  } else {
    second.wait();
  }
  FinishTop(top_keys_, !reader_.failed());
  return Finish();
}

// The second half's tables join the first's as if one reader had read
// both: unless a top-level key is in both halves (the second occurrence
// would have been skipped), or the second half kept fewer diagnostics than
// it counted.
bool Decoder::Adopt(TopKeys& keys, Half& second) {
  const auto shared = [](const auto& a, const auto& b) {
    return std::any_of(b.begin(), b.end(), [&](const auto& k) { return a.count(k) != 0; });
  };
  const DiagnosticSink& reported = second.sink;
  if ((keys.seen & second.keys.seen) != 0 || shared(keys.unknown, second.keys.unknown) ||
      shared(keys.core_ids, second.keys.core_ids) ||
      reported.diagnostics().size() >= kMaxKeptDiagnostics) {
    return false;
  }
  RemapLayers(second.ir);
  Ir& other = second.ir;
  if (second.keys.seen & KeyBits({0})) {
    ir_.dram_in = std::move(other.dram_in);
    ir_.dram_out = std::move(other.dram_out);
    ir_.dram_offset = other.dram_offset;
  }
  if (second.keys.seen & KeyBits({1})) ir_.buffersize = other.buffersize;
  if (second.keys.seen & KeyBits({2})) ir_.top_batch_cut = other.top_batch_cut;
  if (second.keys.seen & KeyBits({3})) ir_.xlen = other.xlen;
  if (second.keys.seen & KeyBits({4})) ir_.ylen = other.ylen;
  for (Core& core : other.cores) ir_.cores.push_back(std::move(core));
  keys.seen |= second.keys.seen;
  return true;
}

// The second half interned its layer names in a table of its own: its ids
// become this table's, new names taking the next ids in the order the
// second half met them, as one reader would have given them.
void Decoder::RemapLayers(Ir& other) {
  std::vector<uint32_t> ids(other.layers.size());
  for (size_t i = 0; i < other.layers.size(); ++i) ids[i] = layers_.Intern(other.layers[i]);
  const auto map = [&](uint32_t& layer) {
    if (layer < ids.size()) layer = ids[layer];
  };
  const auto map_destinations = [&](std::vector<Destination>& destinations) {
    for (Destination& d : destinations) map(d.layer);
  };
  for (Core& core : other.cores) {
    for (Workload& w : core.workloads) {
      map(w.layer);
      for (Ofmap& f : w.ofmaps) map_destinations(f.destinations);
      for (BufferEntry& e : w.buffer) {
        map(e.layer);
        for (Source& source : e.sources) map(source.layer);
      }
      for (Wl0Entry& e : w.wl0) map(e.layer);
    }
  }
  for (DramIn& in : other.dram_in) map(in.layer);
  for (DramOut& out : other.dram_out) map_destinations(out.destinations);
}

// Documents from this size on are read in two halves at once.
constexpr uint64_t kSplitBytes = uint64_t{32} << 20;

}  // namespace

std::optional<int64_t> CoreKey(std::string_view key) {
  if (key.empty() || key.size() > 9 || (key[0] == '0' && key.size() > 1)) return std::nullopt;
  int64_t value = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

bool ReadLayer(JsonDecoder& decoder, LayerTable& layers, uint32_t* out) {
  std::string_view name;
  if (!decoder.String(&name)) return false;
  *out = layers.Intern(name);
  return true;
}

bool ReadRangePair(JsonDecoder& decoder, Range* out) {
  if (!decoder.ExpectKind(JsonKind::kArray, "a list [[lower], [upper]]")) return false;
  JsonReader& reader = decoder.reader();
  const uint64_t at = reader.offset();
  reader.BeginArray();
  size_t count = 0;
  bool ok = true;
  while (reader.NextElement()) {
    if (count < 2) {
      ok = decoder.IntArray(count == 0 ? &out->lo : &out->hi) && ok;
    } else {
      reader.Skip();
    }
    ++count;
  }
  if (reader.failed()) return false;
  if (count == 2) return ok;
  decoder.sink().Report(rules::kSchemaType, Location{at, reader.offset() - at, reader.Pointer()},
                        Str("expected [[lower], [upper]] but found ", count, " elements"));
  return false;
}

std::optional<uint64_t> CoreListBoundary(ByteView bytes, uint64_t from) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const auto space = [&](size_t p) {
    while (p < text.size() &&
           (text[p] == ' ' || text[p] == '\n' || text[p] == '\r' || text[p] == '\t')) {
      ++p;
    }
    return p;
  };
  for (size_t comma = text.find(',', from); comma != std::string_view::npos;
       comma = text.find(',', comma + 1)) {
    size_t p = space(comma + 1);
    if (p >= text.size() || text[p] != '"') continue;
    const size_t digits = ++p;
    while (p < text.size() && text[p] >= '0' && text[p] <= '9') ++p;
    if (p == digits || p - digits > 9 || p >= text.size() || text[p] != '"') continue;
    p = space(p + 1);
    if (p >= text.size() || text[p] != ':') continue;
    p = space(p + 1);
    if (p >= text.size() || text[p] != '[') continue;
    p = space(p + 1);
    if (p < text.size() && text[p] == '{') return comma;
  }
  return std::nullopt;
}

bool DecodeIr(ByteView text, const Limits& limits, DiagnosticSink& sink, Ir* ir,
              const InputBuffer* input) {
  const std::optional<uint64_t> split =
      text.size() >= kSplitBytes ? CoreListBoundary(text, text.size() / 2) : std::nullopt;
  if (split) return DecodeIrInTwo(text, *split, limits, sink, ir, input);
  Decoder decoder(text, limits, sink, ir, input);
  return decoder.Run();
}

bool DecodeIrInTwo(ByteView text, uint64_t split, const Limits& limits, DiagnosticSink& sink,
                   Ir* ir, const InputBuffer* input, bool* taken) {
  std::future<Decoder::Half> second = StartBeside(true, [&text, &limits, input, split] {
    Decoder::Half half;
    Decoder rest(text, limits, half.sink, &half.ir, input);
    half.failed = !rest.MembersFrom(split);
    half.members_reported = half.sink.diagnostics().size();
    half.finished = rest.Finish();
    half.keys = rest.TakeKeys();
    return half;
  });
  Decoder decoder(text, limits, sink, ir, input);
  bool adopted = false;
  const bool finished = decoder.RunSplit(split, second, &adopted);
  if (taken != nullptr) *taken = adopted;
  return finished;
}

std::optional<std::string_view> JsonObjectHead(ByteView text) {
  const std::string_view head(reinterpret_cast<const char*>(text.data()),
                              std::min<size_t>(text.size(), 4096));
  const size_t brace = head.find_first_not_of(" \t\r\n");
  if (brace == std::string_view::npos || head[brace] != '{') return std::nullopt;
  return head;
}

bool LooksLikeIr(ByteView text) {
  // A key of the IR's top level within the first bytes (jsoncpp writes keys
  // sorted, so "-1" comes first; other writers may not).
  const std::optional<std::string_view> head = JsonObjectHead(text);
  if (!head) return false;
  const bool has_dram = head->find("\"-1\"") != std::string_view::npos;
  const bool has_core_list = head->find("\"workload_id\"") != std::string_view::npos ||
                             head->find("\"buffersize\"") != std::string_view::npos;
  return has_dram && has_core_list;
}

bool LooksLikeSetIr(ByteView text) {
  const std::optional<std::string_view> head = JsonObjectHead(text);
  if (!head) return false;
  const auto has = [&](std::string_view key) { return head->find(key) != std::string_view::npos; };
  // Writers that sort keys put the core lists first, so the first buffer
  // entry shows the dialect; others may open with metadata and DRAM.
  return (has("\"block\"") && has("\"priority\"") &&
          (has("\"start_loading\"") || has("\"end_loading\""))) ||
         (has("\"metadata\"") && has("\"DRAM\"") && !has("\"-1\""));
}

}  // namespace accelcheck::gemini
