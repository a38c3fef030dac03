#include "validators/core/flatbuffer.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace accelcheck {
namespace {

TEST(FlatbufferRegion, OffsetsAndPathsOfANestedBufferAreFileOffsetsAndJoinedPaths) {
  const std::vector<uint8_t> bytes(64, 0);
  const FlatbufferRegion nested{ByteView(bytes.data(), bytes.size()), 0x1000,
                                "subgraphs[0].operators[2]"};
  const Location field = nested.At(8, 4, "executables[1]");
  EXPECT_EQ(field.offset, 0x1008u);
  EXPECT_EQ(field.length, 4u);
  EXPECT_EQ(field.path, "subgraphs[0].operators[2].executables[1]");
  EXPECT_EQ(nested.At(0, std::nullopt, "[3]").path, "subgraphs[0].operators[2][3]");
  EXPECT_EQ(nested.AtObject(bytes.data() + 16, "name").offset, 0x1010u);
  EXPECT_FALSE(nested.AtObject(nullptr, "name").offset.has_value());
}

TEST(FlatbufferRegion, AWholeFileBufferKeepsItsOwnOffsetsAndPaths) {
  const std::vector<uint8_t> bytes(16, 0);
  const FlatbufferRegion file{ByteView(bytes.data(), bytes.size()), 0, ""};
  EXPECT_EQ(file.At(12, std::nullopt, "plans[0]").offset, 12u);
  EXPECT_EQ(file.At(12, std::nullopt, "plans[0]").path, "plans[0]");
}

TEST(ElementsAligned, AnEightByteVectorAtAFourByteAddressIsMisaligned) {
  flatbuffers::FlatBufferBuilder builder;
  const std::vector<int64_t> values{1, 2, 3};
  builder.Finish(builder.CreateVector(values));
  const auto* vector =
      flatbuffers::GetRoot<flatbuffers::Vector<int64_t>>(builder.GetBufferPointer());
  ASSERT_TRUE(ElementsAligned(vector));

  // The same vector copied 4 bytes off its alignment.
  std::vector<uint64_t> storage(builder.GetSize() / 8 + 2);
  auto* shifted = reinterpret_cast<uint8_t*>(storage.data()) + 4;
  std::memcpy(shifted, builder.GetBufferPointer(), builder.GetSize());
  EXPECT_FALSE(ElementsAligned(flatbuffers::GetRoot<flatbuffers::Vector<int64_t>>(shifted)));
  EXPECT_TRUE(ElementsAligned<int64_t>(nullptr));
}

}  // namespace
}  // namespace accelcheck
