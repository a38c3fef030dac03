// The library's definition of the fuzz-only hash switch (fuzz_switch.h):
// weak, so that the raw-bytes fuzz target's strong one replaces it at link
// time; everything else checks the hash.
#include "validators/neff/fuzz_switch.h"

namespace accelcheck::neff {

__attribute__((weak)) bool SkipsHashForFuzzing() { return false; }

}  // namespace accelcheck::neff
