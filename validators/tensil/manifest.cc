// Decoding of .tarch and .tmodel, one small check per rule.
#include "validators/tensil/manifest.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/tensil/rules.h"

namespace accelcheck::tensil {

namespace {

using nlohmann::json;

constexpr uint64_t kMaxInt = 0x7fffffff;              // Scala Int
constexpr uint64_t kMaxLong = 0x7fffffffffffffffull;  // Scala Long
constexpr int kMaxNesting = 64;

std::string Join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : Str(path, ".", key);
}

// Reads the keys of one JSON object, reporting missing keys, wrong types and,
// at the end, the keys nobody asked for.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string path, DiagnosticSink& sink)
      : object_(object), path_(std::move(path)), sink_(sink) {}

  // The value, or nothing (reported as missing unless the key is legacy).
  const json* Find(std::string_view key, bool legacy = false) {
    read_.insert(std::string(key));
    const auto it = object_.find(std::string(key));
    if (it != object_.end()) return &*it;
    if (legacy) {
      legacy_missing_.push_back(Join(path_, key));
    } else {
      sink_.Report(rules::kKeyMissing, AtPath(Join(path_, key)),
                   Str("required key ", Quoted(key), " is missing"));
    }
    return nullptr;
  }

  // An integer in [0, max]; a negative one is returned as nothing after
  // reporting, unless `signed_out` takes it.
  std::optional<uint64_t> Integer(std::string_view key, uint64_t max, bool legacy = false,
                                  std::optional<int64_t>* negative = nullptr) {
    const json* value = Find(key, legacy);
    if (value == nullptr) return std::nullopt;
    const std::string path = Join(path_, key);
    if (value->is_number_unsigned()) {
      const uint64_t v = value->get<uint64_t>();
      if (v <= max) return v;
      sink_.Report(rules::kKeyType, AtPath(path),
                   Str("value ", v, " exceeds the largest allowed ", max));
      return std::nullopt;
    }
    if (value->is_number_integer() && negative != nullptr) {
      *negative = value->get<int64_t>();
      return std::nullopt;
    }
    if (value->is_number_integer()) {
      sink_.Report(rules::kKeyType, AtPath(path),
                   Str("expected a non-negative integer, found ", value->get<int64_t>()));
      return std::nullopt;
    }
    sink_.Report(
        rules::kKeyType, AtPath(path),
        Str("expected an integer, found ", value->type_name(), " ", Quoted(value->dump())));
    return std::nullopt;
  }

  std::optional<std::string> String(std::string_view key) {
    const json* value = Find(key);
    if (value == nullptr) return std::nullopt;
    if (value->is_string()) return value->get<std::string>();
    sink_.Report(rules::kKeyType, AtPath(Join(path_, key)),
                 Str("expected a string, found ", value->type_name()));
    return std::nullopt;
  }

  std::optional<bool> Bool(std::string_view key, bool legacy) {
    const json* value = Find(key, legacy);
    if (value == nullptr) return std::nullopt;
    if (value->is_boolean()) return value->get<bool>();
    sink_.Report(rules::kKeyType, AtPath(Join(path_, key)),
                 Str("expected a boolean, found ", value->type_name()));
    return std::nullopt;
  }

  // An object or array member, type-checked.
  const json* Typed(std::string_view key, json::value_t type) {
    const json* value = Find(key);
    if (value == nullptr) return nullptr;
    if (value->type() == type) return value;
    sink_.Report(rules::kKeyType, AtPath(Join(path_, key)),
                 Str("expected ", type == json::value_t::array ? "an array" : "an object",
                     ", found ", value->type_name()));
    return nullptr;
  }

  // Unknown keys are ignored by upickle: a warning (docs/formats/tensil.md §7 TNS-1).
  void ReportUnknownKeys() {
    for (const auto& [key, value] : object_.items()) {
      if (read_.count(key) == 0) {
        sink_.Report(rules::kUnknownKey, AtPath(Join(path_, key)),
                     Str("unknown key ", Quoted(key), " is ignored by the Tensil tools"));
      }
    }
  }

