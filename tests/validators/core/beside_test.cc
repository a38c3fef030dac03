// StartBeside: the work runs on a thread of its own when asked to, in the
// first get() otherwise, and its result or exception comes back either way.
#include "validators/core/beside.h"

#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

namespace accelcheck {
namespace {

TEST(StartBeside, RunsOnAThreadOfItsOwnWhenAsked) {
  const std::thread::id caller = std::this_thread::get_id();
  auto beside = StartBeside(true, [] { return std::this_thread::get_id(); });
  EXPECT_NE(beside.get(), caller);
}

TEST(StartBeside, OtherwiseRunsInTheFirstGet) {
  const std::thread::id caller = std::this_thread::get_id();
  bool ran = false;
  auto later = StartBeside(false, [&] {
    ran = true;
    return std::this_thread::get_id();
  });
  EXPECT_FALSE(ran);
  EXPECT_EQ(later.get(), caller);
  EXPECT_TRUE(ran);
}

TEST(StartBeside, AnExceptionComesBackThroughGet) {
  for (const bool beside : {true, false}) {
    auto failing = StartBeside(beside, []() -> int { throw std::runtime_error("no"); });
    EXPECT_THROW(failing.get(), std::runtime_error) << beside;
  }
}

}  // namespace
}  // namespace accelcheck
