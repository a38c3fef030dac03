#include "validators/core/flexbuffer.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace accelcheck::flex {
namespace {

using Bytes = std::vector<uint8_t>;

constexpr uint8_t kIntWidth1 = static_cast<uint8_t>(Type::kInt) << 2;
constexpr uint8_t kMapWidth1 = static_cast<uint8_t>(Type::kMap) << 2;
constexpr uint8_t kStringWidth1 = static_cast<uint8_t>(Type::kString) << 2;
constexpr uint8_t kVectorWidth1 = static_cast<uint8_t>(Type::kVector) << 2;

// 300 bytes with NULs inside: long enough for a 2-byte length.
std::string SamplePackage() {
  std::string package = "DWN1";
  for (int i = 0; package.size() < 300; ++i) package += static_cast<char>(i % 7 == 0 ? 0 : i);
  return package;
}

// A map shaped like an Edge TPU custom operator's options: a version, the
// package, a preference, chip ids and further packages, added out of order.
Bytes SampleMap(const std::string& package = SamplePackage()) {
  flexbuffers::Builder builder;
  builder.Map([&] {
    builder.Vector("7", [&] {
      builder.String("a");
      builder.String("bc");
    });
    builder.Int("1", 0);
    builder.Int("5", -1);
    builder.String("4", package);
    builder.Add("6", std::vector<int32_t>{18});
  });
  builder.Finish();
  return builder.GetBuffer();
}

ByteView View(const Bytes& bytes) { return {bytes.data(), bytes.size()}; }

// The root as a map, which reads `bytes` (they must outlive it); failing
// the test, and reading the sample instead, when it is not one.
Map RootMap(const Bytes& bytes) {
  Problem why;
  const std::optional<Ref> root = Root(View(bytes), &why);
  const std::optional<Map> map = root ? root->AsMap(&why) : std::nullopt;
  if (map) return *map;
  ADD_FAILURE() << why.what;
  static const Bytes sample = SampleMap();
  return RootMap(sample);
}

Ref ValueOf(const Map& map, std::string_view key) {
  const Map::Lookup found = map.Find(key);
  EXPECT_TRUE(found.by_search) << "no key " << key;
  return map.value(found.by_search.value_or(map.size()));
}

// The package as the Edge TPU runtime takes it: the string under "4" of the
// root map, or why not.
std::optional<std::string> PackageOf(ByteView bytes, Problem* why) {
  const std::optional<Ref> root = Root(bytes, why);
  if (!root) return std::nullopt;
  const std::optional<Map> map = root->AsMap(why);
  if (!map) return std::nullopt;
  const std::optional<uint64_t> index = map->Find("4").by_search;
  if (!index) {
    *why = Problem{map->offset(), "no key \"4\""};
    return std::nullopt;
  }
  const std::optional<Slice> package = map->value(*index).AsString(why);
  if (!package) return std::nullopt;
  return std::string(package->text());
}

// Calls every accessor on `ref` and on what it holds, `depth` levels down
// and at most 8 elements wide (elements may share their targets); counts
// the problems whose offset lies outside the buffer or that say nothing.
void Walk(const Ref& ref, ByteView bytes, int depth, int* bad_problems) {
  Problem why;
  const auto check = [&](bool ok) {
    if (!ok && (why.offset > bytes.size() || why.what.empty())) ++*bad_problems;
  };
  check(ref.AsInt(&why).has_value());
  check(ref.AsUInt(&why).has_value());
  check(ref.AsDouble(&why).has_value());
  check(ref.AsBool(&why).has_value());
  check(ref.AsString(&why).has_value());
  check(ref.AsBlob(&why).has_value());
  check(ref.AsKey(&why).has_value());
  const std::optional<Map> map = ref.AsMap(&why);
  check(map.has_value());
  const std::optional<Vector> vector = ref.AsVector(&why);
  check(vector.has_value());
  const std::optional<TypedVector> typed = ref.AsTypedVector(&why);
  check(typed.has_value());
  if (depth == 0) return;
  if (map) {
    for (uint64_t i = 0; i < std::min<uint64_t>(map->size(), 8); ++i) {
      if (map->key_offset(i) + map->key(i).size() >= bytes.size()) ++*bad_problems;
      map->Find(map->key(i));
      Walk(map->value(i), bytes, depth - 1, bad_problems);
    }
  }
  if (vector) {
    for (uint64_t i = 0; i < std::min<uint64_t>(vector->size(), 8); ++i) {
      Walk(vector->At(i), bytes, depth - 1, bad_problems);
    }
  }
  if (typed) {
    for (uint64_t i = 0; i < std::min<uint64_t>(typed->size(), 8); ++i) {
      Walk(typed->At(i), bytes, depth - 1, bad_problems);
    }
  }
}

int BadProblemsOfWalk(const Bytes& bytes) {
  int bad = 0;
  Problem why;
  if (const std::optional<Ref> root = Root(View(bytes), &why)) {
    Walk(*root, View(bytes), 4, &bad);
  } else if (why.offset > bytes.size() || why.what.empty()) {
    ++bad;
  }
  return bad;
}

// A map of width 1 laid out by hand: `keys_data` (the key strings), the keys
// vector whose key i starts at `key_starts[i]`, then the map of INT values.
Bytes HandMap(const std::string& keys_data, const std::vector<uint8_t>& key_starts,
              const std::vector<int8_t>& values) {
  Bytes bytes(keys_data.begin(), keys_data.end());
  bytes.push_back(static_cast<uint8_t>(key_starts.size()));
  const size_t keys = bytes.size();
  for (size_t i = 0; i < key_starts.size(); ++i) {
    bytes.push_back(static_cast<uint8_t>(keys + i - key_starts[i]));
  }
  const size_t keys_slot = bytes.size();
  bytes.push_back(static_cast<uint8_t>(keys_slot - keys));
  bytes.push_back(1);  // the keys' width
  bytes.push_back(static_cast<uint8_t>(values.size()));
  const size_t values_at = bytes.size();
  for (const int8_t value : values) bytes.push_back(static_cast<uint8_t>(value));
  for (size_t i = 0; i < values.size(); ++i) bytes.push_back(kIntWidth1);
  const size_t root = bytes.size();
  bytes.push_back(static_cast<uint8_t>(root - values_at));
  bytes.push_back(kMapWidth1);
  bytes.push_back(1);
  return bytes;
}

TEST(FlexbufferTest, RootMapGivesEveryKeyAndValueOfTheCustomOperatorOptions) {
  const std::string package = SamplePackage();
  const Bytes bytes = SampleMap(package);
  Problem why;
  const std::optional<Ref> root = Root(View(bytes), &why);
  ASSERT_TRUE(root) << why.what;
  EXPECT_EQ(root->type(), Type::kMap);
  EXPECT_EQ(root->offset(), bytes.size() - 2 - root->slot_width());

  const Map map = RootMap(bytes);
  ASSERT_EQ(map.size(), 5u);
  EXPECT_TRUE(map.keys_sorted_unique());
  EXPECT_FALSE(map.first_unordered_key());
  const std::vector<std::string> keys = {"1", "4", "5", "6", "7"};
  for (uint64_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(map.key(i), keys[i]);
    const uint64_t at = map.key_offset(i);
    EXPECT_EQ(std::string(bytes.begin() + at, bytes.begin() + at + 2), keys[i] + '\0');
    const Map::Lookup found = map.Find(keys[i]);
    EXPECT_EQ(found.by_search, i);
    EXPECT_EQ(found.by_scan, i);
  }
  EXPECT_FALSE(map.Find("3").by_search);
  EXPECT_FALSE(map.Find("3").by_scan);
  EXPECT_EQ(map.Find(std::string_view("4\0x", 3)).by_search, 1u) << "a key is a C string";
  EXPECT_EQ(map.key(5), "");
  EXPECT_EQ(map.value(5).type(), Type::kNull);

  EXPECT_EQ(ValueOf(map, "1").AsInt(&why), 0);
  EXPECT_EQ(ValueOf(map, "5").AsInt(&why), -1);

  const Ref package_ref = ValueOf(map, "4");
  EXPECT_EQ(package_ref.type(), Type::kString);
  EXPECT_EQ(package_ref.byte_width(), 2) << "300 bytes take a 2-byte length";
  const std::optional<Slice> string = package_ref.AsString(&why);
  ASSERT_TRUE(string) << why.what;
  EXPECT_EQ(string->text(), package);
  EXPECT_EQ(
      std::string(bytes.begin() + string->offset, bytes.begin() + string->offset + package.size()),
      package);

  const std::optional<TypedVector> chips = ValueOf(map, "6").AsTypedVector(&why);
  ASSERT_TRUE(chips) << why.what;
  EXPECT_EQ(chips->element_type(), Type::kInt);
  EXPECT_EQ(chips->byte_width(), 4);
  ASSERT_EQ(chips->size(), 1u);
  EXPECT_EQ(chips->At(0).AsInt(&why), 18);
  EXPECT_EQ(chips->At(1).type(), Type::kNull);

  const std::optional<Vector> more = ValueOf(map, "7").AsVector(&why);
  ASSERT_TRUE(more) << why.what;
  ASSERT_EQ(more->size(), 2u);
  EXPECT_EQ(more->At(0).AsString(&why)->text(), "a");
  EXPECT_EQ(more->At(1).AsString(&why)->text(), "bc");
  EXPECT_EQ(more->At(2).type(), Type::kNull);

  // The runtime's own reading of the same bytes.
  const flexbuffers::String runtime = flexbuffers::GetRoot(bytes).AsMap()["4"].AsString();
  EXPECT_EQ(std::string(runtime.c_str(), runtime.length()), package);
}

TEST(FlexbufferTest, ScalarsAndVectorsOfEveryKindReadAsWritten) {
  flexbuffers::Builder builder;
  const int16_t triple[] = {1, -2, 3};
  const bool flags[] = {true, false};
  const double doubles[] = {0.5, -8.0};
  const uint8_t small[] = {7, 255};
  builder.Map([&] {
    builder.Int("i8", -5);
    builder.Int("i64", std::numeric_limits<int64_t>::min());
    builder.UInt("u", 70000);
    builder.UInt("u64", std::numeric_limits<uint64_t>::max());
    builder.Bool("t", true);
    builder.Bool("f", false);
    builder.Double("d", 1.25);
    builder.Float("fl", 0.25f);
    builder.IndirectInt("ii", -300);
    builder.IndirectUInt("iu", uint64_t{1} << 40);
    builder.IndirectDouble("id", 0.1);
    builder.IndirectFloat("if", 2.5f);
    builder.Null("n");
    builder.Blob("b", "x\0y", 3);
    builder.TypedVector("keys", [&] {
      builder.Key("x");
      builder.Key("yz");
    });
    builder.TypedVector("strings", [&] {
      builder.String("ab");
      builder.String("c");
    });
    builder.FixedTypedVector("triple", triple, 3);
    builder.Vector("flags", flags, 2);
    builder.Vector("doubles", doubles, 2);
    builder.Vector("small", small, 2);
    builder.Vector("mixed", [&] {
      builder.Int(1);
      builder.String("s");
      builder.Null();
      builder.Bool(true);
    });
    builder.Map("inner", [&] { builder.Int("a", 1); });
  });
  builder.Finish();
  const Bytes& bytes = builder.GetBuffer();
  const Map map = RootMap(bytes);
  EXPECT_TRUE(map.keys_sorted_unique());
  Problem why;

  EXPECT_EQ(ValueOf(map, "i8").AsInt(&why), -5);
  EXPECT_EQ(ValueOf(map, "i64").AsInt(&why), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ValueOf(map, "u").AsUInt(&why), 70000u);
  EXPECT_EQ(ValueOf(map, "u64").AsUInt(&why), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(ValueOf(map, "t").AsBool(&why), true);
  EXPECT_EQ(ValueOf(map, "f").AsBool(&why), false);
  EXPECT_EQ(ValueOf(map, "d").AsDouble(&why), 1.25);
  EXPECT_EQ(ValueOf(map, "fl").AsDouble(&why), 0.25);
  EXPECT_EQ(ValueOf(map, "ii").type(), Type::kIndirectInt);
  EXPECT_EQ(ValueOf(map, "ii").AsInt(&why), -300);
  EXPECT_EQ(ValueOf(map, "iu").AsUInt(&why), uint64_t{1} << 40);
  EXPECT_EQ(ValueOf(map, "id").AsDouble(&why), 0.1);
  EXPECT_EQ(ValueOf(map, "if").AsDouble(&why), 2.5);
  EXPECT_EQ(ValueOf(map, "n").type(), Type::kNull);

  const std::optional<Slice> blob = ValueOf(map, "b").AsBlob(&why);
  ASSERT_TRUE(blob) << why.what;
  EXPECT_EQ(blob->text(), std::string_view("x\0y", 3));

  const std::optional<TypedVector> keys = ValueOf(map, "keys").AsTypedVector(&why);
  ASSERT_TRUE(keys) << why.what;
  EXPECT_EQ(keys->element_type(), Type::kKey);
  ASSERT_EQ(keys->size(), 2u);
  EXPECT_EQ(keys->At(1).AsKey(&why)->text(), "yz");

  const Ref strings_ref = ValueOf(map, "strings");
  EXPECT_EQ(strings_ref.type(), Type::kVectorStringDeprecated);
  const std::optional<TypedVector> strings = strings_ref.AsTypedVector(&why);
  ASSERT_TRUE(strings) << why.what;
  EXPECT_EQ(strings->element_type(), Type::kKey) << "read up to their NUL, as flexbuffers does";
  EXPECT_EQ(strings->At(0).AsKey(&why)->text(), "ab");

  const Ref triple_ref = ValueOf(map, "triple");
  EXPECT_EQ(triple_ref.type(), Type::kVectorInt3);
  const std::optional<TypedVector> fixed = triple_ref.AsTypedVector(&why);
  ASSERT_TRUE(fixed) << why.what;
  EXPECT_EQ(fixed->size(), 3u);
  EXPECT_EQ(fixed->byte_width(), 2);
  EXPECT_EQ(fixed->At(1).AsInt(&why), -2);

  const std::optional<TypedVector> bools = ValueOf(map, "flags").AsTypedVector(&why);
  ASSERT_TRUE(bools) << why.what;
  EXPECT_EQ(bools->element_type(), Type::kBool);
  EXPECT_EQ(bools->At(0).AsBool(&why), true);
  EXPECT_EQ(bools->At(1).AsBool(&why), false);
  EXPECT_EQ(ValueOf(map, "doubles").AsTypedVector(&why)->At(1).AsDouble(&why), -8.0);
  EXPECT_EQ(ValueOf(map, "small").AsTypedVector(&why)->At(1).AsUInt(&why), 255u);

  const std::optional<Vector> mixed = ValueOf(map, "mixed").AsVector(&why);
  ASSERT_TRUE(mixed) << why.what;
  ASSERT_EQ(mixed->size(), 4u);
  EXPECT_EQ(mixed->At(0).AsInt(&why), 1);
  EXPECT_EQ(mixed->At(1).AsString(&why)->text(), "s");
  EXPECT_EQ(mixed->At(2).type(), Type::kNull);
  EXPECT_EQ(mixed->At(3).AsBool(&why), true);

  const std::optional<Map> inner = ValueOf(map, "inner").AsMap(&why);
  ASSERT_TRUE(inner) << why.what;
  EXPECT_EQ(inner->key(0), "a");
  EXPECT_EQ(inner->value(0).AsInt(&why), 1);
}

TEST(FlexbufferTest, EachAccessorRefusesOtherTypesNamingTheType) {
  const Bytes bytes = SampleMap();
  const Map map = RootMap(bytes);
  const Ref string = ValueOf(map, "4");
  Problem why;
  EXPECT_FALSE(string.AsInt(&why));
  EXPECT_EQ(why.offset, string.offset());
  EXPECT_NE(why.what.find("is of type STRING, not INT"), std::string::npos) << why.what;
  EXPECT_FALSE(string.AsUInt(&why));
  EXPECT_FALSE(string.AsDouble(&why));
  EXPECT_FALSE(string.AsBool(&why));
  EXPECT_FALSE(string.AsBlob(&why));
  EXPECT_FALSE(string.AsKey(&why));
  EXPECT_FALSE(string.AsMap(&why));
  EXPECT_FALSE(string.AsVector(&why));
  EXPECT_FALSE(string.AsTypedVector(&why));
  EXPECT_FALSE(ValueOf(map, "1").AsUInt(&why)) << "an INT is not a UINT";
  EXPECT_FALSE(ValueOf(map, "6").AsVector(&why)) << "a typed vector is not an untyped one";
  EXPECT_FALSE(ValueOf(map, "7").AsTypedVector(&why));
  EXPECT_FALSE(map.value(5).AsInt(nullptr)) << "a problem may go unrecorded";
}

TEST(FlexbufferTest, BlobWhereAStringIsExpectedIsRefusedAndReadableAsBlob) {
  flexbuffers::Builder builder;
  builder.Map([&] {
    builder.Int("1", 0);
    builder.Blob("4", "DWN1", 4);
  });
  builder.Finish();
  const Bytes& bytes = builder.GetBuffer();
  const Ref package = ValueOf(RootMap(bytes), "4");
  EXPECT_EQ(package.type(), Type::kBlob);
  Problem why;
  EXPECT_FALSE(package.AsString(&why));
  EXPECT_NE(why.what.find("BLOB"), std::string::npos) << why.what;
  ASSERT_TRUE(package.AsBlob(&why));
  EXPECT_EQ(package.AsBlob(&why)->text(), "DWN1");
  // What the runtime makes of it: an empty string.
  EXPECT_EQ(flexbuffers::GetRoot(bytes).AsMap()["4"].AsString().length(), 0u);
}

TEST(FlexbufferTest, EmptyObjectsAtTheRootMayEndAtTheirSlot) {
  // A writer puts an empty object's data, which has no bytes, where the root
  // slot begins: an offset of 0.
  flexbuffers::Builder map;
  map.Map([] {});
  map.Finish();
  Problem why;
  const std::optional<Ref> root = Root(View(map.GetBuffer()), &why);
  ASSERT_TRUE(root) << why.what;
  const std::optional<Map> empty = root->AsMap(&why);
  ASSERT_TRUE(empty) << why.what;
  EXPECT_EQ(empty->size(), 0u);
  EXPECT_FALSE(empty->Find("4").by_search);

  flexbuffers::Builder vector;
  vector.Vector([] {});
  vector.Finish();
  const std::optional<Vector> no_elements = Root(View(vector.GetBuffer()), &why)->AsVector(&why);
  ASSERT_TRUE(no_elements) << why.what;
  EXPECT_EQ(no_elements->size(), 0u);

  flexbuffers::Builder string;
  string.String("");
  string.Finish();
  const std::optional<Slice> no_bytes = Root(View(string.GetBuffer()), &why)->AsString(&why);
  ASSERT_TRUE(no_bytes) << why.what;
  EXPECT_EQ(no_bytes->text(), "");
}

TEST(FlexbufferTest, TruncatedAtEveryLengthGivesAProblemAndNeverAPackage) {
  const Bytes bytes = SampleMap();
  for (size_t length = 0; length < bytes.size(); ++length) {
    const Bytes prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length));
    Problem why;
    EXPECT_FALSE(PackageOf(View(prefix), &why)) << "length " << length;
    EXPECT_FALSE(why.what.empty()) << "length " << length;
    EXPECT_LE(why.offset, length);
    EXPECT_EQ(BadProblemsOfWalk(prefix), 0) << "length " << length;
  }
}

