// The functional executor of docs/formats/gemini.md §6.2: every tile is computed only
// from the pieces the IR declares (a missing piece reads a poison value), and
// each workload's output is compared with the untiled network run on the same
// seeded inputs and weights. It takes a decoded IR that validated.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reference_exec/run_control.h"
#include "validators/gemini/frontend.h"
#include "validators/gemini/model.h"

namespace accelcheck::gemini {

// Every compared element in both modes, workload by workload in the order
// they run, each workload's output in NCHW order: what the golden runner
// compares as two modes of the executor (golden/README.md "gemini").
struct ModeValues {
  std::vector<int16_t> tiled;    // computed from the declared pieces
  std::vector<int16_t> untiled;  // the untiled network at the same elements
};

struct ExecuteOptions {
  uint64_t seed = 1;
  // Keep every L2 tensor at its address in a byte array per core (l2.h),
  // so that overlapping live tensors corrupt each other.
  bool l2_addressed = false;
  // The most L2 bytes (cores x buffersize) the byte-addressed model holds.
  uint64_t max_l2_bytes = uint64_t{1} << 28;
  // When set, receives every compared element, past the first mismatch too.
  ModeValues* record = nullptr;
};

struct Mismatch {
  int64_t core_id = 0;
  int64_t workload_id = 0;
  int64_t tile = -1;  // the tile covering the element, or -1 when none does
  std::string layer;
  std::array<int64_t, 4> at{};  // absolute NCHW in the layer's output
  int32_t expected = 0;
  int32_t actual = 0;  // kPoison when the tile read an undeclared piece
  // With l2_addressed: where the element lies in its core's L2, when it does.
  std::optional<int64_t> l2_address;
  // With l2_addressed: the workload's weight bytes changed while live; `at`
  // is then [0, 0, 0, byte offset in the weight] and the values are bytes.
  bool weight = false;
};

struct Execution {
  uint64_t workloads = 0;
  uint64_t elements = 0;  // output elements compared
  std::optional<Mismatch> first_mismatch;
  // Layers the executor does not model (their workloads are not compared).
  std::vector<std::string> skipped_layers;
  // Set when the byte-addressed L2 would exceed max_l2_bytes; nothing ran.
  std::optional<std::string> limit;
  // The run's deadline expired: it stopped part way, and nothing it found
  // (a mismatch included) is a verdict.
  bool out_of_time = false;
};

constexpr int32_t kPoison = INT16_MIN;

// Checks `control`'s deadline after every layer of the untiled run and every
// workload, and reports those done as it goes.
Execution Execute(const Ir& ir, const Frontend& frontend, const ExecuteOptions& options,
                  const RunControl& control = {});

}  // namespace accelcheck::gemini
