// The TensorFlow Lite side of a model beyond what the flatbuffers Verifier
// checks, on inputs the edgetpu fuzzer made (fuzz/regressions/edgetpu/).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/describe.h"
#include "validators/edgetpu/edgetpu_format.h"
#include "validators/edgetpu/rules.h"

namespace accelcheck::edgetpu {
namespace {

using ::accelcheck::test::Describe;

// A model the edgetpu fuzzer made from the suite's bases (its regression
// input), whose tensor 1 has its [long] zero points at 0x124: the Verifier
// passes it, and reading them was undefined behaviour until verification
// refused it.
std::vector<uint8_t> Regression(const std::string& name) {
  const std::filesystem::path path =
      std::filesystem::path(ACCELCHECK_SOURCE_DIR) / "fuzz" / "regressions" / "edgetpu" / name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(TfliteVerify, MisalignedZeroPointsFailVerification) {
  const std::vector<uint8_t> bytes = Regression("misaligned_zero_points");
  DiagnosticSink sink(Profile{}, "misaligned_zero_points");
  EdgetpuFormat().Validate(InputBuffer::Copy(bytes), ValidateContext{}, sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.rule, &rules::kTfliteVerify);
  EXPECT_EQ(d.location.offset, 0x124u);
  EXPECT_EQ(d.location.path, "subgraphs[0].tensors[1].quantization.zero_point");
}

// An output of 37 dimensions whose product, taken in order, passes what 128
// bits hold before a dimension of 0 makes it 0: it once overflowed (the fuzz
// build's regression run catches that under UBSan); its size is 0 bytes.
TEST(TfliteIo, TensorBytesWithAZeroDimensionAreZero) {
  const std::vector<uint8_t> bytes = Regression("tensor_bytes_overflow");
  DiagnosticSink sink(Profile{}, "tensor_bytes_overflow");
  EdgetpuFormat().Validate(InputBuffer::Copy(bytes), ValidateContext{}, sink);
  const auto byte_size =
      std::find_if(sink.diagnostics().begin(), sink.diagnostics().end(),
                   [](const Diagnostic& d) { return d.rule == &rules::kIoByteSize; });
  ASSERT_NE(byte_size, sink.diagnostics().end()) << Describe(sink);
  EXPECT_NE(byte_size->message.find("(0 bytes) but one batch element"), std::string::npos)
      << byte_size->message;
}

}  // namespace
}  // namespace accelcheck::edgetpu
