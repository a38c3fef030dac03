// What both Gemini fuzz targets check of a scheduler IR of either dialect:
// every diagnostic names a rule of the tables and none is internal, and a
// schedule that validates runs through the simulator, which must end,
// deadlocked or not (a SET-dialect IR in the Gemini tables, LowerSetIr).
// A Gemini-dialect IR decoded in two halves (DecodeIrInTwo, as large files
// are) gives what one reader gives.
#pragma once

#include <algorithm>
#include <optional>

#include "fuzz/fuzz_oracles.h"
#include "reference_exec/gemini/simulate.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/gemini_format.h"
#include "validators/gemini/set_lower.h"

namespace accelcheck::fuzz {

inline bool SameDiagnostics(const DiagnosticSink& a, const DiagnosticSink& b) {
  return std::equal(a.diagnostics().begin(), a.diagnostics().end(), b.diagnostics().begin(),
                    b.diagnostics().end(), [](const Diagnostic& x, const Diagnostic& y) {
                      return x.rule == y.rule && x.location.offset == y.location.offset &&
                             x.location.path == y.location.path && x.message == y.message;
                    });
}

inline void CheckDecodeInTwo(ByteView bytes, const Limits& limits) {
  const auto split = gemini::CoreListBoundary(bytes, bytes.size() / 2);
  if (!split) return;
  DiagnosticSink one(Profile{}, "fuzz-input");
  DiagnosticSink two(Profile{}, "fuzz-input");
  gemini::Ir whole, halves;
  const bool read_whole = gemini::DecodeIr(bytes, limits, one, &whole);
  const bool read_halves = gemini::DecodeIrInTwo(bytes, *split, limits, two, &halves);
  if (read_whole != read_halves || !SameDiagnostics(one, two) || whole.layers != halves.layers ||
      whole.cores.size() != halves.cores.size() || whole.buffersize != halves.buffersize) {
    __builtin_trap();
  }
}

inline void ValidateAndSimulate(ByteView bytes) {
  ValidateContext context;
  context.limits.time_budget_ms = 0;  // libFuzzer's -timeout bounds the time
  DiagnosticSink sink(Profile{}, "fuzz-input");
  std::optional<gemini::Ir> ir;
  if (gemini::LooksLikeSetIr(bytes)) {
    const auto set_ir = gemini::DecodeAndValidateSet(bytes, context, nullptr, sink);
    if (set_ir && sink.blocking_count() == 0) ir = gemini::LowerSetIr(*set_ir);
  } else {
    ir = gemini::DecodeAndValidate(bytes, context, nullptr, sink);
    CheckDecodeInTwo(bytes, context.limits);
  }
  CheckDiagnostics(gemini::GeminiFormat(), sink);
  if (ir && sink.blocking_count() == 0) (void)gemini::Simulate(*ir, gemini::SimulateOptions{});
}

}  // namespace accelcheck::fuzz
