// The functional executor of spec/gemini.md §6.2: every tile is computed only
// from the pieces the IR declares (a missing piece reads a poison value), and
// each workload's output is compared with the untiled network run on the same
// seeded inputs and weights. It takes a decoded IR that validated.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "validators/gemini/frontend.h"
#include "validators/gemini/model.h"

namespace accelcheck::gemini {

struct ExecuteOptions {
  uint64_t seed = 1;
};

struct Mismatch {
  int64_t core_id = 0;
  int64_t workload_id = 0;
  int64_t tile = -1;  // the tile covering the element, or -1 when none does
  std::string layer;
  std::array<int64_t, 4> at{};  // absolute NCHW in the layer's output
  int32_t expected = 0;
  int32_t actual = 0;  // kPoison when the tile read an undeclared piece
};

struct Execution {
  uint64_t workloads = 0;
  uint64_t elements = 0;  // output elements compared
  std::optional<Mismatch> first_mismatch;
  // Layers the executor does not model (their workloads are not compared).
  std::vector<std::string> skipped_layers;
};

constexpr int32_t kPoison = INT16_MIN;

Execution Execute(const Ir& ir, const Frontend& frontend, const ExecuteOptions& options);

}  // namespace accelcheck::gemini
