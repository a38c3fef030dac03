// Real files from the corpus: every NEFF is recognised, validates with no
// finding but the note on its hash's byte order under --strict (the order
// it really has, worked out here from its MD5), inspects to
// its member tree, and gives up each member; every prefix of the smallest is
// reported without a crash.
#include <gtest/gtest.h>

#include "tests/support/corpus.h"
#include "tests/support/describe.h"
#include "validators/core/digest.h"
#include "validators/core/format.h"
#include "validators/neff/neff_format.h"

namespace accelcheck::neff {
namespace {

namespace fs = std::filesystem;
using ::accelcheck::test::Describe;

DiagnosticSink Validate(const fs::path& path, ByteView bytes, Profile profile = {}) {
  DiagnosticSink sink(profile, path.string());
  ValidateContext context;
  NeffFormat().Validate(InputBuffer::Copy(bytes), context, sink);
  return sink;
}

std::vector<fs::path> Files() {
  std::vector<fs::path> files = test::CorpusFiles("neff", ".neff");
  if (files.empty()) {
    ADD_FAILURE() << "no .neff files in " << test::CorpusDir("neff")
                  << " (../shared/corpus/neff is absent)";
  }
  return files;
}

class NeffCorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(test::CorpusDir("neff"))) {
      GTEST_SKIP() << "the corpus is absent: " << test::CorpusDir("neff");
    }
  }
};

TEST_F(NeffCorpusTest, EveryFileIsDetected) {
  for (const fs::path& path : Files()) {
    EXPECT_TRUE(NeffFormat().Detect(test::ReadBytes(path))) << path;
  }
}

// Whether the header stores the payload's MD5 in plain byte order (§1.3:
// neuronx-cc 2.0's pax archives) rather than with each word reversed.
bool StoresPlainHash(const std::vector<uint8_t>& file) {
  const uint64_t data_size = *ReadLE<uint64_t>(file, 0x10);
  const digest::Md5 md5 = digest::ComputeMd5(ByteView(file).subspan(1024, data_size));
  std::array<uint8_t, 16> reversed = md5;
  for (size_t i = 0; i < 16; i += 4) std::reverse(reversed.begin() + i, reversed.begin() + i + 4);
  const auto stored = file.begin() + 0xAC;
  EXPECT_TRUE(std::equal(md5.begin(), md5.end(), stored) ||
              std::equal(reversed.begin(), reversed.end(), stored));
  return std::equal(md5.begin(), md5.end(), stored);
}

TEST_F(NeffCorpusTest, EveryFileConformsEvenUnderStrict) {
  size_t plain = 0;
  for (const fs::path& path : Files()) {
    const std::vector<uint8_t> bytes = test::ReadBytes(path);
    const DiagnosticSink sink = Validate(path, bytes, Profile{.strict = true});
    EXPECT_EQ(sink.error_count(), 0u) << path << "\n" << Describe(sink);
    EXPECT_EQ(sink.warning_count(), 0u) << path << "\n" << Describe(sink);
    // §1.3: the note says which order the file stores its MD5 in.
    ASSERT_EQ(sink.diagnostics().size(), 1u) << path << "\n" << Describe(sink);
    EXPECT_EQ(sink.diagnostics()[0].rule->id, "neff.hash.order");
    const bool stores_plain = StoresPlainHash(bytes);
    plain += stores_plain;
    EXPECT_NE(sink.diagnostics()[0].message.find(
                  stores_plain ? "in plain byte order" : "with each 32-bit word byte-reversed"),
              std::string::npos)
        << path << ": " << sink.diagnostics()[0].message;
  }
  // At least the pax archive of neuronx-cc 2.0 stores it plain.
  EXPECT_GE(plain, 1u);
}

TEST_F(NeffCorpusTest, InspectListsTheMemberTree) {
  for (const fs::path& path : Files()) {
    DiagnosticSink sink(Profile{}, path.string());
    const nlohmann::json doc =
        NeffFormat().Inspect(InputBuffer::Copy(test::ReadBytes(path)), ValidateContext{}, sink);
    ASSERT_TRUE(doc.is_object()) << path << "\n" << Describe(sink);
    EXPECT_EQ(doc["header"]["pkg_version"], 2);
    EXPECT_EQ(doc["kelf"], "kelf-0.json");
    const bool trn2 = doc["header"]["neff_version"] == "2.0";
    EXPECT_EQ(doc["subgraphs"].size(), trn2 ? 2u : 1u) << path;
    EXPECT_EQ(doc["target"], trn2 ? "cayman" : "sunda") << path;
    EXPECT_EQ(doc["subgraphs"][0]["engines"]["sp"]["json"], "sg00/SP.json");
    // §2.7: a kernel whose transfers the DGE generates at run time has no
    // DMA block; every other real file moves its data with SP.
    const uint64_t sp_blocks = doc["subgraphs"][0]["engines"]["sp"]["dma_blocks"].get<uint64_t>();
    if (path.filename() == "nkipy__matmul_small.neff") {
      EXPECT_EQ(sp_blocks, 0u) << path;
    } else {
      EXPECT_GT(sp_blocks, 0u) << path;
    }
  }
}

TEST_F(NeffCorpusTest, ReadMemberGivesTheMembersBytes) {
  for (const fs::path& path : Files()) {
    const InputBuffer input = InputBuffer::Copy(test::ReadBytes(path));
    std::string error;
    const auto graph = NeffFormat().ReadMember(input, ValidateContext{}, "neff.json", &error);
    ASSERT_TRUE(graph) << path << ": " << error;
    EXPECT_EQ(graph->front(), '{');
    EXPECT_FALSE(NeffFormat().ReadMember(input, ValidateContext{}, "no/such.json", &error));
    EXPECT_NE(error.find("no/such.json"), std::string::npos);
  }
}

TEST_F(NeffCorpusTest, EveryPrefixOfTheSmallestIsReported) {
  const fs::path path = test::CorpusDir("neff") / "trn1_stream_256k_fd1k.neff";
  const std::vector<uint8_t> bytes = test::ReadBytes(path);
  ASSERT_FALSE(bytes.empty()) << path;
  for (size_t size = 0; size < bytes.size(); size += 37) {
    const ByteView prefix(bytes.data(), size);
    const DiagnosticSink sink = Validate(path, prefix);
    EXPECT_GT(sink.error_count(), 0u) << "prefix of " << size << " bytes";
  }
}

}  // namespace
}  // namespace accelcheck::neff
