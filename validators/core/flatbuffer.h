// What every flatbuffer format needs around the flatbuffers library: the
// Verifier as a size-checked precondition whose limits come from Limits and
// whose failure is narrowed down to the object that breaks it, a region type
// that places a buffer nested inside another (an Edge TPU package inside a
// TFLite buffer) in the file, the alignment check the Verifier lacks, and a
// table reader that trusts nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <flatbuffers/flatbuffers.h>

#include "validators/core/bytes.h"
#include "validators/core/diagnostic.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"

namespace accelcheck {

// An object path and a path inside it: "a.b" from "a" and "b", "a[2]" from
// "a" and "[2]", either side empty giving the other.
std::string JoinPath(std::string_view outer, std::string_view inner);

// A flatbuffer inside a file: its bytes, where they start in the file, and the
// object path of the buffer in its container ("" for a file that is one
// buffer). Offsets inside the buffer become file offsets through it, and
// object paths inside it are joined to `path`.
struct FlatbufferRegion {
  ByteView bytes;
  uint64_t file_offset = 0;
  std::string path;

  // The offset inside the buffer of `object`, which lies in `bytes`.
  uint64_t OffsetOf(const void* object) const {
    return static_cast<uint64_t>(static_cast<const uint8_t*>(object) - bytes.data());
  }
  // The location in the file of `inner` (an offset inside the buffer) with
  // the object path `inner_path` inside the buffer.
  Location At(std::optional<uint64_t> inner, std::optional<uint64_t> length,
              std::string_view inner_path) const;
  // The same for an object of the buffer; a null object has no offset.
  Location AtObject(const void* object, std::string_view inner_path) const {
    return At(object == nullptr ? std::nullopt : std::optional<uint64_t>(OffsetOf(object)),
              std::nullopt, inner_path);
  }
};

// The flatbuffers 2.0.8 Verifier aligns a vector's length prefix to 4 bytes
// but not its elements to their size, so a [long], [uint64] or [double]
// vector can pass it at an address that is not a multiple of 8, and reading
// it is then undefined behaviour. Writers always align elements; every reader
// of 8-byte vectors asks this first. An empty vector has nothing to read,
// and the flatbuffers builder does not align it.
template <typename T>
bool ElementsAligned(const flatbuffers::Vector<T>* vector) {
  return vector == nullptr || vector->size() == 0 ||
         reinterpret_cast<uintptr_t>(vector->Data()) % alignof(T) == 0;
}

// Verifier options from the user's limits (--max-depth, --max-tables).
flatbuffers::Verifier::Options VerifierOptions(const Limits& limits);

// Limits under which a buffer that failed only for the user's limits
// verifies, so that a limit is told from a malformed buffer (see the .cc).
flatbuffers::Verifier::Options RelaxedOptions(flatbuffers::Verifier::Options options,
                                              size_t buffer_size, bool depth, bool tables);

// Narrows a failing buffer down to the deepest object whose own verification
// fails, re-running the generated Verify methods on sub-objects with a fresh
// Verifier each time. Every offset is verified before it is followed. A
// format's Locate functions walk its schema with these steps.
class FlatbufferLocator {
 public:
  using Verifier = flatbuffers::Verifier;
  using voffset_t = flatbuffers::voffset_t;

  FlatbufferLocator(ByteView buffer, Verifier::Options options)
      : buffer_(buffer), options_(options) {}

  const std::string& path() const { return path_; }
  uint64_t offset() const { return offset_; }
  // What failed there, in words ("the vector of 12 elements ends at ...").
  const std::string& reason() const { return reason_; }
  // The failing reference points past the end of the buffer: it looks cut.
  bool past_end() const { return past_end_; }

  void Fail(std::string path, uint64_t offset, std::string reason, bool past_end = false) {
    path_ = std::move(path);
    offset_ = offset;
    reason_ = std::move(reason);
    past_end_ = past_end;
  }

  Verifier Fresh() const { return Verifier(buffer_.data(), buffer_.size(), options_); }

  template <typename T>
  bool Whole(const T* table) const {
    Verifier v = Fresh();
    return v.VerifyTable(table);
  }

  bool Start(const void* table) const {
    Verifier v = Fresh();
    return AsTable(table)->VerifyTableStart(v);
  }

  // The offset field `vt` of `table` is absent or points inside the buffer.
  bool OffsetField(const void* table, voffset_t vt) const {
    Verifier v = Fresh();
    return AsTable(table)->VerifyTableStart(v) && AsTable(table)->VerifyOffset(v, vt);
  }

  // A vector (of scalars, strings or tables) field: its offset and extent.
  template <typename Elem>
  const flatbuffers::Vector<Elem>* VectorField(const void* table, voffset_t vt,
                                               const std::string& path, bool* ok) {
    *ok = false;
    if (!OffsetField(table, vt)) {
      FailOffsetField(path, table, vt);
      return nullptr;
    }
    const auto* vec = AsTable(table)->GetPointer<const flatbuffers::Vector<Elem>*>(vt);
    Verifier v = Fresh();
    if (!v.VerifyVector(vec)) {
      FailVector(path, OffsetOf(vec), sizeof(Elem));
      return nullptr;
    }
    *ok = true;
    return vec;
  }

