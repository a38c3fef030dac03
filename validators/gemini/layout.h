// Byte sizes of tensors as the scheduler lays them out (docs/formats/gemini.md §2.4).
#pragma once

#include <cstdint>
#include <optional>

#include "validators/gemini/model.h"

namespace accelcheck::gemini {

// I-Z1: N * alignup(C, align) * H * W * bitwidth / 8, or nullopt on overflow
// or a layout outside (8, 8) / (4, 16).
std::optional<int64_t> FmapBytes(const Range& r, int64_t align, int64_t bitwidth);
// I-Z2: K * alignup(C, 8) * RS + 32 * K for a weight range [1, K, C, RS].
std::optional<int64_t> WeightBytes(const Range& r);
// I-Z1: bitwidth in {8, 16} and align * bitwidth = 64.
bool ValidLayout(int64_t align, int64_t bitwidth);

}  // namespace accelcheck::gemini
