// What both NEFF fuzz targets check of an input besides the sanitizers and
// fuzz_oracles.h (every diagnostic a rule of the table, none internal,
// inspect output serialises): ReadMember gives neff.json of every file that
// validates (NEFF-21) and says why when it gives nothing, a file that
// validates without errors still does when read into documents and written
// again with a fresh data_size and hash (docs/formats/neff.md §1.3), and
// the DMA executor runs it without an access outside a variable, which the
// validator's NEFF-39 rules out (§7; an access into a reservation leaves
// NEFF-31's warning, which a valid file may have).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "conformance/neff/model.h"
#include "fuzz/fuzz_oracles.h"
#include "reference_exec/neff/dma.h"
#include "validators/core/format.h"
#include "validators/neff/neff_format.h"

namespace accelcheck::fuzz {

inline const Format& NeffFormat() { return neff::NeffFormat(); }

inline void CheckReadMember(ByteView bytes, bool valid) {
  std::string error;
  const std::optional<std::vector<uint8_t>> member =
      NeffFormat().ReadMember(InputBuffer::Copy(bytes), ValidateContext{}, "neff.json", &error);
  if (!member && error.empty()) __builtin_trap();
  if (valid && !member) __builtin_trap();
}

// The reader may refuse a valid file (an archive it cannot give back as it
// was); what it reads, the writer must write as a valid file.
inline void CheckRoundTrip(ByteView bytes) {
  std::string error;
  std::optional<neff::conformance::Neff> neff = neff::conformance::Read(bytes, &error);
  if (!neff) return;
  neff->header.data_size.reset();
  neff->header.hash.reset();
  if (Validate(NeffFormat(), neff::conformance::Write(*neff)).error_count() != 0) __builtin_trap();
}

// The executor on zero inputs, its variables and sides bounded and its time
// budget short to keep runs fast: it may refuse what it does not model or a
// limit, never an access outside a variable.
inline void CheckDmaRun(ByteView bytes) {
  ValidateContext context;
  context.limits.max_tensor_bytes = uint64_t{16} << 20;
  const InputBuffer input = InputBuffer::Copy(bytes);
  std::string error;
  neff::exec::Refusal refusal = neff::exec::Refusal::kUnsupported;
  const std::optional<neff::exec::Loaded> loaded =
      neff::exec::Load(input, context, &error, &refusal);
  if (!loaded) return;
  std::map<std::string, std::vector<uint8_t>> inputs;
  for (const neff::exec::Buffer* b : loaded->OfType(neff::VarType::kInput)) {
    inputs[b->name].assign(b->size, 0);
  }
  if (!neff::exec::Run(*loaded, inputs, &error, {.deadline = Deadline(2000)}, &refusal) &&
      refusal == neff::exec::Refusal::kOutside) {
    __builtin_trap();
  }
}

inline void CheckNeff(ByteView bytes) {
  const DiagnosticSink sink = Validate(NeffFormat(), bytes);
  CheckInspect(NeffFormat(), bytes);
  const bool valid = sink.error_count() == 0 && !sink.failed() && NeffFormat().Detect(bytes);
  CheckReadMember(bytes, valid);
  if (valid) {
    CheckRoundTrip(bytes);
    CheckDmaRun(bytes);
  }
}

}  // namespace accelcheck::fuzz
