// What both Gemini fuzz targets check of a scheduler IR of either dialect:
// every diagnostic names a rule of the tables and none is internal, and a
// schedule that validates runs through the simulator, which must end,
// deadlocked or not (a SET-dialect IR in the Gemini tables, LowerSetIr).
#pragma once

#include <optional>

#include "fuzz/fuzz_oracles.h"
#include "reference_exec/gemini/simulate.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/gemini_format.h"
#include "validators/gemini/set_lower.h"

namespace accelcheck::fuzz {

inline void ValidateAndSimulate(ByteView bytes) {
  ValidateContext context;
  context.limits.time_budget_ms = 0;  // libFuzzer's -timeout bounds the time
  DiagnosticSink sink(Profile{}, "fuzz-input");
  std::optional<gemini::Ir> ir;
  if (gemini::LooksLikeSetIr(bytes)) {
    const auto set_ir = gemini::DecodeAndValidateSet(bytes, context, sink);
    if (set_ir && sink.blocking_count() == 0) ir = gemini::LowerSetIr(*set_ir);
  } else {
    ir = gemini::DecodeAndValidate(bytes, context, nullptr, sink);
  }
  CheckDiagnostics(gemini::GeminiFormat(), sink);
  if (ir && sink.blocking_count() == 0) (void)gemini::Simulate(*ir, gemini::SimulateOptions{});
}

}  // namespace accelcheck::fuzz
