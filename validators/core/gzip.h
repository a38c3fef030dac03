// Inflating a gzip stream held in memory (RFC 1952), under limits on the
// inflated size and the compression ratio, with the exact end of the first
// member: a container that pads the stream (a NEFF pads it with zeros to
// its data size) is checked after it. zlib does the inflating; the header
// and the trailer are checked here, so that a problem names its byte.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "validators/core/bytes.h"

namespace accelcheck::gzip {

// RFC 1952's identification bytes and compression method: "1f 8b 08".
bool HasMagic(ByteView bytes);

struct Limits {
  uint64_t max_inflated = uint64_t{1} << 32;  // bytes
  uint64_t max_ratio = 1000;                  // inflated bytes per compressed byte
};

enum class Problem : uint8_t {
  kNotGzip,    // no magic, or a compression method other than deflate
  kHeader,     // reserved flag bits, or an extra field or name past the end
  kTruncated,  // the deflate data or the trailer ends early
  kCorrupt,    // the deflate data does not decode
  kChecksum,   // the trailer's CRC-32 or size disagrees with the data
  kTooLarge,   // inflating would pass Limits::max_inflated
  kRatio,      // inflated bytes per compressed byte pass Limits::max_ratio
};

struct Error {
  Problem problem = Problem::kNotGzip;
  uint64_t offset = 0;  // in the compressed bytes
  std::string message;
};

struct Member {
  std::vector<uint8_t> data;  // the inflated bytes
  uint64_t end = 0;           // where the member ends in the compressed bytes
  uint8_t flags = 0;          // FLG
  uint8_t os = 0;             // OS
};

// Where the CRC-32 of the inflated bytes is computed: after inflating, or
// on a thread of its own that follows the inflating, stretch by stretch
// (when the system gives no thread, after inflating).
enum class Crc : uint8_t { kAfter, kBeside };

// From this many compressed bytes on, a thread of its own for the CRC-32
// costs less than the CRC-32 (bench/README.md "NEFF").
inline constexpr uint64_t kCrcBesideBytes = uint64_t{128} << 10;
inline Crc CrcFor(ByteView stream) {
  return stream.size() >= kCrcBesideBytes ? Crc::kBeside : Crc::kAfter;
}

struct Options {
  Crc crc = Crc::kAfter;
  // Told, now and then, how many of the bytes zlib has consumed: the caller
  // may let go of them (InputBuffer::ReleaseBefore).
  std::function<void(uint64_t consumed)> consumed = {};
};

// Inflates the first member of `bytes`; nothing, with `error`, when it is
// not a gzip member, does not decode, or passes a limit (found before the
// bytes are allocated: the output grows as it is checked).
std::optional<Member> Inflate(ByteView bytes, const Limits& limits, Error* error,
                              const Options& options = {});

// The first `max_bytes` bytes the stream inflates to (fewer when it is
// shorter), across its members, with no check past what decoding them
// needs: what detection looks at before a stream is inflated whole. Stops
// quietly where the data does not decode; Inflate reports why.
std::vector<uint8_t> InflateHead(ByteView bytes, uint64_t max_bytes);

}  // namespace accelcheck::gzip
