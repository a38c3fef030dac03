// The fixture of the end-to-end command tests: a temporary directory named
// after the test, and the JSON report of a validate run.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/tools/tool_runner.h"

namespace accelcheck::testing {

// The rule ids of every diagnostic of a JSON report, in report order.
inline std::vector<std::string> RulesIn(const nlohmann::json& report) {
  std::vector<std::string> rules;
  for (const nlohmann::json& file : report["files"]) {
    for (const nlohmann::json& d : file["diagnostics"]) rules.push_back(d["rule"]);
  }
  return rules;
}

class CliFixture : public ::testing::Test {
 protected:
  explicit CliFixture(const std::string& prefix)
      : dir_(prefix + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name()) {}

  // `accelcheck validate --output json args...`, expected to exit with
  // `expected_exit`; its report.
  static nlohmann::json ValidateJson(const std::vector<std::string>& args, int expected_exit) {
    std::vector<std::string> command = {"validate", "--output", "json"};
    command.insert(command.end(), args.begin(), args.end());
    const ToolRun run = RunTool(command);
    EXPECT_EQ(run.exit_code, expected_exit) << run.out << run.err;
    return nlohmann::json::parse(run.out, nullptr, false);
  }

  TempDir dir_;
};

}  // namespace accelcheck::testing
