// Writes the Edge TPU model as bytes with the generated flatbuffers builders,
// laid out like the Edge TPU compiler's output (docs/formats/edgetpu.md §5.2,
// EDG-86, EDG-87): each executable a buffer of its own whose parameters start on a
// 4096-byte boundary; the multi-executable with every executable string on a
// 4096-byte boundary, the last executable of the vector first in memory (the
// parameter-caching one of an [EO, PC] pair); the DWN1 package with the
// multi-executable at 4096. Every buffer then rounds up to a multiple of
// 4096, as real packages and executables do. Fields are written exactly when
// the model has them, default values included.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "conformance/edgetpu/model.h"

namespace accelcheck::edgetpu {

// Alignments inside a package, each a power of two; the defaults are the
// compiler's. A mutation may change them to break a convention.
struct PackageLayout {
  uint32_t multi_executable_alignment = 4096;  // serialized_multi_executable's data
  uint32_t executable_alignment = 4096;        // each serialized_executables string's data
  uint32_t parameters_alignment = 4096;        // parameters' data (empty ones too)
  // The vector's last executable first in memory, as the compiler places the
  // PC executable of [EO, PC] first; false writes them in vector order.
  bool last_executable_first = true;
  // Bytes past its alignment that each executable's data, and each non-empty
  // parameters vector's data, starts at: 0 in compiler output, a multiple of
  // 4 (the alignment of a vector's length) below the alignment otherwise.
  uint32_t executable_offset = 0;
  uint32_t parameters_offset = 0;
  // Zero bytes after each executable's flatbuffer, inside its string, and
  // after the package's: 0 in compiler output (EDG-87, EDG-88).
  uint32_t executable_tail = 0;
  uint32_t package_tail = 0;
};

struct SerializeOptions {
  PackageLayout layout;
  // Where each Edge TPU operator's package starts in the file, modulo 16: an
  // even value (real files put it 2-, 4- and 8-byte aligned, docs/formats/
  // edgetpu.md §2.4). Nothing leaves it where the writer puts it. A package of
  // 64 KiB or more has a 4-byte length before it in the map, so it cannot
  // start 2 modulo 4.
  std::optional<uint32_t> package_offset_mod16;
};

// Each nested buffer alone, without file identifier.
std::vector<uint8_t> SerializeExecutable(const model::Executable& executable,
                                         const PackageLayout& layout = {});
std::vector<uint8_t> SerializeMultiExecutable(const model::MultiExecutable& multi,
                                              const PackageLayout& layout = {});

// The package with identifier DWN1: a bare package file, or the bytes of a
// FlexPackage.
std::vector<uint8_t> SerializePackage(const model::Package& package,
                                      const PackageLayout& layout = {});

// An Edge TPU operator's custom options.
std::vector<uint8_t> SerializeFlexMap(const model::FlexMap& map, const PackageLayout& layout = {});

// The .tflite file (identifier TFL3). Throws std::invalid_argument when
// `options` asks for a package offset the map cannot give, or an alignment
// that is not a power of two.
std::vector<uint8_t> Serialize(const model::TfliteModel& tflite,
                               const SerializeOptions& options = {});

// Either kind of file.
std::vector<uint8_t> Serialize(const model::File& file, const SerializeOptions& options = {});

}  // namespace accelcheck::edgetpu
