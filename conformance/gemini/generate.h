// The reference scheduler: writes a valid Gemini scheduler IR, and its
// frontend IR, for a network of 3x3 convolutions, 3x3 max/avg pools,
// residual element-wise adds and a final fully-connected layer, split over a
// mesh of cores. Each layer is cut into one workload per core by output rows,
// each workload into row tiles; a workload reads the whole outputs of the
// neighbours whose rows its receptive field touches (merged tensors,
// docs/formats/gemini.md §2.3). The fully-connected layer is a global average pool
// and a dense layer on core 0, as the real resnet files spell it (§1).
// Each core's L2 tensors are planned over its whole run of snapshots: an
// input merges what every reader on the core needs and lives from its first
// reader through its last with one tensor_id and address (I-B4, I-B8), and
// entering tensors take the lowest gap the live ones leave (I-B2).
// Deterministic per seed; written as text, so it scales to files of
// hundreds of MB without a DOM.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace accelcheck::gemini {

enum class LayerKind : uint8_t {
  kConv,     // 3x3, stride 1, padding 1
  kMaxPool,  // 3x3, stride 1, padding 1
  kAvgPool,  // 3x3, stride 1, padding 1
  kAdd,      // the previous layer plus the input of the previous layer (a residual)
  kFc,       // global average pool, then dense; the last layer only
};

struct GenerateOptions {
  int layers = 3;                // convolutions, when `kinds` is empty
  std::vector<LayerKind> kinds;  // the network, layer by layer
  int64_t batch = 1;
  int64_t channels = 8;  // every layer keeps the channel count
  int64_t height = 16;
  int64_t width = 16;
  int mesh_x = 1;
  int mesh_y = 1;
  int tiles = 2;             // row tiles per workload (fewer when rows run out)
  int64_t buffer = 8 << 20;  // L2 bytes per core
  uint64_t seed = 1;
  bool mixed = false;  // RandomizeOptions also picks the layer kinds
};

// Reads a network description: "conv,conv,pool,conv,add,fc" ("pool" is a max
// pool, "avgpool" an average pool), or a number of convolutions. nullopt
// with `error` set when a kind is unknown or cannot stand where it is (an
// add needs two layers before it; fc ends the network).
std::optional<std::vector<LayerKind>> ParseLayers(std::string_view text, std::string* error);

// Picks the free parameters (channels, sizes, tiles, and with `mixed` the
// layer kinds) from the seed within the bounds `options` gives for them.
GenerateOptions RandomizeOptions(const GenerateOptions& bounds, uint64_t seed);

// Writes both documents; nullopt on success, else why the options cannot be
// scheduled (for example a snapshot larger than the buffer).
std::optional<std::string> GenerateIr(const GenerateOptions& options, std::ostream& ir,
                                      std::ostream& frontend);

// The name of the network's layer `layer` when it is a convolution.
std::string ConvolutionName(int layer);

// Writes the frontend IR alone of the network `options` describes: the one
// GenerateIr writes, which the SET dialect's writer pairs with its IR.
void GenerateFrontend(const GenerateOptions& options, std::ostream& frontend);

}  // namespace accelcheck::gemini
