// Mutating a user's file (`accelcheck mutate`): a provider's case applied to
// a valid input on disk, the result written and checked to break exactly its
// rule. The checks are shared by every format.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance/provider.h"
#include "validators/core/diagnostic.h"
#include "validators/core/format.h"
#include "validators/core/sink.h"

namespace accelcheck {

// A valid input as it is validated: the file and its companions (the .ptd of
// a .pte, the frontend IR of a Gemini schedule, the .tarch of a Tensil model).
struct MutationInput {
  std::string path;
  std::vector<std::string> companions;
};

// What the input of a mutation already reports under --strict: only the
// documented quirks of real files (rules that are not errors by default,
// and the few that stay warnings), which its mutations keep. Generated
// inputs have none.
struct MutationBaseline {
  // (rule, object path); a set, since a quirky input may report thousands.
  std::set<std::pair<const Rule*, std::string>> findings;
  bool Holds(const Diagnostic& d) const;
};

// Why `path` (validated with `companions`) is not a valid input for a
// mutation, or nothing when it is: it must conform in the default profile,
// and its --strict findings become `baseline`.
std::optional<std::string> NotAValidInput(const Format& format, const MutationInput& input,
                                          MutationBaseline* baseline);

// Why the file a mutation wrote does not break exactly `rule` (with the
// rules `also` that necessarily break with it) under --strict, besides the
// input's baseline, or nothing when it does. A warning of another rule
// counts too: --strict leaves only a few real-file quirks as warnings, and a
// mutation adds none.
std::optional<std::string> NotBreakingOnly(const Format& format, const MutationInput& mutated,
                                           const Rule& rule, const std::vector<const Rule*>& also,
                                           const MutationBaseline& baseline);

namespace conformance {

// What a mutation of a user's file wrote: `files[0]` is the file to validate
// with `companions` (paths); the other files are the ones it names.
struct WrittenMutation {
  std::vector<std::string> files;
  std::vector<std::string> companions;
  // False when the change leaves the file unrecognisable by content (a
  // broken identifier): it is validated with --format.
  bool detected = true;
};

// The output of a mutation could not be written: no verdict on the input.
struct WriteFailed {
  std::string reason;
};

using MutationResult = std::variant<WrittenMutation, Declined, WriteFailed>;

// Applies `provider`'s case of `rule` to the valid `input` of `format` and
// writes the result at `output` (a bundle's other files beside it, named
// after it). The files are made and checked in a staging directory beside
// `output` and replace existing files only once all of them are checked.
// Declines, and leaves nothing written, when the input does not validate,
// lacks the companions the case needs, offers no place for the change, or
// the result would break another rule.
MutationResult MutateFile(const Format& format, const Provider& provider,
                          const MutationInput& input, const Rule& rule, uint64_t seed,
                          const std::string& output);

}  // namespace conformance
}  // namespace accelcheck