  // A vector of tables: the vector, then each element; `descend` narrows a
  // failing element further (or just records it).
  template <typename T, typename Descend>
  bool TableVector(const void* table, voffset_t vt, const std::string& path, Descend descend) {
    bool ok = false;
    const auto* vec = VectorField<flatbuffers::Offset<T>>(table, vt, path, &ok);
    if (!ok) return false;
    if (vec == nullptr) return true;
    for (uint32_t i = 0; i < vec->size(); ++i) {
      const T* element = vec->Get(i);
      if (Whole(element)) continue;
      descend(element, path + "[" + std::to_string(i) + "]");
      return false;
    }
    return true;
  }

  template <typename Elem>
  bool ScalarVector(const void* table, voffset_t vt, const std::string& path) {
    bool ok = false;
    VectorField<Elem>(table, vt, path, &ok);
    return ok;
  }

  // A sub-table field: the offset, then the table.
  template <typename T, typename Descend>
  bool SubTable(const void* table, voffset_t vt, const std::string& path, Descend descend) {
    if (!OffsetField(table, vt)) {
      FailOffsetField(path, table, vt);
      return false;
    }
    const T* sub = AsTable(table)->GetPointer<const T*>(vt);
    if (Whole(sub)) return true;
    descend(sub, path);
    return false;
  }

  // Records `table` itself when its start does not verify or none of its
  // parts is to blame (a misaligned scalar field, say).
  bool Leaf(const void* table, const std::string& path) {
    FailTable(path, OffsetOf(table));
    return false;
  }

  // A `descend` that records the failing element itself.
  template <typename T>
  auto LeafOf() {
    return [this](const T* t, const std::string& path) { Leaf(t, path); };
  }

 private:
  static const flatbuffers::Table* AsTable(const void* p) {
    return reinterpret_cast<const flatbuffers::Table*>(p);
  }
  uint64_t OffsetOf(const void* p) const {
    return static_cast<uint64_t>(static_cast<const uint8_t*>(p) - buffer_.data());
  }
  // The offset of the field's slot (its vtable was verified), for the
  // location of an offset that points outside the buffer.
  uint64_t FieldAt(const void* table, voffset_t vt) const {
    return OffsetOf(table) + AsTable(table)->GetOptionalFieldOffset(vt);
  }

  // The reasons, worked out from the bytes the Verifier refused.
  void FailOffsetField(const std::string& path, const void* table, voffset_t vt);
  void FailVector(const std::string& path, uint64_t vector, uint64_t element_size);
  void FailTable(const std::string& path, uint64_t table);

  ByteView buffer_;
  Verifier::Options options_;
  std::string path_;
  uint64_t offset_ = 0;
  std::string reason_;
  bool past_end_ = false;
};

// The Verifier as the precondition of every later phase: the size is checked
// first (a buffer must hold its root offset, and flatbuffers 2.0.8 asserts on
// buffers of 2 GiB and more), the buffer
// is verified with the user's limits, a failure that goes away with the
// limits lifted is reported as the limit (core.limit.max-depth,
// core.limit.max-tables), and any other failure as `rule` at the object
// `locate` narrows it down to. `what` names the buffer in messages ("the
// program"). True when the buffer verifies.
class FlatbufferVerification {
 public:
  FlatbufferVerification(const FlatbufferRegion& region, const Limits& limits, DiagnosticSink& sink,
                         const Rule& rule, std::string_view what)
      : region_(region), limits_(limits), sink_(sink), rule_(rule), what_(what) {}

  template <typename VerifyFn, typename LocateFn>
  bool Run(VerifyFn verify, LocateFn locate) const {
    if (!SizeFits()) return false;
    const auto run = [&](const flatbuffers::Verifier::Options& o) {
      flatbuffers::Verifier v(region_.bytes.data(), region_.bytes.size(), o);
      return verify(v);
    };
    const flatbuffers::Verifier::Options options = VerifierOptions(limits_);
    if (run(options)) return true;
    const size_t size = region_.bytes.size();
    const auto relaxed = RelaxedOptions(options, size, true, true);
    if (run(relaxed)) {
      ReportLimit(run(RelaxedOptions(options, size, true, false)));
      return false;
    }
    FlatbufferLocator locator(region_.bytes, relaxed);
    locate(locator);
    ReportFailure(locator);
    return false;
  }

 private:
  bool SizeFits() const;
  void ReportLimit(bool depth) const;
  void ReportFailure(const FlatbufferLocator& locator) const;

  const FlatbufferRegion& region_;
  const Limits& limits_;
  DiagnosticSink& sink_;
  const Rule& rule_;
  std::string_view what_;
};

// A bounds-checked flatbuffer table reader that trusts nothing: for files a
// generated accessor must not touch before their layout is known (the old
// FT01 .ptd layout, docs/formats/pte.md §1.4).
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

}  // namespace accelcheck
