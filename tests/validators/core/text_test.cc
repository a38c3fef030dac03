#include "validators/core/text.h"

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "validators/core/json_exception.h"

namespace accelcheck {
namespace {

template <typename... Args>
std::string Streamed(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

TEST(StrTest, PrintsEveryArgumentAsTheStreamWould) {
  const std::string owned = "owned";
  const std::string_view view = "view";
  const char* pointer = "pointer";
  const auto check = [](const std::string& got, const std::string& want) { EXPECT_EQ(got, want); };
  check(Str("a", owned, view, pointer, 'c'), Streamed("a", owned, view, pointer, 'c'));
  check(Str(int64_t{-9223372036854775807 - 1}, ' ', std::numeric_limits<uint64_t>::max()),
        Streamed(int64_t{-9223372036854775807 - 1}, ' ', std::numeric_limits<uint64_t>::max()));
  check(Str(0, -1, size_t{42}, int16_t{-7}, uint32_t{7}),
        Streamed(0, -1, size_t{42}, int16_t{-7}, uint32_t{7}));
  check(Str(true, false), Streamed(true, false));
  check(Str(static_cast<unsigned char>('x'), static_cast<signed char>('y')),
        Streamed(static_cast<unsigned char>('x'), static_cast<signed char>('y')));
  check(Str(0.5, 1e300, 3.0, -0.25f), Streamed(0.5, 1e300, 3.0, -0.25f));
  EXPECT_EQ(Str(), "");
}

TEST(StrTest, MakesJsonPointersAndMessages) {
  EXPECT_EQ(Str("/", 3, "/", size_t{12}, "/tile_info/tile_num_", 7), "/3/12/tile_info/tile_num_7");
  EXPECT_EQ(Str("offset ", Hex(0x1f0), " is ", Quoted("a\nb")),
            Streamed("offset ", Hex(0x1f0), " is ", Quoted("a\nb")));
}

}  // namespace
TEST(JsonExceptionText, DropsTheLibrarysIdAndKeepsTheReason) {
  EXPECT_EQ(JsonExceptionText("[json.exception.type_error.302] type must be number, but is string"),
            "type must be number, but is string");
  EXPECT_EQ(JsonExceptionText("plain reason"), "plain reason");
}

}  // namespace accelcheck
