// Streaming decode of a Gemini scheduler IR document into the typed tables of
// model.h (docs/formats/gemini.md §2), reporting syntax, type and key problems.
#pragma once

#include <optional>
#include <string_view>

#include "validators/core/bytes.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/gemini/model.h"

namespace accelcheck::gemini {

// False when the text could not be decoded to the end (a syntax error or a
// limit): later phases must not run. Key and type problems are reported and
// the decode goes on; callers gate on sink.blocking_count(). When `input`
// holds `text` as a file mapping, the pages decoded are let go as the decoder
// passes them, so memory stays near the size of the tables.
bool DecodeIr(ByteView text, const Limits& limits, DiagnosticSink& sink, Ir* ir,
              const InputBuffer* input = nullptr);

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
