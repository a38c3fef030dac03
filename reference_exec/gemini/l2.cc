#include "reference_exec/gemini/l2.h"

#include "reference_exec/gemini/execute.h"
#include "validators/core/checked.h"
#include "validators/gemini/layout.h"

namespace accelcheck::gemini {

namespace {

// Offsets stay far from int64 overflow when added to an address.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 48;

// I-Z1's layouts, and the packed int8 tensors (align 1) of the SET dialect
// in the Gemini tables (docs/formats/gemini.md "The SET dialect").
bool Placeable(const BufferEntry& entry) {
  return ValidLayout(entry.align, entry.bitwidth) || (entry.align == 1 && entry.bitwidth == 8);
}

}  // namespace

std::optional<L2Placement> L2Placement::InRegion(const BufferEntry& entry, const Workload& w,
                                                 int64_t buffersize, int64_t bytes) {
  for (const auto& [start, end] : w.rings) {
    if (start < 0 || end > buffersize || start >= end) continue;
    if (entry.address < start || entry.address >= end) continue;
    if (bytes > end - start) return std::nullopt;
    L2Placement p;
    p.region_start_ = start;
    p.region_size_ = end - start;
    p.start_ = entry.address - start;
    p.size_ = bytes;
    return p;
  }
  return std::nullopt;
}

std::optional<L2Placement> L2Placement::Fmap(const BufferEntry& entry, const Workload& w,
                                             int64_t buffersize) {
  if (!Placeable(entry)) return std::nullopt;
  Index4 extents;
  int64_t bytes = entry.bitwidth / 8;
  for (int d = 0; d < 4; ++d) {
    if (entry.range.hi[d] < 0 || entry.range.hi[d] >= kMaxTensorBytes) return std::nullopt;
    extents[d] = int64_t{entry.range.hi[d]} + 1;
    const int64_t laid = d == 1 ? static_cast<int64_t>(AlignUp(static_cast<uint64_t>(extents[d]),
                                                               static_cast<uint64_t>(entry.align)))
                                : extents[d];
    const auto product = CheckedMulSigned(bytes, laid);
    if (!product || *product > kMaxTensorBytes) return std::nullopt;
    bytes = *product;
  }
  auto p = InRegion(entry, w, buffersize, bytes);
  if (!p) return std::nullopt;
  p->extents_ = extents;
  p->aligned_c_ = static_cast<int64_t>(
      AlignUp(static_cast<uint64_t>(extents[1]), static_cast<uint64_t>(entry.align)));
  p->element_bytes_ = entry.bitwidth / 8;
  return p;
}

std::optional<L2Placement> L2Placement::Block(const BufferEntry& entry, const Workload& w,
                                              int64_t buffersize) {
  if (entry.size < 1) return std::nullopt;
  auto p = InRegion(entry, w, buffersize, entry.size);
  if (!p) return std::nullopt;
  p->extents_ = {1, 1, 1, entry.size};
  p->aligned_c_ = 1;
  return p;
}

bool L2Placement::Inside(const Index4& local) const {
  for (int d = 0; d < 4; ++d) {
    if (local[d] < 0 || local[d] >= extents_[d]) return false;
  }
  return true;
}

int64_t L2Placement::ElementOffset(const Index4& local) const {
  const int64_t index =
      ((local[0] * aligned_c_ + local[1]) * extents_[2] + local[2]) * extents_[3] + local[3];
  return index * element_bytes_;
}

void L2Memory::Store(const L2Placement& p, const Index4& local, int16_t value) {
  if (!p.Inside(local)) return;
  const int64_t offset = p.ElementOffset(local);
  // Little-endian; an int8 value keeps its low byte.
  const auto bits = static_cast<uint16_t>(value);
  for (int64_t b = 0; b < p.element_bytes(); ++b) {
    const int64_t address = p.ByteAddress(offset + b);
    cells_[static_cast<size_t>(address)] =
        value == kPoison ? kUndefined : static_cast<int16_t>((bits >> (8 * b)) & 0xff);
  }
}

int16_t L2Memory::Load(const L2Placement& p, const Index4& local) const {
  if (!p.Inside(local)) return kPoison;
  const int64_t offset = p.ElementOffset(local);
  uint16_t bits = 0;
  for (int64_t b = 0; b < p.element_bytes(); ++b) {
    const int64_t address = p.ByteAddress(offset + b);
    const int16_t cell = cells_[static_cast<size_t>(address)];
    if (cell == kUndefined) return kPoison;
    bits = static_cast<uint16_t>(bits | (cell << (8 * b)));
  }
  return p.element_bytes() == 1 ? static_cast<int8_t>(bits) : static_cast<int16_t>(bits);
}

void L2Memory::Clear(const L2Placement& p) {
  for (int64_t i = 0; i < p.size(); ++i) cells_[static_cast<size_t>(p.ByteAddress(i))] = kUndefined;
}

}  // namespace accelcheck::gemini
