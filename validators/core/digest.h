// MD5 (RFC 1321) and SHA-256 (FIPS 180-4) of bytes in memory: the checksums
// a container stores over its payload (a NEFF's header holds one of them).
// They detect corruption; neither is used here as a signature.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "validators/core/bytes.h"

namespace accelcheck::digest {

using Md5 = std::array<uint8_t, 16>;
using Sha256 = std::array<uint8_t, 32>;

Md5 ComputeMd5(ByteView bytes);
Sha256 ComputeSha256(ByteView bytes);

// Lowercase hex of `bytes`, in order.
std::string HexOf(ByteView bytes);

}  // namespace accelcheck::digest
