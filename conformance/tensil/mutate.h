// The Tensil conformance provider (conformance/provider.h): the tiny bundle as
// its base and the changes of conformance/tensil/mutations.cc as its cases. A
// case's result is a bundle named after the name it is given: OUT.tmodel
// next to OUT.tprog and OUT.tdata (and OUT.tarch when the rule is about the
// architecture file).
#pragma once

#include "conformance/provider.h"

namespace accelcheck::tensil::conformance {

const accelcheck::conformance::Provider& TensilConformance();

}  // namespace accelcheck::tensil::conformance
