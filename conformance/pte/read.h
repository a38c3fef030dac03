// Reads a verified .pte back into model::File (the inverse of Serialize), so
// that `accelcheck mutate` can break one rule of a real file.
#pragma once

#include <optional>
#include <string>

#include "conformance/pte/model.h"
#include "validators/core/bytes.h"

namespace accelcheck::pte {

// Nothing when the bytes do not decode (then `error` says why).
std::optional<model::File> ReadFile(ByteView bytes, std::string* error);

}  // namespace accelcheck::pte
