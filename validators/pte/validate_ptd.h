// The .ptd named-data file (docs/formats/pte.md §1.4, §4 PTE-64): FH01 header, layout
// detection, verification and the named-data rules.
#pragma once

#include <cstdint>
#include <optional>

#include "validators/core/bytes.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/pte/validate.h"

namespace accelcheck::pte {

struct PtdHeader {
  uint32_t length = 0;
  uint64_t flatbuffer_offset = 0;
  uint64_t flatbuffer_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
  uint64_t flatbuffer_end() const { return flatbuffer_offset + flatbuffer_size; }
};

// The FH01 header, or nothing (with pte.ptd.header) when its regions do
// not fit the file.
std::optional<PtdHeader> DecodePtdHeader(ByteView file, DiagnosticSink& sink);

// The pre-2025-06 FlatTensor layout, told apart by its root vtable: it has a
// field 3 (segments), which the current schema does not declare.
bool IsOldPtdLayout(ByteView flatbuffer);

// Validates a whole .ptd. Returns its verified root when the named data can
// be used to check a .pte's EXTERNAL tensors.
const flat_tensor_flatbuffer::FlatTensor* ValidatePtd(ByteView file, const Limits& limits,
                                                      DiagnosticSink& sink);

// The tensor layouts of a verified .ptd, by key.
NamedLayouts LayoutsOf(const flat_tensor_flatbuffer::FlatTensor& root);

}  // namespace accelcheck::pte
