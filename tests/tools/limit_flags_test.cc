// Every resource limit, checked through RunValidate on files built in a
// temporary directory: at the limit the file passes, one below it gives the
// limit's core rule and exit code 3 (docs/ARCHITECTURE.md "Limits").
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "conformance/neff/bases.h"
#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "tests/support/large_schedule.h"
#include "tools/accelcheck/commands.h"
#include "validators/core/limits.h"
#include "validators/core/npy.h"

namespace accelcheck::cli {
namespace {

using nlohmann::json;

std::vector<uint8_t> SmallProgram() {
  return pte::Serialize(pte::BuildRecipe(json::parse(R"({"plans": [{
      "name": "forward",
      "values": [{"name": "x", "tensor": {"dtype": "float", "sizes": [2, 3]}},
                 {"name": "y", "tensor": {"dtype": "float", "sizes": [2, 3]}},
                 {"name": "alpha", "int": 1},
                 {"name": "z", "tensor": {"dtype": "float", "sizes": [2, 3]}}],
      "inputs": ["x", "y"], "outputs": ["z"],
      "instructions": [{"kernel": "aten::add.out", "args": ["x", "y", "alpha", "z"]}]}]})")));
}

class LimitFlagTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("accelcheck_limits_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return path;
  }

  // Runs `accelcheck validate args... --output json -o report`; returns the
  // exit code and the rule ids reported.
  int Validate(std::vector<std::string> args, std::vector<std::string>* rules) {
    args.insert(args.end(), extra_.begin(), extra_.end());
    const std::string report = (dir_ / "report.json").string();
    args.insert(args.end(), {"--output", "json", "-o", report});
    const int code = static_cast<int>(RunValidate(args));
    std::ifstream in(report);
    const json doc = json::parse(in);
    rules->clear();
    for (const json& file : doc["files"]) {
      for (const json& d : file["diagnostics"]) rules->push_back(d["rule"]);
    }
    return code;
  }

