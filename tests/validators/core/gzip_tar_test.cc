// The gzip and tar readers (validators/core/gzip.h, tar.h) on streams made
// here: gzip by zlib's own deflate with its gzip wrapper, tar by a small
// writer of both dialects; then every way each can be broken.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/support/corpus.h"
#include "validators/core/compressed.h"
#include "validators/core/core_rules.h"
#include "validators/core/format.h"
#include "validators/core/gzip.h"
#include "validators/core/json_locate.h"
#include "validators/core/json_reader.h"
#include "validators/core/tar.h"

namespace accelcheck {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes Deflate(const Bytes& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  Bytes out(deflateBound(&z, data.size()) + 64);
  z.next_in = const_cast<Bytef*>(data.data());
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

Bytes Text(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes Sample() {
  Bytes data;
  for (int i = 0; i < 5000; ++i) data.push_back(static_cast<uint8_t>((i * 7) ^ (i >> 3)));
  return data;
}

TEST(Gzip, InflatesAndFindsTheEndBeforePadding) {
  const Bytes data = Sample();
  Bytes stream = Deflate(data);
  const uint64_t member_size = stream.size();
  stream.resize(stream.size() + 10240 - stream.size() % 10240, 0);  // a NEFF's zero padding
  gzip::Error error;
  const auto member = gzip::Inflate(stream, {}, &error);
  ASSERT_TRUE(member) << error.message;
  EXPECT_EQ(member->data, data);
  EXPECT_EQ(member->end, member_size);
  EXPECT_EQ(member->os, 3);  // zlib writes Unix
}

TEST(Gzip, RefusesWhatIsNotAGzipMember) {
  gzip::Error error;
  EXPECT_FALSE(gzip::Inflate(Text("ustar"), {}, &error));
  EXPECT_EQ(error.problem, gzip::Problem::kNotGzip);
  Bytes reserved = Deflate(Sample());
  reserved[3] |= 0x80;
  EXPECT_FALSE(gzip::Inflate(reserved, {}, &error));
  EXPECT_EQ(error.problem, gzip::Problem::kHeader);
  EXPECT_EQ(error.offset, 3u);
}

TEST(Gzip, ReportsTruncationCorruptionAndChecksums) {
  const Bytes stream = Deflate(Sample());
  gzip::Error error;
  EXPECT_FALSE(gzip::Inflate(Bytes(stream.begin(), stream.begin() + 40), {}, &error));
  EXPECT_EQ(error.problem, gzip::Problem::kTruncated);
  EXPECT_FALSE(gzip::Inflate(Bytes(stream.begin(), stream.end() - 3), {}, &error));
  EXPECT_EQ(error.problem, gzip::Problem::kTruncated);

  Bytes crc = stream;
  crc[crc.size() - 8] ^= 1;
  EXPECT_FALSE(gzip::Inflate(crc, {}, &error));
  EXPECT_EQ(error.problem, gzip::Problem::kChecksum);
  EXPECT_EQ(error.offset, stream.size() - 8);

  Bytes corrupt = stream;
  corrupt[10] = 0xff;  // a block type 3 does not exist
  EXPECT_FALSE(gzip::Inflate(corrupt, {}, &error));
  EXPECT_TRUE(error.problem == gzip::Problem::kCorrupt || error.problem == gzip::Problem::kChecksum)
      << error.message;
}

// 40 MiB that compress several hundred times: ten of the CRC thread's
// stretches, and outputs past the reserved room, which the CRC thread must
// let go of before they move.
Bytes Compressible() {
  Bytes data(uint64_t{40} << 20);
  for (uint64_t i = 0; i < data.size(); i += 4096) data[i] = static_cast<uint8_t>(i >> 12);
  return data;
}

TEST(Gzip, TheCrcBesideAgreesWithTheCrcAfter) {
  const Bytes data = Compressible();
  const Bytes stream = Deflate(data);
  ASSERT_LT(stream.size() * 16, data.size());
  gzip::Error error;
  std::vector<uint64_t> consumed;
  const auto member = gzip::Inflate(
      stream, {}, &error,
      {.crc = gzip::Crc::kBeside, .consumed = [&](uint64_t n) { consumed.push_back(n); }});
  ASSERT_TRUE(member) << error.message;
  EXPECT_TRUE(member->data == data);
  EXPECT_EQ(member->end, stream.size());
  // Told as zlib goes, up to the deflate data's end before the trailer.
  ASSERT_GT(consumed.size(), 1u);
  EXPECT_TRUE(std::is_sorted(consumed.begin(), consumed.end()));
  EXPECT_EQ(consumed.back(), member->end - 8);

  Bytes crc = stream;
  crc[crc.size() - 8] ^= 1;
  for (const gzip::Crc where : {gzip::Crc::kAfter, gzip::Crc::kBeside}) {
    EXPECT_FALSE(gzip::Inflate(crc, {}, &error, {.crc = where}));
    EXPECT_EQ(error.problem, gzip::Problem::kChecksum);
    EXPECT_EQ(error.offset, stream.size() - 8);
  }
  // A limit stops the inflating while the CRC thread follows it.
  EXPECT_FALSE(gzip::Inflate(stream, {.max_inflated = data.size() - 1}, &error,
                             {.crc = gzip::Crc::kBeside}));
  EXPECT_EQ(error.problem, gzip::Problem::kTooLarge);
  EXPECT_FALSE(gzip::Inflate(Bytes(stream.begin(), stream.end() - 20), {}, &error,
                             {.crc = gzip::Crc::kBeside}));
  EXPECT_EQ(error.problem, gzip::Problem::kTruncated);
}

TEST(Gzip, LimitsAtAndAbove) {
  const Bytes data = Sample();
  const Bytes stream = Deflate(data);
  gzip::Error error;
  EXPECT_TRUE(gzip::Inflate(stream, {.max_inflated = data.size()}, &error)) << error.message;
  EXPECT_FALSE(gzip::Inflate(stream, {.max_inflated = data.size() - 1}, &error));
  EXPECT_EQ(error.problem, gzip::Problem::kTooLarge);
  // About a thousand to one; the ratio counts the bytes after the 10-byte
  // header, the smallest that holds the stream is allowed, one less is not.
  const uint64_t inflated = 1 << 20;
  const Bytes zeros = Deflate(Bytes(inflated, 0));
  const uint64_t compressed = zeros.size() - 10;
  const uint64_t ratio = (inflated + compressed - 1) / compressed;
  EXPECT_TRUE(gzip::Inflate(zeros, {.max_ratio = ratio}, &error)) << error.message;
  EXPECT_FALSE(gzip::Inflate(zeros, {.max_ratio = ratio - 1}, &error));
  EXPECT_EQ(error.problem, gzip::Problem::kRatio);
}

// Writes the checksum of header block `h` (its first 512 bytes).
void Resum(Bytes& h) {
  std::memset(h.data() + 148, ' ', 8);
  unsigned sum = 0;
  for (size_t i = 0; i < 512; ++i) sum += h[i];
  std::snprintf(reinterpret_cast<char*>(h.data() + 148), 8, "%06o", sum);
}

// A ustar or GNU header block for `name`.
Bytes Header(const std::string& name, uint64_t size, char type, bool gnu = false) {
  Bytes h(512, 0);
  std::memcpy(h.data(), name.data(), std::min<size_t>(name.size(), 100));
  std::snprintf(reinterpret_cast<char*>(h.data() + 100), 8, "%07o", 0664);
  std::snprintf(reinterpret_cast<char*>(h.data() + 108), 8, "%07o", 1000);
  std::snprintf(reinterpret_cast<char*>(h.data() + 116), 8, "%07o", 1000);
  std::snprintf(reinterpret_cast<char*>(h.data() + 124), 12, "%011llo",
                static_cast<unsigned long long>(size));
  std::snprintf(reinterpret_cast<char*>(h.data() + 136), 12, "%011o", 0);
  h[156] = static_cast<uint8_t>(type);
  std::memcpy(h.data() + 257,
              gnu ? "ustar  \0"
                  : "ustar\0"
                    "00",
              8);
  Resum(h);
  return h;
}

void Append(Bytes& tar, const std::string& name, const Bytes& data, char type = '0',
            bool gnu = false) {
  const Bytes h = Header(name, data.size(), type, gnu);
  tar.insert(tar.end(), h.begin(), h.end());
  tar.insert(tar.end(), data.begin(), data.end());
  tar.resize((tar.size() + 511) / 512 * 512, 0);
}

Bytes Finish(Bytes tar) {
  tar.resize(tar.size() + 1024, 0);
  return tar;
}

std::vector<tar::Problem> Problems(const tar::Archive& a) {
  std::vector<tar::Problem> out;
  for (const tar::Finding& f : a.findings) out.push_back(f.problem);
  return out;
}

TEST(Tar, ReadsBothDialects) {
  Bytes ustar;
  Append(ustar, "neff.json", Text("{}"));
  Append(ustar, "sg00/def.json", Text("{\"var\":{}}"));
  const Bytes ustar_file = Finish(ustar);  // the members' data point into it
  const tar::Archive a = tar::Read(ustar_file, {});
  EXPECT_TRUE(a.findings.empty()) << a.findings[0].message;
  ASSERT_EQ(a.members.size(), 2u);
  EXPECT_EQ(a.members[1].name, "sg00/def.json");
  EXPECT_EQ(a.members[1].header, 1024u);
  EXPECT_EQ(a.members[1].offset, 1536u);
  EXPECT_EQ(std::string(a.members[1].data.begin(), a.members[1].data.end()), "{\"var\":{}}");
  EXPECT_EQ(a.members[1].dialect, tar::Dialect::kUstar);

  Bytes gnu;
  Append(gnu, "./sg00/", {}, '5', true);
  Append(gnu, "./sg00/a.bin", Text("x"), '0', true);
  Append(gnu, "././@LongLink", Text(std::string(150, 'n') + '\0'), 'L', true);
  Append(gnu, "short", Text("y"), '0', true);
  const Bytes gnu_file = Finish(gnu);
  const tar::Archive g = tar::Read(gnu_file, {});
  EXPECT_TRUE(g.findings.empty()) << g.findings[0].message;
  ASSERT_EQ(g.members.size(), 3u);
  EXPECT_EQ(g.members[0].name, "sg00");
  EXPECT_EQ(g.members[0].type, tar::Type::kDirectory);
  EXPECT_EQ(g.members[1].name, "sg00/a.bin");
  EXPECT_EQ(g.members[2].name, std::string(150, 'n'));
}

TEST(Tar, StructuralProblemsStopTheRead) {
  Bytes tar;
  Append(tar, "a", Text("1"));
  Append(tar, "b", Text("2"));
  Bytes checksum = Finish(tar);
  checksum[1024 + 148] = '7';  // b's header
  EXPECT_EQ(Problems(tar::Read(checksum, {})), std::vector{tar::Problem::kChecksum});
  EXPECT_EQ(tar::Read(checksum, {}).members.size(), 1u);

  EXPECT_EQ(Problems(tar::Read(Bytes(tar.begin(), tar.end() - 200), {})),
            std::vector{tar::Problem::kTruncated});
  EXPECT_EQ(Problems(tar::Read(tar, {})), std::vector{tar::Problem::kEnd});  // no zero blocks
  Bytes one_block = tar;
  one_block.resize(tar.size() + 512, 0);
  EXPECT_EQ(Problems(tar::Read(one_block, {})), std::vector{tar::Problem::kEnd});
  Bytes trailing = Finish(tar);
  trailing.push_back(1);
  EXPECT_EQ(Problems(tar::Read(trailing, {})), std::vector{tar::Problem::kEnd});

  Bytes magic = Header("a", 0, '0');
  std::memcpy(magic.data() + 257, "gnutar\0\0", 8);
  EXPECT_EQ(Problems(tar::Read(Finish(magic), {})), std::vector{tar::Problem::kChecksum});
  Resum(magic);
  EXPECT_EQ(Problems(tar::Read(Finish(magic), {})), std::vector{tar::Problem::kMagic});
}

TEST(Tar, MemberProblemsAreEachReported) {
  Bytes tar;
  Append(tar, "link", {}, '2');
  Append(tar, "../up", Text("1"));
  Append(tar, "/abs", Text("1"));
  Append(tar, "a//b", Text("1"));
  Append(tar, "dup", Text("1"));
  Append(tar, "./dup", Text("2"));
  Append(tar, "ok", Text("3"));
  const tar::Archive a = tar::Read(Finish(tar), {});
  EXPECT_EQ(Problems(a), (std::vector{tar::Problem::kType, tar::Problem::kName, tar::Problem::kName,
                                      tar::Problem::kName, tar::Problem::kDuplicate}));
  EXPECT_EQ(a.members.back().name, "ok");
  EXPECT_EQ(a.findings[4].offset, 9u * 512);  // the link has no data block
}

TEST(Tar, NumbersAndLimits) {
  Bytes base256 = Header("big", 0, '0');
  std::memset(base256.data() + 124, 0, 12);
  base256[124] = 0x80;
  base256[135] = 1;  // one byte, big-endian
  Resum(base256);
  base256.push_back('z');
  base256.resize(1024, 0);
  const tar::Archive a = tar::Read(Finish(base256), {});
  ASSERT_EQ(a.members.size(), 1u) << (a.findings.empty() ? "" : a.findings[0].message);
  EXPECT_EQ(a.members[0].size, 1u);

  Bytes tar;
  Append(tar, "a", Text("12"));
  Append(tar, "b", Text("3"));
  const Bytes whole = Finish(tar);
  EXPECT_TRUE(tar::Read(whole, {.max_members = 2}).findings.empty());
  EXPECT_EQ(Problems(tar::Read(whole, {.max_members = 1})),
            std::vector{tar::Problem::kMemberCount});
  EXPECT_TRUE(tar::Read(whole, {.max_member_size = 2}).findings.empty());
  EXPECT_EQ(Problems(tar::Read(whole, {.max_member_size = 1})),
            std::vector{tar::Problem::kMemberSize});

  Bytes letters = Header("x", 0, '0');
  std::memcpy(letters.data() + 124, "12345678x01", 11);
  Resum(letters);
  EXPECT_EQ(Problems(tar::Read(Finish(letters), {})), std::vector{tar::Problem::kField});
}

// One pax record: its decimal length counts the whole record, itself too.
std::string Record(const std::string& key, const std::string& value) {
  const std::string body = " " + key + "=" + value + "\n";
  size_t length = body.size() + 1;
  while (std::to_string(length).size() + body.size() != length) ++length;
  return std::to_string(length) + body;
}

// An 'x' (or 'g') header named as libarchive names it, then its records.
void AppendPax(Bytes& tar, const std::string& member, const std::string& records, char type = 'x') {
  const size_t slash = member.rfind('/');
  const std::string name = slash == std::string::npos
                               ? "PaxHeader/" + member
                               : member.substr(0, slash) + "/PaxHeader/" + member.substr(slash + 1);
  Append(tar, name, Text(records), type);
}

const std::string kTimes = Record("ctime", "1733202382.57374164") +
                           Record("atime", "1733202382.57374164") +
                           Record("mtime", "1733202382.57374164");

TEST(Tar, PaxRecordsApplyToTheMemberAfterThem) {
  EXPECT_EQ(Record("mtime", "1733202382.57374164"), "29 mtime=1733202382.57374164\n");
  Bytes tar;
  AppendPax(tar, "neff.json", kTimes);
  Append(tar, "neff.json", Text("{}"));
  const std::string long_name = "sg00/" + std::string(120, 'n') + ".json";
  AppendPax(tar, "sg00/short.json", Record("path", long_name) + kTimes);
  Append(tar, "sg00/short.json", Text("[]"));
  AppendPax(tar, "", Record("comment", "for all that follow"), 'g');
  Append(tar, "sg00/PE.bin", Text("pe"));
  const Bytes file = Finish(tar);
  const tar::Archive a = tar::Read(file, {});
  EXPECT_TRUE(a.findings.empty()) << a.findings[0].message;
  ASSERT_EQ(a.members.size(), 3u);
  EXPECT_EQ(a.members[0].name, "neff.json");
  EXPECT_EQ(a.members[0].pax_header, 0u);
  EXPECT_EQ(std::string(a.members[0].pax.begin(), a.members[0].pax.end()), kTimes);
  EXPECT_EQ(a.members[1].name, long_name);
  EXPECT_EQ(a.members[1].header, 6u * 512);
  EXPECT_EQ(a.members[2].name, "sg00/PE.bin");
  EXPECT_FALSE(a.members[2].pax_header);  // a global header describes no one member

  std::string problem;
  const Bytes records = Text(Record("path", "a") + std::string(7, '\0'));
  uint64_t at = 0;
  const auto r = tar::NextPaxRecord(records, &at, &problem);
  ASSERT_TRUE(r) << problem;
  EXPECT_EQ(r->key, "path");
  EXPECT_EQ(r->value, "a");
  EXPECT_FALSE(tar::NextPaxRecord(records, &at, &problem));  // zero padding ends them
  EXPECT_EQ(problem, "");
}

// A record is at most 999999 bytes long, the longest a reader takes.
TEST(Tar, PaxRecordLengthAtAndAboveTheLimit) {
  const auto record = [](uint64_t length, const std::string& digits) {
    const std::string head = digits + " comment=";
    return Text(head + std::string(length - head.size() - 1, 'c') + "\n");
  };
  std::string problem;
  uint64_t at = 0;
  const Bytes longest = record(999999, "999999");
  const auto r = tar::NextPaxRecord(longest, &at, &problem);
  ASSERT_TRUE(r) << problem;
  EXPECT_EQ(r->length, 999999u);
  EXPECT_EQ(at, 999999u);
  at = 0;
  EXPECT_FALSE(tar::NextPaxRecord(record(1000000, "1000000"), &at, &problem));
  EXPECT_NE(problem.find("length 1000000 is more than 999999"), std::string::npos) << problem;
  EXPECT_EQ(at, 0u);
}

TEST(Tar, PaxSizeAndLinkpathOverrideTheHeader) {
  // A size record equal to the field; then one beyond what 11 octal digits
  // hold, whose field can only be a stand-in (here a 0), then cut short.
  Bytes tar;
  AppendPax(tar, "a.bin", Record("size", "3"));
  Append(tar, "a.bin", Text("abc"));
  AppendPax(tar, "link", Record("linkpath", "a.bin"));
  Append(tar, "link", {}, '2');
  const tar::Archive a = tar::Read(Finish(tar), {});
  EXPECT_EQ(Problems(a), std::vector{tar::Problem::kType});
  EXPECT_EQ(a.findings[0].member, "link");
  ASSERT_EQ(a.members.size(), 1u);
  EXPECT_EQ(a.members[0].size, 3u);

  Bytes big;
  AppendPax(big, "big.bin", Record("size", "8589934592"));
  Append(big, "big.bin", {});
  const tar::Archive b = tar::Read(Finish(big), {.max_member_size = uint64_t{1} << 34});
  EXPECT_EQ(Problems(b), std::vector{tar::Problem::kTruncated});  // 2^33 bytes are not there
}

// Each malformed record is reported at its own offset and names the member
// by its effective path, never by the extended header's name.
TEST(Tar, MalformedPaxRecordsAreReportedAtTheirOffset) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"wrong length", "31 mtime=1733202382.57374164\n"},
      {"no equals", "11 nothing\n"},
      {"not a number", Record("size", "1x")},
      {"not UTF-8", Record("path", "sg00/\xff.json")},
      {"not a time", Record("mtime", "yesterday")},
      {"junk after zeros", Record("atime", "1") + std::string("\0z", 2)},
  };
  for (const auto& [what, records] : cases) {
    SCOPED_TRACE(what);
    Bytes tar;
    AppendPax(tar, "sg00/def.json", records);
    Append(tar, "sg00/def.json", Text("{}"));
    const tar::Archive a = tar::Read(Finish(tar), {});
    ASSERT_EQ(Problems(a), std::vector{tar::Problem::kPax});
    EXPECT_EQ(a.findings[0].member, "sg00/def.json");
    EXPECT_GE(a.findings[0].offset, 512u);
    EXPECT_LT(a.findings[0].offset, 512u + records.size());
  }
  // The bad record is the second: its offset is the first record's length.
  Bytes tar;
  AppendPax(tar, "x.json", Record("atime", "1") + Record("size", "-1"));
  Append(tar, "x.json", Text("{}"));
  const tar::Archive a = tar::Read(Finish(tar), {});
  ASSERT_EQ(Problems(a), std::vector{tar::Problem::kPax});
  EXPECT_EQ(a.findings[0].offset, 512u + Record("atime", "1").size());

