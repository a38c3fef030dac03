// Writes model::File / model::PtdFile as bytes, laid out like the ExecuTorch
// writer (exir/_serialize/_program.py, extension/flat_tensor/serialize).
#pragma once

#include <cstdint>
#include <vector>

#include "conformance/pte/model.h"

namespace accelcheck::pte {

// Recomputes program.segments from segment_bytes the way the writer does:
// each segment at the next multiple of `segment_alignment` (relative to the
// segment base), sized to its bytes.
void LayoutSegments(model::File& file);

// The file bytes: flatbuffer (identifier ET12), the eh00 header inserted after
// byte 8 when wanted, zero padding to segment_base_offset = align_up(program
// size, segment_alignment), then each segment's bytes at its offset.
std::vector<uint8_t> Serialize(const model::File& file);

// The .ptd bytes: flatbuffer with the FH01 header, then the segments.
std::vector<uint8_t> SerializePtd(const model::PtdFile& file);

// The same for the .ptd layout before 2025-06 (flat_tensor_v0.fbs).
std::vector<uint8_t> SerializeOldPtd(const model::OldPtdFile& file);

}  // namespace accelcheck::pte
