// accelcheck run on a .pte, end to end: inputs matched to the plan in order
// and checked, outputs written as .npy or printed exactly, the named data
// found beside the program, the aliasing oracle's report and exit code, and
// the refusals (a program that does not validate, a delegate, a limit).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "tests/tools/tool_runner.h"
#include "validators/core/npy.h"

namespace accelcheck {
namespace {

using nlohmann::json;
using testing::RunTool;
using testing::TempDir;

constexpr npy::DType kFloat32{npy::Kind::kFloat, 4, false};

// s = x + y; p = x * y; z = s + p, and the count of elements of x.
json SumAndProduct() {
  return json::parse(R"({"plans": [{"name": "forward",
    "values": [{"name": "x", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "alpha", "int": 1},
               {"name": "s", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "p", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "z", "tensor": {"dtype": "float", "sizes": [4]}},
               {"name": "n", "int": 0}],
    "inputs": ["x", "y"], "outputs": ["z", "n"],
    "instructions": [{"kernel": "aten::add.out", "args": ["x", "y", "alpha", "s"]},
                     {"kernel": "aten::mul.out", "args": ["x", "y", "p"]},
                     {"kernel": "aten::add.out", "args": ["s", "p", "alpha", "z"]},
                     {"kernel": "aten::sym_numel", "args": ["x", "n"], "ret": null}]}]})");
}

struct Files {
  TempDir dir{"pte_run_cli"};
  std::string Program(const pte::model::File& file, const std::string& name = "m.pte") const {
    return dir.Write(name, pte::Serialize(file));
  }
  std::string Array(const std::string& name, const std::vector<double>& values,
                    npy::DType dtype = kFloat32) const {
    return dir.Write(name, npy::Write(values, {values.size()}, dtype));
  }
};

std::vector<double> ValuesOf(const std::string& path) {
  const std::string bytes = testing::ReadWhole(path);
  std::string error;
  const auto array =
      npy::Read(ByteView(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), &error);
  EXPECT_TRUE(array) << path << ": " << error;
  return array ? array->values : std::vector<double>{};
}

