// A bounds-checked reader of FlexBuffers, flatbuffers' schemaless format, as
// a flatbuffer's [ubyte] field holds them (a TFLite custom operator's
// options). Nothing here trusts the bytes: every read stays inside the
// buffer, every offset must point back to an object that lies wholly before
// the slot holding it (as every writer lays them out, so that no chain of
// offsets can loop or point forward), nothing is allocated in proportion to
// a size the buffer declares, and the work is bounded by the bytes present
// (docs/ARCHITECTURE.md "Limits and safety"). Containers are read only when
// the caller asks for them, so reading needs no recursion.
//
// Offsets are inside the buffer given to Root; the caller adds where the
// buffer starts in its file. A failed read returns nothing and, when `why`
// is not null, says where and what in a Problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "validators/core/bytes.h"

namespace accelcheck::flex {

// The types of a FlexBuffer value, numbered as the format numbers them: the
// upper 6 bits of a packed type byte (the lower 2 give a width, 1 << code).
enum class Type : uint8_t {
  kNull = 0,
  kInt = 1,
  kUInt = 2,
  kFloat = 3,
  kKey = 4,
  kString = 5,
  kIndirectInt = 6,
  kIndirectUInt = 7,
  kIndirectFloat = 8,
  kMap = 9,
  kVector = 10,
  kVectorInt = 11,
  kVectorUInt = 12,
  kVectorFloat = 13,
  kVectorKey = 14,
  kVectorStringDeprecated = 15,
  kVectorInt2 = 16,
  kVectorUInt2 = 17,
  kVectorFloat2 = 18,
  kVectorInt3 = 19,
  kVectorUInt3 = 20,
  kVectorFloat3 = 21,
  kVectorInt4 = 22,
  kVectorUInt4 = 23,
  kVectorFloat4 = 24,
  kBlob = 25,
  kBool = 26,
  kVectorBool = 36,
};

// True for the numbers Type names (0..26 and 36).
bool IsKnownType(uint8_t type);

// "STRING", "VECTOR_INT", or "type 30" for a number the format does not define.
std::string TypeName(Type type);

// Where a read failed (an offset inside the buffer) and why, in words a
// diagnostic can use.
struct Problem {
  uint64_t offset = 0;
  std::string what;
};

// Bytes of the buffer (a string's, a blob's, a key's) and where they start.
struct Slice {
  uint64_t offset = 0;
  ByteView bytes;

  std::string_view text() const {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
};

class Map;
class Vector;
class TypedVector;

// One value: its type and its slot, the bytes of its parent (or of the root)
// that hold it inline or hold the offset back to it. Each accessor reads
// only its own types and refuses any other with a Problem naming the type,
// so that the caller can say what the flexbuffers runtime would make of it
// (its AsString reads a BLOB as an empty string).
class Ref {
 public:
  Type type() const { return type_; }
  // Where the slot starts, and its width in bytes.
  uint64_t offset() const { return slot_; }
  uint8_t slot_width() const { return slot_width_; }
  // The width of the words of what the slot points to (a string's length, a
  // vector's elements), from the packed type; 1 in a typed vector.
  uint8_t byte_width() const { return byte_width_; }

  // INT and INDIRECT_INT.
  std::optional<int64_t> AsInt(Problem* why) const;
  // UINT and INDIRECT_UINT.
  std::optional<uint64_t> AsUInt(Problem* why) const;
  // FLOAT and INDIRECT_FLOAT of 4 or 8 bytes.
  std::optional<double> AsDouble(Problem* why) const;
  std::optional<bool> AsBool(Problem* why) const;
  // A STRING's bytes (NULs inside are allowed), checked to be followed by
  // the NUL that readers of C strings rely on.
  std::optional<Slice> AsString(Problem* why) const;
  // A BLOB's bytes.
  std::optional<Slice> AsBlob(Problem* why) const;
  // A KEY's bytes, up to its NUL.
  std::optional<Slice> AsKey(Problem* why) const;
  std::optional<Map> AsMap(Problem* why) const;
  // An untyped VECTOR (each element has its own type).
  std::optional<Vector> AsVector(Problem* why) const;
  // A typed vector: VECTOR_INT, _UINT, _FLOAT, _KEY, _BOOL, the deprecated
  // vector of strings, and the fixed-length VECTOR_INT2 .. VECTOR_FLOAT4.
  std::optional<TypedVector> AsTypedVector(Problem* why) const;

 private:
  friend std::optional<Ref> Root(ByteView buffer, Problem* why);
  friend class Map;
  friend class Vector;
  friend class TypedVector;

  Ref(ByteView buffer, uint64_t slot, uint8_t slot_width, uint8_t byte_width, Type type)
      : buffer_(buffer),
        slot_(slot),
        slot_width_(slot_width),
        byte_width_(byte_width),
        type_(type) {}

  // Where a scalar's bytes are: the slot itself, or what an indirect one
  // points to.
  struct Word {
    uint64_t offset;
    uint8_t width;
  };

