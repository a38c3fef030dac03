// Decoding of .tarch and .tmodel with the core JSON decoder, one small check
// per rule.
#include "validators/tensil/manifest.h"

#include <algorithm>
#include <string_view>

#include "validators/core/checked.h"
#include "validators/core/json_decoder.h"
#include "validators/core/output_file.h"
#include "validators/core/text.h"
#include "validators/tensil/rules.h"

namespace accelcheck::tensil {

namespace {

constexpr uint64_t kMaxInt = 0x7fffffff;              // Scala Int
constexpr uint64_t kMaxLong = 0x7fffffffffffffffull;  // Scala Long

// upickle ignores unknown keys and keeps the last of a repeated one
// (docs/formats/tensil.md §7 TNS-1).
const JsonSchemaRules kSchemaRules{&rules::kJsonSyntax, &rules::kKeyType,    &rules::kKeyType,
                                   &rules::kKeyMissing, &rules::kUnknownKey, nullptr};

// The keys of each object, in the order the compiler writes them.
constexpr JsonKeys<11> kArchKeys = {
    "data_type",     "array_size",        "dram0_depth",          "dram1_depth",
    "local_depth",   "accumulator_depth", "simd_registers_depth", "stride0_depth",
    "stride1_depth", "number_of_threads", "thread_queue_depth"};
constexpr uint64_t kArchRequired = KeyBits({0, 1, 2, 3, 4, 5, 6, 7, 8});
constexpr uint64_t kArchLegacy = KeyBits({9, 10});  // added in 2022

constexpr JsonKeys<7> kModelKeys = {
    "name", "prog", "consts", "inputs", "outputs", "arch", "load_consts_to_local"};
constexpr uint64_t kModelRequired = KeyBits({0, 1, 2, 3, 4, 5});
constexpr uint64_t kModelLegacy = KeyBits({6});

constexpr JsonKeys<2> kProgKeys = {"file_name", "size"};
constexpr JsonKeys<3> kFileKeys = {"file_name", "base", "size"};
constexpr JsonKeys<3> kIoKeys = {"name", "base", "size"};

std::string Pointer(std::string_view object, std::string_view key) {
  return Str(object, "/", PointerToken(key));
}

// An architecture as decoded, and whether every value was read.
struct DecodedArchitecture {
  Architecture arch;
  bool complete = true;
};

class ManifestDecoder : public JsonDecoder {
 public:
  ManifestDecoder(ByteView bytes, const Limits& limits, DiagnosticSink& sink, JsonOffsets& offsets)
      : JsonDecoder(bytes, limits, sink, kSchemaRules), offsets_(offsets) {}

  // The top-level value must be an object: anything else is not a Tensil
  // document at all (tensil.json.syntax).
  bool TopObject() {
    const JsonKind kind = reader_.Peek();
    if (kind == JsonKind::kObject) return true;
    if (kind == JsonKind::kInvalid) {
      reader_.Skip();  // records the syntax error
      return false;
    }
    Report(rules::kJsonSyntax, Str("expected a JSON object, found ", JsonKindName(kind)));
    reader_.Skip();
    return false;
  }

  DecodedArchitecture Architecture();
  void Model(tensil::Model* m, DecodedArchitecture* arch);

 private:
  void Mark() { RecordOffset(offsets_); }
  // An integer in [0, max]. A negative one is returned in `negative` when
  // the caller gives it (the architecture reports it as not positive).
  std::optional<uint64_t> Unsigned(uint64_t max, std::optional<int64_t>* negative = nullptr);
  std::optional<std::string> Text() {
    std::string_view value;
    if (!String(&value)) return std::nullopt;
    return std::string(value);
  }
  // The legacy keys of `legacy` not in `seen`: one tensil.json.legacy_schema
  // report for the object.
  template <size_t N>
  void ReportLegacy(const JsonKeys<N>& keys, uint64_t seen, uint64_t legacy, uint64_t at);
  std::optional<DataType> DataTypeValue();
  void Prog(tensil::Model* m);
  // A list of {<name key>, base, size} entries: consts, inputs, outputs.
  template <typename Entry>
  void Entries(const JsonKeys<3>& keys, JsonKeyOrder& order, std::vector<Entry>* entries);

