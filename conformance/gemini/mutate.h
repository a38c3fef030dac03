// The Gemini mutator: breaks one rule of a valid scheduler IR with the change
// the conformance cases give for the rule (conformance/gemini/cases.cc), on
// any IR that has the objects the change edits. Rules about the frontend IR
// need it as a companion (--frontend).
#pragma once

#include "conformance/mutator.h"

namespace accelcheck::gemini {

const Mutator& GeminiMutator();

}  // namespace accelcheck::gemini