  // The smallest value of `flag` that lets `file` pass, searched in [1, high].
  uint64_t SmallestPassing(const std::string& file, const std::string& flag, uint64_t high) {
    uint64_t low = 1;
    std::vector<std::string> rules;
    EXPECT_EQ(Validate({file, "--" + flag, std::to_string(high)}, &rules), 0)
        << testing::PrintToString(rules);
    while (low < high) {
      const uint64_t mid = low + (high - low) / 2;
      if (Validate({file, "--" + flag, std::to_string(mid)}, &rules) == 0) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    return high;
  }

  void ExpectAtAndAboveLimit(const std::string& file, const std::string& flag, uint64_t at,
                             const std::string& rule) {
    std::vector<std::string> rules;
    EXPECT_EQ(Validate({file, "--" + flag, std::to_string(at)}, &rules), 0)
        << "--" << flag << " " << at << ": " << testing::PrintToString(rules);
    EXPECT_TRUE(rules.empty()) << testing::PrintToString(rules);
    EXPECT_EQ(Validate({file, "--" + flag, std::to_string(at - 1)}, &rules), 3)
        << "--" << flag << " " << at - 1;
    EXPECT_EQ(rules, std::vector<std::string>{rule}) << "--" << flag << " " << at - 1;
  }

  // Runs `accelcheck run` on SmallProgram (z = x + y, three [2, 3] float
  // tensors: 72 bytes separately, planned at 0, 32 and 64: an 88-byte arena)
  // with `args`; returns the exit code.
  int RunSmall(std::vector<std::string> args) {
    const std::string file = Write("small.pte", SmallProgram());
    const std::vector<uint8_t> input =
        npy::Write({1, 2, 3, 4, 5, 6}, {2, 3}, npy::DType{npy::Kind::kFloat, 4, false});
    const std::string x = Write("x.npy", input);
    args.insert(args.begin(), {file, "--input", x, "--input", x, "-q"});
    return static_cast<int>(RunRun(args));
  }

  std::filesystem::path dir_;
  std::vector<std::string> extra_;  // flags every validation of the test adds
};

TEST_F(LimitFlagTest, EveryLimitHasATestHere) {
  std::vector<std::string> flags;
  for (const LimitInfo& limit : AllLimits()) flags.emplace_back(limit.flag);
  EXPECT_EQ(flags,
            (std::vector<std::string>{"max-file-size", "max-depth", "max-tables", "time-budget-ms",
                                      "max-instructions", "max-tensor-bytes", "max-arena-bytes",
                                      "max-inflated-bytes", "max-compression-ratio", "max-members",
                                      "max-member-size"}))
      << "a new limit in limits.def needs its at-limit and above-limit test in this file";
}

TEST_F(LimitFlagTest, MaxFileSize) {
  const std::vector<uint8_t> program = SmallProgram();
  const std::string file = Write("small.pte", program);
  ExpectAtAndAboveLimit(file, "max-file-size", program.size(), "core.limit.max-file-size");
}

TEST_F(LimitFlagTest, MaxDepth) {
  const std::string file = Write("small.pte", SmallProgram());
  const uint64_t depth = SmallestPassing(file, "max-depth", 64);
  EXPECT_GT(depth, 1u) << "a program nests tables below its root";
  ExpectAtAndAboveLimit(file, "max-depth", depth, "core.limit.max-depth");
}

TEST_F(LimitFlagTest, MaxTables) {
  const std::string file = Write("small.pte", SmallProgram());
  const uint64_t tables = SmallestPassing(file, "max-tables", 100000);
  EXPECT_GT(tables, 4u) << "program, plan, values and their payloads are tables";
  ExpectAtAndAboveLimit(file, "max-tables", tables, "core.limit.max-tables");
}

// The executor's limits (accelcheck run on a .pte): at the limit the run
// passes; one below it is a limit (exit 3).
TEST_F(LimitFlagTest, MaxInstructions) {
  EXPECT_EQ(RunSmall({"--max-instructions", "1"}), 0);
  EXPECT_EQ(RunSmall({"--max-instructions", "0"}), 3);
}

TEST_F(LimitFlagTest, MaxTensorBytes) {
  EXPECT_EQ(RunSmall({"--memory", "separate", "--max-tensor-bytes", "72"}), 0);
  EXPECT_EQ(RunSmall({"--memory", "separate", "--max-tensor-bytes", "71"}), 3);
}

TEST_F(LimitFlagTest, MaxArenaBytes) {
  EXPECT_EQ(RunSmall({"--memory", "planned", "--max-arena-bytes", "88"}), 0);
  EXPECT_EQ(RunSmall({"--memory", "planned", "--max-arena-bytes", "87"}), 3);
}

// Time cannot be hit exactly: a generous budget (and 0, no limit) passes; a
// budget of 1 ms cannot cover decoding and checking a schedule of several MB
// (the checks between phases see the budget spent).
TEST_F(LimitFlagTest, TimeBudget) {
  const std::string small = Write("small.pte", SmallProgram());
  std::vector<std::string> rules;
  EXPECT_EQ(Validate({small, "--time-budget-ms", "0"}, &rules), 0);
  EXPECT_EQ(Validate({small, "--time-budget-ms", "600000"}, &rules), 0);
  EXPECT_TRUE(rules.empty()) << testing::PrintToString(rules);

  const test::GeneratedSchedule schedule = test::LargeSchedule();
  ASSERT_EQ(schedule.error, "");
  const std::string& text = schedule.ir;
  ASSERT_GT(text.size(), size_t{2} << 20);
  const std::string file = Write("large.json", std::vector<uint8_t>(text.begin(), text.end()));
  EXPECT_EQ(Validate({file, "--time-budget-ms", "1"}, &rules), 3);
  EXPECT_NE(std::find(rules.begin(), rules.end(), "core.limit.time-budget-ms"), rules.end())
      << testing::PrintToString(rules);
}

// The archive limits on the project's stream NEFF, whose figures the test
// derives from the file itself: at the limit the file passes, one below
// the limit is hit. Every NEFF notes its hash's byte order, which the
// checks leave out.
class NeffLimitTest : public LimitFlagTest {
 protected:
  void SetUp() override {
    LimitFlagTest::SetUp();
    extra_ = {"--disable", "neff.hash.order"};
    const neff::conformance::NamedBase base = neff::conformance::Bases().front();
    package_ = neff::conformance::ToPackage(base.neff);
    file_ = Write("stream.neff", neff::conformance::WritePackage(package_));
  }
  neff::conformance::Package package_;
  std::string file_;
};

TEST_F(NeffLimitTest, MaxInflatedBytes) {
  const uint64_t tar = neff::conformance::WriteTar(package_.entries, package_.dialect).bytes.size();
  EXPECT_EQ(SmallestPassing(file_, "max-inflated-bytes", uint64_t{1} << 30), tar);
  ExpectAtAndAboveLimit(file_, "max-inflated-bytes", tar, "core.limit.max-inflated-bytes");
}

TEST_F(NeffLimitTest, MaxCompressionRatio) {
  const uint64_t tar = neff::conformance::WriteTar(package_.entries, package_.dialect).bytes.size();
  const uint64_t payload = neff::conformance::Payload(package_).size();
  const uint64_t ratio = (tar + payload - 1) / payload;
  EXPECT_EQ(SmallestPassing(file_, "max-compression-ratio", 1000), ratio);
  ExpectAtAndAboveLimit(file_, "max-compression-ratio", ratio, "core.limit.max-compression-ratio");
}

TEST_F(NeffLimitTest, MaxMembers) {
  EXPECT_EQ(SmallestPassing(file_, "max-members", 100000), package_.entries.size());
  ExpectAtAndAboveLimit(file_, "max-members", package_.entries.size(), "core.limit.max-members");
}

// The deepest nesting of objects and lists in `value`.
uint64_t Nesting(const json& value) {
  if (!value.is_structured()) return 0;
  uint64_t deepest = 0;
  for (const json& child : value) deepest = std::max(deepest, Nesting(child));
  return deepest + 1;
}

// The JSON members are read under --max-depth: the limit is the deepest
// member's nesting.
TEST_F(NeffLimitTest, MaxDepth) {
  uint64_t deepest = 0;
  for (const auto& entry : package_.entries) {
    if (!entry.name.ends_with(".json")) continue;
    deepest = std::max(deepest, Nesting(json::parse(entry.data.begin(), entry.data.end())));
  }
  ASSERT_GT(deepest, 3u) << "def.json nests var, a variable and its fields";
  EXPECT_EQ(SmallestPassing(file_, "max-depth", 64), deepest);
  ExpectAtAndAboveLimit(file_, "max-depth", deepest, "core.limit.max-depth");
}

TEST_F(NeffLimitTest, MaxMemberSize) {
  uint64_t largest = 0;
  for (const auto& entry : package_.entries)
    largest = std::max<uint64_t>(largest, entry.data.size());
  EXPECT_EQ(SmallestPassing(file_, "max-member-size", uint64_t{1} << 30), largest);
  ExpectAtAndAboveLimit(file_, "max-member-size", largest, "core.limit.max-member-size");
}

}  // namespace
}  // namespace accelcheck::cli
