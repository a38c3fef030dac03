#include "validators/core/sink.h"

#include <algorithm>
#include <filesystem>
#include <utility>

namespace accelcheck {

DiagnosticSink::DiagnosticSink(Profile profile, std::string file)
    : profile_(std::move(profile)), file_(std::move(file)) {}

void DiagnosticSink::UseBaseline(Baseline* baseline, std::string file) {
  baseline_ = baseline;
  baseline_file_ = std::move(file);
}

namespace {

std::string NormalPath(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().string();
}

}  // namespace

void DiagnosticSink::ReportedElsewhere(std::vector<std::string> files) {
  for (std::string& file : files) file = NormalPath(file);
  reported_elsewhere_ = std::move(files);
}

bool DiagnosticSink::IsReportedElsewhere(const Location& location) const {
  if (location.member.empty() || reported_elsewhere_.empty()) return false;
  return std::find(reported_elsewhere_.begin(), reported_elsewhere_.end(),
                   NormalPath(location.member)) != reported_elsewhere_.end();
}

void DiagnosticSink::Report(const Rule& rule, Location location, std::string message) {
  // Phases gate on the rule's default severity, whatever the options say.
  if (rule.severity == Severity::kError) ++blocking_;
  const bool failing = IsProtected(rule);
  if (failing) failed_ = true;
  if (!failing && IsReportedElsewhere(location)) return;
  const RuleSetting setting = profile_.rules.For(rule);
  if (setting.disabled) {
    ++disabled_;
    return;
  }
  const Severity severity =
      setting.severity.value_or(profile_.strict ? rule.strict : rule.severity);
  if (baseline_ != nullptr && !failing &&
      baseline_->Accept(BaselineEntryFor(rule, baseline_file_, location, message))) {
    ++baselined_;
    if (diagnostics_.size() < kMaxKeptDiagnostics) {
      diagnostics_.push_back(
          {&rule, severity, file_, std::move(location), std::move(message), true});
    }
    return;
  }
  if (severity == Severity::kError) {
    ++errors_;
  } else if (severity == Severity::kWarning) {
    ++warnings_;
  }
  // A limit or internal failure is always listed: it says the verdict is unknown.
  const bool capped = profile_.max_errors != 0 && listed_errors_ >= profile_.max_errors;
  if ((capped || diagnostics_.size() >= kMaxKeptDiagnostics) && !failing) {
    ++suppressed_;
    return;
  }
  if (severity == Severity::kError) ++listed_errors_;
  diagnostics_.push_back({&rule, severity, file_, std::move(location), std::move(message)});
}

bool DiagnosticSink::Has(const Rule& rule) const {
  return std::any_of(diagnostics_.begin(), diagnostics_.end(),
                     [&](const Diagnostic& d) { return d.rule == &rule; });
}

ExitCode ExitCodeFor(const DiagnosticSink& sink) {
  if (sink.failed()) return ExitCode::kFailure;
  if (sink.error_count() > 0) return ExitCode::kErrors;
  if (sink.profile().werror && sink.warning_count() > 0) return ExitCode::kErrors;
  return ExitCode::kConforms;
}

}  // namespace accelcheck
