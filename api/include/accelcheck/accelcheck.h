// The stable interface for programs that embed accelcheck: bytes in,
// diagnostics out, no file read or written (docs/ARCHITECTURE.md "Installing
// and embedding"). It includes only the standard library and declares plain
// structs, so that it stays the same when the validators change.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// Every member of these structs has an initializer, so that a designated
// initializer ({.profile = Profile::kStrict}) may leave any of them out.
namespace accelcheck::api {

enum class Severity : uint8_t { kNote, kWarning, kError };

// What kind of failure a diagnostic describes (docs/ARCHITECTURE.md "Diagnostics").
enum class Category : uint8_t { kMalformed, kInvalid, kUnsupported, kLimit, kInternal };

// The rules' severities: the default profile accepts what the real toolchains
// emit; strict is the spec as written.
enum class Profile : uint8_t { kDefault, kStrict };

// The outcome of one validation, numbered as `accelcheck validate` exits.
enum class Outcome : uint8_t {
  kConforms = 0,  // no error (warnings allowed unless Options::werror)
  kErrors = 1,    // at least one error, or a warning under Options::werror
  kUsage = 2,     // the options cannot be used (Result::usage_error says why)
  kFailed = 3,    // a resource limit was hit or accelcheck failed: no verdict
};

// A file held in memory under the name a validation looks it up by.
struct File {
  std::string name = {};                // "model.ptd", "frontend.json", "prog.tprog"
  std::span<const uint8_t> bytes = {};  // not copied: must outlive Validate
};

struct Options {
  // The format to check the bytes as ("pte", "gemini", "tensil"); empty:
  // detected from the content.
  std::string format = {};
  Profile profile = Profile::kDefault;
  bool werror = false;      // warnings make the outcome kErrors
  uint64_t max_errors = 0;  // list at most this many errors (0: all)
  // The input's file name ("model.tmodel"): what messages call it, and the
  // place the files it names are looked up relative to (a Tensil model's
  // .tprog and .tdata, a .pte's <stem>.ptd). Empty: "<memory>", beside which
  // nothing is looked up.
  std::string name = {};
  // The companions, as `accelcheck validate --data` takes them: a .ptd, a
  // Gemini frontend IR, a Tensil .tarch, .tprog or .tdata. The only files a
  // validation reads: one named nowhere here is missing. A companion the
  // input's format does not read is reported as core.companion.unused.
  std::vector<File> companions = {};
  // Resource limits; unset, the defaults of `accelcheck validate` (docs/RULES.md).
  std::optional<uint64_t> max_depth = {};
  std::optional<uint64_t> max_tables = {};
  std::optional<uint64_t> time_budget_ms = {};
  std::optional<uint64_t> max_inflated_bytes = {};
  std::optional<uint64_t> max_compression_ratio = {};
  std::optional<uint64_t> max_members = {};
  std::optional<uint64_t> max_member_size = {};
  // What the file is checked against; unset, the defaults of `accelcheck
  // validate`. The Edge TPU runtime version a package must load on (10 or
  // more; `--edgetpu-runtime`): one that needs a newer runtime is an error.
  std::optional<uint64_t> edgetpu_runtime = {};
};

struct Diagnostic {
  std::string rule = {};                 // a stable rule id: "pte.segment.bounds"
  Severity severity = Severity::kError;  // after the profile
  Category category = Category::kInvalid;
  std::optional<uint64_t> offset = {};  // byte offset, when the bytes are known
  std::optional<uint64_t> length = {};
  std::string path = {};    // object path or JSON pointer, when the object is known
  std::string member = {};  // the member or named file the offset counts in, if any
  // In a JSON file, the 1-based line and column (in code points) of `offset`; 0 otherwise.
  uint64_t line = 0;
  uint64_t column = 0;
  std::string message = {};  // names the object, the expected and the actual value
};

struct Result {
  std::string format = {};  // the format the bytes were checked as; empty if none
  Outcome outcome = Outcome::kConforms;
  std::vector<Diagnostic> diagnostics = {};
  uint64_t errors = 0;  // including errors past Options::max_errors
  uint64_t warnings = 0;
  std::string usage_error = {};  // why the options cannot be used (kUsage only)
};

// Checks `bytes` against every rule of their format, with the companions of
// `options`; reads no file. Never throws for anything the bytes contain; a
// failure inside a validator is a diagnostic of category kInternal with the
// outcome kFailed.
Result Validate(std::span<const uint8_t> bytes, const Options& options = {});

// The formats compiled in, in the order detection tries them.
std::vector<std::string> FormatIds();

// The version of accelcheck ("0.1.0").
std::string_view Version();

std::string_view SeverityName(Severity severity);  // "note", "warning", "error"
std::string_view CategoryName(Category category);  // "malformed", "invalid", ...

}  // namespace accelcheck::api
