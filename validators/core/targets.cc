#include "validators/core/targets.h"

namespace accelcheck {

std::span<const TargetInfo> AllTargets() {
  static const TargetInfo kTargets[] = {
#define TARGET(field, flag, def, format, min, max, help) \
  {flag, format, help, def, min, max, &Targets::field},
#include "validators/core/targets.def"
#undef TARGET
  };
  return kTargets;
}

}  // namespace accelcheck
