// A damaged NEFF is still recognised as a NEFF (docs/formats/neff.md §1.1)
// and reported for its damage, never as a file of no format: the header cut
// short or the payload cut short, and each header field the loader gates on
// set out of range, on the project's bases and on every real file.
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "accelcheck/accelcheck.h"
#include "conformance/neff/bases.h"
#include "conformance/neff/model.h"
#include "tests/support/corpus.h"
#include "validators/neff/neff_format.h"

namespace accelcheck::neff {
namespace {

namespace nc = conformance;
using Bytes = std::vector<uint8_t>;

void SetU64(Bytes& file, size_t offset, uint64_t value) {
  for (size_t i = 0; i < 8; ++i) file[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

struct Damage {
  std::string name;
  Bytes (*apply)(Bytes);
  std::string rule;  // the error it must be reported as
};

const std::vector<Damage>& Damages() {
  static const std::vector<Damage> kDamages = {
      {"cut inside the header", [](Bytes f) { return Bytes(f.begin(), f.begin() + 600); },
       "neff.header.truncated"},
      {"cut inside the payload",
       [](Bytes f) { return Bytes(f.begin(), f.begin() + 1024 + (f.size() - 1024) / 2); },
       "neff.header.data_size"},
      {"pkg_version 3", [](Bytes f) { return SetU64(f, 0x0, 3), f; }, "neff.header.pkg_version"},
      {"header_size 1000", [](Bytes f) { return SetU64(f, 0x8, 1000), f; },
       "neff.header.header_size"},
      {"data_size 0", [](Bytes f) { return SetU64(f, 0x10, 0), f; }, "neff.header.data_size"},
      {"data_size past the end", [](Bytes f) { return SetU64(f, 0x10, f.size()), f; },
       "neff.header.data_size"},
  };
  return kDamages;
}

// Detected by content alone, and validated, through the embedding
// interface, as a NEFF that has the damage's error.
void ExpectReportedAsItsDamage(const std::string& what, const Bytes& file) {
  for (const Damage& damage : Damages()) {
    const Bytes damaged = damage.apply(file);
    EXPECT_TRUE(NeffFormat().Detect(damaged)) << what << ", " << damage.name;
    const api::Result result = api::Validate(damaged);
    EXPECT_EQ(result.format, "neff") << what << ", " << damage.name;
    bool reported = false;
    for (const api::Diagnostic& d : result.diagnostics) {
      reported |= d.rule == damage.rule && d.severity == api::Severity::kError;
    }
    EXPECT_TRUE(reported) << what << ", " << damage.name << ": no " << damage.rule;
  }
}

TEST(DamagedHeader, EachBaseIsReportedForItsDamage) {
  for (const nc::NamedBase& base : nc::Bases()) {
    ExpectReportedAsItsDamage(base.name, nc::Write(base.neff));
  }
}

TEST(DamagedHeader, EachRealFileIsReportedForItsDamage) {
  const std::vector<std::filesystem::path> files = test::CorpusFiles("neff", ".neff");
  if (files.empty()) GTEST_SKIP() << "the corpus is absent: " << test::CorpusDir("neff");
  for (const std::filesystem::path& path : files) {
    ExpectReportedAsItsDamage(path.filename().string(), test::ReadBytes(path));
  }
}

// The evidence is specific: the first bytes of other formats, or a header
// whose first fields are not a writer's, are no NEFF.
TEST(DamagedHeader, OtherContentIsNoNeff) {
  Bytes header(1024, 0);
  SetU64(header, 0x0, 2);
  SetU64(header, 0x8, 1024);
  EXPECT_TRUE(NeffFormat().Detect(header));
  SetU64(header, 0x8, 1000);
  EXPECT_FALSE(NeffFormat().Detect(header));
  SetU64(header, 0x8, 1024);
  SetU64(header, 0x0, 3);
  EXPECT_FALSE(NeffFormat().Detect(header));
  const std::string json = "{\"graphs\": []}";
  EXPECT_FALSE(NeffFormat().Detect(Bytes(json.begin(), json.end())));
  EXPECT_FALSE(NeffFormat().Detect(Bytes(15, 0)));
}

}  // namespace
}  // namespace accelcheck::neff
