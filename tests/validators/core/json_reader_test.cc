// The pull reader against the text it reads: random documents written with
// random key order, whitespace and escapes are read back value for value
// through every path (the integer and list fast paths, predicted keys, the
// general path), and numbers agree with the standard library's conversions.
#include "validators/core/json_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <nlohmann/json.hpp>

namespace accelcheck {
namespace {

using nlohmann::json;

// ---- Random documents --------------------------------------------------------

std::string RandomKey(std::mt19937_64& rng) {
  static const char* const kKeys[] = {"lower",       "upper", "size", "transfer_id", "a/b", "x~y",
                                      "tile_num_10", "é",     ""};
  return kKeys[rng() % std::size(kKeys)];
}

json RandomNumber(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0:
      return static_cast<int64_t>(rng() % 1000);
    case 1:
      return -static_cast<int64_t>(rng() % 100000);
    case 2:
      return static_cast<int64_t>(rng());  // any int64, up to 19 digits
    case 3:
      return static_cast<double>(rng() % 100000) / 8;  // short decimals
    case 4:
      return std::ldexp(static_cast<double>(rng() % (uint64_t{1} << 53)),
                        static_cast<int>(rng() % 200) - 100);
    default:
      return static_cast<double>(static_cast<int64_t>(rng() % 2000) - 1000) / 1000;
  }
}

json RandomValue(std::mt19937_64& rng, int depth) {
  const int kind = depth >= 4 ? static_cast<int>(rng() % 4) : static_cast<int>(rng() % 7);
  switch (kind) {
    case 0:
      return RandomNumber(rng);
    case 1:
      return RandomKey(rng);
    case 2:
      return rng() % 2 == 0;
    case 3:
      return nullptr;
    case 4: {  // integer lists, the shape the fast paths read
      json list = json::array();
      const size_t n = rng() % 6;
      for (size_t i = 0; i < n; ++i)
        list.push_back(rng() % 8 == 0 ? RandomNumber(rng) : json(rng() % 600));
      return list;
    }
    case 5: {
      json list = json::array();
      const size_t n = rng() % 4;
      for (size_t i = 0; i < n; ++i) list.push_back(RandomValue(rng, depth + 1));
      return list;
    }
    default: {
      json object = json::object();
      const size_t n = rng() % 5;
      for (size_t i = 0; i < n; ++i) object[RandomKey(rng)] = RandomValue(rng, depth + 1);
      return object;
    }
  }
}

// Writes `value` with random whitespace, keys in a random order (recorded in
// `key_orders`, one list per object in document order) and random escapes.
class Writer {
 public:
  explicit Writer(std::mt19937_64* rng) : rng_(*rng) {}

  std::string text;
  std::vector<std::vector<std::string>> key_orders;

  void Value(const json& value) {
    Space();
    if (value.is_object()) {
      std::vector<std::string> keys;
      for (const auto& item : value.items()) keys.push_back(item.key());
      std::shuffle(keys.begin(), keys.end(), rng_);
      key_orders.push_back(keys);
      text += '{';
      for (size_t i = 0; i < keys.size(); ++i) {
        if (i > 0) Comma();
        Space();
        String(keys[i]);
        Space();
        text += ':';
        Value(value.at(keys[i]));
      }
      Space();
      text += '}';
    } else if (value.is_array()) {
      text += '[';
      for (size_t i = 0; i < value.size(); ++i) {
        if (i > 0) Comma();
        Value(value[i]);
      }
      Space();
      text += ']';
    } else if (value.is_string()) {
      String(value.get<std::string>());
    } else {
      text += value.dump();
    }
    Space();
  }

 private:
  void Space() {
    static const char kSpace[] = {' ', '\n', '\t', '\r'};
    while (rng_() % 5 == 0) text += kSpace[rng_() % 4];
  }
  void Comma() {
    Space();
    text += ',';
  }
  void String(const std::string& s) {
    text += '"';
    for (char c : s) {
      if (rng_() % 8 == 0 && static_cast<unsigned char>(c) < 0x80) {
        char escape[8];
        std::snprintf(escape, sizeof(escape), "\\u%04x", static_cast<unsigned char>(c));
        text += escape;
      } else {
        text += c;
      }
    }
    text += '"';
  }
  std::mt19937_64& rng_;
};

// ---- Reading back ------------------------------------------------------------

// Reads one value, trying the fast paths first and checking that a declined
// fast path consumed nothing.
class Walker {
 public:
  Walker(JsonReader* reader, const std::vector<std::vector<std::string>>* key_orders,
         std::mt19937_64* rng)
      : reader_(*reader), key_orders_(*key_orders), rng_(*rng) {}

