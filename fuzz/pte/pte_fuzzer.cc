// libFuzzer target for the .pte / .ptd validator and inspector.
//
// Oracles besides the sanitizers: every diagnostic names a rule of the tables,
// none is an internal error, inspect output serialises, and a file that
// validates without errors still does after the reader/writer round trip.
// The custom mutator mixes libFuzzer's byte mutations with the project's
// structure-aware ones (conformance/pte/mutate.cc: one broken rule each).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "conformance/pte/mutate.h"
#include "conformance/pte/read.h"
#include "conformance/pte/serialize.h"
#include "validators/core/format.h"
#include "validators/pte/pte_format.h"

namespace {

using namespace accelcheck;

const Format& Pte() { return pte::PteFormat(); }

void CheckDiagnostics(const DiagnosticSink& sink) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == nullptr || FindRuleOf(Pte(), d.rule->id) != d.rule) __builtin_trap();
    if (d.rule->category == Category::kInternal) __builtin_trap();
  }
}

DiagnosticSink Validate(ByteView bytes) {
  const InputBuffer input = InputBuffer::Copy(bytes);
  ValidateContext context;
  context.limits.time_budget_ms = 0;  // libFuzzer's -timeout bounds the time
  DiagnosticSink sink(Profile{}, "fuzz-input");
  Pte().Validate(input, context, sink);
  CheckDiagnostics(sink);
  return sink;
}

void CheckInspect(ByteView bytes) {
  const InputBuffer input = InputBuffer::Copy(bytes);
  DiagnosticSink sink(Profile{}, "fuzz-input");
  const nlohmann::json tree = Pte().Inspect(input, ValidateContext{}, sink);
  (void)tree.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  CheckDiagnostics(sink);
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
  CheckInspect(bytes);
  if (sink.error_count() == 0 && !sink.failed()) CheckRoundTrip(bytes);
  return 0;
}

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::minstd_rand random(seed);
  // Three in four mutations stay byte-level: they are what finds decoder bugs.
  if (random() % 4 != 0) return LLVMFuzzerMutate(data, size, max_size);
  const auto& cases = pte::PteConformance().Cases();
  if (cases.empty()) return LLVMFuzzerMutate(data, size, max_size);
  const Rule& rule = *cases[random() % cases.size()].rule;
  const auto mutated = pte::MutatePte(ByteView(data, size), rule, random());
  const auto* bytes = std::get_if<pte::ByteMutation>(&mutated);
  if (bytes == nullptr || bytes->bytes.size() > max_size)
    return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, bytes->bytes.data(), bytes->bytes.size());
  return bytes->bytes.size();
}