  const std::vector<std::string>& legacy_missing() const { return legacy_missing_; }
  const std::string& path() const { return path_; }

 private:
  const json& object_;
  std::string path_;
  DiagnosticSink& sink_;
  std::set<std::string> read_;
  std::vector<std::string> legacy_missing_;
};

void ReportLegacy(const std::vector<std::string>& missing, DiagnosticSink& sink) {
  if (missing.empty()) return;
  std::string keys;
  for (const std::string& key : missing) keys += (keys.empty() ? "" : ", ") + key;
  sink.Report(
      rules::kLegacySchema, AtPath(missing.front()),
      Str("legacy schema: ", keys, " missing (written before 2022; current readers reject it)"));
}

std::optional<DataType> DecodeDataType(ObjectReader& reader, DiagnosticSink& sink) {
  const auto name = reader.String("data_type");
  if (!name) return std::nullopt;
  const auto type = DataTypeNamed(*name);
  if (!type) {
    sink.Report(rules::kArchDataType, AtPath(Join(reader.path(), "data_type")),
                Str("data_type ", Quoted(*name),
                    " is not one of FP8BP4, FP16BP8, FP18BP10, FP32BP16, FLOAT32"));
  }
  return type;
}

void CheckThreads(const Architecture& arch, const std::string& path, DiagnosticSink& sink) {
  if (arch.number_of_threads > 2) {
    sink.Report(rules::kArchThreads, AtPath(Join(path, "number_of_threads")),
                Str("number_of_threads is ", arch.number_of_threads, ", expected 1 or 2"));
  }
}

void CheckFloat32(const Architecture& arch, const std::string& path, DiagnosticSink& sink) {
  if (arch.data_type == DataType::kFloat32) {
    sink.Report(rules::kArchFloat32, AtPath(Join(path, "data_type")),
                "FLOAT32 runs only in the emulator: the RTL generator and the drivers reject it");
  }
}

void CheckArraySizeRange(const Architecture& arch, const std::string& path, DiagnosticSink& sink) {
  if (arch.array_size < 2 || arch.array_size > 256) {
    sink.Report(rules::kArchArraySizeRange, AtPath(Join(path, "array_size")),
                Str("array_size is ", arch.array_size, ", documented range 2..256"));
  }
}

// docs architectural-parameters: DRAM 2^1..2^32, local and accumulators
// 2^1..2^16 (non-powers of two are fine: only log2Ceil matters), SIMD
// registers 0..16.
void CheckDepthRanges(const Architecture& arch, const std::string& path, DiagnosticSink& sink) {
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
      sink.Report(rules::kArchDepthRange, AtPath(Join(path, r.key)),
                  Str(r.key, " is ", r.value, ", documented range ", r.low, "..", r.high));
    }
  }
}

bool CheckLayout(const Architecture& arch, const std::string& path, DiagnosticSink& sink) {
  if (LayoutOf(arch)) return true;
  const unsigned tid = Log2Ceil(arch.number_of_threads);
  if (tid + 7 > 8) {
    sink.Report(rules::kArchHeaderWidth, AtPath(Join(path, "number_of_threads")),
                Str("header needs ", tid, " tid + 3 opcode + 4 flag bits = ", tid + 7,
                    " bits, more than the 8-bit header"));
  } else {
    sink.Report(rules::kArchOperandWidth, AtPath(path),
                "the depths and stride depths give an instruction operand wider than 64 bits");
  }
  return false;
}

FileEntry DecodeFileEntry(const json& object, const std::string& path, DiagnosticSink& sink,
                          bool* ok) {
  FileEntry entry;
  if (!object.is_object()) {
    sink.Report(rules::kKeyType, AtPath(path),
                Str("expected an object, found ", object.type_name()));
    *ok = false;
    return entry;
  }
  ObjectReader reader(object, path, sink);
  const auto file = reader.String("file_name");
  const auto base = reader.Integer("base", kMaxLong);
  const auto size = reader.Integer("size", kMaxLong);
  reader.ReportUnknownKeys();
  if (!file || !base || !size) {
    *ok = false;
    return entry;
  }
  return {*file, *base, *size};
}

