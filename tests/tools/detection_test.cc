// Detection looks at a file's first kDetectionBytes (validators/core/format.h):
// on every valid base of every format and every real file, the format its
// first 64 KiB are detected as is the format the whole file is, which is
// what lets a compressed input be judged before it is inflated whole.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/provider.h"
#include "tests/support/corpus.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/format.h"

namespace accelcheck {
namespace {

std::string_view Detected(ByteView bytes) {
  const FormatEntry* entry = DetectFormat(bytes);
  return entry != nullptr ? entry->id() : "none";
}

void ExpectTheHeadDecides(const std::string& what, ByteView bytes) {
  const ByteView head = bytes.first(std::min<uint64_t>(bytes.size(), kDetectionBytes));
  EXPECT_EQ(Detected(head), Detected(bytes)) << what;
}

TEST(Detection, TheFirst64KiBOfEachBaseDecideItsFormat) {
  for (const conformance::Provider* provider : Providers()) {
    for (const conformance::Base& base : provider->Bases()) {
      for (const conformance::NamedFile& file : base.files) {
        ExpectTheHeadDecides(base.id + "/" + file.name, file.bytes);
      }
    }
  }
}

TEST(Detection, TheFirst64KiBOfEachRealFileDecideItsFormat) {
  const std::filesystem::path corpus(ACCELCHECK_CORPUS_DIR);
  if (!std::filesystem::is_directory(corpus)) GTEST_SKIP() << "the corpus is absent: " << corpus;
  uint64_t large = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(corpus)) {
    if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
    const std::vector<uint8_t> bytes = test::ReadBytes(entry.path());
    large += bytes.size() > kDetectionBytes;
    ExpectTheHeadDecides(entry.path().string(), bytes);
  }
  EXPECT_GT(large, 0u) << "no real file is longer than the head";
}

}  // namespace
}  // namespace accelcheck
