// The .npy reader and writer: every dtype both ways, both byte orders,
// versions 1.0 and 2.0, Fortran order, and hostile headers refused.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "validators/core/npy.h"

namespace accelcheck::npy {
namespace {

std::vector<uint8_t> File(const std::string& header, const std::vector<uint8_t>& data,
                          uint8_t major = 1) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  const size_t length_bytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < length_bytes; ++i)
    out.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::string ReadError(const std::vector<uint8_t>& bytes) {
  std::string error;
  EXPECT_FALSE(Read(bytes, &error));
  return error;
}

TEST(Npy, ReadsLittleEndianFloat32) {
  const auto bytes = File("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n",
                          {0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0});
  std::string error;
  const auto array = Read(bytes, &error);
  ASSERT_TRUE(array) << error;
  EXPECT_EQ(array->shape, std::vector<uint64_t>{2});
  EXPECT_EQ(array->values, (std::vector<double>{1.0, -2.0}));
}

TEST(Npy, ReadsBigEndianSignedIntegersInVersion2) {
  const auto bytes = File("{'descr': '>i2', 'fortran_order': False, 'shape': (1, 2)}",
                          {0xff, 0xfe, 0x01, 0x00}, 2);
  std::string error;
  const auto array = Read(bytes, &error);
  ASSERT_TRUE(array) << error;
  EXPECT_EQ(array->shape, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(array->values, (std::vector<double>{-2.0, 256.0}));
}

TEST(Npy, ReadsFortranOrderAsCOrder) {
  // [[1, 2, 3], [4, 5, 6]] stored column by column.
  const auto bytes =
      File("{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }", {1, 4, 2, 5, 3, 6});
  std::string error;
  const auto array = Read(bytes, &error);
  ASSERT_TRUE(array) << error;
  EXPECT_EQ(array->values, (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(Npy, ReadsAScalar) {
  const auto bytes = File("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", {7, 0, 0, 0});
  std::string error;
  const auto array = Read(bytes, &error);
  ASSERT_TRUE(array) << error;
  EXPECT_TRUE(array->shape.empty());
  EXPECT_EQ(array->values, std::vector<double>{7});
}

TEST(Npy, WritesHeadersNumPyReads) {
  const auto bytes = Write({1.5, -2}, {1, 2}, DType{Kind::kFloat, 8, false});
  ASSERT_GE(bytes.size(), 10u);
  const size_t header = bytes[8] | bytes[9] << 8;
  EXPECT_EQ((10 + header) % 64, 0u);
  EXPECT_EQ(bytes[10 + header - 1], '\n');
  const std::string text(bytes.begin() + 10, bytes.begin() + 10 + static_cast<long>(header));
  EXPECT_EQ(text.rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }", 0), 0u)
      << text;
  EXPECT_EQ(bytes.size(), 10 + header + 16);
}

TEST(Npy, WritesAOneElementTupleWithAComma) {
  const auto bytes = Write({3}, {1}, DType{Kind::kSigned, 4, false});
  const std::string text(bytes.begin() + 10, bytes.end());
  EXPECT_NE(text.find("'shape': (1,)"), std::string::npos) << text;
}

RC_GTEST_PROP(Npy, EveryDtypeRoundTrips, ()) {
  const auto kind = *rc::gen::element(Kind::kSigned, Kind::kUnsigned, Kind::kFloat);
  const unsigned bytes =
      kind == Kind::kFloat ? *rc::gen::element(4u, 8u) : *rc::gen::element(1u, 2u, 4u);
  const DType dtype{kind, bytes, bytes > 1 && *rc::gen::arbitrary<bool>()};
  const auto raw = *rc::gen::container<std::vector<int16_t>>(rc::gen::arbitrary<int16_t>());
  std::vector<double> values;
  for (int16_t v : raw) {
    if (kind == Kind::kFloat)
      values.push_back(v / 4.0);
    else if (kind == Kind::kUnsigned)
      values.push_back(bytes == 1 ? static_cast<uint8_t>(v) : static_cast<uint16_t>(v));
    else
      values.push_back(bytes == 1 ? static_cast<int8_t>(v) : v);
  }
  std::string error;
  const auto array = Read(Write(values, {values.size()}, dtype), &error);
  RC_ASSERT(array.has_value());
  RC_ASSERT(array->dtype == dtype);
  RC_ASSERT(array->values == values);
}

TEST(Npy, RefusesHostileFiles) {
  EXPECT_NE(ReadError({}).find("magic"), std::string::npos);
  EXPECT_NE(ReadError(File("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", {}, 4))
                .find("version"),
            std::string::npos);
  // A header longer than the file.
  auto truncated = File("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", {});
  truncated.resize(20);
  EXPECT_NE(ReadError(truncated).find("exceeds the file size"), std::string::npos);
  // A shape whose element count overflows, and one larger than the data.
  EXPECT_NE(
      ReadError(
          File("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", {}))
          .find("more than"),
      std::string::npos);
  EXPECT_NE(
      ReadError(
          File("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", {}))
          .find("overflows"),
      std::string::npos);
  EXPECT_NE(
      ReadError(File("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", {0, 0, 0, 0}))
          .find("data bytes"),
      std::string::npos);
  EXPECT_NE(
      ReadError(File("{'descr': '<c8', 'fortran_order': False, 'shape': (), }", {})).find("dtype"),
      std::string::npos);
  EXPECT_NE(ReadError(File("{'descr': '<f4', 'shape': (), }", {0, 0, 0, 0})).find("lacks"),
            std::string::npos);
  EXPECT_NE(ReadError(File("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", {}))
                .find("unexpected"),
            std::string::npos);
  EXPECT_NE(ReadError(File("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (), }", {}))
                .find("fortran_order"),
            std::string::npos);
  EXPECT_NE(ReadError(File("{'descr': '<f4' 'fortran_order': False}", {})).find("separated"),
            std::string::npos);
  EXPECT_NE(ReadError(File("{'descr': '<f4, 'fortran_order': False}", {})), "");
}

}  // namespace
}  // namespace accelcheck::npy
