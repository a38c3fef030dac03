// What both Gemini fuzz targets check of a scheduler IR of either dialect:
// every diagnostic names a rule of the tables and none is internal, and a
// schedule that validates runs through the simulator, which must end,
// deadlocked or not (a SET-dialect IR in the Gemini tables, LowerSetIr).
// A Gemini-dialect IR decoded in two halves (DecodeIrInTwo, as large files
// are) gives what one reader gives. A schedule that decodes is validated
// again with the frontend IR of the conformance suite's base of its dialect,
// which the suite's mutants and their descendants were made from, so that the
// checks against a frontend IR (docs/formats/gemini.md §5, I-F) run on fuzzed
// schedules too.
#pragma once

#include <algorithm>
#include <optional>

#include "conformance/gemini/cases.h"
#include "conformance/gemini/set_generate.h"
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

// The frontend IR of the suite's base of one dialect.
inline const gemini::Frontend& BaseFrontend(bool set_dialect) {
  static const auto parse = [](const std::string& text) {
    DiagnosticSink sink(Profile{}, "base-frontend");
    auto frontend = gemini::ParseFrontend(AsBytes(text), ValidateContext{}, sink);
    if (!frontend) __builtin_trap();  // the suite's bases are valid
    return *frontend;
  };
  static const gemini::Frontend gemini_base = parse(gemini::CaseBaseFrontend());
  static const gemini::Frontend set_base = parse(gemini::CaseBaseSetFrontend());
  return set_dialect ? set_base : gemini_base;
}

inline void ValidateAgainstBaseFrontend(ByteView bytes, bool set_dialect,
                                        const ValidateContext& context) {
  DiagnosticSink sink(Profile{}, "fuzz-input");
  const gemini::Frontend& frontend = BaseFrontend(set_dialect);
  if (set_dialect) {
    (void)gemini::DecodeAndValidateSet(bytes, context, &frontend, sink);
  } else {
    (void)gemini::DecodeAndValidate(bytes, context, &frontend, sink);
  }
  CheckDiagnostics(gemini::GeminiFormat(), sink);
}

inline void ValidateAndSimulate(ByteView bytes) {
  ValidateContext context;
  context.limits.time_budget_ms = 0;  // libFuzzer's -timeout bounds the time
  DiagnosticSink sink(Profile{}, "fuzz-input");
  std::optional<gemini::Ir> ir;
  const bool set_dialect = gemini::LooksLikeSetIr(bytes);
  bool decoded = false;
  if (set_dialect) {
    const auto set_ir = gemini::DecodeAndValidateSet(bytes, context, nullptr, sink);
    decoded = set_ir.has_value();
    if (set_ir && sink.blocking_count() == 0) ir = gemini::LowerSetIr(*set_ir);
  } else {
    ir = gemini::DecodeAndValidate(bytes, context, nullptr, sink);
    decoded = ir.has_value();
    CheckDecodeInTwo(bytes, context.limits);
  }
  CheckDiagnostics(gemini::GeminiFormat(), sink);
  if (decoded) ValidateAgainstBaseFrontend(bytes, set_dialect, context);
  if (ir && sink.blocking_count() == 0) (void)gemini::Simulate(*ir, gemini::SimulateOptions{});
}

}  // namespace accelcheck::fuzz
