// Real Tensil artifacts: every model and architecture validates with no
// finding at all (docs/formats/tensil.md §7: all real artifacts pass items 1-30),
// the XOR models agree with their .tarch, and every program disassembles and
// assembles back to the same bytes.
#include <filesystem>

#include <gtest/gtest.h>

#include "tests/support/describe.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/format.h"
#include "validators/tensil/disasm.h"
#include "validators/tensil/rules.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck::tensil {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR) / "tensil"; }

std::vector<fs::path> Files(std::string_view extension) {
  std::vector<fs::path> files;
  if (!fs::is_directory(CorpusDir())) return files;
  for (const auto& entry : fs::recursive_directory_iterator(CorpusDir())) {
    if (entry.path().extension() == extension) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

InputBuffer Load(const fs::path& path) {
  std::string error;
  auto buffer = ReadFileLimited(path.string(), 1ull << 32, &error);
  EXPECT_TRUE(buffer) << path << ": " << error;
  return buffer ? std::move(*buffer) : InputBuffer();
}

using ::accelcheck::test::Describe;

DiagnosticSink Validate(const fs::path& path, std::vector<std::string> companions = {}) {
  DiagnosticSink sink(Profile{.strict = true}, path.string());
  ValidateContext context;
  context.path = path.string();
  context.companions = std::move(companions);
  const InputBuffer input = Load(path);
  const FormatEntry* detected = DetectFormat(input.bytes());
  EXPECT_EQ(detected != nullptr ? &detected->validator : nullptr, &TensilFormat()) << path;
  TensilFormat().Validate(input, context, sink);
  return sink;
}

#define SKIP_WITHOUT_CORPUS() \
  if (!fs::is_directory(CorpusDir())) GTEST_SKIP() << "Tensil corpus not found at " << CorpusDir()

TEST(TensilCorpus, EveryModelHasNoFindingEvenUnderStrict) {
  SKIP_WITHOUT_CORPUS();
  const auto models = Files(".tmodel");
  EXPECT_EQ(models.size(), 15u);
  for (const fs::path& model : models) {
    const auto sink = Validate(model);
    EXPECT_TRUE(sink.diagnostics().empty()) << model << "\n" << Describe(sink);
  }
}

TEST(TensilCorpus, EveryArchitectureHasNoFinding) {
  SKIP_WITHOUT_CORPUS();
  const auto archs = Files(".tarch");
  EXPECT_GE(archs.size(), 6u);
  for (const fs::path& arch : archs) {
    const auto sink = Validate(arch);
    EXPECT_TRUE(sink.diagnostics().empty()) << arch << "\n" << Describe(sink);
  }
}

TEST(TensilCorpus, XorModelsMatchTheirArchitecture) {
  SKIP_WITHOUT_CORPUS();
  for (const fs::path& model : Files(".tmodel")) {
    fs::path tarch = model;
    tarch.replace_extension(".tarch");
    if (!fs::exists(tarch)) continue;
    const auto sink = Validate(model, {tarch.string()});
    EXPECT_TRUE(sink.diagnostics().empty()) << model << "\n" << Describe(sink);
  }
  // zcu104 baseline against the other shipped architecture: every depth differs.
  const fs::path baseline =
      CorpusDir() / "zcu104_resnet20v2/baseline/resnet20v2_cifar_onnx_zcu104.tmodel";
  const auto sink = Validate(baseline, {(CorpusDir() / "arch/zcu104_uram.tarch").string()});
  EXPECT_TRUE(sink.Has(rules::kArchMismatch)) << Describe(sink);
}

TEST(TensilCorpus, DisassembleAssembleIsByteIdentical) {
  SKIP_WITHOUT_CORPUS();
  for (const fs::path& path : Files(".tmodel")) {
    DiagnosticSink sink(Profile{}, path.string());
    ValidateContext context;
    context.path = path.string();
    const auto loaded = LoadModel(Load(path), context, sink);
    ASSERT_TRUE(loaded) << path << "\n" << Describe(sink);
    const std::string text = Disassemble(loaded->program.bytes(), loaded->layout);
    EXPECT_EQ(text.find(".bytes"), std::string::npos)
        << path << ": a real instruction has no assembly form";
    AssembleError error;
    const auto bytes = Assemble(text, loaded->layout, &error);
    ASSERT_TRUE(bytes) << path << " line " << error.line << ": " << error.message;
    EXPECT_TRUE(std::equal(bytes->begin(), bytes->end(), loaded->program.bytes().begin(),
                           loaded->program.bytes().end()))
        << path;
  }
}

// The worked decodings of docs/formats/tensil.md §4.4.
TEST(TensilCorpus, WorkedDecodings) {
  SKIP_WITHOUT_CORPUS();
  struct Expect {
    const char* model;
    size_t index;
    const char* text;
  };
  const Expect expected[] = {
      {"xor_compilerspec/xor_2x2_memory256.tmodel", 0,
       "DataMove dram1->local local=0 dram1=0 size=2"},
      {"xor_compilerspec/xor_2x2_memory256.tmodel", 4,
       "SIMD op=zero left=in right=in dest=r1 wacc=0 racc=0"},
      {"xor_compilerspec/xor_2x2_memory256.tmodel", 5,
       "SIMD read write op=max left=in right=r1 dest=out wacc=1 racc=0"},
      {"xor_compilerspec/xor4_2x2_memory128_stride2.tmodel", 0,
       "DataMove dram1->local local=0 dram1=0 size=2 stride1=0x1"},
      {"zcu104_resnet20v2/baseline/resnet20v2_cifar_onnx_zcu104.tmodel", 1,
       "DataMove dram0->local local=289 dram0=0 size=1023"},
      {"zcu104_resnet20v2/baseline/resnet20v2_cifar_onnx_zcu104.tmodel", 2,
       "LoadWeights local=0 size=32"},
      {"zcu104_resnet20v2/baseline/resnet20v2_cifar_onnx_zcu104.tmodel", 3,
       "MatMul local=289 acc=33 size=30"},
      {"mnist_ultra96v2/e14_mnist_20_lr_0_001_onnx_ultra96v2.tmodel", 0,
       "DataMove dram1->local local=0 dram1=0 size=400 stride1=0x1"},
  };
  for (const Expect& e : expected) {
    const fs::path path = CorpusDir() / e.model;
    DiagnosticSink sink(Profile{}, path.string());
    ValidateContext context;
    context.path = path.string();
    const auto loaded = LoadModel(Load(path), context, sink);
    ASSERT_TRUE(loaded) << path;
    EXPECT_EQ(
        DisassembleOne(DecodeAt(loaded->program.bytes(), e.index, loaded->layout), loaded->layout),
        e.text)
        << e.model << " #" << e.index;
  }
}

}  // namespace
}  // namespace accelcheck::tensil
