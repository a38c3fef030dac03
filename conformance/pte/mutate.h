// The .pte mutator: breaks one rule of a valid .pte (see conformance/mutator.h).
#pragma once

#include "conformance/mutator.h"

namespace accelcheck::pte {

const Mutator& PteMutator();

}  // namespace accelcheck::pte
