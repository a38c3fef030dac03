// libFuzzer target for the Edge TPU validator and inspector, on the bytes of
// a .tflite model or a bare DWN1 package.
//
// Oracles besides the sanitizers: every diagnostic names a rule of the
// tables, none is an internal error, inspect output serialises, and a file
// that validates without errors still does after the reader/writer round
// trip, and the executor (reference_exec/edgetpu) links every executable
// of a file that validates, replays its hints and re-lays out its layers
// both ways without loss. The custom mutator mixes libFuzzer's byte mutations with the
// project's structure-aware ones (conformance/edgetpu/mutate.cc), which
// change the package inside the operator and wrap it again.
#include <cstddef>
#include <cstdint>

#include "conformance/edgetpu/mutate.h"
#include "conformance/edgetpu/read.h"
#include "conformance/edgetpu/serialize.h"
#include "fuzz/fuzz_oracles.h"
#include "reference_exec/edgetpu/dma_replay.h"
#include "reference_exec/edgetpu/link.h"
#include "reference_exec/edgetpu/load.h"
#include "reference_exec/edgetpu/relayout.h"
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

// The layers' tensors are kept small: a valid file may declare 2 GB ones,
// and the inverse's device buffer is the larger side (docs/formats/
// edgetpu.md §6.3).
constexpr uint64_t kMaxTensorBytes = 1 << 20;

void CheckLayers(const edgetpu::dwn::Executable& exe) {
  for (const bool output : {false, true}) {
    const auto* layers = output ? exe.output_layers() : exe.input_layers();
    for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
      std::string error;
      const auto geometry = edgetpu::LayerGeometry::Of(*layers->Get(i), output, &error);
      if (!geometry || edgetpu::ConversionOverLimit(*geometry, /*inverse=*/true, kMaxTensorBytes))
        continue;
      std::vector<uint8_t> user(geometry->user_bytes());
      for (size_t k = 0; k < user.size(); ++k) user[k] = static_cast<uint8_t>(k * 31 + 7);
      const auto device = geometry->ToDevice(user);
      if (geometry->ToUser(device, edgetpu::RelayoutMethod::kElementMap) != user) __builtin_trap();
      (void)geometry->ToUser(device, edgetpu::RelayoutMethod::kRuntimeCopy);
    }
  }
}

// What validates, the linker links: a refusal is a rule the validator missed.
void CheckExecutor(ByteView bytes) {
  const InputBuffer input = InputBuffer::Copy(bytes);
  DiagnosticSink sink(Profile{}, "fuzz");
  edgetpu::ForEachValidatedPackage(
      input, ValidateContext{}, sink, [](const edgetpu::LoadedPackage& p) {
        for (const edgetpu::ExecutableView& exe : p.view->executables) {
          edgetpu::LinkError error;
          if (!edgetpu::Link(*exe.executable, edgetpu::DefaultAddresses(*exe.executable), &error))
            __builtin_trap();
          (void)edgetpu::ReplayJson(edgetpu::ReplayHints(*exe.executable));
          CheckLayers(*exe.executable);
        }
      });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ByteView bytes(data, size);
  const DiagnosticSink sink = Validate(bytes);
  fuzz::CheckInspect(Edgetpu(), bytes);
  if (sink.error_count() == 0 && !sink.failed() && Edgetpu().Detect(bytes)) {
    CheckRoundTrip(bytes);
    CheckExecutor(bytes);
  }
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return fuzz::MutateOneRule<edgetpu::ByteMutation>(
      data, size, max_size, seed, edgetpu::EdgetpuConformance(), edgetpu::MutateEdgetpu);
}
