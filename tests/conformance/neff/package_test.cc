// The container writer (conformance/neff/package.h) checked with the core
// readers: gzip::Inflate and tar::Read give back the entries, the header
// holds the digest and the data size of docs/formats/neff.md §1, and
// ReadPackage is WritePackage's inverse.
#include "conformance/neff/package.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "validators/core/digest.h"
#include "validators/core/gzip.h"
#include "validators/core/tar.h"

namespace accelcheck::neff::conformance {
namespace {

using ByteVector = std::vector<uint8_t>;

ByteVector Text(std::string_view text) { return ByteVector(text.begin(), text.end()); }

// A ustar long name splits at its '/'; a GNU one (an 'L' record) and a pax
// one (a path record) need no '/'.
std::string LongName(Dialect dialect) {
  return dialect == Dialect::kUstar ? std::string(60, 'd') + "/" + std::string(80, 'f') + ".json"
                                    : "sg00/" + std::string(140, 'g') + ".bin";
}

std::vector<TarEntry> SampleEntries(Dialect dialect) {
  ByteVector big(3000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 7);
  return {{"neff.json", Text("{}\n")},
          {"sg00/", {}, '5'},
          {"sg00/PE.bin", big},
          {"sg00/empty.bin", {}},
          {LongName(dialect), Text("long")}};
}

// In pax, entries with records of their own besides those the writer makes.
std::vector<TarEntry> SampleEntriesWithRecords(Dialect dialect) {
  std::vector<TarEntry> entries = SampleEntries(dialect);
  if (dialect != Dialect::kPax) return entries;
  entries[0].pax = {{"mtime", "1733202382.57374164"}, {"comment", "\u00e9t\u00e9"}};
  entries[2].pax = {{"size", "3000"}, {"uname", ""}};
  return entries;
}

uint64_t U64At(const ByteVector& bytes, uint64_t offset) {
  return *ReadLE<uint64_t>(bytes, offset);
}

// The digest as §1.3 stores it, computed here without PayloadHash.
Hash Expected(ByteView payload, uint64_t pkg_version, HashOrder order) {
  Hash hash{};
  if (pkg_version == 1) {
    const auto sha = digest::ComputeSha256(payload);
    std::copy(sha.begin(), sha.end(), hash.begin());
  } else {
    const auto md5 = digest::ComputeMd5(payload);
    std::copy(md5.begin(), md5.end(), hash.begin());
  }
  const size_t length = pkg_version == 1 ? 32 : 16;
  if (order == HashOrder::kWordReversed) {
    for (size_t w = 0; w < length; w += 4) std::reverse(hash.begin() + w, hash.begin() + w + 4);
  }
  return hash;
}

Hash StoredHash(const ByteVector& file) {
  Hash hash;
  std::copy_n(file.begin() + header_offset::kHash, hash.size(), hash.begin());
  return hash;
}

// The tar inside a payload, with the end of the compressed stream.
ByteVector TarOf(ByteView payload, Compression compression, uint64_t* stream_end) {
  if (compression == Compression::kNone) {
    *stream_end = payload.size();
    return ByteVector(payload.begin(), payload.end());
  }
  gzip::Error error;
  const auto member = gzip::Inflate(payload, {}, &error);
  EXPECT_TRUE(member) << error.message;
  if (!member) return {};
  *stream_end = member->end;
  return member->data;
}

using Combination = std::tuple<Dialect, Compression, HashOrder>;

class PackageCombinations : public testing::TestWithParam<Combination> {};

TEST_P(PackageCombinations, CoreReadersGiveTheEntriesBack) {
  const auto [dialect, compression, order] = GetParam();
  Package package;
  package.dialect = dialect;
  package.compression = compression;
  package.hash_order = order;
  package.entries = SampleEntriesWithRecords(dialect);
  const ByteVector file = WritePackage(package);

  // data_size is the rest of the file, padded to 10240-byte blocks (§1.2).
  ASSERT_GT(file.size(), kHeaderSize);
  EXPECT_EQ(U64At(file, header_offset::kDataSize), file.size() - kHeaderSize);
  EXPECT_EQ((file.size() - kHeaderSize) % kPadBlock, 0u);
  const ByteView payload = ByteView(file).subspan(kHeaderSize);
  EXPECT_EQ(StoredHash(file), Expected(payload, 2, order));

  uint64_t stream_end = 0;
  const ByteVector tar_bytes = TarOf(payload, compression, &stream_end);
  if (compression == Compression::kGzip) {
    EXPECT_TRUE(gzip::HasMagic(payload));
    EXPECT_TRUE(
        std::all_of(payload.begin() + stream_end, payload.end(), [](uint8_t b) { return b == 0; }));
  } else {
    EXPECT_TRUE(tar::HasMagic(payload));
  }
  const tar::Archive archive = tar::Read(tar_bytes, {});
  ASSERT_TRUE(archive.findings.empty()) << archive.findings.front().message;
  ASSERT_EQ(archive.members.size(), package.entries.size());
  for (size_t i = 0; i < archive.members.size(); ++i) {
    const tar::Member& m = archive.members[i];
    const TarEntry& entry = package.entries[i];
    EXPECT_EQ(m.stored, entry.name);
    EXPECT_EQ(ByteVector(m.data.begin(), m.data.end()), entry.data);
    EXPECT_EQ(m.type, entry.typeflag == '5' ? tar::Type::kDirectory : tar::Type::kFile);
    EXPECT_EQ(m.dialect, dialect == Dialect::kGnu ? tar::Dialect::kGnu : tar::Dialect::kUstar);
    // In pax, every member's own extended header, with its records or the
    // writer's: its times, and its path when the header cannot hold it.
    EXPECT_EQ(m.pax_header.has_value(), dialect == Dialect::kPax);
    if (dialect == Dialect::kPax) {
      const std::string records(m.pax.begin(), m.pax.end());
      EXPECT_EQ(records.find("path=") != std::string::npos, entry.name.size() > 100) << records;
      EXPECT_EQ(records.find(" ctime=0\n") != std::string::npos, entry.pax.empty()) << records;
      const ByteView header(tar_bytes.data() + *m.pax_header, 512);
      EXPECT_EQ(header[156], 'x');
      EXPECT_NE(std::string(reinterpret_cast<const char*>(header.data()), 100).find("PaxHeader/"),
                std::string::npos);
    }
  }
  // Exactly two zero blocks after the last member (§1.5).
  if (compression == Compression::kGzip) {
    const tar::Member& last = archive.members.back();
    EXPECT_EQ(tar_bytes.size(), (last.offset + last.size + 511) / 512 * 512 + 1024);
  }
}

TEST_P(PackageCombinations, ReadPackageIsTheInverse) {
  const auto [dialect, compression, order] = GetParam();
  Package package;
  package.dialect = dialect;
  package.compression = compression;
  package.hash_order = order;
  package.entries = SampleEntriesWithRecords(dialect);
  package.stamp = {.mtime = dialect == Dialect::kPax ? 1733202382u : 0u,
                   .owner = dialect == Dialect::kPax ? "" : "nobody"};
  SetFieldText(package.header.name, "sample.neff");
  package.header.lnc_size = 2;
  package.trailing = {1, 2, 3};
  std::string error;
  const auto read = ReadPackage(WritePackage(package), &error);
  ASSERT_TRUE(read) << error;
  EXPECT_EQ(*read, package);
}

std::string CombinationName(const testing::TestParamInfo<Combination>& info) {
  const auto [dialect, compression, order] = info.param;
  return std::string(dialect == Dialect::kGnu   ? "Gnu"
                     : dialect == Dialect::kPax ? "Pax"
                                                : "Ustar") +
         (compression == Compression::kGzip ? "Gzip" : "Uncompressed") +
         (order == HashOrder::kPlain ? "PlainHash" : "WordReversedHash");
}

INSTANTIATE_TEST_SUITE_P(
    All, PackageCombinations,
    testing::Combine(testing::Values(Dialect::kUstar, Dialect::kGnu, Dialect::kPax),
                     testing::Values(Compression::kGzip, Compression::kNone),
                     testing::Values(HashOrder::kWordReversed, HashOrder::kPlain)),
    CombinationName);

TEST(Package, HeaderFieldsAtTheirOffsets) {
  Package package;
  package.header.neff_version_major = 2;
  package.header.feature_bits = 0xC00;
  package.header.lnc_size = 2;
  SetFieldText(package.header.name, "file.neff");
  package.entries = {{"info.json", Text("{}")}};
  const ByteVector file = WritePackage(package);
  EXPECT_EQ(U64At(file, header_offset::kPkgVersion), 2u);
  EXPECT_EQ(U64At(file, header_offset::kHeaderSize), 1024u);
  EXPECT_EQ(U64At(file, header_offset::kVersionMajor), 2u);
  EXPECT_EQ(U64At(file, header_offset::kFeatureBits), 0xC00u);
  EXPECT_EQ(*ReadLE<uint32_t>(file, header_offset::kLncSize), 2u);
  EXPECT_EQ(*ReadLE<uint32_t>(file, header_offset::kNumTpb), 1u);
  EXPECT_EQ(file[header_offset::kTpbPerNode], 1);
  EXPECT_EQ(FieldText(ByteView(file).subspan(header_offset::kName, 256)), "file.neff");
  // The default UUID is RFC 4122 version 4 (NEFF-13).
  EXPECT_EQ(file[header_offset::kUuid + 6] >> 4, 4);
  EXPECT_EQ(file[header_offset::kUuid + 8] >> 6, 2);
  // The MD5 leaves the hash's tail zero; the pad is zero (NEFF-7, NEFF-12).
  EXPECT_TRUE(std::all_of(file.begin() + header_offset::kHash + 16,
                          file.begin() + header_offset::kHash + 32,
                          [](uint8_t b) { return b == 0; }));
  EXPECT_TRUE(std::all_of(file.begin() + header_offset::kPad, file.begin() + kHeaderSize,
                          [](uint8_t b) { return b == 0; }));
  EXPECT_EQ(DecodeHeader(file).lnc_size, 2u);
}

TEST(Package, PkgVersionOneStoresSha256) {
  for (const HashOrder order : {HashOrder::kWordReversed, HashOrder::kPlain}) {
    Package package;
    package.header.pkg_version = 1;
    package.hash_order = order;
    package.entries = {{"neff.json", Text("{}")}};
    const ByteVector file = WritePackage(package);
    EXPECT_EQ(StoredHash(file), Expected(ByteView(file).subspan(kHeaderSize), 1, order));
  }
}

TEST(Package, OverridesAndTrailingBytesAreWrittenAsGiven) {
  Package package;
  package.entries = {{"neff.json", Text("{}")}};
  package.header.data_size = 5;
  Hash hash;
  hash.fill(0x30);
  package.header.hash = hash;
  package.trailing = {0xAA, 0xBB};
  package.pad_block = 0;
  const ByteVector file = WritePackage(package);
  EXPECT_EQ(U64At(file, header_offset::kDataSize), 5u);
  EXPECT_EQ(StoredHash(file), hash);
  EXPECT_EQ(file.back(), 0xBB);
  // Without padding the payload ends where the gzip member ends.
  gzip::Error error;
  const auto member = gzip::Inflate(ByteView(file).subspan(kHeaderSize), {}, &error);
  ASSERT_TRUE(member) << error.message;
  EXPECT_EQ(member->end + kHeaderSize + 2, file.size());
  EXPECT_EQ(member->os, 3);
}

TEST(Package, ResealFixesDataSizeAndHash) {
  Package package;
  package.entries = {{"neff.json", Text("{\"a\": 1}")}};
  ByteVector file = WritePackage(package);
  file[kHeaderSize + 20] ^= 0xFF;
  file.insert(file.end(), 512, 0);
  const ByteView payload = ByteView(file).subspan(kHeaderSize);
  EXPECT_NE(StoredHash(file), Expected(payload, 2, HashOrder::kWordReversed));
  Reseal(file, HashOrder::kWordReversed);
  EXPECT_EQ(U64At(file, header_offset::kDataSize), file.size() - kHeaderSize);
  EXPECT_EQ(StoredHash(file),
            Expected(ByteView(file).subspan(kHeaderSize), 2, HashOrder::kWordReversed));
  Reseal(file, HashOrder::kPlain);
  EXPECT_EQ(StoredHash(file), Expected(ByteView(file).subspan(kHeaderSize), 2, HashOrder::kPlain));
}

TEST(Package, TarFieldsAreFormattedAsRealFiles) {
  const WrittenTar tar = WriteTar({{"a.json", Text("{}")}, {"sg00/", {}, '5'}}, Dialect::kUstar);
  ASSERT_EQ(tar.headers, (std::vector<uint64_t>{0, 1024}));
  ASSERT_EQ(tar.bytes.size(), 3 * 512 + 1024u);
  const auto field = [&](uint64_t header, TarField f) {
    return std::string(tar.bytes.begin() + header + f.at,
                       tar.bytes.begin() + header + f.at + f.length);
  };
  using namespace tar_field;
  EXPECT_EQ(field(0, kMode), std::string("000664 \0", 8));
  EXPECT_EQ(field(0, kUid), std::string("001750 \0", 8));
  EXPECT_EQ(field(0, kSize), "00000000002 ");
  EXPECT_EQ(field(0, kMtime), "00000000000 ");
  EXPECT_EQ(field(0, kChecksum).substr(6), std::string("\0 ", 2));
  EXPECT_EQ(field(0, kMagic), std::string("ustar\0"
                                          "00",
                                          8));
  EXPECT_EQ(field(0, kUname).substr(0, 7), std::string("nobody\0", 7));
  EXPECT_EQ(field(1024, kTypeflag), "5");
  EXPECT_EQ(WriteTar({}, Dialect::kGnu).bytes, ByteVector(1024, 0));
}

TEST(Package, GnuLongNamesUseALongLinkRecord) {
  const std::string name(150, 'n');
  const WrittenTar tar = WriteTar({{name, Text("x")}}, Dialect::kGnu);
  ASSERT_EQ(tar.headers.size(), 1u);
  EXPECT_EQ(tar.headers[0], 1024u);  // after the 'L' record and its data block
  EXPECT_EQ(std::string(tar.bytes.begin(), tar.bytes.begin() + 13), "././@LongLink");
  EXPECT_EQ(tar.bytes[156], 'L');
  EXPECT_EQ(std::string(tar.bytes.begin() + 257, tar.bytes.begin() + 265),
            std::string("ustar  \0", 8));
}

TEST(Package, PatchedFieldKeepsAValidChecksum) {
  WrittenTar tar = WriteTar({{"a.bin", Text("abc")}, {"b.bin", Text("def")}}, Dialect::kUstar);
  tar.bytes[tar.headers[1] + tar_field::kTypeflag.at] = '5';
  RewriteTarChecksum(tar.bytes, tar.headers[1]);
  const tar::Archive archive = tar::Read(tar.bytes, {});
  ASSERT_TRUE(archive.findings.empty()) << archive.findings.front().message;
  EXPECT_EQ(archive.members[1].type, tar::Type::kDirectory);
}

TEST(Package, ReadPackageRefusesWhatItCannotGiveBack) {
  std::string error;
  EXPECT_FALSE(ReadPackage(ByteVector(1000, 0), &error));
  EXPECT_NE(error.find("1024"), std::string::npos);

  Package package;
  package.entries = {{"neff.json", Text("{}")}};
  ByteVector file = WritePackage(package);
  ByteVector past_end = file;
  past_end[header_offset::kDataSize + 3] = 1;  // data_size far past the end
  EXPECT_FALSE(ReadPackage(past_end, &error));
  EXPECT_NE(error.find("data_size"), std::string::npos);

  ByteVector garbage = file;
  garbage[kHeaderSize] = 0x42;
  EXPECT_FALSE(ReadPackage(garbage, &error));
  EXPECT_NE(error.find("neither"), std::string::npos);

  ByteVector dirty_padding = file;
  dirty_padding.back() = 1;
  EXPECT_FALSE(ReadPackage(dirty_padding, &error));
}

TEST(Package, ReadPackageKeepsAStaleHashAsStored) {
  Package package;
  package.entries = {{"neff.json", Text("{}")}};
  ByteVector file = WritePackage(package);
  file[header_offset::kHash] ^= 1;
  std::string error;
  const auto read = ReadPackage(file, &error);
  ASSERT_TRUE(read) << error;
  ASSERT_TRUE(read->header.hash);
  EXPECT_EQ(*read->header.hash, StoredHash(file));
  EXPECT_EQ(WritePackage(*read), file);
}

}  // namespace
}  // namespace accelcheck::neff::conformance
