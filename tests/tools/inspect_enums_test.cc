// inspect prints every enum of a .pte and .ptd with its schema name beside
// its number (`scalar_type` and `scalar_type_name`), and a union's member by
// name (`type`) beside its number (`type_value`).
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/tools/cli_fixture.h"
#include "validators/core/text.h"

namespace accelcheck::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Every "<field>_name" with its "<field>" (and every union "type" with its
// "type_value"), as "field=number:name".
void CollectEnums(const json& value, std::set<std::string>* seen) {
  if (value.is_array()) {
    for (const json& item : value) CollectEnums(item, seen);
    return;
  }
  if (!value.is_object()) return;
  for (const auto& [key, item] : value.items()) {
    CollectEnums(item, seen);
    const bool named = key.size() > 5 && key.compare(key.size() - 5, 5, "_name") == 0;
    const std::string field = named ? key.substr(0, key.size() - 5) : "";
    if (named && value.contains(field)) {
      EXPECT_TRUE(value[field].is_number_integer()) << field << ": " << value.dump();
      EXPECT_TRUE(item.is_string() || item.is_null()) << key << ": " << value.dump();
      seen->insert(Str(field, "=", value[field].dump(), ":",
                       item.is_string() ? item.get<std::string>() : "null"));
    }
    if (key == "type_value") {
      EXPECT_TRUE(item.is_number_integer()) << value.dump();
      const json& name = value["type"];
      seen->insert(
          Str("type=", item.dump(), ":", name.is_string() ? name.get<std::string>() : "null"));
    }
  }
}

class InspectEnumsTest : public CliFixture {
 protected:
  InspectEnumsTest() : CliFixture("inspect_enums") {}

  // The enums `inspect` prints for the program of `recipe` (and for its .ptd, when it has one).
  std::set<std::string> EnumsOf(const std::string& recipe, bool ptd = false) {
    const std::string pte = (dir_.path() / (recipe + ".pte")).string();
    const ToolRun made =
        RunTool({"generate", "pte", "--recipe",
                 (fs::path(ACCELCHECK_SOURCE_DIR) / "conformance/pte/recipes" / (recipe + ".json"))
                     .string(),
                 "-o", pte});
    EXPECT_EQ(made.exit_code, 0) << made.err;
    const ToolRun run =
        RunTool({"inspect", ptd ? (dir_.path() / (recipe + ".ptd")).string() : pte});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    std::set<std::string> seen;
    CollectEnums(json::parse(run.out), &seen);
    return seen;
  }
};

TEST_F(InspectEnumsTest, EveryEnumOfAProgramHasItsName) {
  const std::set<std::string> everything = EnumsOf("everything");
  for (const char* expected :
       {"scalar_type=6:FLOAT", "shape_dynamism=0:STATIC", "location=1:SEGMENT", "type=1:KernelCall",
        "type=2:DelegateCall", "type=5:Tensor", "type=1:Null", "type=7:IntList",
        "type=8:DoubleList", "type=9:BoolList", "type=10:TensorList", "type=11:OptionalTensorList",
        "type=2:Int"}) {
    EXPECT_EQ(everything.count(expected), 1u)
        << expected << " in " << ::testing::PrintToString(everything);
  }
  const std::set<std::string> external = EnumsOf("external");
  for (const char* expected : {"location=1:EXTERNAL", "device_type=0:CPU"})
    EXPECT_EQ(external.count(expected), 1u)
        << expected << " in " << ::testing::PrintToString(external);
}

TEST_F(InspectEnumsTest, TheNamedDataTensorsHaveTheirScalarTypeNamed) {
  EXPECT_EQ(EnumsOf("external", true).count("scalar_type=6:FLOAT"), 1u);
}

}  // namespace
}  // namespace accelcheck::testing
