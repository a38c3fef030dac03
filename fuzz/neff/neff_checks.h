// What both NEFF fuzz targets check of an input besides the sanitizers and
// fuzz_oracles.h (every diagnostic a rule of the table, none internal,
// inspect output serialises): ReadMember gives neff.json of every file that
// validates (NEFF-21) and says why when it gives nothing, and a file that
// validates without errors still does when read into documents and written
// again with a fresh data_size and hash (docs/formats/neff.md §1.3).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "conformance/neff/model.h"
#include "fuzz/fuzz_oracles.h"
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

inline void CheckNeff(ByteView bytes) {
  const DiagnosticSink sink = Validate(NeffFormat(), bytes);
  CheckInspect(NeffFormat(), bytes);
  const bool valid = sink.error_count() == 0 && !sink.failed() && NeffFormat().Detect(bytes);
  CheckReadMember(bytes, valid);
  if (valid) CheckRoundTrip(bytes);
}

}  // namespace accelcheck::fuzz
