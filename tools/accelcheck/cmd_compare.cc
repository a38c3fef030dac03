// accelcheck compare EXPECTED.npy ACTUAL.npy | --expected-dir D1 --actual-dir D2:
// arrays compared element by element within a tolerance
// (reference_exec/core/compare.h, docs/ARCHITECTURE.md "Comparing arrays").
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "reference_exec/core/compare.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/options.h"
#include "validators/core/limits.h"
#include "validators/core/npy.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

namespace fs = std::filesystem;

const CommandSpec& CompareSpec() {
  static const CommandSpec kSpec{
      "compare",
      "compare .npy arrays within a tolerance (exit 1 when they differ)",
      "usage: accelcheck compare EXPECTED.npy ACTUAL.npy [--rtol R] [--atol A | --exact]\n"
      "                          [--output text|json]\n"
      "       accelcheck compare --expected-dir D1 --actual-dir D2 [same flags]\n"
      "Compares shapes, dtypes and every element: an element matches when\n"
      "|actual - expected| <= atol + rtol * |expected| (numpy.testing.assert_allclose, rtol\n"
      "1e-7 and atol 0 by default), NaN matches NaN in the same position, an infinity only\n"
      "the same infinity. --exact compares values exactly (integers as integers). Prints the\n"
      "largest absolute and relative errors, the number of mismatches and the first ones\n"
      "with their index. With directories, every .npy of D1 must be in D2; extra files in D2\n"
      "are listed. Exit 0 equal, 1 different or missing, 2 usage, 3 unreadable input.\n",
      {
          {"rtol", true, "R", "relative tolerance (default 1e-7)"},
          {"atol", true, "A", "absolute tolerance (default 0)"},
          {"exact", false, "", "exact equality (not with --rtol or --atol)"},
          {"expected-dir", true, "DIR", "the expected arrays, one .npy per output"},
          {"actual-dir", true, "DIR", "the arrays to check, by the same names"},
          {"max-mismatches", true, "N", "mismatches listed per array (default 5)"},
          {"output", true, "FMT", "text (default) or json"},
          {"help", false, "", "print this help"},
      }};
  return kSpec;
}

namespace {

std::optional<double> ParseTolerance(const std::string& text, std::string* error) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0) {
    *error = Str("tolerance ", Quoted(text), " is not a finite number >= 0");
    return std::nullopt;
  }
  return value;
}

std::optional<compare::Tolerance> ToleranceFrom(const ParsedArgs& parsed, std::string* error) {
  compare::Tolerance tolerance;
  if (parsed.Has("exact")) {
    if (parsed.Has("rtol") || parsed.Has("atol")) {
      *error = "--exact takes no --rtol or --atol";
      return std::nullopt;
    }
    tolerance.exact = true;
    return tolerance;
  }
  for (const auto& [flag, field] :
       {std::pair{"rtol", &tolerance.rtol}, {"atol", &tolerance.atol}}) {
    if (const auto text = parsed.Get(flag)) {
      const auto value = ParseTolerance(*text, error);
      if (!value) return std::nullopt;
      *field = *value;
    }
  }
  return tolerance;
}

// One pair's verdict, as printed and as the exit code counts it.
struct PairOutcome {
  std::string name;
  ExitCode code = ExitCode::kConforms;
  std::string problem;  // a file that is missing or unreadable
  std::optional<compare::Comparison> comparison;
};

std::optional<npy::Array> ReadArray(const fs::path& path, std::string* error) {
  std::string read_error;
  const auto buffer = ReadFileLimited(path.string(), Limits{}.max_file_size, &read_error);
  if (!buffer) {
    *error = read_error;
    return std::nullopt;
  }
  auto array = npy::Read(buffer->bytes(), &read_error);
  if (!array) *error = Str(path.string(), ": ", read_error);
  return array;
}

PairOutcome ComparePair(const std::string& name, const fs::path& expected_path,
                        const fs::path& actual_path, const compare::Tolerance& tolerance,
                        size_t max_listed) {
  PairOutcome outcome{name, ExitCode::kConforms, "", std::nullopt};
  std::string error;
  const auto expected = ReadArray(expected_path, &error);
  const auto actual = expected ? ReadArray(actual_path, &error) : std::nullopt;
  if (!actual) {
    outcome.code = ExitCode::kFailure;
    outcome.problem = error;
    return outcome;
  }
  outcome.comparison = compare::Compare(*expected, *actual, tolerance, max_listed);
  if (!outcome.comparison->equal()) outcome.code = ExitCode::kErrors;
  return outcome;
}

