// libFuzzer target for the Tensil JSON documents (.tmodel and .tarch):
// validate and inspect.
//
// A .tmodel's program and constants are the conformance suite's tiny bundle,
// written once to a temporary directory and named as companions, so that
// whatever file names the fuzzed manifest holds, the later phases (program,
// constants, dataflow) run whenever the manifest decodes.
//
// Oracles besides the sanitizers: every diagnostic names a rule of the
// tables, none is an internal error, and inspect output serialises.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "conformance/tensil/bundle.h"
#include "fuzz/fuzz_oracles.h"
#include "validators/core/format.h"
#include "validators/tensil/tensil_format.h"

namespace {

using namespace accelcheck;

const Format& Tensil() { return tensil::TensilFormat(); }

ValidateContext& Context() {
  static ValidateContext context;
  return context;
}

std::string& BundleDirectory() {
  static std::string directory;
  return directory;
}

void RemoveBundle() {
  std::error_code ignored;
  std::filesystem::remove_all(BundleDirectory(), ignored);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  namespace fs = std::filesystem;
  std::string pattern = (fs::temp_directory_path() / "tensil_model_fuzzer.XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) std::abort();
  std::string error;
  const auto written =
      tensil::conformance::WriteBundle(tensil::conformance::TinyBundle(), pattern, "tiny", &error);
  if (!written) std::abort();
  BundleDirectory() = pattern;
  std::atexit(RemoveBundle);
  ValidateContext& context = Context();
  context.path = (fs::path(pattern) / "fuzz.tmodel").string();
  for (const std::string& file : written->files) {
    const fs::path path(file);
    if (path.extension() == ".tprog" || path.extension() == ".tdata")
      context.companions.push_back(file);
  }
  context.limits.time_budget_ms = 0;  // libFuzzer's -timeout bounds the time
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const InputBuffer input = InputBuffer::Copy(ByteView(data, size));
  {
    DiagnosticSink sink(Profile{}, "fuzz-input");
    Tensil().Validate(input, Context(), sink);
    fuzz::CheckDiagnostics(Tensil(), sink);
  }
  DiagnosticSink sink(Profile{}, "fuzz-input");
  const nlohmann::json tree = Tensil().Inspect(input, Context(), sink);
  (void)tree.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  fuzz::CheckDiagnostics(Tensil(), sink);
  return 0;
}
