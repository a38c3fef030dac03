// Mutators: for a format, the rules it can break on purpose. `accelcheck
// mutate`, the conformance cases, the property tests and the fuzz seeds use
// them. Each mutation breaks exactly one rule of a valid input.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "validators/core/bytes.h"
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

// What a mutation wrote. `files[0]` is the file to validate, with
// `companions`; the other files are the ones it names (a Tensil model's
// .tprog and .tdata). `note` says what else validating it needs, if anything.
struct MutatedFiles {
  std::vector<std::string> files;
  std::vector<std::string> companions;
  std::string note;
};

class Mutator {
 public:
  virtual ~Mutator() = default;
  virtual std::string_view format() const = 0;
  // Every rule this mutator can break, in rule-table order.
  virtual std::vector<const Rule*> rules() const = 0;
  // Writes at `output` (and beside it, named after it, the other files of a
  // format of several files) a copy of the valid input that breaks `rule`
  // and no other rule with error severity. Nothing is written, and `error`
  // says why, when the input does not validate or offers no place to break
  // the rule. `seed` picks among the places when there are several.
  virtual std::optional<MutatedFiles> Mutate(const MutationInput& input, const Rule& rule,
                                             uint64_t seed, const std::string& output,
                                             std::string* error) const = 0;
};

// A mutator of a format of one file, whose mutation is a function of the
// file's bytes (so the fuzzers can use it in memory).
class ByteMutator : public Mutator {
 public:
  // A copy of `valid` that breaks `rule` and no other rule with error
  // severity, or nothing when this input offers no place to break it (then
  // `error` says why).
  virtual std::optional<std::vector<uint8_t>> Apply(ByteView valid, const Rule& rule, uint64_t seed,
                                                    std::string* error) const = 0;
  // What validating a mutation of `rule` needs besides the file (empty when
  // nothing): a rule between two files breaks only against the companion.
  virtual std::string CompanionNote(const Rule& rule) const = 0;

  // Reads the input, applies `rule` and writes the bytes to `output`.
  std::optional<MutatedFiles> Mutate(const MutationInput& input, const Rule& rule, uint64_t seed,
                                     const std::string& output, std::string* error) const final;
};

const Mutator* FindMutator(std::string_view format_id);

// What the input of a mutation already reports under --strict: only the
// documented quirks of real files (rules that are not errors by default),
// which its mutations keep. Generated inputs have none.
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
// input's baseline, or nothing when it does.
std::optional<std::string> NotBreakingOnly(const Format& format, const MutationInput& mutated,
                                           const Rule& rule, const std::vector<const Rule*>& also,
                                           const MutationBaseline& baseline);

}  // namespace accelcheck
