#include "validators/neff/program.h"

#include <algorithm>

namespace accelcheck::neff {

std::vector<Trigger> ReadTriggers(ByteView program) {
  std::vector<Trigger> triggers;
  for (uint64_t at = 0; program.size() - at >= kSlot; at += kSlot) {
    if (program[at] != kTriggerOpcode) continue;
    const ByteView name = program.subspan(at + kQueueAt, kQueueBytes);
    const auto nul = std::find(name.begin(), name.end(), uint8_t{0});
    triggers.push_back(
        {std::string(name.begin(), nul), *ReadLE<uint32_t>(program, at + kBlockIdAt), at});
  }
  return triggers;
}

}  // namespace accelcheck::neff
