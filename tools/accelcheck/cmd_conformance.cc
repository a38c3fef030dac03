// accelcheck conformance DIR [--junit FILE]: runs a suite and prints one line
// per case, then "N passed, N failed". --generate DIR writes the project's
// own suite (valid examples and one negative case per mutable rule).
#include <iostream>

#include "conformance/suite.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/options.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/output_file.h"

namespace accelcheck::cli {

const CommandSpec& ConformanceSpec() {
  static const CommandSpec kSpec{
      "conformance",
      "run a conformance suite (--generate DIR writes ours)",
      "usage: accelcheck conformance DIR [--junit FILE]\n"
      "       accelcheck conformance --generate DIR\n",
      {
          {"junit", true, "FILE", "also write the results as JUnit XML"},
          {"generate", true, "DIR", "write the project's suite into DIR"},
          {"help", false, "", "print this help"},
      }};
  return kSpec;
}

ExitCode RunConformance(const Args& args) {
  const CommandSpec& spec = ConformanceSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  std::string error;
  if (const auto dir = parsed->Get("generate")) {
    if (!conformance::GenerateSuite(*dir, Providers(), &error)) {
      std::cerr << "accelcheck conformance: " << error << "\n";
      return ExitCode::kFailure;
    }
    if (!parsed->Has("quiet")) std::cout << "wrote the suite to " << *dir << "\n";
    return ExitCode::kConforms;
  }
  if (parsed->positional.size() != 1) return UsageError(spec, "expected one suite directory");
  const conformance::SuiteResult result =
      conformance::RunSuite(parsed->positional[0], Validators(), &error);
  if (!error.empty()) {
    std::cerr << "accelcheck conformance: " << error << "\n";
    return ExitCode::kFailure;
  }
  // --quiet: the failing cases, and the count only when some failed.
  const bool quiet = parsed->Has("quiet");
  for (const conformance::CaseResult& c : result.cases) {
    if (c.passed && quiet) continue;
    std::cout << (c.passed ? "PASS " : "FAIL ") << c.id;
    if (!c.passed) std::cout << ": " << c.detail;
    std::cout << "\n";
  }
  if (!quiet || result.failed() > 0)
    std::cout << result.passed() << " passed, " << result.failed() << " failed\n";
  if (const auto junit = parsed->Get("junit")) {
    if (!WriteOutputFile(*junit, AsBytes(conformance::SuiteJunit(result)), &error))
      return IoError(spec, error);
  }
  return result.failed() == 0 ? ExitCode::kConforms : ExitCode::kErrors;
}

}  // namespace accelcheck::cli
