// The Edge TPU format: DarwiNN packages inside TensorFlow Lite models.
#pragma once

#include "validators/core/format.h"

namespace accelcheck::edgetpu {

const Format& EdgetpuFormat();

}  // namespace accelcheck::edgetpu
