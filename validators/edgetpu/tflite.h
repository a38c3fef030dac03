// The TensorFlow Lite side of an Edge TPU model (docs/formats/edgetpu.md §2):
// the model verified against the subset schema, and its Edge TPU operators
// found the way the runtime finds them, with the checks on each operator
// that come before its package is read (EDG-1 to EDG-3, EDG-11).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/flatbuffer.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/edgetpu/schema/tflite_generated.h"

namespace accelcheck::edgetpu {

namespace tfl = accelcheck::tflite;

// The custom_code the compiler gives its operator (EDG-2).
inline constexpr std::string_view kCustomOpName = "edgetpu-custom-op";
// BuiltinOperator CUSTOM.
inline constexpr int32_t kBuiltinCustom = 32;

// Verifies `file` as a TFLite model (EDG-1). False, with a diagnostic, when
// it does not verify.
bool VerifyModel(ByteView file, const Limits& limits, DiagnosticSink& sink);

// One Edge TPU operator: where it sits and the bytes of its custom options
// (within the file), when it has usable ones.
struct EdgetpuOp {
  uint32_t subgraph = 0;
  uint32_t index = 0;  // in the subgraph's operators
  std::string path;    // "subgraphs[0].operators[2]"
  const tfl::SubGraph* graph = nullptr;
  const tfl::Operator* op = nullptr;
  ByteView custom_options;      // empty when there are none to read
  uint64_t options_offset = 0;  // file offset of custom_options' first byte
  std::string options_path;     // "subgraphs[0].operators[2].custom_options"
};

// Every Edge TPU operator of a verified model, in subgraph and operator
// order, reporting what is wrong with the operators and their codes
// (EDG-2, EDG-3, EDG-11). An operator whose custom options cannot be read
// is listed with empty custom_options.
std::vector<EdgetpuOp> FindEdgetpuOps(ByteView file, const tfl::Model& model, DiagnosticSink& sink);

}  // namespace accelcheck::edgetpu
