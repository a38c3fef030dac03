// accelcheck validate FILE|DIR|- ...: checks every input against every rule of
// its format and writes one report for the whole run.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <system_error>

#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/console.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "tools/accelcheck/parallel.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/baseline.h"
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
      {"jobs", true, "N",
       Str("validate N files at a time (default ", DefaultJobs(), ", the processors)"), 'j'},
      {"disable", true, "RULE",
       "drop RULE's diagnostics (an id, PREFIX.* or *; repeatable, counted as disabled)"},
      {"enable", true, "RULE", "keep RULE's diagnostics after a broader --disable (later wins)"},
      {"error", true, "RULE", "report RULE as an error, whatever the profile (repeatable)"},
      {"warning", true, "RULE", "report RULE as a warning, whatever the profile (repeatable)"},
      {"baseline", true, "FILE",
       "findings FILE accepts are listed as suppressed and do not fail the run"},
      {"write-baseline", true, "FILE", "record every finding of the run in FILE, as accepted"},
      {"srcroot", true, "DIR",
       "SARIF URIs and baseline fingerprints name files relative to DIR (uriBaseId SRCROOT)"},
      {"help", false, "", "print this help"},
  };
  const std::vector<Flag> limits = LimitFlags();
  flags.insert(flags.end(), limits.begin(), limits.end());
  const std::vector<Flag> targets = TargetFlags();
  flags.insert(flags.end(), targets.begin(), targets.end());
  return flags;
}

}  // namespace

const CommandSpec& ValidateSpec() {
  static const CommandSpec kSpec{
      "validate", "check files against every rule of their format",
      "usage: accelcheck validate [options] FILE|DIR|- ...\n"
      "Directories are searched recursively in sorted order; there, files whose\n"
      "content matches no format are skipped (a named file is reported as\n"
      "core.format.unknown). Files are checked --jobs at a time and reported in\n"
      "that order whatever the number. With --quiet the text report lists only\n"
      "what fails the run, and its summary line only when the run does not pass;\n"
      "json, sarif and junit reports are written in full. Exit codes: 0 conforms,\n"
      "1 errors (or warnings with --werror, or unknown content), 2 usage, 3 I/O,\n"
      "internal error or limit.\n"
      "--disable, --enable, --error and --warning apply in the order given; limit,\n"
      "I/O and internal rules (core.limit.*, core.io.*, core.internal) can be neither\n"
      "disabled nor downgraded, nor accepted by a baseline.\n",
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
  Targets targets;
  std::vector<std::string> companions;
  std::vector<std::string> inputs;
  bool fail_on_skip = false;            // a file a directory run would skip is an error instead
  std::optional<std::string> baseline;  // --baseline FILE
  std::optional<std::string> write_baseline;  // --write-baseline FILE
  std::string srcroot;                        // absolute and normal; empty when not given
  unsigned jobs = DefaultJobs();
  bool quiet = false;
};

// --jobs N: from 1 to kMaxJobs files at a time.
constexpr uint64_t kMaxJobs = 1024;

// Every rule of every format: what a --disable pattern may name.
std::vector<const Rule*> AllRules() {
  std::vector<const Rule*> rules(core_rules::All().begin(), core_rules::All().end());
  for (const FormatEntry& format : Formats()) {
    const RuleTable table = format.validator.rules();
    rules.insert(rules.end(), table.begin(), table.end());
  }
  return rules;
}

// --disable, --enable, --error and --warning in command-line order.
std::optional<RuleSelection> ToRuleSelection(const ParsedArgs& parsed, std::string* error) {
  static const std::pair<std::string_view, RuleAction> kActions[] = {
      {"disable", RuleAction::kDisable},
      {"enable", RuleAction::kEnable},
      {"error", RuleAction::kError},
      {"warning", RuleAction::kWarning}};
  std::vector<RuleDirective> directives;
  for (const auto& [flag, value] : parsed.in_order) {
    for (const auto& [name, action] : kActions) {
      if (flag == name) directives.push_back({action, value});
    }
  }
  return RuleSelection::Make(std::move(directives), AllRules(), error);
}

// --srcroot as an absolute, normal path without a trailing separator.
std::optional<std::string> ToSrcroot(const std::string& dir, std::string* error) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    *error = Str("--srcroot ", dir, ": not a directory");
    return std::nullopt;
  }
  std::filesystem::path root = std::filesystem::absolute(dir, ec).lexically_normal();
  if (!root.has_filename() && root.has_relative_path()) root = root.parent_path();
  return root.string();
}

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
  if (!ApplyTargetFlags(parsed, &options.targets, error)) return std::nullopt;
  options.companions = parsed.All("data");
  for (const std::string& frontend : parsed.All("frontend")) options.companions.push_back(frontend);
  options.fail_on_skip = parsed.Has("fail-on-skip");
  if (auto text = parsed.Get("jobs")) {
    std::string parse_error;
    const std::optional<uint64_t> jobs = ParseCount(*text, &parse_error);
    if (!jobs || *jobs < 1 || *jobs > kMaxJobs) {
      *error =
          Str("--jobs: expected a number of files from 1 to ", kMaxJobs, ", got '", *text, "'");
      return std::nullopt;
    }
    options.jobs = static_cast<unsigned>(*jobs);
  }
  options.quiet = parsed.Has("quiet");
  std::optional<RuleSelection> rules = ToRuleSelection(parsed, error);
  if (!rules) return std::nullopt;
  options.profile.rules = std::move(*rules);
  options.baseline = parsed.Get("baseline");
  options.write_baseline = parsed.Get("write-baseline");
  if (options.baseline && options.write_baseline) {
    *error =
        "--baseline and --write-baseline do not go together: a run that writes a baseline "
        "accepts every finding";
    return std::nullopt;
  }
  if (auto dir = parsed.Get("srcroot")) {
    std::optional<std::string> root = ToSrcroot(*dir, error);
    if (!root) return std::nullopt;
    options.srcroot = std::move(*root);
  }
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

