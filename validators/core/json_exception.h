// nlohmann::json reports its errors as "[json.exception.type_error.302] type
// must be number, but is string": the bracketed id is the library's, not the
// user's business, and never reaches a message.
#pragma once

#include <string>
#include <string_view>

namespace accelcheck {

inline std::string JsonExceptionText(std::string_view what) {
  constexpr std::string_view kPrefix = "[json.exception.";
  if (what.substr(0, kPrefix.size()) == kPrefix) {
    const size_t end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

}  // namespace accelcheck
