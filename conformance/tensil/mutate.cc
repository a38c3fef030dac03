#include "conformance/tensil/mutate.h"

#include <filesystem>

#include "conformance/tensil/bundle.h"
#include "validators/core/limits.h"
#include "validators/core/text.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck::tensil::conformance {

namespace {

namespace ac = accelcheck::conformance;

std::vector<uint8_t> Copy(ByteView bytes) { return {bytes.begin(), bytes.end()}; }

class TensilProvider final : public ac::Provider {
 public:
  std::string_view format() const override { return "tensil"; }

  std::vector<ac::Base> Bases() const override {
    auto files = SerializeBundle(TinyBundle(), "valid_tiny");
    if (std::holds_alternative<ac::Declined>(files)) return {};
    return {{"tensil.valid.tiny",
             "valid_tiny.tmodel",
             std::move(std::get<std::vector<ac::NamedFile>>(files)),
             {}}};
  }

  const std::vector<ac::MutationCase>& Cases() const override { return MutationCases(); }

  // The .tmodel with the .tprog and .tdata it names, as the validator loads
  // them.
  ac::OrDeclined<ac::Base> ReadBase(const std::string& path,
                                    const std::vector<std::string>& companions) const override {
    std::string error;
    const std::optional<InputBuffer> tmodel = ReadFileLimited(path, Limits{}.max_file_size, &error);
    if (!tmodel) return ac::Declined{error};
    DiagnosticSink sink(Profile{}, path);
    ValidateContext context;
    context.path = path;
    context.companions = companions;
    const std::optional<LoadedModel> loaded = LoadModel(*tmodel, context, sink);
    if (!loaded) return ac::Declined{Str(path, " does not load as a valid Tensil model")};
    ac::Base base;
    base.files = {{std::filesystem::path(path).filename().string(), Copy(tmodel->bytes())},
                  {"program.tprog", Copy(loaded->program.bytes())},
                  {"constants.tdata", Copy(loaded->constants.bytes())}};
    for (const std::string& companion : companions) {
      const std::optional<InputBuffer> bytes =
          ReadFileLimited(companion, Limits{}.max_file_size, &error);
      if (!bytes) return ac::Declined{error};
      base.companions.push_back({companion, Copy(bytes->bytes())});
    }
    return base;
  }

  std::string_view companion_option() const override { return "--data FILE.tarch"; }
};

}  // namespace

const ac::Provider& TensilConformance() {
  static const TensilProvider kProvider;
  return kProvider;
}

}  // namespace accelcheck::tensil::conformance