  Bytes dangling;
  Append(dangling, "a.json", Text("{}"));
  AppendPax(dangling, "b.json", kTimes);
  const tar::Archive d = tar::Read(Finish(dangling), {});
  EXPECT_EQ(Problems(d), std::vector{tar::Problem::kPax});
  EXPECT_EQ(d.findings[0].offset, 1024u);
  EXPECT_EQ(d.findings[0].member, "");
}

TEST(Tar, PaxSizeThatDisagreesWithTheHeaderIsReported) {
  Bytes tar;
  AppendPax(tar, "sg00/PE.bin", Record("size", "512"));
  Append(tar, "sg00/PE.bin", Bytes(512, 0xc1));
  Bytes h = Header("sg00/PE.bin", 64, '0');  // what a reader ignoring pax would take
  std::copy(h.begin(), h.end(), tar.begin() + 1024);
  const tar::Archive a = tar::Read(Finish(tar), {});
  ASSERT_EQ(Problems(a), std::vector{tar::Problem::kPaxSize});
  EXPECT_EQ(a.findings[0].offset, 512u);
  EXPECT_EQ(a.findings[0].member, "sg00/PE.bin");
  ASSERT_EQ(a.members.size(), 1u);
  EXPECT_EQ(a.members[0].size, 512u);  // the pax size is the one in force
}

