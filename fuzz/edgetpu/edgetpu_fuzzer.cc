// libFuzzer target for the Edge TPU validator and inspector, on the bytes of
// a .tflite model or a bare DWN1 package.
//
// Oracles besides the sanitizers: every diagnostic names a rule of the
// tables, none is an internal error, inspect output serialises, and a file
// that validates without errors still does after the reader/writer round
// trip. The custom mutator mixes libFuzzer's byte mutations with the
// project's structure-aware ones (conformance/edgetpu/mutate.cc), which
// change the package inside the operator and wrap it again.
#include <cstddef>
#include <cstdint>

#include "conformance/edgetpu/mutate.h"
#include "conformance/edgetpu/read.h"
#include "conformance/edgetpu/serialize.h"
#include "fuzz/fuzz_oracles.h"
#include "validators/core/format.h"
#include "validators/edgetpu/edgetpu_format.h"

namespace {

using namespace accelcheck;

const Format& Edgetpu() { return edgetpu::EdgetpuFormat(); }

DiagnosticSink Validate(ByteView bytes) { return fuzz::Validate(Edgetpu(), bytes); }

// A valid file must stay valid when read into the model and written again.
void CheckRoundTrip(ByteView bytes) {
  std::string error;
  const auto file = edgetpu::ReadFile(bytes, &error);
  if (!file) __builtin_trap();  // it validated, so it must decode
  if (Validate(edgetpu::Serialize(*file)).error_count() != 0) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ByteView bytes(data, size);
  const DiagnosticSink sink = Validate(bytes);
  fuzz::CheckInspect(Edgetpu(), bytes);
  if (sink.error_count() == 0 && !sink.failed() && Edgetpu().Detect(bytes)) CheckRoundTrip(bytes);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return fuzz::MutateOneRule<edgetpu::ByteMutation>(
      data, size, max_size, seed, edgetpu::EdgetpuConformance(), edgetpu::MutateEdgetpu);
}
