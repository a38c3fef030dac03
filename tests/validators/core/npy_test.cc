// The .npy reader and writer: every dtype both ways, both byte orders,
// versions 1.0 and 2.0, Fortran order, and hostile headers refused.
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "validators/core/npy.h"
#include "validators/core/text.h"

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

// FromBytes holds little-endian elements as FromBits holds their bits, and
// drops a trailing partial element.
TEST(Npy, FromBytesEqualsFromBitsOfTheSameElements) {
  const std::vector<uint8_t> bytes = {0xff, 0xff, 0x02, 0x00, 0x00, 0x3c, 0x7f};
  const Array int16 = FromBytes({Kind::kSigned, 2, false}, {3}, bytes);
  EXPECT_EQ(int16.values, (std::vector<double>{-1, 2, 15360}));
  const Array expected = FromBits({Kind::kSigned, 2, false}, {3}, {0xffff, 0x0002, 0x3c00});
  EXPECT_EQ(int16.data, expected.data);
  const Array half = FromBytes({Kind::kFloat, 2, false}, {3}, bytes);
  EXPECT_EQ(half.values[2], 1.0);  // 0x3c00
  EXPECT_TRUE(std::isnan(half.values[0]));
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
  const auto kind =
      *rc::gen::element(Kind::kSigned, Kind::kUnsigned, Kind::kFloat, Kind::kBool, Kind::kBFloat16);
  unsigned bytes = 1;
  if (kind == Kind::kFloat) bytes = *rc::gen::element(2u, 4u, 8u);
  if (kind == Kind::kSigned || kind == Kind::kUnsigned) bytes = *rc::gen::element(1u, 2u, 4u, 8u);
  if (kind == Kind::kBFloat16) bytes = 2;
  const DType dtype{kind, bytes, bytes > 1 && *rc::gen::arbitrary<bool>()};
  // Any bit pattern of the width is an element (bool: 0 or 1), NaNs included.
  const auto raw = *rc::gen::container<std::vector<uint64_t>>(rc::gen::arbitrary<uint64_t>());
  std::vector<uint64_t> bits;
  for (uint64_t r : raw) {
    const uint64_t mask = bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
    bits.push_back(kind == Kind::kBool ? r & 1 : r & mask);
  }
  const Array written = FromBits(dtype, {bits.size()}, bits);
  std::string error;
  const auto array = Read(Write(written), &error);
  RC_ASSERT(array.has_value());
  RC_ASSERT(array->dtype == dtype);
  RC_ASSERT(array->data == written.data);
  for (uint64_t i = 0; i < bits.size(); ++i) RC_ASSERT(array->Bits(i) == bits[i]);
}

RC_GTEST_PROP(Npy, SmallIntegerValuesRoundTripThroughDoubles, ()) {
  const auto kind = *rc::gen::element(Kind::kSigned, Kind::kUnsigned);
  const unsigned bytes = *rc::gen::element(1u, 2u, 4u, 8u);
  const DType dtype{kind, bytes, bytes > 1 && *rc::gen::arbitrary<bool>()};
  const auto raw = *rc::gen::container<std::vector<int16_t>>(rc::gen::arbitrary<int16_t>());
  std::vector<double> values;
  for (int16_t v : raw) {
    if (kind == Kind::kUnsigned)
      values.push_back(bytes == 1 ? static_cast<uint8_t>(v) : static_cast<uint16_t>(v));
    else
      values.push_back(bytes == 1 ? static_cast<int8_t>(v) : v);
  }
  std::string error;
  const auto array = Read(Write(values, {values.size()}, dtype), &error);
  RC_ASSERT(array.has_value());
  RC_ASSERT(array->values == values);
}

Array MustRead(const std::vector<uint8_t>& bytes) {
  std::string error;
  auto array = Read(bytes, &error);
  EXPECT_TRUE(array) << error;
  return array.value_or(Array{});
}

