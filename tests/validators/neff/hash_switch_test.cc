// The fuzz-only hash switch (validators/neff/fuzz_switch.h) is off in every
// build but the raw-bytes fuzz target's: linked like any program, the
// library checks the hash, and a payload changed without a fresh digest is
// a mismatch (docs/formats/neff.md §1.3). hash_switch_cli.sh checks the
// shipped executable itself.
#include <gtest/gtest.h>

#include "conformance/neff/bases.h"
#include "conformance/neff/package.h"
#include "tests/support/describe.h"
#include "validators/core/format.h"
#include "validators/neff/fuzz_switch.h"
#include "validators/neff/neff_format.h"
#include "validators/neff/rules.h"

namespace accelcheck::neff {
namespace {

using ::accelcheck::test::Describe;

DiagnosticSink Validate(ByteView bytes) {
  DiagnosticSink sink(Profile{}, "test.neff");
  NeffFormat().Validate(InputBuffer::Copy(bytes), ValidateContext{}, sink);
  return sink;
}

// Byte 4 of a gzip member: its mtime, which the inflater does not use, so
// that the digest is the only thing the change breaks.
constexpr uint64_t kGzipMtime = conformance::kHeaderSize + 4;

TEST(NeffHashSwitchTest, IsOffOutsideTheFuzzTarget) { EXPECT_FALSE(SkipsHashForFuzzing()); }

TEST(NeffHashSwitchTest, AnyChangedPayloadByteIsAMismatch) {
  for (const conformance::NamedBase& base : conformance::Bases()) {
    std::vector<uint8_t> file = conformance::Write(base.neff);
    ASSERT_EQ(Validate(file).error_count(), 0u) << base.name << "\n" << Describe(Validate(file));
    for (const uint64_t at : {kGzipMtime, uint64_t{file.size() - 1}}) {
      std::vector<uint8_t> changed = file;
      changed[at] ^= 0x5A;
      EXPECT_TRUE(Validate(changed).Has(rules::kHashMismatch))
          << base.name << " byte " << at << "\n"
          << Describe(Validate(changed));
    }
  }
}

TEST(NeffHashSwitchTest, AStaleDigestIsTheOnlyErrorAndResealClearsIt) {
  const std::vector<conformance::NamedBase> bases = conformance::Bases();
  const conformance::NamedBase& stream = bases.front();
  ASSERT_EQ(stream.name, "stream");  // gzip, MD5 with reversed words
  std::vector<uint8_t> file = conformance::Write(stream.neff);
  file[kGzipMtime] ^= 0x5A;
  const DiagnosticSink stale = Validate(file);
  ASSERT_EQ(stale.error_count(), 1u) << Describe(stale);
  EXPECT_TRUE(stale.Has(rules::kHashMismatch)) << Describe(stale);
  EXPECT_FALSE(stale.Has(rules::kHashOrder)) << Describe(stale);

  conformance::Reseal(file, stream.neff.hash_order);
  const DiagnosticSink resealed = Validate(file);
  EXPECT_EQ(resealed.error_count(), 0u) << Describe(resealed);
  EXPECT_TRUE(resealed.Has(rules::kHashOrder)) << Describe(resealed);
}

}  // namespace
}  // namespace accelcheck::neff
