// The NEFF container written and read byte for byte (docs/formats/neff.md
// §1): the 1024-byte header, the hash over the payload, the gzip stream and
// its zero padding, and the tar archive in either dialect. Every header field
// is a raw value or array, so that a mutation can write anything; the data
// size and the hash are computed unless a field overrides them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/bytes.h"

namespace accelcheck::neff::conformance {

inline constexpr uint64_t kHeaderSize = 1024;
inline constexpr uint64_t kTarBlock = 512;
// libarchive's block size, to which real payloads are padded (§1.2).
inline constexpr uint64_t kPadBlock = 10240;

// Byte offsets of the header fields (§1.2).
namespace header_offset {
inline constexpr uint64_t kPkgVersion = 0x000;
inline constexpr uint64_t kHeaderSize = 0x008;
inline constexpr uint64_t kDataSize = 0x010;
inline constexpr uint64_t kVersionMajor = 0x018;
inline constexpr uint64_t kVersionMinor = 0x020;
inline constexpr uint64_t kBuildVersion = 0x028;
inline constexpr uint64_t kNumTpb = 0x0A8;
inline constexpr uint64_t kHash = 0x0AC;
inline constexpr uint64_t kUuid = 0x0CC;
inline constexpr uint64_t kName = 0x0DC;
inline constexpr uint64_t kRequestedTpbCount = 0x1DC;
inline constexpr uint64_t kTpbPerNode = 0x1E0;
inline constexpr uint64_t kFeatureBits = 0x220;
inline constexpr uint64_t kLncSize = 0x228;
inline constexpr uint64_t kPad = 0x22C;
}  // namespace header_offset

using Hash = std::array<uint8_t, 32>;

// A fixed RFC 4122 version 4 UUID (NEFF-13), so that written files repeat.
inline constexpr std::array<uint8_t, 16> kDefaultUuid = {
    0x3e, 0x35, 0xb3, 0xd8, 0x24, 0x9d, 0x4b, 0x15, 0x99, 0xfa, 0x36, 0x91, 0x93, 0x3d, 0x7c, 0x87};

// neff_header_t (§1.2), with the values of real Trn1 files by default.
struct Header {
  uint64_t pkg_version = 2;
  uint64_t header_size = kHeaderSize;
  std::optional<uint64_t> data_size;  // nothing: the payload's size
  uint64_t neff_version_major = 1;
  uint64_t neff_version_minor = 0;
  std::array<uint8_t, 128> build_version{};
  uint32_t num_tpb = 1;
  std::optional<Hash> hash;  // nothing: computed over the payload (§1.3)
  std::array<uint8_t, 16> uuid = kDefaultUuid;
  std::array<uint8_t, 256> name{};
  uint32_t requested_tpb_count = 1;
  std::array<uint8_t, 64> tpb_per_node = {1};
  uint64_t feature_bits = 0;
  uint32_t lnc_size = 1;
  std::array<uint8_t, 468> pad{};

