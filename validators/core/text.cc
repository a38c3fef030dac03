#include "validators/core/text.h"

#include <cstdio>

namespace accelcheck {

std::string Hex(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::string Quoted(std::string_view raw) {
  std::string out;
  out.reserve(raw.size() + 2);
  out += '"';
  out += raw;
  out += '"';
  return out;
}

}  // namespace accelcheck
