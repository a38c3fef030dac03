// The Edge TPU executor's part of the golden runner (golden/README.md
// "edgetpu"). Models: a corpus .tflite, or {"base": NAME} naming one of the
// project's example bases (conformance/edgetpu/bases.h), whose main
// executable's first instruction chunk "bitstream" may replace, and
// "addresses" set the device addresses of its buffers. Modes (docs/formats/
// edgetpu.md §6):
//   link              every chunk of every executable of the first package,
//                     linked: "<executable>.chunk<C>" (uint8)
//   relayout          each input, an output's device buffer (its bytes),
//                     becomes the user tensor: "<layer>" (y, x, z)
//   relayout-runtime  the same through the runtime's copy paths
//   inverse           each input, a layer's user tensor, becomes its device
//                     buffer: "<layer>" (uint8)
//   roundtrip         relayout-runtime of inverse of relayout: against
//                     relayout, it shows that the maps lose nothing and that
//                     the runtime's copy reads what the maps say
#include "conformance/edgetpu/bases.h"
#include "conformance/edgetpu/serialize.h"
#include "reference_exec/edgetpu/link.h"
#include "reference_exec/edgetpu/load.h"
#include "reference_exec/edgetpu/relayout.h"
#include "tools/accelcheck/golden_formats.h"
#include "validators/core/text.h"

