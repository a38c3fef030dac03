// The tar reader (POSIX.1-1988 ustar, and GNU tar's variant of it).
#include "validators/core/tar.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "validators/core/text.h"

namespace accelcheck::tar {

namespace {

constexpr uint64_t kBlock = 512;

// Header fields: offset and length in the block.
struct Field {
  uint64_t at, length;
  const char* name;
};
constexpr Field kName{0, 100, "name"}, kMode{100, 8, "mode"}, kUid{108, 8, "uid"},
    kGid{116, 8, "gid"}, kSize{124, 12, "size"}, kMtime{136, 12, "mtime"},
    kChecksum{148, 8, "chksum"}, kPrefix{345, 155, "prefix"};
constexpr uint64_t kTypeflag = 156, kMagicAt = 257;

std::string_view Text(ByteView block, Field f) {
  const auto* begin = reinterpret_cast<const char*>(block.data() + f.at);
  const std::string_view all(begin, f.length);
  return all.substr(0, all.find('\0'));
}

// An octal field (leading spaces, then digits up to a NUL or space), or
// GNU's base-256 form: the first byte's top bit set, the rest big-endian.
std::optional<uint64_t> Number(ByteView block, Field f) {
  const uint8_t* p = block.data() + f.at;
  if (p[0] & 0x80) {
    if (p[0] != 0x80) return std::nullopt;  // negative, or a value past 64 bits
    uint64_t value = 0;
    for (uint64_t i = 1; i < f.length; ++i) {
      if (value >> 56) return std::nullopt;
      value = value << 8 | p[i];
    }
    return value;
  }
  uint64_t i = 0;
  while (i < f.length && p[i] == ' ') ++i;
  uint64_t value = 0;
  bool digits = false;
  for (; i < f.length && p[i] >= '0' && p[i] <= '7'; ++i, digits = true) {
    if (value >> 61) return std::nullopt;
    value = value * 8 + (p[i] - '0');
  }
  for (; i < f.length; ++i) {
    if (p[i] != ' ' && p[i] != '\0') return std::nullopt;
  }
  if (!digits) return std::nullopt;
  return value;
}

// The checksum adds every byte of the block with the field as spaces;
// historic writers summed signed chars, which readers accept too.
bool ChecksumHolds(ByteView block, uint64_t stored) {
  uint64_t unsigned_sum = 0;
  int64_t signed_sum = 0;
  for (uint64_t i = 0; i < kBlock; ++i) {
    const bool in_field = i >= kChecksum.at && i < kChecksum.at + kChecksum.length;
    const uint8_t byte = in_field ? ' ' : block[i];
    unsigned_sum += byte;
    signed_sum += static_cast<int8_t>(byte);
  }
  return stored == unsigned_sum || static_cast<int64_t>(stored) == signed_sum;
}

bool IsZero(ByteView bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

std::optional<Dialect> DialectOf(ByteView block) {
  const std::string_view magic(reinterpret_cast<const char*>(block.data() + kMagicAt), 8);
  if (magic == std::string_view("ustar\0"
                                "00",
                                8))
    return Dialect::kUstar;
  if (magic == std::string_view("ustar  \0", 8)) return Dialect::kGnu;
  return std::nullopt;
}

// Why `name` (a directory's trailing "/" and a leading "./" already
// stripped) cannot name a member inside the tree; empty when it can.
std::string NameProblem(std::string_view name) {
  if (name.empty()) return "the name is empty";
  if (name.front() == '/') return "the name is absolute";
  size_t start = 0;
  while (start <= name.size()) {
    const size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, end - start);
    if (part.empty()) return "the name has an empty component";
    if (part == "..") return "the name has a \"..\" component";
    if (part == ".") return "the name has a \".\" component";
    start = end + 1;
  }
  return "";
}

class Reader {
 public:
  Reader(ByteView bytes, const Limits& limits) : bytes_(bytes), limits_(limits) {}

  Archive Run() {
    uint64_t at = 0;
    std::string long_name;  // from a GNU 'L' record, for the next header
    bool has_long_name = false;
    while (true) {
      if (at == bytes_.size()) return End(at, "the archive ends without its two zero blocks");
      if (bytes_.size() - at < kBlock)
        return Stop(Problem::kTruncated, at, "", "a header block ends early");
      const ByteView block = bytes_.subspan(at, kBlock);
      if (IsZero(block)) return Trailer(at);
      if (!Header(block, at, &long_name, &has_long_name, &at)) return std::move(archive_);
    }
  }

 private:
  void Add(Problem problem, uint64_t offset, std::string member, std::string message) {
    archive_.findings.push_back({problem, offset, std::move(member), std::move(message)});
  }
  Archive Stop(Problem problem, uint64_t offset, std::string member, std::string message) {
    Add(problem, offset, std::move(member), std::move(message));
    return std::move(archive_);
  }
  Archive End(uint64_t offset, std::string message) {
    return Stop(Problem::kEnd, offset, "", std::move(message));
  }

  // At least two zero blocks, and nothing but zeros after them.
  Archive Trailer(uint64_t at) {
    const ByteView rest = bytes_.subspan(at);
    const auto nonzero = std::find_if(rest.begin(), rest.end(), [](uint8_t b) { return b != 0; });
    if (nonzero != rest.end()) {
      const uint64_t offset = at + static_cast<uint64_t>(nonzero - rest.begin());
      return End(offset, Str("a byte other than zero at ", Hex(offset),
                             " follows the end-of-archive block"));
    }
    if (rest.size() < 2 * kBlock)
      return End(
          at, Str("the archive ends with ", rest.size(), " zero bytes, not two 512-byte blocks"));
    return std::move(archive_);
  }

