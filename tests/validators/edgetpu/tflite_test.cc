// The TensorFlow Lite side of a model beyond what the flatbuffers Verifier
// checks, on inputs the edgetpu fuzzer made (fuzz/regressions/edgetpu/) and a
// suite example made extreme.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/edgetpu/bases.h"
#include "conformance/edgetpu/serialize.h"
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

// The io.byte_size finding on a model.
std::string ByteSizeMessage(const std::vector<uint8_t>& bytes) {
  DiagnosticSink sink(Profile{}, "model");
  EdgetpuFormat().Validate(InputBuffer::Copy(bytes), ValidateContext{}, sink);
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == &rules::kIoByteSize) return d.message;
  }
  ADD_FAILURE() << "no " << rules::kIoByteSize.id << ": " << Describe(sink);
  return "";
}

// An output of 37 dimensions whose product, taken in order, passes what 128
// bits hold before a dimension of 0 makes it 0: it once overflowed (the fuzz
// build's regression run catches that under UBSan); its size is 0 bytes.
TEST(TfliteIo, TensorBytesWithAZeroDimensionAreZero) {
  const std::string message = ByteSizeMessage(Regression("tensor_bytes_overflow"));
  EXPECT_NE(message.find("(0 bytes) but one batch element"), std::string::npos) << message;
}

// The suite's standalone example with an input of 1x65536^7 int8 elements:
// 2^112 bytes, past what TensorBytes computes, is reported as that, not
// wrapped.
TEST(TfliteIo, TensorBytesPast2To100AreNotComputed) {
  model::File file = ExampleBases().at(0).file;
  auto& tflite = std::get<model::TfliteModel>(file);
  model::SubGraph& graph = tflite.subgraphs->at(0);
  model::Tensor& input = graph.tensors->at(static_cast<size_t>(graph.inputs->at(0)));
  input.shape = std::vector<int32_t>{1, 65536, 65536, 65536, 65536, 65536, 65536, 65536};
  const std::string message = ByteSizeMessage(Serialize(file));
  EXPECT_NE(message.find("(more than 2^100 bytes) but one batch element"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace accelcheck::edgetpu
