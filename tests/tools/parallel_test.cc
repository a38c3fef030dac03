// The thread pool of `validate --jobs`: every index once, whatever the
// number of threads, and a failure carried back to the caller.
#include "tools/accelcheck/parallel.h"

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace accelcheck::cli {
namespace {

TEST(ParallelForTest, CallsEveryIndexOnceWhateverTheThreads) {
  for (const unsigned jobs : {1u, 2u, 3u, 8u, 64u}) {
    for (const size_t count : {size_t{0}, size_t{1}, size_t{5}, size_t{100}}) {
      std::vector<std::atomic<int>> calls(count);
      ParallelFor(count, jobs, [&](size_t i) { calls[i].fetch_add(1); });
      for (size_t i = 0; i < count; ++i)
        EXPECT_EQ(calls[i].load(), 1) << "jobs " << jobs << ", index " << i << " of " << count;
    }
  }
}

TEST(ParallelForTest, RunsAtMostJobsCallsAtOnce) {
  std::atomic<int> running{0}, most{0};
  ParallelFor(64, 3, [&](size_t) {
    const int now = running.fetch_add(1) + 1;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    running.fetch_sub(1);
  });
  EXPECT_GE(most.load(), 1);
  EXPECT_LE(most.load(), 3);
}

TEST(ParallelForTest, AFailureReachesTheCallerAfterEveryThreadStopped) {
  std::atomic<int> calls{0};
  EXPECT_THROW(ParallelFor(1000, 4,
                           [&](size_t i) {
                             calls.fetch_add(1);
                             if (i == 3) throw std::runtime_error("bad file");
                             // The others are slow enough for the failure to be seen.
                             std::this_thread::sleep_for(std::chrono::milliseconds(1));
                           }),
               std::runtime_error);
  EXPECT_LT(calls.load(), 1000) << "the threads stop taking work after a failure";
}

TEST(ParallelForTest, DefaultJobsIsAtLeastOne) { EXPECT_GE(DefaultJobs(), 1u); }

}  // namespace
}  // namespace accelcheck::cli
