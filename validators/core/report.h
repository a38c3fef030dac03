// Report writers (docs/ARCHITECTURE.md "Outputs"): the results of one run, as text, one
// versioned JSON document, SARIF 2.1.0 or JUnit XML.
//
// Names and messages come from hostile files, so every writer replaces invalid
// UTF-8 with U+FFFD and escapes control characters. The same results always give
// the same bytes: no timestamps, no durations, files and diagnostics in the
// order they were checked and reported.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/diagnostic.h"
#include "validators/core/rule_selection.h"
#include "validators/core/sink.h"

namespace accelcheck {

inline constexpr std::string_view kToolName = "accelcheck";
// Set by CMake from project(VERSION ...), the one place the version is written.
inline constexpr std::string_view kToolVersion = ACCELCHECK_VERSION;
// The version of the JSON report document; bumped when a field changes meaning.
inline constexpr int kJsonReportVersion = 1;
// The project's page (SARIF's informationUri) and docs/RULES.md there, as
// CMake configures them (ACCELCHECK_HOMEPAGE_URL, ACCELCHECK_RULES_URL).
std::string_view InformationUri();
std::string_view RulesUri();

// The anchor docs/RULES.md gives a rule's row: its id, which is stable.
std::string RuleAnchor(std::string_view id);
// RulesUri()#anchor: each rule's SARIF helpUri.
std::string RuleHelpUri(const Rule& rule);
// "PteSegmentBounds" for "pte.segment.bounds": the friendly name SARIF asks
// for beside the id.
std::string RuleName(std::string_view id);

// The result of checking one input.
struct FileResult {
  std::string path;      // as shown in reports ("<stdin>" for standard input)
  std::string format;    // the detected or forced format id; empty when none
  bool skipped = false;  // found in a directory walk, its content matches no format
  DiagnosticSink sink;
  std::string skip_reason = "content matches no supported format";
  std::string dialect{};  // Format::Dialect of the file; empty when the format has one
};

enum class Outcome : uint8_t { kConforms, kErrors, kFailed, kSkipped };

// kFailed when a limit was hit or the input could not be read or checked (the
// verdict is unknown); kErrors when it has errors, or warnings under --werror.
Outcome OutcomeOf(const FileResult& result);
std::string_view OutcomeName(Outcome outcome);  // "conforms", "errors", "failed", "skipped"

struct RunSummary {
  uint64_t files = 0;
  uint64_t conforming = 0;
  uint64_t with_errors = 0;  // files whose outcome is kErrors
  uint64_t failed = 0;
  uint64_t skipped = 0;
  uint64_t errors = 0;  // diagnostics, including those --max-errors suppressed
  uint64_t warnings = 0;
  uint64_t suppressed = 0;
  uint64_t disabled = 0;                     // diagnostics of rules --disable turned off
  uint64_t baselined = 0;                    // findings the baseline accepted
  ExitCode exit_code = ExitCode::kConforms;  // over all files
};

// A run in which every file was skipped validated nothing: it does not pass
// (exit 1), so that a CI gate pointed at the wrong directory fails.
RunSummary Summarize(std::span<const FileResult> results);

enum class ReportFormat : uint8_t { kText, kJson, kSarif, kJunit };

std::optional<ReportFormat> ParseReportFormat(std::string_view name);

// What a SARIF report needs beyond the results; the other writers ignore it.
struct SarifOptions {
  // The rules tool.driver.rules lists, in this order, which gives each its
  // ruleIndex; a rule a diagnostic uses but the catalogue lacks is appended.
  std::span<const Rule* const> catalogue = {};
  // An absolute, normal directory (--srcroot): a file under it has a URI
  // relative to it with uriBaseId SRCROOT. Empty: URIs are the paths given.
  std::string srcroot = {};
  // The files named beside the inputs (companions): a diagnostic's member
  // that is one of them is that file, any other member a file in the
  // directory of its input.
  std::vector<std::string> companions = {};
  // The run's --disable/--enable/--error/--warning, for the invocation's
  // ruleConfigurationOverrides.
  const RuleSelection* rules = nullptr;
  // The baseline in use (--baseline or --write-baseline), named in the
  // suppressions; empty when there is none.
  std::string baseline = {};
};

std::string WriteReport(ReportFormat format, std::span<const FileResult> results,
                        const SarifOptions& sarif);

// "file:0x1f0: error[pte.segment.bounds]: segments[2]: message" per diagnostic,
// then "2 files: 1 error, 3 warnings". Baselined findings are only counted.
std::string WriteText(std::span<const FileResult> results);
// The last line of WriteText: "2 files: 1 error, 3 warnings\n".
std::string WriteTextSummary(std::span<const FileResult> results);
std::string WriteJson(std::span<const FileResult> results);
std::string WriteSarif(std::span<const FileResult> results, const SarifOptions& options);
std::string WriteJunit(std::span<const FileResult> results);

// One test of a run that checks something other than a file's diagnostics
// (a golden case), for WriteJunitCases: kConforms passed, kErrors a failure,
// kFailed an error (no verdict), kSkipped skipped.
struct JunitCase {
  std::string classname;
  std::string name;
  Outcome outcome = Outcome::kConforms;
  std::string message;  // one line
  std::string detail;   // the element's text
};
std::string WriteJunitCases(std::string_view suite, std::span<const JunitCase> cases);

// The path of `file` relative to the absolute, normal directory `root`, or
// nothing when it lies outside (or is `root` itself).
std::optional<std::string> PathInside(const std::string& root, const std::string& file);

// One diagnostic as a text line (without the newline).
std::string TextLine(const Diagnostic& diagnostic);

// The JSON document for a run that stopped before validating: a command line
// that could not be parsed (kUsage, kind "usage") or a file it needs that
// could not be read (kFailure, kind "io"), so that `--output json` always
// prints exactly one document.
std::string RunErrorJson(ExitCode exit_code, std::string_view message);

// `text` as one printable line, for text reports and the terminal: valid
// UTF-8, control characters as "\xNN".
std::string OneLine(std::string_view text);
// `text` with every invalid UTF-8 sequence replaced by U+FFFD.
std::string ValidUtf8(std::string_view text);
// `text` made safe for XML 1.0 character data or (when `attribute`) an
// attribute value: valid UTF-8, markup escaped, forbidden characters as "\xNN".
std::string XmlEscape(std::string_view text, bool attribute);

}  // namespace accelcheck
