#include "validators/neff/access.h"

#include <array>

#include "validators/core/checked.h"
#include "validators/core/text.h"

namespace accelcheck::neff {

namespace {

// Sums of four products of 60-bit values.
__extension__ typedef __int128 Wide;

// Sizes and steps beyond this reach past any variable; bounding them keeps
// every sum below in range.
constexpr int64_t kMaxMagnitude = int64_t{1} << 60;

bool Huge(int64_t v) { return v >= kMaxMagnitude || v <= -kMaxMagnitude; }

// The lowest and highest offset relative to the start that dimensions
// `sizes`/`steps` reach.
struct Extent {
  Wide low = 0, high = 0;
  void Add(int64_t size, int64_t step) {
    const Wide reach = static_cast<Wide>(size - 1) * step;
    (reach < 0 ? low : high) += reach;
  }
};

std::string Decimal(Wide v) { return std::to_string(static_cast<long long>(v)); }

}  // namespace

std::optional<uint64_t> ElementCount(std::span<const int64_t> sizes, uint64_t element) {
  if (sizes.empty() || element == 0) return std::nullopt;
  uint64_t count = static_cast<uint64_t>(sizes[0]) / element;
  for (size_t k = 1; k < sizes.size(); ++k) {
    const auto next = CheckedMul(count, static_cast<uint64_t>(sizes[k]));
    if (!next) return std::nullopt;
    count = *next;
  }
  return count;
}

bool AccessCheck::Touches(int64_t base, int64_t count, int64_t offset, int64_t size) const {
  return first_partition < base + count && base <= last_partition && first_byte < offset + size &&
         offset <= last_byte;
}

AccessCheck CheckVariableAccess(const Pattern& p, int64_t size) {
  AccessCheck check;
  Extent extent;
  for (size_t k = 0; k < p.sizes.size(); ++k) {
    if (Huge(p.sizes[k]) || Huge(p.steps[k])) {
      check.problem = Str("dimension ", k, " (size ", p.sizes[k], ", step ", p.steps[k],
                          ") reaches past any variable");
      return check;
    }
    extent.Add(p.sizes[k], p.steps[k]);
  }
  const Wide low = p.off + extent.low, high = p.off + extent.high;
  if (low < 0 || high >= size) {
    check.problem = Str("the access reaches bytes ", Decimal(low), " to ", Decimal(high),
                        " of a variable of ", size, " bytes");
  }
  check.first_byte = static_cast<int64_t>(low);
  check.last_byte = static_cast<int64_t>(high);
  return check;
}

AccessCheck CheckStateBufferAccess(const Pattern& p, const StateBuffer& sb) {
  AccessCheck check;
  if (p.off < 0) {
    check.problem = Str("the offset ", p.off, " is negative");
    return check;
  }
  constexpr int64_t kPartitionStep = int64_t{1} << kPartitionShift;
  Extent partitions, bytes;
  for (size_t k = 0; k < p.sizes.size(); ++k) {
    const int64_t size = p.sizes[k], step = p.steps[k];
    if (Huge(size) || Huge(step)) {
      check.problem =
          Str("dimension ", k, " (size ", size, ", step ", step, ") reaches past the state buffer");
      return check;
    }
    if (size == 1 || step == 0) continue;
    // A multiple of 2^18 moves whole partitions: 2^24 is 64 of them, how a
    // transposing descriptor puts its second tile under its first (§2.13).
    if (step % kPartitionStep == 0) {
      partitions.Add(size, step / kPartitionStep);
    } else if (step < kPartitionStep && step > -kPartitionStep) {
      bytes.Add(size, step);
    } else {
      check.problem = Str("step ", step, " of dimension ", k,
                          " is neither below 2^18 nor a whole number of partitions");
      return check;
    }
  }
  const Wide partition = p.off >> kPartitionShift, byte = p.off & (kPartitionStep - 1);
  const Wide first_partition = partition + partitions.low,
             last_partition = partition + partitions.high;
  const Wide first_byte = byte + bytes.low, last_byte = byte + bytes.high;
  check.first_partition = static_cast<int64_t>(first_partition);
  check.last_partition = static_cast<int64_t>(last_partition);
  check.first_byte = static_cast<int64_t>(first_byte);
  check.last_byte = static_cast<int64_t>(last_byte);
  if (first_partition < 0 || last_partition >= static_cast<Wide>(sb.partitions)) {
    check.problem = Str("the access spans partitions ", Decimal(first_partition), " to ",
                        Decimal(last_partition), " of ", sb.partitions);
  } else if (first_byte < 0 || last_byte >= static_cast<Wide>(sb.partition_bytes)) {
    check.problem = Str("the access reaches bytes ", Decimal(first_byte), " to ",
                        Decimal(last_byte), " of partitions of ", sb.partition_bytes, " bytes");
  }
  return check;
}

bool ForEachRow(const Pattern& p, uint64_t max_rows,
                const std::function<void(uint64_t begin, uint64_t end)>& row) {
  uint64_t rows = 1;
  for (size_t k = 0; k < p.sizes.size(); ++k) {
    if (p.steps[k] < 0) return false;
    if (k > 0) {
      const auto next = CheckedMul(rows, static_cast<uint64_t>(p.sizes[k]));
      if (!next || *next > max_rows) return false;
      rows = *next;
    }
  }
  const auto row_bytes = static_cast<uint64_t>((p.sizes[0] - 1) * p.steps[0] + 1);
  std::array<int64_t, kMaxDimensions> index{};
  for (uint64_t r = 0; r < rows; ++r) {
    int64_t begin = p.off;
    for (size_t k = 1; k < p.sizes.size(); ++k) begin += index[k] * p.steps[k];
    row(static_cast<uint64_t>(begin), static_cast<uint64_t>(begin) + row_bytes);
    for (size_t k = 1; k < p.sizes.size() && ++index[k] == p.sizes[k]; ++k) index[k] = 0;
  }
  return true;
}

}  // namespace accelcheck::neff
