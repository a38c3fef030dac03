// The .pte mutator: breaks one rule of a valid .pte (see conformance/mutator.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "conformance/mutator.h"

namespace accelcheck::pte {

const Mutator& PteMutator();

// PteMutator().Apply that also gives the object path where the validator
// should report the broken rule (empty when the rule is about the whole file).
std::optional<std::vector<uint8_t>> MutatePte(ByteView valid, const Rule& rule, uint64_t seed,
                                              std::string* path, std::string* error);

// Rules that necessarily break together with `rule` and count as errors only
// under --strict (their default severity is below error).
std::vector<const Rule*> ImpliedStrictRules(const Rule& rule);

}  // namespace accelcheck::pte