TEST(FlexbufferTest, RootWidthOtherThanOneTwoFourOrEightIsRefused) {
  for (const uint8_t width : {0, 3, 5, 16}) {
    Bytes bytes = SampleMap();
    bytes.back() = width;
    Problem why;
    EXPECT_FALSE(Root(View(bytes), &why)) << static_cast<int>(width);
    EXPECT_EQ(why.offset, bytes.size() - 1);
    EXPECT_NE(why.what.find("a width is 1, 2, 4 or 8"), std::string::npos) << why.what;
  }
  Problem why;
  EXPECT_FALSE(Root(View(Bytes{0x00, 0x04, 0x08}), &why)) << "8 bytes do not fit before the type";
  EXPECT_FALSE(Root(View(Bytes{0x04, 0x01}), &why)) << "too short";
  EXPECT_FALSE(Root(View(Bytes{0x00, 30 << 2, 0x01}), &why)) << "type 30";
  EXPECT_NE(why.what.find("type 30"), std::string::npos) << why.what;
}

TEST(FlexbufferTest, KeysWidthOfThreeIsRefused) {
  const Bytes good = SampleMap();
  const Map map = RootMap(good);
  Bytes bytes = good;
  const uint64_t keys_width_at = map.offset() - 2 * map.byte_width();
  ASSERT_EQ(bytes[keys_width_at], map.keys_width());
  bytes[keys_width_at] = 3;
  Problem why;
  EXPECT_FALSE(Root(View(bytes), &why)->AsMap(&why));
  EXPECT_EQ(why.offset, keys_width_at);
  EXPECT_NE(why.what.find("keys vector's width as 3 bytes"), std::string::npos) << why.what;
}

