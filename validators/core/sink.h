// DiagnosticSink: collects the diagnostics of one file, applies the profile
// (--strict, --werror, the rule selection), the baseline and the --max-errors
// cap on what is listed; every diagnostic is counted, listed or not. It keeps at most
// kMaxKeptDiagnostics: past that many, diagnostics are counted (errors,
// warnings and the suppressed count stay exact) but not stored, so that a
// hostile file of millions of problems cannot make the report, and memory,
// grow without bound. Limit and internal diagnostics are always kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "validators/core/baseline.h"
#include "validators/core/diagnostic.h"
#include "validators/core/rule_selection.h"

namespace accelcheck {

constexpr size_t kMaxKeptDiagnostics = 100000;

struct Profile {
  bool strict = false;       // the spec as written: warnings become errors
  bool werror = false;       // warnings count as errors for the exit code
  uint64_t max_errors = 0;   // list no diagnostic after this many errors (0: no cap)
  RuleSelection rules = {};  // --disable, --enable, --error, --warning
};

class DiagnosticSink {
 public:
  DiagnosticSink(Profile profile, std::string file);

  void Report(const Rule& rule, Location location, std::string message);

  // Findings that `baseline` accepts are listed as baselined and not counted
  // as errors or warnings; `file` is the file as its fingerprints name it.
  // Limit, I/O and internal diagnostics are never baselined.
  void UseBaseline(Baseline* baseline, std::string file);

  // Problems located in one of `files` (a companion that is also an input
  // of the run, and reports them under its own name) still gate phases here
  // but are neither counted nor listed, so that a run lists each problem
  // once. Limit, I/O and internal diagnostics are always listed.
  void ReportedElsewhere(std::vector<std::string> files);

  // Phases gate on this: it counts diagnostics of rules whose default severity
  // is error, so that a later phase runs only when its invariants hold whatever
  // the profile.
  uint64_t blocking_count() const { return blocking_; }
  uint64_t error_count() const { return errors_; }
  uint64_t warning_count() const { return warnings_; }
  uint64_t suppressed_count() const { return suppressed_; }
  // Diagnostics of rules --disable turned off: counted here, never listed.
  uint64_t disabled_count() const { return disabled_; }
  // Findings the baseline accepted (listed, marked, while there is room).
  uint64_t baselined_count() const { return baselined_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  // For the passes that refine locations once a document is checked
  // (json_locate.h); they change locations only.
  std::span<Diagnostic> MutableDiagnostics() { return diagnostics_; }
  const std::string& file() const { return file_; }
  const Profile& profile() const { return profile_; }
  bool Has(const Rule& rule) const;
  // A limit was hit or the input could not be read: the verdict is unknown.
  bool failed() const { return failed_; }

 private:
  bool IsReportedElsewhere(const Location& location) const;

  Profile profile_;
  std::string file_;
  std::vector<Diagnostic> diagnostics_;
  Baseline* baseline_ = nullptr;
  std::string baseline_file_;
  std::vector<std::string> reported_elsewhere_;
  uint64_t blocking_ = 0;
  uint64_t errors_ = 0;
  uint64_t warnings_ = 0;
  uint64_t suppressed_ = 0;
  uint64_t disabled_ = 0;
  uint64_t baselined_ = 0;
  uint64_t listed_errors_ = 0;
  bool failed_ = false;
};

// The outcome of a whole run, for the exit code (docs/ARCHITECTURE.md "Exit codes").
enum class ExitCode : int { kConforms = 0, kErrors = 1, kUsage = 2, kFailure = 3 };

ExitCode ExitCodeFor(const DiagnosticSink& sink);

}  // namespace accelcheck
