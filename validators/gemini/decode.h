// Streaming decode of a Gemini scheduler IR document into the typed tables of
// model.h (docs/formats/gemini.md §2), reporting syntax, type and key problems.
#pragma once

#include <optional>
#include <string_view>

#include "validators/core/bytes.h"
#include "validators/core/json_decoder.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/gemini/model.h"

namespace accelcheck::gemini {

// False when the text could not be decoded to the end (a syntax error or a
// limit): later phases must not run. Key and type problems are reported and
// the decode goes on; callers gate on sink.blocking_count(). When `input`
// holds `text` as a file mapping, the pages decoded are let go as the decoder
// passes them, so memory stays near the size of the tables.
// A document of 32 MiB or more is decoded in two halves at once, split at
// the CoreListBoundary past its middle: the first half's reader confirms
// that the split is a member boundary of the root object when it gets there
// and takes the second half's tables, with the same tables and diagnostics
// as one reader would give; otherwise it reads on alone.
bool DecodeIr(ByteView text, const Limits& limits, DiagnosticSink& sink, Ir* ir,
              const InputBuffer* input = nullptr);

// The ',' before the first member "<digits>": [{ at or after `from`: a likely
// boundary between two core lists, or nothing.
std::optional<uint64_t> CoreListBoundary(ByteView text, uint64_t from);

// DecodeIr split at `split`, whatever the document's size (for tests and the
// fuzzers' differential oracle); `taken`, when given, says whether the
// second half's tables were taken.
bool DecodeIrInTwo(ByteView text, uint64_t split, const Limits& limits, DiagnosticSink& sink,
                   Ir* ir, const InputBuffer* input = nullptr, bool* taken = nullptr);

// What the decoders of both dialects read alike: a layer name, interned, and
// a range [[lower], [upper]].
bool ReadLayer(JsonDecoder& decoder, LayerTable& layers, uint32_t* out);
bool ReadRangePair(JsonDecoder& decoder, Range* out);

// A core key: "0", "12", a decimal id without sign or leading zero.
std::optional<int64_t> CoreKey(std::string_view key);

// The first 4 KiB of `text` when it opens a JSON object (after whitespace),
// else nothing: what the cheap content tests below look at.
std::optional<std::string_view> JsonObjectHead(ByteView text);

// A cheap content test: a JSON object whose first key is one of the IR's
// top-level keys, and that names "buffersize" and "top_batch_cut" early.
bool LooksLikeIr(ByteView text);

// The scheduler IR of the SET generator (docs/formats/gemini.md §3): buffer
// entries with `block` addresses, a `priority` and loading flags early in
// the text.
bool LooksLikeSetIr(ByteView text);

}  // namespace accelcheck::gemini
