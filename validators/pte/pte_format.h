// The .pte / .ptd format: detection, validation and inspection entry points.
#pragma once

#include "validators/core/format.h"

namespace accelcheck::pte {

// The registered Format object for ExecuTorch programs and named-data files.
const Format& PteFormat();

}  // namespace accelcheck::pte