TEST(FlexbufferTest, ForwardAndSelfPointingOffsetsAreRefused) {
  // "abc" as the root string: its length, the bytes, the NUL, then the root.
  const Bytes good = {3, 'a', 'b', 'c', 0, 4, kStringWidth1, 1};
  Problem why;
  ASSERT_EQ(Root(View(good), &why)->AsString(&why)->text(), "abc") << why.what;

  Bytes self = good;
  self[5] = 0;  // the root points at its own slot
  EXPECT_FALSE(Root(View(self), &why)->AsString(&why));
  EXPECT_NE(why.what.find("the slot that refers to it"), std::string::npos) << why.what;

  Bytes before_start = good;
  before_start[5] = 6;
  EXPECT_FALSE(Root(View(before_start), &why)->AsString(&why));
  EXPECT_NE(why.what.find("before the start of the buffer"), std::string::npos) << why.what;

  // An 8-byte offset of 2^64 - 2, which wraps around to 2 bytes forward.
  Bytes forward(8, 0xff);
  forward[0] = 0xfe;
  forward.insert(forward.end(), {kStringWidth1, 8});
  EXPECT_FALSE(Root(View(forward), &why)->AsString(&why));
  EXPECT_EQ(why.offset, 0u);

  // A vector whose element points at the vector itself: a cycle.
  const Bytes cycle = {1, 0, kVectorWidth1, 2, kVectorWidth1, 1};
  const std::optional<Vector> outer = Root(View(cycle), &why)->AsVector(&why);
  ASSERT_TRUE(outer) << why.what;
  EXPECT_FALSE(outer->At(0).AsVector(&why));
  EXPECT_EQ(why.offset, 1u);
}

