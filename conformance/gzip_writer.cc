#include "conformance/gzip_writer.h"

#include <zlib.h>

#include <stdexcept>

namespace accelcheck::conformance {

namespace {

std::vector<uint8_t> RawDeflate(ByteView data) {
  z_stream z{};
  if (deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::vector<uint8_t> out(deflateBound(&z, static_cast<uLong>(data.size())));
  z.next_in = const_cast<Bytef*>(data.data());
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (status != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  return out;
}

void AppendLE32(std::vector<uint8_t>& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

}  // namespace

std::vector<uint8_t> Gzip(ByteView data) {
  // ID1 ID2 CM, FLG 0, MTIME 0, XFL 2 (slowest, best compression), OS 3.
  std::vector<uint8_t> out = {0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 2, 3};
  const std::vector<uint8_t> deflated = RawDeflate(data);
  out.insert(out.end(), deflated.begin(), deflated.end());
  AppendLE32(out, static_cast<uint32_t>(crc32_z(crc32_z(0, nullptr, 0), data.data(), data.size())));
  AppendLE32(out, static_cast<uint32_t>(data.size()));  // ISIZE, modulo 2^32
  return out;
}

}  // namespace accelcheck::conformance
