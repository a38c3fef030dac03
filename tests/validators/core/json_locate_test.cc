#include "validators/core/json_locate.h"

#include <gtest/gtest.h>

#include <vector>

namespace accelcheck {
namespace {

const Rule kInvalid{"test.invalid",     Severity::kError, Severity::kError,
                    Category::kInvalid, "invalid",        "test"};
const Rule kMalformed{"test.malformed",     Severity::kError, Severity::kError,
                      Category::kMalformed, "malformed",      "test"};

Diagnostic At(std::optional<uint64_t> offset, std::string path, const Rule& rule = kInvalid,
              std::string member = "") {
  Diagnostic d;
  d.rule = &rule;
  d.location.offset = offset;
  d.location.path = std::move(path);
  d.location.member = std::move(member);
  return d;
}

std::vector<Diagnostic> Pin(std::string_view text, std::vector<Diagnostic> diagnostics) {
  PinJsonLocations(AsBytes(text), "", Limits{}, diagnostics);
  return diagnostics;
}

TEST(PinJsonLocations, MovesToTheValueThePointerNamesWithItsLength) {
  const std::string_view text = R"({"a":[{"x":1},{"x":{"y":"long"},"z":22}]})";
  // Reported at the enclosing element, named by the member's pointer.
  const auto pinned = Pin(text, {At(14, "/a/1/x/y"), At(14, "/a/1/z"), At(0, "/a/1")});
  EXPECT_EQ(*pinned[0].location.offset, text.find("\"long\""));
  EXPECT_EQ(*pinned[0].location.length, 6u);
  EXPECT_EQ(*pinned[1].location.offset, text.find("22"));
  EXPECT_EQ(*pinned[1].location.length, 2u);
  EXPECT_EQ(*pinned[2].location.offset, 14u);
  EXPECT_EQ(*pinned[2].location.length, text.find("]") - 14);
}

TEST(PinJsonLocations, ReadsEscapedKeysAsPointerTokens) {
  const std::string_view text = R"({"a/b":{"c~d":7}})";
  const auto pinned = Pin(text, {At(0, "/a~1b/c~0d")});
  EXPECT_EQ(*pinned[0].location.offset, text.find("7"));
}

TEST(PinJsonLocations, LeavesWhatItCannotPlace) {
  const std::string_view text = R"({"k":1,"k":2,"m":[3]})";
  std::vector<Diagnostic> given = {
      At(text.rfind("\"k\""), "/k"),        // the second of two keys: the pointer finds the first
      At(3, "/m/5"),                        // no such element
      At(5, "/m", kMalformed),              // a malformed diagnostic points where parsing stopped
      At(std::nullopt, "not a pointer"),    // a dotted path
      At(3, "/m", kInvalid, "other.json"),  // bytes of another file
  };
  given[0].location.length = 3;  // the reporter knew the bytes: kept
  const auto pinned = Pin(text, given);
  EXPECT_EQ(*pinned[0].location.offset, text.rfind("\"k\""));
  EXPECT_EQ(*pinned[0].location.length, 3u);
  EXPECT_EQ(*pinned[1].location.offset, 3u);
  EXPECT_FALSE(pinned[1].location.length);
  EXPECT_EQ(*pinned[2].location.offset, 5u);
  EXPECT_FALSE(pinned[3].location.offset);
  EXPECT_EQ(*pinned[4].location.offset, 3u);
  EXPECT_EQ(pinned[4].location.line, 0u);  // not in this text
}

TEST(PinJsonLocations, PinsOnlyWhatWasReadBeforeASyntaxError) {
  const auto pinned = Pin(R"({"a":{"b":1,,}})", {At(5, "/a/b")});
  EXPECT_EQ(*pinned[0].location.offset, 10u);  // "b" was read before the error
  const auto cut = Pin(R"({"a":[1,2)", {At(0, "/a/3")});
  EXPECT_EQ(*cut[0].location.offset, 0u);
  EXPECT_FALSE(cut[0].location.length);
}

TEST(PinJsonLocations, GivesLineAndColumnInCodePoints) {
  const std::string_view text = "{\n  \"\xc3\xa9t\xc3\xa9\": 5,\n  \"b\": [1,\n    2]\n}";
  const auto pinned = Pin(text, {At(0, "/\xc3\xa9t\xc3\xa9"), At(0, "/b/1"), At(0, "")});
  EXPECT_EQ(pinned[0].location.line, 2u);
  EXPECT_EQ(pinned[0].location.column, 10u);  // "été" is 3 code points, 5 bytes
  EXPECT_EQ(pinned[1].location.line, 4u);
  EXPECT_EQ(pinned[1].location.column, 5u);
  EXPECT_EQ(pinned[2].location.line, 1u);
  EXPECT_EQ(pinned[2].location.column, 1u);
}

TEST(TextPositions, CountsLinesOnceForSortedOffsets) {
  const std::string_view text = "ab\ncd\n\nef";
  const std::vector<uint64_t> offsets = {0, 1, 3, 6, 7, 8, 100};
  std::vector<TextPosition> positions(offsets.size());
  TextPositions(AsBytes(text), offsets, positions);
  const std::vector<std::pair<uint64_t, uint64_t>> expected = {{1, 1}, {1, 2}, {2, 1}, {3, 1},
                                                               {4, 1}, {4, 2}, {4, 3}};
  for (size_t i = 0; i < offsets.size(); ++i) {
    EXPECT_EQ(positions[i].line, expected[i].first) << offsets[i];
    EXPECT_EQ(positions[i].column, expected[i].second) << offsets[i];
  }
}

}  // namespace
}  // namespace accelcheck