std::vector<IoEntry> DecodeIoEntries(const json& array, const std::string& path,
                                     DiagnosticSink& sink, bool* ok) {
  std::vector<IoEntry> entries;
  for (size_t i = 0; i < array.size(); ++i) {
    const std::string item = Str(path, "[", i, "]");
    if (!array[i].is_object()) {
      sink.Report(rules::kKeyType, AtPath(item),
                  Str("expected an object, found ", array[i].type_name()));
      *ok = false;
      continue;
    }
    ObjectReader reader(array[i], item, sink);
    const auto name = reader.String("name");
    const auto base = reader.Integer("base", kMaxLong);
    const auto size = reader.Integer("size", kMaxLong);
    reader.ReportUnknownKeys();
    if (!name || !base || !size) {
      *ok = false;
      continue;
    }
    entries.push_back({*name, *base, *size});
  }
  return entries;
}

// TNS-8: one entry of at least one vector, at base 0.
void CheckConsts(const Model& m, DiagnosticSink& sink) {
  if (m.consts.empty()) {
    sink.Report(rules::kModelConstsEmpty, AtPath("consts"),
                "consts has no entry; the emulator reads consts[0]");
    return;
  }
  if (m.consts.size() > 1) {
    sink.Report(rules::kModelConstsCount, AtPath("consts"),
                Str("consts has ", m.consts.size(),
                    " entries; the compiler writes 1 and the emulator reads only the first"));
  }
  for (size_t i = 0; i < m.consts.size(); ++i) {
    const FileEntry& c = m.consts[i];
    const std::string path = Str("consts[", i, "]");
    if (c.size == 0)
      sink.Report(rules::kModelConstsSize, AtPath(path + ".size"), "consts size is 0 vectors");
    if (c.base != 0) {
      sink.Report(rules::kModelConstsBase, AtPath(path + ".base"),
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
      sink.Report(rules::kModelConstsRange, AtPath(Str("consts[", i, "]")),
                  Str("base ", Hex(c.base), " + size ", Hex(c.size), " exceeds ", memory, " depth ",
                      Hex(depth)));
    }
  }
}

// TNS-11, TNS-12 for one list (inputs or outputs).
void CheckIoList(const std::vector<IoEntry>& entries, std::string_view list,
                 const Architecture& arch, DiagnosticSink& sink) {
  if (entries.empty()) {
    sink.Report(rules::kModelIoEmpty, AtPath(std::string(list)), Str(list, " has no entry"));
    return;
  }
  if (entries.size() > 4) {
    sink.Report(rules::kModelIoCount, AtPath(std::string(list)),
                Str(list, " has ", entries.size(), " entries; the C driver accepts at most 4"));
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const IoEntry& e = entries[i];
    const std::string path = Str(list, "[", i, "]");
    if (e.name.empty())
      sink.Report(rules::kModelIoName, AtPath(path + ".name"), "the name is empty");
    if (e.size == 0) sink.Report(rules::kModelIoSize, AtPath(path + ".size"), "size is 0 vectors");
    if (!RangeWithin(e.base, e.size, arch.dram0_depth)) {
      sink.Report(rules::kModelIoRange, AtPath(path),
                  Str("base ", Hex(e.base), " + size ", Hex(e.size), " exceeds DRAM0 depth ",
                      Hex(arch.dram0_depth)));
    }
    if (i > 0 && e.base < entries[i - 1].base) {
      sink.Report(rules::kModelIoOrder, AtPath(path + ".base"),
                  Str("base ", Hex(e.base), " is below the previous entry's ",
                      Hex(entries[i - 1].base), "; the compiler sorts entries by base"));
    }
    for (size_t j = 0; j < i; ++j) {
      const IoEntry& o = entries[j];
      const bool disjoint = e.base >= o.base + std::min(o.size, kMaxLong - o.base) ||
                            o.base >= e.base + std::min(e.size, kMaxLong - e.base);
      if (!disjoint) {
        sink.Report(rules::kModelIoOverlap, AtPath(path),
                    Str("DRAM0 vectors [", Hex(e.base), ", +", Hex(e.size), ") overlap ", list, "[",
                        j, "] [", Hex(o.base), ", +", Hex(o.size), ")"));
      }
    }
  }
}

// TNS-13: the drivers' flush probe overwrites DRAM0 depth-2 and depth-1.
void CheckIoProbeRows(const std::vector<IoEntry>& entries, std::string_view list,
                      const Architecture& arch, DiagnosticSink& sink) {
  if (arch.dram0_depth < 2) return;
  const uint64_t probe = arch.dram0_depth - 2;
  for (size_t i = 0; i < entries.size(); ++i) {
    const IoEntry& e = entries[i];
    const auto end = CheckedAdd(e.base, e.size);
    if (end && *end > probe && e.size > 0) {
      sink.Report(rules::kModelProbeRows, AtPath(Str(list, "[", i, "]")),
                  Str("vectors [", Hex(e.base), ", ", Hex(*end), ") reach DRAM0 ", Hex(probe),
                      ", which the drivers' flush probe overwrites"));
    }
  }
}

int Nesting(ByteView bytes) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (uint8_t c : bytes) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
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

std::optional<json> ParseObject(ByteView bytes, DiagnosticSink& sink) {
  if (Nesting(bytes) > kMaxNesting) {
    sink.Report(rules::kJsonSyntax, {}, Str("JSON nests deeper than ", kMaxNesting, " levels"));
    return std::nullopt;
  }
  json document = json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    sink.Report(rules::kJsonSyntax, {}, "the text is not valid JSON");
    return std::nullopt;
  }
  if (!document.is_object()) {
    sink.Report(rules::kJsonSyntax, {},
                Str("expected a JSON object, found ", document.type_name()));
    return std::nullopt;
  }
  return document;
}

