// libFuzzer target for the Gemini scheduler IR validator and the frontend IR
// rules over raw JSON bytes.
//
// Oracles besides the sanitizers: every diagnostic names a rule of the
// tables, none is an internal error, and a schedule that validates runs
// through the simulator (which must end, deadlocked or not).
#include <cstddef>
#include <cstdint>

#include "reference_exec/gemini/simulate.h"
#include "validators/core/format.h"
#include "validators/gemini/gemini_format.h"

namespace {

using namespace accelcheck;

void CheckDiagnostics(const DiagnosticSink& sink) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == nullptr || FindRuleOf(gemini::GeminiFormat(), d.rule->id) != d.rule)
      __builtin_trap();
    if (d.rule->category == Category::kInternal) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ByteView bytes(data, size);
  ValidateContext context;
  context.limits.time_budget_ms = 0;  // libFuzzer's -timeout bounds the time
  DiagnosticSink sink(Profile{}, "fuzz-input");
  const auto ir = gemini::DecodeAndValidate(bytes, context, nullptr, sink);
  CheckDiagnostics(sink);
  if (ir && sink.blocking_count() == 0) (void)gemini::Simulate(*ir, gemini::SimulateOptions{});
  DiagnosticSink frontend_sink(Profile{}, "fuzz-input");
  (void)gemini::ParseFrontend(bytes, context, frontend_sink);
  CheckDiagnostics(frontend_sink);
  return 0;
}
