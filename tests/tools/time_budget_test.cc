// --time-budget-ms on run and simulate bounds the whole command, validation
// and run: running out is a limit (exit 3, core.limit.time-budget-ms) and
// nothing is printed as a result.
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/large_schedule.h"
#include "tests/tools/cli_fixture.h"

namespace accelcheck::testing {
namespace {

class TimeBudgetTest : public CliFixture {
 protected:
  TimeBudgetTest() : CliFixture("budget") {}

  // A schedule of several MB, which takes far longer than a millisecond to
  // validate and run; its frontend IR beside it.
  void SetUp() override {
    const test::GeneratedSchedule schedule = test::LargeSchedule();
    ASSERT_EQ(schedule.error, "");
    ir_ = dir_.Write("large.json", Bytes(schedule.ir));
    frontend_ = dir_.Write("large.frontend.json", Bytes(schedule.frontend));
  }

  static std::vector<uint8_t> Bytes(const std::string& text) { return {text.begin(), text.end()}; }

  static void ExpectOutOfTime(const std::vector<std::string>& args) {
    const ToolRun run = RunTool(args);
    EXPECT_EQ(run.exit_code, 3) << args[0] << ": " << run.err;
    EXPECT_NE(run.err.find(": error[core.limit.time-budget-ms]: "), std::string::npos)
        << args[0] << ": " << run.err;
    EXPECT_EQ(run.out, "") << args[0];
  }

  std::string ir_, frontend_;
};

TEST_F(TimeBudgetTest, ATinyBudgetIsALimitOnRunAndSimulate) {
  ExpectOutOfTime({"simulate", ir_, "--time-budget-ms", "1"});
  ExpectOutOfTime({"run", ir_, "--frontend", frontend_, "--time-budget-ms", "1"});
}

TEST_F(TimeBudgetTest, NoBudgetOrALargeOneLetsTheRunFinish) {
  EXPECT_EQ(RunTool({"simulate", ir_, "--time-budget-ms", "0", "-o", "/dev/null"}).exit_code, 0);
  EXPECT_EQ(RunTool({"simulate", ir_, "--time-budget-ms", "600000", "-o", "/dev/null"}).exit_code,
            0);
}

TEST_F(TimeBudgetTest, TheHelpSaysTheBudgetBoundsTheWholeCommand) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"simulate", ir_, "--help"}, {"run", ir_, "--help"}}) {
    const ToolRun run = RunTool(args);
    EXPECT_NE(run.out.find("wall-clock time of the whole command, validation and run"),
              std::string::npos)
        << run.out;
  }
}

}  // namespace
}  // namespace accelcheck::testing