  bool Header(ByteView block, uint64_t header, std::string* long_name, bool* has_long_name,
              uint64_t* next) {
    const auto checksum = Number(block, kChecksum);
    if (!checksum || !ChecksumHolds(block, *checksum)) {
      Add(Problem::kChecksum, header + kChecksum.at, "",
          Str("the header block at ", Hex(header), " has a checksum that does not add up"));
      return false;
    }
    const auto dialect = DialectOf(block);
    if (!dialect) {
      Add(Problem::kMagic, header + kMagicAt, "",
          "the header's magic is neither ustar (\"ustar\\0\" \"00\") nor GNU (\"ustar  \\0\")");
      return false;
    }
    Member m;
    m.header = header;
    m.dialect = *dialect;
    m.stored = std::string(Text(block, kName));
    if (*dialect == Dialect::kUstar && !Text(block, kPrefix).empty())
      m.stored = Str(Text(block, kPrefix), "/", m.stored);
    if (*has_long_name) m.stored = *long_name;
    const auto size = Number(block, kSize);
    if (!size) {
      Add(Problem::kField, header + kSize.at, m.stored, "the size field is not a number");
      return false;
    }
    m.size = *size;
    m.offset = header + kBlock;
    if (m.size > limits_.max_member_size) {
      Add(Problem::kMemberSize, header + kSize.at, m.stored,
          Str("the member is ", m.size, " bytes, more than the ", limits_.max_member_size,
              " allowed"));
      return false;
    }
    if (m.size > bytes_.size() - m.offset) {
      Add(Problem::kTruncated, m.offset, m.stored,
          Str("the member's ", m.size, " bytes run past the end of the archive"));
      return false;
    }
    m.data = bytes_.subspan(m.offset, m.size);
    *next = m.offset + (m.size + kBlock - 1) / kBlock * kBlock;
    if (*next > bytes_.size()) {
      Add(Problem::kTruncated, bytes_.size(), m.stored,
          "the member's padding to a 512-byte block runs past the end of the archive");
      return false;
    }
    for (const Field& f : {kMode, kUid, kGid, kMtime}) {
      if (!Number(block, f))
        Add(Problem::kField, header + f.at, m.stored,
            Str("the ", f.name, " field is not a number"));
    }
    const char type = static_cast<char>(block[kTypeflag]);
    *has_long_name = false;
    if (type == 'L' && *dialect == Dialect::kGnu) {
      const std::string_view text(reinterpret_cast<const char*>(m.data.data()), m.data.size());
      *long_name = std::string(text.substr(0, text.find('\0')));
      *has_long_name = true;
      return true;
    }
    if (type == '0' || type == '\0') {
      m.type = Type::kFile;
    } else if (type == '5') {
      m.type = Type::kDirectory;
    } else {
      Add(Problem::kType, header + kTypeflag, m.stored,
          Str("type ", Quoted(std::string(1, type)), " is ", TypeText(type),
              ", not a regular file or a directory"));
      return true;
    }
    Name(m);
    if (archive_.members.size() == limits_.max_members) {
      Add(Problem::kMemberCount, header, m.stored,
          Str("the archive has more than ", limits_.max_members, " members"));
      return false;
    }
    archive_.members.push_back(std::move(m));
    return true;
  }

  static std::string TypeText(char type) {
    switch (type) {
      case '1':
        return "a hard link";
      case '2':
        return "a symbolic link";
      case '3':
      case '4':
        return "a device";
      case '6':
        return "a FIFO";
      case '7':
        return "a contiguous file";
      case 'x':
      case 'g':
        return "a pax extended header";
      case 'K':
      case 'L':
        return "a GNU long-name record";
      default:
        return "not a type tar defines";
    }
  }

  // Normalises the name and checks it, and that no earlier member has it.
  void Name(Member& m) {
    std::string_view name = m.stored;
    if (name.find('\0') != std::string_view::npos) {
      Add(Problem::kName, m.header, m.stored, "the name holds a NUL byte");
    }
    if (name.starts_with("./")) name.remove_prefix(2);
    if (m.type == Type::kDirectory && name.ends_with('/')) name.remove_suffix(1);
    m.name = std::string(name);
    if (const std::string problem = NameProblem(name); !problem.empty()) {
      Add(Problem::kName, m.header, m.stored, Str(problem, ": ", Quoted(m.stored)));
      return;
    }
    const auto [it, inserted] = names_.emplace(m.name, m.header);
    if (!inserted) {
      Add(Problem::kDuplicate, m.header, m.stored,
          Str(Quoted(m.name), " is also the member at ", Hex(it->second),
              " (a reader keeping the last would drop that one)"));
    }
  }

  ByteView bytes_;
  Limits limits_;
  Archive archive_;
  std::map<std::string, uint64_t> names_;
};

}  // namespace

bool HasMagic(ByteView bytes) { return bytes.size() >= kBlock && DialectOf(bytes).has_value(); }

Archive Read(ByteView bytes, const Limits& limits) { return Reader(bytes, limits).Run(); }

}  // namespace accelcheck::tar
