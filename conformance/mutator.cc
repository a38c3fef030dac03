#include "conformance/mutator.h"

#include <algorithm>
#include <filesystem>

#include "validators/core/limits.h"
#include "validators/core/output_file.h"
#include "validators/core/text.h"

namespace accelcheck {

namespace {

std::optional<DiagnosticSink> ValidateStrictly(const Format& format, const MutationInput& input,
                                               std::string* error) {
  const std::optional<InputBuffer> bytes =
      ReadFileLimited(input.path, Limits{}.max_file_size, error);
  if (!bytes) return std::nullopt;
  DiagnosticSink sink(Profile{.strict = true}, input.path);
  ValidateContext context;
  context.path = input.path;
  context.companions = input.companions;
  format.Validate(*bytes, context, sink);
  return sink;
}

std::string Describe(const Diagnostic& d) {
  return Str(d.rule->id, d.location.path.empty() ? "" : " at " + d.location.path, ": ", d.message);
}

}  // namespace

bool MutationBaseline::Holds(const Diagnostic& d) const {
  return findings.count(std::pair(d.rule, d.location.path)) != 0;
}

std::optional<std::string> NotAValidInput(const Format& format, const MutationInput& input,
                                          MutationBaseline* baseline) {
  std::string error;
  const std::optional<DiagnosticSink> sink = ValidateStrictly(format, input, &error);
  if (!sink) return error;
  for (const Diagnostic& d : sink->diagnostics()) {
    if (d.severity < Severity::kWarning) continue;
    if (d.rule->severity == Severity::kError) {
      return Str("the input does not validate (mutations start from a valid file): ", Describe(d));
    }
    baseline->findings.emplace(d.rule, d.location.path);
  }
  return std::nullopt;
}

std::optional<std::string> NotBreakingOnly(const Format& format, const MutationInput& mutated,
                                           const Rule& rule, const std::vector<const Rule*>& also,
                                           const MutationBaseline& baseline) {
  std::string error;
  const std::optional<DiagnosticSink> sink = ValidateStrictly(format, mutated, &error);
  if (!sink) return error;
  bool broken = false;
  for (const Diagnostic& d : sink->diagnostics()) {
    if (baseline.Holds(d)) continue;
    if (d.rule == &rule) {
      broken = true;
    } else if (d.severity >= Severity::kWarning &&
               std::find(also.begin(), also.end(), d.rule) == also.end()) {
      return Str("the change would also break ", Describe(d));
    }
  }
  if (!broken) return Str("the change does not break ", rule.id, " here");
  return std::nullopt;
}

namespace conformance {

namespace {

namespace fs = std::filesystem;

// Writes `files` into `dir`; their paths in `written`.
bool WriteAll(const fs::path& dir, const std::vector<NamedFile>& files,
              std::vector<std::string>* written, std::string* error) {
  for (const NamedFile& file : files) {
    written->push_back((dir / file.name).string());
    if (!WriteOutputFile(written->back(), file.bytes, error)) return false;
  }
  return true;
}

std::vector<std::string> NamesOf(const std::vector<NamedFile>& files) {
  std::vector<std::string> names;
  for (const NamedFile& file : files) names.push_back(file.name);
  return names;
}

// A companion the mutation wrote is at its written path; one of the base is
// the user's file.
std::string CompanionPath(const std::string& name, const Mutated& mutated,
                          const std::vector<std::string>& written) {
  for (size_t i = 0; i < mutated.files.size(); ++i) {
    if (mutated.files[i].name == name) return written[i];
  }
  return name;
}

}  // namespace

MutationResult MutateFile(const Format& format, const Provider& provider,
                          const MutationInput& input, const Rule& rule, uint64_t seed,
                          const std::string& output) {
  const MutationCase* mutation = provider.FindCase(rule.id);
  if (mutation == nullptr) return Declined{Str("no mutation breaks ", rule.id)};
  if (mutation->needs_companions && input.companions.empty()) {
    return Declined{Str(rule.id, " holds between the file and its companion: give it with ",
                        provider.companion_option())};
  }
  MutationBaseline baseline;
  if (auto why = NotAValidInput(format, input, &baseline)) return Declined{*why};
  OrDeclined<Base> base = provider.ReadBase(input.path, input.companions);
  if (auto* declined = std::get_if<Declined>(&base)) return std::move(*declined);
  const fs::path out(output);
  OrDeclined<Mutated> mutated =
      mutation->apply(std::get<Base>(base), seed, out.filename().string());
  if (auto* declined = std::get_if<Declined>(&mutated)) return std::move(*declined);
  const Mutated& result = std::get<Mutated>(mutated);
  // The files name each other, so they are checked together under their
  // final names, in a directory of their own.
  std::string error;
  std::optional<StagingDirectory> staging = StagingDirectory::In(out.parent_path(), &error);
  if (!staging) return WriteFailed{error};
  WrittenMutation staged;
  if (!WriteAll(staging->path(), result.files, &staged.files, &error)) return WriteFailed{error};
  for (const std::string& name : result.companions)
    staged.companions.push_back(CompanionPath(name, result, staged.files));
  if (auto why = NotBreakingOnly(format, {staged.files[0], staged.companions}, rule, mutation->also,
                                 baseline)) {
    return Declined{Str("cannot break ", rule.id, " in this input: ", *why)};
  }
  if (!staging->MoveInto(out.parent_path(), NamesOf(result.files), &error))
    return WriteFailed{error};
  WrittenMutation written;
  for (const NamedFile& file : result.files)
    written.files.push_back((out.parent_path() / file.name).string());
  for (const std::string& name : result.companions)
    written.companions.push_back(CompanionPath(name, result, written.files));
  written.detected = format.Detect(result.files[0].bytes);
  return written;
}

}  // namespace conformance
}  // namespace accelcheck