  json Value() {
    switch (reader_.Peek()) {
      case JsonKind::kObject:
        return Object();
      case JsonKind::kArray:
        return Array();
      case JsonKind::kString: {
        std::string_view s;
        RC_ASSERT(reader_.ReadString(&s));
        return std::string(s);
      }
      case JsonKind::kNumber:
        return Number();
      case JsonKind::kTrue:
      case JsonKind::kFalse: {
        bool b = false;
        RC_ASSERT(reader_.ReadBool(&b));
        return b;
      }
      case JsonKind::kNull:
        RC_ASSERT(reader_.ReadNull());
        return nullptr;
      case JsonKind::kInvalid:
        break;
    }
    RC_FAIL("unexpected invalid value at " + std::to_string(reader_.offset()));
  }

 private:
  json Object() {
    const std::vector<std::string>& order = key_orders_.at(next_object_++);
    RC_ASSERT(reader_.BeginObject());
    json object = json::object();
    std::string_view key;
    uint64_t key_offset = 0;
    for (size_t i = 0;; ++i) {
      // Predict right half of the time, and sometimes predict a wrong key.
      std::string expected;
      if (i < order.size()) expected = rng_() % 2 == 0 ? order[i] : "lower";
      if (!reader_.NextKey(&key, &key_offset, expected)) {
        RC_ASSERT(i == order.size());
        break;
      }
      RC_ASSERT(i < order.size());
      RC_ASSERT(std::string(key) == order[i]);
      const std::string name(key);
      object[name] = Value();
    }
    RC_ASSERT(!reader_.failed());
    return object;
  }

  json Array() {
    const uint64_t at = reader_.offset();
    if (rng_() % 2 == 0) {
      std::vector<int64_t> values = {-1};  // appended to, and restored on failure
      if (reader_.TryReadIntList(&values)) {
        values.erase(values.begin());
        return values;
      }
      RC_ASSERT(reader_.offset() == at);
      RC_ASSERT(values == std::vector<int64_t>{-1});
    } else {
      int64_t four[4];
      if (reader_.TryReadInts(four, 4)) return std::vector<int64_t>(four, four + 4);
      RC_ASSERT(reader_.offset() == at);
    }
    RC_ASSERT(reader_.BeginArray());
    json list = json::array();
    while (reader_.NextElement()) list.push_back(Value());
    RC_ASSERT(!reader_.failed());
    return list;
  }

  json Number() {
    const uint64_t at = reader_.offset();
    int64_t fast = 0;
    if (rng_() % 2 == 0 && reader_.TryReadInt(&fast)) return fast;
    RC_ASSERT(reader_.offset() == at);
    JsonNumber number;
    RC_ASSERT(reader_.ReadNumber(&number));
    RC_ASSERT(!number.integral || number.fits);  // the documents hold int64 values only
    if (number.integral) return number.integer;
    return number.real;
  }

  JsonReader& reader_;
  const std::vector<std::vector<std::string>>& key_orders_;
  std::mt19937_64& rng_;
  size_t next_object_ = 0;
};

// Integers that do not fit int64 come back as doubles from nlohmann; compare
// numbers by value.
bool SameValue(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
    return a.get<int64_t>() == b.get<int64_t>();
  }
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameValue(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& item : a.items()) {
      if (!b.contains(item.key()) || !SameValue(item.value(), b.at(item.key()))) return false;
    }
    return true;
  }
  return a == b;
}

RC_GTEST_PROP(GeminiJsonReader, ReadsBackWhatWasWrittenThroughEveryPath, ()) {
  std::mt19937_64 rng(*rc::gen::arbitrary<uint64_t>());
  const json document = RandomValue(rng, 0);
  Writer writer(&rng);
  writer.Value(document);
  // Trailing space puts every list far enough from the end for the compact
  // scanner, which only runs with a window of bytes after it.
  if (rng() % 2 == 0) writer.text.append(256, ' ');
  JsonReader reader(AsBytes(writer.text), 64);
  Walker walker(&reader, &writer.key_orders, &rng);
  const json read = walker.Value();
  RC_ASSERT(reader.Finish());
  RC_ASSERT(SameValue(read, document));
}