TEST(FlexbufferTest, StringWithoutItsNulIsRefused) {
  const Bytes good = SampleMap();
  Problem why;
  const Slice package = *ValueOf(RootMap(good), "4").AsString(&why);
  Bytes bytes = good;
  bytes[package.offset + package.bytes.size()] = 'x';
  EXPECT_FALSE(ValueOf(RootMap(bytes), "4").AsString(&why));
  EXPECT_EQ(why.offset, package.offset + package.bytes.size());
  EXPECT_NE(why.what.find("not the NUL"), std::string::npos) << why.what;
}

TEST(FlexbufferTest, StringLengthRunningPastTheEndOrItsSlotIsRefused) {
  const Bytes good = SampleMap();
  Problem why;
  const Ref package_ref = ValueOf(RootMap(good), "4");
  const Slice package = *package_ref.AsString(&why);
  ASSERT_EQ(package_ref.byte_width(), 2);
  const auto with_length = [&](uint16_t length) {
    Bytes bytes = good;
    bytes[package.offset - 2] = static_cast<uint8_t>(length);
    bytes[package.offset - 1] = static_cast<uint8_t>(length >> 8);
    return bytes;
  };
  const Bytes past_end = with_length(0xffff);
  EXPECT_FALSE(ValueOf(RootMap(past_end), "4").AsString(&why));
  EXPECT_EQ(why.offset, package.offset);
  EXPECT_NE(why.what.find("runs past the end of the"), std::string::npos) << why.what;

  // Still inside the buffer, but over the map that refers to it.
  const Bytes past_slot = with_length(static_cast<uint16_t>(package_ref.offset() - package.offset));
  EXPECT_FALSE(ValueOf(RootMap(past_slot), "4").AsString(&why));
  EXPECT_NE(why.what.find("the slot that refers to it"), std::string::npos) << why.what;
}

