// Small string helpers for diagnostic messages (no std::format in libstdc++ 12).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

namespace accelcheck {

// Concatenates its arguments with operator<<.
template <typename... Args>
std::string Str(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

// "0x1f0": offsets and sizes in messages are hexadecimal, like LLVM Object.
std::string Hex(uint64_t value);

// A name taken from an untrusted file, quoted and with control bytes escaped,
// so that a message stays one readable line.
std::string Quoted(std::string_view raw);

}  // namespace accelcheck
