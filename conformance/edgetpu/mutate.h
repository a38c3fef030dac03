// The Edge TPU mutations: break one rule of a valid model or bare package,
// in memory. EdgetpuConformance() gives them with the example bases as the
// format's conformance provider (conformance/provider.h).
#pragma once

#include <string>
#include <vector>

#include "conformance/provider.h"
#include "validators/core/bytes.h"

namespace accelcheck::edgetpu {

const conformance::Provider& EdgetpuConformance();

// A mutated file in memory, with the object path where the validator should
// report the broken rule (empty when the rule is about the whole file).
struct ByteMutation {
  std::vector<uint8_t> bytes;
  std::string path;
};

// A copy of `valid` that breaks `rule` and no other rule with error severity
// (but the case's `also`); declines when the input does not validate or
// offers no place for it. `seed` picks among the places. The provider's
// cases apply it; the fuzzer and the property tests call it on bytes.
conformance::OrDeclined<ByteMutation> MutateEdgetpu(ByteView valid, const Rule& rule,
                                                    uint64_t seed);

}  // namespace accelcheck::edgetpu
