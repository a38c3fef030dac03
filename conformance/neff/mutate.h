// The NEFF mutations: each breaks one rule of validators/neff/rules.def in a
// valid NEFF, in memory. NeffConformance() gives them with the bases of
// conformance/neff/bases.h as the format's conformance provider
// (conformance/provider.h).
#pragma once

#include "conformance/provider.h"

namespace accelcheck::neff::conformance {

const accelcheck::conformance::Provider& NeffConformance();

}  // namespace accelcheck::neff::conformance
