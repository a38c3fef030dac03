#include "validators/core/gzip.h"

#include <zlib.h>

#include <algorithm>

#include "validators/core/text.h"

namespace accelcheck::gzip {

namespace {

constexpr uint8_t kFlagHeaderCrc = 0x02, kFlagExtra = 0x04, kFlagName = 0x08, kFlagComment = 0x10,
                  kFlagReserved = 0xe0;
constexpr size_t kFixedHeader = 10, kTrailer = 8;

bool Fail(Error* error, Problem problem, uint64_t offset, std::string message) {
  *error = {problem, offset, std::move(message)};
  return false;
}

// Skips a NUL-terminated field from `*at`.
bool SkipString(ByteView bytes, uint64_t* at, const char* what, Error* error) {
  const auto end = std::find(bytes.begin() + static_cast<ptrdiff_t>(*at), bytes.end(), 0);
  if (end == bytes.end())
    return Fail(error, Problem::kHeader, *at,
                Str("the ", what, " field has no NUL before the end"));
  *at = static_cast<uint64_t>(end - bytes.begin()) + 1;
  return true;
}

// The offset of the deflate data after the header's optional fields.
bool ReadHeader(ByteView bytes, Member* member, uint64_t* data, Error* error) {
  if (!HasMagic(bytes)) return Fail(error, Problem::kNotGzip, 0, "no gzip magic 1f 8b 08");
  if (bytes.size() < kFixedHeader)
    return Fail(error, Problem::kTruncated, bytes.size(), "the gzip header ends early");
  member->flags = bytes[3];
  member->os = bytes[9];
  if ((member->flags & kFlagReserved) != 0)
    return Fail(error, Problem::kHeader, 3,
                Str("reserved flag bits are set: FLG ", Hex(member->flags)));
  uint64_t at = kFixedHeader;
  if (member->flags & kFlagExtra) {
    if (bytes.size() < at + 2)
      return Fail(error, Problem::kHeader, at, "the extra field's length is past the end");
    at += 2 + (uint64_t{bytes[at]} | uint64_t{bytes[at + 1]} << 8);
    if (at > bytes.size())
      return Fail(error, Problem::kHeader, kFixedHeader, "the extra field is past the end");
  }
  if ((member->flags & kFlagName) && !SkipString(bytes, &at, "file name", error)) return false;
  if ((member->flags & kFlagComment) && !SkipString(bytes, &at, "comment", error)) return false;
  if (member->flags & kFlagHeaderCrc) at += 2;
  if (at > bytes.size())
    return Fail(error, Problem::kTruncated, bytes.size(), "the gzip header ends early");
  *data = at;
  return true;
}

uint32_t Le32(ByteView bytes, uint64_t at) {
  return uint32_t{bytes[at]} | uint32_t{bytes[at + 1]} << 8 | uint32_t{bytes[at + 2]} << 16 |
         uint32_t{bytes[at + 3]} << 24;
}

}  // namespace

bool HasMagic(ByteView bytes) {
  return bytes.size() >= 3 && bytes[0] == 0x1f && bytes[1] == 0x8b && bytes[2] == 0x08;
}

// Deflated data and archives of text compress up to about 16 times; past
// that, and past 1 GiB, the output grows by doubling.
constexpr uint64_t kTypicalRatio = 16;
constexpr uint64_t kMaxReserve = uint64_t{1} << 30;

std::optional<Member> Inflate(ByteView bytes, const Limits& limits, Error* error) {
  Member member;
  uint64_t start = 0;
  if (!ReadHeader(bytes, &member, &start, error)) return std::nullopt;
  // The output may reach `cap` bytes; one byte more is a limit hit.
  const uint64_t compressed = bytes.size() - start;
  const uint64_t ratio_cap = limits.max_ratio != 0 && compressed > UINT64_MAX / limits.max_ratio
                                 ? UINT64_MAX
                                 : compressed * limits.max_ratio;
  const uint64_t cap = std::min(limits.max_inflated, ratio_cap);
  // Address space for the usual ratios up front: reserved pages are not
  // resident until written, and growing inside them copies nothing, so the
  // peak stays the inflated size instead of one and a half times it.
  member.data.reserve(std::min({cap + 1, compressed * kTypicalRatio, kMaxReserve}));
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {
    Fail(error, Problem::kCorrupt, start, "zlib could not start");
    return std::nullopt;
  }
  uint64_t fed = start;  // compressed bytes handed to zlib so far
  int status = Z_OK;
  while (status == Z_OK) {
    if (z.avail_in == 0 && fed < bytes.size()) {
      z.next_in = const_cast<Bytef*>(bytes.data() + fed);
      z.avail_in = static_cast<uInt>(std::min<uint64_t>(bytes.size() - fed, uint64_t{1} << 30));
      fed += z.avail_in;
    }
    if (member.data.size() > cap) break;
    // Grow by the size so far, at first by what a typical ratio gives (a
    // small stream zero-fills no more than it needs), never past one byte
    // over the cap.
    const uint64_t room = cap + 1 - member.data.size();
    const uint64_t first = std::min(compressed * kTypicalRatio + 4096, uint64_t{1} << 20);
    const uint64_t grow = std::min<uint64_t>(
        {room, std::max<uint64_t>(member.data.size(), first), uint64_t{1} << 30});
    const size_t before = member.data.size();
    member.data.resize(before + grow);
    z.next_out = member.data.data() + before;
    z.avail_out = static_cast<uInt>(grow);
    status = inflate(&z, Z_NO_FLUSH);
    member.data.resize(before + (grow - z.avail_out));
  }
  const uint64_t consumed = start + z.total_in;
  const char* zlib_message = z.msg;
  inflateEnd(&z);
  if (member.data.size() > cap) {
    const bool ratio = cap < limits.max_inflated;
    Fail(error, ratio ? Problem::kRatio : Problem::kTooLarge, start,
         ratio ? Str("the stream inflates to more than ", limits.max_ratio,
                     " times its compressed size")
               : Str("the stream inflates to more than ", limits.max_inflated, " bytes"));
    return std::nullopt;
  }
  if (status == Z_BUF_ERROR) {
    Fail(error, Problem::kTruncated, bytes.size(), "the deflate data ends early");
    return std::nullopt;
  }
  if (status != Z_STREAM_END) {
    Fail(error, Problem::kCorrupt, consumed,
         Str("the deflate data does not decode: ",
             zlib_message != nullptr ? zlib_message : "error"));
    return std::nullopt;
  }
  if (bytes.size() - consumed < kTrailer) {
    Fail(error, Problem::kTruncated, consumed, "the gzip trailer ends early");
    return std::nullopt;
  }
  const auto crc = static_cast<uint32_t>(
      crc32_z(crc32_z(0, nullptr, 0), member.data.data(), member.data.size()));
  const uint32_t stored_crc = Le32(bytes, consumed);
  const uint32_t stored_size = Le32(bytes, consumed + 4);
  const auto size = static_cast<uint32_t>(member.data.size());  // ISIZE is modulo 2^32
  if (stored_crc != crc || stored_size != size) {
    Fail(error, Problem::kChecksum, consumed,
         Str("the trailer says CRC-32 ", Hex(stored_crc), " and size ", stored_size,
             "; the data has ", Hex(crc), " and ", size));
    return std::nullopt;
  }
  member.end = consumed + kTrailer;
  return member;
}

}  // namespace accelcheck::gzip
