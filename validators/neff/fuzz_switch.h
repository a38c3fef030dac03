// Whether the NEFF hash check is skipped: only in the raw-bytes fuzz target
// (fuzz/neff/), which links a strong definition returning true over the
// library's weak one returning false. A byte-level mutant keeps the stale
// digest of its seed, and a fuzzer that changes the payload must recompute
// it or every mutant stops at the hash (docs/formats/neff.md §1.3); a
// link-time switch keeps that out of every shipped build, which shares the
// library with the fuzz builds (tests/validators/neff/hash_switch_test.cc).
#pragma once

namespace accelcheck::neff {

bool SkipsHashForFuzzing();

}  // namespace accelcheck::neff
