// Exact locations in JSON inputs (docs/ARCHITECTURE.md "Diagnostics"): a rule
// that checks a member of an object knows the object's offset and the
// member's JSON pointer, not where the member's value starts. After a JSON
// document is validated, its diagnostics are moved to the value their pointer
// names, given that value's length, and given the line and column a text
// editor shows.
#pragma once

#include <span>
#include <string_view>

#include "validators/core/bytes.h"
#include "validators/core/diagnostic.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"

namespace accelcheck {

// Pins the diagnostics located in `text` (those whose `member` is `member`;
// "" for the input itself): each one without a length whose pointer names a
// value at or after its offset moves to that value, with its length; then
// every one with an offset gets its line and column. Malformed-category
// diagnostics keep their offsets (they point at the bytes that do not parse).
// One pass over the text, skipping every subtree no pointer enters; `input`,
// when it holds the text, drops the pages passed (JsonReader).
void PinJsonLocations(ByteView text, std::string_view member, const Limits& limits,
                      std::span<Diagnostic> diagnostics, const InputBuffer* input = nullptr);

// Reports to `sink` what a JSON companion's own checks found (`problems`, a
// sink named after the companion), located in the companion: each problem is
// pinned in `text` and names `path` as its member, so that a report shows the
// companion's file, line and column, not the input that named it.
void ReportCompanionProblems(ByteView text, const std::string& path, const Limits& limits,
                             DiagnosticSink& problems, DiagnosticSink& sink);

// The 1-based line and column (in Unicode code points) of each offset in
// `offsets`, which must be sorted; one pass over the text up to the last.
struct TextPosition {
  uint64_t line = 0;
  uint64_t column = 0;
};
void TextPositions(ByteView text, std::span<const uint64_t> offsets,
                   std::span<TextPosition> positions, const InputBuffer* input = nullptr);

}  // namespace accelcheck
