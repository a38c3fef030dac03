// The byte-addressed L2 of docs/formats/gemini.md §6.2 (the third mode): each core
// owns `buffersize` bytes, and every buffer[] tensor of a snapshot lives at
// its `address` with the layout of I-Z1, wrapping inside its ring region
// (§2.4, I-B2). Two live tensors whose bytes overlap then corrupt each
// other's data, which the functional executor sees as a mismatch.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "validators/gemini/model.h"

namespace accelcheck::gemini {

using Index4 = std::array<int64_t, 4>;

// Where the bytes of one buffer[] entry lie in its core's L2.
class L2Placement {
 public:
  // An fmap tensor: N x alignup(C, align) x H x W elements of bitwidth/8
  // bytes (I-Z1), in the entry's own frame (§2.3). nullopt when the layout
  // is not one of I-Z1's, or the address lies in no ring region of `w`
  // inside [0, buffersize), or the tensor is larger than its region (I-B2).
  static std::optional<L2Placement> Fmap(const BufferEntry& entry, const Workload& w,
                                         int64_t buffersize);
  // A weight tensor: `size` opaque bytes (I-Z2).
  static std::optional<L2Placement> Block(const BufferEntry& entry, const Workload& w,
                                          int64_t buffersize);

  int64_t element_bytes() const { return element_bytes_; }
  int64_t size() const { return size_; }
  // Whether `local` (in the entry's frame) is one of its elements.
  bool Inside(const Index4& local) const;
  // The L2 address of byte `offset` from the tensor's start, wrapped.
  int64_t ByteAddress(int64_t offset) const {
    return region_start_ + (start_ + offset) % region_size_;
  }
  // The byte offset of element `local`, which is Inside, from the tensor's start.
  int64_t ElementOffset(const Index4& local) const;
  int64_t ElementAddress(const Index4& local) const { return ByteAddress(ElementOffset(local)); }

 private:
  // `bytes` from the entry's address inside its ring region.
  static std::optional<L2Placement> InRegion(const BufferEntry& entry, const Workload& w,
                                             int64_t buffersize, int64_t bytes);

  Index4 extents_{};
  int64_t aligned_c_ = 0;
  int64_t element_bytes_ = 1;
  int64_t size_ = 0;
  int64_t region_start_ = 0;
  int64_t region_size_ = 1;
  int64_t start_ = 0;  // the address relative to the region start
};

// One core's L2: a value per byte, or undefined.
class L2Memory {
 public:
  explicit L2Memory(int64_t bytes) : cells_(static_cast<size_t>(bytes), kUndefined) {}

  // Stores an element (int8 widened; kPoison leaves its bytes undefined).
  void Store(const L2Placement& p, const Index4& local, int16_t value);
  // The element, or kPoison when it lies outside `p` or a byte of it is undefined.
  int16_t Load(const L2Placement& p, const Index4& local) const;
  void Clear(const L2Placement& p);
  void SetByte(int64_t address, uint8_t value) { cells_[static_cast<size_t>(address)] = value; }
  // The byte, or -1 when undefined.
  int16_t Byte(int64_t address) const { return cells_[static_cast<size_t>(address)]; }

 private:
  static constexpr int16_t kUndefined = -1;
  std::vector<int16_t> cells_;
};

}  // namespace accelcheck::gemini
