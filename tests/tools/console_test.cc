// The progress line: drawn only when enabled and once the command has run for
// its delay, with the counts the work sets, and erased at the end.
#include "tools/accelcheck/console.h"

#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

namespace accelcheck::cli {
namespace {

using namespace std::chrono_literals;

ProgressOptions Drawn(std::ostream* out, ProgressOptions::Clock::duration delay) {
  ProgressOptions options;
  options.enabled = true;
  options.delay = delay;
  options.period = 5ms;
  options.out = out;
  return options;
}

TEST(ProgressTest, DrawsTheCountsAndErasesTheLine) {
  std::ostringstream out;
  {
    // The first drawing comes after the delay, when the counts are set.
    Progress progress(Drawn(&out, 20ms), "accelcheck validate: files", 10);
    for (int i = 0; i < 3; ++i) progress.Advance();
    std::this_thread::sleep_for(200ms);
  }
  const std::string text = out.str();
  EXPECT_NE(text.find("\r\x1b[Kaccelcheck validate: files 3/10 (30%), 0 s"), std::string::npos)
      << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K") << "the line is erased at the end";
}

TEST(ProgressTest, WithoutATotalShowsTheTimeOnly) {
  std::ostringstream out;
  {
    const Progress progress(Drawn(&out, 0ms), "accelcheck run: validating");
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_NE(out.str().find("accelcheck run: validating, 0 s"), std::string::npos) << out.str();
}

TEST(ProgressTest, NothingBeforeTheDelayOrWhenDisabled) {
  std::ostringstream early;
  {
    Progress progress(Drawn(&early, 10s), "accelcheck run: instructions", 5);
    progress.Set(4, 5);
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(early.str(), "");

  std::ostringstream disabled;
  ProgressOptions options = Drawn(&disabled, 0ms);
  options.enabled = false;
  {
    const Progress progress(options, "accelcheck simulate: workloads", 5);
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(disabled.str(), "");
}

// --quiet, or standard error that is not a terminal (as under ctest), never
// draws.
TEST(ProgressTest, OnlyATerminalWithoutQuietGetsProgress) {
  EXPECT_FALSE(ProgressFor(true).enabled);
  EXPECT_EQ(ProgressFor(false).enabled, ::isatty(2) == 1);
}

}  // namespace
}  // namespace accelcheck::cli
