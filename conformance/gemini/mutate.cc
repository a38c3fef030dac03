#include "conformance/gemini/mutate.h"

#include <filesystem>

#include "conformance/gemini/cases.h"
#include "conformance/gemini/set_generate.h"
#include "validators/core/bytes.h"
#include "validators/core/limits.h"

namespace accelcheck::gemini {

namespace {

using conformance::Base;
using conformance::Declined;
using conformance::NamedFile;
using conformance::OrDeclined;

std::vector<uint8_t> Bytes(const std::string& text) { return {text.begin(), text.end()}; }

OrDeclined<NamedFile> ReadNamed(const std::string& path, std::string name) {
  std::string error;
  const std::optional<InputBuffer> input = ReadFileLimited(path, Limits{}.max_file_size, &error);
  if (!input) return Declined{error};
  return NamedFile{std::move(name), {input->bytes().begin(), input->bytes().end()}};
}

class GeminiProvider final : public conformance::Provider {
 public:
  std::string_view format() const override { return "gemini"; }

  // The schedule with its frontend IR, the frontend IR alone (the frontend
  // rules' cases change it, and the IR's cases decline on it), and a
  // schedule in the SET generator's dialect with its frontend IR.
  std::vector<Base> Bases() const override {
    const NamedFile frontend{"valid_base.frontend.json", Bytes(CaseBaseFrontend())};
    return {{"gemini.valid.base",
             "valid_base.json",
             {{"valid_base.json", Bytes(CaseBaseIr())}},
             {frontend}},
            {"gemini.valid.frontend", "valid_base.frontend.json", {frontend}, {}},
            {"gemini.valid.set",
             "valid_set.json",
             {{"valid_set.json", Bytes(CaseBaseSetIr())}},
             {{"valid_set.frontend.json", Bytes(CaseBaseSetFrontend())}}}};
  }

  const std::vector<conformance::MutationCase>& Cases() const override { return MutationCases(); }

  OrDeclined<Base> ReadBase(const std::string& path,
                            const std::vector<std::string>& companions) const override {
    Base base;
    OrDeclined<NamedFile> file = ReadNamed(path, std::filesystem::path(path).filename().string());
    if (auto* declined = std::get_if<Declined>(&file)) return std::move(*declined);
    base.files.push_back(std::move(std::get<NamedFile>(file)));
    for (const std::string& companion : companions) {
      file = ReadNamed(companion, companion);
      if (auto* declined = std::get_if<Declined>(&file)) return std::move(*declined);
      base.companions.push_back(std::move(std::get<NamedFile>(file)));
    }
    return base;
  }

  std::string_view companion_option() const override { return "--frontend FILE"; }
};

}  // namespace

const conformance::Provider& GeminiConformance() {
  static const GeminiProvider kProvider;
  return kProvider;
}

}  // namespace accelcheck::gemini
