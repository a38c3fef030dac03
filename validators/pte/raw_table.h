// A bounds-checked flatbuffer table reader that trusts nothing: for files a
// generated accessor must not touch before their layout is known (the old
// FT01 .ptd layout, docs/formats/pte.md §1.4).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "validators/core/bytes.h"

namespace accelcheck::pte {

class RawTable {
 public:
  // The table at `offset` when its vtable lies inside `buffer`.
  static std::optional<RawTable> At(ByteView buffer, uint64_t offset) {
    const auto soffset = ReadLE<uint32_t>(buffer, offset);
    if (!soffset) return std::nullopt;
    const int64_t vtable = static_cast<int64_t>(offset) - static_cast<int32_t>(*soffset);
    if (vtable < 0) return std::nullopt;
    const auto vsize = ReadLE<uint16_t>(buffer, static_cast<uint64_t>(vtable));
    if (!vsize || *vsize < 4 ||
        !RangeWithin(static_cast<uint64_t>(vtable), *vsize, buffer.size())) {
      return std::nullopt;
    }
    return RawTable(buffer, offset, static_cast<uint64_t>(vtable), *vsize);
  }

  uint64_t offset() const { return offset_; }
  uint16_t field_count() const { return static_cast<uint16_t>((vsize_ - 4) / 2); }

  // The file offset of field `id`, when the vtable has a slot for it.
  std::optional<uint64_t> Field(uint16_t id) const {
    if (id >= field_count()) return std::nullopt;
    const uint16_t slot = *ReadLE<uint16_t>(buffer_, vtable_ + 4 + 2 * uint64_t{id});
    if (slot == 0) return std::nullopt;
    return offset_ + slot;
  }

  template <typename T>
  T Scalar(uint16_t id, T fallback = 0) const {
    const auto at = Field(id);
    if (!at) return fallback;
    return static_cast<T>(ReadLE<std::make_unsigned_t<T>>(buffer_, *at).value_or(fallback));
  }

  // The target of offset field `id`, when it lies inside the buffer.
  std::optional<uint64_t> Target(uint16_t id) const {
    const auto at = Field(id);
    if (!at) return std::nullopt;
    const auto relative = ReadLE<uint32_t>(buffer_, *at);
    if (!relative || *relative == 0 || *at + *relative >= buffer_.size()) return std::nullopt;
    return *at + *relative;
  }

  // A vector field: its element count and the offset of element 0, when
  // count * element_size bytes are present.
  std::optional<std::pair<uint32_t, uint64_t>> Vector(uint16_t id, uint64_t element_size) const {
    const auto at = Target(id);
    if (!at) return std::nullopt;
    const auto count = ReadLE<uint32_t>(buffer_, *at);
    if (!count || !RangeWithin(*at + 4, uint64_t{*count} * element_size, buffer_.size())) {
      return std::nullopt;
    }
    return std::pair{*count, *at + 4};
  }

  std::optional<std::string_view> String(uint16_t id) const {
    const auto v = Vector(id, 1);
    if (!v) return std::nullopt;
    return std::string_view(reinterpret_cast<const char*>(buffer_.data() + v->second), v->first);
  }

  // Element `k` of a vector of tables starting at `first`.
  std::optional<RawTable> TableAt(uint64_t first, uint32_t k) const {
    const uint64_t slot = first + 4 * uint64_t{k};
    const auto relative = ReadLE<uint32_t>(buffer_, slot);
    if (!relative) return std::nullopt;
    return At(buffer_, slot + *relative);
  }

  ByteView buffer() const { return buffer_; }

 private:
  RawTable(ByteView buffer, uint64_t offset, uint64_t vtable, uint16_t vsize)
      : buffer_(buffer), offset_(offset), vtable_(vtable), vsize_(vsize) {}

  ByteView buffer_;
  uint64_t offset_;
  uint64_t vtable_;
  uint16_t vsize_;
};

}  // namespace accelcheck::pte