  bool operator==(const Header&) const = default;
};

// The text of a NUL-terminated array field (`name`, `build_version`), and
// the field holding `text` followed by zeros (cut to leave room for a NUL).
std::string FieldText(std::span<const uint8_t> field);
void SetFieldText(std::span<uint8_t> field, std::string_view text);

// kPax: ustar headers, each member's preceded by a pax extended header
// ('x') as neuronx-cc 2.0 writes them (§1.5).
enum class Dialect { kUstar, kGnu, kPax };
// kWordReversed: each 32-bit word of the digest byte-reversed, as in every
// real file; kPlain: the digest as computed (§1.3).
enum class HashOrder { kWordReversed, kPlain };
enum class Compression { kGzip, kNone };

// The digest of `payload` stored in the header (§1.3): MD5 into bytes
// [0, 16) with a zero tail for pkg_version 2 (and any other but 1),
// SHA-256 for pkg_version 1.
Hash PayloadHash(ByteView payload, uint64_t pkg_version, HashOrder order);

// The 1024 header bytes; `data_size` and `hash` fill the fields the header
// leaves to be computed.
std::vector<uint8_t> EncodeHeader(const Header& header, uint64_t data_size, const Hash& hash);
// The header fields of the first 1024 bytes of `file` (which must hold them),
// data_size and hash as stored.
Header DecodeHeader(ByteView file);

// The records of a pax extended header, in order: (keyword, value).
using PaxRecords = std::vector<std::pair<std::string, std::string>>;

// One archive entry. `typeflag` is written as is: '0' a file, '5' a
// directory (its name ending in '/'), anything else for mutations. `pax`:
// the records of its extended header in the pax dialect, written as they
// are (none: its times, and its path when the header cannot hold it).
struct TarEntry {
  std::string name;
  std::vector<uint8_t> data;
  char typeflag = '0';
  std::string linkname = "";
  PaxRecords pax = {};
  bool operator==(const TarEntry&) const = default;
};

// The header fields every entry shares: mtime, and uname and gname (the
// same name). Real files: 0 and nobody; neuronx-cc 2.0's pax archives: the
// packaging time and no names (§1.5).
struct TarStamp {
  uint64_t mtime = 0;
  std::string owner = "nobody";
  bool operator==(const TarStamp&) const = default;
};

// One pax record: its decimal length counts the whole record (§1.5).
std::string PaxRecordText(std::string_view key, std::string_view value);

// Header fields of a tar block: offset and length (POSIX ustar).
struct TarField {
  uint64_t at;
  uint64_t length;
};
namespace tar_field {
inline constexpr TarField kName{0, 100}, kMode{100, 8}, kUid{108, 8}, kGid{116, 8}, kSize{124, 12},
    kMtime{136, 12}, kChecksum{148, 8}, kTypeflag{156, 1}, kLinkname{157, 100}, kMagic{257, 8},
    kUname{265, 32}, kGname{297, 32}, kDevmajor{329, 8}, kDevminor{337, 8}, kPrefix{345, 155};
}  // namespace tar_field

struct WrittenTar {
  std::vector<uint8_t> bytes;
  // Per entry, the offset of its own header block (after a GNU long-name
  // record or a pax extended header), for mutations that patch a field and
  // call RewriteTarChecksum; in the pax dialect, that of its extended header.
  std::vector<uint64_t> headers;
  std::vector<uint64_t> pax_headers;
};

// A tar as real files have it (§1.5): fields formatted as their writer does,
// uid and gid 1000, nobody/nobody, mode 0664 (0775 for a directory), mtime
// 0, ending with exactly two zero blocks. A name over 100 bytes goes to
// ustar's prefix and name when a '/' splits it so (else it is cut to 100
// bytes), to a `././@LongLink` 'L' record in GNU tar, and to a path record
// in pax. In pax, each entry's extended header is named
// `<dir>/PaxHeader/<name>` after it, as libarchive names it.
WrittenTar WriteTar(const std::vector<TarEntry>& entries, Dialect dialect,
                    const TarStamp& stamp = {});

// Writes the checksum of the header block at `header` of `tar` again.
void RewriteTarChecksum(std::span<uint8_t> tar, uint64_t header);

struct Package {
  Header header;
  std::vector<TarEntry> entries;
  Dialect dialect = Dialect::kUstar;
  TarStamp stamp;
  HashOrder hash_order = HashOrder::kWordReversed;
  Compression compression = Compression::kGzip;
  uint64_t pad_block = kPadBlock;  // the payload is zero-padded to a multiple (0 or 1: none)
  std::vector<uint8_t> trailing;   // after the payload, outside data_size
  bool operator==(const Package&) const = default;
};

// The payload of `package`: the tar, compressed or not, zero-padded.
std::vector<uint8_t> Payload(const Package& package);

// The header over `payload` followed by it: data_size and the hash computed
// unless `header` sets them.
std::vector<uint8_t> Seal(const Header& header, ByteView payload, HashOrder order);

// The file: Seal(Payload) with `trailing` appended.
std::vector<uint8_t> WritePackage(const Package& package);

// For a mutation that edited payload bytes: data_size becomes the file's
// size minus 1024 and the hash that of those bytes, for the header's
// pkg_version, in `order`.
void Reseal(std::vector<uint8_t>& file, HashOrder order);

// The package of a NEFF file: header fields, members (each with the records
// of its pax header), dialect, the first member's stamp, hash order and
// compression. data_size and hash read back as "computed" when they are
// the computed values, and as stored otherwise. Nothing, with `error`, when
// the payload is neither a gzip member nor a tar, the bytes after a gzip
// member are not zero, or the archive has a problem the core tar reader
// reports (an entry it cannot give back as it was).
std::optional<Package> ReadPackage(ByteView file, std::string* error);

}  // namespace accelcheck::neff::conformance
