// ReadFile is the inverse of Serialize: decoding a file and writing it again
// gives a file that decodes to the same model.
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "conformance/pte/bases.h"
#include "conformance/pte/read.h"
#include "conformance/pte/serialize.h"

namespace accelcheck::pte {
namespace {

std::vector<uint8_t> Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Equal when a second round trip reproduces the first one's bytes: the
// model has no operator==, and Serialize is deterministic.
void ExpectRoundTrip(const std::vector<uint8_t>& bytes, const std::string& name) {
  std::string error;
  const auto first = ReadFile(bytes, &error);
  ASSERT_TRUE(first) << name << ": " << error;
  const std::vector<uint8_t> written = Serialize(*first);
  const auto second = ReadFile(written, &error);
  ASSERT_TRUE(second) << name << ": " << error;
  EXPECT_EQ(Serialize(*second), written) << name;
  EXPECT_EQ(second->program.execution_plan->size(), first->program.execution_plan->size()) << name;
}

TEST(ReadFile, ExampleBasesRoundTrip) {
  for (const NamedBase& base : ExampleBases()) {
    const std::vector<uint8_t> bytes = Serialize(base.file);
    ExpectRoundTrip(bytes, base.name);
    // The builder's own output is already in the writer's layout.
    std::string error;
    EXPECT_EQ(Serialize(*ReadFile(bytes, &error)), bytes) << base.name;
  }
}

TEST(ReadFile, CorpusRoundTrips) {
  const std::filesystem::path dir = std::filesystem::path(ACCELCHECK_CORPUS_DIR) / "pte";
  if (!std::filesystem::is_directory(dir))
    GTEST_SKIP() << "no corpus at " << dir << "; real-file round trips skipped";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".pte") continue;
    ExpectRoundTrip(Slurp(entry.path()), entry.path().filename().string());
    ++files;
  }
  EXPECT_GT(files, 0);
}

TEST(ReadFile, KeepsAbsentFieldsAndRawTags) {
  model::File f = ExampleBases()[0].file;
  auto& plan = (*f.program.execution_plan)[0];
  plan.container_meta_type = std::nullopt;
  model::EValue odd;
  odd.type = 42;  // no KernelTypes member
  plan.values->push_back(odd);
  std::get<model::Tensor>((*plan.values)[0].val).scalar_type = 9;
  std::string error;
  const auto back = ReadFile(Serialize(f), &error);
  ASSERT_TRUE(back) << error;
  const auto& p = (*back->program.execution_plan)[0];
  EXPECT_FALSE(p.container_meta_type.has_value());
  EXPECT_EQ(p.values->back().type, 42);
  EXPECT_EQ(std::get<model::Tensor>((*p.values)[0].val).scalar_type, 9);
}

TEST(ReadFile, RejectsOtherBytes) {
  std::string error;
  EXPECT_FALSE(ReadFile(std::vector<uint8_t>(100, 0), &error));
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace accelcheck::pte