std::optional<Architecture> DecodeArchitecture(const json& object, const std::string& path,
                                               DiagnosticSink& sink) {
  ObjectReader reader(object, path, sink);
  const uint64_t before = sink.blocking_count();
  Architecture arch;
  const auto type = DecodeDataType(reader, sink);
  struct Field {
    std::string_view key;
    uint64_t* target;
    uint64_t max;
    bool legacy;
  };
  const Field fields[] = {
      {"array_size", &arch.array_size, kMaxInt, false},
      {"dram0_depth", &arch.dram0_depth, kMaxLong, false},
      {"dram1_depth", &arch.dram1_depth, kMaxLong, false},
      {"local_depth", &arch.local_depth, kMaxLong, false},
      {"accumulator_depth", &arch.accumulator_depth, kMaxLong, false},
      {"simd_registers_depth", &arch.simd_registers_depth, kMaxInt, false},
      {"stride0_depth", &arch.stride0_depth, kMaxInt, false},
      {"stride1_depth", &arch.stride1_depth, kMaxInt, false},
      {"number_of_threads", &arch.number_of_threads, kMaxInt, true},
      {"thread_queue_depth", &arch.thread_queue_depth, kMaxInt, true},
  };
  for (const Field& f : fields) {
    std::optional<int64_t> negative;
    const auto value = reader.Integer(f.key, f.max, f.legacy, &negative);
    if (negative || (value && *value == 0)) {
      sink.Report(
          rules::kArchPositive, AtPath(Join(path, f.key)),
          Str(f.key, " is ", negative ? *negative : 0, ", expected a value greater than 0"));
    } else if (value) {
      *f.target = *value;
    }
  }
  reader.ReportUnknownKeys();
  ReportLegacy(reader.legacy_missing(), sink);
  if (type) arch.data_type = *type;
  if (sink.blocking_count() != before) return std::nullopt;
  CheckThreads(arch, path, sink);
  CheckFloat32(arch, path, sink);
  CheckArraySizeRange(arch, path, sink);
  CheckDepthRanges(arch, path, sink);
  if (!CheckLayout(arch, path, sink)) return std::nullopt;
  if (sink.blocking_count() != before) return std::nullopt;
  return arch;
}

