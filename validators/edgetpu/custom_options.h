// An Edge TPU operator's custom options: the FlexBuffer map the runtime
// takes its package from (docs/formats/edgetpu.md §2, EDG-4 to EDG-10,
// EDG-91, EDG-96), read with every offset checked, as the runtime does not.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "validators/core/bytes.h"
#include "validators/core/sink.h"
#include "validators/edgetpu/tflite.h"

namespace accelcheck::edgetpu {

// The package bytes an operator carries and where they are.
struct PackageBytes {
  ByteView bytes;
  uint64_t file_offset = 0;
  std::string path;  // subgraphs[0].operators[2].custom_options["4"]
};

// Reads `op`'s custom options, reporting what breaks EDG-4 to EDG-10 and
// EDG-91; the package under key "4" when there is one to validate. A
// package of the pre-2020 layout is reported as unsupported and not
// returned.
std::optional<PackageBytes> ReadCustomOptions(const EdgetpuOp& op, DiagnosticSink& sink);

}  // namespace accelcheck::edgetpu
