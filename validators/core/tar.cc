// The tar reader (POSIX.1-1988 ustar, POSIX.1-2001 pax extended headers,
// and GNU tar's variant of ustar).
#include "validators/core/tar.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "validators/core/report.h"
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
    kChecksum{148, 8, "chksum"}, kLinkname{157, 100, "linkname"}, kPrefix{345, 155, "prefix"};
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

// --- pax extended headers (POSIX.1-2001) ---

// The longest record a reader takes: libarchive refuses longer ones, and it
// bounds what one record can make the reader hold.
constexpr uint64_t kMaxPaxRecord = 999999;
// The largest size an 11-digit octal size field holds; a pax size record
// beyond it is what the field cannot say (docs/formats/neff.md §1.5).
constexpr uint64_t kLargestOctalSize = (uint64_t{1} << 33) - 1;

std::string_view AsText(ByteView bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::optional<uint64_t> Decimal(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (UINT64_MAX - 9) / 10) return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

// A pax time: an optional '-', digits, and an optional fraction.
bool IsPaxTime(std::string_view text) {
  if (text.starts_with('-')) text.remove_prefix(1);
  const size_t dot = text.find('.');
  const auto digits = [](std::string_view part) {
    return !part.empty() &&
           std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (dot == std::string_view::npos) return digits(text);
  return digits(text.substr(0, dot)) && digits(text.substr(dot + 1));
}

// The offset of the first byte of `text` that is not part of well-formed
// UTF-8, or nothing.
std::optional<uint64_t> InvalidUtf8At(std::string_view text) {
  const std::string valid = ValidUtf8(text);
  if (valid == text) return std::nullopt;
  const auto [a, b] = std::mismatch(text.begin(), text.end(), valid.begin(), valid.end());
  return static_cast<uint64_t>(a - text.begin());
}

// POSIX keywords: no '.' in them. Vendor keywords (GNU.sparse.size,
// SCHILY.xattr.user.x) have one, and their values may be binary.
bool IsVendorKeyword(std::string_view key) { return key.find('.') != std::string_view::npos; }

// Keywords whose value hdrcharset=BINARY exempts from UTF-8 (POSIX).
bool IsCharsetKeyword(std::string_view key) {
  return key == "path" || key == "linkpath" || key == "uname" || key == "gname";
}

// A value a pax record gives a field, and the record's offset in the
// archive. `cleared`: the record's value was empty, which in an 'x' header
// restores the header's own field and in a 'g' header withdraws the global.
struct PaxText {
  std::string value;
  uint64_t offset = 0;
  bool cleared = false;
};
struct PaxNumber {
  uint64_t value = 0;
  uint64_t offset = 0;
  bool cleared = false;
};

// What the records of one header, or of the global headers so far, set.
struct PaxAttributes {
  std::optional<PaxText> path, linkpath;
  std::optional<PaxNumber> size;
  bool uid = false, gid = false, mtime = false;  // the header's field is overridden
  std::optional<PaxText> sparse;                 // a GNU.sparse keyword: its name
};

// The attribute in force: an 'x' header's over the globals'; nothing when
// neither sets it or the 'x' header restores the header's field.
template <typename T>
const T* InForce(const std::optional<T>& local, const std::optional<T>& global) {
  if (local) return local->cleared ? nullptr : &*local;
  return global ? &*global : nullptr;
}

// Sets `slot` from a record; a 'g' header's empty value withdraws it.
template <typename T>
void Assign(std::optional<T>& slot, T value, bool global) {
  if (global && value.cleared) {
    slot.reset();
  } else {
    slot = std::move(value);
  }
}

class Reader {
 public:
  Reader(ByteView bytes, const Limits& limits) : bytes_(bytes), limits_(limits) {}

  Archive Run() {
    uint64_t at = 0;
    while (true) {
      if (at == bytes_.size()) return End(at, "the archive ends without its two zero blocks");
      if (bytes_.size() - at < kBlock)
        return Stop(Problem::kTruncated, at, "", "a header block ends early");
      const ByteView block = bytes_.subspan(at, kBlock);
      if (IsZero(block)) {
        Unclaimed();
        return Trailer(at);
      }
      if (!Header(block, at, &at)) return std::move(archive_);
    }
  }

 private:
  void Add(Problem problem, uint64_t offset, std::string member, std::string message) {
    archive_.findings.push_back({problem, offset, std::move(member), std::move(message)});
  }
  // A problem that loses the block structure: the last finding, after those
  // of pax records still waiting for their member.
  void Fatal(Problem problem, uint64_t offset, std::string member, std::string message) {
    for (Finding& f : pending_findings_) archive_.findings.push_back(std::move(f));
    pending_findings_.clear();
    Add(problem, offset, std::move(member), std::move(message));
  }
  Archive Stop(Problem problem, uint64_t offset, std::string member, std::string message) {
    Fatal(problem, offset, std::move(member), std::move(message));
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

  bool Header(ByteView block, uint64_t header, uint64_t* next) {
    const auto checksum = Number(block, kChecksum);
    if (!checksum || !ChecksumHolds(block, *checksum)) {
      Fatal(Problem::kChecksum, header + kChecksum.at, "",
            Str("the header block at ", Hex(header), " has a checksum that does not add up"));
      return false;
    }
    const auto dialect = DialectOf(block);
    if (!dialect) {
      Fatal(Problem::kMagic, header + kMagicAt, "",
            "the header's magic is neither ustar (\"ustar\\0\" \"00\") nor GNU (\"ustar  \\0\")");
      return false;
    }
    const char type = static_cast<char>(block[kTypeflag]);
    Member m;
    m.header = header;
    m.dialect = *dialect;
    m.stored = std::string(Text(block, kName));
    if (*dialect == Dialect::kUstar && !Text(block, kPrefix).empty())
      m.stored = Str(Text(block, kPrefix), "/", m.stored);
    m.linkname = std::string(Text(block, kLinkname));
    // Extension records take their own size; a member takes a pax size.
    // An extension record's name is no member's: its findings name none.
    const bool extension = IsExtension(type);
    if (extension) m.stored.clear();
    const PaxText* path = extension ? nullptr : InForce(pending_.path, global_.path);
    if (path) {
      m.stored = path->value;
    } else if (!extension && has_long_name_) {
      m.stored = long_name_;
    }
    if (const PaxText* link = extension ? nullptr : InForce(pending_.linkpath, global_.linkpath))
      m.linkname = link->value;
    const PaxNumber* pax_size = extension ? nullptr : InForce(pending_.size, global_.size);
    const auto size = Number(block, kSize);
    if (!size && !pax_size) {
      Fatal(Problem::kField, header + kSize.at, m.stored, "the size field is not a number");
      return false;
    }
    m.size = pax_size ? pax_size->value : *size;
    const uint64_t size_at = pax_size ? pax_size->offset : header + kSize.at;
    m.offset = header + kBlock;
    if (m.size > limits_.max_member_size) {
      Fatal(Problem::kMemberSize, size_at, m.stored,
            Str("the member is ", m.size, " bytes, more than the ", limits_.max_member_size,
                " allowed"));
      return false;
    }
    if (m.size > bytes_.size() - m.offset) {
      Fatal(Problem::kTruncated, m.offset, m.stored,
            Str("the member's ", m.size, " bytes run past the end of the archive"));
      return false;
    }
    m.data = bytes_.subspan(m.offset, m.size);
    *next = m.offset + (m.size + kBlock - 1) / kBlock * kBlock;
    if (*next > bytes_.size()) {
      Fatal(Problem::kTruncated, bytes_.size(), m.stored,
            "the member's padding to a 512-byte block runs past the end of the archive");
      return false;
    }
    if (extension) return Extension(type, m);
    if (pax_size) CheckPaxSize(m, *pax_size, size);
    CheckFields(block, m);
    if (pending_header_) {
      m.pax_header = pending_header_;
      m.pax = pending_data_;
    }
    // Claiming the member ends the records pending for it: what a record
    // says is read before.
    const PaxText* sparse = InForce(pending_.sparse, global_.sparse);
    if (sparse) {
      Add(Problem::kType, sparse->offset, m.stored,
          Str("the pax record ", sparse->value,
              " makes it a GNU sparse file, whose data is a map of fragments, not a regular "
              "file"));
      Claim(m.stored);
      return true;
    }
    Claim(m.stored);
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
    Name(m, path ? path->offset : header);
    if (archive_.members.size() == limits_.max_members) {
      Fatal(Problem::kMemberCount, header, m.stored,
            Str("the archive has more than ", limits_.max_members, " members"));
      return false;
    }
    archive_.members.push_back(std::move(m));
    return true;
  }

  // The records that describe the next member: a GNU long name ('L'), pax
  // records for the next member ('x') or for all that follow ('g').
  static bool IsExtension(char type) { return type == 'L' || type == 'x' || type == 'g'; }

  bool Extension(char type, const Member& m) {
    if (type == 'L' && m.dialect == Dialect::kGnu) {
      const std::string_view text = AsText(m.data);
      long_name_ = std::string(text.substr(0, text.find('\0')));
      has_long_name_ = true;
    } else if (type == 'L') {
      Add(Problem::kType, m.header + kTypeflag, m.stored,
          "type 'L' is a GNU long-name record, in a header with the ustar magic");
    } else if (type == 'x') {
      // Two 'x' headers in a row both apply, the later record winning.
      pending_header_ = m.header;
      pending_data_ = m.data;
      ReadPax(m.data, m.offset, /*global=*/false, pending_);
    } else {
      ReadPax(m.data, m.offset, /*global=*/true, global_);
    }
    return true;
  }

  // The fields a pax record does not override are checked as they stand.
  void CheckFields(ByteView block, const Member& m) {
    const auto overridden = [&](const Field& f) {
      return (&f == &kUid && (pending_.uid || global_.uid)) ||
             (&f == &kGid && (pending_.gid || global_.gid)) ||
             (&f == &kMtime && (pending_.mtime || global_.mtime));
    };
    for (const Field* f : {&kMode, &kUid, &kGid, &kMtime}) {
      if (!overridden(*f) && !Number(block, *f))
        Add(Problem::kField, m.header + f->at, m.stored,
            Str("the ", f->name, " field is not a number"));
    }
  }

  // A reader that ignores pax headers takes the size field: where the two
  // disagree, the readers see different members (§1.5, NEFF-57). The field
  // can only be ignored when it cannot hold the size.
  void CheckPaxSize(const Member& m, const PaxNumber& pax, const std::optional<uint64_t>& field) {
    if (field && (*field == pax.value || pax.value > kLargestOctalSize)) return;
    Add(Problem::kPaxSize, pax.offset, m.stored,
        Str("the pax record size=", pax.value, " disagrees with the header's size field (",
            field ? Str(*field) : std::string("not a number"), " at ", Hex(m.header + kSize.at),
            "): a reader ignoring pax headers takes other bytes for "
            "the member's data"));
  }

  // The pending 'x' records now belong to the member `name`; every finding
  // about them names it, never the extended header's own name.
  void Claim(const std::string& name) {
    for (Finding& f : pending_findings_) {
      f.member = name;
      archive_.findings.push_back(std::move(f));
    }
    pending_findings_.clear();
    pending_ = {};
    pending_header_.reset();
    pending_data_ = {};
    has_long_name_ = false;
    long_name_.clear();
  }

  // An 'x' header with no member after it before the end of the archive.
  void Unclaimed() {
    if (!pending_header_) return;
    const uint64_t header = *pending_header_;
    Claim("");
    Add(Problem::kPax, header, "",
        Str("the pax extended header at ", Hex(header),
            " describes no member: the archive ends after it"));
  }

  // Reads the records of an 'x' or 'g' header's data at `data_at` into
  // `into`. Problems of an 'x' header wait for the member it describes.
  void ReadPax(ByteView data, uint64_t data_at, bool global, PaxAttributes& into) {
    const auto report = [&](uint64_t offset, std::string message) {
      Finding f{Problem::kPax, offset, "", std::move(message)};
      if (global) {
        archive_.findings.push_back(std::move(f));
      } else {
        pending_findings_.push_back(std::move(f));
      }
    };
    // hdrcharset may follow the records it governs: a first pass finds it,
    // and where the records stop being well formed.
    bool binary = false;
    uint64_t at = 0;
    std::string problem;
    while (const auto r = NextPaxRecord(data, &at, &problem)) {
      if (r->key == "hdrcharset") binary = r->value == "BINARY";
    }
    const uint64_t end = at;
    if (!problem.empty()) report(data_at + end, problem);
    for (uint64_t next = 0; next < end;) {
      const PaxRecord r = *NextPaxRecord(data.first(end), &next, &problem);
      if (const std::string why = ApplyPaxRecord(r, data_at + r.offset, binary, global, into);
          !why.empty()) {
        report(data_at + r.offset, why);
      }
    }
  }

  // Applies one record; why it is malformed, or empty.
  static std::string ApplyPaxRecord(const PaxRecord& r, uint64_t offset, bool binary, bool global,
                                    PaxAttributes& into) {
    if (const auto bad = InvalidUtf8At(r.key))
      return Str("the pax keyword of the record is not UTF-8 (byte ", *bad, " of it)");
    const bool utf8 = !IsVendorKeyword(r.key) && !(binary && IsCharsetKeyword(r.key));
    if (const auto bad = utf8 ? InvalidUtf8At(r.value) : std::nullopt)
      return Str("the value of the pax record ", r.key, "= is not UTF-8 (byte ", *bad,
                 " of it), and no hdrcharset=BINARY record allows that");
    const bool cleared = r.value.empty();
    if (r.key == "path" || r.key == "linkpath") {
      Assign(r.key == "path" ? into.path : into.linkpath,
             PaxText{std::string(r.value), offset, cleared}, global);
    } else if (r.key == "size") {
      const auto value = Decimal(r.value);
      if (!value && !cleared)
        return Str("the pax record size=", Quoted(std::string(r.value)),
                   " is not a decimal number of at most 64 bits");
      Assign(into.size, PaxNumber{value.value_or(0), offset, cleared}, global);
    } else if (r.key == "uid" || r.key == "gid") {
      if (!cleared && !Decimal(r.value))
        return Str("the pax record ", r.key, "=", Quoted(std::string(r.value)),
                   " is not a decimal number of at most 64 bits");
      (r.key == "uid" ? into.uid : into.gid) = !cleared;
    } else if (r.key == "mtime" || r.key == "atime" || r.key == "ctime") {
      if (!cleared && !IsPaxTime(r.value))
        return Str("the pax record ", r.key, "=", Quoted(std::string(r.value)),
                   " is not a time in seconds (digits, with an optional '-' and fraction)");
      if (r.key == "mtime") into.mtime = !cleared;
    } else if (r.key.starts_with("GNU.sparse.")) {
      Assign(into.sparse, PaxText{std::string(r.key), offset, cleared}, global);
    }
    // Every other keyword (charset, comment, uname, gname, hdrcharset,
    // vendor keywords) leaves what the reader checks unchanged.
    return "";
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
      case 'K':
        return "a GNU long-link-name record";
      default:
        return "not a type tar defines";
    }
  }

  // Normalises the name and checks it, and that no earlier member has it.
  // `at`: where the name comes from, the header or a pax path record.
  void Name(Member& m, uint64_t at) {
    std::string_view name = m.stored;
    if (name.find('\0') != std::string_view::npos) {
      Add(Problem::kName, at, m.stored, "the name holds a NUL byte");
    }
    if (name.starts_with("./")) name.remove_prefix(2);
    if (m.type == Type::kDirectory && name.ends_with('/')) name.remove_suffix(1);
    m.name = std::string(name);
    if (const std::string problem = NameProblem(name); !problem.empty()) {
      Add(Problem::kName, at, m.stored,
          Str(problem, ": ", Quoted(m.stored), at == m.header ? "" : " (a pax path record)"));
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
  // What applies to the next member: a GNU long name, the records of the
  // 'x' headers since the last member (with their header, data and
  // findings), and those of every 'g' header so far.
  std::string long_name_;
  bool has_long_name_ = false;
  PaxAttributes pending_;
  std::optional<uint64_t> pending_header_;
  ByteView pending_data_;
  std::vector<Finding> pending_findings_;
  PaxAttributes global_;
};

}  // namespace

bool HasMagic(ByteView bytes) { return bytes.size() >= kBlock && DialectOf(bytes).has_value(); }

Archive Read(ByteView bytes, const Limits& limits) { return Reader(bytes, limits).Run(); }

std::optional<PaxRecord> NextPaxRecord(ByteView data, uint64_t* at, std::string* problem) {
  problem->clear();
  const std::string_view text = AsText(data);
  const uint64_t start = *at;
  if (start >= text.size()) return std::nullopt;
  const std::string_view rest = text.substr(start);
  // Some writers pad the records with zero bytes; they end them.
  if (rest.front() == '\0') {
    if (IsZero(data.subspan(start))) return std::nullopt;
    *problem = "the pax records end at a zero byte, but bytes other than zero follow it";
    return std::nullopt;
  }
  const size_t space = rest.find(' ');
  const auto length = Decimal(rest.substr(0, std::min(space, rest.size())));
  if (space == std::string_view::npos || !length) {
    *problem = Str("the pax record starting ", Quoted(std::string(rest.substr(0, 16))),
                   " does not start with a decimal length and a space");
    return std::nullopt;
  }
  if (*length > kMaxPaxRecord) {
    *problem = Str("the pax record's length ", *length, " is more than ", kMaxPaxRecord,
                   ", the longest a reader takes");
    return std::nullopt;
  }
  if (*length > rest.size()) {
    *problem = Str("the pax record's length ", *length, " runs past the ", rest.size(),
                   " bytes left in the extended header");
    return std::nullopt;
  }
  if (*length < space + 2 || rest[*length - 1] != '\n') {
    *problem = Str("the pax record's length ", *length,
                   " does not end it at a newline: its length is wrong");
    return std::nullopt;
  }
  const std::string_view body = rest.substr(space + 1, *length - space - 2);
  const size_t equals = body.find('=');
  if (equals == std::string_view::npos) {
    *problem = Str("the pax record ", Quoted(std::string(body.substr(0, 32))),
                   " has no '=' between its keyword and its value");
    return std::nullopt;
  }
  if (equals == 0) {
    *problem = "the pax record has an empty keyword";
    return std::nullopt;
  }
  *at = start + *length;
  return PaxRecord{body.substr(0, equals), body.substr(equals + 1), start, *length};
}

}  // namespace accelcheck::tar
