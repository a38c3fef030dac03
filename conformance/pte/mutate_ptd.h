// The .ptd half of the pte mutator (conformance/pte/mutate.h dispatches to it
// on the FT01 identifier): breaks one pte.ptd.* rule of a valid .ptd.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conformance/pte/mutate.h"
#include "validators/core/bytes.h"
#include "validators/core/diagnostic.h"

namespace accelcheck::pte {

// True for a file with the .ptd identifier (FT01 at byte 4).
bool IsPtdFile(ByteView bytes);

// The pte.ptd.* rules MutatePtd can break, in rule-table order.
std::vector<const Rule*> PtdMutationRules();

// A copy of the valid .ptd `valid` that breaks `rule`, with the object path
// where the validator should report it, or the reason it cannot.
conformance::OrDeclined<ByteMutation> MutatePtd(ByteView valid, const Rule& rule, uint64_t seed);

}  // namespace accelcheck::pte