// A run that stopped before validating; with --output json, the one JSON
// document of the run says why.
void PrintRunErrorJson(const Args& args, ExitCode exit_code, const std::string& message) {
  if (WantsJson(args)) std::cout << RunErrorJson(exit_code, message) << std::flush;
}

struct Input {
  std::string path;
  bool from_directory = false;
  std::string argument;  // the directory it was found in, or the path itself
};

// One result of the report, in its order: an input to check, or a directory
// that could not be listed, whose result is known already.
struct Task {
  Input input;
  std::optional<FileResult> listed;
};
// `path` without a trailing separator, so that lexical comparisons see the
// same elements in "models/" and "models".
std::filesystem::path Directory(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).lexically_normal();
  if (!dir.has_filename() && dir.has_relative_path()) dir = dir.parent_path();
  return dir;
}

// The file as baseline fingerprints name it (docs/ARCHITECTURE.md
// "Baseline"): relative to --srcroot when it lies there, else to the
// argument it was found through (a file named itself: its name), so that the
// same tree checked out elsewhere gives the same names.
std::string FingerprintPath(const Input& input, const ValidateOptions& options) {
  if (input.path == "-") return DisplayName(input.path);
  if (!options.srcroot.empty()) {
    if (std::optional<std::string> inside = PathInside(options.srcroot, input.path)) return *inside;
  }
  const std::filesystem::path path = std::filesystem::path(input.path).lexically_normal();
  if (!input.from_directory) return path.filename().string();
  return path.lexically_relative(Directory(input.argument)).generic_string();
}

