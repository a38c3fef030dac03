// Diagnostics: the one record every validator emits (docs/ARCHITECTURE.md "Diagnostics").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace accelcheck {

enum class Severity : uint8_t { kNote, kWarning, kError };

// What kind of failure a diagnostic describes. Kept distinct so that a CI gate
// can tell "the file is broken" from "this tool cannot judge the file".
enum class Category : uint8_t {
  kMalformed,    // the bytes cannot be decoded
  kInvalid,      // decodes, but breaks a rule
  kUnsupported,  // a version or feature this tool does not handle
  kLimit,        // a resource limit was hit
  kInternal,     // the input could not be read, or this tool failed
};

std::string_view SeverityName(Severity s);
std::string_view CategoryName(Category c);

// One row of a format's rule table. Rules are constexpr data; ids are stable
// and documented (docs/RULES.md is generated from the tables).
struct Rule {
  std::string_view id;  // "pte.segment.bounds"
  Severity severity;    // in the default profile
  Severity strict;      // under --strict (the spec as written)
  Category category;
  std::string_view title;   // one line
  std::string_view source;  // spec section and upstream source it comes from
  // Why a rule that is a warning or a note by default is not an error: the
  // real toolchain that emits it (a compiler or a real file), or why
  // breaking it cannot change whether the runtime loads the file or what it
  // computes. Empty for a rule that is an error by default.
  std::string_view why_not_error = {};
};

// A format's rule table: pointers to the Rule objects diagnostics refer to.
using RuleTable = std::span<const Rule* const>;

// Where a problem is. Any part may be missing: a byte offset is given when
// the bytes are known, an object path when the object is. The path is a JSON
// pointer in JSON documents ("/0/12/buffer/3") and a dotted path in binary
// ones ("execution_plan[0].values[12].val.sizes[2]"). When the bytes lie in
// a member of a container or in a file the input names (a Tensil .tprog),
// `member` names it and `offset` counts from its start. In text inputs (JSON)
// the offset is also given as the 1-based line and column (in Unicode code
// points) a text editor shows; 0 when not known.
struct Location {
  std::optional<uint64_t> offset;
  std::optional<uint64_t> length;
  std::string path;
  std::string member = {};
  uint64_t line = 0;
  uint64_t column = 0;
};

// A location at `offset` (its length unknown) with the object path `path`.
inline Location LocationAt(uint64_t offset, std::string path) {
  return Location{offset, std::nullopt, std::move(path)};
}

struct Diagnostic {
  const Rule* rule = nullptr;
  Severity severity = Severity::kError;  // after the profile is applied
  std::string file;
  Location location;
  std::string message;
  // A finding the baseline accepts: reports show it as such, and it counts
  // neither as an error nor as a warning.
  bool baselined = false;
};

}  // namespace accelcheck
