// The JSON recipes in conformance/pte/recipes/ are the one source of the
// example programs: the library embeds them at build time and builds its
// bases from them.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "conformance/pte/bases.h"
#include "conformance/pte/embedded_recipes.h"
#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"

namespace accelcheck::pte {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<fs::path> RecipeSources() {
  std::vector<fs::path> files;
  for (const auto& entry :
       fs::directory_iterator(fs::path(ACCELCHECK_SOURCE_DIR) / "conformance/pte/recipes")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(EmbeddedRecipes, AreTheSourceFiles) {
  const std::vector<fs::path> files = RecipeSources();
  ASSERT_EQ(EmbeddedRecipes().size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(EmbeddedRecipes()[i].name, files[i].stem().string());
    EXPECT_EQ(EmbeddedRecipes()[i].text, Slurp(files[i])) << files[i];
  }
}

TEST(EmbeddedRecipes, ExampleBasesAreBuiltFromThem) {
  const std::vector<fs::path> files = RecipeSources();
  const std::vector<NamedBase> bases = ExampleBases();
  ASSERT_EQ(bases.size(), files.size());
  bool any_data = false;
  for (size_t i = 0; i < files.size(); ++i) {
    const RecipeFiles built = BuildRecipeFiles(json::parse(Slurp(files[i])));
    EXPECT_EQ(bases[i].name, files[i].stem().string());
    EXPECT_EQ(Serialize(bases[i].file), Serialize(built.program)) << files[i];
    ASSERT_EQ(bases[i].data.has_value(), built.data.has_value()) << files[i];
    if (built.data) {
      EXPECT_EQ(SerializePtd(*bases[i].data), SerializePtd(*built.data)) << files[i];
    }
    any_data = any_data || built.data.has_value();
  }
  EXPECT_TRUE(any_data) << "no recipe has EXTERNAL tensors, so the suite has no .ptd base";
}

TEST(JsonRecipes, ExternalTensorsGoToTheCompanion) {
  const RecipeFiles built = BuildRecipeFiles(json::parse(R"({"plans": [{"values": [
      {"name": "w", "tensor": {"dtype": "int", "sizes": [3], "memory": "external", "key": "k", "data": [1, 2]}}],
      "outputs": ["w"]}]})"));
  ASSERT_TRUE(built.data);
  ASSERT_EQ(built.data->named_data->size(), 1u);
  const model::PtdNamedData& entry = (*built.data->named_data)[0];
  EXPECT_EQ(*entry.key, "k");
  EXPECT_EQ(*entry.tensor_layout->sizes, (std::vector<int32_t>{3}));
  EXPECT_EQ(built.data->segment_bytes[0],
            (std::vector<uint8_t>{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0}));
  const model::Tensor& t =
      std::get<model::Tensor>((*(*built.program.program.execution_plan)[0].values)[0].val);
  ASSERT_TRUE(t.extra);
  EXPECT_EQ(t.extra->location, 1);
  EXPECT_EQ(*t.extra->fully_qualified_name, "k");
  EXPECT_FALSE(t.allocation);
}

TEST(JsonRecipes, ExternalTensorNeedsAKey) {
  EXPECT_THROW(BuildRecipeFiles(json::parse(R"({"plans": [{"values": [
      {"name": "w", "tensor": {"dtype": "float", "sizes": [1], "memory": "external"}}]}]})")),
               std::invalid_argument);
}

}  // namespace
}  // namespace accelcheck::pte
