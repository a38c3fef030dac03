// A tar archive held in memory: POSIX ustar and GNU tar, read header by
// header with every field checked and every member's place kept, so that a
// format stored as a tar (a NEFF's payload) reports problems at the byte of
// the archive they are in. The reader never writes a member anywhere; it
// lists them with their bytes in place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "validators/core/bytes.h"

namespace accelcheck::tar {

enum class Dialect : uint8_t { kUstar, kGnu };

enum class Type : uint8_t { kFile, kDirectory };

struct Member {
  std::string name;    // normalised: a leading "./" stripped, a directory's "/" too
  std::string stored;  // as the header (or a GNU long-name record) gives it
  Type type = Type::kFile;
  Dialect dialect = Dialect::kUstar;
  uint64_t header = 0;  // offset of its header block in the archive
  uint64_t offset = 0;  // offset of its first data byte
  uint64_t size = 0;
  ByteView data;  // `size` bytes at `offset`
};

enum class Problem : uint8_t {
  kTruncated,    // a header or a member's data runs past the end
  kChecksum,     // a header's checksum does not add up
  kMagic,        // neither "ustar\0" "00" nor GNU "ustar  \0"
  kField,        // a numeric field is not octal (or GNU base-256) or out of range
  kType,         // a link, device, FIFO, or an extension record other than GNU 'L'
  kName,         // empty, absolute, a ".." or empty component, a NUL inside
  kDuplicate,    // two members of one normalised name
  kEnd,          // the archive does not end with zero blocks, or bytes follow them
  kMemberCount,  // more members than Limits::max_members
  kMemberSize,   // a member larger than Limits::max_member_size
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

}  // namespace accelcheck::tar
