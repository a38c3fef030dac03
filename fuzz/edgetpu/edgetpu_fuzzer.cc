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
#include <cstring>
#include <random>

#include "conformance/edgetpu/mutate.h"
#include "conformance/edgetpu/read.h"
#include "conformance/edgetpu/serialize.h"
#include "validators/core/format.h"
#include "validators/edgetpu/edgetpu_format.h"

namespace {

using namespace accelcheck;

const Format& Edgetpu() { return edgetpu::EdgetpuFormat(); }

void CheckDiagnostics(const DiagnosticSink& sink) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == nullptr || FindRuleOf(Edgetpu(), d.rule->id) != d.rule) __builtin_trap();
    if (d.rule->category == Category::kInternal) __builtin_trap();
  }
}

DiagnosticSink Validate(ByteView bytes) {
  const InputBuffer input = InputBuffer::Copy(bytes);
  ValidateContext context;
  context.limits.time_budget_ms = 0;  // libFuzzer's -timeout bounds the time
  DiagnosticSink sink(Profile{}, "fuzz-input");
  Edgetpu().Validate(input, context, sink);
  CheckDiagnostics(sink);
  return sink;
}

void CheckInspect(ByteView bytes) {
  const InputBuffer input = InputBuffer::Copy(bytes);
  DiagnosticSink sink(Profile{}, "fuzz-input");
  const nlohmann::json tree = Edgetpu().Inspect(input, ValidateContext{}, sink);
  (void)tree.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  CheckDiagnostics(sink);
}

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
  CheckInspect(bytes);
  if (sink.error_count() == 0 && !sink.failed() && Edgetpu().Detect(bytes)) CheckRoundTrip(bytes);
  return 0;
}

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::minstd_rand random(seed);
  // Three in four mutations stay byte-level: they are what finds decoder bugs.
  if (random() % 4 != 0) return LLVMFuzzerMutate(data, size, max_size);
  const auto& cases = edgetpu::EdgetpuConformance().Cases();
  if (cases.empty()) return LLVMFuzzerMutate(data, size, max_size);
  const Rule& rule = *cases[random() % cases.size()].rule;
  const auto mutated = edgetpu::MutateEdgetpu(ByteView(data, size), rule, random());
  const auto* bytes = std::get_if<edgetpu::ByteMutation>(&mutated);
  if (bytes == nullptr || bytes->bytes.size() > max_size)
    return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, bytes->bytes.data(), bytes->bytes.size());
  return bytes->bytes.size();
}