  bool Expect(bool matches, std::string_view expected, Problem* why) const;
  // The offset the slot holds, followed back.
  std::optional<uint64_t> Target(Problem* why) const;
  // The `byte_width`-byte size stored just before `target`.
  std::optional<uint64_t> SizeBefore(uint64_t target, Problem* why) const;
  std::optional<Word> Scalar(Problem* why) const;
  // A STRING or BLOB: `trailing` is 1 for a string's NUL.
  std::optional<Slice> Sized(uint64_t trailing, Problem* why) const;

  ByteView buffer_;
  uint64_t slot_;
  uint8_t slot_width_;
  uint8_t byte_width_;
  Type type_;
};

// The root value: the buffer ends with its slot, then its packed type, then
// the slot's width. A root of a type the format does not define is refused.
std::optional<Ref> Root(ByteView buffer, Problem* why);

// An untyped vector: `size` slots of `byte_width` bytes from offset(), then
// one packed type byte per element.
class Vector {
 public:
  uint64_t size() const { return size_; }
  uint64_t offset() const { return elements_; }
  uint8_t byte_width() const { return width_; }
  // Element `i`; past the end, a NULL as flexbuffers gives.
  Ref At(uint64_t i) const;

 private:
  friend class Ref;
  friend class Map;
  Vector(ByteView buffer, uint64_t elements, uint8_t width, uint64_t size)
      : buffer_(buffer), elements_(elements), width_(width), size_(size) {}

  ByteView buffer_;
  uint64_t elements_;
  uint8_t width_;
  uint64_t size_;
};

// A vector whose elements share one type and hold no type bytes.
class TypedVector {
 public:
  Type element_type() const { return element_type_; }
  uint64_t size() const { return size_; }
  uint64_t offset() const { return elements_; }
  uint8_t byte_width() const { return width_; }
  // Element `i`; past the end, a NULL as flexbuffers gives.
  Ref At(uint64_t i) const;

 private:
  friend class Ref;
  TypedVector(ByteView buffer, uint64_t elements, uint8_t width, uint64_t size, Type element_type)
      : buffer_(buffer),
        elements_(elements),
        width_(width),
        size_(size),
        element_type_(element_type) {}

  ByteView buffer_;
  uint64_t elements_;
  uint8_t width_;
  uint64_t size_;
  Type element_type_;
};

// A map: an untyped vector of values with, in the two words before its
// size, the offset back to a typed vector of keys and that vector's width.
// Reading a map checks both vectors, that they have as many elements, that
// every key ends with a NUL before its slot and that the keys together hold
// no more bytes than lie before the map (so that comparing them costs at
// most the bytes present); it also finds the first key that is not greater
// than the one before, as the flexbuffers runtime looks keys up by binary
// search and misses keys that are out of order.
class Map {
 public:
  uint64_t size() const { return size_; }
  // Where the values and the keys vector's elements start.
  uint64_t offset() const { return values_; }
  uint64_t keys_offset() const { return keys_; }
  uint8_t byte_width() const { return width_; }
  uint8_t keys_width() const { return keys_width_; }

  // Key `i` without its NUL, and where its bytes start ("" and 0 past the end).
  std::string_view key(uint64_t i) const;
  uint64_t key_offset(uint64_t i) const;
  // Value `i`; past the end, a NULL as flexbuffers gives.
  Ref value(uint64_t i) const;

  // Keys are compared as C strings (bytes as unsigned).
  bool keys_sorted_unique() const { return !first_unordered_key_.has_value(); }
  // The first index whose key is not greater than the key before it.
  std::optional<uint64_t> first_unordered_key() const { return first_unordered_key_; }

  // Where a key is found: by the binary search the flexbuffers runtime runs
  // (the C library's bsearch, which probes the midpoint of what is left), and
  // by a scan from the first key. They differ only when the keys are not
  // sorted and unique. The key is read up to its first NUL, as a C string.
  struct Lookup {
    std::optional<uint64_t> by_search;
    std::optional<uint64_t> by_scan;
  };
  Lookup Find(std::string_view key) const;

 private:
  friend class Ref;
  Map(ByteView buffer, uint64_t values, uint8_t width, uint64_t size, uint64_t keys,
      uint8_t keys_width)
      : buffer_(buffer),
        values_(values),
        width_(width),
        size_(size),
        keys_(keys),
        keys_width_(keys_width) {}

  static std::optional<Map> Read(const Ref& ref, uint64_t values, Problem* why);
  // Checks every key's slot and NUL, and the bytes they hold together.
  bool CheckKeys(uint64_t keys_slot, Problem* why) const;
  void FindUnorderedKey();

  ByteView buffer_;
  uint64_t values_;
  uint8_t width_;
  uint64_t size_;
  uint64_t keys_;
  uint8_t keys_width_;
  std::optional<uint64_t> first_unordered_key_;
};

}  // namespace accelcheck::flex