TEST(Tar, PaxPathsAreCheckedAsNames) {
  for (const std::string path : {"/etc/passwd", "sg00/../../x", "./neff.json"}) {
    SCOPED_TRACE(path);
    Bytes tar;
    Append(tar, "neff.json", Text("{}"));
    const std::string records = Record("atime", "1") + Record("path", path);
    AppendPax(tar, "harmless.json", records);
    Append(tar, "harmless.json", Text("{}"));
    const tar::Archive a = tar::Read(Finish(tar), {});
    const auto expected = path == "./neff.json" ? tar::Problem::kDuplicate : tar::Problem::kName;
    ASSERT_EQ(Problems(a), std::vector{expected});
    EXPECT_EQ(a.findings[0].member, path);
    // A bad name is located at the path record that gave it.
    EXPECT_EQ(a.findings[0].offset,
              expected == tar::Problem::kName ? 1024u + 512 + Record("atime", "1").size() : 2048u);
  }
  // A global path names every member after it: the second is a duplicate.
  Bytes tar;
  AppendPax(tar, "", Record("path", "same.json"), 'g');
  Append(tar, "a.json", Text("{}"));
  Append(tar, "b.json", Text("{}"));
  EXPECT_EQ(Problems(tar::Read(Finish(tar), {})), std::vector{tar::Problem::kDuplicate});
  // An 'x' path= with no value restores the header's name over the global.
  AppendPax(tar, "c.json", Record("path", ""));
  Append(tar, "c.json", Text("{}"));
  const tar::Archive a = tar::Read(Finish(tar), {});
  ASSERT_EQ(a.members.size(), 3u);
  EXPECT_EQ(a.members[2].name, "c.json");
}

