// The raw-bytes target's definition of the hash switch
// (validators/neff/fuzz_switch.h), strong over the library's weak one, and
// linked into neff_fuzzer alone: its byte-level mutants keep their seed's
// stale digest, and would all stop at neff.hash.mismatch otherwise
// (docs/formats/neff.md §1.3).
#include "validators/neff/fuzz_switch.h"

namespace accelcheck::neff {

bool SkipsHashForFuzzing() { return true; }

}  // namespace accelcheck::neff
