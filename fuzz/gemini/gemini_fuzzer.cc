// libFuzzer target for the Gemini scheduler IR validator and the frontend IR
// rules over raw JSON bytes, and over gzip streams of them: schedules travel
// gzipped, and a gzip stream is inflated as every command reads one
// (validators/core/compressed.h).
//
// Oracles besides the sanitizers: schedule_oracle.h, and the diagnostics of
// the format's Validate, the frontend rules and the gzip reader name rules of
// the tables.
#include <cstddef>
#include <cstdint>

#include "fuzz/gemini/schedule_oracle.h"
#include "validators/core/compressed.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace accelcheck;
  ByteView bytes(data, size);
  std::optional<InputBuffer> inflated;
  if (IsCompressed(bytes)) {
    Limits limits;
    limits.max_inflated_bytes = uint64_t{1} << 20;  // as -rss_limit_mb allows
    DiagnosticSink gzip_sink(Profile{}, "fuzz-input");
    inflated = Decompress(InputBuffer::Copy(bytes), limits, gzip_sink);
    fuzz::CheckDiagnostics(gemini::GeminiFormat(), gzip_sink);
    if (!inflated) return 0;
    bytes = inflated->bytes();
  }
  fuzz::ValidateAndSimulate(bytes);
  // The format's own entry point too, with the pass that locates findings
  // in the text (PinJsonLocations).
  (void)fuzz::Validate(gemini::GeminiFormat(), bytes);
  ValidateContext context;
  context.limits.time_budget_ms = 0;
  DiagnosticSink frontend_sink(Profile{}, "fuzz-input");
  (void)gemini::ParseFrontend(bytes, context, frontend_sink);
  fuzz::CheckDiagnostics(gemini::GeminiFormat(), frontend_sink);
  return 0;
}
