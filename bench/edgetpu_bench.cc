// Measures Edge TPU validation against the bare flatbuffers Verifier on the
// same nested buffers, and on real files. Run through bench/run.sh, which
// also records peak memory and fuzzing throughput.
//
//   edgetpu_bench generate --parameters-mb M --field-offsets N [--hints H]
//                 [--package-offset K] -o FILE
//                                            a .tflite with a large valid package
//   edgetpu_bench compare FILE [--repeat R]  Verifier vs full validation, best of R
//   edgetpu_bench corpus DIR [--repeat R]    validation time of each .tflite in DIR
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <flatbuffers/flexbuffers.h>

#include "bench/bench_common.h"
#include "conformance/edgetpu/bases.h"
#include "conformance/edgetpu/serialize.h"
#include "validators/core/flatbuffer.h"
#include "validators/core/format.h"
#include "validators/edgetpu/edgetpu_format.h"
#include "validators/edgetpu/package.h"
#include "validators/edgetpu/schema/executable_generated.h"
#include "validators/edgetpu/tflite.h"

namespace {

using namespace accelcheck;
namespace model = edgetpu::model;
namespace dwn = edgetpu::dwn;
namespace tfl = edgetpu::tfl;

struct Size {
  uint64_t parameter_bytes;
  uint64_t field_offsets;
  uint64_t hints;
};

// A stand-alone executable shaped like a large convolutional network compiled
// for one Edge TPU (docs/formats/edgetpu.md §5.1): a 224x224x3 image in, 1001
// classes out, the parameters streamed in `hints` descriptors and every
// address patched often enough to give `field_offsets` field offsets (two
// per LOWER + UPPER pair, four addresses: parameters, scratch, input, output).
model::Package LargePackage(const Size& size) {
  edgetpu::PackageSpec spec;
  spec.cached = false;
  edgetpu::LayerSpec image;
  image.name = "image";
  image.y = 224;
  image.x = 224;
  image.z = 3;
  image.zero_point = 128;
  image.scale = 0.0078125f;
  spec.inputs.push_back(image);
  edgetpu::LayerSpec logits;
  logits.name = "logits";
  logits.z = 1001;
  logits.pad_z = true;
  logits.scale = 0.00390625f;
  spec.outputs.push_back(logits);
  spec.parameter_bytes = static_cast<uint32_t>(size.parameter_bytes / 64 * 64);
  constexpr uint64_t kOtherHints = 4;  // chunk 0, the input, the output, interrupt 0
  spec.parameter_pieces =
      static_cast<int32_t>(size.hints > kOtherHints ? size.hints - kOtherHints : 1);
  constexpr uint64_t kPerPair = 2 * 4;
  spec.patch_pairs = static_cast<int32_t>((size.field_offsets + kPerPair - 1) / kPerPair);
  spec.token = 0x5bd1e995c2b2ae35;
  return edgetpu::PackageFromSpec(spec);
}

template <typename Root>
bool VerifyNested(const edgetpu::NestedBuffer& buffer) {
  const ByteView bytes = buffer.region.bytes;
  flatbuffers::Verifier v(bytes.data(), bytes.size(), VerifierOptions(Limits{}));
  return v.VerifyBuffer<Root>(nullptr);
}

// What the runtime verifies, with no rule of its own (docs/formats/
// edgetpu.md §2.5): the model, then each Edge TPU operator's package (found
// through the custom options without a check, as flexbuffers reads them),
// its MultiExecutable and every executable, each nested buffer copied to
// aligned memory when the validator copies it (package.h NestedBuffer).
// The number of buffers verified, or nothing when one fails.
std::optional<int> VerifyOnly(const InputBuffer& input) {
  flatbuffers::Verifier model_verifier(input.data(), input.size(), VerifierOptions(Limits{}));
  if (!tfl::VerifyModelBuffer(model_verifier)) return std::nullopt;
  int buffers = 1;
  const tfl::Model& model = *tfl::GetModel(input.data());
  const auto* codes = model.operator_codes();
  for (const tfl::SubGraph* graph : *model.subgraphs()) {
    for (const tfl::Operator* op : *graph->operators()) {
      const auto* code = codes->Get(op->opcode_index());
      if (code->custom_code() == nullptr ||
          code->custom_code()->string_view() != edgetpu::kCustomOpName)
        continue;
      const auto* options = op->custom_options();
      const auto string = flexbuffers::GetRoot(options->data(), options->size()).AsMap()["4"];
      const auto* data = reinterpret_cast<const uint8_t*>(string.AsString().c_str());
      const edgetpu::NestedBuffer package(ByteView(data, string.AsString().size()), 0, "");
      if (!VerifyNested<dwn::Package>(package)) return std::nullopt;
      const auto* multi_bytes = flatbuffers::GetRoot<dwn::Package>(package.region.bytes.data())
                                    ->serialized_multi_executable();
      const edgetpu::NestedBuffer multi(ByteView(multi_bytes->data(), multi_bytes->size()), 0, "");
      if (!VerifyNested<dwn::MultiExecutable>(multi)) return std::nullopt;
      buffers += 2;
      const auto* strings = flatbuffers::GetRoot<dwn::MultiExecutable>(multi.region.bytes.data())
                                ->serialized_executables();
      for (const flatbuffers::String* s : *strings) {
        const auto* bytes = reinterpret_cast<const uint8_t*>(s->data());
        if (!VerifyNested<dwn::Executable>(
                edgetpu::NestedBuffer(ByteView(bytes, s->size()), 0, "")))
          return std::nullopt;
        ++buffers;
      }
    }
  }
  return buffers;
}

int Generate(const Size& size, std::optional<uint32_t> package_offset, const std::string& out) {
  const model::Package package = LargePackage(size);
  edgetpu::SerializeOptions options;
  options.package_offset_mod16 = package_offset;
  const std::vector<uint8_t> bytes =
      edgetpu::Serialize(edgetpu::WrapPackage(package, edgetpu::CompilerOptions(package)), options);
  std::FILE* f = std::fopen(out.c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) return 3;
  std::fclose(f);
  const model::Executable& exe = *edgetpu::MainExecutable(package);
  size_t field_offsets = 0;
  for (const model::InstructionBitstream& chunk : *exe.instruction_bitstreams)
    field_offsets += chunk.field_offsets->size();
  std::printf("wrote %s: %zu bytes, %zu bytes of parameters, %zu field offsets, %zu DMA hints\n",
              out.c_str(), bytes.size(), exe.parameters->size(), field_offsets,
              exe.dma_hints->hints->size());
  return 0;
}

int Compare(const std::string& path, int repeat) {
  InputBuffer input;
  if (!bench::ReadInput("edgetpu_bench", path, &input)) return 3;
  std::optional<int> buffers;
  const double verifier = bench::BestSeconds(repeat, [&] { buffers = VerifyOnly(input); });
  uint64_t errors = 0;
  const double validate = bench::BestSeconds(
      repeat, [&] { errors = bench::ValidateOnce(edgetpu::EdgetpuFormat(), input, path); });
  std::printf("file            %s (%zu bytes)\n", path.c_str(), input.size());
  std::printf("verifier        %.3f ms (%s)\n", verifier * 1e3,
              buffers ? (std::to_string(*buffers) + " buffers verify").c_str() : "fails");
  std::printf("accelcheck      %.3f ms (%llu errors)\n", validate * 1e3,
              static_cast<unsigned long long>(errors));
  std::printf("ratio           %.2fx the bare verifier\n", validate / verifier);
  std::printf("throughput      %.1f MB/s\n", input.size() / validate / 1e6);
  return 0;
}

int Corpus(const std::string& dir, int repeat) {
  return bench::ValidateCorpus("edgetpu_bench", edgetpu::EdgetpuFormat(), dir, {".tflite"}, repeat);
}

int Usage() {
  std::fputs(
      "usage: edgetpu_bench generate --parameters-mb M --field-offsets N [--hints H]\n"
      "                     [--package-offset K] -o FILE\n"
      "     | compare FILE [--repeat R] | corpus DIR [--repeat R]\n",
      stderr);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return Usage();
  const auto flag = [&](const std::string& name, const std::string& fallback) {
    return bench::FlagValue(args, name, fallback);
  };
  const auto number = [&](const std::string& name, const std::string& fallback) {
    return std::strtoull(flag(name, fallback).c_str(), nullptr, 10);
  };
  const int repeat = std::atoi(flag("--repeat", "5").c_str());
  if (args[0] == "generate") {
    const uint64_t field_offsets = number("--field-offsets", "100000");
    const Size size{number("--parameters-mb", "100") << 20, field_offsets,
                    number("--hints", std::to_string(field_offsets))};
    std::optional<uint32_t> package_offset;
    if (flag("--package-offset", "") != "") {
      package_offset = static_cast<uint32_t>(number("--package-offset", "0"));
    }
    return Generate(size, package_offset, flag("-o", "big.tflite"));
  }
  if (args[0] == "compare" && args.size() >= 2) return Compare(args[1], repeat);
  if (args[0] == "corpus" && args.size() >= 2) return Corpus(args[1], repeat);
  return Usage();
}
