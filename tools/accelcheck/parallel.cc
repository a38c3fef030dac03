#include "tools/accelcheck/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace accelcheck::cli {

unsigned DefaultJobs() { return std::max(1u, std::thread::hardware_concurrency()); }

namespace {

// The indices still to take and the first exception a call threw.
class WorkQueue {
 public:
  WorkQueue(size_t count, const std::function<void(size_t)>& body) : count_(count), body_(body) {}

  // Takes indices until none is left or a call has failed.
  void Work() {
    for (;;) {
      const size_t i = next_.fetch_add(1, std::memory_order_relaxed);
      if (i >= count_ || failed_.load(std::memory_order_relaxed)) return;
      try {
        body_(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
        failed_.store(true, std::memory_order_relaxed);
      }
    }
  }

  void RethrowFailure() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  const size_t count_;
  const std::function<void(size_t)>& body_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::exception_ptr error_;
};

}  // namespace

void ParallelFor(size_t count, unsigned jobs, const std::function<void(size_t)>& body) {
  WorkQueue queue(count, body);
  const size_t helpers = std::min<size_t>(std::max(jobs, 1u), count) - (count > 0 ? 1 : 0);
  std::vector<std::thread> threads;
  threads.reserve(helpers);
  for (size_t t = 0; t < helpers; ++t) {
    try {
      threads.emplace_back([&queue] { queue.Work(); });
    } catch (const std::system_error&) {
      break;  // no more threads: those started, and this one, do the work
    }
  }
  queue.Work();
  for (std::thread& thread : threads) thread.join();
  queue.RethrowFailure();
}

}  // namespace accelcheck::cli
