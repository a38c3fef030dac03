# cmake -DRECIPE_DIR=DIR -DOUTPUT=FILE -P EmbedRecipes.cmake
# Writes FILE, a C++ source that holds the text of every DIR/*.json recipe as
# a raw string literal, in file-name order. conformance/CMakeLists.txt runs it
# at build time whenever a recipe changes, so the JSON files stay the one
# source of the example programs.
file(GLOB recipes ${RECIPE_DIR}/*.json)
list(SORT recipes)
set(entries "")
foreach(recipe IN LISTS recipes)
  get_filename_component(name ${recipe} NAME_WE)
  file(READ ${recipe} text)
  string(FIND "${text}" ")recipe\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${recipe} contains the raw string delimiter )recipe\"")
  endif()
  string(APPEND entries "      {\"${name}\", R\"recipe(${text})recipe\"},\n")
endforeach()
file(WRITE ${OUTPUT}.tmp
"// Generated from conformance/pte/recipes/*.json by EmbedRecipes.cmake.
#include \"conformance/pte/embedded_recipes.h\"

namespace accelcheck::pte {

const std::vector<EmbeddedRecipe>& EmbeddedRecipes() {
  static const std::vector<EmbeddedRecipe> kRecipes = {
${entries}  };
  return kRecipes;
}

}  // namespace accelcheck::pte
")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
