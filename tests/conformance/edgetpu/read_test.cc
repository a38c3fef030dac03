// ReadFile is the inverse of Serialize, reads every real file, and never
// fails unsafely on bytes it cannot read.
#include <random>

#include <gtest/gtest.h>

#include "conformance/edgetpu/bases.h"
#include "conformance/edgetpu/flex_map.h"
#include "conformance/edgetpu/read.h"
#include "conformance/edgetpu/serialize.h"
#include "tests/conformance/edgetpu/package_facts.h"

namespace accelcheck::edgetpu {
namespace {

using namespace testutil;
using namespace model;

TEST(EdgetpuRead, BasesRoundTrip) {
  for (const NamedBase& base : ExampleBases()) {
    const std::vector<uint8_t> bytes = Serialize(base.file);
    std::string error;
    const std::optional<File> back = ReadFile(bytes, &error);
    ASSERT_TRUE(back) << base.name << ": " << error;
    EXPECT_EQ(*back, base.file) << base.name;
    EXPECT_EQ(Serialize(*back), bytes) << base.name;
  }
}

Executable& FirstExecutable(Package& package) {
  return std::get<Executable>(
      std::get<MultiExecutable>(*package.multi_executable).executables->front());
}

// Absent and written-with-its-default stay apart, and values outside the
// enums and union tags survive.
TEST(EdgetpuRead, KeepsPresenceAndRawValues) {
  Package package = std::get<Package>(ExampleBases().back().file);
  Executable& e = FirstExecutable(package);
  e.version = 0;
  e.estimated_cycles = std::nullopt;
  e.type = 7;
  e.dma_hints->hints->push_back(DmaHint{});
  DmaHint odd;
  odd.type = 9;
  e.dma_hints->hints->push_back(odd);
  e.dma_hints->hints->push_back(DmaHint::Of(InterruptHint{int16_t{5}}, int16_t{3}));
  e.output_layers->front().data_type = 6;
  e.output_layers->front().any_layer_type = 4;
  e.output_layers->front().any_layer = std::monostate{};
  e.input_layers->front().numerics->zero_point = std::nullopt;
  package.keypair_version = std::nullopt;
  package.signature = std::nullopt;
  std::string error;
  const std::optional<Package> back = ReadPackage(SerializePackage(package), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, package);
}

// A nested buffer that does not verify is kept as its bytes.
TEST(EdgetpuRead, KeepsUndecodableNestedBytes) {
  Package package = std::get<Package>(ExampleBases().back().file);
  auto& executables = *std::get<MultiExecutable>(*package.multi_executable).executables;
  executables.push_back(Vec<uint8_t>{1, 2, 3});
  executables.push_back(Vec<uint8_t>{});
  std::string error;
  std::optional<Package> back = ReadPackage(SerializePackage(package), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, package);

  package.multi_executable = Vec<uint8_t>{};
  back = ReadPackage(SerializePackage(package), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, package);
}

TEST(EdgetpuRead, KeepsOtherOptionsAsBytes) {
  File file = ExampleBases()[2].file;
  auto& op = (*std::get<TfliteModel>(file).subgraphs)[0].operators->front();
  op.custom_options = Vec<uint8_t>{0xde, 0xad};
  std::string error;
  std::optional<File> back = ReadFile(Serialize(file), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, file);
  // "4" that is not a package stays a string.
  op.custom_options =
      FlexMap{{{"4", FlexString{{'n', 'o'}}}, {"1", FlexVector{{std::string("x")}}}}};
  back = ReadFile(Serialize(file), &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, file);
}

TEST(EdgetpuRead, RejectsOtherBytes) {
  std::string error;
  EXPECT_FALSE(ReadFile(std::vector<uint8_t>(64, 0), &error));
  EXPECT_FALSE(error.empty());
  std::vector<uint8_t> fake(64, 0);
  std::copy_n("TFL3", 4, fake.begin() + 4);
  EXPECT_FALSE(ReadFile(fake, &error));
}

TEST(EdgetpuRead, RealFiles) {
  const auto files = CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "no corpus at " << ACCELCHECK_CORPUS_DIR << "; skipped";
  for (const auto& path : files) {
    const std::string name = path.filename().string();
    std::string error;
    const std::optional<File> file = ReadFile(Slurp(path), &error);
    ASSERT_TRUE(file) << name << ": " << error;
    const auto& graph = (*std::get<TfliteModel>(*file).subgraphs)[0];
    int packages = 0;
    for (const Operator& op : *graph.operators) {
      const auto* map = op.custom_options ? std::get_if<FlexMap>(&*op.custom_options) : nullptr;
      if (!map) continue;
      for (const FlexEntry& entry : map->entries) {
        if (const auto* p = std::get_if<FlexPackage>(&entry.value)) {
          ++packages;
          for (const auto& nested :
               *std::get<MultiExecutable>(*p->package.multi_executable).executables)
            EXPECT_TRUE(std::holds_alternative<Executable>(nested)) << name;
        }
      }
    }
    // The file from before the package format has a bare executable in
    // "4", which stays a string.
    EXPECT_EQ(packages, IsLegacy(path) ? 0 : 1) << name;
    const std::vector<uint8_t> written = Serialize(*file);
    const std::optional<File> again = ReadFile(written, &error);
    ASSERT_TRUE(again) << name << ": " << error;
    EXPECT_EQ(*again, *file) << name;
    if (IsLegacy(path)) continue;
    // Written again, a real package verifies and keeps the compiler's
    // layout (the root table, every executable and parameters vector where
    // the original has them, but for a page more in two executables).
    const std::vector<PackageAt> in_written = PackagesIn(written);
    ASSERT_EQ(in_written.size(), 1u) << name;
    const std::optional<PackageFacts> facts = FactsOf(in_written[0].bytes);
    ASSERT_TRUE(facts) << name;
    ExpectCompilerLayout(*facts, name);
  }
}

// Every prefix of a base, and of its package and custom options alone,
// reads without harm (ASan builds check the "without harm"); a prefix that
// still verifies (the builder may leave padding at the end) holds the
// whole model.
TEST(EdgetpuRead, EveryTruncationIsSafe) {
  const NamedBase base = ExampleBases()[1];
  const std::vector<uint8_t> bytes = Serialize(base.file);
  const std::vector<uint8_t> package = PackagesIn(bytes)[0].bytes;
  const FlexMap& map = std::get<FlexMap>(
      *(*std::get<TfliteModel>(base.file).subgraphs)[0].operators->front().custom_options);
  const std::vector<uint8_t> options = SerializeFlexMap(map);
  const Package& model_package = std::get<FlexPackage>(map.entries[1].value).package;
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::string error;
    if (const std::optional<File> file = ReadFile(ByteView(bytes).first(n), &error)) {
      EXPECT_EQ(*file, base.file) << n;
    }
  }
  for (size_t n = 0; n < package.size(); ++n) {
    std::string error;
    if (const std::optional<Package> p = ReadPackage(ByteView(package).first(n), &error)) {
      EXPECT_EQ(*p, model_package) << n;
    }
  }
  size_t maps = 0;
  for (size_t n = 0; n < options.size(); ++n) {
    if (ReadFlexMap(ByteView(options).first(n))) ++maps;
  }
  EXPECT_LT(maps, options.size());
  EXPECT_GT(bytes.size(), 30000u);
}

// Random byte changes: whatever reads, reads again the same after a round
// trip.
TEST(EdgetpuRead, CorruptionIsSafe) {
  std::mt19937 random(20261123);
  for (const NamedBase& base : ExampleBases()) {
    const std::vector<uint8_t> bytes = Serialize(base.file);
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<uint8_t> changed = bytes;
      const int changes = 1 + static_cast<int>(random() % 8);
      for (int c = 0; c < changes; ++c)
        changed[random() % changed.size()] = static_cast<uint8_t>(random());
      std::string error;
      const std::optional<File> file = ReadFile(changed, &error);
      if (!file) continue;
      const std::vector<uint8_t> written = Serialize(*file);
      const std::optional<File> again = ReadFile(written, &error);
      ASSERT_TRUE(again) << base.name << ": " << error;
      // Compared as bytes: a changed float may be a NaN.
      EXPECT_EQ(Serialize(*again), written) << base.name;
    }
  }
}

}  // namespace
}  // namespace accelcheck::edgetpu
