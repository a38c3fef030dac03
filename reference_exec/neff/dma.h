// The DMA-level reference executor of a NEFF (docs/formats/neff.md §7): the
// compute instructions are not public, so it runs what is, the DMA blocks
// in the order the engine programs trigger them, over byte buffers for the
// variables and the state buffer's partitions: copies, casts, transposes and
// the add, fma, min and max of one or several sources (§7.4). Every access
// is checked against its variable and the runtime's reservations as it
// happens.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/format.h"
#include "validators/core/limits.h"
#include "validators/neff/documents.h"
#include "validators/neff/validate.h"

namespace accelcheck::neff::exec {

// A variable as the run needs it (§7.1).
struct Buffer {
  std::string name;
  VarType type = VarType::kUnknown;
  uint64_t size = 0;
  uint64_t backing_offset = 0;    // virtual variables: into the shared scratchpad
  std::vector<uint8_t> constant;  // file variables: the .npy data or the raw member
  std::string dtype = "uint8";    // from the subgraph's tensor_map.json, when it has one
  std::vector<uint64_t> shape;    // likewise; {size} without one
};

// One engine's work: its blocks by (queue, id) and the triggers of its
// program in order.
struct EngineWork {
  std::string key;  // "sp"
  std::map<std::pair<std::string, int64_t>, Block> blocks;
  std::vector<std::pair<std::string, int64_t>> triggers;
};

// A validated NEFF's moving subgraph, decoded for the run.
struct Loaded {
  std::string subgraph;
  std::vector<Buffer> buffers;  // by def.json order
  std::vector<Reservation> reservations;
  StateBuffer state_buffer;
  std::vector<EngineWork> engines;  // in the run's order: pe, act, pool, dve, sp (§7.2)
  // Most bytes one side of a descriptor visits: --max-tensor-bytes. A side
  // may visit the same bytes again (a step of 0), so its variable does not
  // bound what the run holds of a source side.
  uint64_t max_side_bytes = 0;

  const Buffer* Find(std::string_view name) const;
  std::vector<const Buffer*> OfType(VarType type) const;
};

// Why the executor refused a file: what it does not model, a limit
// (--max-tensor-bytes, or the run's deadline), an access outside a
// variable, which a file that validates never makes (NEFF-39), or an access
// into a reservation, which such a file makes only with NEFF-31's warning.
enum class Refusal { kUnsupported, kLimit, kOutside, kReservation };

// Loads the run of `input`, which validates; nothing, with `error` (and
// `refusal` when given), when the executor cannot run it (more than one
// subgraph with DMA blocks, a repeated (queue, id) pair) or its variables
// and scratchpad would hold more than context.limits.max_tensor_bytes.
std::optional<Loaded> Load(const InputBuffer& input, const ValidateContext& context,
                           std::string* error, Refusal* refusal = nullptr);

struct Result {
  std::map<std::string, std::vector<uint8_t>> outputs;  // every output variable's bytes
  std::map<std::string, uint64_t> unwritten;            // per output, bytes no DMA wrote
  // Bytes one engine wrote that another engine read or wrote: their value
  // depends on the order of engines, which the sources do not give (§7.2).
  uint64_t order_dependent = 0;
  uint64_t blocks = 0;
  uint64_t descriptors = 0;
  // With RunOptions::keep_state_buffer: its bytes after the run, partition
  // after partition, each of StateBuffer::partition_bytes (§7.1).
  std::vector<uint8_t> state_buffer;
};

struct RunOptions {
  bool keep_state_buffer = false;
  Deadline deadline{0};  // checked between descriptors; no limit by default
};

// Runs the loaded NEFF on `inputs` (each input variable's bytes, exactly
// its size); nothing, with `error` naming the engine, block and descriptor,
// when an access leaves its variable or touches a reservation, a side
// visits more than Loaded::max_side_bytes, the deadline passes, or the run
// needs what the executor does not model (§7.4).
std::optional<Result> Run(const Loaded& loaded,
                          const std::map<std::string, std::vector<uint8_t>>& inputs,
                          std::string* error, RunOptions options = {}, Refusal* refusal = nullptr);

}  // namespace accelcheck::neff::exec
