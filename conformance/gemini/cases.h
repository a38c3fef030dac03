// The Gemini conformance cases: a schedule from the reference scheduler and
// one change of it per rule, each naming the rule and the JSON pointer the
// validator must report.
#pragma once

#include <string>
#include <vector>

#include "conformance/provider.h"

namespace accelcheck::gemini {

// The base: two layers on a 2x1 mesh, so that cores forward to each other.
std::string CaseBaseIr();
std::string CaseBaseFrontend();

// One case per rule of validators/gemini/rules.def, in table order. A case
// applies to any IR that has the objects its change edits.
const std::vector<conformance::MutationCase>& MutationCases();

// The cases of the SET dialect's rules (set_cases.cc), which MutationCases
// ends with: they decline on IRs of the Gemini dialect, and its cases on
// SET-dialect IRs.
std::vector<conformance::MutationCase> SetMutationCases();

}  // namespace accelcheck::gemini
