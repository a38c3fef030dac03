// What the executors share: read a scheduler IR (and its frontend IR),
// validate it, and hand over the decoded model only when it is valid.
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

// Reports to `sink` (read failures, every validation diagnostic) and returns
// the model when the file holds no blocking diagnostic.
std::optional<LoadedIr> LoadValidIr(const std::string& path, const std::string& frontend_path,
                                    const Limits& limits, DiagnosticSink& sink);

}  // namespace accelcheck::gemini
