// The embedding interface over the registry: the same validators, detection
// and profiles as `accelcheck validate`, with the results copied into the
// plain structs of accelcheck/accelcheck.h.
#include "accelcheck/accelcheck.h"

#include <algorithm>

#include "tools/accelcheck/registry.h"
#include "validators/core/core_rules.h"
#include "validators/core/format.h"
#include "validators/core/phases.h"
#include "validators/core/report.h"
#include "validators/core/text.h"

namespace accelcheck::api {

namespace {

// The interface's enums are the core's, value for value, so that a cast
// converts them; the asserts keep the two in step.
static_assert(static_cast<int>(Severity::kNote) == static_cast<int>(accelcheck::Severity::kNote));
static_assert(static_cast<int>(Severity::kError) == static_cast<int>(accelcheck::Severity::kError));
static_assert(static_cast<int>(Category::kMalformed) ==
              static_cast<int>(accelcheck::Category::kMalformed));
static_assert(static_cast<int>(Category::kInternal) ==
              static_cast<int>(accelcheck::Category::kInternal));
static_assert(static_cast<int>(Outcome::kConforms) == static_cast<int>(ExitCode::kConforms));
static_assert(static_cast<int>(Outcome::kErrors) == static_cast<int>(ExitCode::kErrors));
static_assert(static_cast<int>(Outcome::kUsage) == static_cast<int>(ExitCode::kUsage));
static_assert(static_cast<int>(Outcome::kFailed) == static_cast<int>(ExitCode::kFailure));

// The name the bytes have in messages: they come from no file.
constexpr std::string_view kInputName = "<memory>";

Limits LimitsOf(const Options& options) {
  Limits limits;
  if (options.max_depth) limits.max_depth = *options.max_depth;
  if (options.max_tables) limits.max_tables = *options.max_tables;
  if (options.time_budget_ms) limits.time_budget_ms = *options.time_budget_ms;
  if (options.max_inflated_bytes) limits.max_inflated_bytes = *options.max_inflated_bytes;
  if (options.max_compression_ratio) {
    limits.max_compression_ratio = *options.max_compression_ratio;
  }
  if (options.max_members) limits.max_members = *options.max_members;
  if (options.max_member_size) limits.max_member_size = *options.max_member_size;
  return limits;
}

// The targets `options` sets, each checked against its row of targets.def;
// nothing, with `error`, for a value out of range.
std::optional<Targets> TargetsOf(const Options& options, std::string* error) {
  struct Given {
    std::string_view field;  // in Options
    uint64_t Targets::*target;
    const std::optional<uint64_t>& value;
  };
  const Given given[] = {{"edgetpu_runtime", &Targets::edgetpu_runtime, options.edgetpu_runtime}};
  Targets targets;
  for (const Given& g : given) {
    if (!g.value) continue;
    const auto info = std::find_if(AllTargets().begin(), AllTargets().end(),
                                   [&](const TargetInfo& t) { return t.field == g.target; });
    if (*g.value < info->min_value || *g.value > info->max_value) {
      *error = Str("Options::", g.field, " is ", *g.value, ", not from ", info->min_value, " to ",
                   info->max_value);
      return std::nullopt;
    }
    targets.*g.target = *g.value;
  }
  return targets;
}

accelcheck::Profile ProfileOf(const Options& options) {
  return {.strict = options.profile == Profile::kStrict,
          .werror = options.werror,
          .max_errors = options.max_errors};
}

Diagnostic ToApi(const accelcheck::Diagnostic& d) {
  return {.rule = std::string(d.rule->id),
          .severity = static_cast<Severity>(d.severity),
          .category = static_cast<Category>(d.rule->category),
          .offset = d.location.offset,
          .length = d.location.length,
          .path = d.location.path,
          .member = d.location.member,
          .line = d.location.line,
          .column = d.location.column,
          .message = d.message};
}

Result ToApi(const DiagnosticSink& sink, const Format* format) {
  Result result;
  if (format != nullptr) result.format = std::string(format->id());
  result.outcome = static_cast<Outcome>(ExitCodeFor(sink));
  for (const accelcheck::Diagnostic& d : sink.diagnostics()) result.diagnostics.push_back(ToApi(d));
  result.errors = sink.error_count();
  result.warnings = sink.warning_count();
  return result;
}

// A companion the input's format does not read fails the result, as on the
// command line: nothing given is silently left unchecked.
void CheckCompanionsRead(const Format& format, const Options& options, DiagnosticSink& sink) {
  for (const File& companion : options.companions) {
    if (format.TakesCompanion(companion.name, companion.bytes)) continue;
    sink.Report(core_rules::kCompanionUnused, {std::nullopt, std::nullopt, "", companion.name},
                Str("the input is ", format.id(), ", which takes ", format.companion_kinds()));
  }
}

Result UsageError(std::string message) {
  Result result;
  result.outcome = Outcome::kUsage;
  result.usage_error = std::move(message);
  return result;
}

}  // namespace

Result Validate(std::span<const uint8_t> bytes, const Options& options) {
  const Format* forced = nullptr;
  if (!options.format.empty()) {
    const FormatEntry* entry = FindFormat(options.format);
    if (entry == nullptr) {
      return UsageError(
          Str("unknown format '", options.format, "' (known: ", accelcheck::FormatIds(), ")"));
    }
    forced = &entry->validator;
  }
  std::string target_error;
  const std::optional<Targets> targets = TargetsOf(options, &target_error);
  if (!targets) return UsageError(std::move(target_error));
  MemoryFiles files;
  ValidateContext context;
  context.limits = LimitsOf(options);
  context.targets = *targets;
  context.path = options.name;
  context.files = &files;
  for (const File& companion : options.companions) {
    files.Add(companion.name, companion.bytes);
    context.companions.push_back(companion.name);
  }
  context.deadline = Deadline(context.limits.time_budget_ms);
  DiagnosticSink sink(ProfileOf(options),
                      options.name.empty() ? std::string(kInputName) : options.name);
  const InputBuffer input = InputBuffer::Copy(bytes);
  const Format* format = ValidatorFor(input.bytes(), forced);
  if (format == nullptr) {
    ReportUnknownFormat("Options::format", sink);
  } else {
    ValidateGuarded(*format, input, context, sink);
    CheckCompanionsRead(*format, options, sink);
  }
  OutOfTime(context, sink);
  return ToApi(sink, format);
}

std::vector<std::string> FormatIds() {
  std::vector<std::string> ids;
  for (const FormatEntry& entry : Formats()) ids.emplace_back(entry.id());
  return ids;
}

std::string_view Version() { return kToolVersion; }

std::string_view SeverityName(Severity severity) {
  return accelcheck::SeverityName(static_cast<accelcheck::Severity>(severity));
}

std::string_view CategoryName(Category category) {
  return accelcheck::CategoryName(static_cast<accelcheck::Category>(category));
}

}  // namespace accelcheck::api
