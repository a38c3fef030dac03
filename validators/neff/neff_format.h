// The NEFF format: AWS Neuron executables (docs/formats/neff.md).
#pragma once

#include "validators/core/format.h"

namespace accelcheck::neff {

const Format& NeffFormat();

}  // namespace accelcheck::neff
