// A DWN1 package verified as the runtime verifies it (docs/formats/edgetpu.md
// §2, EDG-17 to EDG-27, EDG-92, EDG-93): the Package, its MultiExecutable
// and each Executable, every nested buffer placed in the file so that
// diagnostics carry file offsets and object paths that run through the
// TFLite operator into the package.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/flatbuffer.h"
#include "validators/core/format.h"
#include "validators/core/sink.h"
#include "validators/edgetpu/schema/executable_generated.h"

namespace accelcheck::edgetpu {

namespace dwn = platforms::darwinn;

// A nested buffer ready to read: its region in the file, and its bytes
// copied to aligned storage when they do not sit at a multiple of 8 in
// memory, since the generated accessors read 8-byte scalars in place (the
// runtime copies the package to a 4096-aligned buffer, §2).
struct NestedBuffer {
  FlatbufferRegion region;
  InputBuffer storage;  // empty when the bytes are read where they are

  NestedBuffer() = default;
  // `file`, when given, holds `bytes`: a copy is then taken from it page by
  // page, so that a mapped file's copied pages leave memory.
  NestedBuffer(ByteView bytes, uint64_t file_offset, std::string path,
               const InputBuffer* file = nullptr);
  NestedBuffer(NestedBuffer&&) = default;
  NestedBuffer& operator=(NestedBuffer&&) = default;
};

struct ExecutableView {
  uint32_t index = 0;  // in serialized_executables
  NestedBuffer buffer;
  const dwn::Executable* executable = nullptr;
};

// A package whose Package and MultiExecutable verify; `executables` holds
// those that verify themselves, in vector order.
struct PackageView {
  NestedBuffer buffer;
  const dwn::Package* package = nullptr;
  NestedBuffer multi_buffer;
  const dwn::MultiExecutable* multi = nullptr;
  uint32_t executable_count = 0;  // in serialized_executables
  std::vector<ExecutableView> executables;
};

// The runtime versions of docs/formats/edgetpu.md §1: the oldest a package
// may ask for, and the newest runtime (the default of --edgetpu-runtime).
inline constexpr int32_t kMinValidRuntimeVersion = 10;
inline constexpr int32_t kCurrentRuntimeVersion = 14;
static_assert(Targets{}.edgetpu_runtime == kCurrentRuntimeVersion);

// Verifies the package `bytes` found at `file_offset` (object path `path`)
// and everything nested in it, in the runtime's order, with the package-level
// rules that decide whether the runtime reads on (EDG-17 to EDG-27, EDG-92,
// EDG-93), under the context's limits and for its target runtime. Nothing
// when the Package or MultiExecutable fails to verify. `file`, when given,
// is the input holding `bytes` (see NestedBuffer).
std::optional<PackageView> DecodePackage(ByteView bytes, uint64_t file_offset, std::string path,
                                         const ValidateContext& context, DiagnosticSink& sink,
                                         const InputBuffer* file = nullptr);

}  // namespace accelcheck::edgetpu
