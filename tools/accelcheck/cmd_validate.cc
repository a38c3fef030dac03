// accelcheck validate FILE|DIR|- ...: checks every input against every rule of
// its format and writes one report for the whole run.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/core_rules.h"
#include "validators/core/format.h"
#include "validators/core/output_file.h"
#include "validators/core/phases.h"
#include "validators/core/report.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

namespace {

std::vector<Flag> ValidateFlags() {
  std::vector<Flag> flags = {
      {"format", true, "ID", "check every input as format ID instead of detecting it"},
      {"output", true, "FMT", "report as text (default), json, sarif or junit"},
      {"o", true, "FILE", "write the report to FILE instead of standard output"},
      {"strict", false, "", "the spec as written: documented real-file quirks become errors"},
      {"werror", false, "", "exit 1 on warnings too"},
      {"fail-on-skip", false, "",
       "a file of a directory that no format validates fails the run instead of being skipped"},
      {"max-errors", true, "N", "list at most N errors per file (default 0: all)"},
      {"data", true, "FILE", "a companion file, such as the .ptd of a .pte (repeatable)"},
      {"frontend", true, "FILE",
       "the frontend IR of a Gemini scheduler IR (a companion, like --data)"},
      {"help", false, "", "print this help"},
  };
  const std::vector<Flag> limits = LimitFlags();
  flags.insert(flags.end(), limits.begin(), limits.end());
  return flags;
}

}  // namespace

const CommandSpec& ValidateSpec() {
  static const CommandSpec kSpec{
      "validate", "check files against every rule of their format",
      "usage: accelcheck validate [options] FILE|DIR|- ...\n"
      "Directories are searched recursively in sorted order; there, files whose\n"
      "content matches no format are skipped (a named file is reported as\n"
      "core.format.unknown). Exit codes: 0 conforms, 1 errors (or warnings with\n"
      "--werror, or unknown content), 2 usage, 3 I/O, internal error or limit.\n",
      ValidateFlags()};
  return kSpec;
}

namespace {

struct ValidateOptions {
  const Format* forced = nullptr;
  ReportFormat output = ReportFormat::kText;
  std::optional<std::string> output_file;
  Profile profile;
  Limits limits;
  std::vector<std::string> companions;
  std::vector<std::string> inputs;
  bool fail_on_skip = false;  // a file a directory run would skip is an error instead
};

std::optional<ValidateOptions> ToOptions(const ParsedArgs& parsed, std::string* error) {
  ValidateOptions options;
  if (auto id = parsed.Get("format")) {
    const FormatEntry* forced = FindFormat(*id);
    if (forced == nullptr) {
      *error = Str("unknown format '", *id, "' (known: ", FormatIds(), ")");
      return std::nullopt;
    }
    options.forced = &forced->validator;
  }
  if (auto name = parsed.Get("output")) {
    const std::optional<ReportFormat> output = ParseReportFormat(*name);
    if (!output) {
      *error = Str("unknown output '", *name, "' (text, json, sarif or junit)");
      return std::nullopt;
    }
    options.output = *output;
  }
  options.output_file = parsed.Get("o");
  options.profile.strict = parsed.Has("strict");
  options.profile.werror = parsed.Has("werror");
  if (auto text = parsed.Get("max-errors")) {
    std::string parse_error;
    const std::optional<uint64_t> count = ParseCount(*text, &parse_error);
    if (!count) {
      *error = "--max-errors: " + parse_error;
      return std::nullopt;
    }
    options.profile.max_errors = *count;
  }
  if (!ApplyLimitFlags(parsed, &options.limits, error)) return std::nullopt;
  options.companions = parsed.All("data");
  for (const std::string& frontend : parsed.All("frontend")) options.companions.push_back(frontend);
  options.fail_on_skip = parsed.Has("fail-on-skip");
  options.inputs = parsed.positional;
  if (options.inputs.empty()) {
    *error = "no input files";
    return std::nullopt;
  }
  return options;
}

// The scan for `--output json` happens before parsing, so that even a command
// line that does not parse gets its one JSON document.
bool WantsJson(const Args& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--output=json") return true;
    if (args[i] == "--output" && i + 1 < args.size() && args[i + 1] == "json") return true;
  }
  return false;
}

// A usage error; with --output json, also the one JSON document of the run.
void PrintUsageErrorJson(const Args& args, const std::string& message) {
  if (WantsJson(args)) std::cout << UsageErrorJson(message) << std::flush;
}

struct Input {
  std::string path;
  bool from_directory = false;
};

// Expands a directory into its regular files, sorted by path, so that runs
// over the same tree list files in the same order. A directory that cannot be
// listed becomes a result of its own.
std::vector<Input> ExpandInput(const std::string& path, const Profile& profile,
                               std::vector<FileResult>* results) {
  std::error_code ec;
  if (path == "-" || !std::filesystem::is_directory(path, ec)) return {{path, false}};
  std::vector<std::string> files;
  std::filesystem::recursive_directory_iterator it(path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec)) files.push_back(it->path().string());
  }
  if (ec) {
    FileResult failed{path, "", false, DiagnosticSink(profile, path)};
    failed.sink.Report(core_rules::kIoRead, {},
                       Str("cannot list directory ", Quoted(path), ": ", ec.message()));
    results->push_back(std::move(failed));
  }
  std::sort(files.begin(), files.end());
  std::vector<Input> inputs;
  for (std::string& file : files) inputs.push_back({std::move(file), true});
  return inputs;
}

