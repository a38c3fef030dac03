// The TensorFlow Lite container's verification (EDG-1) beyond what the
// flatbuffers Verifier checks.
#include <filesystem>
#include <fstream>
#include <iterator>
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
TEST(TfliteVerify, MisalignedZeroPointsFailVerification) {
  const std::filesystem::path path = std::filesystem::path(ACCELCHECK_SOURCE_DIR) / "fuzz" /
                                     "regressions" / "edgetpu" / "misaligned_zero_points";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
  DiagnosticSink sink(Profile{}, path.string());
  EdgetpuFormat().Validate(InputBuffer::Copy(bytes), ValidateContext{}, sink);
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.rule, &rules::kTfliteVerify);
  EXPECT_EQ(d.location.offset, 0x124u);
  EXPECT_EQ(d.location.path, "subgraphs[0].tensors[1].quantization.zero_point");
}

}  // namespace
}  // namespace accelcheck::edgetpu