TEST(FlexbufferTest, UnsortedKeysAreReportedAndMissedByTheBinarySearch) {
  const Bytes good = SampleMap();
  Bytes bytes = good;
  bytes[RootMap(good).key_offset(1)] = '9';  // keys 1 9 5 6 7
  const Map map = RootMap(bytes);
  EXPECT_FALSE(map.keys_sorted_unique());
  EXPECT_EQ(map.first_unordered_key(), 2u);
  const Map::Lookup nine = map.Find("9");
  EXPECT_FALSE(nine.by_search);
  EXPECT_EQ(nine.by_scan, 1u);
  EXPECT_TRUE(flexbuffers::GetRoot(bytes).AsMap()["9"].IsNull()) << "the runtime misses it too";
}

TEST(FlexbufferTest, DuplicateKeysAreReportedAndTheSearchFindsTheRuntimesOne) {
  const Bytes good = SampleMap();
  Bytes bytes = good;
  bytes[RootMap(good).key_offset(2)] = '4';  // keys 1 4 4 6 7
  const Map map = RootMap(bytes);
  EXPECT_EQ(map.first_unordered_key(), 2u);
  const Map::Lookup four = map.Find("4");
  EXPECT_EQ(four.by_search, 2u) << "the first probe of five keys is the middle one";
  EXPECT_EQ(four.by_scan, 1u);
  Problem why;
  EXPECT_EQ(map.value(*four.by_search).AsInt(&why),
            flexbuffers::GetRoot(bytes).AsMap()["4"].AsInt64());
}