// The .npy files directly in `dir`, by name, or nothing with the reason.
std::optional<std::set<std::string>> NpyFiles(const fs::path& dir, std::string* error) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    *error = Str(dir.string(), " is not a directory");
    return std::nullopt;
  }
  std::set<std::string> names;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".npy") names.insert(it->path().filename().string());
  }
  if (ec) {
    *error = Str(dir.string(), ": ", ec.message());
    return std::nullopt;
  }
  return names;
}

ExitCode Worst(ExitCode a, ExitCode b) {
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

void PrintText(const std::vector<PairOutcome>& outcomes, const std::vector<std::string>& extra,
               const compare::Tolerance& tolerance) {
  for (const PairOutcome& outcome : outcomes) {
    if (!outcome.comparison) {
      std::cout << outcome.name << ": " << outcome.problem << "\n";
      continue;
    }
    std::cout << outcome.name << ": " << compare::SummaryText(*outcome.comparison, tolerance)
              << "\n";
    for (const std::string& line : compare::MismatchLines(*outcome.comparison))
      std::cout << "  " << line << "\n";
  }
  for (const std::string& name : extra) std::cout << name << ": only in the actual directory\n";
}

void PrintJson(const std::vector<PairOutcome>& outcomes, const std::vector<std::string>& extra,
               const compare::Tolerance& tolerance, ExitCode code) {
  nlohmann::json doc = {{"version", 1},
                        {"equal", code == ExitCode::kConforms},
                        {"arrays", nlohmann::json::array()},
                        {"only_in_actual", extra}};
  for (const PairOutcome& outcome : outcomes) {
    nlohmann::json entry = outcome.comparison ? compare::ToJson(*outcome.comparison, tolerance)
                                              : nlohmann::json{{"equal", false}};
    entry["name"] = outcome.name;
    if (!outcome.problem.empty()) entry["error"] = outcome.problem;
    doc["arrays"].push_back(entry);
  }
  std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace

ExitCode RunCompare(const Args& args) {
  const CommandSpec& spec = CompareSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const auto parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  std::string error;
  const auto tolerance = ToleranceFrom(*parsed, &error);
  if (!tolerance) return UsageError(spec, error);
  size_t max_listed = 5;
  if (const auto text = parsed->Get("max-mismatches")) {
    const auto count = ParseCount(*text, &error);
    if (!count) return UsageError(spec, error);
    max_listed = static_cast<size_t>(std::min<uint64_t>(*count, 1'000'000));
  }
  const std::string output = parsed->Get("output").value_or("text");
  if (output != "text" && output != "json")
    return UsageError(spec, Str("unknown --output ", Quoted(output), " (text or json)"));
  const auto expected_dir = parsed->Get("expected-dir");
  const auto actual_dir = parsed->Get("actual-dir");
  const bool by_directory = expected_dir || actual_dir;
  if (by_directory && (!expected_dir || !actual_dir || !parsed->positional.empty()))
    return UsageError(spec, "--expected-dir and --actual-dir go together, without files");
  if (!by_directory && parsed->positional.size() != 2)
    return UsageError(spec, "expected two .npy files: EXPECTED ACTUAL");

  std::vector<PairOutcome> outcomes;
  std::vector<std::string> extra;
  if (by_directory) {
    const auto expected_names = NpyFiles(*expected_dir, &error);
    const auto actual_names = expected_names ? NpyFiles(*actual_dir, &error) : std::nullopt;
    if (!actual_names) return IoError(spec, error);
    for (const std::string& name : *expected_names) {
      if (actual_names->count(name) == 0) {
        outcomes.push_back({name, ExitCode::kErrors, "missing from the actual directory", {}});
        continue;
      }
      outcomes.push_back(ComparePair(name, fs::path(*expected_dir) / name,
                                     fs::path(*actual_dir) / name, *tolerance, max_listed));
    }
    for (const std::string& name : *actual_names) {
      if (expected_names->count(name) == 0) extra.push_back(name);
    }
  } else {
    outcomes.push_back(ComparePair(parsed->positional[1], parsed->positional[0],
                                   parsed->positional[1], *tolerance, max_listed));
  }
  for (const PairOutcome& outcome : outcomes) exit_code = Worst(exit_code, outcome.code);
  if (output == "json")
    PrintJson(outcomes, extra, *tolerance, exit_code);
  else
    PrintText(outcomes, extra, *tolerance);
  return exit_code;
}

}  // namespace accelcheck::cli
