// The reference scheduler: writes a valid Gemini scheduler IR, and its
// frontend IR, for a chain of 3x3 convolutions split over a mesh of cores.
// Each layer is cut into one workload per core by output rows, each workload
// into row tiles; a workload reads the whole outputs of the neighbours whose
// rows its receptive field touches (merged tensors, spec/gemini.md §2.3).
// Deterministic per seed; written as text, so it scales to files of
// hundreds of MB without a DOM.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace accelcheck::gemini {

struct GenerateOptions {
  int layers = 3;
  int64_t batch = 1;
  int64_t channels = 8;  // every layer keeps the channel count
  int64_t height = 16;
  int64_t width = 16;
  int mesh_x = 1;
  int mesh_y = 1;
  int tiles = 2;           // row tiles per workload (fewer when rows run out)
  int64_t buffer = 8 << 20;  // L2 bytes per core
  uint64_t seed = 1;
};

// Picks the free parameters (channels, sizes, tiles) from the seed within
// the bounds `options` gives for them.
GenerateOptions RandomizeOptions(const GenerateOptions& bounds, uint64_t seed);

// Writes both documents; nullopt on success, else why the options cannot be
// scheduled (for example a snapshot larger than the buffer).
std::optional<std::string> GenerateIr(const GenerateOptions& options, std::ostream& ir, std::ostream& frontend);

}  // namespace accelcheck::gemini