// Without --srcroot, two arguments may hold files of the same relative name,
// whose findings a baseline cannot tell apart: the run says so on standard
// error, naming the first pair.
void WarnOfSharedFingerprintNames(const std::vector<Task>& tasks, const ValidateOptions& options) {
  if (!options.srcroot.empty() || options.quiet) return;
  std::map<std::string, std::string> seen;  // name -> path
  for (const Task& task : tasks) {
    const std::string name = FingerprintPath(task.input, options);
    const auto [it, fresh] = seen.emplace(name, task.input.path);
    if (fresh || it->second == task.input.path) continue;
    std::cerr << "accelcheck validate: warning: " << OneLine(it->second) << " and "
              << OneLine(task.input.path) << " have the same name in the baseline ("
              << OneLine(name) << "), so their findings are not told apart; give --srcroot DIR\n";
    return;
  }
}

// Expands a directory into its regular files, sorted by path, so that runs
// over the same tree list files in the same order. A directory that cannot be
// listed becomes a result of its own.
void ExpandInput(const std::string& path, const Profile& profile, std::vector<Task>* tasks) {
  std::error_code ec;
  if (path == "-" || !std::filesystem::is_directory(path, ec)) {
    tasks->push_back({{path, false, path}, std::nullopt});
    return;
  }
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
    tasks->push_back({{path, false, path}, std::move(failed)});
  }
  std::sort(files.begin(), files.end());
  for (std::string& file : files) tasks->push_back({{std::move(file), true, path}, std::nullopt});
}

// The name a file's format may be guessed from: an inflated file's without
// its ".gz".
std::string NameOfContent(const std::string& path, bool inflated) {
  return inflated && path.ends_with(".gz") ? path.substr(0, path.size() - 3) : path;
}

// The format that detects the file; in a directory, also one it resembles
// (a damaged file of that format is validated and reported, never skipped).
const Format* FormatOf(const Input& input, ByteView bytes, bool inflated) {
  const FormatEntry* format = DetectFormat(bytes);
  if (format == nullptr && input.from_directory && !bytes.empty())
    format = ResembledFormat(NameOfContent(input.path, inflated), bytes);
  return format != nullptr ? &format->validator : nullptr;
}

// A gzip input is inflated whole only when its first bytes show a format
// that takes it, or one accelcheck reports as unsupported (§ Compressed
// inputs in docs/ARCHITECTURE.md).
WorthInflating WorthInflatingFor(const Input& input, const ValidateOptions& options) {
  return [&input, &options](ByteView head) {
    return options.forced != nullptr || FormatOf(input, head, true) != nullptr ||
           UnsupportedFormat(head).has_value();
  };
}

// A file no format validates does not conform (exit 1); inside a directory
// it is most likely a file of another kind, listed as skipped, with the
// reason, unless --fail-on-skip.
void NotValidated(const Input& input, const InputBuffer& buffer, const ValidateOptions& options,
                  FileResult& result) {
  const std::optional<std::string_view> unsupported = UnsupportedFormat(buffer.bytes());
  if (input.from_directory && !options.fail_on_skip) {
    const bool inflated = result.sink.Has(core_rules::kGzipInflated);
    result.skipped = true;
    result.skip_reason =
        buffer.size() == 0 ? (inflated ? "a gzip stream that inflates to nothing" : "empty file")
        : unsupported      ? std::string(*unsupported)
                           : Str(inflated ? "a gzip stream whose inflated content" : "content",
                            " matches no supported format (", FormatIds(), ")");
  } else if (unsupported) {
    result.sink.Report(core_rules::kFormatUnsupported, {}, std::string(*unsupported));
  } else if (buffer.size() == 0) {
    result.sink.Report(core_rules::kFormatUnknown, {}, "empty file");
  } else {
    ReportUnknownFormat("--format ID", result.sink);
  }
}

