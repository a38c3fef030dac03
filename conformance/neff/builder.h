// Builds a complete NEFF from a compact description of its graph: the inputs,
// outputs, constants and spill variables, the DMA queue sets, and the DMA
// blocks in the order the engines trigger them. Everything else (neff.json,
// the kelf file, info.json, each subgraph's def.json, engine JSONs and
// programs, tensor maps, activation and DVE tables, debug files) follows the
// real files of docs/formats/neff.md §5, so that a Spec whose descriptors stay
// inside their variables (NEFF-39) and write disjoint bytes per block (NEFF-51)
// gives a NEFF that keeps every invariant NEFF-1 to NEFF-56.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/neff/model.h"

namespace accelcheck::neff::conformance {

// The engines in def.json's order (§2.6, §7.2).
enum class Engine { kPe, kAct, kPool, kDve, kSp };
inline constexpr std::array<Engine, 5> kEngines = {Engine::kPe, Engine::kAct, Engine::kPool,
                                                   Engine::kDve, Engine::kSp};
std::string_view EngineKey(Engine engine);   // "pe", "act", "pool", "dve", "sp"
std::string_view EngineStem(Engine engine);  // "PE", "Activation", "Pool", "DVE", "SP"

// Bytes per element of a dtype name of §2.12; nothing for other names.
std::optional<uint64_t> DtypeSize(std::string_view dtype);

// The state buffer (§2.13): an address is partition * 2^18 + byte.
inline constexpr uint64_t kPartitionStep = uint64_t{1} << 18;
inline constexpr uint64_t kPartitions = 128;
inline constexpr uint64_t SbAddress(uint64_t partition, uint64_t byte) {
  return partition * kPartitionStep + byte;
}
// The bytes of a partition a DMA may touch: 196608 on `sunda`, 229376 on
// `cayman` less the 8 of the evtaccel reservation (NEFF-31, NEFF-39).
uint64_t UsablePartitionBytes(std::string_view target);

// A graph input or output: a variable of its size in every subgraph.
struct Tensor {
  std::string name;
  std::string dtype = "float32";
  std::vector<uint64_t> shape;
  uint64_t Bytes() const;  // the shape's elements times the dtype's size
};

// A `file` variable holding a constant, written as an .npy member of exactly
// the variable's size (NEFF-28), in every subgraph.
struct Constant {
  std::string name;
  std::string dtype = "int8";  // float16, bfloat16, float32, [u]int8/16/32/64
  std::vector<uint64_t> shape;
  std::vector<uint8_t> data;  // the elements, little-endian, C order
};

// A `virtual` variable (a spill), in the first subgraph only.
struct VirtualVar {
  std::string name;
  uint64_t size = 0;
  uint64_t backing_variable_off = 0;
};

// A DMA queue set of the first subgraph; its 16 semaphores are given in
// declaration order from 8 on, so that sets never overlap (NEFF-30).
struct QueueSet {
  std::string name;
  Engine owner = Engine::kSp;
  std::string type = "in";  // "in" for q*IO0, "data" for spills (§2.8)
};

// One side of a descriptor (§2.13).
struct Side {
  std::string var;
  uint64_t off = 0;
  std::vector<uint64_t> sizes;  // sizes[0] in bytes
  std::vector<int64_t> steps;   // in bytes, steps[0] = 1
  std::string dtype = "float32";
};

struct Descriptor {
  std::string op = "copy";  // "" leaves `op` out, as real transposes do (§6)
  Side from;
  Side to;
  std::optional<int> num_tiling_dimensions = 1;
  // A transpose (§2.11, §7.4) when transpose_op is not empty.
  std::string transpose_op;
  std::array<uint64_t, 4> transpose_shape{};
  uint64_t transpose_element_size = 0;
  // A CCE descriptor (§2.11) when from_arr is not empty: its sources, in
  // place of `from`.
  std::vector<Side> from_arr;
  // fma's scale and min/max's constant, written when set, each with its
  // dtype when that is not empty.
  std::optional<double> scale;
  std::string scale_dtype;
  std::optional<double> constant;
  std::string constant_dtype;
};

// A DMA block: its engine is its queue set's owner; its id is the number of
// earlier blocks on that queue (NEFF-47), its semaphore semaphore_set[id % 16]
// (NEFF-49), and its engine's program triggers it in Spec order (NEFF-48).
struct Block {
  std::string queue;
  std::vector<Descriptor> desc;
  std::string comment = "";  // "#comment"; empty: one is made up from the block's place
};

struct Spec {
  std::string name = "file.neff";  // the header's name and info.json's (NEFF-9)
  std::string target = "sunda";    // "sunda" (Trn1) or "cayman" (Trn2)
  uint32_t lnc = 1;                // logical core size: the number of subgraphs (NEFF-11)
  uint64_t neff_version_major = 1;
  uint64_t feature_bits = 0;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;  // at least one (NEFF-25)
  std::vector<Constant> constants;
  std::vector<VirtualVar> virtuals;
  std::vector<QueueSet> queues;
  std::vector<Block> blocks;
  // Activation function sets Activation.json uses, from ActivationCatalogue();
  // their three files join the first subgraph (NEFF-44).
  std::vector<std::string> activation_sets;
  Dialect dialect = Dialect::kUstar;
  // In the pax dialect every member's extended header holds its ctime,
  // atime and mtime: the stamp's mtime with a fraction, as neuronx-cc 2.0
  // writes them (§1.5).
  TarStamp stamp;
  HashOrder hash_order = HashOrder::kWordReversed;
  Compression compression = Compression::kGzip;
  bool directory_entries = false;  // a `sgNN/` entry before each subgraph (GNU tar's example)
  bool neff_json_last = false;     // Trn2's member order (§1.5)
  // The write-up's example's names: engine members pe.json, act.json, ...
  // and kelf-a.json, which readers reach through def.json and neff.json (§6).
  bool writeup_names = false;
};

// Specs with the header, target and member order of real Trn1 files (NEFF
// 1.0, `sunda`, LNC 1, feature bits 0) and Trn2 files (NEFF 2.0, `cayman`,
// LNC 2, feature bits 0xC00, neff.json last).
Spec Trn1Spec();
Spec Trn2Spec();

// The activation function sets act_info.json lists (§2.14).
std::vector<std::string> ActivationCatalogue();

// `rows` rows of `elements` elements from `from` to `to`, a row being
// consecutive bytes of a variable or one partition of the state buffer ("SB",
// the rows in consecutive partitions from the address's). A cast when the
// dtypes differ, a copy otherwise (NEFF-52); both sides move the same
// elements (NEFF-37).
Descriptor MoveRows(const std::string& from, uint64_t from_off, const std::string& from_dtype,
                    const std::string& to, uint64_t to_off, const std::string& to_dtype,
                    uint64_t rows, uint64_t elements);

// An n x n tile of `element_size`-byte elements, row-major at `from_off` of
// `from`, transposed into partitions p .. p + n - 1 of the state buffer at
// `sb_address`, as the real transposes (`transpose_op` WZXY, shape
// [1, 1, n, n], no `op`; §5.2, §7.5).
Descriptor TransposeToSb(const std::string& from, uint64_t from_off, uint64_t sb_address,
                         uint64_t n, const std::string& dtype);

// The NEFF `spec` describes. Throws std::invalid_argument when a block names
// an undeclared queue set, a dtype is not one of §2.12, an activation set is
// not in the catalogue, or a constant's data does not fill its shape.
Neff Build(const Spec& spec);

// The subgraph names of a NEFF of `lnc` subgraphs: "sg00", "sg01", ...
std::string SubgraphName(uint32_t index);

}  // namespace accelcheck::neff::conformance
