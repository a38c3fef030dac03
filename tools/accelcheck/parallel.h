// A small pool of threads for commands that check many files at once
// (`validate --jobs N`), with no dependency beyond the standard library.
#pragma once

#include <cstddef>
#include <functional>

namespace accelcheck::cli {

// The default of --jobs: the processors the system reports, at least 1.
unsigned DefaultJobs();

// Calls body(i) for every i in [0, count) on up to `jobs` threads, the
// caller's among them. Each thread takes the next index once it is done with
// one, so at most `jobs` calls run at once, and a call's memory (the file it
// holds) is freed before the thread takes another. When the system refuses a
// thread the others do the work. An exception thrown by a call stops the
// threads taking more and is rethrown here once all have finished.
void ParallelFor(size_t count, unsigned jobs, const std::function<void(size_t)>& body);

}  // namespace accelcheck::cli
