// accelcheck golden DIR [--format F] [--junit FILE] [--update]: every golden
// case under DIR (golden/README.md), one line each and a closing count.
#include <filesystem>
#include <iostream>

#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/golden.h"
#include "tools/accelcheck/options.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/output_file.h"
#include "validators/core/report.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

namespace fs = std::filesystem;

const CommandSpec& GoldenSpec() {
  static const CommandSpec kSpec{
      "golden",
      "run the golden cases: executors against independent expected outputs",
      "usage: accelcheck golden DIR [--format F] [--junit FILE] [--update] [--corpus DIR]\n"
      "                         [--reference-dir DIR]\n"
      "Runs every case DIR/<format>/<case>/case.json (golden/README.md): builds or reads the\n"
      "model, runs the format's reference executor on the inputs and compares each output\n"
      "with the expected one within the case's tolerance. Prints one line per case and\n"
      "\"N passed, N failed, N skipped\". Cases on real files skip when the corpus is absent;\n"
      "cases that read arrays a test script wrote ({\"reference\": FILE}) skip without\n"
      "--reference-dir.\n"
      "--update rewrites the expected .npy of regression-pin cases only; it refuses every\n"
      "other case, whose expected outputs come from an independent source. Exit 0 when\n"
      "every case that ran passed, 1 when one failed (or none ran), 2 usage, 3 when a case\n"
      "could not be read or run.\n",
      {
          {"format", true, "F", "only this format's cases"},
          {"junit", true, "FILE", "also write the results as JUnit XML"},
          {"update", false, "", "rewrite the expected outputs of regression-pin cases"},
          {"corpus", true, "DIR",
           "the real files (default: DIR/../../shared/corpus, beside the repository)"},
          {"reference-dir", true, "DIR",
           "where test scripts wrote the arrays cases name as {\"reference\": FILE}"},
          {"help", false, "", "print this help"},
      }};
  return kSpec;
}

namespace {

std::string_view VerdictWord(golden::Verdict verdict) {
  switch (verdict) {
    case golden::Verdict::kPassed:
      return "PASS";
    case golden::Verdict::kFailed:
      return "FAIL";
    case golden::Verdict::kSkipped:
      return "SKIP";
    case golden::Verdict::kError:
      return "ERROR";
  }
  return "?";
}

Outcome OutcomeOf(golden::Verdict verdict) {
  switch (verdict) {
    case golden::Verdict::kPassed:
      return Outcome::kConforms;
    case golden::Verdict::kFailed:
      return Outcome::kErrors;
    case golden::Verdict::kSkipped:
      return Outcome::kSkipped;
    case golden::Verdict::kError:
      return Outcome::kFailed;
  }
  return Outcome::kFailed;
}

void PrintResult(const golden::CaseResult& result) {
  std::cout << VerdictWord(result.verdict) << " " << result.id << ": " << OneLine(result.message)
            << "\n";
  for (const std::string& line : result.detail) std::cout << "  " << OneLine(line) << "\n";
}

std::string Junit(const std::vector<golden::CaseResult>& results) {
  std::vector<JunitCase> cases;
  for (const golden::CaseResult& r : results) {
    std::string detail;
    for (const std::string& line : r.detail) detail += line + "\n";
    cases.push_back({Str("accelcheck.golden.", r.id.substr(0, r.id.find('/'))), r.id,
                     OutcomeOf(r.verdict), r.message, detail});
  }
  return WriteJunitCases("golden", cases);
}

fs::path DefaultCorpus(const fs::path& root) {
  std::error_code ec;
  const fs::path repository = (fs::absolute(root, ec) / "..").lexically_normal();
  return (repository / ".." / "shared" / "corpus").lexically_normal();
}

golden::Formats RegistryFormats() {
  return {[](std::string_view id) { return FindFormat(id) != nullptr; },
          [](std::string_view id) -> const golden::GoldenFormat* {
            const FormatEntry* entry = FindFormat(id);
            return entry != nullptr ? entry->golden : nullptr;
          }};
}

}  // namespace

ExitCode RunGolden(const Args& args) {
  const CommandSpec& spec = GoldenSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const auto parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected one golden directory");
  golden::RunOptions options;
  options.root = parsed->positional[0];
  options.format = parsed->Get("format");
  if (options.format && !FindFormat(*options.format))
    return UsageError(spec,
                      Str("unknown format ", Quoted(*options.format), " (", FormatIds(), ")"));
  options.update = parsed->Has("update");
  const auto corpus = parsed->Get("corpus");
  options.corpus_dir = corpus ? fs::path(*corpus) : DefaultCorpus(options.root);
  options.reference_dir = parsed->Get("reference-dir").value_or("");
  // Under --quiet only the cases that did not pass are listed.
  const bool quiet = parsed->Has("quiet");
  options.on_result = [quiet](const golden::CaseResult& result) {
    if (!quiet || result.verdict != golden::Verdict::kPassed) PrintResult(result);
  };

  std::string error;
  const auto results = golden::RunAll(options, RegistryFormats(), &error);
  if (!results) return IoError(spec, error);
  uint64_t passed = 0, failed = 0, skipped = 0, errors = 0;
  for (const golden::CaseResult& r : *results) {
    passed += r.verdict == golden::Verdict::kPassed;
    failed += r.verdict == golden::Verdict::kFailed;
    skipped += r.verdict == golden::Verdict::kSkipped;
    errors += r.verdict == golden::Verdict::kError;
  }
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped";
  if (errors != 0) std::cout << ", " << errors << " without verdict";
  std::cout << "\n";
  if (const auto junit = parsed->Get("junit")) {
    const std::string xml = Junit(*results);
    if (!WriteOutputFile(*junit, AsBytes(xml), &error)) return IoError(spec, error);
  }
  if (errors != 0) return ExitCode::kFailure;
  if (failed != 0) return ExitCode::kErrors;
  if (passed == 0) {
    std::cerr << "accelcheck golden: no case ran under " << options.root.string() << "\n";
    return ExitCode::kErrors;
  }
  return ExitCode::kConforms;
}

}  // namespace accelcheck::cli
