// libFuzzer target for the Gemini scheduler IR validator and the frontend IR
// rules over raw JSON bytes.
//
// Oracles besides the sanitizers: schedule_oracle.h, and the frontend
// rules' diagnostics name rules of the tables.
#include <cstddef>
#include <cstdint>

#include "fuzz/gemini/schedule_oracle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace accelcheck;
  const ByteView bytes(data, size);
  fuzz::ValidateAndSimulate(bytes);
  ValidateContext context;
  context.limits.time_budget_ms = 0;
  DiagnosticSink frontend_sink(Profile{}, "fuzz-input");
  (void)gemini::ParseFrontend(bytes, context, frontend_sink);
  fuzz::CheckDiagnostics(gemini::GeminiFormat(), frontend_sink);
  return 0;
}
