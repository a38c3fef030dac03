// The .pte container: head bytes, identifier, eh00 header, root offset (§4 A).
#include "validators/pte/decode_header.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/pte/rules.h"
#include "validators/pte/schema/program_generated.h"

namespace accelcheck::pte {

uint64_t PteHeader::header_end() const {
  return extended ? 8 + AlignUp(length, kSegmentAlignment) : 8;
}

namespace {

// docs/formats/pte.md §4 PTE-1: the loader reads 64 head bytes before anything else.
bool CheckSize(ByteView file, DiagnosticSink& sink) {
  if (file.size() >= kHeadBytes) return true;
  sink.Report(rules::kFileTooSmall, Location{0, file.size(), ""},
              Str("file size ", Hex(file.size()), " is below the ", Hex(kHeadBytes),
                  " head bytes the loader reads"));
  return false;
}

// PTE-2: exactly ET12; "ET??" is a version this tool (and the runtime) rejects.
bool CheckIdentifier(ByteView file, DiagnosticSink& sink) {
  if (HasBytesAt(file, 4, "ET12")) return true;
  const std::string_view found(reinterpret_cast<const char*>(file.data() + 4), 4);
  if (HasBytesAt(file, 4, "ET")) {
    sink.Report(rules::kFileVersion, Location{4, 4, ""},
                Str("file identifier ", Quoted(found), " is not the supported version \"ET12\""));
  } else {
    sink.Report(rules::kFileIdentifier, Location{4, 4, ""},
                Str("file identifier ", Quoted(found), " is not \"ET12\""));
  }
  return false;
}

// PTE-4: "eh" followed by other digits is silently ignored by the runtime.
void CheckMagic(ByteView file, DiagnosticSink& sink) {
  if (HasBytesAt(file, 8, "eh") && !HasBytesAt(file, 8, "eh00")) {
    const std::string_view found(reinterpret_cast<const char*>(file.data() + 8), 4);
    sink.Report(rules::kHeaderMagic, Location{8, 4, "extended_header.magic"},
                Str("extended header magic ", Quoted(found),
                    " is not \"eh00\"; the runtime treats the file as having no header"));
  }
}

// PTE-5: the runtime needs 24 bytes; writers always write 32.
bool CheckLength(const PteHeader& h, DiagnosticSink& sink) {
  if (h.length < 24) {
    sink.Report(rules::kHeaderLength, Location{12, 4, "extended_header.length"},
                Str("extended header length ", Hex(h.length), " is below the minimum 0x18"));
    return false;
  }
  if (h.length != 32) {
    sink.Report(
        rules::kHeaderLengthNonstandard, Location{12, 4, "extended_header.length"},
        Str("extended header length ", Hex(h.length), " is not 0x20, the length writers produce"));
  }
  return true;
}

// PTE-6, PTE-7: program_size covers the headers and fits in the file.
bool CheckProgramSize(const PteHeader& h, DiagnosticSink& sink) {
  if (h.program_size > h.file_size) {
    sink.Report(rules::kProgramSize, Location{16, 8, "extended_header.program_size"},
                Str("program_size ", Hex(h.program_size), " exceeds file size ", Hex(h.file_size),
                    "; the file looks truncated"));
    return false;
  }
  if (h.program_size < 8 + h.length) {
    sink.Report(rules::kProgramSize, Location{16, 8, "extended_header.program_size"},
                Str("program_size ", Hex(h.program_size), " is smaller than the headers (",
                    Hex(8 + h.length), " bytes)"));
    return false;
  }
  return true;
}

// PTE-7 to PTE-9: the segment region starts after the program, aligned, and fits.
void CheckSegmentBase(const PteHeader& h, DiagnosticSink& sink) {
  const uint64_t base = h.segment_base_offset;
  if (base != 0 && base < h.program_size) {
    sink.Report(rules::kSegmentBaseBeforeProgram,
                Location{24, 8, "extended_header.segment_base_offset"},
                Str("segment_base_offset ", Hex(base), " lies inside the program bytes [0, ",
                    Hex(h.program_size), ")"));
  }
  if (base % kSegmentAlignment != 0) {
    sink.Report(rules::kSegmentBaseAlign, Location{24, 8, "extended_header.segment_base_offset"},
                Str("segment_base_offset ", Hex(base), " is not a multiple of 0x10"));
  } else if (base % kWriterSegmentAlignment != 0) {
    sink.Report(rules::kSegmentBaseAlign128, Location{24, 8, "extended_header.segment_base_offset"},
                Str("segment_base_offset ", Hex(base), " is not a multiple of 0x80"));
  }
  const auto end = CheckedAdd(base, h.segment_data_size);
  if (!end) {
    sink.Report(rules::kSegmentDataBounds, Location{24, 16, "extended_header.segment_data_size"},
                Str("segment_base_offset ", Hex(base), " + segment_data_size ",
                    Hex(h.segment_data_size), " overflows"));
  } else if (*end > h.file_size) {
    sink.Report(rules::kSegmentDataBounds, Location{24, 16, "extended_header.segment_data_size"},
                Str("segment_base_offset ", Hex(base), " + segment_data_size ",
                    Hex(h.segment_data_size), " = ", Hex(*end), " exceeds file size ",
                    Hex(h.file_size), "; the file looks truncated"));
  }
}

// PTE-3: Minimal verification, plus (strict) not inside the extended header.
bool CheckRootOffset(const PteHeader& h, DiagnosticSink& sink) {
  const uint64_t root = h.root_offset;
  if (root < 8 || root + 4 > h.program_size) {
    sink.Report(rules::kRootOffset, Location{0, 4, "root"},
                Str("root table offset ", Hex(root), " lies outside [0x8, program_size ",
                    Hex(h.program_size), " - 0x4]"));
    return false;
  }
  if (root < h.header_end()) {
    sink.Report(rules::kRootOffset, Location{0, 4, "root"},
                Str("root table offset ", Hex(root), " lies inside the extended header [0x8, ",
                    Hex(h.header_end()), ")"));
    return false;
  }
  return true;
}

// The first non-zero byte of [begin, end), clamped to the file.
std::optional<uint64_t> FirstNonZero(ByteView file, uint64_t begin, uint64_t end) {
  end = std::min<uint64_t>(end, file.size());
  for (uint64_t i = begin; i < end; ++i) {
    if (file[i] != 0) return i;
  }
  return std::nullopt;
}

void ReportPadding(ByteView file, uint64_t begin, uint64_t end, std::string_view what,
                   DiagnosticSink& sink) {
  if (auto at = FirstNonZero(file, begin, end)) {
    sink.Report(rules::kPaddingNonzero, Location{*at, 1, ""},
                Str("byte ", Hex(*at), " in the padding ", what, " [", Hex(begin), ", ", Hex(end),
                    ") is ", Hex(file[*at]), ", not 0"));
  }
}

// PTE-12: without eh00 the segment base is 0, so segment data would be read
// from inside the flatbuffer.
void CheckSegmentsNeedHeader(const PteHeader& h, const executorch_flatbuffer::Program& program,
                             ByteView file, DiagnosticSink& sink) {
  const auto* segments = program.segments();
  if (h.extended || segments == nullptr) return;
  for (uint32_t i = 0; i < segments->size(); ++i) {
    const auto* s = segments->Get(i);
    if (s->size() == 0) continue;
    sink.Report(rules::kSegmentWithoutHeader,
                Location{static_cast<uint64_t>(reinterpret_cast<const uint8_t*>(s) - file.data()),
                         std::nullopt, Str("segments[", i, "]")},
                Str("segment ", i, " holds ", Hex(s->size()),
                    " bytes but the file has no extended header"));
  }
}

// The end of the data the writer produced: the last segment, else the program.
uint64_t DataEnd(const PteHeader& h, const executorch_flatbuffer::Program& program) {
  if (!h.extended || h.segment_base_offset == 0) return h.program_size;
  if (h.segment_data_size_known) {
    return CheckedAdd(h.segment_base_offset, h.segment_data_size).value_or(h.file_size);
  }
  uint64_t end = h.segment_base_offset;
  if (const auto* segments = program.segments()) {
    for (const auto* s : *segments) {
      const auto e = CheckedAdd(s->offset(), s->size());
      const auto abs = e ? CheckedAdd(h.segment_base_offset, *e) : std::nullopt;
      end = std::max(end, abs.value_or(h.file_size));
    }
  }
  return end;
}

// PTE-10: writers end the file at the last segment (or at the program).
void CheckTrailingBytes(const PteHeader& h, const executorch_flatbuffer::Program& program,
                        DiagnosticSink& sink) {
  const uint64_t end = DataEnd(h, program);
  if (h.file_size > end) {
    sink.Report(rules::kTrailingBytes, Location{end, h.file_size - end, ""},
                Str(Hex(h.file_size - end), " bytes follow the end of the data at ", Hex(end),
                    " (file size ", Hex(h.file_size), ")"));
  }
}

// PTE-11: the writer zero-fills the header padding, the gap before the segment
// base and the gaps between segments. Padding is the bytes no segment
// covers, in whatever order the segments are listed (pte.segment.order
// reports the order).
void CheckPadding(ByteView file, const PteHeader& h, const executorch_flatbuffer::Program& program,
                  DiagnosticSink& sink) {
  if (!h.extended) return;
  ReportPadding(file, 8 + h.length, h.header_end(), "after the extended header", sink);
  if (h.segment_base_offset <= h.program_size) return;
  ReportPadding(file, h.program_size, h.segment_base_offset, "before the segment base", sink);
  const auto* segments = program.segments();
  if (segments == nullptr) return;
  std::vector<std::pair<uint64_t, uint64_t>> covered;  // [offset, end) from the segment base
  covered.reserve(segments->size());
  for (const auto* s : *segments) {
    const auto end = CheckedAdd(s->offset(), s->size());
    if (!end) return;  // pte.segment.overflow
    covered.emplace_back(s->offset(), *end);
  }
  std::sort(covered.begin(), covered.end());
  uint64_t previous_end = 0;
  for (const auto& [begin, end] : covered) {
    if (begin > previous_end) {
      const auto gap_begin = CheckedAdd(h.segment_base_offset, previous_end);
      const auto gap_end = CheckedAdd(h.segment_base_offset, begin);
      if (!gap_begin || !gap_end) return;
      ReportPadding(file, *gap_begin, *gap_end, "between segments", sink);
    }
    previous_end = std::max(previous_end, end);
  }
}

}  // namespace

std::optional<PteHeader> DecodeHeader(ByteView file, DiagnosticSink& sink) {
  if (!CheckSize(file, sink) || !CheckIdentifier(file, sink)) return std::nullopt;
  PteHeader h;
  h.file_size = file.size();
  h.root_offset = *ReadLE<uint32_t>(file, 0);
  h.program_size = file.size();
  CheckMagic(file, sink);
  if (HasBytesAt(file, 8, "eh00")) {
    h.extended = true;
    h.length = *ReadLE<uint32_t>(file, 12);
    if (!CheckLength(h, sink)) return std::nullopt;
    h.program_size = *ReadLE<uint64_t>(file, 16);
    h.segment_base_offset = *ReadLE<uint64_t>(file, 24);
    // Older 24-byte headers have no segment_data_size (extended_header.cpp).
    h.segment_data_size_known = h.length >= 32;
    if (h.segment_data_size_known) h.segment_data_size = *ReadLE<uint64_t>(file, 32);
    const bool size_ok = CheckProgramSize(h, sink);
    CheckSegmentBase(h, sink);
    if (!size_ok) return std::nullopt;
  }
  if (!CheckRootOffset(h, sink)) return std::nullopt;
  return h;
}

void CheckContainer(ByteView file, const PteHeader& header,
                    const executorch_flatbuffer::Program& program, DiagnosticSink& sink) {
  CheckSegmentsNeedHeader(header, program, file, sink);
  CheckTrailingBytes(header, program, sink);
  CheckPadding(file, header, program, sink);
}

}  // namespace accelcheck::pte
