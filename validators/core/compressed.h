// Inputs that travel compressed (docs/ARCHITECTURE.md "Compressed inputs"):
// a file that is a gzip stream, found by its magic bytes and not by its
// name, is inflated under --max-inflated-bytes and --max-compression-ratio,
// every member of it as gzip -d reads them, and the formats read the
// inflated bytes.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "validators/core/bytes.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"

namespace accelcheck {

// True when `file` starts with gzip's identification bytes "1f 8b".
bool IsCompressed(ByteView file);

// The inflated bytes of the gzip stream `file`. Nothing when a member does
// not decode, bytes other than another member follow one, or a limit is
// passed, each reported to `sink` at its offset in `file`. On success a
// note tells that the offsets of later findings are in the inflated bytes.
// The bytes are discardable (InputBuffer::AdoptDiscardable): they keep
// `file` to inflate it again when a reader needs what it discarded.
std::optional<InputBuffer> Decompress(InputBuffer file, const Limits& limits, DiagnosticSink& sink);

// Whether a stream whose inflated bytes begin with `head` (its first
// kDetectionBytes, or all of them when fewer) is worth inflating whole:
// false when no format can take it.
using WorthInflating = std::function<bool(ByteView head)>;

// Decompress, but a stream that `worth` refuses by its first inflated bytes
// is inflated no further: its head comes back, with a note that says so, so
// that a file of no format costs a few KB whatever it inflates to.
std::optional<InputBuffer> DecompressIfWorth(InputBuffer file, const Limits& limits,
                                             const WorthInflating& worth, DiagnosticSink& sink);

// Reads the file `path` under --max-file-size and inflates it when it is a
// gzip stream. Nothing when it cannot: core.io.read, or the stream's or a
// limit's rule, reported to `sink` (what the reference executors load
// their models with).
std::optional<InputBuffer> ReadModelFile(const std::string& path, const Limits& limits,
                                         DiagnosticSink& sink);

}  // namespace accelcheck
