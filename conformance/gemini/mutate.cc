#include "conformance/gemini/mutate.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "conformance/gemini/cases.h"
#include "validators/core/text.h"
#include "validators/gemini/gemini_format.h"

namespace accelcheck::gemini {

namespace {

const CaseMutation* FindCase(std::string_view rule_id) {
  for (const CaseMutation& m : CaseMutations()) {
    if (m.rule->id == rule_id) return &m;
  }
  return nullptr;
}

// The IR with the case's change. The changes name the objects they edit
// (core "0", its first workload, ...): on an IR without them they throw,
// or edit something else, which the check of the result then rejects.
std::optional<std::string> Changed(const std::string& text, const CaseMutation& m,
                                   std::string* error) {
  try {
    nlohmann::json ir = nlohmann::json::parse(text);
    if (m.change) m.change(ir);
    std::string changed = ir.dump();
    // Text changes expect the compact form the cases are written in.
    if (m.text_change) m.text_change(changed);
    return changed;
  } catch (const std::exception& e) {
    *error = Str("cannot break ", m.rule->id, " in this IR: it lacks what the change edits (",
                 e.what(), ")");
    return std::nullopt;
  }
}

bool WriteText(const std::string& path, const std::string& text, std::string* error) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (out) return true;
  *error = "cannot write " + path;
  return false;
}

class GeminiMutatorImpl final : public Mutator {
 public:
  std::string_view format() const override { return "gemini"; }

  std::vector<const Rule*> rules() const override {
    std::vector<const Rule*> out;
    for (const Rule* rule : GeminiFormat().rules()) {
      if (FindCase(rule->id) != nullptr) out.push_back(rule);
    }
    return out;
  }

  // The cases have one change per rule, so `seed` has nothing to pick.
  std::optional<MutatedFiles> Mutate(const MutationInput& input, const Rule& rule,
                                     uint64_t /*seed*/, const std::string& output,
                                     std::string* error) const override {
    const CaseMutation* mutation = FindCase(rule.id);
    if (mutation == nullptr) {
      *error = Str("no mutation breaks ", rule.id);
      return std::nullopt;
    }
    if (mutation->with_frontend && input.companions.empty()) {
      *error =
          Str(rule.id,
              " holds between the IR and its frontend IR: give the frontend with --frontend FILE");
      return std::nullopt;
    }
    MutationBaseline baseline;
    if (auto why = NotAValidInput(GeminiFormat(), input, &baseline)) {
      *error = *why;
      return std::nullopt;
    }
    std::ifstream in(input.path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const std::optional<std::string> changed = Changed(text.str(), *mutation, error);
    if (!changed || !WriteText(output, *changed, error)) return std::nullopt;
    // Checked as the conformance case is: with the frontend only for a rule
    // about it (other cases do not list the frontend rules they may break).
    const std::vector<std::string> companions =
        mutation->with_frontend ? input.companions : std::vector<std::string>{};
    if (auto why =
            NotBreakingOnly(GeminiFormat(), {output, companions}, rule, mutation->also, baseline)) {
      std::error_code ignored;
      std::filesystem::remove(output, ignored);
      *error = Str("cannot break ", rule.id, " in this IR: ", *why);
      return std::nullopt;
    }
    MutatedFiles result{{output}, companions, {}};
    if (mutation->with_frontend)
      result.note = "it shows against the frontend IR (validate with --frontend FILE)";
    return result;
  }
};

}  // namespace

const Mutator& GeminiMutator() {
  static const GeminiMutatorImpl kMutator;
  return kMutator;
}

}  // namespace accelcheck::gemini