// The format that detects the file; in a directory, also one it resembles
// (a damaged file of that format is validated and reported, never skipped).
const Format* FormatOf(const Input& input, const InputBuffer& buffer) {
  const FormatEntry* format = DetectFormat(buffer.bytes());
  if (format == nullptr && input.from_directory && buffer.size() > 0)
    format = ResembledFormat(input.path, buffer.bytes());
  return format != nullptr ? &format->validator : nullptr;
}

// A file no format validates does not conform (exit 1); inside a directory
// it is most likely a file of another kind, listed as skipped, with the
// reason, unless --fail-on-skip.
void NotValidated(const Input& input, const InputBuffer& buffer, const ValidateOptions& options,
                  FileResult& result) {
  const std::optional<std::string_view> unsupported = UnsupportedFormat(buffer.bytes());
  if (input.from_directory && !options.fail_on_skip) {
    result.skipped = true;
    result.skip_reason = buffer.size() == 0 ? "empty file"
                         : unsupported
                             ? std::string(*unsupported)
                             : Str("content matches no supported format (", FormatIds(), ")");
  } else if (unsupported) {
    result.sink.Report(core_rules::kFormatUnsupported, {}, std::string(*unsupported));
  } else if (buffer.size() == 0) {
    result.sink.Report(core_rules::kFormatUnknown, {}, "empty file");
  } else {
    ReportUnknownFormat("--format ID", result.sink);
  }
}

FileResult CheckInput(const Input& input, const ValidateOptions& options) {
  const std::string name = DisplayName(input.path);
  FileResult result{name, "", false, DiagnosticSink(options.profile, name)};
  ValidateContext context;
  context.limits = options.limits;
  context.path = input.path;
  context.companions = options.companions;
  context.deadline = Deadline(options.limits.time_budget_ms);
  const std::optional<InputBuffer> buffer = ReadInput(input.path, options.limits, result.sink);
  if (!buffer) return result;
  const Format* format = options.forced != nullptr ? options.forced : FormatOf(input, *buffer);
  if (format == nullptr) {
    NotValidated(input, *buffer, options, result);
    OutOfTime(context, result.sink);
    return result;
  }
  result.format = std::string(format->id());
  ValidateGuarded(*format, *buffer, context, result.sink);
  OutOfTime(context, result.sink);
  return result;
}

// Every rule the run can report: the core table, then each format's.
std::vector<const Rule*> Catalogue() {
  std::vector<const Rule*> rules(core_rules::All().begin(), core_rules::All().end());
  for (const FormatEntry& format : Formats()) {
    const RuleTable table = format.validator.rules();
    rules.insert(rules.end(), table.begin(), table.end());
  }
  return rules;
}

bool WriteOutput(const std::optional<std::string>& file, const std::string& report) {
  if (!file || *file == "-") {
    std::cout << report << std::flush;
    return static_cast<bool>(std::cout);
  }
  std::string error;
  if (WriteOutputFile(*file, AsBytes(report), &error)) return true;
  std::cerr << "accelcheck validate: " << error << "\n";
  return false;
}

// What the formats of the run's inputs read beside them: "pte takes a .ptd
// (named data); ...".
std::string CompanionKinds(const std::vector<FileResult>& results) {
  std::string kinds;
  for (const FormatEntry& format : Formats()) {
    const bool seen = std::any_of(results.begin(), results.end(), [&](const FileResult& r) {
      return r.format == format.validator.id();
    });
    if (!seen) continue;
    if (!kinds.empty()) kinds += "; ";
    kinds += Str(format.validator.id(), " takes ", format.validator.companion_kinds());
  }
  return kinds.empty() ? "no input was validated" : kinds;
}

// A companion the user named must be read and must be of a kind some input
// of the run reads: a run never passes on a check it silently skipped. Each
// companion that is not gets a result of its own.
void CheckCompanions(const ValidateOptions& options, std::vector<FileResult>& results) {
  const size_t inputs = results.size();
  for (const std::string& path : options.companions) {
    FileResult result{path, "", false, DiagnosticSink(options.profile, path)};
    const std::optional<InputBuffer> buffer = ReadInput(path, options.limits, result.sink);
    if (buffer) {
      const auto takes = [&](const FileResult& input) {
        const FormatEntry* format = FindFormat(input.format);
        return format != nullptr && format->validator.TakesCompanion(path, buffer->bytes());
      };
      if (std::any_of(results.begin(), results.begin() + static_cast<ptrdiff_t>(inputs), takes))
        continue;
      result.sink.Report(core_rules::kCompanionUnused, {},
                         Str("no input of this run reads it (", CompanionKinds(results), ")"));
    }
    results.push_back(std::move(result));
  }
}

}  // namespace

ExitCode RunValidate(const Args& args) {
  const CommandSpec& spec = ValidateSpec();
  ExitCode exit_code = ExitCode::kConforms;
  std::string error;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code, &error);
  if (!parsed) {
    if (exit_code == ExitCode::kUsage) PrintUsageErrorJson(args, error);
    return exit_code;
  }
  const std::optional<ValidateOptions> options = ToOptions(*parsed, &error);
  if (!options) {
    UsageError(spec, error);
    PrintUsageErrorJson(args, error);
    return ExitCode::kUsage;
  }

  std::vector<FileResult> results;
  for (const std::string& path : options->inputs) {
    for (const Input& input : ExpandInput(path, options->profile, &results)) {
      results.push_back(CheckInput(input, *options));
    }
  }
  CheckCompanions(*options, results);

  const std::vector<const Rule*> catalogue = Catalogue();
  const std::string report = WriteReport(options->output, results, {.catalogue = catalogue});
  if (!WriteOutput(options->output_file, report)) return ExitCode::kFailure;
  return Summarize(results).exit_code;
}

}  // namespace accelcheck::cli