std::optional<Model> DecodeModel(const json& object, DiagnosticSink& sink) {
  ObjectReader reader(object, "", sink);
  const uint64_t before = sink.blocking_count();
  Model m;
  bool ok = true;
  if (auto name = reader.String("name")) m.name = *name;
  if (const json* prog = reader.Typed("prog", json::value_t::object)) {
    ObjectReader prog_reader(*prog, "prog", sink);
    if (auto file = prog_reader.String("file_name")) m.prog_file = *file;
    m.prog_size = prog_reader.Integer("size", kMaxLong, /*legacy=*/true);
    prog_reader.ReportUnknownKeys();
    ReportLegacy(prog_reader.legacy_missing(), sink);
  }
  if (const json* consts = reader.Typed("consts", json::value_t::array)) {
    for (size_t i = 0; i < consts->size(); ++i) {
      FileEntry entry = DecodeFileEntry((*consts)[i], Str("consts[", i, "]"), sink, &ok);
      if (ok) m.consts.push_back(std::move(entry));
    }
  }
  if (const json* inputs = reader.Typed("inputs", json::value_t::array)) {
    m.inputs = DecodeIoEntries(*inputs, "inputs", sink, &ok);
  }
  if (const json* outputs = reader.Typed("outputs", json::value_t::array)) {
    m.outputs = DecodeIoEntries(*outputs, "outputs", sink, &ok);
  }
  std::optional<Architecture> arch;
  if (const json* a = reader.Typed("arch", json::value_t::object))
    arch = DecodeArchitecture(*a, "arch", sink);
  if (auto local = reader.Bool("load_consts_to_local", /*legacy=*/true))
    m.load_consts_to_local = *local;
  reader.ReportUnknownKeys();
  ReportLegacy(reader.legacy_missing(), sink);
  if (!arch || !ok || sink.blocking_count() != before) return std::nullopt;
  m.arch = *arch;
  CheckConsts(m, sink);
  CheckConstsRange(m, sink);
  CheckIoList(m.inputs, "inputs", m.arch, sink);
  CheckIoList(m.outputs, "outputs", m.arch, sink);
  CheckIoProbeRows(m.inputs, "inputs", m.arch, sink);
  CheckIoProbeRows(m.outputs, "outputs", m.arch, sink);
  return m;
}

void CheckArchitecturesMatch(const Architecture& model, const Architecture& tarch,
                             const std::string& tarch_path, DiagnosticSink& sink) {
  struct Pair {
    std::string_view key;
    uint64_t a, b;
  };
  const Pair pairs[] = {
      {"data_type", static_cast<uint64_t>(model.data_type), static_cast<uint64_t>(tarch.data_type)},
      {"array_size", model.array_size, tarch.array_size},
      {"dram0_depth", model.dram0_depth, tarch.dram0_depth},
      {"dram1_depth", model.dram1_depth, tarch.dram1_depth},
      {"local_depth", model.local_depth, tarch.local_depth},
      {"accumulator_depth", model.accumulator_depth, tarch.accumulator_depth},
      {"simd_registers_depth", model.simd_registers_depth, tarch.simd_registers_depth},
      {"stride0_depth", model.stride0_depth, tarch.stride0_depth},
      {"stride1_depth", model.stride1_depth, tarch.stride1_depth},
      {"number_of_threads", model.number_of_threads, tarch.number_of_threads},
      {"thread_queue_depth", model.thread_queue_depth, tarch.thread_queue_depth},
  };
  for (const Pair& p : pairs) {
    if (p.a == p.b) continue;
    const bool type = p.key == "data_type";
    sink.Report(
        rules::kArchMismatch, AtPath(Join("arch", p.key)),
        Str("arch.", p.key, " is ", type ? std::string(InfoOf(model.data_type).name) : Str(p.a),
            " but ", Quoted(tarch_path), " has ",
            type ? std::string(InfoOf(tarch.data_type).name) : Str(p.b)));
  }
}

}  // namespace accelcheck::tensil
