#include "conformance/pte/bases.h"

#include <nlohmann/json.hpp>

#include "conformance/pte/embedded_recipes.h"
#include "conformance/pte/recipes.h"

namespace accelcheck::pte {

// Every example is a JSON recipe: the recipe format expresses all that the
// bases need (each memory kind, both constant stores and delegate places,
// lists, named data, several plans, EXTERNAL tensors), so none is written in
// C++, and the files the suite mutates are the ones tools/examples.sh
// generates and validates.
std::vector<NamedBase> ExampleBases() {
  std::vector<NamedBase> bases;
  for (const EmbeddedRecipe& recipe : EmbeddedRecipes()) {
    RecipeFiles files = BuildRecipeFiles(nlohmann::json::parse(recipe.text));
    bases.push_back({std::string(recipe.name), std::move(files.program), std::move(files.data)});
  }
  return bases;
}

}  // namespace accelcheck::pte