TEST(FlexbufferTest, KeysVectorOfAnotherLengthThanTheValuesIsRefused) {
  const Bytes good = SampleMap();
  const Map map = RootMap(good);
  Bytes bytes = good;
  const uint64_t count_at = map.keys_offset() - map.keys_width();
  ASSERT_EQ(bytes[count_at], 5);
  bytes[count_at] = 4;
  Problem why;
  EXPECT_FALSE(Root(View(bytes), &why)->AsMap(&why));
  EXPECT_EQ(why.offset, count_at);
  EXPECT_NE(why.what.find("has 5 values but its keys vector"), std::string::npos) << why.what;
  EXPECT_NE(why.what.find("has 4 keys"), std::string::npos) << why.what;
}

TEST(FlexbufferTest, HandMadeMapReadsAsTheRuntimeReadsIt) {
  const Bytes bytes = HandMap(std::string("a\0b\0", 4), {0, 2}, {1, 2});
  ASSERT_TRUE(flexbuffers::VerifyBuffer(bytes.data(), bytes.size()));
  const Map map = RootMap(bytes);
  EXPECT_EQ(map.key(1), "b");
  Problem why;
  EXPECT_EQ(ValueOf(map, "b").AsInt(&why), flexbuffers::GetRoot(bytes).AsMap()["b"].AsInt64());
}