TEST(Tar, GnuSparseInPaxIsNotARegularFile) {
  Bytes tar;
  AppendPax(tar, "w.bin", Record("GNU.sparse.major", "1") + Record("GNU.sparse.minor", "0"));
  Append(tar, "w.bin", Text("map"));
  const tar::Archive a = tar::Read(Finish(tar), {});
  ASSERT_EQ(Problems(a), std::vector{tar::Problem::kType});
  EXPECT_EQ(a.findings[0].member, "w.bin");
  EXPECT_TRUE(a.members.empty());
}

// Random records: whatever they hold, the reader ends, and a record it
// takes gives back the key and value it was written from.
RC_GTEST_PROP(Tar, PaxRecordsReadBackOrAreReported,
              (const std::string& key, const std::string& value, const std::string& junk)) {
  const std::string records = Record(key.empty() ? "k" : key, value) + junk;
  const Bytes bytes = Text(records);
  std::string problem;
  uint64_t at = 0;
  const auto r = tar::NextPaxRecord(bytes, &at, &problem);
  if (key.find('=') == std::string::npos) {
    RC_ASSERT(r.has_value());
    RC_ASSERT(r->key == (key.empty() ? "k" : key));
    RC_ASSERT(r->value == value);
  }
  Bytes tar;
  AppendPax(tar, "m.json", records);
  Append(tar, "m.json", Text("{}"));
  const tar::Archive a = tar::Read(Finish(tar), {});
  RC_ASSERT(a.members.size() <= 1u);
}

