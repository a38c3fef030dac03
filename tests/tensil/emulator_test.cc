// Golden outputs. Everywhere: small programs assembled here with outputs
// computed by hand. With the corpus: the ten CIFAR-10 images on ResNet-20 in
// five compile strategies (bit-identical, the published classes), the XOR
// truth tables and the MNIST model.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "reference_exec/tensil/run_model.h"
#include "tests/tensil/fixture.h"

namespace accelcheck::tensil {
namespace {

namespace fs = std::filesystem;

LoadedModel Tiny(const std::vector<std::string>& program, const std::vector<int16_t>& consts) {
  LoadedModel m;
  m.model.arch = Architecture{.array_size = 2, .dram0_depth = 256, .dram1_depth = 256, .local_depth = 256,
                              .accumulator_depth = 256, .stride0_depth = 2, .stride1_depth = 2};
  m.model.consts = {{"tiny.tdata", 0, consts.size() / 2}};
  m.model.inputs = {{"x", 0, 1}};
  m.model.outputs = {{"y", 1, 1}};
  m.layout = *LayoutOf(m.model.arch);
  const auto bytes = fixture::AssembleFor(fixture::TinyArch(), program);
  m.program = InputBuffer::Copy(bytes);
  std::vector<uint8_t> tdata;
  for (int16_t v : consts) {
    tdata.push_back(static_cast<uint8_t>(v));
    tdata.push_back(static_cast<uint8_t>(static_cast<uint16_t>(v) >> 8));
  }
  m.constants = InputBuffer::Copy(tdata);
  return m;
}

// y = relu(bias + x W): bias (1.0, -2.0), W = [[2.0, 1.0], [-1.0, 0.5]],
// x = (1.0, 0.5): lane 0 = 1 + 2 - 0.5 = 2.5; lane 1 = relu(-2 + 1 + 0.25) = 0.
TEST(TensilEmulator, DenseReluByHand) {
  const LoadedModel m = Tiny(fixture::BaseProgram(), {256, -512, 512, 256, -256, 128});
  Machine machine = PrepareMachine(m);
  const auto out = RunModel(machine, m, {{256, 128}});
  ASSERT_EQ(out.outputs.size(), 1u);
  EXPECT_EQ(out.outputs[0], (std::vector<Scalar>{640, 0}));
  EXPECT_EQ(out.stats.macs, 4u);
  EXPECT_EQ(out.stats.instructions, 8u);
}

// Round half to even at the binary point, saturation, every SIMD op.
TEST(TensilEmulator, SimdArithmeticByHand) {
  const std::vector<std::string> program = {
      "DataMove dram1->local local=0 dram1=0 size=2",
      "DataMove local->acc local=0 acc=0 size=2",
      "SIMD read op=move left=in right=in dest=r1 racc=1",            // R1 = (0.5, 0.5)
      "SIMD read write op=multiply left=in right=r1 dest=out wacc=3 racc=0",  // (3, 1) x 0.5
      "SIMD read write op=add left=in right=in dest=out wacc=4 racc=2",       // saturating doubling
      "SIMD read write op=subtract left=in right=r1 dest=out wacc=5 racc=2",
      "SIMD read write op=abs left=in right=in dest=out wacc=6 racc=2",
      "SIMD read write op=greater left=in right=r1 dest=out wacc=7 racc=0",
      "SIMD read write accumulate op=max left=in right=r1 dest=out wacc=7 racc=1",
      "DataMove acc->local local=3 acc=3 size=4",
      "DataMove local->dram0 local=3 dram0=1 size=4",
  };
  LoadedModel m = Tiny(program, {3, 1, 128, 128, 32767, -32768});
  m.model.outputs = {{"y", 1, 5}};
  Machine machine = PrepareMachine(m);
  const auto out = RunModel(machine, m, {});
  EXPECT_EQ(out.outputs[0], (std::vector<Scalar>{
                                2, 0,              // 3*128 = 1.5 -> 2 (odd up), 1*128 = 0.5 -> 0 (even)
                                32767, -32768,     // saturated
                                32639, -32768,     // 32767 - 128; -32768 - 128 saturates
                                32767, -32768,     // Abs of the most negative value wraps
                                128, 128,          // greater: 0, 0; then accumulate max(acc[1], R1) = 0.5
                            }));
}

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR) / "tensil"; }

#define SKIP_WITHOUT_CORPUS()                                                                  \
  if (!fs::is_directory(CorpusDir())) GTEST_SKIP() << "Tensil corpus not found at " << CorpusDir()

LoadedModel LoadCorpusModel(const fs::path& path) {
  std::string error;
  auto buffer = ReadFileLimited(path.string(), 1ull << 32, &error);
  EXPECT_TRUE(buffer) << error;
  DiagnosticSink sink(Profile{}, path.string());
  ValidateContext context;
  context.path = path.string();
  auto loaded = LoadModel(*buffer, context, sink);
  EXPECT_TRUE(loaded) << path;
  return std::move(*loaded);
}

std::vector<std::vector<float>> ReadCsv(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::vector<float>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<float> row;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) row.push_back(std::strtof(field.c_str(), nullptr));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<Scalar> Encode(const Machine& machine, const std::vector<std::vector<float>>& rows, size_t first,
                           size_t count) {
  std::vector<Scalar> out;
  for (size_t r = first; r < first + count; ++r) {
    for (float v : rows[r]) out.push_back(machine.FromFloat(v));
  }
  return out;
}

