// accelcheck conformance DIR [--junit FILE]: runs a suite and prints one line
// per case, then "N passed, N failed". --generate DIR writes the project's
// own suite (valid examples and one negative case per mutable rule).
#include <fstream>
#include <iostream>

#include "conformance/suite.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/options.h"

namespace accelcheck::cli {

namespace {

const CommandSpec& ConformanceSpec() {
  static const CommandSpec kSpec{
      "conformance",
      "usage: accelcheck conformance DIR [--junit FILE]\n"
      "       accelcheck conformance --generate DIR\n",
      {
          {"junit", true, "FILE", "also write the results as JUnit XML"},
          {"generate", true, "DIR", "write the project's suite into DIR"},
          {"help", false, "", "print this help"},
      }};
  return kSpec;
}

}  // namespace

int RunConformance(const Args& args) {
  const CommandSpec& spec = ConformanceSpec();
  int exit_code = 0;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  std::string error;
  if (const auto dir = parsed->Get("generate")) {
    if (!conformance::GenerateSuite(*dir, conformance::AllProviders(), &error)) {
      std::cerr << "accelcheck conformance: " << error << "\n";
      return 3;
    }
    std::cout << "wrote the suite to " << *dir << "\n";
    return 0;
  }
  if (parsed->positional.size() != 1) return UsageError(spec, "expected one suite directory");
  const conformance::SuiteResult result = conformance::RunSuite(parsed->positional[0], &error);
  if (!error.empty()) {
    std::cerr << "accelcheck conformance: " << error << "\n";
    return 3;
  }
  for (const conformance::CaseResult& c : result.cases) {
    std::cout << (c.passed ? "PASS " : "FAIL ") << c.id;
    if (!c.passed) std::cout << ": " << c.detail;
    std::cout << "\n";
  }
  std::cout << result.passed() << " passed, " << result.failed() << " failed\n";
  if (const auto junit = parsed->Get("junit")) {
    std::ofstream out(*junit);
    out << conformance::SuiteJunit(result);
    if (!out) {
      std::cerr << "accelcheck conformance: cannot write " << *junit << "\n";
      return 3;
    }
  }
  return result.failed() == 0 ? 0 : 1;
}

}  // namespace accelcheck::cli