  JsonOffsets& offsets_;
  JsonKeyOrder arch_order_, model_order_, prog_order_, file_order_, io_order_;
};

std::optional<uint64_t> ManifestDecoder::Unsigned(uint64_t max, std::optional<int64_t>* negative) {
  JsonNumber number;
  const JsonKind kind = reader_.Peek();
  const Location at = Here();
  if (kind != JsonKind::kNumber) {
    ExpectKind(JsonKind::kNumber, "an integer");
    return std::nullopt;
  }
  if (!reader_.ReadNumber(&number)) return std::nullopt;
  if (!number.integral) {
    sink_.Report(rules::kKeyType, at, Str("expected an integer, found ", number.real));
  } else if (!number.fits || (number.integer >= 0 && static_cast<uint64_t>(number.integer) > max)) {
    sink_.Report(rules::kKeyType, at, Str("the value exceeds the largest allowed ", max));
  } else if (number.integer < 0 && negative != nullptr) {
    *negative = number.integer;
  } else if (number.integer < 0) {
    sink_.Report(rules::kKeyType, at,
                 Str("expected a non-negative integer, found ", number.integer));
  } else {
    return static_cast<uint64_t>(number.integer);
  }
  return std::nullopt;
}

template <size_t N>
void ManifestDecoder::ReportLegacy(const JsonKeys<N>& keys, uint64_t seen, uint64_t legacy,
                                   uint64_t at) {
  std::string missing;
  for (size_t i = 0; i < N; ++i) {
    if ((legacy >> i & 1) && !(seen >> i & 1)) missing += Str(missing.empty() ? "" : ", ", keys[i]);
  }
  if (missing.empty() || reader_.failed()) return;
  sink_.Report(
      rules::kLegacySchema, Location{at, std::nullopt, reader_.Pointer()},
      Str("legacy schema: ", missing, " missing (written before 2022; current readers reject it)"));
}

std::optional<DataType> ManifestDecoder::DataTypeValue() {
  const Location at = Here();
  const auto name = Text();
  if (!name) return std::nullopt;
  const auto type = DataTypeNamed(*name);
  if (!type) {
    sink_.Report(rules::kArchDataType, at,
                 Str("data_type ", Quoted(*name),
                     " is not one of FP8BP4, FP16BP8, FP18BP10, FP32BP16, FLOAT32"));
  }
  return type;
}

DecodedArchitecture ManifestDecoder::Architecture() {
  DecodedArchitecture out;
  if (!ExpectObject("an architecture object")) {
    out.complete = false;
    return out;
  }
  tensil::Architecture& a = out.arch;
  uint64_t* const targets[] = {
      nullptr,          &a.array_size,        &a.dram0_depth,          &a.dram1_depth,
      &a.local_depth,   &a.accumulator_depth, &a.simd_registers_depth, &a.stride0_depth,
      &a.stride1_depth, &a.number_of_threads, &a.thread_queue_depth};
  const auto is_long = [](int field) { return field >= 2 && field <= 5; };
  const uint64_t at = reader_.offset();
  const uint64_t blocking = sink_.blocking_count();
  const uint64_t seen = Fields(kArchKeys, arch_order_, [&](int field) {
    Mark();
    if (field == 0) {
      if (const auto type = DataTypeValue()) a.data_type = *type;
      return;
    }
    const Location where = Here();
    std::optional<int64_t> negative;
    const auto value = Unsigned(is_long(field) ? kMaxLong : kMaxInt, &negative);
    if (negative || (value && *value == 0)) {
      sink_.Report(rules::kArchPositive, where,
                   Str(kArchKeys[field], " is ", negative ? *negative : 0,
                       ", expected a value greater than 0"));
    } else if (value) {
      *targets[field] = *value;
    }
  });
  RequireKeys(kArchKeys, seen, kArchRequired, at, "the architecture");
  ReportLegacy(kArchKeys, seen, kArchLegacy, at);
  out.complete = sink_.blocking_count() == blocking;
  return out;
}

void ManifestDecoder::Prog(tensil::Model* m) {
  if (!ExpectObject("an object")) return;
  const uint64_t at = reader_.offset();
  const uint64_t seen = Fields(kProgKeys, prog_order_, [&](int field) {
    Mark();
    if (field == 0) {
      if (auto file = Text()) m->prog_file = *file;
    } else {
      m->prog_size = Unsigned(kMaxLong);
    }
  });
  RequireKeys(kProgKeys, seen, KeyBits({0}), at, "prog");
  ReportLegacy(kProgKeys, seen, KeyBits({1}), at);
}

template <typename Entry>
void ManifestDecoder::Entries(const JsonKeys<3>& keys, JsonKeyOrder& order,
                              std::vector<Entry>* entries) {
  Elements("an array", [&](size_t) {
    Mark();
    if (!ExpectObject("an object")) return;
    const uint64_t at = reader_.offset();
    std::optional<std::string> name;
    std::optional<uint64_t> base, size;
    const uint64_t seen = Fields(keys, order, [&](int field) {
      Mark();
      if (field == 0) name = Text();
      if (field == 1) base = Unsigned(kMaxLong);
      if (field == 2) size = Unsigned(kMaxLong);
    });
    RequireKeys(keys, seen, KeyBits({0, 1, 2}), at, "the entry");
    if (name && base && size) entries->push_back({*name, *base, *size});
  });
}

void ManifestDecoder::Model(tensil::Model* m, DecodedArchitecture* arch) {
  const uint64_t at = reader_.offset();
  arch->complete = false;
  const uint64_t seen = Fields(kModelKeys, model_order_, [&](int field) {
    Mark();
    switch (field) {
      case 0:
        if (auto name = Text()) m->name = *name;
        break;
      case 1:
        Prog(m);
        break;
      case 2:
        Entries(kFileKeys, file_order_, &m->consts);
        break;
      case 3:
        Entries(kIoKeys, io_order_, &m->inputs);
        break;
      case 4:
        Entries(kIoKeys, io_order_, &m->outputs);
        break;
      case 5:
        *arch = Architecture();
        break;
      case 6:
        Bool(&m->load_consts_to_local);
        break;
    }
  });
  RequireKeys(kModelKeys, seen, kModelRequired, at, "the model");
  ReportLegacy(kModelKeys, seen, kModelLegacy, at);
}

// ---- Checks on the architecture's values (TNS-2 to TNS-4) --------------------

// Where the architecture's keys are: "" in a .tarch, "/arch" in a .tmodel.
struct ArchPlace {
  const JsonOffsets& offsets;
  std::string_view object;
  Location At(std::string_view key) const { return offsets.At(Pointer(object, key)); }
};

void CheckThreads(const Architecture& arch, const ArchPlace& place, DiagnosticSink& sink) {
  if (arch.number_of_threads > 2) {
    sink.Report(rules::kArchThreads, place.At("number_of_threads"),
                Str("number_of_threads is ", arch.number_of_threads, ", expected 1 or 2"));
  }
}

void CheckFloat32(const Architecture& arch, const ArchPlace& place, DiagnosticSink& sink) {
  if (arch.data_type == DataType::kFloat32) {
    sink.Report(rules::kArchFloat32, place.At("data_type"),
                "FLOAT32 runs only in the emulator: the RTL generator and the drivers reject it");
  }
}

void CheckArraySizeRange(const Architecture& arch, const ArchPlace& place, DiagnosticSink& sink) {
  if (arch.array_size < 2 || arch.array_size > 256) {
    sink.Report(rules::kArchArraySizeRange, place.At("array_size"),
                Str("array_size is ", arch.array_size, ", documented range 2..256"));
  }
}

// docs/formats/tensil.md §1: DRAM 2^1..2^32, local and accumulators 2^1..2^16
// (non-powers of two are fine: only log2Ceil matters), SIMD registers 0..16.
void CheckDepthRanges(const Architecture& arch, const ArchPlace& place, DiagnosticSink& sink) {
  struct Range {
    std::string_view key;
    uint64_t value, low, high;
  };
  const Range ranges[] = {
      {"dram0_depth", arch.dram0_depth, 2, uint64_t{1} << 32},
      {"dram1_depth", arch.dram1_depth, 2, uint64_t{1} << 32},
      {"local_depth", arch.local_depth, 2, uint64_t{1} << 16},
      {"accumulator_depth", arch.accumulator_depth, 2, uint64_t{1} << 16},
      {"simd_registers_depth", arch.simd_registers_depth, 0, 16},
  };
  for (const Range& r : ranges) {
    if (r.value < r.low || r.value > r.high) {
      sink.Report(rules::kArchDepthRange, place.At(r.key),
                  Str(r.key, " is ", r.value, ", documented range ", r.low, "..", r.high));
    }
  }
}

bool CheckLayout(const Architecture& arch, const ArchPlace& place, DiagnosticSink& sink) {
  if (LayoutOf(arch)) return true;
  const unsigned tid = Log2Ceil(arch.number_of_threads);
  if (tid + 7 > 8) {
    sink.Report(rules::kArchHeaderWidth, place.At("number_of_threads"),
                Str("header needs ", tid, " tid + 3 opcode + 4 flag bits = ", tid + 7,
                    " bits, more than the 8-bit header"));
  } else {
    sink.Report(rules::kArchOperandWidth, place.offsets.At(std::string(place.object)),
                "the depths and stride depths give an instruction operand wider than 64 bits");
  }
  return false;
}

// The value checks of a decoded architecture; nothing when it cannot lay out
// instructions.
std::optional<Architecture> CheckArchitecture(const DecodedArchitecture& decoded,
                                              const ArchPlace& place, DiagnosticSink& sink) {
  if (!decoded.complete) return std::nullopt;
  const uint64_t before = sink.blocking_count();
  const Architecture& arch = decoded.arch;
  CheckThreads(arch, place, sink);
  CheckFloat32(arch, place, sink);
  CheckArraySizeRange(arch, place, sink);
  CheckDepthRanges(arch, place, sink);
  if (!CheckLayout(arch, place, sink) || sink.blocking_count() != before) return std::nullopt;
  return arch;
}

// ---- Checks on the manifest's values ------------------------------------------

// TNS-8: one entry of at least one vector, at base 0.
void CheckConsts(const Model& m, DiagnosticSink& sink) {
  if (m.consts.empty()) {
    sink.Report(rules::kModelConstsEmpty, m.offsets.At("/consts"),
                "consts has no entry; the emulator reads consts[0]");
    return;
  }
  if (m.consts.size() > 1) {
    sink.Report(rules::kModelConstsCount, m.offsets.At("/consts"),
                Str("consts has ", m.consts.size(),
                    " entries; the compiler writes 1 and the emulator reads only the first"));
  }
  for (size_t i = 0; i < m.consts.size(); ++i) {
    const FileEntry& c = m.consts[i];
    const std::string entry = Str("/consts/", i);
    if (c.size == 0) {
      sink.Report(rules::kModelConstsSize, m.offsets.At(entry + "/size"),
                  "consts size is 0 vectors");
    }
    if (c.base != 0) {
      sink.Report(rules::kModelConstsBase, m.offsets.At(entry + "/base"),
                  Str("consts base is ", Hex(c.base), ", the compiler always writes 0"));
    }
  }
}

// TNS-10: the constants fit where the driver puts them.
void CheckConstsRange(const Model& m, DiagnosticSink& sink) {
  const uint64_t depth = m.load_consts_to_local ? m.arch.local_depth : m.arch.dram1_depth;
  const char* memory = m.load_consts_to_local ? "local memory (load_consts_to_local)" : "DRAM1";
  for (size_t i = 0; i < m.consts.size(); ++i) {
    const FileEntry& c = m.consts[i];
    if (!RangeWithin(c.base, c.size, depth)) {
      sink.Report(rules::kModelConstsRange, m.offsets.At(Str("/consts/", i)),
                  Str("base ", Hex(c.base), " + size ", Hex(c.size), " exceeds ", memory, " depth ",
                      Hex(depth)));
    }
  }
}

// TNS-11, TNS-12 for one list (inputs or outputs).
void CheckIoList(const Model& m, const std::vector<IoEntry>& entries, std::string_view list,
                 DiagnosticSink& sink) {
  const std::string pointer = Str("/", list);
  if (entries.empty()) {
    sink.Report(rules::kModelIoEmpty, m.offsets.At(pointer), Str(list, " has no entry"));
    return;
  }
  if (entries.size() > 4) {
    sink.Report(rules::kModelIoCount, m.offsets.At(pointer),
                Str(list, " has ", entries.size(), " entries; the C driver accepts at most 4"));
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const IoEntry& e = entries[i];
    const std::string entry = Str(pointer, "/", i);
    if (e.name.empty()) {
      sink.Report(rules::kModelIoName, m.offsets.At(entry + "/name"), "the name is empty");
    } else if (const auto unsafe = UnsafeFileName(e.name)) {
      sink.Report(rules::kModelIoFileName, m.offsets.At(entry + "/name"),
                  Str(*unsafe, ": an output file named after it would leave its directory"));
    }
    if (e.size == 0) {
      sink.Report(rules::kModelIoSize, m.offsets.At(entry + "/size"), "size is 0 vectors");
    }
    if (!RangeWithin(e.base, e.size, m.arch.dram0_depth)) {
      sink.Report(rules::kModelIoRange, m.offsets.At(entry),
                  Str("base ", Hex(e.base), " + size ", Hex(e.size), " exceeds DRAM0 depth ",
                      Hex(m.arch.dram0_depth)));
    }
    if (i > 0 && e.base < entries[i - 1].base) {
      sink.Report(rules::kModelIoOrder, m.offsets.At(entry + "/base"),
                  Str("base ", Hex(e.base), " is below the previous entry's ",
                      Hex(entries[i - 1].base), "; the compiler sorts entries by base"));
    }
    for (size_t j = 0; j < i; ++j) {
      const IoEntry& o = entries[j];
      const bool disjoint = e.base >= o.base + std::min(o.size, kMaxLong - o.base) ||
                            o.base >= e.base + std::min(e.size, kMaxLong - e.base);
      if (!disjoint) {
        sink.Report(rules::kModelIoOverlap, m.offsets.At(entry),
                    Str("DRAM0 vectors [", Hex(e.base), ", +", Hex(e.size), ") overlap ", list, "[",
                        j, "] [", Hex(o.base), ", +", Hex(o.size), ")"));
      }
    }
  }
}

// TNS-13: the drivers' flush probe overwrites DRAM0 depth-2 and depth-1.
void CheckIoProbeRows(const Model& m, const std::vector<IoEntry>& entries, std::string_view list,
                      DiagnosticSink& sink) {
  if (m.arch.dram0_depth < 2) return;
  const uint64_t probe = m.arch.dram0_depth - 2;
  for (size_t i = 0; i < entries.size(); ++i) {
    const IoEntry& e = entries[i];
    const auto end = CheckedAdd(e.base, e.size);
    if (end && *end > probe && e.size > 0) {
      sink.Report(rules::kModelProbeRows, m.offsets.At(Str("/", list, "/", i)),
                  Str("vectors [", Hex(e.base), ", ", Hex(*end), ") reach DRAM0 ", Hex(probe),
                      ", which the drivers' flush probe overwrites"));
    }
  }
}

std::string_view AsText(ByteView bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

bool LooksLikeTensilJson(ByteView bytes) {
  // Manifests and architectures are a few KB with their keys near the top:
  // looking further would make detection scan every large JSON document.
  constexpr size_t kHead = size_t{64} << 10;
  const std::string_view text = AsText(bytes).substr(0, kHead);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return false;
  return text.find("\"array_size\"") != std::string_view::npos &&
         text.find("\"local_depth\"") != std::string_view::npos &&
         text.find("\"accumulator_depth\"") != std::string_view::npos;
}

bool IsModelDocument(ByteView bytes, const Limits& limits) {
  JsonReader reader(bytes, limits.max_depth);
  if (reader.Peek() != JsonKind::kObject || !reader.BeginObject()) return false;
  std::string_view key;
  uint64_t key_offset = 0;
  while (reader.NextKey(&key, &key_offset)) {
    if (key == "prog" || key == "consts") return true;
    reader.Skip();
  }
  return false;
}

std::optional<Architecture> DecodeArchitectureDocument(ByteView bytes, const Limits& limits,
                                                       DiagnosticSink& sink) {
  JsonOffsets offsets;
  ManifestDecoder decoder(bytes, limits, sink, offsets);
  DecodedArchitecture decoded;
  decoded.complete = false;
  if (decoder.TopObject()) {
    offsets.Record("", decoder.reader().offset());
    decoded = decoder.Architecture();
  }
  if (!decoder.Finish()) return std::nullopt;
  return CheckArchitecture(decoded, ArchPlace{offsets, ""}, sink);
}

std::optional<Model> DecodeModelDocument(ByteView bytes, const Limits& limits,
                                         DiagnosticSink& sink) {
  Model m;
  DecodedArchitecture decoded;
  ManifestDecoder decoder(bytes, limits, sink, m.offsets);
  const uint64_t before = sink.blocking_count();
  if (decoder.TopObject()) {
    m.offsets.Record("", decoder.reader().offset());
    decoder.Model(&m, &decoded);
  }
  if (!decoder.Finish()) return std::nullopt;
  const auto arch = CheckArchitecture(decoded, ArchPlace{m.offsets, "/arch"}, sink);
  if (!arch || sink.blocking_count() != before) return std::nullopt;
  m.arch = *arch;
  CheckConsts(m, sink);
  CheckConstsRange(m, sink);
  CheckIoList(m, m.inputs, "inputs", sink);
  CheckIoList(m, m.outputs, "outputs", sink);
  CheckIoProbeRows(m, m.inputs, "inputs", sink);
  CheckIoProbeRows(m, m.outputs, "outputs", sink);
  return m;
}

void CheckArchitecturesMatch(const Model& model, const Architecture& tarch,
                             const std::string& tarch_path, DiagnosticSink& sink) {
  const Architecture& a = model.arch;
  struct Pair {
    std::string_view key;
    uint64_t a, b;
  };
  const Pair pairs[] = {
      {"data_type", static_cast<uint64_t>(a.data_type), static_cast<uint64_t>(tarch.data_type)},
      {"array_size", a.array_size, tarch.array_size},
      {"dram0_depth", a.dram0_depth, tarch.dram0_depth},
      {"dram1_depth", a.dram1_depth, tarch.dram1_depth},
      {"local_depth", a.local_depth, tarch.local_depth},
      {"accumulator_depth", a.accumulator_depth, tarch.accumulator_depth},
      {"simd_registers_depth", a.simd_registers_depth, tarch.simd_registers_depth},
      {"stride0_depth", a.stride0_depth, tarch.stride0_depth},
      {"stride1_depth", a.stride1_depth, tarch.stride1_depth},
      {"number_of_threads", a.number_of_threads, tarch.number_of_threads},
      {"thread_queue_depth", a.thread_queue_depth, tarch.thread_queue_depth},
  };
  for (const Pair& p : pairs) {
    if (p.a == p.b) continue;
    const bool type = p.key == "data_type";
    sink.Report(rules::kArchMismatch, model.offsets.At(Pointer("/arch", p.key)),
                Str("arch.", p.key, " is ", type ? std::string(InfoOf(a.data_type).name) : Str(p.a),
                    " but ", Quoted(tarch_path), " has ",
                    type ? std::string(InfoOf(tarch.data_type).name) : Str(p.b)));
  }
}

}  // namespace accelcheck::tensil
