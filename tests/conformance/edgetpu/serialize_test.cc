// The builder's output verifies at every level the runtime verifies, and has
// the layout of the compiler's: the same facts hold for the bases and for
// every real file (docs/formats/edgetpu.md §5.2).
#include <gtest/gtest.h>

#include "conformance/edgetpu/bases.h"
#include "conformance/edgetpu/read.h"
#include "conformance/edgetpu/serialize.h"
#include "tests/conformance/edgetpu/package_facts.h"

namespace accelcheck::edgetpu {
namespace {

using namespace testutil;
using namespace model;

std::vector<uint8_t> PackageBytes(const NamedBase& base) {
  const std::vector<uint8_t> bytes = Serialize(base.file);
  if (std::holds_alternative<Package>(base.file)) return bytes;
  const std::vector<PackageAt> packages = PackagesIn(bytes);
  EXPECT_EQ(packages.size(), 1u) << base.name;
  return packages.empty() ? std::vector<uint8_t>{} : packages[0].bytes;
}

TEST(EdgetpuSerialize, EveryLevelVerifies) {
  for (const NamedBase& base : ExampleBases()) {
    const std::vector<uint8_t> bytes = Serialize(base.file);
    if (std::holds_alternative<TfliteModel>(base.file)) {
      const InputBuffer copy = InputBuffer::Copy(bytes);
      flatbuffers::Verifier verifier(copy.data(), copy.size());
      EXPECT_TRUE(accelcheck::tflite::VerifyModelBuffer(verifier)) << base.name;
      EXPECT_TRUE(HasBytesAt(bytes, 4, "TFL3")) << base.name;
    } else {
      EXPECT_TRUE(HasBytesAt(bytes, 4, "DWN1")) << base.name;
    }
    const std::vector<uint8_t> package = PackageBytes(base);
    EXPECT_TRUE(HasBytesAt(package, 4, "DWN1")) << base.name;
    EXPECT_TRUE(FactsOf(package).has_value()) << base.name;
  }
}

TEST(EdgetpuSerialize, RealLayout) {
  for (const NamedBase& base : ExampleBases()) {
    const std::optional<PackageFacts> facts = FactsOf(PackageBytes(base));
    ASSERT_TRUE(facts) << base.name;
    ExpectCompilerLayout(*facts, base.name);
  }
}

TEST(EdgetpuSerialize, RealFilesHaveTheSameLayout) {
  const auto files = CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "no corpus at " << ACCELCHECK_CORPUS_DIR << "; skipped";
  for (const auto& path : files) {
    if (IsLegacy(path)) continue;
    const std::vector<PackageAt> packages = PackagesIn(Slurp(path));
    ASSERT_EQ(packages.size(), 1u) << path;
    const std::optional<PackageFacts> facts = FactsOf(packages[0].bytes);
    ASSERT_TRUE(facts) << path;
    ExpectCompilerLayout(*facts, path.filename().string());
  }
}

// The geometry docs/formats/edgetpu.md §5.2 gives for split_concat: a PC
// executable of 8192 bytes at 8192 with its parameters at 12288, and the
// EO executable after it.
TEST(EdgetpuSerialize, PairGeometry) {
  const std::vector<NamedBase> bases = ExampleBases();
  const std::optional<PackageFacts> facts = FactsOf(PackageBytes(bases[1]));
  ASSERT_TRUE(facts);
  ASSERT_EQ(facts->executables.size(), 2u);
  const ExecutableFacts& pc = facts->executables[1];
  const ExecutableFacts& eo = facts->executables[0];
  EXPECT_EQ(pc.offset, 8192u);
  EXPECT_EQ(pc.size, 8192u);
  EXPECT_EQ(*pc.parameters_offset, 12288u);
  EXPECT_EQ(pc.parameters_size, 1024u);
  // The PC string's NUL and padding to the next page, then the EO string.
  EXPECT_EQ(eo.offset, pc.offset + pc.size + 4096);
  EXPECT_EQ(eo.parameters_size, 0u);
  EXPECT_EQ(facts->size, facts->multi_offset + facts->multi_size);
}

// Real packages start 2-, 4- or 8-byte aligned in their file (offsets 186,
// 290, 296, ...): every even offset modulo 16 can be asked for.
TEST(EdgetpuSerialize, PackageOffsetKnob) {
  for (const NamedBase& base : ExampleBases()) {
    if (!std::holds_alternative<TfliteModel>(base.file)) continue;
    for (uint32_t target = 0; target < 16; target += 2) {
      SerializeOptions options;
      options.package_offset_mod16 = target;
      const std::vector<uint8_t> bytes = Serialize(base.file, options);
      const std::vector<PackageAt> packages = PackagesIn(bytes);
      ASSERT_EQ(packages.size(), 1u) << base.name;
      EXPECT_EQ(packages[0].offset % 16, target) << base.name;
      EXPECT_TRUE(FactsOf(packages[0].bytes)) << base.name;
      std::string error;
      const std::optional<File> back = ReadFile(bytes, &error);
      ASSERT_TRUE(back) << base.name << ": " << error;
      EXPECT_EQ(*back, base.file) << base.name << " at " << target;
    }
  }
}

// Several Edge TPU operators among CPU ones (the compiler's -a option,
// docs/formats/edgetpu.md §2.2): each package is placed as asked.
TEST(EdgetpuSerialize, SeveralOperators) {
  File file = ExampleBases()[1].file;
  TfliteModel& m = std::get<TfliteModel>(file);
  OperatorCode cpu;
  cpu.deprecated_builtin_code = static_cast<int8_t>(kBuiltinDequantize);
  cpu.builtin_code = kBuiltinDequantize;
  m.operator_codes->push_back(cpu);
  Vec<Operator>& ops = *(*m.subgraphs)[0].operators;
  Operator dequantize;
  dequantize.opcode_index = 1;
  dequantize.inputs = Vec<int32_t>{0};
  dequantize.outputs = Vec<int32_t>{1};
  ops.insert(ops.begin(), dequantize);
  ops.push_back(ops[1]);
  ops.back().opcode_index = 0;
  SerializeOptions options;
  options.package_offset_mod16 = 8;
  const std::vector<uint8_t> bytes = Serialize(file, options);
  const std::vector<PackageAt> packages = PackagesIn(bytes);
  ASSERT_EQ(packages.size(), 2u);
  for (const PackageAt& p : packages) {
    EXPECT_EQ(p.offset % 16, 8u);
    EXPECT_TRUE(FactsOf(p.bytes));
  }
  std::string error;
  const std::optional<File> back = ReadFile(bytes, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, file);
}

TEST(EdgetpuSerialize, PackageOffsetKnobRefusesOddOffsets) {
  SerializeOptions options;
  options.package_offset_mod16 = 3;
  EXPECT_THROW(Serialize(ExampleBases()[0].file, options), std::invalid_argument);
}

TEST(EdgetpuSerialize, BarePackageIsTheOperatorsPackage) {
  const std::vector<NamedBase> bases = ExampleBases();
  const Package& package =
      std::get<FlexPackage>(std::get<FlexMap>(*(*std::get<TfliteModel>(bases[1].file).subgraphs)[0]
                                                   .operators->front()
                                                   .custom_options)
                                .entries[1]
                                .value)
          .package;
  EXPECT_EQ(PackageBytes(bases[1]), SerializePackage(package));
  EXPECT_EQ(Serialize(File{package}), SerializePackage(package));
}

// Other alignments inside the package, for the mutations that break the
// compiler's conventions: the parts move, and the result still verifies.
TEST(EdgetpuSerialize, LayoutOptions) {
  const std::vector<NamedBase> bases = ExampleBases();
  const Package& package = std::get<Package>(bases.back().file);
  PackageLayout layout;
  layout.executable_alignment = 16;
  layout.parameters_alignment = 64;
  layout.last_executable_first = false;
  const std::optional<PackageFacts> facts = FactsOf(SerializePackage(package, layout));
  ASSERT_TRUE(facts);
  ASSERT_EQ(facts->executables.size(), 2u);
  EXPECT_LT(facts->executables[0].offset, facts->executables[1].offset);
  for (const ExecutableFacts& e : facts->executables) {
    EXPECT_EQ(e.offset % 16, 0u);
    EXPECT_NE(e.size % 4096, 0u);
    EXPECT_EQ((*e.parameters_offset - e.offset) % 64, 0u);
  }
  layout.executable_alignment = 12;
  EXPECT_THROW(SerializePackage(package, layout), std::invalid_argument);
}

FlexMap& OptionsOf(File& file) {
  return std::get<FlexMap>(
      *(*std::get<TfliteModel>(file).subgraphs)[0].operators->front().custom_options);
}

// The map as flexbuffers reads it: keys in key-vector order.
std::vector<std::string> KeysAsRead(const File& file) {
  const std::vector<uint8_t> bytes = Serialize(file);
  const InputBuffer copy = InputBuffer::Copy(bytes);
  const auto* op =
      accelcheck::tflite::GetModel(copy.data())->subgraphs()->Get(0)->operators()->Get(0);
  const auto keys = flexbuffers::GetRoot(op->custom_options()->data(), op->custom_options()->size())
                        .AsMap()
                        .Keys();
  std::vector<std::string> out;
  for (size_t i = 0; i < keys.size(); ++i) out.push_back(keys[i].AsKey());
  return out;
}

TEST(EdgetpuSerialize, FlexKeysInModelOrder) {
  File file = ExampleBases()[1].file;
  EXPECT_EQ(KeysAsRead(file), (std::vector<std::string>{"1", "4", "5", "6", "7"}));
  FlexMap& options = OptionsOf(file);
  std::swap(options.entries[0], options.entries[3]);
  options.entries.push_back({"3", FlexString{{'o', 'l', 'd'}}});
  options.entries.push_back({"1", FlexInt{7}});
  const std::vector<std::string> expected = {"6", "4", "5", "1", "7", "3", "1"};
  EXPECT_EQ(KeysAsRead(file), expected);
  std::string error;
  const std::optional<File> back = ReadFile(Serialize(file), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, file);
}

TEST(EdgetpuSerialize, PackageAsBlob) {
  File file = ExampleBases()[0].file;
  std::get<FlexPackage>(OptionsOf(file).entries[1].value).blob = true;
  const std::vector<uint8_t> bytes = Serialize(file);
  std::string error;
  const std::optional<File> back = ReadFile(bytes, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, file);
  // What the runtime reads from a BLOB: nothing (docs/formats/edgetpu.md §2.3).
  EXPECT_TRUE(PackagesIn(bytes)[0].bytes.empty());
}

}  // namespace
}  // namespace accelcheck::edgetpu
