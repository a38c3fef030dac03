// The JSON members of a NEFF (docs/formats/neff.md §2), decoded with the
// project's pull reader into typed tables that keep each object's byte
// offset in its member. The engine JSONs, which hold nearly all of a large
// NEFF's JSON, are handed over one DMA block at a time and never held whole.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"

namespace accelcheck::neff {

// A value read from a document with the offset where it starts.
template <typename T>
struct Located {
  T value = {};
  uint64_t offset = 0;
};

// A member name another member gives (NEFF-54), with its JSON pointer.
struct Reference {
  std::string name = {};
  std::string pointer = {};
  uint64_t offset = 0;
};

// --- neff.json (§2.3) ---

struct GraphNode {
  std::string op = {};
  std::string name = {};
  uint64_t input_count = 0;
  std::vector<std::array<int64_t, 2>> inputs = {};  // [node, output] of each input
  std::vector<std::string> output_names = {};
  std::map<std::string, std::string, std::less<>> attrs = {};  // the string-valued ones
  uint64_t offset = 0;
};

struct SignatureInput {
  std::string name = {};
  std::optional<int64_t> id = {};
  std::string dtype = {};
  std::vector<int64_t> shape = {};
  uint64_t offset = 0;
};

struct Graph {
  std::vector<GraphNode> nodes = {};
  std::vector<int64_t> arg_nodes = {};
  std::vector<std::vector<int64_t>> heads = {};
  std::vector<int64_t> node_row_ptr = {};
  // attrs: shape, storage_id and dltype, each ["list_<kind>", [...]].
  std::optional<std::vector<std::vector<int64_t>>> shapes = {};
  std::optional<uint64_t> storage_id_count = {};
  std::optional<std::vector<std::string>> dltypes = {};
  std::optional<std::vector<SignatureInput>> signature_inputs = {};
  uint64_t attrs_offset = 0;
  uint64_t signature_offset = 0;
};

// --- kelf (§2.4) and info.json (§2.5) ---

struct KelfGraph {
  std::string name = {};
  std::string definition = {};
  uint64_t offset = 0;
};

struct Kelf {
  std::vector<KelfGraph> graphs = {};
  std::string target = {};
  uint64_t target_offset = 0;
};

struct Info {
  std::optional<Located<std::string>> name = {};
  std::optional<Located<int64_t>> num_tpb = {};
  std::optional<Located<int64_t>> num_tpb_requested = {};
  std::optional<Located<std::vector<int64_t>>> num_tpb_per_node = {};
};

struct TensorMapEntry {
  std::string dtype = {};
  std::string kind = {};
  std::optional<std::vector<int64_t>> tf_shape = {};
  uint64_t offset = 0;
};
using TensorMap = std::map<std::string, TensorMapEntry, std::less<>>;

// act_info.json's catalogue (§2.14): a set's name and its three files.
struct ActivationSet {
  std::string name = {};
  std::vector<Reference> files = {};  // bkt_bin, ctrl_bin, profile_json
};
using ActivationCatalogue = std::vector<ActivationSet>;

// --- def.json (§2.6 to §2.9) ---

enum class Engine : uint8_t { kPe, kAct, kPool, kDve, kSp };
inline constexpr std::array<std::string_view, 5> kEngineKeys = {"pe", "act", "pool", "dve", "sp"};
inline constexpr size_t kEngineCount = kEngineKeys.size();

enum class VarType : uint8_t {
  kStateBuffer,
  kInput,
  kOutput,
  kFile,
  kTmpBuf,
  kVirtual,
  kPointer,
  kDgeTable,
  kUnknown
};
std::string_view VarTypeName(VarType type);

struct Variable {
  std::string name = {};
  VarType type = VarType::kUnknown;
  std::string type_text = {};
  std::optional<int64_t> var_id = {};
  std::optional<Located<int64_t>> size = {};
  std::optional<Located<int64_t>> alignment = {};
  std::optional<Located<std::string>> fabric_path = {};
  std::optional<Located<std::string>> file_name = {};
  std::optional<Located<int64_t>> backing_variable_off = {};
  std::optional<Located<int64_t>> referenced_var_id = {};
  std::optional<Located<std::vector<int64_t>>> list = {};
  uint64_t offset = 0;
};

struct QueueSet {
  std::string name = {};
  std::optional<Located<std::string>> type = {};
  std::optional<Located<int64_t>> num_queues = {};
  std::optional<Located<std::string>> owner = {};
  std::optional<Located<std::vector<int64_t>>> semaphore_set = {};
  std::optional<Located<std::string>> fabric_path = {};
  uint64_t offset = 0;

  uint64_t queue_count() const { return num_queues ? static_cast<uint64_t>(num_queues->value) : 1; }
};

struct Reservation {
  std::string type = {};
  std::optional<int64_t> base_partition = {}, partitions = {}, offset = {}, size = {};
  uint64_t at = 0;
};

// A hash of names that finds a std::string_view without making a string.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view name) const { return std::hash<std::string_view>()(name); }
};
// Names to their place in a list, looked up by every descriptor.
using NameIndex = std::unordered_map<std::string, size_t, NameHash, std::equal_to<>>;

struct Definition {
  std::array<std::optional<Located<std::string>>, kEngineCount> engine_json = {};
  std::array<std::optional<Located<std::string>>, kEngineCount> engine_program = {};
  std::vector<Reference> references = {};  // every member name it gives (NEFF-54)
  std::vector<Variable> vars = {};
  NameIndex var_index = {};
  std::vector<QueueSet> queues = {};
  NameIndex queue_index = {};
  std::vector<Reservation> reservations = {};
  std::optional<Located<std::vector<std::string>>> features = {};

