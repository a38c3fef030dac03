// The pte mutator: breaks one rule of a valid .pte, or one pte.ptd.* rule of
// a valid .ptd (told apart by the FT01 identifier; see conformance/mutator.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "conformance/mutator.h"

namespace accelcheck::pte {

const ByteMutator& PteMutator();

// PteMutator().Apply that also gives the object path where the validator
// should report the broken rule (empty when the rule is about the whole file).
std::optional<std::vector<uint8_t>> MutatePte(ByteView valid, const Rule& rule, uint64_t seed,
                                              std::string* path, std::string* error);

// Rules that a program's mutation breaks only against its companion .ptd
// (docs/formats/pte.md §4 PTE-51d): the mutated .pte is valid alone, and a conformance
// case validates it with the .ptd the input came with.
bool NeedsCompanion(const Rule& rule);

// Rules that necessarily break together with `rule`, whatever the input: the
// mutation of `rule` may also report these (a conformance case lists them in
// "also"). Most rules have none.
std::vector<const Rule*> ImpliedRules(const Rule& rule);

}  // namespace accelcheck::pte
