// Diagnostics as text for assertion messages: one line each,
// "severity [rule] path: message".
#pragma once

#include <string>

#include "validators/core/sink.h"

namespace accelcheck::test {

inline std::string Describe(const DiagnosticSink& sink) {
  std::string out;
  for (const Diagnostic& d : sink.diagnostics()) {
    out += std::string(SeverityName(d.severity)) + " [" + std::string(d.rule->id) + "] " +
           d.location.path + ": " + d.message + "\n";
  }
  return out;
}

}  // namespace accelcheck::test