TEST(FlexbufferTest, KeyWithoutANulBeforeItsSlotIsRefused) {
  const Bytes bytes = HandMap("axby", {0, 2}, {1, 2});
  Problem why;
  EXPECT_FALSE(Root(View(bytes), &why)->AsMap(&why));
  EXPECT_EQ(why.offset, 0u);
  EXPECT_NE(why.what.find("key 0 at 0x0 has no NUL"), std::string::npos) << why.what;
}

TEST(FlexbufferTest, KeysSharingBytesBeyondWhatPrecedesTheMapAreRefused) {
  // "aaaaaaaa" and "aaaaaaaaa" share their bytes: sorted and unique, but
  // their 19 bytes lie in the 10 before the keys vector.
  const Bytes bytes = HandMap(std::string("aaaaaaaaa\0", 10), {1, 0}, {1, 2});
  ASSERT_TRUE(flexbuffers::VerifyBuffer(bytes.data(), bytes.size()));
  Problem why;
  EXPECT_FALSE(Root(View(bytes), &why)->AsMap(&why));
  EXPECT_NE(why.what.find("its keys share bytes"), std::string::npos) << why.what;
}

// Random maps as a writer makes them, at every minimum width: every key is
// found by both searches and reads back the value written, and the bytes
// satisfy the flexbuffers Verifier too.
RC_GTEST_PROP(FlexbufferProperty, WriterMapsReadBack, ()) {
  const auto key_byte =
      rc::gen::map(rc::gen::inRange(1, 256), [](int c) { return static_cast<char>(c); });
  using Entry = std::tuple<int, int64_t, std::string>;  // kind: 0 int, 1 string, 2 blob
  const auto entries = *rc::gen::container<std::map<std::string, Entry>>(
      rc::gen::container<std::string>(key_byte),
      rc::gen::tuple(rc::gen::inRange(0, 3), rc::gen::arbitrary<int64_t>(),
                     rc::gen::arbitrary<std::string>()));
  const int min_width = *rc::gen::inRange(0, 4);

  flexbuffers::Builder builder;
  builder.ForceMinimumBitWidth(static_cast<flexbuffers::BitWidth>(min_width));
  builder.Map([&] {
    for (const auto& [key, entry] : entries) {
      const auto& [kind, number, text] = entry;
      if (kind == 0) builder.Int(key.c_str(), number);
      if (kind == 1) builder.String(key.c_str(), text);
      if (kind == 2) builder.Blob(key.c_str(), text.data(), text.size());
    }
  });
  builder.Finish();
  const Bytes& bytes = builder.GetBuffer();
  RC_ASSERT(flexbuffers::VerifyBuffer(bytes.data(), bytes.size()));

  Problem why;
  const std::optional<Ref> root = Root(View(bytes), &why);
  RC_ASSERT(root.has_value());
  const std::optional<Map> map = root->AsMap(&why);
  RC_ASSERT(map.has_value());
  RC_ASSERT(map->size() == entries.size());
  RC_ASSERT(map->keys_sorted_unique());
  for (const auto& [key, entry] : entries) {
    const Map::Lookup found = map->Find(key);
    RC_ASSERT(found.by_search.has_value());
    RC_ASSERT(found.by_search == found.by_scan);
    RC_ASSERT(map->key(*found.by_search) == key);
    const Ref value = map->value(*found.by_search);
    const auto& [kind, number, text] = entry;
    if (kind == 0) RC_ASSERT(value.AsInt(&why) == std::optional<int64_t>(number));
    if (kind == 1) RC_ASSERT(value.AsString(&why)->text() == text);
    if (kind == 2) RC_ASSERT(value.AsBlob(&why)->text() == text);
  }
}

