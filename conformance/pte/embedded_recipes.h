// The JSON recipes of conformance/pte/recipes/, compiled into the library
// (conformance/pte/EmbedRecipes.cmake), so that the example bases and the
// files `accelcheck generate` writes from those recipes come from one source.
#pragma once

#include <string_view>
#include <vector>

namespace accelcheck::pte {

struct EmbeddedRecipe {
  std::string_view name;  // the file name without .json
  std::string_view text;  // the JSON
};

// In file-name order.
const std::vector<EmbeddedRecipe>& EmbeddedRecipes();

}  // namespace accelcheck::pte
