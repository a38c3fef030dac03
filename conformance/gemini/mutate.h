// The Gemini conformance provider (conformance/provider.h): the cases' base
// schedule with its frontend IR, that frontend IR alone, and the changes of
// conformance/gemini/cases.cc, which break one rule of any valid scheduler IR
// or frontend IR that has the objects they edit. Rules between a schedule and
// its frontend need the frontend as a companion (--frontend); the frontend's
// own rules change the frontend, which is then the file validated.
#pragma once

#include "conformance/provider.h"

namespace accelcheck::gemini {

const conformance::Provider& GeminiConformance();

}  // namespace accelcheck::gemini
