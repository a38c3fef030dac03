// The USB driver's walk of an executable's DMA hints, replayed (docs/
// formats/edgetpu.md §6.2): the transfers in order, with their fences and
// interrupts, and what they do to each buffer: which bytes of every input
// are sent and of every output received, how often each parameter byte is
// streamed, and which instruction chunks go out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "validators/edgetpu/hint_plan.h"

namespace accelcheck::edgetpu {

// One buffer the transfers read or write: an input or output layer's
// buffer for one batch element, or the parameters.
struct BufferUse {
  TransferKind kind = TransferKind::kInput;  // kInput, kOutput or kParameter
  std::string name;                          // the layer; empty for the parameters
  int32_t batch = 0;
  int64_t size = 0;   // bytes of the buffer
  int64_t moved = 0;  // bytes the transfers move, repeats counted
  // Never moved, and moved more than once: legal for inputs (the spatial
  // halos of real files), a fault for outputs and parameters.
  ByteRanges gaps, overlaps;
};

struct DmaReplay {
  HintPlan plan;
  std::vector<BufferUse> buffers;     // inputs, outputs (layer, then batch order), parameters
  std::vector<uint32_t> chunk_sends;  // per instruction chunk: how often it is sent
  // What leaves a fully deterministic plan incomplete: input bytes never
  // sent, output bytes never received or received twice, parameters not
  // streamed exactly once, chunks never sent. Empty when it is complete;
  // for other plans the device asks for the rest itself.
  std::vector<std::string> findings;
};

DmaReplay ReplayHints(const dwn::Executable& exe);

// The replay as JSON: "transfers" in order, "buffers", "chunks", "findings".
nlohmann::ordered_json ReplayJson(const DmaReplay& replay);

}  // namespace accelcheck::edgetpu