TEST(Npy, ParsesEveryDescrAndNamesIt) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"|b1", "bool"},    {"|i1", "int8"},    {"<i2", "int16"},    {">i4", "int32"},
      {"<i8", "int64"},   {"|u1", "uint8"},   {">u2", "uint16"},   {"<u4", "uint32"},
      {">u8", "uint64"},  {"<f2", "float16"}, {"<V2", "bfloat16"}, {">f4", "float32"},
      {"<f8", "float64"}, {">V2", "bfloat16"}};
  for (const auto& [descr, name] : cases) {
    const auto dtype = ParseDescr(descr);
    ASSERT_TRUE(dtype) << descr;
    EXPECT_EQ(dtype->Name(), name);
    EXPECT_EQ(dtype->Descr(), descr);
  }
  EXPECT_EQ(ParseDescr("bfloat16"), (DType{Kind::kBFloat16, 2, false}));
  EXPECT_EQ(ParseDescr("|V2")->Descr(), "<V2");
  for (const char* bad : {"<f1", "<b2", "<V4", "<c8", "<i3", "<i16", "i4", "", "<U8", "?b1"})
    EXPECT_FALSE(ParseDescr(bad)) << bad;
}

TEST(Npy, ReadsBoolAsZeroOrOne) {
  const Array array =
      MustRead(File("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", {0, 1, 7}));
  EXPECT_EQ(array.dtype.kind, Kind::kBool);
  EXPECT_EQ(array.values, (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(array.UInt(2), 1u);
}

TEST(Npy, KeepsInt64AndUInt64BeyondTwoToThe53Exactly) {
  // 2^53 + 1 is not a double; the exact path keeps it.
  const int64_t big = (int64_t{1} << 53) + 1;
  const Array signed_array =
      MustRead(Write(FromBits(DType{Kind::kSigned, 8, true}, {2},
                              {static_cast<uint64_t>(big), static_cast<uint64_t>(-big)})));
  EXPECT_EQ(signed_array.Int(0), big);
  EXPECT_EQ(signed_array.Int(1), -big);
  const Array unsigned_array =
      MustRead(File("{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }",
                    {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(unsigned_array.UInt(0), UINT64_MAX);
}

TEST(Npy, ReadsFloat16BothByteOrders) {
  // 1.0 = 0x3c00, -2.0 = 0xc000, the smallest subnormal 2^-24 = 0x0001, inf = 0x7c00.
  const Array little = MustRead(File("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }",
                                     {0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00, 0x00, 0x7c}));
  EXPECT_EQ(little.values[0], 1.0);
  EXPECT_EQ(little.values[1], -2.0);
  EXPECT_EQ(little.values[2], std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(little.values[3]));
  const Array big =
      MustRead(File("{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }", {0x3c, 0x00}));
  EXPECT_EQ(big.values[0], 1.0);
  EXPECT_EQ(big.Bits(0), 0x3c00u);
}

TEST(Npy, ReadsBFloat16AsNpSaveWritesIt) {
  // np.save of ml_dtypes.bfloat16 [1, -2.5]: 0x3f80 and 0xc020, little-endian.
  const Array array = MustRead(
      File("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }", {0x80, 0x3f, 0x20, 0xc0}));
  EXPECT_EQ(array.dtype.kind, Kind::kBFloat16);
  EXPECT_EQ(array.values, (std::vector<double>{1.0, -2.5}));
}

TEST(Npy, RoundsFloat16AndBFloat16ToNearestEven) {
  EXPECT_EQ(DoubleToHalf(1.0), 0x3c00);
  EXPECT_EQ(DoubleToHalf(65504.0), 0x7bff);  // the largest finite half
  EXPECT_EQ(DoubleToHalf(65519.0), 0x7bff);  // below the halfway point to 2^16
  EXPECT_EQ(DoubleToHalf(65520.0), 0x7c00);  // halfway rounds to even: infinity
  EXPECT_EQ(DoubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25)), 0x0000);        // halfway to the smallest: even
  EXPECT_EQ(DoubleToHalf(std::ldexp(3.0, -25)), 0x0002);        // 1.5 units: even is 2
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3c00);  // halfway: even
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(3.0, -11)), 0x3c02);  // 1.5 units: even is 2
  EXPECT_EQ(DoubleToHalf(2047.0 / 1024.0 + std::ldexp(1.0, -11)), 0x4000);  // carries to 2.0
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -14)), 0x0400);                    // the smallest normal
  EXPECT_EQ(DoubleToHalf(std::nan("")) & 0x7c00, 0x7c00);
  EXPECT_NE(DoubleToHalf(std::nan("")) & 0x03ff, 0);
  EXPECT_EQ(DoubleToBFloat16(1.0), 0x3f80);
  EXPECT_EQ(DoubleToBFloat16(1.0 + std::ldexp(1.0, -8)), 0x3f80);  // halfway: even
  EXPECT_EQ(DoubleToBFloat16(1.0 + std::ldexp(3.0, -8)), 0x3f82);
  EXPECT_EQ(DoubleToBFloat16(3.0e38), 0x7f62);
  EXPECT_EQ(DoubleToBFloat16(1e39), 0x7f80);
  EXPECT_EQ(BFloat16ToDouble(0x0001), std::ldexp(1.0, -133));
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const double value = HalfToDouble(static_cast<uint16_t>(bits));
    if (!std::isnan(value)) {
      EXPECT_EQ(DoubleToHalf(value), bits);
    }
    const double bvalue = BFloat16ToDouble(static_cast<uint16_t>(bits));
    if (!std::isnan(bvalue)) {
      EXPECT_EQ(DoubleToBFloat16(bvalue), bits);
      // bfloat16 is the upper half of a float32.
      EXPECT_EQ(bvalue, std::bit_cast<float>(bits << 16));
    }
  }
}

