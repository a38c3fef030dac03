// MD5 and SHA-256 against the published test vectors (RFC 1321 §A.5,
// FIPS 180-4's examples), lengths around the padding boundaries (from a
// second implementation, Python's hashlib), and the real NEFF files' stored
// MD5, each 32-bit word of it byte-reversed.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/corpus.h"
#include "validators/core/digest.h"

namespace accelcheck::digest {
namespace {

ByteView View(const std::string& s) {
  return ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

std::string Md5Hex(const std::string& s) { return HexOf(ComputeMd5(View(s))); }
std::string Sha256Hex(const std::string& s) { return HexOf(ComputeSha256(View(s))); }

TEST(Digest, PublishedVectors) {
  EXPECT_EQ(Md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Md5Hex("message digest"), "f96b697d7cb7938d525a2f31aaf161d0");
  EXPECT_EQ(Md5Hex("1234567890123456789012345678901234567890123456789012345678901234567890"
                   "1234567890"),
            "57edf4a22be3c955ac49da2e2107b67a");
  EXPECT_EQ(Md5Hex(std::string(1000000, 'a')), "7707d6ae4e027c70eea2a935c2296f21");
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Bytes (13 i + 5) mod 256 of each length, where the padding takes one block
// or two.
TEST(Digest, PaddingBoundaries) {
  struct Case {
    size_t length;
    const char* md5;
    const char* sha256;
  };
  const Case cases[] = {
      {55, "2a2ed03dd14678a897abdaeff0f42c4a",
       "63c06c35402b73061b2b60338121fe8f4895640a178ed01c4b2e40ff8dcd1755"},
      {56, "8914ee67ccfeed6534636d8cce582c4b",
       "86512867c0c0b58974d4a9f76fab04b3ed84c5ae5845bd807f809a7884ec24e5"},
      {63, "c410dc503290ae41305e87151336c325",
       "56547b4ccd1b089babcb872418aa6d3be61e3aba1b97e0eda0934d729ebe9e0c"},
      {64, "3565be3c383408f740faef9405371824",
       "44aee5fa258a25ab9eeebaa630ea0ea92b017efb95fbce6f91c9c181e4d8ebe2"},
      {65, "f9b034f551df48dd33ffe0669d84fe86",
       "75a506795a148c07e58b5579d08badc50e39e2e0092c23042a429401dc10d7bf"},
      {119, "bc422a91e48b7856ffd20c3ea1a3c5b8",
       "6254840d9eae6aa6306503495f711a7a98d80c622280b8fdbc4a2e8fa5927800"},
      {120, "d2954eb25e58c12a6a74b436d9d138d9",
       "75304bcb12fabfd25d0d14a3bdfe209e4bc266b5686ad7d5dad3367ef836669f"},
  };
  for (const Case& c : cases) {
    std::string bytes;
    for (size_t i = 0; i < c.length; ++i) bytes += static_cast<char>((i * 13 + 5) & 255);
    EXPECT_EQ(Md5Hex(bytes), c.md5) << c.length;
    EXPECT_EQ(Sha256Hex(bytes), c.sha256) << c.length;
  }
}

// A NEFF header keeps the MD5 of its payload at 0xAC: each 32-bit word of
// the digest byte-reversed in the real files of later compilers, in plain
// byte order in the pax archives of neuronx-cc 2.0 (docs/formats/neff.md
// §1.3).
TEST(Digest, RealNeffHashes) {
  const auto paths = test::CorpusFiles("neff", ".neff");
  if (paths.empty()) GTEST_SKIP() << "no corpus at " << test::CorpusDir("neff") << "; skipped";
  size_t plain = 0;
  for (const auto& path : paths) {
    const std::vector<uint8_t> bytes = test::ReadBytes(path);
    ASSERT_GT(bytes.size(), 1024u);
    const Md5 md5 = ComputeMd5(ByteView(bytes).subspan(1024));
    Md5 reversed;
    for (int i = 0; i < 16; ++i) reversed[i] = md5[(i / 4) * 4 + 3 - i % 4];
    const bool is_reversed = std::equal(reversed.begin(), reversed.end(), bytes.begin() + 0xac);
    const bool is_plain = std::equal(md5.begin(), md5.end(), bytes.begin() + 0xac);
    EXPECT_TRUE(is_reversed || is_plain) << path;
    plain += is_plain;
  }
  EXPECT_EQ(plain, 1u);  // trn1_pax_stream_256k_fd1k.neff
  EXPECT_EQ(paths.size(), 10u);
}

}  // namespace
}  // namespace accelcheck::digest