// Decimals of the short form take the fast path: it must round as strtod does.
RC_GTEST_PROP(GeminiJsonReader, ShortDecimalsRoundAsStrtod, ()) {
  const uint64_t mantissa = *rc::gen::inRange<uint64_t>(0, uint64_t{1} << 53);
  std::string digits = std::to_string(mantissa);
  const size_t point = *rc::gen::inRange<size_t>(1, digits.size() + 1);
  std::string text =
      digits.substr(0, point) + "." + (point < digits.size() ? digits.substr(point) : "5");
  if (*rc::gen::arbitrary<bool>()) text = "-" + text;
  JsonReader reader(AsBytes(text), 4);
  JsonNumber number;
  RC_ASSERT(reader.ReadNumber(&number));
  RC_ASSERT(reader.Finish());
  RC_ASSERT(!number.integral);
  RC_ASSERT(number.real == std::strtod(text.c_str(), nullptr));
}

TEST(GeminiJsonReader, IntegerFastPathStopsWhereTheGeneralPathDecides) {
  struct Case {
    const char* text;
    bool fast;  // TryReadInt takes it
    bool integral;
    bool fits;
    int64_t value;
  };
  const Case cases[] = {
      {"0", true, true, true, 0},
      {"-0", true, true, true, 0},
      {"12345678901234567", true, true, true, 12345678901234567},     // 17 digits
      {"123456789012345678", false, true, true, 123456789012345678},  // 18 digits: general path
      {"9223372036854775807", false, true, true, INT64_MAX},
      {"-9223372036854775808", false, true, true, INT64_MIN},
      {"9223372036854775808", false, true, false, 0},
      {"1.5", false, false, true, 0},
      {"1e3", false, false, true, 0},
      {"2E-1", false, false, true, 0},
  };
  for (const Case& c : cases) {
    const std::string text = c.text;
    JsonReader fast_reader(AsBytes(text), 4);
    int64_t fast = 0;
    EXPECT_EQ(fast_reader.TryReadInt(&fast), c.fast) << text;
    if (c.fast) {
      EXPECT_EQ(fast, c.value) << text;
    } else {
      EXPECT_EQ(fast_reader.offset(), 0u) << text;
    }
    JsonReader reader(AsBytes(text), 4);
    JsonNumber number;
    ASSERT_TRUE(reader.ReadNumber(&number)) << text;
    EXPECT_TRUE(reader.Finish()) << text;
    EXPECT_EQ(number.integral, c.integral) << text;
    EXPECT_EQ(number.fits, c.fits) << text;
    if (c.integral && c.fits) {
      EXPECT_EQ(number.integer, c.value) << text;
    } else if (!c.integral) {
      EXPECT_EQ(number.real, std::strtod(text.c_str(), nullptr)) << text;
    }
  }
}

TEST(GeminiJsonReader, LeadingZerosAndBareSignsAreSyntaxErrorsOnEveryPath) {
  for (const std::string text : {"01", "-01", "-", "00.5", "1.", ".5", "-.5", "1e"}) {
    JsonReader reader(AsBytes(text), 4);
    int64_t fast = 0;
    EXPECT_FALSE(reader.TryReadInt(&fast)) << text;
    JsonNumber number;
    reader.ReadNumber(&number);
    EXPECT_FALSE(reader.Finish() && !reader.failed()) << text;
  }
}

