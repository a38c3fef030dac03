// The project's valid example programs: the JSON recipes of
// conformance/pte/recipes/, compiled in. The conformance suite writes them as
// its valid cases and mutates them into its negative cases; `accelcheck
// generate` builds the same files from the same recipes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "conformance/pte/model.h"

namespace accelcheck::pte {

struct NamedBase {
  std::string name;  // the recipe's file name without .json
  model::File file;
  std::optional<model::PtdFile> data;  // the companion .ptd, for EXTERNAL tensors
};

// In recipe file-name order.
std::vector<NamedBase> ExampleBases();

}  // namespace accelcheck::pte
