#include "validators/core/phases.h"

#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "validators/core/core_rules.h"

namespace accelcheck {
namespace {

const Rule kBlocking{"test.blocking",    Severity::kError, Severity::kError,
                     Category::kInvalid, "blocking",       "test"};

// Each pass records that it ran; `fail` passes report a blocking problem.
struct Trace {
  DiagnosticSink& sink;
  std::vector<int>& ran;
  int fail;
};

template <int N>
void Pass(const Trace& t) {
  t.ran.push_back(N);
  if (t.fail == N) t.sink.Report(kBlocking, {}, "pass failed");
}

TEST(RunPasses, APassRunsOnlyWhenTheEarlierOnesReportedNothingBlocking) {
  static constexpr void (*kPasses[])(const Trace&) = {Pass<1>, Pass<2>, Pass<3>};
  DiagnosticSink sink(Profile{}, "f");
  std::vector<int> ran;
  EXPECT_FALSE(RunPasses<Trace>(kPasses, Trace{sink, ran, 2}, ValidateContext{}, sink));
  EXPECT_EQ(ran, (std::vector<int>{1, 2}));
}

TEST(RunPassGroups, EveryPassOfAGroupRunsAndTheNextGroupIsGated) {
  static constexpr void (*kFirst[])(const Trace&) = {Pass<1>, Pass<2>};
  static constexpr void (*kSecond[])(const Trace&) = {Pass<3>};
  static constexpr PassGroup<Trace> kGroups[] = {kFirst, kSecond};
  DiagnosticSink clean(Profile{}, "f");
  std::vector<int> all;
  EXPECT_TRUE(RunPassGroups<Trace>(kGroups, Trace{clean, all, 0}, ValidateContext{}, clean));
  EXPECT_EQ(all, (std::vector<int>{1, 2, 3}));

  DiagnosticSink failing(Profile{}, "f");
  std::vector<int> gated;
  EXPECT_FALSE(RunPassGroups<Trace>(kGroups, Trace{failing, gated, 1}, ValidateContext{}, failing));
  EXPECT_EQ(gated, (std::vector<int>{1, 2}));
}

TEST(OutOfTime, AnExpiredBudgetIsReportedOnce) {
  ValidateContext context;
  context.limits.time_budget_ms = 1;
  context.deadline = Deadline(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  DiagnosticSink sink(Profile{}, "f");
  EXPECT_TRUE(OutOfTime(context, sink));
  EXPECT_TRUE(OutOfTime(context, sink));
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].rule, &core_rules::kLimitTime);
  EXPECT_FALSE(OutOfTime(ValidateContext{}, sink));  // no budget
}

}  // namespace
}  // namespace accelcheck