  const Variable* FindVar(std::string_view name) const {
    const auto it = var_index.find(name);
    return it == var_index.end() ? nullptr : &vars[it->second];
  }
  const QueueSet* FindQueue(std::string_view name) const {
    const auto it = queue_index.find(name);
    return it == queue_index.end() ? nullptr : &queues[it->second];
  }
};

// --- engine JSON (§2.10, §2.11) ---

// A side has 1 to 4 dimensions (NEFF-36).
inline constexpr size_t kMaxDimensions = 4;

// A side's sizes or steps (§2.13), held inline so that a descriptor costs
// no allocation: a list longer than four keeps its length, which NEFF-36
// reports, and its first four entries.
class Dims {
 public:
  void push_back(int64_t value) {
    if (count_ < kMaxDimensions) values_[count_] = value;
    ++count_;
  }
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  int64_t operator[](size_t k) const { return values_[k]; }  // k < kMaxDimensions
  // The entries kept: all of them when size() <= kMaxDimensions.
  std::span<const int64_t> kept() const {
    return {values_.data(), std::min(count_, kMaxDimensions)};
  }

 private:
  std::array<int64_t, kMaxDimensions> values_{};
  size_t count_ = 0;
};

// One side of a descriptor (§2.13): a variable, an offset and 1 to 4
// (size, step) pairs, dimension 0 innermost in bytes.
struct Side {
  std::optional<std::string> var = {};
  std::optional<int64_t> off = {};
  std::optional<Dims> sizes = {};
  std::optional<Dims> steps = {};
  std::optional<std::string> dtype = {};

  // The element type; a side without one moves bytes (§2.12).
  std::string_view Dtype() const { return dtype ? std::string_view(*dtype) : "uint8"; }
};

struct Descriptor {
  std::optional<std::string> op = {};
  Side from = {};
  Side to = {};
  std::optional<std::vector<Side>> from_arr = {};  // CCE sources
  std::optional<int64_t> num_tiling_dimensions = {};
  // The fma and min/max fields (§2.11): present when the key is, the value
  // kept when it has the documented type.
  bool has_scale = false, has_scale_dtype = false;
  bool has_constant = false, has_constant_dtype = false;
  std::optional<double> scale = {};
  std::optional<std::string> scale_dtype = {};
  std::optional<double> constant = {};
  std::optional<std::string> constant_dtype = {};
  std::optional<std::string> transpose_op = {};
  std::optional<std::vector<int64_t>> transpose_shape = {};
  std::optional<int64_t> transpose_element_size = {};
  uint64_t offset = 0;

  // An op-less descriptor with transpose fields is a transpose (§6).
  bool IsTranspose() const {
    return op ? *op == "transpose" : transpose_op.has_value() || transpose_shape.has_value();
  }
  // A view of `op` itself or of a literal, never of a temporary string.
  std::string_view Op() const {
    if (IsTranspose()) return "transpose";
    return op ? std::string_view(*op) : "copy";
  }
};

struct Block {
  std::optional<int64_t> id = {};
  std::optional<std::string> queue = {};
  std::optional<std::string> instance_name = {};
  std::optional<int64_t> semaphore = {};
  std::vector<Descriptor> desc = {};
  bool has_desc = false;
  uint64_t offset = 0;
};

struct EngineDocument {
  std::optional<Located<std::string>> instr = {};
  std::optional<Located<std::string>> name = {};
  std::optional<Located<std::string>> act_info = {};
  std::optional<Located<std::vector<std::string>>> activation_sets = {};
  std::vector<Reference> dve_tables = {};
  bool has_dma = false;
  uint64_t block_count = 0;
};

// --- decoders ---
// Each reports to `sink` (a sink of the member's own) under the neff.json.*
// rules and returns the document, or nothing when the text does not decode
// (a syntax error, or a root of the wrong kind).

// NEFF-20: the first byte that is not valid UTF-8, or nothing.
std::optional<uint64_t> InvalidUtf8At(ByteView text);

std::optional<Graph> DecodeGraph(ByteView text, const Limits& limits, DiagnosticSink& sink);
std::optional<Kelf> DecodeKelf(ByteView text, const Limits& limits, DiagnosticSink& sink);
std::optional<Info> DecodeInfo(ByteView text, const Limits& limits, DiagnosticSink& sink);
std::optional<TensorMap> DecodeTensorMap(ByteView text, const Limits& limits, DiagnosticSink& sink);
std::optional<ActivationCatalogue> DecodeActivationCatalogue(ByteView text, const Limits& limits,
                                                             DiagnosticSink& sink);
std::optional<Definition> DecodeDefinition(ByteView text, const Limits& limits,
                                           DiagnosticSink& sink);
// Hands each block to `on_block` with its index as soon as it is read.
using BlockVisitor = std::function<void(uint64_t index, const Block& block)>;
std::optional<EngineDocument> DecodeEngine(ByteView text, const Limits& limits,
                                           DiagnosticSink& sink, const BlockVisitor& on_block);

// A JSON validation that only checks the text (any other .json member).
void CheckJsonText(ByteView text, const Limits& limits, DiagnosticSink& sink);

}  // namespace accelcheck::neff
