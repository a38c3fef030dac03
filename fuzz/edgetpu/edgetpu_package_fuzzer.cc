// libFuzzer target for what lies inside an Edge TPU operator: the input is
// the bytes of a DWN1 package, which the target wraps, unchanged, as the
// "4" string of a valid operator's custom options in a valid model, so that
// every byte-level mutation reaches the package, MultiExecutable and
// Executable checks instead of stopping at the TFLite or FlexBuffer layers.
// A seed that is a whole .tflite has its package taken out first.
#include <cstddef>
#include <cstdint>

#include "conformance/edgetpu/bases.h"
#include "conformance/edgetpu/serialize.h"
#include "fuzz/fuzz_oracles.h"
#include "validators/core/format.h"
#include "validators/edgetpu/custom_options.h"
#include "validators/edgetpu/edgetpu_format.h"
#include "validators/edgetpu/tflite.h"

namespace {

using namespace accelcheck;
namespace model = edgetpu::model;

const Format& Edgetpu() { return edgetpu::EdgetpuFormat(); }

// The valid model the package goes into: the first base's, its "4" replaced.
const model::TfliteModel& Shell() {
  static const model::TfliteModel kShell = [] {
    for (const edgetpu::NamedBase& base : edgetpu::ExampleBases()) {
      if (const auto* tflite = std::get_if<model::TfliteModel>(&base.file)) return *tflite;
    }
    __builtin_trap();
  }();
  return kShell;
}

std::vector<uint8_t> Wrap(ByteView package) {
  model::TfliteModel tflite = Shell();
  for (model::SubGraph& graph : *tflite.subgraphs) {
    for (model::Operator& op : *graph.operators) {
      auto* map = op.custom_options ? std::get_if<model::FlexMap>(&*op.custom_options) : nullptr;
      if (map == nullptr) continue;
      for (model::FlexEntry& entry : map->entries) {
        if (entry.key == "4") entry.value = model::FlexString{{package.begin(), package.end()}};
      }
    }
  }
  return edgetpu::Serialize(tflite);
}

// A .tflite seed's first package, or the input as it is.
ByteView PackageOf(ByteView bytes, std::vector<uint8_t>* storage) {
  if (!HasBytesAt(bytes, 4, "TFL3")) return bytes;
  DiagnosticSink scratch(Profile{}, "seed");
  if (!edgetpu::VerifyModel(bytes, Limits{}, scratch)) return bytes;
  const auto ops = edgetpu::FindEdgetpuOps(bytes, *edgetpu::tfl::GetModel(bytes.data()), scratch);
  for (const edgetpu::EdgetpuOp& op : ops) {
    if (const auto package = edgetpu::ReadCustomOptions(op, scratch)) {
      storage->assign(package->bytes.begin(), package->bytes.end());
      return ByteView(*storage);
    }
  }
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> storage;
  const ByteView package = PackageOf(ByteView(data, size), &storage);
  const std::vector<uint8_t> model = Wrap(package);
  fuzz::Validate(Edgetpu(), ByteView(model));
  fuzz::CheckInspect(Edgetpu(), ByteView(model));
  return 0;
}
