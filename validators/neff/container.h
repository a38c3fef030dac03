// The NEFF container (docs/formats/neff.md §1): the 1024-byte header, the
// hash over the stored payload, the payload inflated in memory, and the tar
// archive read into named members. Nothing is ever written to disk.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/format.h"
#include "validators/core/sink.h"
#include "validators/core/tar.h"

namespace accelcheck::neff {

constexpr uint64_t kHeaderBytes = 1024;

// neff_header_t (§1.2): integers read little-endian, arrays as views.
struct Header {
  uint64_t pkg_version = 0;
  uint64_t header_size = 0;
  uint64_t data_size = 0;
  uint64_t major = 0;
  uint64_t minor = 0;
  ByteView build_version;  // 128 bytes
  uint32_t num_tpb = 0;
  ByteView hash;  // 32 bytes
  ByteView uuid;  // 16 bytes
  ByteView name;  // 256 bytes
  uint32_t requested_tpb_count = 0;
  ByteView tpb_per_node;  // 64 bytes
  uint64_t feature_bits = 0;
  uint32_t lnc_size = 0;
  ByteView pad;  // 468 bytes
};

// One header field: its offset and length, and its object path.
struct HeaderField {
  uint64_t offset;
  uint64_t length;
  std::string_view path;  // "header.data_size"
};
namespace fields {
inline constexpr HeaderField kPkgVersion{0x000, 8, "header.pkg_version"};
inline constexpr HeaderField kHeaderSize{0x008, 8, "header.header_size"};
inline constexpr HeaderField kDataSize{0x010, 8, "header.data_size"};
inline constexpr HeaderField kMajor{0x018, 8, "header.neff_version_major"};
inline constexpr HeaderField kMinor{0x020, 8, "header.neff_version_minor"};
inline constexpr HeaderField kBuildVersion{0x028, 128, "header.neff_build_version"};
inline constexpr HeaderField kNumTpb{0x0A8, 4, "header.num_tpb"};
inline constexpr HeaderField kHash{0x0AC, 32, "header.hash"};
inline constexpr HeaderField kUuid{0x0CC, 16, "header.uuid"};
inline constexpr HeaderField kName{0x0DC, 256, "header.name"};
inline constexpr HeaderField kRequestedTpb{0x1DC, 4, "header.requested_tpb_count"};
inline constexpr HeaderField kTpbPerNode{0x1E0, 64, "header.tpb_per_node"};
inline constexpr HeaderField kFeatureBits{0x220, 8, "header.feature_bits"};
inline constexpr HeaderField kLncSize{0x228, 4, "header.lnc_size"};
inline constexpr HeaderField kPad{0x22C, 468, "header.pad"};
}  // namespace fields

// Where a header field is, for a diagnostic.
Location At(const HeaderField& field);

// The header of a file of at least kHeaderBytes bytes.
Header ReadHeader(ByteView file);

// The text of a NUL-terminated header array, up to its first NUL.
std::string_view HeaderText(ByteView field);

// What recognises a NEFF (§1.1), also a damaged one, so that its damage is
// reported: a gzip stream or a tar header at offset 1024, or a header that
// begins with a pkg_version of 1 or 2 and a header_size of 1024.
bool LooksLikeNeff(ByteView file);

// The payload's archive, its members by name (§1.6): regular files only,
// after the loader's normalisation; of two files of one name the archive
// keeps the last, as the loader does (the duplicate is reported).
struct Container {
  Header header;
  bool compressed = false;
  std::vector<uint8_t> inflated;  // the tar, when the payload is compressed
  ByteView tar;                   // the archive: `inflated` or the payload itself
  tar::Archive archive;
  std::map<std::string, const tar::Member*, std::less<>> files;

  const tar::Member* Find(std::string_view name) const {
    const auto it = files.find(name);
    return it == files.end() ? nullptr : it->second;
  }
};

// The header checks that need only the header (NEFF-1 to NEFF-8, NEFF-12,
// NEFF-13), the hash (NEFF-7), the payload (NEFF-14, NEFF-15) and the tar
// (NEFF-16 to NEFF-19, NEFF-57, NEFF-58). Returns the container when the archive was read
// through to its members, whatever else it reported.
std::optional<Container> ReadContainer(const InputBuffer& input, const ValidateContext& context,
                                       DiagnosticSink& sink);

// The location of bytes of a member: `offset` from its start.
Location InMember(std::string_view member, uint64_t offset, std::string path = {});

// The member that names the inflated archive in locations of tar findings.
inline constexpr std::string_view kArchiveMember = "(archive)";

}  // namespace accelcheck::neff
