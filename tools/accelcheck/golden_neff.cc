// The NEFF DMA executor's part of the golden runner (golden/README.md
// "neff"). Models: {"target", "inputs", "outputs", "constants", "virtuals",
// "queues", "blocks"}, a NEFF the project's builder makes from exactly
// these variables and DMA blocks (descriptors written out in full, CCE
// sources, scale and constant included, so that a case can hold any access
// pattern and operation), or a corpus .neff. Mode "dma" runs
// the blocks and gives each output variable's bytes as a uint8 array of its
// size: byte-exact, as the hand computations of docs/formats/neff.md §7.5 are.
// Mode "dma-state" also gives the state buffer, "SB", as uint8
// [partitions, partition_bytes]: on real files the engines' compute makes
// the outputs, so what the DMA blocks did shows in the state buffer (§7).
#include "conformance/neff/builder.h"
#include "conformance/neff/model.h"
#include "reference_exec/neff/dma.h"
#include "tools/accelcheck/golden_formats.h"
#include "validators/core/text.h"
#include "validators/neff/neff_format.h"

namespace accelcheck::golden {

namespace {

namespace nc = neff::conformance;

std::optional<std::string> CheckSide(const Json& side, std::string_view what) {
  if (auto key = UnknownKey(side, {"var", "off", "sizes", "steps", "dtype"}, what)) return key;
  if (!side.contains("var") || !side["var"].is_string() || !side.contains("off") ||
      !side["off"].is_number_unsigned() || !side.contains("sizes") || !side["sizes"].is_array() ||
      !side.contains("steps") || !side["steps"].is_array() || !side.contains("dtype") ||
      !side["dtype"].is_string())
    return Str(what, " needs var, off, sizes, steps and dtype");
  for (const Json& v : side["sizes"]) {
    if (!v.is_number_unsigned()) return Str(what, ".sizes holds a value that is not a count");
  }
  for (const Json& v : side["steps"]) {
    if (!v.is_number_integer()) return Str(what, ".steps holds a value that is not an integer");
  }
  return std::nullopt;
}

std::optional<std::string> CheckDescriptor(const Json& d) {
  if (auto key = UnknownKey(
          d,
          {"op", "from", "from_arr", "to", "transpose_op", "transpose_shape",
           "transpose_element_size", "scale", "scale_dtype", "constant", "constant_dtype"},
          "descriptor"))
    return key;
  if (!d.contains("op") || !d["op"].is_string()) return "a descriptor needs op (\"\" for none)";
  if (!d.contains("to")) return "a descriptor needs to";
  if (auto problem = CheckSide(d["to"], "to")) return problem;
  if (d.contains("from_arr") == d.contains("from")) {
    return "a descriptor needs exactly one of from and from_arr";
  }
  if (d.contains("from")) {
    if (auto problem = CheckSide(d["from"], "from")) return problem;
  } else if (!d["from_arr"].is_array()) {
    return "from_arr is not an array";
  } else {
    for (const Json& source : d["from_arr"]) {
      if (auto problem = CheckSide(source, "from_arr")) return problem;
    }
  }
  for (const char* number : {"scale", "constant"}) {
    if (d.contains(number) && !d[number].is_number()) return Str(number, " is not a number");
  }
  for (const char* dtype : {"scale_dtype", "constant_dtype"}) {
    if (d.contains(dtype) && !d[dtype].is_string()) return Str(dtype, " is not a string");
  }
  return std::nullopt;
}

std::optional<std::string> CheckTensors(const Json& list, std::string_view what,
                                        std::initializer_list<const char*> keys) {
  if (!list.is_array()) return Str(what, " is not an array");
  for (const Json& entry : list) {
    if (auto key = UnknownKey(entry, keys, what)) return key;
    if (!entry.contains("name") || !entry["name"].is_string())
      return Str(what, " entries need a name");
  }
  return std::nullopt;
}

std::optional<std::string> CheckModel(const Json& model) {
  if (auto key = UnknownKey(
          model, {"target", "inputs", "outputs", "constants", "virtuals", "queues", "blocks"},
          "model"))
    return key;
  if (!model.contains("target") || (model["target"] != "sunda" && model["target"] != "cayman"))
    return "target is not sunda or cayman";
  for (const char* list : {"inputs", "outputs", "constants", "virtuals", "queues", "blocks"}) {
    if (!model.contains(list) || !model[list].is_array()) return Str(list, " is not an array");
  }
  if (auto p = CheckTensors(model["inputs"], "inputs", {"name", "dtype", "shape"})) return p;
  if (auto p = CheckTensors(model["outputs"], "outputs", {"name", "dtype", "shape"})) return p;
  if (auto p = CheckTensors(model["constants"], "constants", {"name", "dtype", "shape", "data"}))
    return p;
  if (auto p =
          CheckTensors(model["virtuals"], "virtuals", {"name", "size", "backing_variable_off"}))
    return p;
  if (auto p = CheckTensors(model["queues"], "queues", {"name", "owner", "type"})) return p;
  for (const Json& block : model["blocks"]) {
    if (auto key = UnknownKey(block, {"queue", "desc"}, "block")) return key;
    if (!block.contains("queue") || !block["queue"].is_string() || !block.contains("desc") ||
        !block["desc"].is_array())
      return "a block needs queue and desc";
    for (const Json& d : block["desc"]) {
      if (auto problem = CheckDescriptor(d)) return problem;
    }
  }
  return std::nullopt;
}

nc::Side SideOf(const Json& j) {
  return {j["var"].get<std::string>(), j["off"].get<uint64_t>(),
          j["sizes"].get<std::vector<uint64_t>>(), j["steps"].get<std::vector<int64_t>>(),
          j["dtype"].get<std::string>()};
}

nc::Engine EngineOf(const std::string& key) {
  for (nc::Engine e : nc::kEngines) {
    if (nc::EngineKey(e) == key) return e;
  }
  return nc::Engine::kSp;
}

// The recipe as the builder's Spec.
nc::Spec SpecOf(const Json& model) {
  nc::Spec spec = model["target"] == "cayman" ? nc::Trn2Spec() : nc::Trn1Spec();
  for (const Json& t : model["inputs"]) {
    spec.inputs.push_back({t["name"], t.value("dtype", "uint8"), t["shape"]});
  }
  for (const Json& t : model["outputs"]) {
    spec.outputs.push_back({t["name"], t.value("dtype", "uint8"), t["shape"]});
  }
  for (const Json& c : model["constants"]) {
    spec.constants.push_back({c["name"], c["dtype"], c["shape"], c["data"]});
  }
  for (const Json& v : model["virtuals"]) {
    spec.virtuals.push_back({v["name"], v["size"], v.value("backing_variable_off", uint64_t{0})});
  }
  for (const Json& q : model["queues"]) {
    spec.queues.push_back({q["name"], EngineOf(q["owner"]), q.value("type", "in")});
  }
  for (const Json& b : model["blocks"]) {
    nc::Block block{.queue = b["queue"], .desc = {}, .comment = ""};
    for (const Json& d : b["desc"]) {
      nc::Descriptor desc;
      desc.op = d["op"];
      if (d.contains("from")) desc.from = SideOf(d["from"]);
      for (const Json& source : d.value("from_arr", Json::array())) {
        desc.from_arr.push_back(SideOf(source));
      }
      desc.to = SideOf(d["to"]);
      if (d.contains("scale")) desc.scale = d["scale"].get<double>();
      desc.scale_dtype = d.value("scale_dtype", "");
      if (d.contains("constant")) desc.constant = d["constant"].get<double>();
      desc.constant_dtype = d.value("constant_dtype", "");
      desc.transpose_op = d.value("transpose_op", "");
      if (d.contains("transpose_shape")) desc.transpose_shape = d["transpose_shape"];
      desc.transpose_element_size = d.value("transpose_element_size", uint64_t{0});
      block.desc.push_back(std::move(desc));
    }
    spec.blocks.push_back(std::move(block));
  }
  return spec;
}

std::optional<std::vector<uint8_t>> FileOf(const Case& golden_case, const RunEnv& env,
                                           std::string* error) {
  if (auto path = golden_case.corpus_model()) {
    const auto bytes =
        ReadFileLimited((env.corpus_dir / *path).string(), Limits{}.max_file_size, error);
    if (!bytes) return std::nullopt;
    return std::vector<uint8_t>(bytes->bytes().begin(), bytes->bytes().end());
  }
  try {
    return nc::Write(nc::Build(SpecOf(golden_case.model)));
  } catch (const std::exception& e) {
    *error = Str("the model does not build: ", e.what());
    return std::nullopt;
  }
}

npy::Array Bytes(std::vector<uint64_t> shape, const std::vector<uint8_t>& data) {
  return npy::FromBytes({npy::Kind::kUnsigned, 1, false}, std::move(shape), data);
}

std::optional<Arrays> Run(const Case& golden_case, const std::string& mode, const Arrays& inputs,
                          const RunEnv& env, std::string* error) {
  if (mode != "dma" && mode != "dma-state") {
    *error = Str("mode ", mode, " is neither dma nor dma-state");
    return std::nullopt;
  }
  const std::optional<std::vector<uint8_t>> file = FileOf(golden_case, env, error);
  if (!file) return std::nullopt;
  const InputBuffer input = InputBuffer::Copy(*file);
  ValidateContext context;
  DiagnosticSink sink(Profile{}, golden_case.id());
  neff::NeffFormat().Validate(input, context, sink);
  if (sink.error_count() != 0) {
    *error = Str("the model does not validate: ", sink.diagnostics().front().rule->id, " ",
                 sink.diagnostics().front().message);
    return std::nullopt;
  }
  const std::optional<neff::exec::Loaded> loaded = neff::exec::Load(input, context, error);
  if (!loaded) return std::nullopt;
  std::map<std::string, std::vector<uint8_t>> bytes;
  for (const auto& [name, array] : inputs) bytes[name] = array.data;
  const bool with_state = mode == "dma-state";
  const std::optional<neff::exec::Result> result =
      neff::exec::Run(*loaded, bytes, error, {.keep_state_buffer = with_state});
  if (!result) return std::nullopt;
  Arrays outputs;
  for (const auto& [name, data] : result->outputs) outputs[name] = Bytes({data.size()}, data);
  if (with_state) {
    const neff::StateBuffer& sb = loaded->state_buffer;
    outputs["SB"] = Bytes({sb.partitions, sb.partition_bytes}, result->state_buffer);
  }
  return outputs;
}

}  // namespace

const GoldenFormat& NeffGolden() {
  static const GoldenFormat kFormat{
      .modes = {"dma", "dma-state"}, .check_model = CheckModel, .run = Run};
  return kFormat;
}

}  // namespace accelcheck::golden
