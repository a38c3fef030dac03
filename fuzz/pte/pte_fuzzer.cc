// libFuzzer target for the .pte / .ptd validator and inspector.
//
// Oracles besides the sanitizers: every diagnostic names a rule of the tables,
// none is an internal error, inspect output serialises, and a file that
// validates without errors still does after the reader/writer round trip.
// The custom mutator mixes libFuzzer's byte mutations with the project's
// structure-aware ones (conformance/pte/mutate.cc: one broken rule each).
// A program whose EXTERNAL tensors go unchecked without named data is
// validated again with the example .ptd the seeds' EXTERNAL program was made
// with, so that the checks against named data (PTE-51d) run on fuzzed
// programs too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "conformance/pte/bases.h"
#include "conformance/pte/mutate.h"
#include "conformance/pte/read.h"
#include "conformance/pte/serialize.h"
#include "fuzz/fuzz_oracles.h"
#include "validators/core/file_source.h"
#include "validators/core/format.h"
#include "validators/pte/pte_format.h"
#include "validators/pte/rules.h"

namespace {

using namespace accelcheck;

const Format& Pte() { return pte::PteFormat(); }

DiagnosticSink Validate(ByteView bytes) { return fuzz::Validate(Pte(), bytes); }

// The companion .ptd of the conformance suite's example program with
// EXTERNAL tensors (docs/formats/pte.md §4 PTE-51d).
const std::vector<uint8_t>& ExampleNamedData() {
  static const std::vector<uint8_t> ptd = [] {
    for (const pte::NamedBase& example : pte::ExampleBases()) {
      if (example.data) return pte::SerializePtd(*example.data);
    }
    __builtin_trap();  // the suite always has one
  }();
  return ptd;
}

DiagnosticSink ValidateWithNamedData(ByteView bytes) {
  MemoryFiles files;
  files.Add("example.ptd", ExampleNamedData());
  ValidateContext context;
  context.files = &files;
  context.companions = {"example.ptd"};
  return fuzz::Validate(Pte(), bytes, std::move(context));
}

// A valid program or named-data file must stay valid when read into the
// model and written again.
void CheckRoundTrip(ByteView bytes) {
  std::string error;
  std::vector<uint8_t> again;
  if (HasBytesAt(bytes, 4, "FT01")) {
    const auto file = pte::ReadPtdFile(bytes, &error);
    if (!file) return;  // the pre-2025-06 layout, which the reader refuses
    again = pte::SerializePtd(*file);
  } else {
    const auto file = pte::ReadFile(bytes, &error);
    if (!file) __builtin_trap();  // it validated, so it must decode
    again = pte::Serialize(*file);
  }
  if (Validate(again).error_count() != 0) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ByteView bytes(data, size);
  const DiagnosticSink sink = Validate(bytes);
  if (fuzz::Reports(sink, pte::rules::kExternalUnchecked)) (void)ValidateWithNamedData(bytes);
  fuzz::CheckInspect(Pte(), bytes);
  if (sink.error_count() == 0 && !sink.failed()) CheckRoundTrip(bytes);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return fuzz::MutateOneRule<pte::ByteMutation>(data, size, max_size, seed, pte::PteConformance(),
                                                pte::MutatePte);
}
