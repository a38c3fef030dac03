#include "conformance/neff/package.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "conformance/gzip_writer.h"
#include "validators/core/digest.h"
#include "validators/core/gzip.h"
#include "validators/core/tar.h"
#include "validators/core/text.h"

namespace accelcheck::neff::conformance {
namespace {

template <typename T>
void PutLE(std::span<uint8_t> out, uint64_t offset, T value) {
  for (size_t i = 0; i < sizeof(T); ++i) out[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

template <typename T>
T GetLE(ByteView bytes, uint64_t offset) {
  return *ReadLE<T>(bytes, offset);
}

template <size_t N>
void PutArray(std::span<uint8_t> out, uint64_t offset, const std::array<uint8_t, N>& value) {
  std::copy(value.begin(), value.end(), out.begin() + static_cast<ptrdiff_t>(offset));
}

template <size_t N>
void GetArray(ByteView bytes, uint64_t offset, std::array<uint8_t, N>& value) {
  std::copy_n(bytes.begin() + static_cast<ptrdiff_t>(offset), N, value.begin());
}

uint64_t RoundUp(uint64_t value, uint64_t block) {
  if (block <= 1) return value;
  return (value + block - 1) / block * block;
}

bool AllZero(ByteView bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

// --- tar -----------------------------------------------------------------

std::span<uint8_t> FieldOf(std::span<uint8_t> block, TarField field) {
  return block.subspan(field.at, field.length);
}

void PutText(std::span<uint8_t> block, TarField field, std::string_view text) {
  const std::span<uint8_t> out = FieldOf(block, field);
  std::copy_n(text.begin(), std::min<size_t>(text.size(), out.size()), out.begin());
}

// `digits` octal digits of `value` (its low digits when it needs more)
// followed by `terminator`, as the real files' writer formats each field
// (§1.5).
void PutOctal(std::span<uint8_t> block, TarField field, uint64_t value, int digits,
              std::string_view terminator) {
  std::string text(static_cast<size_t>(digits), '0');
  for (int i = digits - 1; i >= 0 && value != 0; --i, value >>= 3) {
    text[static_cast<size_t>(i)] = static_cast<char>('0' + (value & 7));
  }
  text += terminator;
  PutText(block, field, text);
}

void PutChecksum(std::span<uint8_t> block) {
  const std::span<uint8_t> sum_field = FieldOf(block, tar_field::kChecksum);
  std::fill(sum_field.begin(), sum_field.end(), ' ');
  uint64_t sum = 0;
  for (size_t i = 0; i < kTarBlock; ++i) sum += block[i];
  PutOctal(block, tar_field::kChecksum, sum, 6, std::string_view("\0 ", 2));
}

// The ustar split of a long name into prefix and name at a '/', or nothing.
std::optional<std::pair<std::string_view, std::string_view>> UstarSplit(std::string_view name) {
  for (size_t slash = name.find('/'); slash != std::string_view::npos;
       slash = name.find('/', slash + 1)) {
    const std::string_view prefix = name.substr(0, slash);
    const std::string_view rest = name.substr(slash + 1);
    if (prefix.size() <= tar_field::kPrefix.length && !rest.empty() &&
        rest.size() <= tar_field::kName.length) {
      return std::pair{prefix, rest};
    }
  }
  return std::nullopt;
}

// One header block; `name` is what goes into the name field (and the prefix
// when `prefix` is not empty).
std::vector<uint8_t> HeaderBlock(std::string_view name, std::string_view prefix, uint64_t size,
                                 char typeflag, std::string_view linkname, Dialect dialect,
                                 const TarStamp& stamp) {
  std::vector<uint8_t> block(kTarBlock, 0);
  const std::span<uint8_t> b(block);
  using namespace tar_field;
  PutText(b, kName, name);
  PutOctal(b, kMode, typeflag == '5' ? 0775 : 0664, 6, std::string_view(" \0", 2));
  PutOctal(b, kUid, 1000, 6, std::string_view(" \0", 2));
  PutOctal(b, kGid, 1000, 6, std::string_view(" \0", 2));
  PutOctal(b, kSize, size, 11, " ");
  PutOctal(b, kMtime, stamp.mtime, 11, " ");
  block[kTypeflag.at] = static_cast<uint8_t>(typeflag);
  PutText(b, kLinkname, linkname);
  PutText(b, kMagic,
          dialect == Dialect::kGnu ? std::string_view("ustar  \0", 8)
                                   : std::string_view("ustar\0"
                                                      "00",
                                                      8));
  PutText(b, kUname, stamp.owner);
  PutText(b, kGname, stamp.owner);
  PutOctal(b, kDevmajor, 0, 6, std::string_view(" \0", 2));
  PutOctal(b, kDevminor, 0, 6, std::string_view(" \0", 2));
  PutText(b, kPrefix, prefix);
  PutChecksum(b);
  return block;
}

void AppendData(std::vector<uint8_t>& out, ByteView data) {
  out.insert(out.end(), data.begin(), data.end());
  out.resize(RoundUp(out.size(), kTarBlock), 0);
}

// libarchive's name for the extended header of `name`: `PaxHeader/` before
// its last component (a directory's trailing '/' dropped), cut to the
// name field.
std::string PaxHeaderName(std::string_view name) {
  if (name.ends_with('/')) name.remove_suffix(1);
  const size_t slash = name.rfind('/');
  const std::string full = slash == std::string_view::npos
                               ? Str("PaxHeader/", name)
                               : Str(name.substr(0, slash), "/PaxHeader/", name.substr(slash + 1));
  return full.substr(0, tar_field::kName.length);
}

// The records of `entry`'s extended header: its own, else its times as the
// stamp gives them; with a path record first when the header cannot hold
// its name.
std::string PaxData(const TarEntry& entry, const TarStamp& stamp, bool name_fits) {
  PaxRecords records = entry.pax;
  if (records.empty()) {
    for (const char* key : {"ctime", "atime", "mtime"}) records.emplace_back(key, Str(stamp.mtime));
  }
  const bool has_path =
      std::any_of(records.begin(), records.end(), [](const auto& r) { return r.first == "path"; });
  if (!name_fits && !has_path) records.insert(records.begin(), {"path", entry.name});
  std::string data;
  for (const auto& [key, value] : records) data += PaxRecordText(key, value);
  return data;
}

}  // namespace

std::string FieldText(std::span<const uint8_t> field) {
  const auto end = std::find(field.begin(), field.end(), uint8_t{0});
  return std::string(field.begin(), end);
}

void SetFieldText(std::span<uint8_t> field, std::string_view text) {
  std::fill(field.begin(), field.end(), uint8_t{0});
  if (field.empty()) return;
  std::copy_n(text.begin(), std::min(text.size(), field.size() - 1), field.begin());
}

Hash PayloadHash(ByteView payload, uint64_t pkg_version, HashOrder order) {
  Hash hash{};
  size_t length = 0;
  if (pkg_version == 1) {
    const digest::Sha256 sha = digest::ComputeSha256(payload);
    std::copy(sha.begin(), sha.end(), hash.begin());
    length = sha.size();
  } else {
    const digest::Md5 md5 = digest::ComputeMd5(payload);
    std::copy(md5.begin(), md5.end(), hash.begin());
    length = md5.size();
  }
  if (order == HashOrder::kWordReversed) {
    for (size_t word = 0; word < length; word += 4) {
      std::reverse(hash.begin() + static_cast<ptrdiff_t>(word),
                   hash.begin() + static_cast<ptrdiff_t>(word + 4));
    }
  }
  return hash;
}

std::vector<uint8_t> EncodeHeader(const Header& header, uint64_t data_size, const Hash& hash) {
  namespace at = header_offset;
  std::vector<uint8_t> out(kHeaderSize, 0);
  const std::span<uint8_t> b(out);
  PutLE<uint64_t>(b, at::kPkgVersion, header.pkg_version);
  PutLE<uint64_t>(b, at::kHeaderSize, header.header_size);
  PutLE<uint64_t>(b, at::kDataSize, header.data_size.value_or(data_size));
  PutLE<uint64_t>(b, at::kVersionMajor, header.neff_version_major);
  PutLE<uint64_t>(b, at::kVersionMinor, header.neff_version_minor);
  PutArray(b, at::kBuildVersion, header.build_version);
  PutLE<uint32_t>(b, at::kNumTpb, header.num_tpb);
  PutArray(b, at::kHash, header.hash.value_or(hash));
  PutArray(b, at::kUuid, header.uuid);
  PutArray(b, at::kName, header.name);
  PutLE<uint32_t>(b, at::kRequestedTpbCount, header.requested_tpb_count);
  PutArray(b, at::kTpbPerNode, header.tpb_per_node);
  PutLE<uint64_t>(b, at::kFeatureBits, header.feature_bits);
  PutLE<uint32_t>(b, at::kLncSize, header.lnc_size);
  PutArray(b, at::kPad, header.pad);
  return out;
}

Header DecodeHeader(ByteView file) {
  namespace at = header_offset;
  Header h;
  h.pkg_version = GetLE<uint64_t>(file, at::kPkgVersion);
  h.header_size = GetLE<uint64_t>(file, at::kHeaderSize);
  h.data_size = GetLE<uint64_t>(file, at::kDataSize);
  h.neff_version_major = GetLE<uint64_t>(file, at::kVersionMajor);
  h.neff_version_minor = GetLE<uint64_t>(file, at::kVersionMinor);
  GetArray(file, at::kBuildVersion, h.build_version);
  h.num_tpb = GetLE<uint32_t>(file, at::kNumTpb);
  h.hash.emplace();
  GetArray(file, at::kHash, *h.hash);
  GetArray(file, at::kUuid, h.uuid);
  GetArray(file, at::kName, h.name);
  h.requested_tpb_count = GetLE<uint32_t>(file, at::kRequestedTpbCount);
  GetArray(file, at::kTpbPerNode, h.tpb_per_node);
  h.feature_bits = GetLE<uint64_t>(file, at::kFeatureBits);
  h.lnc_size = GetLE<uint32_t>(file, at::kLncSize);
  GetArray(file, at::kPad, h.pad);
  return h;
}

std::string PaxRecordText(std::string_view key, std::string_view value) {
  const uint64_t body = key.size() + value.size() + 3;  // ' ', '=', '\n'
  uint64_t length = body + 1;
  while (Str(length).size() + body != length) ++length;
  return Str(length, " ", key, "=", value, "\n");
}

WrittenTar WriteTar(const std::vector<TarEntry>& entries, Dialect dialect, const TarStamp& stamp) {
  WrittenTar tar;
  for (const TarEntry& entry : entries) {
    std::string_view name = entry.name;
    std::string_view prefix;
    const bool name_fits = name.size() <= tar_field::kName.length;
    if (dialect == Dialect::kPax) {
      const std::string data = PaxData(entry, stamp, name_fits);
      tar.pax_headers.push_back(tar.bytes.size());
      const std::vector<uint8_t> header =
          HeaderBlock(PaxHeaderName(entry.name), "", data.size(), 'x', "", Dialect::kUstar, stamp);
      tar.bytes.insert(tar.bytes.end(), header.begin(), header.end());
      AppendData(tar.bytes, AsBytes(data));
    }
    if (!name_fits) {
      if (dialect == Dialect::kGnu) {
        std::vector<uint8_t> long_name(entry.name.begin(), entry.name.end());
        long_name.push_back(0);
        const std::vector<uint8_t> record =
            HeaderBlock("././@LongLink", "", long_name.size(), 'L', "", dialect, stamp);
        tar.bytes.insert(tar.bytes.end(), record.begin(), record.end());
        AppendData(tar.bytes, long_name);
        name = name.substr(0, tar_field::kName.length);
      } else if (const auto split = UstarSplit(name)) {
        prefix = split->first;
        name = split->second;
      } else {
        name = name.substr(0, tar_field::kName.length);
      }
    }
    tar.headers.push_back(tar.bytes.size());
    const std::vector<uint8_t> header =
        HeaderBlock(name, prefix, entry.data.size(), entry.typeflag, entry.linkname,
                    dialect == Dialect::kGnu ? Dialect::kGnu : Dialect::kUstar, stamp);
    tar.bytes.insert(tar.bytes.end(), header.begin(), header.end());
    AppendData(tar.bytes, entry.data);
  }
  tar.bytes.resize(tar.bytes.size() + 2 * kTarBlock, 0);
  return tar;
}

void RewriteTarChecksum(std::span<uint8_t> tar, uint64_t header) {
  PutChecksum(tar.subspan(header, kTarBlock));
}

std::vector<uint8_t> Payload(const Package& package) {
  std::vector<uint8_t> payload = WriteTar(package.entries, package.dialect, package.stamp).bytes;
  if (package.compression == Compression::kGzip) payload = accelcheck::conformance::Gzip(payload);
  payload.resize(RoundUp(payload.size(), package.pad_block), 0);
  return payload;
}

std::vector<uint8_t> Seal(const Header& header, ByteView payload, HashOrder order) {
  std::vector<uint8_t> file =
      EncodeHeader(header, payload.size(), PayloadHash(payload, header.pkg_version, order));
  file.insert(file.end(), payload.begin(), payload.end());
  return file;
}

std::vector<uint8_t> WritePackage(const Package& package) {
  std::vector<uint8_t> file = Seal(package.header, Payload(package), package.hash_order);
  file.insert(file.end(), package.trailing.begin(), package.trailing.end());
  return file;
}

void Reseal(std::vector<uint8_t>& file, HashOrder order) {
  if (file.size() < kHeaderSize) return;
  const ByteView payload = ByteView(file).subspan(kHeaderSize);
  const Hash hash = PayloadHash(payload, GetLE<uint64_t>(file, header_offset::kPkgVersion), order);
  PutLE<uint64_t>(file, header_offset::kDataSize, payload.size());
  PutArray(file, header_offset::kHash, hash);
}

namespace {

// The archive's bytes up to its end-of-archive blocks as WriteTar ends it:
// what the padding of an uncompressed payload starts after.
uint64_t WrittenTarLength(const tar::Archive& archive) {
  uint64_t end = 0;
  for (const tar::Member& m : archive.members) end = RoundUp(m.offset + m.size, kTarBlock);
  return end + 2 * kTarBlock;
}

// The padding that makes `stream` bytes the payload's `payload` bytes: the
// real block when it fits, else one block of the payload's size.
uint64_t PadBlockFor(uint64_t stream, uint64_t payload) {
  if (RoundUp(stream, kPadBlock) == payload) return kPadBlock;
  if (stream == payload) return 0;
  return payload;
}

// An octal field as the writer formats it (the reader has checked it).
uint64_t OctalField(ByteView block, TarField field) {
  uint64_t value = 0;
  for (uint64_t i = 0; i < field.length && block[field.at + i] >= '0' && block[field.at + i] <= '7';
       ++i) {
    value = value * 8 + (block[field.at + i] - '0');
  }
  return value;
}

std::string_view AsText(ByteView bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// The records of a pax header's data (the reader has checked them).
PaxRecords Records(ByteView pax) {
  PaxRecords records;
  uint64_t at = 0;
  std::string problem;
  while (const auto r = tar::NextPaxRecord(pax, &at, &problem)) {
    records.emplace_back(std::string(r->key), std::string(r->value));
  }
  return records;
}

std::optional<Package> Fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return std::nullopt;
}

}  // namespace

std::optional<Package> ReadPackage(ByteView file, std::string* error) {
  if (file.size() < kHeaderSize) {
    return Fail(error,
                Str("the file has ", file.size(), " bytes, fewer than the 1024 of a header"));
  }
  Package package;
  package.header = DecodeHeader(file);
  const uint64_t data_size = *package.header.data_size;
  if (data_size > file.size() - kHeaderSize) {
    return Fail(error, Str("data_size ", data_size, " runs past the end of the file"));
  }
  const ByteView payload = file.subspan(kHeaderSize, data_size);
  const ByteView trailing = file.subspan(kHeaderSize + data_size);
  package.trailing.assign(trailing.begin(), trailing.end());

  std::vector<uint8_t> inflated;
  ByteView tar_bytes;
  uint64_t stream = 0;
  if (gzip::HasMagic(payload)) {
    gzip::Error gzip_error;
    auto member = gzip::Inflate(payload, {}, &gzip_error);
    if (!member) return Fail(error, "the payload does not inflate: " + gzip_error.message);
    if (!AllZero(payload.subspan(member->end))) {
      return Fail(error, "bytes other than zero follow the gzip member");
    }
    package.compression = Compression::kGzip;
    inflated = std::move(member->data);
    tar_bytes = inflated;
    stream = member->end;
  } else if (tar::HasMagic(payload)) {
    package.compression = Compression::kNone;
    tar_bytes = payload;
  } else {
    return Fail(error, "the payload is neither a gzip member nor a tar archive");
  }

  const tar::Archive archive = tar::Read(tar_bytes, {});
  if (!archive.findings.empty()) {
    return Fail(error, "the archive has a problem: " + archive.findings.front().message);
  }
  if (package.compression == Compression::kNone) stream = WrittenTarLength(archive);
  package.pad_block = PadBlockFor(stream, data_size);
  if (!archive.members.empty()) {
    const tar::Member& first = archive.members.front();
    if (first.dialect == tar::Dialect::kGnu) package.dialect = Dialect::kGnu;
    if (first.pax_header) package.dialect = Dialect::kPax;
    const ByteView block = tar_bytes.subspan(first.header, kTarBlock);
    package.stamp.mtime = OctalField(block, tar_field::kMtime);
    package.stamp.owner = FieldText(block.subspan(tar_field::kUname.at, tar_field::kUname.length));
  }
  for (const tar::Member& m : archive.members) {
    const ByteView block = tar_bytes.subspan(m.header, kTarBlock);
    TarEntry entry;
    entry.name = m.stored;
    entry.data.assign(m.data.begin(), m.data.end());
    entry.typeflag = static_cast<char>(block[tar_field::kTypeflag.at]);
    entry.linkname = m.linkname;
    // Records the writer would write by itself read back as none.
    const bool name_fits = entry.name.size() <= tar_field::kName.length;
    if (m.pax_header && AsText(m.pax) != PaxData(entry, package.stamp, name_fits)) {
      entry.pax = Records(m.pax);
    }
    package.entries.push_back(std::move(entry));
  }

  package.header.data_size.reset();  // the payload's size, by construction
  const Hash stored = *package.header.hash;
  for (const HashOrder order : {HashOrder::kWordReversed, HashOrder::kPlain}) {
    if (PayloadHash(payload, package.header.pkg_version, order) == stored) {
      package.hash_order = order;
      package.header.hash.reset();
      break;
    }
  }
  return package;
}

}  // namespace accelcheck::neff::conformance
