// Bounds-checked little-endian reads and the owned, aligned input buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace accelcheck {

using ByteView = std::span<const uint8_t>;

// The bytes of a text (a document held as a string).
inline ByteView AsBytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// Reads a little-endian unsigned integer of sizeof(T) bytes at `offset`, or
// nothing when it does not fit in `bytes`.
template <typename T>
std::optional<T> ReadLE(ByteView bytes, uint64_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return std::nullopt;
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<T>(static_cast<T>(bytes[offset + i]) << (8 * i));
  }
  return value;
}

inline bool HasBytesAt(ByteView bytes, uint64_t offset, std::string_view expected) {
  return offset <= bytes.size() && bytes.size() - offset >= expected.size() &&
         std::memcmp(bytes.data() + offset, expected.data(), expected.size()) == 0;
}

// True when [offset, offset + length) lies inside a region of `size` bytes,
// written so that it cannot overflow.
inline constexpr bool RangeWithin(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

namespace detail {
// Frees an InputBuffer's bytes: a mapping, or memory from operator new.
struct InputFree {
  size_t mapped_length = 0;  // 0: allocated with operator new
  bool adopted = false;      // the bytes of the buffer's own vector
  void operator()(uint8_t* p) const;
};
}  // namespace detail

// An input file, 16-byte aligned (flatbuffers checks scalar alignment
// relative to the buffer start, and force_align vectors use 16): a heap copy,
// or for large regular files a read-only mapping, so that a streaming decoder
// can let go of the pages it has passed (ReleaseBefore) and validate a file
// larger than the memory it may use. Like LLVM's MemoryBuffer, a mapping
// assumes the file is not truncated while it is read.
class InputBuffer {
 public:
  InputBuffer() = default;
  static InputBuffer Copy(ByteView bytes);
  // Takes `bytes` without copying them (copies when the vector's storage is
  // not 16-byte aligned, or empty).
  static InputBuffer Adopt(std::vector<uint8_t> bytes);
  // Adopts bytes that can be made again (a gzip stream's inflated bytes): a
  // one-pass reader may discard the pages it has passed (DiscardBetween), and
  // a later pass over them gets them back from `restore`.
  using Restore = std::function<std::optional<InputBuffer>()>;
  static InputBuffer AdoptDiscardable(std::vector<uint8_t> bytes, Restore restore);

  ByteView bytes() const { return {data_.get(), size_}; }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  bool mapped() const { return data_.get_deleter().mapped_length != 0; }

  // The caller no longer needs bytes [0, offset) resident: a mapping drops
  // those whole pages from memory (reading them again faults them back in
  // from the file); a heap copy keeps them.
  void ReleaseBefore(uint64_t offset) const { ReleaseBetween(0, offset); }
  // The same for bytes [from, to): the whole pages inside them. Returns
  // where the last of them ends (at most `to`), from where to go on.
  uint64_t ReleaseBetween(uint64_t from, uint64_t to) const;

  // For a reader that passes over the bytes once: what ReleaseBetween does
  // for a mapping, and for discardable bytes the same at the cost of their
  // content (zero pages until restored). Other buffers keep their pages.
  uint64_t DiscardBetween(uint64_t from, uint64_t to) const;
  // Whether DiscardBetween lets pages go.
  bool discards() const { return mapped() || discard_ != nullptr; }
  // Whether some bytes were discarded: read them from Restored().
  bool discarded() const;
  // The same bytes again, whole: nothing when they cannot be made again.
  std::optional<InputBuffer> Restored() const;

  // A heap copy of bytes [offset, offset + size), which must lie inside:
  // for a mapping, made a chunk at a time, each chunk's whole pages dropped
  // from memory once copied, so that copying a large part of the file holds
  // the copy and not the copied pages too.
  InputBuffer CopyOf(uint64_t offset, uint64_t size) const;

 private:
  std::unique_ptr<uint8_t[], detail::InputFree> data_;
  size_t size_ = 0;
  std::vector<uint8_t> adopted_;  // what data_ points into, for Adopt
  struct Discard;
  std::shared_ptr<Discard> discard_;  // for AdoptDiscardable
  friend std::optional<InputBuffer> ReadFileLimited(const std::string&, uint64_t, std::string*);
};

// Why a file of `size` bytes is refused under --max-file-size `max_size`.
std::string FileTooLarge(uint64_t size, uint64_t max_size);

// Reads a whole file, refusing (with `error` set) files larger than `max_size`
// before allocating for them.
std::optional<InputBuffer> ReadFileLimited(const std::string& path, uint64_t max_size,
                                           std::string* error);

}  // namespace accelcheck