// The real NEFF payloads, after their 1024-byte header: one gzip member
// padded with zeros to the payload's size, holding a ustar archive (with a
// pax extended header before each member, from older compilers) every
// header and record of which is sound.
TEST(GzipTar, RealNeffPayloads) {
  const auto paths = test::CorpusFiles("neff", ".neff");
  if (paths.empty()) GTEST_SKIP() << "no corpus at " << test::CorpusDir("neff") << "; skipped";
  for (const auto& path : paths) {
    const Bytes bytes = test::ReadBytes(path);
    ASSERT_GT(bytes.size(), 1024u);
    const Bytes payload(bytes.begin() + 1024, bytes.end());
    gzip::Error error;
    const auto member = gzip::Inflate(payload, {}, &error);
    ASSERT_TRUE(member) << path << ": " << error.message;
    EXPECT_TRUE(std::all_of(payload.begin() + static_cast<ptrdiff_t>(member->end), payload.end(),
                            [](uint8_t b) { return b == 0; }))
        << path;
    const tar::Archive archive = tar::Read(member->data, {});
    EXPECT_TRUE(archive.findings.empty()) << path << ": " << archive.findings.front().message;
    EXPECT_GT(archive.members.size(), 5u) << path;
  }
  EXPECT_EQ(paths.size(), 10u);
}

