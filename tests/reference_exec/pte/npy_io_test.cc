// Tensors to and from .npy (reference_exec/pte/npy_io.h): every value is
// carried exactly, LONG beyond 2^53 included, and BOOL is NumPy's bool.
#include "reference_exec/pte/npy_io.h"

#include "tests/reference_exec/pte/exec_support.h"

namespace accelcheck::pte::exec::test {
namespace {

constexpr int64_t kBeyondDouble = (int64_t{1} << 53) + 1;  // no double holds it

TEST(PteNpy, LongRoundTripsExactlyBeyondTwoToThe53) {
  const HostTensor tensor = Tensor<int64_t>(DType::kLong, {3}, {kBeyondDouble, -kBeyondDouble, 7});
  std::string error;
  const auto array = npy::Read(ToNpy(tensor), &error);
  ASSERT_TRUE(array) << error;
  EXPECT_EQ(array->dtype.Descr(), "<i8");
  EXPECT_EQ(array->Int(0), kBeyondDouble);
  EXPECT_EQ(array->Int(1), -kBeyondDouble);
  const auto back = FromNpy(*array, static_cast<int8_t>(DType::kLong), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->bytes, tensor.bytes);
  EXPECT_EQ(back->sizes, tensor.sizes);
}

TEST(PteNpy, BoolIsWrittenAsNumpyBool) {
  const HostTensor tensor = Tensor<uint8_t>(DType::kBool, {2, 2}, {1, 0, 0, 1});
  EXPECT_EQ(ToNpyArray(tensor).dtype.Descr(), "|b1");
  EXPECT_EQ(ToNpyArray(tensor).shape, (std::vector<uint64_t>{2, 2}));
}

TEST(PteNpy, BoolInputTakesBoolOrUint8ZerosAndOnes) {
  const int8_t want = static_cast<int8_t>(DType::kBool);
  std::string error;
  for (const npy::Kind kind : {npy::Kind::kBool, npy::Kind::kUnsigned}) {
    const npy::Array array = npy::FromValues({kind, 1, false}, {3}, {1, 0, 1});
    const auto tensor = FromNpy(array, want, &error);
    ASSERT_TRUE(tensor) << error;
    EXPECT_EQ(tensor->bytes, (std::vector<uint8_t>{1, 0, 1}));
  }
  const npy::Array two = npy::FromValues({npy::Kind::kUnsigned, 1, false}, {2}, {1, 2});
  EXPECT_FALSE(FromNpy(two, want, &error));
  EXPECT_EQ(error, "element 1 of a BOOL input is 2, not 0 or 1");
}

TEST(PteNpy, AnInputOfAnotherDtypeIsRefusedNamingBoth) {
  const npy::Array array = npy::FromValues({npy::Kind::kFloat, 8, false}, {1}, {1});
  std::string error;
  EXPECT_FALSE(FromNpy(array, static_cast<int8_t>(DType::kFloat), &error));
  EXPECT_EQ(error, "the input is FLOAT (an array of <f4), given <f8");
}

TEST(PteNpy, BigEndianInputsAreTaken) {
  const npy::Array array = npy::FromValues({npy::Kind::kSigned, 4, true}, {2}, {-2, 300});
  std::string error;
  const auto tensor = FromNpy(npy::Read(npy::Write(array), &error).value(),
                              static_cast<int8_t>(DType::kInt), &error);
  ASSERT_TRUE(tensor) << error;
  HostValue value;
  value.type = fb::KernelTypes::Tensor;
  value.tensor = *tensor;
  EXPECT_EQ(Values(value), (std::vector<double>{-2, 300}));
}

}  // namespace
}  // namespace accelcheck::pte::exec::test
