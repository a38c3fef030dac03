// Golden cases (golden/README.md, docs/ARCHITECTURE.md "Golden cases"): a
// model, its inputs, the expected outputs from a source independent of the
// executor under test, and a tolerance. The runner reads and checks each
// golden/<format>/<case>/case.json strictly, hands the model and inputs to
// the format's GoldenFormat, and compares what it returns with the expected
// arrays (reference_exec/core/compare.h).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reference_exec/core/compare.h"
#include "validators/core/npy.h"

namespace accelcheck::golden {

// Where a case's expected outputs come from.
enum class Source : uint8_t {
  kHandComputed,   // worked out by hand, the working in the description
  kPublished,      // results published with the model or by its toolchain
  kNumpy,          // a re-implementation outside the executor (a test script)
  kOtherMode,      // the same executor in another mode (reference_mode)
  kRegressionPin,  // the executor's own output, pinned; needs an independent sibling
};

std::string_view SourceName(Source source);  // "hand-computed", ...

using Json = nlohmann::ordered_json;

// One case.json, checked.
struct Case {
  std::string format;  // the directory above the case's
  std::string name;    // the case's directory
  std::filesystem::path dir;

  std::string description;
  std::string op;  // "operator": what the case checks; a pin and its sibling share it
  Source source = Source::kHandComputed;
  std::string independent_sibling;  // regression-pin only
  Json model;                       // the format's recipe, or {"corpus": PATH}
  std::vector<std::string> companions;
  std::string mode;
  std::string reference_mode;  // other-mode only
  std::optional<uint64_t> seed;
  std::vector<std::pair<std::string, Json>> inputs;    // name -> array spec, in file order
  std::vector<std::pair<std::string, Json>> expected;  // empty for other-mode
  compare::Tolerance tolerance;

  std::string id() const { return format + "/" + name; }
  // The path of the model file under the corpus, when the model is one.
  std::optional<std::string> corpus_model() const;
};

using Arrays = std::map<std::string, npy::Array>;

// What a case runs with besides itself.
struct RunEnv {
  std::filesystem::path corpus_dir;  // ../shared/corpus beside the repository
  // Where independent implementations outside the tool (test scripts) wrote
  // the arrays {"reference": FILE} names: <reference_dir>/<format>/<case>/FILE.
  // Empty when none was given.
  std::filesystem::path reference_dir;
};

// A format's part of the golden runner: how it builds a case's model and
// runs its executor. One per format, named in the format registry
// (tools/accelcheck/registry.h, FormatEntry::golden); golden/README.md
// "Adding a format" says what each member must do.
struct GoldenFormat {
  // The executor modes a case may name, the first being the default of
  // documentation only (every case names its mode).
  std::vector<std::string> modes;
  // Checks a model recipe other than {"corpus": ...}: nothing when it is
  // one this format builds, else why not (unknown keys, wrong types).
  std::function<std::optional<std::string>(const Json& model)> check_model;
  // Runs the case in `mode` with `inputs` (the case's, read and generated)
  // and returns every output by name, or nothing with the reason in `error`.
  // A corpus model's files are under env.corpus_dir.
  std::function<std::optional<Arrays>(const Case& golden_case, const std::string& mode,
                                      const Arrays& inputs, const RunEnv& env, std::string* error)>
      run;
  // Checks the keys of a {"corpus": PATH, ...} model besides "corpus" (a
  // .pte's method); when null, a corpus model has no other key.
  std::function<std::optional<std::string>(const Json& model)> check_corpus_model = nullptr;
};

// Reads and checks `dir`/case.json; nothing, with the reason, when it is
// unreadable or breaks the schema. `format` may be null (no runner), which
// leaves the model and mode unchecked.
std::optional<Case> LoadCase(const std::filesystem::path& dir, const std::string& format_id,
                             const GoldenFormat* format, std::string* error);

// An array a case names: "file.npy" in the case's directory, {"values":
// {...}}, {"generate": {...}}, {"corpus_csv": {...}} or {"reference": FILE}
// (golden/README.md "Arrays"). `needs_corpus` is set for a corpus array.
std::optional<npy::Array> ResolveArray(const Case& golden_case, const Json& spec, const RunEnv& env,
                                       bool* needs_corpus, std::string* error);

enum class Verdict : uint8_t { kPassed, kFailed, kSkipped, kError };

struct CaseResult {
  std::string id;
  Verdict verdict = Verdict::kPassed;
  std::string message;              // one line
  std::vector<std::string> detail;  // the first mismatches, the reasons
};

struct RunOptions {
  std::filesystem::path root;           // golden/
  std::optional<std::string> format;    // only this format's cases
  std::filesystem::path corpus_dir;     // default: root/../../shared/corpus
  std::filesystem::path reference_dir;  // RunEnv::reference_dir; empty: none
  bool update = false;                  // rewrite the expected outputs of regression pins
  std::function<void(const CaseResult&)> on_result;  // called as each case ends
};

// The formats the runner knows: the format registry's, given so that this
// layer does not depend on it. Null for an unknown id; `has_format` tells a
// format without golden support from one that does not exist.
struct Formats {
  std::function<bool(std::string_view id)> has_format;
  std::function<const GoldenFormat*(std::string_view id)> golden;
};

// Runs every case under options.root (sorted by format, then case), or
// nothing with the reason when the root cannot be read.
std::optional<std::vector<CaseResult>> RunAll(const RunOptions& options, const Formats& formats,
                                              std::string* error);

// Helpers for the formats' check_model and run.
// Why `object` has a key outside `allowed`, or is not an object; nothing when fine.
std::optional<std::string> UnknownKey(const Json& object,
                                      std::initializer_list<const char*> allowed,
                                      std::string_view what);

}  // namespace accelcheck::golden
