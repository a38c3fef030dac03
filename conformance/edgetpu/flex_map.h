// The FlexBuffer map of an Edge TPU operator's custom options
// (docs/formats/edgetpu.md §2.3), read through the project's bounds-checked
// FlexBuffer reader and written with flexbuffers::Builder. The builder
// always sorts a map's keys; an unsorted or repeated order the model asks
// for is patched into the key and value vectors afterwards.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "conformance/edgetpu/model.h"
#include "validators/core/bytes.h"

namespace accelcheck::edgetpu {

// The map as the model holds it, a package still a FlexString or FlexBlob.
// Nothing when the bytes are not a map that reads whole, or a value is of a
// type the model has no place for (a float, a typed vector, a nested map).
std::optional<model::FlexMap> ReadFlexMap(ByteView bytes);

struct WrittenFlexMap {
  std::vector<uint8_t> bytes;
  std::optional<uint64_t> package_at;  // the first FlexPackage's first byte
};

// Writes `map`, each FlexPackage as the bytes `write_package` makes of it.
// Values are written in entry order, except that `package_first` writes the
// first FlexPackage before the others, which moves it within the buffer but
// not within the key vector.
WrittenFlexMap WriteFlexMap(
    const model::FlexMap& map,
    const std::function<std::vector<uint8_t>(const model::Package&)>& write_package,
    bool package_first);

}  // namespace accelcheck::edgetpu