// A list of integers one level past --max-depth is no exception to it: the
// fast paths decline, and opening the list reports the depth.
TEST(GeminiJsonReader, ListFastPathsKeepTheDepthLimit) {
  const std::string text = "{\"a\": [1, 2, 3, 4]}";
  for (const bool fixed : {false, true}) {
    JsonReader reader(AsBytes(text), 1);
    ASSERT_TRUE(reader.BeginObject());
    std::string_view key;
    uint64_t key_offset = 0;
    ASSERT_TRUE(reader.NextKey(&key, &key_offset));
    int64_t four[4];
    std::vector<int64_t> list;
    EXPECT_FALSE(fixed ? reader.TryReadInts(four, 4) : reader.TryReadIntList(&list));
    EXPECT_FALSE(reader.BeginArray());
    EXPECT_EQ(reader.failure(), JsonReader::Failure::kDepth);
  }
  JsonReader deep_enough(AsBytes(text), 2);
  ASSERT_TRUE(deep_enough.BeginObject());
  std::string_view key;
  uint64_t key_offset = 0;
  ASSERT_TRUE(deep_enough.NextKey(&key, &key_offset));
  std::vector<int64_t> list;
  EXPECT_TRUE(deep_enough.TryReadIntList(&list));
  EXPECT_EQ(list, (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(GeminiJsonReader, ListFastPathsDeclineWithoutConsuming) {
  for (const std::string text :
       {"[1,2,3]", "[1,2,3,4,5]", "[1,2,3,\"4\"]", "[1,2,3,4.5]", "[1,2,3,4", "[1,,2,3,4]", "{}"}) {
    JsonReader reader(AsBytes(text), 4);
    int64_t four[4];
    EXPECT_FALSE(reader.TryReadInts(four, 4)) << text;
    EXPECT_EQ(reader.offset(), 0u) << text;
  }
  const std::string padding(200, ' ');
  for (const std::string text : {"[1,2,3]", "[1,2,3,4,5]", "[1,2,-3,012]",
                                 "[1,2,3,1234567890123456789]", "[1,2,3,4.5]", "[1,2,3,-]"}) {
    const std::string padded = text + padding;  // the reader keeps a view of it
    JsonReader reader(AsBytes(padded), 4);      // far from the end: the compact scanner
    int64_t four[4];
    EXPECT_FALSE(reader.TryReadInts(four, 4)) << text;
    EXPECT_EQ(reader.offset(), 0u) << text;
  }
  // Space inside the list: the compact scanner declines it, the spaced one
  // reads it.
  const std::string spaced_far = "[1,2,3,4 ]" + padding;
  JsonReader spaced_far_reader(AsBytes(spaced_far), 4);
  int64_t spaced_far_read[4];
  ASSERT_TRUE(spaced_far_reader.TryReadInts(spaced_far_read, 4));
  EXPECT_EQ(spaced_far_read[3], 4);
  EXPECT_EQ(spaced_far_reader.offset(), 10u);
  const std::string compact = "[-12,0,12345678901234567,4]" + padding;
  JsonReader compact_reader(AsBytes(compact), 4);
  int64_t read[4];
  ASSERT_TRUE(compact_reader.TryReadInts(read, 4));
  EXPECT_EQ(read[0], -12);
  EXPECT_EQ(read[2], 12345678901234567);
  EXPECT_TRUE(compact_reader.Finish());
  const std::string spaced = " [ 1 ,\n2,\t3 , 4 ] ";
  JsonReader reader(AsBytes(spaced), 4);
  int64_t four[4];
  ASSERT_TRUE(reader.TryReadInts(four, 4));
  EXPECT_EQ(four[3], 4);
  EXPECT_TRUE(reader.Finish());
}

TEST(GeminiJsonReader, APredictedKeyIsTheExpectedViewAndAWrongOneIsScanned) {
  const std::string text = R"({"lower":1,"upp\u0065r":2,"size":3})";
  JsonReader reader(AsBytes(text), 4);
  ASSERT_TRUE(reader.BeginObject());
  const std::string_view lower = "lower";
  std::string_view key;
  uint64_t offset = 0;
  int64_t value = 0;
  ASSERT_TRUE(reader.NextKey(&key, &offset, lower));
  EXPECT_EQ(key.data(), lower.data());
  ASSERT_TRUE(reader.TryReadInt(&value));
  ASSERT_TRUE(reader.NextKey(&key, &offset, "upper"));  // escaped: not predicted, still "upper"
  EXPECT_EQ(key, "upper");
  EXPECT_EQ(reader.Pointer(), "/upper");
  ASSERT_TRUE(reader.TryReadInt(&value));
  ASSERT_TRUE(reader.NextKey(&key, &offset, "lower"));
  EXPECT_EQ(key, "size");
  EXPECT_EQ(offset, text.find("\"size\""));
}

}  // namespace
}  // namespace accelcheck
