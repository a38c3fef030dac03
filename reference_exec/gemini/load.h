// What the executors share: read a scheduler IR (and its frontend IR),
// validate it, and hand over the decoded model only when it is valid (or,
// when asked, whenever it decodes).
#pragma once

#include <optional>
#include <string>

#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/gemini/frontend.h"
#include "validators/gemini/model.h"

namespace accelcheck::gemini {

struct LoadedIr {
  Ir ir;
  std::optional<Frontend> frontend;
};

struct LoadOptions {
  Limits limits;
  // The command's --time-budget-ms, started before the file is read: it
  // bounds the validation here and the run after it.
  Deadline deadline{0};
  // Hand over an IR that decodes but breaks rules (simulate --allow-invalid).
  bool allow_invalid = false;
};

// An IR of the SET generator's dialect is validated as one and handed over in
// the Gemini tables (LowerSetIr), with one tile per workload when a frontend
// IR gives its layers.
// Reports to `sink` (read failures, every validation diagnostic) and returns
// the model when the file holds no blocking diagnostic, or with
// `allow_invalid` when it decodes. A frontend that cannot be used and a limit
// hit while validating give nothing either way.
std::optional<LoadedIr> LoadIr(const std::string& path, const std::string& frontend_path,
                               const LoadOptions& options, DiagnosticSink& sink);

// LoadIr of a valid IR, with the time budget of `limits` started now.
std::optional<LoadedIr> LoadValidIr(const std::string& path, const std::string& frontend_path,
                                    const Limits& limits, DiagnosticSink& sink);

}  // namespace accelcheck::gemini
