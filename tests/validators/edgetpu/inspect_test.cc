// inspect on real Edge TPU models: the package found at its file offset,
// every executable with its enums named, payloads summarised by offset and
// length and never dumped.
#include <filesystem>

#include <gtest/gtest.h>

#include "tests/support/describe.h"
#include "validators/edgetpu/edgetpu_format.h"

namespace accelcheck::edgetpu {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kMovenet = fs::path(ACCELCHECK_CORPUS_DIR) / "edgetpu" /
                          "test_data__movenet_single_pose_lightning_ptq_edgetpu.tflite";

json Inspect(const fs::path& path, DiagnosticSink& sink) {
  std::string error;
  const auto input = ReadFileLimited(path.string(), 1ull << 32, &error);
  EXPECT_TRUE(input) << error;
  ValidateContext context;
  return input ? EdgetpuFormat().Inspect(*input, context, sink) : json();
}

TEST(EdgetpuInspect, ThePackageAndItsExecutablesWithOffsets) {
  if (!fs::exists(kMovenet)) GTEST_SKIP() << "no corpus file " << kMovenet;
  DiagnosticSink sink(Profile{}, kMovenet.string());
  const json doc = Inspect(kMovenet, sink);
  ASSERT_EQ(sink.diagnostics().size(), 0u) << ::accelcheck::test::Describe(sink);
  ASSERT_EQ(doc["edgetpu_ops"].size(), 1u);
  const json& op = doc["edgetpu_ops"][0];
  EXPECT_EQ(op["path"], "subgraphs[0].operators[2]");
  EXPECT_EQ(op["custom_options"]["keys"][1]["key"], "4");
  EXPECT_EQ(op["custom_options"]["keys"][1]["type"], "STRING");
  const json& package = op["package"];
  EXPECT_EQ(package["@offset"], 8776);  // docs/formats/edgetpu.md §5.1
  EXPECT_EQ(package["min_runtime_version"], 12);
  ASSERT_EQ(package["executables"].size(), 2u);
  const json& eo = package["executables"][0];
  EXPECT_EQ(eo["type_name"], "EXECUTION_ONLY");
  EXPECT_EQ(package["executables"][1]["type_name"], "PARAMETER_CACHING");
  EXPECT_EQ(eo["parameter_caching_token"], package["executables"][1]["parameter_caching_token"]);
  // A payload is where its bytes are and how many, never the bytes.
  const json& bitstream = eo["instruction_bitstreams"][0]["bitstream"];
  EXPECT_EQ(bitstream.size(), 2u);
  EXPECT_GT(bitstream["length"].get<uint64_t>(), 0u);
  EXPECT_GT(bitstream["@offset"].get<uint64_t>(), package["@offset"].get<uint64_t>());
  EXPECT_EQ(eo["instruction_bitstreams"][0]["field_offsets"].size(), 16u);
  EXPECT_EQ(eo["instruction_bitstreams"][0]["field_offsets"][0]["offset_bit"].get<int>() % 128, 70);
  EXPECT_FALSE(eo["output_layers"][0]["any_layer"]["layout"].is_null());
}

}  // namespace
}  // namespace accelcheck::edgetpu
