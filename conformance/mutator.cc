#include "conformance/mutator.h"

#include <algorithm>
#include <fstream>

#include "conformance/gemini/mutate.h"
#include "conformance/pte/mutate.h"
#include "conformance/tensil/mutate.h"
#include "validators/core/limits.h"
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

std::optional<MutatedFiles> ByteMutator::Mutate(const MutationInput& input, const Rule& rule,
                                                uint64_t seed, const std::string& output,
                                                std::string* error) const {
  const std::optional<InputBuffer> bytes =
      ReadFileLimited(input.path, Limits{}.max_file_size, error);
  if (!bytes) return std::nullopt;
  const std::optional<std::vector<uint8_t>> mutated = Apply(bytes->bytes(), rule, seed, error);
  if (!mutated) return std::nullopt;
  std::ofstream out(output, std::ios::binary);
  out.write(reinterpret_cast<const char*>(mutated->data()),
            static_cast<std::streamsize>(mutated->size()));
  if (!out) {
    *error = "cannot write " + output;
    return std::nullopt;
  }
  MutatedFiles written{{output}, {}, CompanionNote(rule)};
  // A rule between two files shows against the companion the input came with.
  if (!written.note.empty()) written.companions = input.companions;
  return written;
}

const Mutator* FindMutator(std::string_view format_id) {
  static const Mutator* const kMutators[] = {
      &pte::PteMutator(), &tensil::conformance::TensilMutator(), &gemini::GeminiMutator()};
  for (const Mutator* m : kMutators) {
    if (m->format() == format_id) return m;
  }
  return nullptr;
}

bool MutationBaseline::Holds(const Diagnostic& d) const {
  return findings.count(std::pair(d.rule, d.location.path)) != 0;
}

std::optional<std::string> NotAValidInput(const Format& format, const MutationInput& input,
                                          MutationBaseline* baseline) {
  std::string error;
  const std::optional<DiagnosticSink> sink = ValidateStrictly(format, input, &error);
  if (!sink) return error;
  for (const Diagnostic& d : sink->diagnostics()) {
    if (d.severity != Severity::kError) continue;
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
    } else if (d.severity == Severity::kError &&
               std::find(also.begin(), also.end(), d.rule) == also.end()) {
      return Str("the change would also break ", Describe(d));
    }
  }
  if (!broken) return Str("the change does not break ", rule.id, " here");
  return std::nullopt;
}

}  // namespace accelcheck
