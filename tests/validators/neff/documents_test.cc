// The JSON members' UTF-8 check (NEFF-20): ASCII 32 and 8 bytes at a
// time, every kind of invalid sequence at its first byte, wherever it falls
// in those strides.
#include <gtest/gtest.h>

#include "validators/neff/documents.h"

namespace accelcheck::neff {
namespace {

std::optional<uint64_t> Bad(std::string_view text) { return InvalidUtf8At(AsBytes(text)); }

TEST(NeffUtf8, AsciiAndWholeSequencesAreValid) {
  EXPECT_EQ(Bad(""), std::nullopt);
  EXPECT_EQ(Bad("{\"name\": \"file.neff\"}"), std::nullopt);
  EXPECT_EQ(Bad("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 and some more ASCII"), std::nullopt);
}

TEST(NeffUtf8, EachInvalidSequenceIsFoundAtItsFirstByte) {
  EXPECT_EQ(Bad("0123456789\x80"), 10u);            // a continuation byte alone
  EXPECT_EQ(Bad("01234567\xC0\x80"), 8u);           // an overlong two-byte form
  EXPECT_EQ(Bad("ab\xE0\x80\x80"), 2u);             // an overlong three-byte form
  EXPECT_EQ(Bad("abc\xED\xA0\x80"), 3u);            // a surrogate
  EXPECT_EQ(Bad("\xF4\x90\x80\x80"), 0u);           // past U+10FFFF
  EXPECT_EQ(Bad("0123456789abcdef\xE2\x82"), 16u);  // cut short at the end
  EXPECT_EQ(Bad("0123456789abcdef\xC3(xyz"), 16u);  // a lead byte without its continuation
  EXPECT_EQ(Bad("\xFF"), 0u);
}

TEST(NeffUtf8, ABadByteIsFoundAtEveryPlaceInTheStrides) {
  for (size_t at = 0; at < 80; ++at) {
    std::string text(80, 'a');
    EXPECT_EQ(Bad(text), std::nullopt);
    text[at] = '\x80';
    EXPECT_EQ(Bad(text), at);
    text[at] = '\xC3';  // a lead byte: valid with its continuation, cut short at the end
    if (at + 1 < text.size()) {
      text[at + 1] = '\xA9';
      EXPECT_EQ(Bad(text), std::nullopt) << at;
    } else {
      EXPECT_EQ(Bad(text), at);
    }
  }
}

}  // namespace
}  // namespace accelcheck::neff
