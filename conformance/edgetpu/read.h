// Reads an Edge TPU file back into the model (the inverse of Serialize), so
// that a mutation can start from a real file. Every flatbuffer is verified
// (on an aligned copy) before it is read, and the FlexBuffer map is read
// with every offset checked, so that any bytes at all are safe to read.
//
// What does not decode stays as bytes where the model has a place for them:
// the custom options of an Edge TPU operator that are not a map of the kinds
// of value the model holds, a "4" that is not a DWN1 package, a
// multi-executable or executable that fails verification. What has no such
// place (a file that is neither TFL3 nor DWN1, a model or bare package that
// fails verification) gives nothing.
#pragma once

#include <optional>
#include <string>

#include "conformance/edgetpu/model.h"
#include "validators/core/bytes.h"

namespace accelcheck::edgetpu {

// A .tflite model (identifier TFL3) or a bare package (DWN1), by the bytes
// at 4..8. Nothing when the bytes do not decode (then `error` says why).
std::optional<model::File> ReadFile(ByteView bytes, std::string* error);

std::optional<model::TfliteModel> ReadTflite(ByteView bytes, std::string* error);

// A package with its identifier: a bare package file, or the bytes of "4".
std::optional<model::Package> ReadPackage(ByteView bytes, std::string* error);

}  // namespace accelcheck::edgetpu
