// A tar archive held in memory: POSIX ustar, its pax extensions
// (POSIX.1-2001) and GNU tar, read header by header with every field checked
// and every member's place kept, so that a format stored as a tar (a NEFF's
// payload) reports problems at the byte of the archive they are in. The
// reader never writes a member anywhere; it lists them with their bytes in
// place, each under its effective name and size: a pax extended header's
// records applied to the member they describe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/bytes.h"

namespace accelcheck::tar {

enum class Dialect : uint8_t { kUstar, kGnu };

enum class Type : uint8_t { kFile, kDirectory };

struct Member {
  std::string name;      // normalised: a leading "./" stripped, a directory's "/" too
  std::string stored;    // as a pax path record, a GNU long-name record or the header gives it
  std::string linkname;  // as a pax linkpath record or the header gives it
  Type type = Type::kFile;
  Dialect dialect = Dialect::kUstar;
  uint64_t header = 0;  // offset of its header block in the archive
  uint64_t offset = 0;  // offset of its first data byte
  uint64_t size = 0;    // a pax size record's, else the header's
  ByteView data;        // `size` bytes at `offset`
  // The pax extended header ('x') that describes it, when one does: the
  // offset of its header block and its records (the last, when several).
  std::optional<uint64_t> pax_header;
  ByteView pax;
};

enum class Problem : uint8_t {
  kTruncated,    // a header or a member's data runs past the end
  kChecksum,     // a header's checksum does not add up
  kMagic,        // neither "ustar\0" "00" nor GNU "ustar  \0"
  kField,        // a numeric field is not octal (or GNU base-256) or out of range
  kType,         // a link, device, FIFO, GNU sparse file, or an extension record not decoded
  kName,         // empty, absolute, a ".." or empty component, a NUL inside
  kDuplicate,    // two members of one normalised name
  kEnd,          // the archive does not end with zero blocks, or bytes follow them
  kMemberCount,  // more members than Limits::max_members
  kMemberSize,   // a member larger than Limits::max_member_size
  kPax,          // a pax record is malformed, or a pax extended header describes no member
  kPaxSize,      // a pax size record disagrees with the size field of the header it overrides
};

struct Finding {
  Problem problem = Problem::kTruncated;
  uint64_t offset = 0;  // in the archive
  std::string member;   // the member's name, when known
  std::string message;
};

struct Limits {
  uint64_t max_members = 100000;
  uint64_t max_member_size = uint64_t{1} << 32;
};

struct Archive {
  std::vector<Member> members;  // in archive order, directories included
  // Every problem found. Reading goes on after a problem confined to one
  // member (a name, a type, a duplicate); it stops at one that loses the
  // block structure (a checksum, a size, the end), which is then the last.
  std::vector<Finding> findings;
};

// True when `block` (512 bytes or more) starts with a header of either
// dialect: the magic at offset 257.
bool HasMagic(ByteView bytes);

Archive Read(ByteView bytes, const Limits& limits);

// One record of a pax extended header's data: "<length> <key>=<value>\n",
// the length in decimal counting the whole record.
struct PaxRecord {
  std::string_view key;
  std::string_view value;
  uint64_t offset = 0;  // of the record, in the data
  uint64_t length = 0;
};

// The record of `data` at `*at`, moving `*at` past it. Nothing at the end
// of the records (the data's end, or zero bytes up to it), and nothing with
// `*problem` set, `*at` unchanged, when the bytes there are not a record.
std::optional<PaxRecord> NextPaxRecord(ByteView data, uint64_t* at, std::string* problem);

}  // namespace accelcheck::tar
