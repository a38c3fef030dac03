// The Tensil mutator: breaks one rule of a valid model (a .tmodel with the
// .tprog and .tdata it names) with the change conformance/tensil/mutations.cc
// gives for the rule, and writes the result as a bundle named after the
// output: OUT.tmodel next to OUT.tprog and OUT.tdata (and OUT.tarch when the
// rule is about the architecture file).
#pragma once

#include "conformance/mutator.h"

namespace accelcheck::tensil::conformance {

const Mutator& TensilMutator();

}  // namespace accelcheck::tensil::conformance
