// Work a validator may run on a thread of its own beside its caller's, when
// the work is large enough to pay for the thread (docs/ARCHITECTURE.md
// "Concurrency"). The work reads shared state only; its result, or its
// exception, comes back through get().
#pragma once

#include <future>
#include <system_error>
#include <type_traits>
#include <utility>

namespace accelcheck {

// Starts `work` on a new thread when `beside` is true and the system gives
// one; otherwise `work` runs in the first get().
template <typename F>
std::future<std::invoke_result_t<F>> StartBeside(bool beside, F work) {
  if (beside) {
    try {
      return std::async(std::launch::async, work);
    } catch (const std::system_error&) {
      // No thread to be had: run it when the result is asked for.
    }
  }
  return std::async(std::launch::deferred, std::move(work));
}

}  // namespace accelcheck