// Up to three bytes of the sample changed, and the result perhaps cut short:
// reading never leaves the buffer (the ASan build checks that), every
// problem is placed inside it, and whenever the reader and the flexbuffers
// Verifier both accept the package, the runtime's lookup finds the same bytes.
RC_GTEST_PROP(FlexbufferProperty, ChangedBytesNeverCrashAndAgreeWithTheRuntime, ()) {
  Bytes bytes = SampleMap(*rc::gen::container<std::string>(rc::gen::inRange<char>(0, 4)));
  const size_t count = *rc::gen::inRange<size_t>(0, 4);
  const auto changes = *rc::gen::container<std::vector<std::pair<size_t, uint8_t>>>(
      count,
      rc::gen::pair(rc::gen::inRange<size_t>(0, bytes.size()), rc::gen::arbitrary<uint8_t>()));
  for (const auto& [at, value] : changes) bytes[at] = value;
  if (*rc::gen::arbitrary<bool>()) bytes.resize(*rc::gen::inRange<size_t>(0, bytes.size()));

  RC_ASSERT(BadProblemsOfWalk(bytes) == 0);
  Problem why;
  const std::optional<std::string> package = PackageOf(View(bytes), &why);
  if (package && flexbuffers::VerifyBuffer(bytes.data(), bytes.size())) {
    const flexbuffers::String runtime = flexbuffers::GetRoot(bytes).AsMap()["4"].AsString();
    RC_ASSERT(std::string(runtime.c_str(), runtime.length()) == *package);
  }
}

}  // namespace
}  // namespace accelcheck::flex
