// Reads a verified .pte back into model::File (the inverse of Serialize), and
// a verified .ptd into model::PtdFile (the inverse of SerializePtd), so that
// `accelcheck mutate` can break one rule of a real file.
#pragma once

#include <optional>
#include <string>

#include "conformance/pte/model.h"
#include "validators/core/bytes.h"

namespace accelcheck::pte {

// Nothing when the bytes do not decode (then `error` says why).
std::optional<model::File> ReadFile(ByteView bytes, std::string* error);

// The current FlatTensor layout only: a .ptd in the layout before 2025-06
// (docs/formats/pte.md §1.4) is refused, like one whose FH01 header does not fit.
std::optional<model::PtdFile> ReadPtdFile(ByteView bytes, std::string* error);

}  // namespace accelcheck::pte