// Every cut of a valid archive is read without a crash and reported.
RC_GTEST_PROP(Tar, EveryTruncationIsReported, (uint16_t cut)) {
  Bytes tar;
  Append(tar, "neff.json", Text("{\"a\": 1}"));
  Append(tar, "sg00/PE.bin", Bytes(700, 0xc1));
  const Bytes whole = Finish(tar);
  const size_t n = cut % whole.size();
  const tar::Archive a = tar::Read(Bytes(whole.begin(), whole.begin() + n), {});
  RC_ASSERT(!a.findings.empty());
}

RC_GTEST_PROP(Gzip, EveryTruncationIsReported, (uint16_t cut)) {
  const Bytes stream = Deflate(Sample());
  gzip::Error error;
  RC_ASSERT(
      !gzip::Inflate(Bytes(stream.begin(), stream.begin() + cut % stream.size()), {}, &error));
}

// Compressed inputs (validators/core/compressed.h): data cut into members,
// each gzipped, inflates back whole; every cut of the stream is reported,
// never taken for data.
RC_GTEST_PROP(Decompress, MembersInflateBackAndCutsAreReported,
              (const std::vector<uint8_t>& data, uint8_t members, uint16_t cut)) {
  const size_t parts = members % 4 + 1;
  Bytes stream;
  std::vector<uint64_t> ends;  // where each member ends in the stream
  for (size_t i = 0; i < parts; ++i) {
    const size_t begin = data.size() * i / parts, end = data.size() * (i + 1) / parts;
    const Bytes member = Deflate(Bytes(data.begin() + static_cast<std::ptrdiff_t>(begin),
                                       data.begin() + static_cast<std::ptrdiff_t>(end)));
    stream.insert(stream.end(), member.begin(), member.end());
    ends.push_back(stream.size());
  }
  DiagnosticSink sink(Profile{}, "in.gz");
  const std::optional<InputBuffer> whole = Decompress(InputBuffer::Copy(stream), Limits{}, sink);
  RC_ASSERT(whole.has_value());
  RC_ASSERT(Bytes(whole->bytes().begin(), whole->bytes().end()) == data);
  RC_ASSERT(sink.diagnostics().size() == 1u);
  RC_ASSERT(sink.Has(core_rules::kGzipInflated));

  const size_t n = cut % stream.size();
  DiagnosticSink cut_sink(Profile{}, "cut.gz");
  const std::optional<InputBuffer> part =
      Decompress(InputBuffer::Copy(Bytes(stream.begin(), stream.begin() + n)), Limits{}, cut_sink);
  // A cut at a member's end leaves whole members; any other cut fails.
  if (std::find(ends.begin(), ends.end(), n) == ends.end() || n == 0) {
    RC_ASSERT(!part.has_value() || n == 0);
    if (n != 0) RC_ASSERT(cut_sink.Has(core_rules::kGzipStream));
  } else {
    RC_ASSERT(part.has_value());
  }
}

