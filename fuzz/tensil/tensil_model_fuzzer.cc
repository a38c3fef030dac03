// libFuzzer target for the Tensil JSON documents (.tmodel and .tarch):
// validate and inspect.
//
// Each input is validated twice, with files held in memory:
// - by name: the files a .tmodel names are looked up among the conformance
//   suite's Tensil files (its base and every case), so a manifest made from a
//   suite case finds that case's .tprog and .tdata, and the later phases
//   (program, constants, dataflow) run on the suite's broken programs and
//   constants, against the fuzzed manifest's sizes and architecture;
// - with the base's .tprog, .tdata and .tarch as companions, so that the later
//   phases run whatever file names the manifest holds, and its architecture
//   is compared with the .tarch (docs/formats/tensil.md TNS-5).
//
// Oracles besides the sanitizers: every diagnostic names a rule of the
// tables, none is an internal error, and inspect output serialises.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "conformance/provider.h"
#include "conformance/tensil/bundle.h"
#include "conformance/tensil/mutate.h"
#include "fuzz/fuzz_oracles.h"
#include "validators/core/file_source.h"
#include "validators/core/format.h"
#include "validators/tensil/tensil_format.h"

namespace {

using namespace accelcheck;
namespace suite = accelcheck::conformance;

const Format& Tensil() { return tensil::TensilFormat(); }

// The suite's Tensil files by name, and the base's as companions.
class SuiteFiles {
 public:
  SuiteFiles() {
    const suite::Provider& provider = tensil::conformance::TensilConformance();
    const std::vector<suite::Base> bases = provider.Bases();
    for (const suite::Base& base : bases) Hold(base.files);
    for (const suite::MutationCase& mutation : provider.Cases()) {
      const auto applied = suite::ApplyToFirstBase(mutation, bases);
      if (const auto* a = std::get_if<suite::AppliedCase>(&applied)) Hold(a->mutated.files);
    }
    tensil::conformance::Bundle base = tensil::conformance::TinyBundle();
    base.tarch = base.arch();
    auto files = tensil::conformance::SerializeBundle(base, "base");
    if (!std::holds_alternative<std::vector<suite::NamedFile>>(files)) __builtin_trap();
    for (suite::NamedFile& file : std::get<std::vector<suite::NamedFile>>(files)) {
      file.name = "base/" + file.name;
      if (!file.name.ends_with(".tmodel")) base_companions_.push_back(file.name);
      held_.push_back(std::move(file));
    }
    for (const suite::NamedFile& file : held_) files_.Add(file.name, file.bytes);
  }

  // A .tmodel looks its files up by name.
  ValidateContext ByName() const {
    ValidateContext context;
    context.path = "fuzz.tmodel";
    context.files = &files_;
    context.limits.time_budget_ms = 0;  // libFuzzer's -timeout bounds the time
    return context;
  }

  ValidateContext WithBaseCompanions() const {
    ValidateContext context = ByName();
    context.companions = base_companions_;
    return context;
  }

 private:
  void Hold(const std::vector<suite::NamedFile>& files) {
    held_.insert(held_.end(), files.begin(), files.end());
  }

  std::vector<suite::NamedFile> held_;
  std::vector<std::string> base_companions_;
  MemoryFiles files_;
};

const SuiteFiles& Suite() {
  static const SuiteFiles files;
  return files;
}

void Validate(const InputBuffer& input, const ValidateContext& context) {
  DiagnosticSink sink(Profile{}, "fuzz-input");
  Tensil().Validate(input, context, sink);
  fuzz::CheckDiagnostics(Tensil(), sink);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)Suite();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const InputBuffer input = InputBuffer::Copy(ByteView(data, size));
  Validate(input, Suite().ByName());
  Validate(input, Suite().WithBaseCompanions());
  DiagnosticSink sink(Profile{}, "fuzz-input");
  const nlohmann::json tree = Tensil().Inspect(input, Suite().ByName(), sink);
  (void)tree.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  fuzz::CheckDiagnostics(Tensil(), sink);
  return 0;
}
