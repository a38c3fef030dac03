#include "validators/core/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

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

// The CRC-32 of a growing output, computed on a thread of its own: the
// inflating thread posts each stretch it writes, and waits for the thread
// to catch up before the output moves.
class CrcBeside {
 public:
  explicit CrcBeside(const std::vector<uint8_t>& output) : output_(output) {
    try {
      thread_ = std::thread([this] { Run(); });
    } catch (const std::system_error&) {
      // No thread to be had: Finish() computes it all.
    }
  }
  CrcBeside(const CrcBeside&) = delete;
  CrcBeside& operator=(const CrcBeside&) = delete;
  ~CrcBeside() { Stop(); }

  // The output holds `size` bytes now.
  void Post(uint64_t size) {
    const std::lock_guard lock(mutex_);
    posted_ = size;
    wake_.notify_all();
  }
  // Returns once the thread reads no byte of the output.
  void WaitIdle() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return !thread_.joinable() || done_ == posted_; });
  }
  // The CRC-32 of the output's `size` bytes.
  uint32_t Finish(uint64_t size) {
    Post(size);
    Stop();
    crc_ = crc32_z(crc_, output_.data() + done_, size - done_);
    return static_cast<uint32_t>(crc_);
  }

 private:
  void Run() {
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stop_ || posted_ != done_; });
      if (posted_ == done_) return;  // stopped, nothing left
      const uint64_t begin = done_, end = posted_;
      const uint8_t* data = output_.data();  // stays put until done_ reaches end
      lock.unlock();
      const uLong crc = crc32_z(crc_, data + begin, end - begin);
      lock.lock();
      crc_ = crc;
      done_ = end;
      idle_.notify_all();
    }
  }
  void Stop() {
    if (!thread_.joinable()) return;
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
      wake_.notify_all();
    }
    thread_.join();
  }

  const std::vector<uint8_t>& output_;
  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  uint64_t posted_ = 0, done_ = 0;
  uLong crc_ = crc32_z(0, nullptr, 0);
  bool stop_ = false;
  std::thread thread_;
};

// Output stretches posted to a CrcBeside: small enough that its thread
// follows closely, large enough that posting costs nothing.
constexpr uint64_t kCrcStretch = uint64_t{4} << 20;

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
// Deflate inflates at most about 1032 bytes from one (RFC 1951: a 258-byte
// match in a few bits): no member's size is believed past that.
constexpr uint64_t kMaxDeflateRatio = 1032;

std::optional<Member> Inflate(ByteView bytes, const Limits& limits, Error* error,
                              const Options& options) {
  Member member;
  uint64_t start = 0;
  if (!ReadHeader(bytes, &member, &start, error)) return std::nullopt;
  // The output may reach `cap` bytes; one byte more is a limit hit.
  const uint64_t compressed = bytes.size() - start;
  const uint64_t ratio_cap = limits.max_ratio != 0 && compressed > UINT64_MAX / limits.max_ratio
                                 ? UINT64_MAX
                                 : compressed * limits.max_ratio;
  const uint64_t cap = std::min(limits.max_inflated, ratio_cap);
  // Address space for the usual ratios up front, or for the size the
  // stream's last four bytes give when they are this member's trailer
  // (ISIZE): reserved pages are not resident until written, and growing
  // inside them copies nothing, so the peak stays the inflated size instead
  // of one and a half or twice it.
  const uint64_t trailer_size = bytes.size() >= start + 8 ? Le32(bytes, bytes.size() - 4) : 0;
  const uint64_t expected = std::max(compressed * kTypicalRatio,
                                     std::min(trailer_size, compressed * kMaxDeflateRatio) + 1);
  member.data.reserve(std::min({cap + 1, expected, kMaxReserve}));
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {
    Fail(error, Problem::kCorrupt, start, "zlib could not start");
    return std::nullopt;
  }
  std::optional<CrcBeside> crc_beside;
  if (options.crc == Crc::kBeside) crc_beside.emplace(member.data);
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
    // In stretches when a thread follows with the CRC, and inside what is
    // reserved while some of it is left: the reservation usually ends one
    // byte past the output, which is where zlib says the stream ended.
    const size_t before = member.data.size();
    const uint64_t reserved = member.data.capacity() - before;
    const uint64_t stretch =
        std::min({crc_beside ? kCrcStretch : grow, grow, reserved != 0 ? reserved : grow});
    if (crc_beside && before + stretch > member.data.capacity()) crc_beside->WaitIdle();
    member.data.resize(before + stretch);
    z.next_out = member.data.data() + before;
    z.avail_out = static_cast<uInt>(stretch);
    status = inflate(&z, Z_NO_FLUSH);
    member.data.resize(before + (stretch - z.avail_out));
    if (crc_beside) crc_beside->Post(member.data.size());
    if (options.consumed) options.consumed(start + z.total_in);
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
  const uint32_t crc = crc_beside
                           ? crc_beside->Finish(member.data.size())
                           : static_cast<uint32_t>(crc32_z(crc32_z(0, nullptr, 0),
                                                           member.data.data(), member.data.size()));
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

std::vector<uint8_t> InflateHead(ByteView bytes, uint64_t max_bytes) {
  std::vector<uint8_t> head;
  uint64_t at = 0;
  while (head.size() < max_bytes && HasMagic(bytes.subspan(at))) {
    Member header;
    uint64_t start = 0;
    Error ignored;
    if (!ReadHeader(bytes.subspan(at), &header, &start, &ignored)) break;
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) break;
    const ByteView data = bytes.subspan(at + start);
    z.next_in = const_cast<Bytef*>(data.data());
    z.avail_in = static_cast<uInt>(std::min<uint64_t>(data.size(), uint64_t{1} << 30));
    const size_t before = head.size();
    head.resize(max_bytes);
    z.next_out = head.data() + before;
    z.avail_out = static_cast<uInt>(max_bytes - before);
    int status = Z_OK;
    while (status == Z_OK && z.avail_out != 0) status = inflate(&z, Z_NO_FLUSH);
    head.resize(max_bytes - z.avail_out);
    const uint64_t consumed = z.total_in;
    inflateEnd(&z);
    if (status != Z_STREAM_END) break;
    at += start + consumed + kTrailer;
    if (at >= bytes.size()) break;
  }
  return head;
}

}  // namespace accelcheck::gzip
