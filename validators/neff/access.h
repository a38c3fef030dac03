// DMA access patterns (docs/formats/neff.md §2.13): an offset and 1 to 4
// (size, step) pairs, dimension 0 innermost and counted in bytes. What the
// validator's bounds and overlap checks and the DMA executor share.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "validators/neff/validate.h"

namespace accelcheck::neff {

// A side of a descriptor as checked: a view of its 1 to 4 sizes and steps
// and its dtype, valid while the descriptor is.
struct Pattern {
  int64_t off = 0;
  std::span<const int64_t> sizes;  // all at least 1
  std::span<const int64_t> steps;
  std::string_view dtype;
  std::optional<uint64_t> elements = {};  // sizes[0] / dtype size * sizes[1] * ...
};

// The elements a pattern of `sizes` visits with `element` bytes each, or
// nothing past 2^64.
std::optional<uint64_t> ElementCount(std::span<const int64_t> sizes, uint64_t element);

// Where an access reaches: empty `problem` when inside. For the state
// buffer the partitions and in-partition bytes it spans (§2.13).
struct AccessCheck {
  std::string problem;
  int64_t first_partition = 0, last_partition = 0;
  int64_t first_byte = 0, last_byte = 0;

  // True when the access may touch bytes [offset, offset + size) of
  // partitions [base, base + count): their extents overlap.
  bool Touches(int64_t base, int64_t count, int64_t offset, int64_t size) const;
};

// NEFF-39 for a variable of `size` bytes.
AccessCheck CheckVariableAccess(const Pattern& p, int64_t size);
// NEFF-39 for the state buffer: a step that is a multiple of 2^18 moves
// across partitions (2^24 is 64 partitions), a smaller one within a partition.
AccessCheck CheckStateBufferAccess(const Pattern& p, const StateBuffer& sb);

// Calls `row(begin, end)` for each row of the pattern (the bytes one run of
// dimension 0 spans, [begin, end)), last dimension slowest, unless there
// are more than `max_rows` rows or a step is negative: then false, and no
// row is visited.
bool ForEachRow(const Pattern& p, uint64_t max_rows,
                const std::function<void(uint64_t begin, uint64_t end)>& row);

}  // namespace accelcheck::neff
