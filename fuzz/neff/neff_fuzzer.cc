// libFuzzer target for the NEFF validator, inspector and member reader, on
// the raw bytes of a file.
//
// A byte-level mutant of a seed keeps the seed's digest, which no longer
// matches its payload (docs/formats/neff.md §1.3): this target alone links
// neff_hash_skip.cc, so that the hash check reports nothing and mutants
// reach the payload, the archive and the members. neff_structure_fuzzer
// recomputes the hash instead and checks it.
//
// Oracles besides the sanitizers: neff_checks.h. The custom mutator mixes
// libFuzzer's byte mutations with the project's structure-aware ones
// (conformance/neff/mutate.cc: one broken rule each).
#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

#include "conformance/neff/mutate.h"
#include "fuzz/fuzz_oracles.h"
#include "fuzz/neff/neff_checks.h"
#include "validators/neff/fuzz_switch.h"

namespace {

using namespace accelcheck;
namespace ac = accelcheck::conformance;

struct Mutant {
  std::vector<uint8_t> bytes;
};

// The provider's case for `rule` applied to the input as its base. The
// cases take a valid NEFF, as `accelcheck mutate` checks first: they rely on
// the keys and JSON types the validator requires.
ac::OrDeclined<Mutant> BreakRule(ByteView bytes, const Rule& rule, uint64_t seed) {
  const ac::MutationCase* mutation = neff::conformance::NeffConformance().FindCase(rule.id);
  if (mutation == nullptr) return ac::Declined{"no case"};
  if (fuzz::Validate(fuzz::NeffFormat(), bytes).error_count() != 0) {
    return ac::Declined{"the input does not validate"};
  }
  const ac::Base base{"fuzz", "fuzz.neff", {{"fuzz.neff", {bytes.begin(), bytes.end()}}}, {}};
  ac::OrDeclined<ac::Mutated> mutated = mutation->apply(base, seed, "fuzz.neff");
  auto* files = std::get_if<ac::Mutated>(&mutated);
  if (files == nullptr || files->files.empty()) return ac::Declined{"declined"};
  return Mutant{std::move(files->files[0].bytes)};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!neff::SkipsHashForFuzzing()) __builtin_trap();  // neff_hash_skip.cc is not linked
  fuzz::CheckNeff(ByteView(data, size));
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return fuzz::MutateOneRule<Mutant>(data, size, max_size, seed,
                                     neff::conformance::NeffConformance(), BreakRule);
}
