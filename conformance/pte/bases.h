// The project's valid example programs, built with the recipe API. The
// conformance suite writes them as its valid cases and mutates them into its
// negative cases; conformance/pte/recipes/*.json describe the first five the
// same way for `accelcheck generate`.
#pragma once

#include <string>
#include <vector>

#include "conformance/pte/model.h"

namespace accelcheck::pte {

struct NamedBase {
  std::string name;
  model::File file;
};

std::vector<NamedBase> ExampleBases();

}  // namespace accelcheck::pte