const Rule kInText{"test.in_text",     Severity::kError, Severity::kError,
                   Category::kInvalid, "in text",        "test"};

// A reader passing over inflated bytes discards them as a mapped file's
// pages are released; a later pass locating a finding in them (line, column,
// the value its pointer names) inflates the stream again and sees what the
// plain text holds.
TEST(Decompress, DiscardedBytesAreInflatedAgainToLocateFindings) {
  std::string text = "{\"a\": [\n";
  for (int i = 0; i < 1500000; ++i) text += std::to_string(i) + ",\n";
  text += "0],\n  \"b\": \"late\"}";
  ASSERT_GT(text.size(), 8u << 20);  // past two of the reader's release steps
  DiagnosticSink sink(Profile{}, "big.json.gz");
  std::optional<InputBuffer> inflated =
      Decompress(InputBuffer::Copy(Deflate(Text(text))), Limits{}, sink);
  ASSERT_TRUE(inflated);
  ASSERT_TRUE(inflated->discards());
  JsonReader reader(inflated->bytes(), 64, &*inflated);
  std::string_view key;
  uint64_t key_offset = 0;
  ASSERT_TRUE(reader.BeginObject());
  ASSERT_TRUE(reader.NextKey(&key, &key_offset));
  ASSERT_TRUE(reader.BeginArray());
  int64_t value = 0;
  while (reader.NextElement()) ASSERT_TRUE(reader.TryReadInt(&value));
  EXPECT_TRUE(inflated->discarded());

  const auto locate = [](ByteView bytes, const InputBuffer* input) {
    Diagnostic d;
    d.rule = &kInText;
    d.location.offset = 0;
    d.location.path = "/b";
    std::vector<Diagnostic> found{d};
    PinJsonLocations(bytes, "", Limits{}, found, input);
    return found[0].location;
  };
  const Location plain = locate(AsBytes(text), nullptr);
  const Location restored = locate(inflated->bytes(), &*inflated);
  EXPECT_EQ(*plain.offset, text.rfind("\"late\""));
  EXPECT_EQ(plain.line, 1500003u);
  EXPECT_EQ(restored.offset, plain.offset);
  EXPECT_EQ(restored.length, plain.length);
  EXPECT_EQ(restored.line, plain.line);
  EXPECT_EQ(restored.column, plain.column);
}

}  // namespace
}  // namespace accelcheck

