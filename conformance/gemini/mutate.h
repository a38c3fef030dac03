// The Gemini conformance provider (conformance/provider.h): the cases' base
// schedule with its frontend IR, and the changes of conformance/gemini/cases.cc,
// which break one rule of any valid scheduler IR that has the objects they
// edit. Rules about the frontend IR need it as a companion (--frontend).
#pragma once

#include "conformance/provider.h"

namespace accelcheck::gemini {

const conformance::Provider& GeminiConformance();

}  // namespace accelcheck::gemini