TEST(Npy, WritesEveryDtypesDescr) {
  for (const char* descr : {"|b1", "<f2", ">f2", "<V2", ">V2", ">u8", "<i8"}) {
    const auto bytes = Write({1.0}, {1}, *ParseDescr(descr));
    const std::string text(bytes.begin() + 10, bytes.end());
    EXPECT_NE(text.find(Str("'descr': '", descr, "'")), std::string::npos) << text;
    EXPECT_EQ(MustRead(bytes).values, std::vector<double>{1.0}) << descr;
  }
}

TEST(Npy, ReadsFortranOrderOfWideElements) {
  // [[1, 2], [3, 4]] as int16 stored column by column.
  const Array array = MustRead(
      File("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 2), }", {1, 0, 3, 0, 2, 0, 4, 0}));
  EXPECT_EQ(array.values, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(array.Int(1), 2);
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
  EXPECT_NE(
      ReadError(File("{'descr': '<f1', 'fortran_order': False, 'shape': (), }", {0})).find("dtype"),
      std::string::npos);
  EXPECT_NE(ReadError(File("{'descr': '<V4', 'fortran_order': False, 'shape': (), }", {0, 0, 0, 0}))
                .find("dtype"),
            std::string::npos);
  EXPECT_NE(ReadError(File("{'descr': '<b2', 'fortran_order': False, 'shape': (), }", {0, 0}))
                .find("dtype"),
            std::string::npos);
  // An odd byte count for a 2-byte dtype, and a count whose byte size overflows.
  EXPECT_NE(ReadError(File("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", {0, 0, 0}))
                .find("data bytes"),
            std::string::npos);
  EXPECT_NE(
      ReadError(
          File("{'descr': '<u8', 'fortran_order': False, 'shape': (2305843009213693952,), }", {}))
          .find("more than"),
      std::string::npos);
}

}  // namespace
}  // namespace accelcheck::npy
