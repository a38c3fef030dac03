#include "validators/neff/program.h"

namespace accelcheck::neff {

std::vector<Trigger> ReadTriggers(ByteView program) {
  std::vector<Trigger> triggers;
  ForEachTrigger(program, [&](const Trigger& t) { triggers.push_back(t); });
  return triggers;
}

}  // namespace accelcheck::neff
