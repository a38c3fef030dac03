// Engine programs (docs/formats/neff.md §3): 64-byte slots, and the
// PSEUDO_DMA_TRIGGER slots that start DMA blocks. What the validator and
// the DMA executor read of them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "validators/core/bytes.h"

namespace accelcheck::neff {

inline constexpr uint64_t kSlot = 64;
inline constexpr uint8_t kSlotWords = 0x10;
inline constexpr uint8_t kFirstOpcode = 0xB1;
inline constexpr uint8_t kTriggerOpcode = 0xC1;
// §3.2: the trigger slot's queue name and block id.
inline constexpr uint64_t kQueueAt = 0x0C, kQueueBytes = 32, kBlockIdAt = 0x30;

struct Trigger {
  std::string_view queue;  // views the program's bytes
  uint32_t block_id = 0;
  uint64_t offset = 0;  // of its slot
};

// Calls `visit` with each trigger slot of a program's whole slots, in
// program order.
template <typename Visit>
void ForEachTrigger(ByteView program, Visit&& visit) {
  for (uint64_t at = 0; program.size() - at >= kSlot; at += kSlot) {
    if (program[at] != kTriggerOpcode) continue;
    const auto* name = reinterpret_cast<const char*>(program.data() + at + kQueueAt);
    visit(Trigger{std::string_view(name, strnlen(name, kQueueBytes)),
                  *ReadLE<uint32_t>(program, at + kBlockIdAt), at});
  }
}

// The trigger slots of a program's whole slots, in program order.
std::vector<Trigger> ReadTriggers(ByteView program);

}  // namespace accelcheck::neff
