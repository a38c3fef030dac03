#include "conformance/tensil/mutate.h"

#include <filesystem>

#include "conformance/tensil/bundle.h"
#include "validators/core/text.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck::tensil::conformance {

namespace {

namespace fs = std::filesystem;

// OUT.tmodel names the bundle OUT; any other name is the stem itself.
std::string StemOf(const fs::path& output) {
  return output.extension() == ".tmodel" ? output.stem().string() : output.filename().string();
}

void Remove(const std::vector<std::string>& files) {
  std::error_code ignored;
  for (const std::string& file : files) fs::remove(file, ignored);
}

class TensilMutatorImpl final : public Mutator {
 public:
  std::string_view format() const override { return "tensil"; }

  std::vector<const Rule*> rules() const override {
    std::vector<const Rule*> out;
    for (const Mutation& m : Mutations()) out.push_back(m.rule);
    return out;
  }

  // The table has one change per rule, so `seed` has nothing to pick.
  std::optional<MutatedFiles> Mutate(const MutationInput& input, const Rule& rule,
                                     uint64_t /*seed*/, const std::string& output,
                                     std::string* error) const override {
    const Mutation* mutation = FindMutation(rule.id);
    if (mutation == nullptr) {
      *error = Str("no mutation breaks ", rule.id);
      return std::nullopt;
    }
    MutationBaseline baseline;
    if (auto why = NotAValidInput(TensilFormat(), input, &baseline)) {
      *error = *why;
      return std::nullopt;
    }
    std::optional<Bundle> bundle = ReadBundle(input.path, error);
    if (!bundle) return std::nullopt;
    try {
      mutation->change(*bundle);
    } catch (const std::exception& e) {
      *error = Str("cannot break ", rule.id, " in this model: ", e.what());
      return std::nullopt;
    }
    const fs::path out(output);
    const std::optional<WrittenBundle> written =
        WriteBundle(*bundle, out.parent_path(), StemOf(out), error);
    if (!written) return std::nullopt;
    // The architecture file the input was validated against, unless the
    // mutation writes its own.
    MutatedFiles result{
        written->files, written->companions.empty() ? input.companions : written->companions, {}};
    if (auto why = NotBreakingOnly(TensilFormat(), {written->tmodel, result.companions}, rule,
                                   mutation->also, baseline)) {
      Remove(written->files);
      *error = Str("cannot break ", rule.id, " in this model: ", *why);
      return std::nullopt;
    }
    return result;
  }
};

}  // namespace

const Mutator& TensilMutator() {
  static const TensilMutatorImpl kMutator;
  return kMutator;
}

}  // namespace accelcheck::tensil::conformance