namespace accelcheck {
namespace {

// The head is the first bytes the whole stream inflates to, across members,
// and no more than asked for.
RC_GTEST_PROP(InflateHead, IsAPrefixOfTheWholeStream,
              (const std::vector<uint8_t>& data, uint8_t members, uint16_t max)) {
  const size_t parts = members % 3 + 1;
  Bytes stream;
  for (size_t i = 0; i < parts; ++i) {
    const size_t begin = data.size() * i / parts, end = data.size() * (i + 1) / parts;
    const Bytes member = Deflate(Bytes(data.begin() + static_cast<std::ptrdiff_t>(begin),
                                       data.begin() + static_cast<std::ptrdiff_t>(end)));
    stream.insert(stream.end(), member.begin(), member.end());
  }
  const Bytes head = gzip::InflateHead(stream, max);
  const size_t expected = std::min<size_t>(max, data.size());
  RC_ASSERT(head == Bytes(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(expected)));
}

// A stream refused by its first bytes is inflated no further: the head and
// a note come back; one accepted is inflated whole, as Decompress does.
TEST(DecompressIfWorth, StopsAfterTheHeadOfAStreamNoFormatTakes) {
  const Bytes zeros(Bytes::size_type{8} << 20, 0);
  const Bytes stream = Deflate(zeros);
  uint64_t asked = 0;
  const auto refuse = [&](ByteView head) {
    asked = head.size();
    return false;
  };
  DiagnosticSink sink(Profile{}, "zeros.gz");
  const std::optional<InputBuffer> head =
      DecompressIfWorth(InputBuffer::Copy(stream), Limits{}, refuse, sink);
  ASSERT_TRUE(head);
  EXPECT_EQ(asked, kDetectionBytes);
  EXPECT_EQ(head->size(), kDetectionBytes);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_TRUE(sink.Has(core_rules::kGzipInflated));
  EXPECT_NE(sink.diagnostics()[0].message.find("inflated no further"), std::string::npos);

  DiagnosticSink whole_sink(Profile{}, "zeros.gz");
  Limits generous;
  generous.max_compression_ratio = 100000;  // zeros deflate about a thousandfold
  const std::optional<InputBuffer> whole = DecompressIfWorth(
      InputBuffer::Copy(stream), generous, [](ByteView) { return true; }, whole_sink);
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->size(), zeros.size());
}

// A stream shorter than the head is inflated whole without asking, and one
// that does not decode is reported as Decompress reports it.
TEST(DecompressIfWorth, SmallAndBrokenStreamsAreInflatedAsBefore) {
  const auto never = [](ByteView) -> bool {
    ADD_FAILURE() << "a stream under 64 KiB needs no decision";
    return false;
  };
  DiagnosticSink small_sink(Profile{}, "small.gz");
  const std::optional<InputBuffer> small =
      DecompressIfWorth(InputBuffer::Copy(Deflate(Sample())), Limits{}, never, small_sink);
  ASSERT_TRUE(small);
  EXPECT_EQ(Bytes(small->bytes().begin(), small->bytes().end()), Sample());

  Bytes broken = Deflate(Sample());
  broken.resize(broken.size() / 2);
  DiagnosticSink broken_sink(Profile{}, "broken.gz");
  EXPECT_FALSE(DecompressIfWorth(InputBuffer::Copy(broken), Limits{}, never, broken_sink));
  EXPECT_TRUE(broken_sink.Has(core_rules::kGzipStream));
}

}  // namespace
}  // namespace accelcheck
