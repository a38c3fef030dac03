// Each format's part of the golden runner (tools/accelcheck/golden.h), which
// the format registry names (FormatEntry::golden).
#pragma once

#include "tools/accelcheck/golden.h"

namespace accelcheck::golden {

const GoldenFormat& TensilGolden();   // golden_tensil.cc
const GoldenFormat& GeminiGolden();   // golden_gemini.cc
const GoldenFormat& PteGolden();      // golden_pte.cc
const GoldenFormat& EdgetpuGolden();  // golden_edgetpu.cc
const GoldenFormat& NeffGolden();     // golden_neff.cc

}  // namespace accelcheck::golden
