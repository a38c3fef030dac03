// The .pte container: the first 64 bytes, the eh00 extended header and the
// container rules that need only the header and the segments table.
#pragma once

#include <cstdint>
#include <optional>

#include "validators/core/bytes.h"
#include "validators/core/sink.h"

namespace executorch_flatbuffer {
struct Program;
}

namespace accelcheck::pte {

// docs/formats/pte.md §1.1. Offsets are from byte 0 of the file.
struct PteHeader {
  uint64_t file_size = 0;
  uint32_t root_offset = 0;
  bool extended = false;      // bytes 8..11 are "eh00"
  uint32_t length = 0;        // eh00 length (magic and length field included)
  uint64_t program_size = 0;  // the file size when there is no eh00
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;  // read only when length >= 32
  bool segment_data_size_known = false;
  // First byte after the padded extended header (8 without one).
  uint64_t header_end() const;
};

inline constexpr uint64_t kHeadBytes = 64;  // schema/extended_header.cpp kNumHeadBytes
inline constexpr uint64_t kSegmentAlignment = 16;
inline constexpr uint64_t kWriterSegmentAlignment = 128;

// Decodes and checks the header (PTE-1 to PTE-9). Nothing when the program bytes
// cannot be located, so that no later phase runs on them.
std::optional<PteHeader> DecodeHeader(ByteView file, DiagnosticSink& sink);

// PTE-10 to PTE-12: what needs the verified segments table as well as the header.
void CheckContainer(ByteView file, const PteHeader& header,
                    const executorch_flatbuffer::Program& program, DiagnosticSink& sink);

}  // namespace accelcheck::pte
