// The targets a file is checked against (docs/ARCHITECTURE.md "Targets"): one
// struct, filled with defaults from targets.def, each exposed as a CLI flag
// from the same table.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace accelcheck {

struct Targets {
#define TARGET(field, flag, def, format, min, max, help) uint64_t field = def;
#include "validators/core/targets.def"
#undef TARGET
};

struct TargetInfo {
  std::string_view flag;
  std::string_view format;  // the format whose verdict the target changes
  std::string_view help;
  uint64_t default_value;
  uint64_t min_value;
  uint64_t max_value;
  uint64_t Targets::*field;
};

std::span<const TargetInfo> AllTargets();

}  // namespace accelcheck
