// Small string helpers for diagnostic messages (no std::format in libstdc++ 12).
#pragma once

#include <charconv>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

namespace accelcheck {

namespace detail {

// Appends what `out << value` would print. Strings and integers, nearly all
// of a message or a JSON pointer, skip the stream: its construction costs
// more than the text when paths are made by the million. A type with an
// AppendTo(std::string&) member appends itself.
template <typename T>
void AppendAsStreamed(std::string& out, const T& value) {
  if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    out.append(std::string_view(value));
  } else if constexpr (requires { value.AppendTo(out); }) {
    value.AppendTo(out);
  } else if constexpr (std::is_same_v<T, char>) {
    out += value;
  } else if constexpr (std::is_same_v<T, bool>) {
    out += value ? '1' : '0';
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, signed char> &&
                       !std::is_same_v<T, unsigned char>) {
    char digits[24];
    const std::to_chars_result end = std::to_chars(digits, digits + sizeof(digits), value);
    out.append(digits, end.ptr);
  } else {
    std::ostringstream stream;
    stream << value;
    out += stream.str();
  }
}

}  // namespace detail

// Concatenates its arguments as operator<< prints them.
template <typename... Args>
std::string Str(const Args&... args) {
  std::string out;
  (detail::AppendAsStreamed(out, args), ...);
  return out;
}

// "0x1f0": offsets and sizes in messages are hexadecimal, like LLVM Object.
std::string Hex(uint64_t value);

// A name taken from an untrusted file, between double quotes and otherwise
// as it is: each report writer escapes what its medium needs (control bytes
// in text, string escapes in JSON, markup in XML), so that a value is escaped
// once, by the writer (docs/ARCHITECTURE.md "Outputs").
std::string Quoted(std::string_view raw);

}  // namespace accelcheck