// `inputs` are the files the run validates: a companion among them reports
// its own problems, so the input that reads it does not list them again.
// `shared`, when the run has other inputs, receives the values the file must
// not share with them.
FileResult CheckInput(const Input& input, const ValidateOptions& options,
                      const std::vector<std::string>& inputs, Baseline* baseline,
                      std::vector<SharedValue>* shared) {
  const std::string name = DisplayName(input.path);
  FileResult result{name, "", false, DiagnosticSink(options.profile, name)};
  if (baseline != nullptr) result.sink.UseBaseline(baseline, FingerprintPath(input, options));
  result.sink.ReportedElsewhere(inputs);
  ValidateContext context;
  context.limits = options.limits;
  context.targets = options.targets;
  context.path = input.path;
  context.companions = options.companions;
  context.deadline = Deadline(options.limits.time_budget_ms);
  const std::optional<InputBuffer> buffer =
      ReadInput(input.path, options.limits, WorthInflatingFor(input, options), result.sink);
  if (!buffer) return result;
  const Format* format =
      options.forced != nullptr
          ? options.forced
          : FormatOf(input, buffer->bytes(), result.sink.Has(core_rules::kGzipInflated));
  if (format == nullptr) {
    NotValidated(input, *buffer, options, result);
    OutOfTime(context, result.sink);
    return result;
  }
  result.format = std::string(format->id());
  result.dialect = std::string(format->Dialect(buffer->bytes()));
  ValidateGuarded(*format, *buffer, context, result.sink);
  if (shared != nullptr && !result.sink.failed())
    *shared = SharedValuesGuarded(*format, *buffer, context, result.sink);
  OutOfTime(context, result.sink);
  return result;
}

// Checks every task on --jobs threads. Each result goes to its task's place,
// so the report is the same whatever the number of threads; a thread holds
// one file at a time. Then the inputs are related: each value some of them
// share is noted in each (docs/ARCHITECTURE.md "Inputs").
std::vector<FileResult> CheckAll(std::vector<Task>& tasks, const ValidateOptions& options,
                                 Baseline* baseline) {
  std::vector<std::string> inputs;
  for (const Task& task : tasks) {
    if (!task.listed) inputs.push_back(task.input.path);
  }
  std::vector<std::optional<FileResult>> done(tasks.size());
  std::vector<std::vector<SharedValue>> shared(tasks.size());
  {
    ProgressOptions counted = ProgressFor(options.quiet);
    counted.enabled =
        counted.enabled && tasks.size() > 1;  // a run of one file has nothing to count
    Progress progress(counted, "accelcheck validate: files", tasks.size());
    ParallelFor(tasks.size(), options.jobs, [&](size_t i) {
      done[i] = tasks[i].listed ? std::move(tasks[i].listed)
                                : CheckInput(tasks[i].input, options, inputs, baseline,
                                             tasks.size() > 1 ? &shared[i] : nullptr);
      progress.Advance();
    });
  }
  std::vector<FileResult> results;
  results.reserve(done.size());
  for (std::optional<FileResult>& result : done) results.push_back(std::move(*result));
  std::vector<InputValues> values;
  for (size_t i = 0; i < results.size(); ++i)
    values.push_back({results[i].path, std::move(shared[i]), &results[i].sink});
  ReportSharedValues(values);
  return results;
}

// The rules a SARIF report lists: the core table, then the table of each
// format an input of the run was validated as, in registry order, so that a
// rule's ruleIndex depends only on the formats the run saw.
std::vector<const Rule*> Catalogue(const std::vector<FileResult>& results) {
  std::vector<const Rule*> rules(core_rules::All().begin(), core_rules::All().end());
  for (const FormatEntry& format : Formats()) {
    const bool seen = std::any_of(results.begin(), results.end(), [&](const FileResult& r) {
      return r.format == format.validator.id();
    });
    if (!seen) continue;
    const RuleTable table = format.validator.rules();
    rules.insert(rules.end(), table.begin(), table.end());
  }
  return rules;
}

