// Reading a verified flatbuffer back into a format's model, as every
// format's reader (conformance/<format>/read.cc) does: an absent field stays
// absent (nullopt), a present one keeps its value, defaults included.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>

namespace accelcheck::conformance {

inline std::optional<std::string> ReadString(const flatbuffers::String* s) {
  if (s == nullptr) return std::nullopt;
  return s->str();
}

// A vector of scalars, each converted to `Out`.
template <typename T, typename Out = T>
std::optional<std::vector<Out>> ReadScalars(const flatbuffers::Vector<T>* v) {
  if (v == nullptr) return std::nullopt;
  std::vector<Out> out;
  out.reserve(v->size());
  for (auto x : *v) out.push_back(static_cast<Out>(x));
  return out;
}

// A vector of tables, each read with `read_one`.
template <typename T, typename F>
auto ReadTables(const flatbuffers::Vector<flatbuffers::Offset<T>>* v, F read_one)
    -> std::optional<std::vector<decltype(read_one(static_cast<const T*>(nullptr)))>> {
  if (v == nullptr) return std::nullopt;
  std::vector<decltype(read_one(static_cast<const T*>(nullptr)))> out;
  out.reserve(v->size());
  for (const T* t : *v) out.push_back(read_one(t));
  return out;
}

}  // namespace accelcheck::conformance
