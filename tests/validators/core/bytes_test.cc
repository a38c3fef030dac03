#include "validators/core/bytes.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include "validators/core/checked.h"

namespace accelcheck {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(ReadLETest, ReadsLittleEndianInsideTheBytes) {
  const std::vector<uint8_t> bytes = {0x01, 0x02, 0x03, 0x04, 0x05};
  EXPECT_EQ(ReadLE<uint32_t>(bytes, 0), 0x04030201u);
  EXPECT_EQ(ReadLE<uint32_t>(bytes, 1), 0x05040302u);
  EXPECT_EQ(ReadLE<uint8_t>(bytes, 4), 0x05u);
  EXPECT_EQ(ReadLE<uint16_t>(bytes, 3), 0x0504u);
}

TEST(ReadLETest, RefusesReadsThatCrossTheEnd) {
  const std::vector<uint8_t> bytes = {0x01, 0x02, 0x03, 0x04, 0x05};
  EXPECT_EQ(ReadLE<uint32_t>(bytes, 2), std::nullopt);
  EXPECT_EQ(ReadLE<uint8_t>(bytes, 5), std::nullopt);
  EXPECT_EQ(ReadLE<uint64_t>(bytes, 0), std::nullopt);
  EXPECT_EQ(ReadLE<uint32_t>(bytes, kMax), std::nullopt);
  EXPECT_EQ(ReadLE<uint32_t>(bytes, kMax - 2), std::nullopt) << "offset + 4 wraps around";
  EXPECT_EQ(ReadLE<uint8_t>(ByteView(), 0), std::nullopt);
}

RC_GTEST_PROP(ReadLEProperty, MatchesByteByByteAssemblyOrRefuses,
              (const std::vector<uint8_t>& bytes, uint16_t offset)) {
  const std::optional<uint32_t> value = ReadLE<uint32_t>(bytes, offset);
  if (static_cast<size_t>(offset) + 4 > bytes.size()) {
    RC_ASSERT(!value.has_value());
    return;
  }
  RC_ASSERT(value.has_value());
  const uint32_t expected = bytes[offset] | (bytes[offset + 1] << 8) | (bytes[offset + 2] << 16) |
                            (static_cast<uint32_t>(bytes[offset + 3]) << 24);
  RC_ASSERT(*value == expected);
}

TEST(HasBytesAtTest, ComparesOnlyInsideTheBytes) {
  const std::vector<uint8_t> bytes = {'x', 'E', 'T', '1', '2'};
  EXPECT_TRUE(HasBytesAt(bytes, 1, "ET12"));
  EXPECT_FALSE(HasBytesAt(bytes, 2, "ET12"));
  EXPECT_FALSE(HasBytesAt(bytes, kMax, "E"));
  EXPECT_TRUE(HasBytesAt(bytes, 5, ""));
}

TEST(RangeWithinTest, AcceptsRangesUpToTheEnd) {
  EXPECT_TRUE(RangeWithin(0, 0, 0));
  EXPECT_TRUE(RangeWithin(0, 16, 16));
  EXPECT_TRUE(RangeWithin(16, 0, 16));
  EXPECT_FALSE(RangeWithin(1, 16, 16));
  EXPECT_FALSE(RangeWithin(17, 0, 16));
}

TEST(RangeWithinTest, DoesNotOverflow) {
  EXPECT_FALSE(RangeWithin(kMax, 1, 16));
  EXPECT_FALSE(RangeWithin(1, kMax, 16));
  EXPECT_FALSE(RangeWithin(8, kMax - 7, 16)) << "8 + (2^64 - 8) wraps to 0";
  EXPECT_TRUE(RangeWithin(kMax, 0, kMax));
  EXPECT_TRUE(RangeWithin(1, kMax - 1, kMax));
}

RC_GTEST_PROP(RangeWithinProperty, AgreesWithWideArithmetic,
              (uint64_t offset, uint64_t length, uint64_t size)) {
  const std::optional<uint64_t> end = CheckedAdd(offset, length);
  RC_ASSERT(RangeWithin(offset, length, size) == (end.has_value() && *end <= size));
}

TEST(CheckedTest, DetectsOverflow) {
  EXPECT_EQ(CheckedAdd(kMax, 0), kMax);
  EXPECT_EQ(CheckedAdd(kMax, 1), std::nullopt);
  EXPECT_EQ(CheckedMul(uint64_t{1} << 32, uint64_t{1} << 31), uint64_t{1} << 63);
  EXPECT_EQ(CheckedMul(uint64_t{1} << 32, uint64_t{1} << 32), std::nullopt);
  EXPECT_EQ(CheckedMulSigned(-(int64_t{1} << 62), 2), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(CheckedMulSigned(int64_t{1} << 62, 2), std::nullopt);
  EXPECT_EQ(AlignUp(17, 16), 32u);
  EXPECT_EQ(AlignUp(32, 16), 32u);
  EXPECT_EQ(AlignUp(5, 0), 5u);
}

class ReadFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("accelcheck_bytes_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, size_t size) {
    const std::string path = (dir_ / name).string();
    std::FILE* f = std::fopen(path.c_str(), "wb");
    for (size_t i = 0; i < size; ++i) std::fputc(static_cast<int>(i & 0xff), f);
    std::fclose(f);
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(ReadFileTest, ReadsAFileAtTheLimitIntoAnAlignedBuffer) {
  const std::string path = Write("a.bin", 100);
  std::string error;
  const std::optional<InputBuffer> buffer = ReadFileLimited(path, 100, &error);
  ASSERT_TRUE(buffer) << error;
  EXPECT_EQ(buffer->size(), 100u);
  EXPECT_EQ(buffer->data()[99], 99);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % 16, 0u);
}

TEST_F(ReadFileTest, RefusesAFileAboveTheLimit) {
  const std::string path = Write("a.bin", 101);
  std::string error;
  EXPECT_FALSE(ReadFileLimited(path, 100, &error));
  EXPECT_NE(error.find("101"), std::string::npos) << error;
}

TEST_F(ReadFileTest, MapsALargeFileWhoseReleasedPagesStayReadable) {
  constexpr size_t kSize = (size_t{3} << 20) + 5;
  const std::string path = Write("large.bin", kSize);
  std::string error;
  const std::optional<InputBuffer> buffer = ReadFileLimited(path, kSize, &error);
  ASSERT_TRUE(buffer) << error;
  EXPECT_TRUE(buffer->mapped());
  EXPECT_EQ(buffer->size(), kSize);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % 16, 0u);
  uint64_t sum = 0;
  for (size_t i = 0; i < kSize; ++i) sum += buffer->data()[i];
  buffer->ReleaseBefore(kSize - 7);
  uint64_t again = 0;
  for (size_t i = 0; i < kSize; ++i) again += buffer->data()[i];
  EXPECT_EQ(again, sum);
  EXPECT_EQ(buffer->data()[kSize - 1], (kSize - 1) & 0xff);
}

TEST_F(ReadFileTest, KeepsASmallFileOnTheHeap) {
  const std::string path = Write("small.bin", 4096);
  std::string error;
  const std::optional<InputBuffer> buffer = ReadFileLimited(path, 4096, &error);
  ASSERT_TRUE(buffer) << error;
  EXPECT_FALSE(buffer->mapped());
  buffer->ReleaseBefore(4096);
  EXPECT_EQ(buffer->data()[4095], 4095 & 0xff);
}

TEST_F(ReadFileTest, ReadsAnEmptyFile) {
  const std::string path = Write("empty.bin", 0);
  std::string error;
  const std::optional<InputBuffer> buffer = ReadFileLimited(path, 0, &error);
  ASSERT_TRUE(buffer) << error;
  EXPECT_EQ(buffer->size(), 0u);
  EXPECT_NE(buffer->data(), nullptr);
}

TEST_F(ReadFileTest, ReportsMissingFilesAndDirectories) {
  std::string error;
  EXPECT_FALSE(ReadFileLimited((dir_ / "missing").string(), 100, &error));
  EXPECT_FALSE(error.empty());
  error.clear();
  EXPECT_FALSE(ReadFileLimited(dir_.string(), 100, &error));
  EXPECT_EQ(error, "not a regular file");
}

TEST(InputBufferTest, CopyIsAlignedAndEqual) {
  const std::vector<uint8_t> bytes = {1, 2, 3};
  const InputBuffer buffer = InputBuffer::Copy(bytes);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % 16, 0u);
  EXPECT_EQ(std::vector<uint8_t>(buffer.bytes().begin(), buffer.bytes().end()), bytes);
}

}  // namespace
}  // namespace accelcheck
