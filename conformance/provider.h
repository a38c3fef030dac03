// The conformance contract: what each format gives the suite generator, the
// per-rule tests, the fuzzers and `accelcheck mutate`. A provider holds its
// format's valid bases and one mutation case per rule it can break; the
// callers know no format (docs/ARCHITECTURE.md "Conformance").
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "validators/core/diagnostic.h"

namespace accelcheck::conformance {

// A file held in memory. In the suite `name` is relative to the format's
// folder; for `accelcheck mutate` a base's companions keep the user's paths.
struct NamedFile {
  std::string name;
  std::vector<uint8_t> bytes;
};

// Why a case cannot be applied to a base: the input does not validate, or
// offers no place for the change. The one way a provider declines.
struct Declined {
  std::string reason;
};

template <typename T>
using OrDeclined = std::variant<T, Declined>;

// The reason of a decline, or "" when `result` holds a value.
template <typename T>
std::string ReasonOf(const OrDeclined<T>& result) {
  const Declined* declined = std::get_if<Declined>(&result);
  return declined ? declined->reason : "";
}

// A valid input. `files[0]` is the file to validate, the others the files it
// names (a Tensil model's .tprog and .tdata); the validator gets
// `companions` too (the .ptd of a .pte, the frontend IR of a Gemini
// schedule, a .tarch).
struct Base {
  std::string id;    // the suite's valid case: "pte.valid.add"
  std::string name;  // how a negative case names the base it was made from
  std::vector<NamedFile> files;
  std::vector<NamedFile> companions;
};

// What a case made of a base. `companions` names files of `files` (a
// companion the mutation wrote) or companions of the base.
struct Mutated {
  std::vector<NamedFile> files;
  std::vector<std::string> companions;
  std::string path;  // where the validator must report the rule ("" for the whole file)
};

// One mutation case: the rule it breaks, the rules that necessarily break
// with it, and the change. Applied to a valid base it breaks `rule` and, under
// --strict, no other rule with error severity but `also`, and names its
// first file `name` (the bundle's other files after its stem); `seed` picks
// among the places when there are several.
struct MutationCase {
  const Rule* rule = nullptr;
  std::vector<const Rule*> also;
  // The rule holds between the file and its companions: the case applies
  // only to a base that has them, and shows only when validated with them.
  bool needs_companions = false;
  std::function<OrDeclined<Mutated>(const Base& base, uint64_t seed, const std::string& name)>
      apply;
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string_view format() const = 0;
  // The valid bases, in the order the suite tries them.
  virtual std::vector<Base> Bases() const = 0;
  // One case per rule the provider can break, in rule-table order.
  virtual const std::vector<MutationCase>& Cases() const = 0;
  // A user's valid input as a base: the file at `path` with the files it
  // names, and `companions` (paths).
  virtual OrDeclined<Base> ReadBase(const std::string& path,
                                    const std::vector<std::string>& companions) const = 0;
  // How a user gives the companions on the command line.
  virtual std::string_view companion_option() const = 0;

  const MutationCase* FindCase(std::string_view rule_id) const;
};

// A case applied to the first of `bases` (in order) that does not decline
// it; a case that needs companions skips the bases without them. The first
// file is named after the rule, with the base's extension
// ("pte_plan_name.pte"). Declines with the last base's reason.
struct AppliedCase {
  const Base* base = nullptr;
  Mutated mutated;
};
OrDeclined<AppliedCase> ApplyToFirstBase(const MutationCase& mutation,
                                         const std::vector<Base>& bases);

// A rule id as a file or test name: "pte.plan.name" is "pte_plan_name".
std::string FileId(std::string_view rule_id);

}  // namespace accelcheck::conformance
