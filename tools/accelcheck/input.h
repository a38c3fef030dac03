// What the commands that read inputs share: reading a file or standard input
// under the resource limits, and the limit and target flags generated from
// limits.def and targets.def.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/accelcheck/options.h"
#include "validators/core/bytes.h"
#include "validators/core/compressed.h"
#include "validators/core/format.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/core/targets.h"

namespace accelcheck::cli {

// "<stdin>" for "-", otherwise `path`.
std::string DisplayName(const std::string& path);

// Reads `path` ("-": standard input) under --max-file-size, and inflates
// it when it is a gzip stream (validators/core/compressed.h). When it
// cannot, reports core.limit.max-file-size, core.io.read, core.gzip.stream
// or an inflating limit to `sink`.
std::optional<InputBuffer> ReadInput(const std::string& path, const Limits& limits,
                                     DiagnosticSink& sink);
// ReadInput, but a gzip stream whose first inflated bytes `worth` refuses is
// inflated no further: its head is what comes back (DecompressIfWorth).
std::optional<InputBuffer> ReadInput(const std::string& path, const Limits& limits,
                                     const WorthInflating& worth, DiagnosticSink& sink);

// One "--<flag> N" per row of limits.def, with its unit and default in the help.
std::vector<Flag> LimitFlags();

// LimitFlags for the commands that run what they validate (run, simulate),
// where --time-budget-ms bounds the whole command: validation and run.
std::vector<Flag> RunLimitFlags();

// Reports core.limit.time-budget-ms for a run that its deadline stopped;
// `what` is the run ("execution", "simulation").
void ReportRunOutOfTime(std::string_view what, const Limits& limits, DiagnosticSink& sink);

// Sets every limit given in `parsed`; false (with `error`) on a bad value.
bool ApplyLimitFlags(const ParsedArgs& parsed, Limits* limits, std::string* error);

// One "--<flag> N" per row of targets.def, with its format, range and default.
std::vector<Flag> TargetFlags();

// Sets every target given in `parsed`; false (with `error`) on a value that
// is not a number in the target's range.
bool ApplyTargetFlags(const ParsedArgs& parsed, Targets* targets, std::string* error);

// The context of a command on its one input file, the only positional of
// `parsed`: limits and targets from the flags, the path, the time budget
// started. False (with `error`) on a flag value out of range.
bool InputContext(const ParsedArgs& parsed, ValidateContext* context, std::string* error);

}  // namespace accelcheck::cli
