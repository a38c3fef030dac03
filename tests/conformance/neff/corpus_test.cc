// The real NEFFs of ../shared/corpus/neff read and write back: the header is
// the same but for data_size and the hash, and the archive holds the same
// members byte for byte (the gzip stream may differ). Every JSON member reads
// as a document, so that mutations of a real file can edit it by path.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/neff/model.h"
#include "tests/support/corpus.h"
#include "validators/core/gzip.h"
#include "validators/core/tar.h"

namespace accelcheck::neff::conformance {
namespace {

using ByteVector = std::vector<uint8_t>;

ByteVector Inflated(const ByteVector& file) {
  gzip::Error error;
  const auto member = gzip::Inflate(ByteView(file).subspan(kHeaderSize), {}, &error);
  EXPECT_TRUE(member) << error.message;
  return member ? member->data : ByteVector{};
}

TEST(Corpus, RealFilesWriteBackWithTheSameMembers) {
  const auto files = test::CorpusFiles("neff", ".neff");
  if (files.empty()) GTEST_SKIP() << "no .neff files in " << test::CorpusDir("neff");
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    const ByteVector original = test::ReadBytes(path);
    std::string error;
    const auto neff = Read(original, &error);
    ASSERT_TRUE(neff) << error;
    // §1.3, §1.5: neuronx-cc 2.0 wrote pax archives and the plain hash,
    // later compilers plain ustar and the hash with its words reversed.
    const ByteVector tar_bytes = Inflated(original);
    const bool pax = tar_bytes.size() > 156 && tar_bytes[156] == 'x';
    EXPECT_EQ(neff->dialect, pax ? Dialect::kPax : Dialect::kUstar);
    EXPECT_EQ(neff->hash_order, pax ? HashOrder::kPlain : HashOrder::kWordReversed);
    EXPECT_EQ(neff->compression, Compression::kGzip);
    EXPECT_FALSE(neff->header.hash.has_value());  // it matched, so it is recomputed
    // A JSON member is held as JSON when the writer lays it out as the
    // compiler did, and as its bytes otherwise (compiler 2.23's hlo_stats.json
    // in jsoncpp's styled layout); either way it is JSON and writes back as it was.
    for (const Member& m : neff->members) {
      if (!m.name.ends_with(".json")) continue;
      if (const auto* bytes = std::get_if<ByteVector>(&m.content)) {
        EXPECT_TRUE(Json::accept(bytes->begin(), bytes->end())) << m.name;
        EXPECT_EQ(m.name, "hlo_stats.json");
      }
    }

    const ByteVector written = Write(*neff);
    ByteVector original_header(original.begin(), original.begin() + kHeaderSize);
    ByteVector written_header(written.begin(), written.begin() + kHeaderSize);
    for (ByteVector* header : {&original_header, &written_header}) {
      std::fill_n(header->begin() + header_offset::kDataSize, 8, 0);
      std::fill_n(header->begin() + header_offset::kHash, 32, 0);
    }
    EXPECT_EQ(written_header, original_header);

    const ByteVector original_tar = Inflated(original), written_tar = Inflated(written);
    const tar::Archive before = tar::Read(original_tar, {}), after = tar::Read(written_tar, {});
    EXPECT_TRUE(after.findings.empty());
    ASSERT_EQ(after.members.size(), before.members.size());
    for (size_t i = 0; i < before.members.size(); ++i) {
      EXPECT_EQ(after.members[i].name, before.members[i].name);
      EXPECT_TRUE(std::equal(after.members[i].data.begin(), after.members[i].data.end(),
                             before.members[i].data.begin(), before.members[i].data.end()))
          << before.members[i].name;
    }
    // The tar itself comes back byte for byte: same fields, same end.
    EXPECT_EQ(written_tar, original_tar);
    const auto again = Read(written, &error);
    ASSERT_TRUE(again) << error;
    EXPECT_EQ(*again, *neff);
  }
}

}  // namespace
}  // namespace accelcheck::neff::conformance