namespace accelcheck::golden {

namespace {

using namespace edgetpu;

std::optional<NamedBase> FindBase(const std::string& name) {
  for (NamedBase& base : ExampleBases()) {
    if (base.name == name) return std::move(base);
  }
  return std::nullopt;
}

const std::map<std::string, int16_t> kDescs = {{"OUTPUT", model::kOutputActivation},
                                               {"INPUT", model::kInputActivation},
                                               {"PARAMETER", model::kParameter},
                                               {"SCRATCH", model::kScratch}};
const std::map<std::string, int16_t> kPositions = {{"LOWER", model::kLower32},
                                                   {"UPPER", model::kUpper32}};

std::optional<std::string> CheckFieldOffset(const Json& f) {
  if (auto key = UnknownKey(f, {"desc", "name", "batch", "position", "bit"}, "a field offset"))
    return key;
  if (!f.contains("desc") || !f["desc"].is_string() || kDescs.count(f["desc"]) == 0)
    return "a field offset's desc is not INPUT, OUTPUT, PARAMETER or SCRATCH";
  if (!f.contains("position") || !f["position"].is_string() || kPositions.count(f["position"]) == 0)
    return "a field offset's position is not LOWER or UPPER";
  if (!f.contains("bit") || !f["bit"].is_number_unsigned() || f["bit"].get<uint64_t>() > INT32_MAX)
    return "a field offset's bit is not an integer offset";
  if (f.contains("name") && !f["name"].is_string()) return "a field offset's name is not a string";
  if (f.contains("batch") && !f["batch"].is_number_integer())
    return "a field offset's batch is not an integer";
  return std::nullopt;
}

std::optional<std::string> CheckModel(const Json& model) {
  if (auto key = UnknownKey(model, {"base", "bitstream", "addresses"}, "model")) return key;
  if (!model.contains("base") || !model["base"].is_string() || !FindBase(model["base"]))
    return "base does not name an example base (conformance/edgetpu/bases.h)";
  if (model.contains("bitstream")) {
    const Json& b = model["bitstream"];
    if (auto key = UnknownKey(b, {"bytes", "fill", "field_offsets"}, "bitstream")) return key;
    if (!b.contains("bytes") || !b["bytes"].is_number_unsigned() ||
        b["bytes"].get<uint64_t>() == 0 || b["bytes"].get<uint64_t>() > 65536)
      return "bitstream.bytes is not a size from 1 to 65536";
    if (!b.contains("fill") || !b["fill"].is_number_unsigned() || b["fill"].get<uint64_t>() > 255)
      return "bitstream.fill is not a byte value";
    if (!b.contains("field_offsets") || !b["field_offsets"].is_array())
      return "bitstream.field_offsets is not an array";
    for (const Json& f : b["field_offsets"]) {
      if (auto problem = CheckFieldOffset(f)) return problem;
    }
  }
  if (model.contains("addresses")) {
    if (!model["addresses"].is_array()) return "addresses is not an array of \"BUF=ADDR\"";
    for (const Json& a : model["addresses"]) {
      if (!a.is_string()) return "addresses is not an array of \"BUF=ADDR\"";
    }
  }
  return std::nullopt;
}

// The package of a base: a bare one, or the first Edge TPU operator's.
model::Package* PackageOf(model::File& file) {
  if (auto* package = std::get_if<model::Package>(&file)) return package;
  auto& tflite = std::get<model::TfliteModel>(file);
  if (!tflite.subgraphs) return nullptr;
  for (model::SubGraph& graph : *tflite.subgraphs) {
    if (!graph.operators) continue;
    for (model::Operator& op : *graph.operators) {
      auto* map = op.custom_options ? std::get_if<model::FlexMap>(&*op.custom_options) : nullptr;
      if (map == nullptr) continue;
      for (model::FlexEntry& e : map->entries) {
        if (auto* p = std::get_if<model::FlexPackage>(&e.value)) return &p->package;
      }
    }
  }
  return nullptr;
}

// The executable that runs each inference: STAND_ALONE or EXECUTION_ONLY.
model::Executable* MainOf(model::Package& package) {
  auto* multi = package.multi_executable
                    ? std::get_if<model::MultiExecutable>(&*package.multi_executable)
                    : nullptr;
  if (multi == nullptr || !multi->executables) return nullptr;
  for (auto& nested : *multi->executables) {
    auto* exe = std::get_if<model::Executable>(&nested);
    if (exe != nullptr && exe->type.value_or(model::kStandAlone) != model::kParameterCaching)
      return exe;
  }
  return nullptr;
}

// The recipe's chunk in place of the main executable's first one.
std::optional<std::string> ReplaceChunk(model::File& file, const Json& recipe) {
  model::Package* package = PackageOf(file);
  model::Executable* main = package == nullptr ? nullptr : MainOf(*package);
  if (main == nullptr || !main->instruction_bitstreams || main->instruction_bitstreams->empty())
    return "the base has no main executable with an instruction chunk";
  model::InstructionBitstream chunk;
  chunk.bitstream = model::Vec<uint8_t>(recipe["bytes"].get<size_t>(),
                                        static_cast<uint8_t>(recipe["fill"].get<unsigned>()));
  chunk.field_offsets.emplace();
  for (const Json& f : recipe["field_offsets"]) {
    model::Meta meta;
    meta.desc = kDescs.at(f["desc"].get<std::string>());
    meta.position = kPositions.at(f["position"].get<std::string>());
    if (f.contains("name")) meta.name = f["name"].get<std::string>();
    if (f.contains("batch")) meta.batch = f["batch"].get<int32_t>();
    chunk.field_offsets->push_back({meta, f["bit"].get<int32_t>()});
  }
  (*main->instruction_bitstreams)[0] = std::move(chunk);
  return std::nullopt;
}

std::optional<InputBuffer> BuildModel(const Json& recipe, std::string* error) {
  std::optional<NamedBase> base = FindBase(recipe["base"]);
  if (recipe.contains("bitstream")) {
    if (auto problem = ReplaceChunk(base->file, recipe["bitstream"])) {
      *error = *problem;
      return std::nullopt;
    }
  }
  const std::vector<uint8_t> bytes = Serialize(base->file);
  return InputBuffer::Copy(bytes);
}

std::optional<InputBuffer> ReadModel(const Case& c, const RunEnv& env, std::string* error) {
  if (!c.corpus_model()) return BuildModel(c.model, error);
  const std::string path = (env.corpus_dir / *c.corpus_model()).string();
  return ReadFileLimited(path, Limits{}.max_file_size, error);
}

// The linked chunks of every executable of the package.
std::optional<Arrays> LinkAll(const Case& c, const PackageView& view, std::string* error) {
  Arrays out;
  for (const ExecutableView& exe : view.executables) {
    const auto addresses =
        AddressesOf(*exe.executable, c.model.value("addresses", std::vector<std::string>{}), error);
    if (!addresses) return std::nullopt;
    LinkError link_error;
    const auto chunks = Link(*exe.executable, *addresses, &link_error);
    if (!chunks) {
      *error = Str(link_error.message, " [", link_error.rule, "]");
      return std::nullopt;
    }
    for (size_t k = 0; k < chunks->size(); ++k)
      out[Str(ExecutableTypeName(*exe.executable), ".chunk", k)] = ByteArray((*chunks)[k].bytes);
  }
  return out;
}

// Each input through the geometry of its layer of the main executable.
std::optional<Arrays> ConvertAll(const std::string& mode, const PackageView& view,
                                 const Arrays& inputs, std::string* error) {
  const ExecutableView* main = MainExecutableOf(view);
  Arrays out;
  for (const auto& [name, array] : inputs) {
    bool output = false;
    const dwn::Layer* layer = FindLayer(*main->executable, name, &output);
    if (layer == nullptr) {
      *error = Str("the main executable has no layer ", Quoted(name));
      return std::nullopt;
    }
    const auto geometry = LayerGeometry::Of(*layer, output, error);
    if (!geometry) return std::nullopt;
    const bool inverse = mode == "inverse";
    if (const auto over = ConversionOverLimit(*geometry, inverse, Limits{}.max_tensor_bytes)) {
      *error = Str("layer ", Quoted(name), ": ", *over);
      return std::nullopt;
    }
    const uint64_t want = inverse ? geometry->user_bytes() : geometry->device_bytes();
    if (array.data.size() != want) {
      *error = Str("input ", Quoted(name), " holds ", array.data.size(), " bytes, not ", want);
      return std::nullopt;
    }
    if (inverse) {
      out[name] = geometry->DeviceArray(array.data);
    } else if (mode == "roundtrip") {
      out[name] = geometry->UserArray(
          geometry->ToDevice(geometry->ToUser(array.data, RelayoutMethod::kElementMap)),
          RelayoutMethod::kRuntimeCopy);
    } else {
      out[name] =
          geometry->UserArray(array.data, mode == "relayout" ? RelayoutMethod::kElementMap
                                                             : RelayoutMethod::kRuntimeCopy);
    }
  }
  return out;
}

std::optional<Arrays> Run(const Case& c, const std::string& mode, const Arrays& inputs,
                          const RunEnv& env, std::string* error) {
  const std::optional<InputBuffer> input = ReadModel(c, env, error);
  if (!input) return std::nullopt;
  DiagnosticSink sink(Profile{}, c.corpus_model().value_or(c.id()));
  std::optional<Arrays> result;
  bool first = true;
  const bool valid =
      ForEachValidatedPackage(*input, ValidateContext{}, sink, [&](const LoadedPackage& p) {
        if (!first) return;
        first = false;
        result =
            mode == "link" ? LinkAll(c, *p.view, error) : ConvertAll(mode, *p.view, inputs, error);
      });
  if (!valid) {
    *error = "the model does not validate (accelcheck validate says why)";
    return std::nullopt;
  }
  if (first) *error = "the model has no Edge TPU package";
  return result;
}

}  // namespace

const GoldenFormat& EdgetpuGolden() {
  static const GoldenFormat kFormat{
      .modes = {"relayout", "relayout-runtime", "inverse", "roundtrip", "link"},
      .check_model = CheckModel,
      .run = Run};
  return kFormat;
}

}  // namespace accelcheck::golden
