// An executable's DMA hints as the ordered transfer list the USB driver makes
// of them (docs/formats/edgetpu.md §6.2): one entry per hint that moves data,
// fences or waits, and the global fence appended after the last hint. The
// validator's F rules judge this plan, and the reference executor is to
// replay it, so that both read the hints the same way.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "validators/edgetpu/package.h"

namespace accelcheck::edgetpu {

enum class TransferKind : uint8_t {
  kInstructionChunk,  // the whole linked chunk `chunk`
  kInput,             // from the input layer's buffer for `batch`
  kOutput,            // into the output layer's buffer for `batch`
  kParameter,         // from the parameters
  kScratchIn,         // from the scratch buffer to the device (INFEED)
  kScratchOut,        // from the device to the scratch buffer (any other direction)
  kFence,             // a FenceHint, or the global fence
  kInterrupt,         // wait for scalar-core interrupt `interrupt`
};

std::string_view TransferKindName(TransferKind kind);

struct Transfer {
  // The global fence comes from no hint.
  static constexpr uint32_t kNoHint = UINT32_MAX;

  TransferKind kind = TransferKind::kFence;
  uint32_t hint = kNoHint;  // index in dma_hints.hints
  // The hint's direction as stored; the driver reads it only for scratch
  // (EDG-64, EDG-65).
  int16_t direction = 0;
  // Inputs and outputs: the layer the driver finds by name (the first of
  // that name), null when none has it; `layer_name` as the hint gives it.
  std::string_view layer_name;
  const dwn::Layer* layer = nullptr;
  int32_t batch = 0;
  // Descriptors: [offset, end) in their buffer, computed without overflow.
  int64_t offset = 0;
  int64_t end = 0;
  int32_t chunk = 0;      // kInstructionChunk; [offset, end) is then the
                          // chunk's bytes, empty when no chunk has that index
  int16_t interrupt = 0;  // kInterrupt: the InterruptType as stored
};

// Why a hint gives no transfer (§6.2, EDG-59, EDG-60).
enum class SkipReason : uint8_t {
  kNoneType,     // AnyHint NONE: the driver aborts
  kUnknownType,  // a tag above FenceHint: the driver skips it
  kNullValue,    // a known tag without its table: the driver reads through null
  kNullMeta,     // a descriptor without meta: likewise
  kUnknownDesc,  // a descriptor whose desc is none of the four: no DMA
};

struct SkippedHint {
  uint32_t hint = 0;
  SkipReason reason = SkipReason::kNoneType;
};

struct HintPlan {
  // False when the executable has no dma_hints table or it has no hints
  // vector, which the driver dereferences unchecked (EDG-57): the plan is
  // then empty.
  bool present = false;
  bool fully_deterministic = false;
  std::vector<Transfer> transfers;
  std::vector<SkippedHint> skipped;
};

// Walks the hints of `exe` in order, as the driver does. It reads only what
// the flatbuffer Verifier has checked, so it accepts any verified executable:
// what the driver could not turn into a transfer is listed in `skipped`
// instead. The global fence is appended when the hints are not fully
// deterministic; the driver also appends it when it does not overlap
// requests, which is a property of the driver, not of the file.
HintPlan PlanHints(const dwn::Executable& exe);

// [offset, end) ranges of one buffer.
using ByteRanges = std::vector<std::pair<int64_t, int64_t>>;

// What a set of transfers leaves of a buffer of `size` bytes: the ranges
// never covered, and those covered more than once, each sorted and clipped
// to [0, size). O(n log n) in the number of ranges, whatever the sizes.
struct Sweep {
  ByteRanges gaps, overlaps;
};
Sweep SweepRanges(ByteRanges ranges, int64_t size);

}  // namespace accelcheck::edgetpu
