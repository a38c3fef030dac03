// The decoded Gemini scheduler IR: compact typed tables, one struct per JSON
// object kind of docs/formats/gemini.md §2. Strings that repeat (layer names) are
// interned; every object keeps the byte offset of its '{' for diagnostics.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace accelcheck::gemini {

constexpr uint32_t kNoLayer = UINT32_MAX;

// An inclusive NCHW box [lo, hi] (docs/formats/gemini.md §2.3 says which frame).
struct Range {
  std::array<int64_t, 4> lo{};
  std::array<int64_t, 4> hi{};
};

// The name of interned layer `layer`, or "" (kNoLayer, or out of range).
const std::string& LayerNameIn(const std::vector<std::string>& layers, uint32_t layer);

enum class EntryType : uint8_t { kIfmap, kOfmap, kWeight };
enum class SourceType : uint8_t { kDram, kCore };
enum class Wl0Source : uint8_t { kDdr, kCore };
enum class DestinationType : uint8_t { kCore, kDram };
enum class OutType : uint8_t { kWeight, kFmap };
enum class LayerType : uint8_t { kPe, kVp, kDt };

// buffer[].source[] (§2.2 key set 4).
struct Source {
  int64_t core_id = 0;
  uint32_t layer = kNoLayer;
  Range range;
  int64_t size = 0;
  int64_t transfer_id = 0;
  SourceType type = SourceType::kDram;
  uint64_t offset = 0;
};

// buffer[] (§2.2 key sets 1-3).
struct BufferEntry {
  int64_t address = 0;
  int64_t align = 0;
  int64_t bitwidth = 0;
  int64_t size = 0;
  int64_t tensor_id = 0;
  std::optional<int64_t> tensor_order;
  Range range;
  EntryType type = EntryType::kIfmap;
  uint32_t layer = kNoLayer;
  std::optional<bool> newly_added;
  std::optional<bool> start_send;
  bool cur_wl_ifmap = false;
  bool has_sources = false;
  std::vector<int64_t> transfer_ids;
  std::vector<Source> sources;
  uint64_t offset = 0;
};

// wl0_buffer[] / wl1_buffer[].
struct Wl0Entry {
  int64_t address = 0;
  int64_t align = 0;
  int64_t bitwidth = 0;
  int64_t size = 0;
  uint32_t layer = kNoLayer;
  std::optional<Range> range;
  Wl0Source source = Wl0Source::kCore;
  std::optional<int64_t> tensor_order;
  std::vector<int64_t> transfer_ids;
  uint64_t offset = 0;
};

// tile_info.tile_num_k.
struct Tile {
  Range ifmap;
  Range ofmap;
  std::optional<Range> ifmap2;  // element-wise second operand
  double time_pred = 0;
  std::array<int64_t, 4> padding{};  // top, bottom, left, right
  bool has_pe_fields = false;
  std::array<int64_t, 4> act_mini_tile{};
  std::array<int64_t, 4> out_mini_tile{};
  int64_t ci_cut_num = 1;
  std::string loop_order;
  uint64_t offset = 0;
};

struct Ifmap {
  int64_t align = 0;
  int64_t bitwidth = 0;
  Range range;
  int64_t size = 0;
  std::vector<int64_t> transfer_ids;
  uint64_t offset = 0;
};

struct Destination {
  int64_t core_id = 0;
  DestinationType type = DestinationType::kCore;
  int64_t workload_id = 0;
  uint32_t layer = kNoLayer;
};

struct Ofmap {
  Range range;
  int64_t size = 0;
  int64_t transfer_id = 0;
  std::vector<Destination> destinations;
  uint64_t offset = 0;
};

struct Weight {
  Range range;
  int64_t size = 0;
  std::vector<int64_t> transfer_ids;
  uint64_t offset = 0;
};

struct Workload {
  int64_t id = 0;
  uint32_t layer = kNoLayer;
  LayerType type = LayerType::kPe;
  Range range;
  int64_t ofmap_size = 0;
  int64_t time = 0;
  std::vector<Tile> tiles;
  std::array<int64_t, 4> padding{};
  std::vector<std::pair<int64_t, int64_t>> rings;
  std::vector<Ifmap> ifmaps;
  std::vector<Ofmap> ofmaps;
  std::vector<BufferEntry> buffer;
  std::optional<Weight> weight;
  std::vector<Wl0Entry> wl0;
  bool wl1_key = false;  // the snapshot came under "wl1_buffer"
  uint64_t offset = 0;
};

struct Core {
  int64_t id = 0;
  std::vector<Workload> workloads;
  uint64_t offset = 0;
};

// -1.in[]: data written into DRAM.
struct DramIn {
  int64_t core_id = 0;
  int64_t workload_id = 0;
  uint32_t layer = kNoLayer;
  Range range;
  int64_t transfer_id = 0;
  std::vector<int64_t> related_ofmap;
  uint64_t offset = 0;
};

// -1.out[]: data read out of DRAM.
struct DramOut {
  int64_t transfer_id = 0;
  OutType type = OutType::kWeight;
  Range range;
  int64_t size = 0;
  std::vector<int64_t> related_ifmap;
  std::vector<Destination> destinations;
  uint64_t offset = 0;
};

struct Ir {
  int64_t buffersize = 0;
  int64_t top_batch_cut = 0;
  int64_t xlen = 0;
  int64_t ylen = 0;
  std::vector<Core> cores;  // sorted by id
  std::vector<DramIn> dram_in;
  std::vector<DramOut> dram_out;
  uint64_t dram_offset = 0;
  std::vector<std::string> layers;  // interned layer names

  const std::string& LayerName(uint32_t layer) const { return LayerNameIn(layers, layer); }
};

// Interns layer names while decoding.
class LayerTable {
 public:
  explicit LayerTable(std::vector<std::string>* names) : names_(names) {}
  uint32_t Intern(std::string_view name);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string>* names_;
  uint32_t last_ = kNoLayer;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index_;
};

// Range helpers shared by the passes and the executors.
int64_t Extent(const Range& r, int d);
// The number of elements, or nullopt when it overflows.
std::optional<int64_t> Volume(const Range& r);
// a + b, saturating: sums of volumes stay comparable when they cannot fit.
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}
bool Contains(const Range& outer, const Range& inner);
bool Intersects(const Range& a, const Range& b);
std::optional<Range> Intersect(const Range& a, const Range& b);
bool SameExtents(const Range& a, const Range& b);
std::string RangeText(const Range& r);  // "[0,0,0,0]..[0,63,111,111]"

// JSON pointer of a workload and of the DRAM lists.
std::string WorkloadPath(const Core& core, size_t index);
std::string DramInPath(size_t index);
std::string DramOutPath(size_t index);

}  // namespace accelcheck::gemini
