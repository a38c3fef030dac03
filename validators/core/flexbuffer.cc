#include "validators/core/flexbuffer.h"

#include <bit>
#include <cstring>
#include <iterator>
#include <tuple>
#include <utility>

#include "validators/core/checked.h"
#include "validators/core/text.h"

namespace accelcheck::flex {

namespace {

bool IsWidth(uint64_t width) { return width == 1 || width == 2 || width == 4 || width == 8; }

// Records why a read failed; converts to any empty optional.
std::nullopt_t Fail(Problem* why, uint64_t offset, std::string what) {
  if (why != nullptr) *why = Problem{offset, std::move(what)};
  return std::nullopt;
}

// The little-endian unsigned word of `width` bytes at `at`.
std::optional<uint64_t> ReadWord(ByteView buffer, uint64_t at, uint8_t width) {
  switch (width) {
    case 1:
      return ReadLE<uint8_t>(buffer, at);
    case 2:
      return ReadLE<uint16_t>(buffer, at);
    case 4:
      return ReadLE<uint32_t>(buffer, at);
    case 8:
      return ReadLE<uint64_t>(buffer, at);
    default:
      return std::nullopt;
  }
}

// A word the caller has already placed inside the buffer; reading outside
// would be a bug of this reader, and throws rather than guesses.
uint64_t WordInside(ByteView buffer, uint64_t at, uint8_t width) {
  return ReadWord(buffer, at, width).value();
}

std::string PastTheEnd(ByteView buffer) {
  return Str("the end of the ", buffer.size(), "-byte buffer");
}

// An object of `length` bytes (nothing when its size overflows) at `begin`
// must end inside the buffer and no later than `slot`, where the offset to
// it is stored: offsets point backwards, to objects written before the
// container that refers to them, so a chain of them can neither loop nor
// point forward. `what` names the object ("the STRING of 12 bytes").
bool EndsBefore(ByteView buffer, uint64_t slot, uint64_t begin, std::optional<uint64_t> length,
                std::string_view what, Problem* why) {
  const std::optional<uint64_t> end = length ? CheckedAdd(begin, *length) : std::nullopt;
  if (!end || *end > buffer.size()) {
    Fail(why, begin, Str(what, " at ", Hex(begin), " runs past ", PastTheEnd(buffer)));
    return false;
  }
  if (*end > slot) {
    Fail(why, begin,
         Str(what, " at ", Hex(begin), " ends at ", Hex(*end), ", past ", Hex(slot),
             ", the slot that refers to it: an offset must point back to an object before it"));
    return false;
  }
  return true;
}

// The length of the NUL-terminated bytes at `start` that end before `limit`.
std::optional<uint64_t> LengthBeforeNul(ByteView buffer, uint64_t start, uint64_t limit) {
  if (start >= limit || limit > buffer.size()) return std::nullopt;
  const auto* begin = buffer.data() + start;
  const void* nul = std::memchr(begin, 0, limit - start);
  if (nul == nullptr) return std::nullopt;
  return static_cast<uint64_t>(static_cast<const uint8_t*>(nul) - begin);
}

// The element type and length of a fixed-length typed vector
// (VECTOR_INT2 .. VECTOR_FLOAT4: INT, UINT, FLOAT each of 2, 3 and 4).
std::pair<Type, uint64_t> FixedVectorShape(Type type) {
  const int index = static_cast<int>(type) - static_cast<int>(Type::kVectorInt2);
  return {static_cast<Type>(static_cast<int>(Type::kInt) + index % 3),
          static_cast<uint64_t>(index / 3 + 2)};
}

// The element type of a typed vector with a size field. The deprecated
// vector of strings does not record the width of its strings' lengths, so
// its elements are read as keys, up to their first NUL, as flexbuffers does.
std::optional<Type> TypedVectorElement(Type type) {
  switch (type) {
    case Type::kVectorInt:
      return Type::kInt;
    case Type::kVectorUInt:
      return Type::kUInt;
    case Type::kVectorFloat:
      return Type::kFloat;
    case Type::kVectorKey:
    case Type::kVectorStringDeprecated:
      return Type::kKey;
    case Type::kVectorBool:
      return Type::kBool;
    default:
      return std::nullopt;
  }
}

bool IsFixedVector(Type type) { return type >= Type::kVectorInt2 && type <= Type::kVectorFloat4; }

}  // namespace

bool IsKnownType(uint8_t type) {
  return type <= static_cast<uint8_t>(Type::kBool) ||
         type == static_cast<uint8_t>(Type::kVectorBool);
}

std::string TypeName(Type type) {
  static constexpr std::string_view kNames[] = {"NULL",
                                                "INT",
                                                "UINT",
                                                "FLOAT",
                                                "KEY",
                                                "STRING",
                                                "INDIRECT_INT",
                                                "INDIRECT_UINT",
                                                "INDIRECT_FLOAT",
                                                "MAP",
                                                "VECTOR",
                                                "VECTOR_INT",
                                                "VECTOR_UINT",
                                                "VECTOR_FLOAT",
                                                "VECTOR_KEY",
                                                "VECTOR_STRING_DEPRECATED",
                                                "VECTOR_INT2",
                                                "VECTOR_UINT2",
                                                "VECTOR_FLOAT2",
                                                "VECTOR_INT3",
                                                "VECTOR_UINT3",
                                                "VECTOR_FLOAT3",
                                                "VECTOR_INT4",
                                                "VECTOR_UINT4",
                                                "VECTOR_FLOAT4",
                                                "BLOB",
                                                "BOOL"};
  const auto number = static_cast<uint8_t>(type);
  if (number < std::size(kNames)) return std::string(kNames[number]);
  if (type == Type::kVectorBool) return "VECTOR_BOOL";
  return Str("type ", static_cast<int>(number));
}

std::optional<Ref> Root(ByteView buffer, Problem* why) {
  const uint64_t size = buffer.size();
  if (size < 3) {
    return Fail(why, 0,
                Str("a FlexBuffer of ", size,
                    " bytes is too short: it ends with its root value, that value's type and "
                    "the value's width, 3 bytes at least"));
  }
  const uint8_t width = buffer[size - 1];
  if (!IsWidth(width)) {
    return Fail(why, size - 1,
                Str("the root width at ", Hex(size - 1), " is ", static_cast<int>(width),
                    " bytes; a width is 1, 2, 4 or 8"));
  }
  if (size - 2 < width) {
    return Fail(why, 0,
                Str("the root's ", static_cast<int>(width),
                    "-byte slot does not fit before its type at ", Hex(size - 2)));
  }
  const uint8_t packed = buffer[size - 2];
  if (!IsKnownType(packed >> 2)) {
    return Fail(
        why, size - 2,
        Str("the root's type ", packed >> 2, " at ", Hex(size - 2), " is not a FlexBuffer type"));
  }
  return Ref(buffer, size - 2 - width, width, static_cast<uint8_t>(1u << (packed & 3)),
             static_cast<Type>(packed >> 2));
}

bool Ref::Expect(bool matches, std::string_view expected, Problem* why) const {
  if (matches) return true;
  Fail(why, slot_,
       Str("the value at ", Hex(slot_), " is of type ", TypeName(type_), ", not ", expected));
  return false;
}

std::optional<uint64_t> Ref::Target(Problem* why) const {
  const std::optional<uint64_t> back = ReadWord(buffer_, slot_, slot_width_);
  if (!back) {
    return Fail(why, slot_,
                Str("the ", static_cast<int>(slot_width_), "-byte offset to the ", TypeName(type_),
                    " at ", Hex(slot_), " runs past ", PastTheEnd(buffer_)));
  }
  if (*back > slot_) {
    return Fail(why, slot_,
                Str("the offset to the ", TypeName(type_), " at ", Hex(slot_), " points ",
                    Hex(*back), " bytes back, before the start of the buffer"));
  }
  return slot_ - *back;
}

std::optional<uint64_t> Ref::SizeBefore(uint64_t target, Problem* why) const {
  if (target < byte_width_) {
    return Fail(why, target,
                Str("the ", TypeName(type_), " at ", Hex(target), " has no room before it for its ",
                    static_cast<int>(byte_width_), "-byte size"));
  }
  return WordInside(buffer_, target - byte_width_, byte_width_);
}

std::optional<Ref::Word> Ref::Scalar(Problem* why) const {
  const bool indirect =
      type_ == Type::kIndirectInt || type_ == Type::kIndirectUInt || type_ == Type::kIndirectFloat;
  if (!indirect) {
    if (!RangeWithin(slot_, slot_width_, buffer_.size())) {
      return Fail(why, slot_,
                  Str("the ", static_cast<int>(slot_width_), "-byte ", TypeName(type_), " at ",
                      Hex(slot_), " runs past ", PastTheEnd(buffer_)));
    }
    return Word{slot_, slot_width_};
  }
  const std::optional<uint64_t> target = Target(why);
  if (!target ||
      !EndsBefore(buffer_, slot_, *target, byte_width_,
                  Str("the ", static_cast<int>(byte_width_), "-byte ", TypeName(type_)), why)) {
    return std::nullopt;
  }
  return Word{*target, byte_width_};
}

std::optional<int64_t> Ref::AsInt(Problem* why) const {
  if (!Expect(type_ == Type::kInt || type_ == Type::kIndirectInt, "INT", why)) return std::nullopt;
  const std::optional<Word> word = Scalar(why);
  if (!word) return std::nullopt;
  // Sign-extends the word from its width.
  const unsigned unused_bits = 64 - 8 * word->width;
  const uint64_t bits = WordInside(buffer_, word->offset, word->width);
  return static_cast<int64_t>(bits << unused_bits) >> unused_bits;
}

std::optional<uint64_t> Ref::AsUInt(Problem* why) const {
  if (!Expect(type_ == Type::kUInt || type_ == Type::kIndirectUInt, "UINT", why)) {
    return std::nullopt;
  }
  const std::optional<Word> word = Scalar(why);
  if (!word) return std::nullopt;
  return WordInside(buffer_, word->offset, word->width);
}

std::optional<double> Ref::AsDouble(Problem* why) const {
  if (!Expect(type_ == Type::kFloat || type_ == Type::kIndirectFloat, "FLOAT", why)) {
    return std::nullopt;
  }
  const std::optional<Word> word = Scalar(why);
  if (!word) return std::nullopt;
  const uint64_t bits = WordInside(buffer_, word->offset, word->width);
  if (word->width == 4) return std::bit_cast<float>(static_cast<uint32_t>(bits));
  if (word->width == 8) return std::bit_cast<double>(bits);
  return Fail(why, word->offset,
              Str("the FLOAT at ", Hex(word->offset), " is ", static_cast<int>(word->width),
                  " bytes wide; a float is 4 or 8"));
}

std::optional<bool> Ref::AsBool(Problem* why) const {
  if (!Expect(type_ == Type::kBool, "BOOL", why)) return std::nullopt;
  const std::optional<Word> word = Scalar(why);
  if (!word) return std::nullopt;
  return WordInside(buffer_, word->offset, word->width) != 0;
}

std::optional<Slice> Ref::Sized(uint64_t trailing, Problem* why) const {
  const std::optional<uint64_t> target = Target(why);
  if (!target) return std::nullopt;
  const std::optional<uint64_t> length = SizeBefore(*target, why);
  if (!length) return std::nullopt;
  const std::optional<uint64_t> extent = CheckedAdd(*length, trailing);
  const std::string what = Str("the ", TypeName(type_), " of ", *length, " bytes");
  if (!EndsBefore(buffer_, slot_, *target, extent, what, why)) return std::nullopt;
  return Slice{*target, buffer_.subspan(*target, *length)};
}

std::optional<Slice> Ref::AsString(Problem* why) const {
  if (!Expect(type_ == Type::kString, "STRING", why)) return std::nullopt;
  std::optional<Slice> string = Sized(1, why);
  if (!string) return std::nullopt;
  // Readers of the string as a C string rely on its NUL.
  const uint64_t end = string->offset + string->bytes.size();
  if (buffer_[end] != 0) {
    return Fail(why, end,
                Str("the STRING of ", string->bytes.size(), " bytes at ", Hex(string->offset),
                    " is followed by ", Hex(buffer_[end]), ", not the NUL that ends a string"));
  }
  return string;
}

std::optional<Slice> Ref::AsBlob(Problem* why) const {
  if (!Expect(type_ == Type::kBlob, "BLOB", why)) return std::nullopt;
  return Sized(0, why);
}

std::optional<Slice> Ref::AsKey(Problem* why) const {
  if (!Expect(type_ == Type::kKey, "KEY", why)) return std::nullopt;
  const std::optional<uint64_t> target = Target(why);
  if (!target) return std::nullopt;
  const std::optional<uint64_t> length = LengthBeforeNul(buffer_, *target, slot_);
  if (!length) {
    return Fail(why, *target,
                Str("the KEY at ", Hex(*target), " has no NUL before ", Hex(slot_),
                    ", the slot that refers to it"));
  }
  return Slice{*target, buffer_.subspan(*target, *length)};
}

std::optional<Vector> Ref::AsVector(Problem* why) const {
  if (!Expect(type_ == Type::kVector, "VECTOR", why)) return std::nullopt;
  const std::optional<uint64_t> target = Target(why);
  if (!target) return std::nullopt;
  const std::optional<uint64_t> size = SizeBefore(*target, why);
  if (!size) return std::nullopt;
  // The elements, then a packed type byte for each.
  if (!EndsBefore(buffer_, slot_, *target, CheckedMul(*size, byte_width_ + 1u),
                  Str("the VECTOR of ", *size, " elements"), why)) {
    return std::nullopt;
  }
  return Vector(buffer_, *target, byte_width_, *size);
}

std::optional<TypedVector> Ref::AsTypedVector(Problem* why) const {
  const std::optional<Type> element = TypedVectorElement(type_);
  if (!Expect(element.has_value() || IsFixedVector(type_), "a typed vector", why)) {
    return std::nullopt;
  }
  const std::optional<uint64_t> target = Target(why);
  if (!target) return std::nullopt;
  Type element_type;
  uint64_t size;
  if (element) {
    const std::optional<uint64_t> declared = SizeBefore(*target, why);
    if (!declared) return std::nullopt;
    element_type = *element;
    size = *declared;
  } else {
    std::tie(element_type, size) = FixedVectorShape(type_);
  }
  if (!EndsBefore(buffer_, slot_, *target, CheckedMul(size, byte_width_),
                  Str("the ", TypeName(type_), " of ", size, " elements"), why)) {
    return std::nullopt;
  }
  return TypedVector(buffer_, *target, byte_width_, size, element_type);
}

std::optional<Map> Ref::AsMap(Problem* why) const {
  if (!Expect(type_ == Type::kMap, "MAP", why)) return std::nullopt;
  const std::optional<uint64_t> target = Target(why);
  if (!target) return std::nullopt;
  return Map::Read(*this, *target, why);
}

Ref Vector::At(uint64_t i) const {
  // The packed type of element i is the i-th byte after the elements.
  const uint64_t types = elements_ + size_ * width_;
  if (i >= size_) return Ref(buffer_, types, 1, 1, Type::kNull);
  const uint8_t packed = buffer_[types + i];
  return Ref(buffer_, elements_ + i * width_, width_, static_cast<uint8_t>(1u << (packed & 3)),
             static_cast<Type>(packed >> 2));
}

Ref TypedVector::At(uint64_t i) const {
  if (i >= size_) return Ref(buffer_, elements_ + size_ * width_, 1, 1, Type::kNull);
  return Ref(buffer_, elements_ + i * width_, width_, 1, element_type_);
}

// The three words before a map's values: the offset back to its keys
// vector, that vector's width and the number of values.
std::optional<Map> Map::Read(const Ref& ref, uint64_t values, Problem* why) {
  const ByteView buffer = ref.buffer_;
  const uint8_t width = ref.byte_width_;
  if (values < 3u * width) {
    return Fail(why, values,
                Str("the MAP at ", Hex(values),
                    " has no room before it for its keys offset, keys width and size, 3 words of ",
                    static_cast<int>(width), " bytes"));
  }
  const uint64_t size = WordInside(buffer, values - width, width);
  if (!EndsBefore(buffer, ref.slot_, values, CheckedMul(size, width + 1u),
                  Str("the MAP of ", size, " values"), why)) {
    return std::nullopt;
  }
  const uint64_t keys_slot = values - 3u * width;
  const uint64_t keys_back = WordInside(buffer, keys_slot, width);
  if (keys_back > keys_slot) {
    return Fail(
        why, keys_slot,
        Str("the offset to the keys vector of the MAP at ", Hex(values), " points ", Hex(keys_back),
            " bytes back from ", Hex(keys_slot), ", before the start of the buffer"));
  }
  const uint64_t keys = keys_slot - keys_back;
  const uint64_t keys_width = WordInside(buffer, keys_slot + width, width);
  if (!IsWidth(keys_width)) {
    return Fail(why, keys_slot + width,
                Str("the MAP at ", Hex(values), " gives its keys vector's width as ", keys_width,
                    " bytes; a width is 1, 2, 4 or 8"));
  }
  if (keys < keys_width) {
    return Fail(why, keys,
                Str("the map's keys vector at ", Hex(keys), " has no room before it for its ",
                    keys_width, "-byte size"));
  }
  const uint64_t key_count =
      WordInside(buffer, keys - keys_width, static_cast<uint8_t>(keys_width));
  if (key_count != size) {
    return Fail(why, keys - keys_width,
                Str("the MAP at ", Hex(values), " has ", size, " values but its keys vector at ",
                    Hex(keys), " has ", key_count, " keys"));
  }
  if (!EndsBefore(buffer, keys_slot, keys, CheckedMul(size, keys_width),
                  Str("the map's keys vector of ", size, " keys"), why)) {
    return std::nullopt;
  }
  Map map(buffer, values, width, size, keys, static_cast<uint8_t>(keys_width));
  if (!map.CheckKeys(keys_slot, why)) return std::nullopt;
  map.FindUnorderedKey();
  return map;
}

// Each key must end with a NUL before its slot. Keys that share bytes (one
// the tail of another: "a", "aa", "aaa" in the bytes of the last) would let
// a small buffer hold keys whose comparison costs the square of its size;
// no writer makes them, so the keys may hold together no more bytes than lie
// before the map, and every later key operation costs at most the bytes
// present.
bool Map::CheckKeys(uint64_t keys_slot, Problem* why) const {
  uint64_t held = 0;
  for (uint64_t i = 0; i < size_; ++i) {
    const uint64_t slot = keys_ + i * keys_width_;
    const uint64_t back = WordInside(buffer_, slot, keys_width_);
    if (back > slot) {
      Fail(why, slot,
           Str("the offset to key ", i, " at ", Hex(slot), " points ", Hex(back),
               " bytes back, before the start of the buffer"));
      return false;
    }
    const uint64_t start = slot - back;
    const std::optional<uint64_t> length = LengthBeforeNul(buffer_, start, slot);
    if (!length) {
      Fail(why, start,
           Str("key ", i, " at ", Hex(start), " has no NUL before ", Hex(slot),
               ", the slot that refers to it"));
      return false;
    }
    held += *length + 1;
    if (held > keys_slot) {
      Fail(why, keys_,
           Str("the first ", i + 1, " keys of the map's keys vector at ", Hex(keys_), " hold ",
               held, " bytes with their NULs, more than the ", keys_slot,
               " bytes before the map: its keys share bytes"));
      return false;
    }
  }
  return true;
}

void Map::FindUnorderedKey() {
  for (uint64_t i = 1; i < size_; ++i) {
    if (key(i - 1).compare(key(i)) >= 0) {
      first_unordered_key_ = i;
      return;
    }
  }
}

uint64_t Map::key_offset(uint64_t i) const {
  if (i >= size_) return 0;
  const uint64_t slot = keys_ + i * keys_width_;
  return slot - WordInside(buffer_, slot, keys_width_);
}

std::string_view Map::key(uint64_t i) const {
  if (i >= size_) return {};
  const uint64_t start = key_offset(i);
  const uint64_t length = LengthBeforeNul(buffer_, start, keys_ + i * keys_width_).value();
  return {reinterpret_cast<const char*>(buffer_.data() + start), length};
}

Ref Map::value(uint64_t i) const { return Vector(buffer_, values_, width_, size_).At(i); }

Map::Lookup Map::Find(std::string_view wanted) const {
  wanted = wanted.substr(0, wanted.find('\0'));
  Lookup found;
  // string_view compares bytes as unsigned, as strcmp does.
  uint64_t low = 0;
  uint64_t high = size_;
  while (low < high) {
    const uint64_t middle = (low + high) / 2;
    const int order = wanted.compare(key(middle));
    if (order == 0) {
      found.by_search = middle;
      break;
    }
    if (order < 0) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  for (uint64_t i = 0; i < size_; ++i) {
    if (key(i) == wanted) {
      found.by_scan = i;
      break;
    }
  }
  return found;
}

}  // namespace accelcheck::flex