TEST(PteRunCli, WritesEachOutputAndPrintsTheSummary) {
  const Files files;
  const std::string model = files.Program(pte::BuildRecipe(SumAndProduct()));
  const std::string x = files.Array("x.npy", {1, 2, 3, 4});
  const std::string y = files.Array("y.npy", {5, 6, 7, 8});
  const std::string out = (files.dir.path() / "out").string();
  const auto run = RunTool({"run", model, "--input", x, "--input", y, "--output-dir", out, "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json summary = json::parse(run.out);
  EXPECT_EQ(summary["method"], "forward");
  EXPECT_EQ(summary["memory"], "both");
  EXPECT_EQ(summary["instructions"], 4);
  EXPECT_EQ(summary["outputs"][0]["file"], out + "/output_0.npy");
  EXPECT_EQ(ValuesOf(out + "/output_0.npy"), (std::vector<double>{11, 20, 31, 44}));
  // A scalar output is printed, not written.
  EXPECT_EQ(summary["outputs"][1]["type"], "Int");
  EXPECT_EQ(summary["outputs"][1]["value"], 4);

  // Without --output-dir the values are printed, exactly.
  const auto printed = RunTool({"run", model, "--input", x, "--input", y, "-q"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(json::parse(printed.out)["outputs"][0]["values"], json::parse("[11, 20, 31, 44]"));
}

TEST(PteRunCli, InputsAreCheckedAgainstThePlan) {
  const Files files;
  const std::string model = files.Program(pte::BuildRecipe(SumAndProduct()));
  const std::string x = files.Array("x.npy", {1, 2, 3, 4});
  const std::string wide = files.Array("wide.npy", {1, 2, 3, 4}, {npy::Kind::kFloat, 8, false});
  const std::string short_x = files.Array("short.npy", {1, 2, 3});

  const auto one = RunTool({"run", model, "--input", x, "-q"});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("method \"forward\" has 2 inputs but 1 --input were given"),
            std::string::npos)
      << one.err;
  const auto dtype = RunTool({"run", model, "--input", x, "--input", wide, "-q"});
  EXPECT_EQ(dtype.exit_code, 2);
  EXPECT_NE(dtype.err.find("the input is FLOAT (an array of <f4), given <f8"), std::string::npos)
      << dtype.err;
  const auto shape = RunTool({"run", model, "--input", x, "--input", short_x, "-q"});
  EXPECT_EQ(shape.exit_code, 2) << shape.out << shape.err;
  EXPECT_NE(shape.err.find("input 1"), std::string::npos) << shape.err;
  const auto method = RunTool({"run", model, "--method", "backward", "-q"});
  EXPECT_EQ(method.exit_code, 2);
  EXPECT_NE(method.err.find("the program has no method \"backward\""), std::string::npos)
      << method.err;
  EXPECT_EQ(RunTool({"run", model, "--memory", "shared", "-q"}).exit_code, 2);
}

// p placed on the bytes of s while s is still to be read: the validator
// refuses the program; --allow-invalid runs it, and the two memory modes
// disagree at the instruction that reads s.
TEST(PteRunCli, AnAliasedPlanIsRefusedThenExposedByTheOracle) {
  const Files files;
  pte::model::File file = pte::BuildRecipe(SumAndProduct());
  auto& values = *file.program.execution_plan->at(0).values;
  std::get<pte::model::Tensor>(values[4].val).allocation =
      std::get<pte::model::Tensor>(values[3].val).allocation;
  const std::string model = files.Program(file);
  const std::string x = files.Array("x.npy", {1, 2, 3, 4});
  const std::string y = files.Array("y.npy", {5, 6, 7, 8});

  const auto refused = RunTool({"run", model, "--input", x, "--input", y, "-q"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("pte.memory.live_overlap"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("does not validate; nothing run"), std::string::npos) << refused.err;

  const auto both = RunTool({"run", model, "--input", x, "--input", y, "--allow-invalid", "-q"});
  EXPECT_EQ(both.exit_code, 1) << both.out << both.err;
  const json difference = json::parse(both.out)["difference"];
  EXPECT_EQ(difference["instruction"], "chain 0 instruction 2 (aten::add.out)");
  EXPECT_EQ(difference["value"], 3);
  EXPECT_EQ(difference["overlaps"][0]["value"], 4);

  const std::string out = (files.dir.path() / "planned").string();
  const auto planned = RunTool({"run", model, "--input", x, "--input", y, "--allow-invalid",
                                "--memory", "planned", "--output-dir", out, "-q"});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  EXPECT_EQ(ValuesOf(out + "/output_0.npy"), (std::vector<double>{10, 24, 42, 64}));
}

TEST(PteRunCli, NamedDataIsFoundBesideTheProgram) {
  const Files files;
  const json recipe = json::parse(R"({"plans": [{"name": "forward",
    "values": [{"name": "x", "tensor": {"dtype": "float", "sizes": [2]}},
               {"name": "w", "tensor": {"dtype": "float", "sizes": [2], "memory": "external",
                                        "key": "w", "data": [3, -1]}},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [2]}}],
    "inputs": ["x"], "outputs": ["y"],
    "instructions": [{"kernel": "aten::mul.out", "args": ["x", "w", "y"]}]}]})");
  const pte::RecipeFiles built = pte::BuildRecipeFiles(recipe);
  const std::string model = files.Program(built.program, "ext.pte");
  const std::string x = files.Array("x.npy", {2, 5});
  const auto missing = RunTool({"run", model, "--input", x, "-q"});
  EXPECT_EQ(missing.exit_code, 1) << missing.out;
  EXPECT_NE(missing.err.find("EXTERNAL data \"w\", which no named-data file (--data) holds"),
            std::string::npos)
      << missing.err;

  // Given by --data under any name, or found beside the program by its stem.
  const std::string elsewhere = files.dir.Write("weights.ptd", pte::SerializePtd(*built.data));
  const auto given = RunTool({"run", model, "--data", elsewhere, "--input", x, "-q"});
  ASSERT_EQ(given.exit_code, 0) << given.out << given.err;
  EXPECT_EQ(json::parse(given.out)["outputs"][0]["values"], json::parse("[6, -5]"));
  files.dir.Write("ext.ptd", pte::SerializePtd(*built.data));
  const std::string out = (files.dir.path() / "out").string();
  const auto run = RunTool({"run", model, "--input", x, "--output-dir", out, "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(ValuesOf(out + "/output_0.npy"), (std::vector<double>{6, -5}));
}

TEST(PteRunCli, DelegatesAndLimitsEndTheRunWithTheirReason) {
  const Files files;
  const json delegated = json::parse(R"({"plans": [{"name": "forward",
    "values": [{"name": "x", "tensor": {"dtype": "float", "sizes": [2], "memory": "none"}},
               {"name": "y", "tensor": {"dtype": "float", "sizes": [2], "memory": "none"}}],
    "inputs": ["x"], "outputs": ["y"],
    "delegates": [{"name": "d", "backend": "XnnpackBackend", "payload": {"size": 16, "fill": 1}}],
    "instructions": [{"delegate": "d", "args": ["x", "y"]}]}]})");
  const std::string x = files.Array("x.npy", {1, 2});
  const auto unsupported =
      RunTool({"run", files.Program(pte::BuildRecipe(delegated), "d.pte"), "--input", x, "-q"});
  EXPECT_EQ(unsupported.exit_code, 1) << unsupported.out;
  EXPECT_NE(unsupported.err.find("XnnpackBackend"), std::string::npos) << unsupported.err;
  EXPECT_NE(unsupported.err.find("unsupported"), std::string::npos) << unsupported.err;

  const std::string model = files.Program(pte::BuildRecipe(SumAndProduct()));
  const std::string x4 = files.Array("x4.npy", {1, 2, 3, 4});
  const auto limited =
      RunTool({"run", model, "--input", x4, "--input", x4, "--max-instructions", "3", "-q"});
  EXPECT_EQ(limited.exit_code, 3) << limited.out << limited.err;
  EXPECT_NE(limited.err.find("core.limit.max-instructions"), std::string::npos) << limited.err;
  EXPECT_EQ(RunTool({"run", model, "--input", x4, "--input", x4, "--max-instructions", "4", "-q"})
                .exit_code,
            0);
}

}  // namespace
}  // namespace accelcheck
