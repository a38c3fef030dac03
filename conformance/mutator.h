// Mutators: for a format, the rules it can break on purpose. `accelcheck
// mutate`, the conformance cases, the property tests and the fuzz seeds use
// them. Each mutation breaks exactly one rule of a valid input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/diagnostic.h"

namespace accelcheck {

class Mutator {
 public:
  virtual ~Mutator() = default;
  virtual std::string_view format() const = 0;
  // Every rule this mutator can break, in rule-table order.
  virtual std::vector<const Rule*> rules() const = 0;
  // A copy of `valid` that breaks `rule` and no other rule with error
  // severity, or nothing when this input offers no place to break it (then
  // `error` says why). `seed` picks among the places when there are several.
  // A rule between two files (a .pte and its .ptd) breaks when the copy is
  // validated with the companion file `valid` came with.
  virtual std::optional<std::vector<uint8_t>> Apply(ByteView valid, const Rule& rule, uint64_t seed,
                                                    std::string* error) const = 0;
};

const Mutator* FindMutator(std::string_view format_id);

}  // namespace accelcheck