// The text report under --quiet: the diagnostics that fail the run, and the
// summary line only when the run does not pass. A passing run prints nothing.
std::string QuietText(const std::vector<FileResult>& results) {
  std::string out;
  for (const FileResult& result : results) {
    for (const Diagnostic& d : result.sink.diagnostics()) {
      if (Fails(d, result.sink.profile())) out += TextLine(d) + "\n";
    }
  }
  if (Summarize(results).exit_code != ExitCode::kConforms) out += WriteTextSummary(results);
  return out;
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
void CheckCompanions(const ValidateOptions& options, Baseline* baseline,
                     std::vector<FileResult>& results) {
  const size_t inputs = results.size();
  for (const std::string& path : options.companions) {
    FileResult result{path, "", false, DiagnosticSink(options.profile, path)};
    if (baseline != nullptr)
      result.sink.UseBaseline(baseline, FingerprintPath({path, false, path}, options));
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

// Reads the --baseline file into `baseline`: kFailure when it cannot be read
// (as a companion that cannot be), kUsage when it is not a baseline, with
// the message printed and in `error`.
ExitCode ReadBaseline(const std::string& path, const Limits& limits,
                      std::optional<Baseline>* baseline, std::string* error) {
  const std::optional<InputBuffer> bytes = ReadFileLimited(path, limits.max_file_size, error);
  if (!bytes) {
    *error = Str("cannot read the baseline ", path, ": ", *error);
    return IoError(ValidateSpec(), *error);
  }
  const ByteView view = bytes->bytes();
  *baseline = Baseline::Parse(
      std::string_view(reinterpret_cast<const char*>(view.data()), view.size()), error);
  if (*baseline) return ExitCode::kConforms;
  *error = Str("--baseline ", path, ": ", *error);
  return UsageError(ValidateSpec(), *error);
}

bool WriteBaseline(const std::string& path, const Baseline& baseline) {
  std::string error;
  if (WriteOutputFile(path, AsBytes(baseline.ToJson()), &error)) return true;
  std::cerr << "accelcheck validate: cannot write the baseline: " << error << "\n";
  return false;
}

}  // namespace

ExitCode RunValidate(const Args& args) {
  const CommandSpec& spec = ValidateSpec();
  ExitCode exit_code = ExitCode::kConforms;
  std::string error;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code, &error);
  if (!parsed) {
    if (exit_code == ExitCode::kUsage) PrintRunErrorJson(args, exit_code, error);
    return exit_code;
  }
  const std::optional<ValidateOptions> options = ToOptions(*parsed, &error);
  if (!options) {
    UsageError(spec, error);
    PrintRunErrorJson(args, ExitCode::kUsage, error);
    return ExitCode::kUsage;
  }

  std::optional<Baseline> baseline;
  if (options->write_baseline) {
    baseline = Baseline::Recording();
  } else if (options->baseline) {
    exit_code = ReadBaseline(*options->baseline, options->limits, &baseline, &error);
    if (exit_code != ExitCode::kConforms) {
      PrintRunErrorJson(args, exit_code, error);
      return exit_code;
    }
  }
  Baseline* accepts = baseline ? &*baseline : nullptr;

  std::vector<Task> tasks;
  for (const std::string& path : options->inputs) ExpandInput(path, options->profile, &tasks);
  if (accepts != nullptr) WarnOfSharedFingerprintNames(tasks, *options);
  std::vector<FileResult> results = CheckAll(tasks, *options, accepts);
  CheckCompanions(*options, accepts, results);

  const bool baseline_written =
      !options->write_baseline || WriteBaseline(*options->write_baseline, *baseline);
  const std::vector<const Rule*> catalogue = Catalogue(results);
  SarifOptions sarif{.catalogue = catalogue,
                     .srcroot = options->srcroot,
                     .companions = options->companions,
                     .rules = &options->profile.rules,
                     .baseline = options->baseline.value_or(options->write_baseline.value_or(""))};
  const std::string report = options->quiet && options->output == ReportFormat::kText
                                 ? QuietText(results)
                                 : WriteReport(options->output, results, sarif);
  if (!WriteOutput(options->output_file, report) || !baseline_written) return ExitCode::kFailure;
  return Summarize(results).exit_code;
}

}  // namespace accelcheck::cli
