// accelcheck compare end to end: each exit code, files and directories,
// text and JSON, and arguments that must never escape as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/tools/tool_runner.h"
#include "validators/core/npy.h"

namespace accelcheck {
namespace {

using testing::RunTool;
using testing::TempDir;

const npy::DType kF4{npy::Kind::kFloat, 4, false};

struct Arrays {
  TempDir dir{"compare_cli"};
  std::string a = dir.Write("a.npy", npy::Write({1, 2, 3, 4, 5, 6}, {2, 3}, kF4));
  std::string same = dir.Write("same.npy", npy::Write({1, 2, 3, 4, 5, 6}, {2, 3}, kF4));
  std::string off = dir.Write("off.npy", npy::Write({1, 2, 3, 4, 5.5, 6}, {2, 3}, kF4));
  std::string transposed = dir.Write("t.npy", npy::Write({1, 4, 2, 5, 3, 6}, {3, 2}, kF4));
  std::string broken = dir.Write("broken.npy", {0x93, 'N', 'U', 'M'});
};

TEST(CompareCli, EqualArraysExitZero) {
  const Arrays arrays;
  const auto run = RunTool({"compare", arrays.a, arrays.same, "--exact"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("equal, 6 elements (exact)"), std::string::npos) << run.out;
}

TEST(CompareCli, ADifferenceExitsOneAndNamesTheElement) {
  const Arrays arrays;
  const auto run = RunTool({"compare", arrays.a, arrays.off});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.out.find("1 of 6 elements differ"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("max absolute error 0.5, max relative error 0.1"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("[1,1]: expected 5, actual 5.5"), std::string::npos) << run.out;
  // Within the tolerance it is equal: 0.5 <= 0.1 * 5.
  EXPECT_EQ(RunTool({"compare", arrays.a, arrays.off, "--rtol", "0.1"}).exit_code, 0);
  EXPECT_EQ(RunTool({"compare", arrays.a, arrays.off, "--rtol", "0.099"}).exit_code, 1);
  EXPECT_EQ(RunTool({"compare", arrays.a, arrays.off, "--atol", "0.5"}).exit_code, 0);
}

TEST(CompareCli, AShapeDifferenceExitsOne) {
  const Arrays arrays;
  const auto run = RunTool({"compare", arrays.a, arrays.transposed});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.out.find("shape (3, 2) differs from the expected (2, 3)"), std::string::npos)
      << run.out;
}

TEST(CompareCli, UnreadableInputExitsThree) {
  const Arrays arrays;
  const auto broken = RunTool({"compare", arrays.a, arrays.broken});
  EXPECT_EQ(broken.exit_code, 3);
  EXPECT_NE(broken.out.find("magic"), std::string::npos) << broken.out;
  EXPECT_EQ(RunTool({"compare", arrays.a, (arrays.dir.path() / "none.npy").string()}).exit_code, 3);
}

TEST(CompareCli, UsageErrorsExitTwo) {
  const Arrays arrays;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"compare"},
        {"compare", arrays.a},
        {"compare", arrays.a, arrays.a, arrays.a},
        {"compare", arrays.a, arrays.a, "--exact", "--rtol", "1"},
        {"compare", arrays.a, arrays.a, "--rtol", "-1"},
        {"compare", arrays.a, arrays.a, "--rtol", "nan"},
        {"compare", arrays.a, arrays.a, "--atol", "1e999"},
        {"compare", arrays.a, arrays.a, "--atol", ""},
        {"compare", arrays.a, arrays.a, "--output", "xml"},
        {"compare", arrays.a, arrays.a, "--max-mismatches", "x"},
        {"compare", "--expected-dir", arrays.dir.path().string()},
        {"compare", "--expected-dir", "d", "--actual-dir", "d", arrays.a},
        {"compare", arrays.a, arrays.a, "--bogus"}}) {
    const auto run = RunTool(args);
    EXPECT_EQ(run.exit_code, 2) << args.back() << "\n" << run.err;
    EXPECT_NE(run.err.find("usage: accelcheck compare"), std::string::npos) << run.err;
  }
}

TEST(CompareCli, DirectoriesNeedEveryExpectedFileAndListExtraOnes) {
  TempDir expected("compare_expected"), actual("compare_actual");
  expected.Write("y.npy", npy::Write({1, 2}, {2}, kF4));
  expected.Write("z.npy", npy::Write({3}, {1}, kF4));
  actual.Write("y.npy", npy::Write({1, 2}, {2}, kF4));
  actual.Write("z.npy", npy::Write({3}, {1}, kF4));
  actual.Write("extra.npy", npy::Write({3}, {1}, kF4));
  auto run = RunTool({"compare", "--expected-dir", expected.path().string(), "--actual-dir",
                      actual.path().string()});
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("extra.npy: only in the actual directory"), std::string::npos) << run.out;
  std::filesystem::remove(actual.path() / "z.npy");
  run = RunTool({"compare", "--expected-dir", expected.path().string(), "--actual-dir",
                 actual.path().string(), "--output", "json"});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["equal"], false);
  EXPECT_EQ(doc["only_in_actual"], nlohmann::json::array({"extra.npy"}));
  ASSERT_EQ(doc["arrays"].size(), 2u);
  EXPECT_EQ(doc["arrays"][1]["name"], "z.npy");
  EXPECT_EQ(doc["arrays"][1]["error"], "missing from the actual directory");
  EXPECT_EQ(RunTool({"compare", "--expected-dir", (expected.path() / "nope").string(),
                     "--actual-dir", actual.path().string()})
                .exit_code,
            3);
}

TEST(CompareCli, JsonListsTheMismatches) {
  const Arrays arrays;
  const auto run = RunTool({"compare", arrays.a, arrays.off, "--output", "json"});
  EXPECT_EQ(run.exit_code, 1);
  const auto doc = nlohmann::json::parse(run.out);
  const auto& array = doc["arrays"][0];
  EXPECT_EQ(array["mismatches"], 1);
  EXPECT_EQ(array["first_mismatches"][0]["index"], nlohmann::json::array({1, 1}));
  EXPECT_EQ(array["tolerance"]["rtol"], 1e-7);
}

}  // namespace
}  // namespace accelcheck
