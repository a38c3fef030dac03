// Writing gzip streams (RFC 1952) for the files the suite builds: a NEFF's
// payload, and the compressed inputs every format is read from
// (docs/ARCHITECTURE.md "Compressed inputs").
#pragma once

#include <cstdint>
#include <vector>

#include "validators/core/bytes.h"

namespace accelcheck::conformance {

// One gzip member of `data`: no name, mtime 0, XFL 2, OS 3 (Unix), deflated
// at level 9.
std::vector<uint8_t> Gzip(ByteView data);

}  // namespace accelcheck::conformance
