// The conformance suite: a directory with manifest.json and the case files it
// names. Each case states the expected outcome (valid | malformed | invalid |
// unsupported | limit), the rule id a negative case must report, and where.
#pragma once

#include <string>
#include <vector>

#include "conformance/provider.h"
#include "validators/core/format.h"
#include "validators/core/limits.h"

namespace accelcheck::conformance {

struct CaseResult {
  std::string id;
  std::string format;
  bool passed = false;
  std::string detail;  // why it failed, or what was reported
  double seconds = 0;
};

struct SuiteResult {
  std::vector<CaseResult> cases;
  int passed() const;
  int failed() const;
};

// Whether a diagnostic at `reported` is at the object `expected` or inside
// it (every path is inside "").
bool PathMatches(const std::string& reported, const std::string& expected);

// Runs every case of `dir`/manifest.json with `formats`, which name and
// detect each case's format. Sets `error` (and returns nothing useful) when
// the manifest cannot be read.
SuiteResult RunSuite(const std::string& dir, const std::vector<const Format*>& formats,
                     std::string* error);

// Writes the project's own generated suite into `dir`, with its manifest:
// for each provider (in order), its valid bases and one negative case per
// mutation case, made from the first base that does not decline it. Each
// format's files go to `dir`/<format id>/.
bool GenerateSuite(const std::string& dir, const std::vector<const Provider*>& providers,
                   std::string* error);

// JUnit XML for a suite run (one <testcase> per case).
std::string SuiteJunit(const SuiteResult& result);

}  // namespace accelcheck::conformance