const char* const kStrategies[] = {"baseline", "ultra_ram", "ultra_ram_local_consts", "ultra_ram_local_vars",
                                   "ultra_ram_local_vars_and_consts"};

fs::path ResNet(const char* strategy) {
  for (const auto& e : fs::directory_iterator(CorpusDir() / "zcu104_resnet20v2" / strategy)) {
    if (e.path().extension() == ".tmodel") return e.path();
  }
  return {};
}

TEST(TensilEmulatorCorpus, ResNetGivesTheGoldenClassesBitIdenticallyInEveryStrategy) {
  SKIP_WITHOUT_CORPUS();
  const auto images = ReadCsv(CorpusDir() / "vectors/cifar_10x32.csv");
  const auto expected = ReadCsv(CorpusDir() / "vectors/resnet20v2_cifar_zcu104_expected.csv");
  ASSERT_EQ(images.size(), 10240u);
  ASSERT_EQ(expected.size(), 11u);
  for (const char* strategy : kStrategies) {
    const LoadedModel model = LoadCorpusModel(ResNet(strategy));
    for (size_t image = 0; image < 10; ++image) {
      // Memories are not cleared between runs in Tensil's emulator; a fresh
      // machine per image gives the same result for this program.
      Machine machine = PrepareMachine(model);
      const auto out = RunModel(machine, model, {Encode(machine, images, image * 1024, 1024)});
      const std::vector<float>& row = expected[image + 1];
      std::vector<Scalar> want(row.begin() + 3, row.end());
      EXPECT_EQ(out.outputs[0], want) << strategy << " image " << image;
      const auto best = std::max_element(out.outputs[0].begin(), out.outputs[0].begin() + 10);
      EXPECT_EQ(best - out.outputs[0].begin(), static_cast<int>(row[1])) << strategy << " image " << image;
    }
  }
}

// The CSV encoding of image 0 is the published cifar_1x32.tdata.
TEST(TensilEmulatorCorpus, FromFloatReproducesThePublishedEncoding) {
  SKIP_WITHOUT_CORPUS();
  const auto images = ReadCsv(CorpusDir() / "vectors/cifar_10x32.csv");
  std::string error;
  const auto tdata = ReadFileLimited((CorpusDir() / "vectors/cifar_1x32.tdata").string(), 1 << 20, &error);
  ASSERT_TRUE(tdata);
  Machine machine(Architecture{.array_size = 32});
  EXPECT_EQ(Encode(machine, images, 0, 1024), DecodeScalars(tdata->bytes(), DataType::kFp16bp8));
}

TEST(TensilEmulatorCorpus, XorProgramsGiveTheTruthTable) {
  SKIP_WITHOUT_CORPUS();
  const auto expected = ReadCsv(CorpusDir() / "xor_compilerspec/expected_outputs.csv");
  std::ifstream names(CorpusDir() / "xor_compilerspec/expected_outputs.csv");
  std::vector<std::string> model_of_row;
  for (std::string line; std::getline(names, line);) model_of_row.push_back(line.substr(0, line.find(',')));
  size_t checked = 0;
  for (const auto& e : fs::directory_iterator(CorpusDir() / "xor_compilerspec")) {
    if (e.path().extension() != ".tmodel") continue;
    const LoadedModel model = LoadCorpusModel(e.path());
    fs::path csv = e.path();
    csv.replace_extension(".input.csv");
    const auto inputs = ReadCsv(csv);
    Machine machine = PrepareMachine(model);
    const auto out = RunModel(machine, model, {Encode(machine, inputs, 0, inputs.size())});
    const std::string name = e.path().stem().string();
    const uint64_t n = model.model.arch.array_size;
    for (size_t r = 1; r < expected.size(); ++r) {
      if (model_of_row[r] != name) continue;
      const size_t row = static_cast<size_t>(expected[r][1]);
      const Scalar lane0 = out.outputs[0][row * n];
      EXPECT_EQ(lane0, static_cast<Scalar>(expected[r][5])) << name << " row " << row;
      EXPECT_NEAR(machine.ToDouble(lane0), expected[r][4], 2.0 / 256) << name << " row " << row;
      ++checked;
    }
  }
  EXPECT_GT(checked, 30u);
}

TEST(TensilEmulatorCorpus, MnistRunsBitExactly) {
  SKIP_WITHOUT_CORPUS();
  const fs::path dir = CorpusDir() / "mnist_ultra96v2";
  const LoadedModel model = LoadCorpusModel(dir / "e14_mnist_20_lr_0_001_onnx_ultra96v2.tmodel");
  const auto inputs = ReadCsv(CorpusDir() / "vectors/mnist_e14_inputs_10.csv");
  const auto expected = ReadCsv(CorpusDir() / "vectors/mnist_e14_expected.csv");
  ASSERT_EQ(inputs.size(), 7840u);
  for (size_t image = 0; image < 10; ++image) {
    Machine machine = PrepareMachine(model);
    const auto out = RunModel(machine, model, {Encode(machine, inputs, image * 784, 784)});
    const std::vector<float>& row = expected[image + 1];
    // Columns: index, jpg (not a number), label, emulator argmax, 2 reference argmaxes, 16 raw lanes.
    const std::vector<Scalar> want(row.begin() + 6, row.begin() + 22);
    EXPECT_EQ(out.outputs[0], want) << "image " << image;
  }
}

}  // namespace
}  // namespace accelcheck::tensil
