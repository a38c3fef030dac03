// The Tensil emulator's part of the golden runner (golden/README.md
// "tensil"). Models: a corpus .tmodel (validated with its companions), or
// {"arch", "program", "consts", "inputs", "outputs"}: assembly lines for a
// small architecture, built in memory as the emulator's unit tests build
// theirs, its instructions checked by the validator's instruction rules. Modes: "raw" gives each
// output's raw scalars as int32, "real" their real values as float64, each of shape (size,
// array_size); an input of three dimensions is a batch, run on a fresh machine per element, and
// every output gains the batch dimension.
#include <cmath>

#include "reference_exec/tensil/run_model.h"
#include "tools/accelcheck/golden_formats.h"
#include "validators/core/text.h"
#include "validators/tensil/disasm.h"
#include "validators/tensil/validate.h"

namespace accelcheck::golden {

namespace {

using tensil::Scalar;

std::optional<std::string> CheckIoEntries(const Json& entries, std::string_view what) {
  if (!entries.is_array() || entries.empty())
    return Str(what, " is not a non-empty array of {name, base, size}");
  for (const Json& entry : entries) {
    if (auto key = UnknownKey(entry, {"name", "base", "size"}, what)) return key;
    if (!entry.contains("name") || !entry["name"].is_string() || !entry.contains("base") ||
        !entry["base"].is_number_unsigned() || !entry.contains("size") ||
        !entry["size"].is_number_unsigned())
      return Str(what, " entries need name (a string), base and size (integers)");
  }
  return std::nullopt;
}

std::optional<std::string> CheckModel(const Json& model) {
  if (auto key = UnknownKey(model, {"arch", "program", "consts", "inputs", "outputs"}, "model"))
    return key;
  if (!model.contains("arch")) return "arch is missing";
  if (auto key = UnknownKey(
          model["arch"],
          {"array_size", "dram0_depth", "dram1_depth", "local_depth", "accumulator_depth",
           "stride0_depth", "stride1_depth", "simd_registers_depth"},
          "arch"))
    return key;
  // Small architectures only: the machine allocates every memory whole.
  for (const auto& [key, value] : model["arch"].items()) {
    const uint64_t bound = key == "array_size" ? 64 : 65536;
    if (!value.is_number_unsigned() || value.get<uint64_t>() == 0 || value.get<uint64_t>() > bound)
      return Str("arch.", key, " is not an integer in [1, ", bound, "]");
  }
  if (!model.contains("program") || !model["program"].is_array())
    return "program is not an array of assembly lines";
  for (const Json& line : model["program"]) {
    if (!line.is_string()) return "program is not an array of assembly lines";
  }
  if (!model.contains("consts") || !model["consts"].is_array())
    return "consts is not an array of raw int16 scalars";
  for (const Json& value : model["consts"]) {
    if (!value.is_number_integer() || value.get<int64_t>() < INT16_MIN ||
        value.get<int64_t>() > INT16_MAX)
      return "consts is not an array of raw int16 scalars";
  }
  if (auto problem = CheckIoEntries(model.value("inputs", Json()), "inputs")) return problem;
  return CheckIoEntries(model.value("outputs", Json()), "outputs");
}

std::vector<tensil::IoEntry> IoEntries(const Json& entries) {
  std::vector<tensil::IoEntry> out;
  for (const Json& e : entries)
    out.push_back(
        {e["name"].get<std::string>(), e["base"].get<uint64_t>(), e["size"].get<uint64_t>()});
  return out;
}

// An FP16BP8 architecture from the recipe; the defaults are the tiny
// architecture of the emulator's unit tests.
tensil::Architecture ArchOf(const Json& arch) {
  tensil::Architecture a{.array_size = 2,
                         .dram0_depth = 256,
                         .dram1_depth = 256,
                         .local_depth = 256,
                         .accumulator_depth = 256,
                         .stride0_depth = 2,
                         .stride1_depth = 2};
  a.array_size = arch.value("array_size", a.array_size);
  a.dram0_depth = arch.value("dram0_depth", a.dram0_depth);
  a.dram1_depth = arch.value("dram1_depth", a.dram1_depth);
  a.local_depth = arch.value("local_depth", a.local_depth);
  a.accumulator_depth = arch.value("accumulator_depth", a.accumulator_depth);
  a.stride0_depth = arch.value("stride0_depth", a.stride0_depth);
  a.stride1_depth = arch.value("stride1_depth", a.stride1_depth);
  a.simd_registers_depth = arch.value("simd_registers_depth", a.simd_registers_depth);
  return a;
}

std::optional<tensil::LoadedModel> BuildAssembled(const Json& recipe, std::string* error) {
  tensil::LoadedModel m;
  m.model.arch = ArchOf(recipe["arch"]);
  const auto layout = tensil::LayoutOf(m.model.arch);
  if (!layout) {
    *error = "the architecture has no instruction layout";
    return std::nullopt;
  }
  m.layout = *layout;
  std::string text;
  for (const Json& line : recipe["program"]) text += line.get<std::string>() + "\n";
  tensil::AssembleError assemble_error;
  const auto program = tensil::Assemble(text, m.layout, &assemble_error);
  if (!program) {
    *error = Str("program line ", assemble_error.line, ": ", assemble_error.message);
    return std::nullopt;
  }
  // The instruction rules keep every address and operand within the
  // architecture, which the emulator relies on (docs/formats/tensil.md §7).
  DiagnosticSink sink(Profile{}, "program");
  tensil::CheckInstructions(tensil::Program{*program, ""}, m.model.arch, m.layout, Deadline(0),
                            sink);
  if (sink.blocking_count() != 0) {
    *error = "the program breaks the instruction rules (accelcheck validate says which)";
    return std::nullopt;
  }
  m.program = InputBuffer::Copy(*program);
  std::vector<uint8_t> tdata;
  for (const Json& value : recipe["consts"]) {
    const auto raw = static_cast<uint16_t>(value.get<int16_t>());
    tdata.push_back(static_cast<uint8_t>(raw));
    tdata.push_back(static_cast<uint8_t>(raw >> 8));
  }
  const uint64_t vectors = recipe["consts"].size() / m.model.arch.array_size;
  if (recipe["consts"].size() % m.model.arch.array_size != 0 ||
      vectors > m.model.arch.dram1_depth) {
    *error = "consts is not a whole number of vectors within DRAM1";
    return std::nullopt;
  }
  m.model.consts = {{"consts", 0, vectors}};
  m.constants = InputBuffer::Copy(tdata);
  m.model.inputs = IoEntries(recipe["inputs"]);
  m.model.outputs = IoEntries(recipe["outputs"]);
  for (const auto* entries : {&m.model.inputs, &m.model.outputs}) {
    for (const tensil::IoEntry& e : *entries) {
      if (e.base > m.model.arch.dram0_depth || e.size > m.model.arch.dram0_depth - e.base) {
        *error = Str(Quoted(e.name), " lies outside DRAM0");
        return std::nullopt;
      }
    }
  }
  return m;
}

std::optional<tensil::LoadedModel> LoadCorpus(const Case& c, const RunEnv& env,
                                              std::string* error) {
  const std::string path = (env.corpus_dir / *c.corpus_model()).string();
  ValidateContext context;
  context.path = path;
  for (const std::string& companion : c.companions)
    context.companions.push_back((env.corpus_dir / companion).string());
  const auto buffer = ReadFileLimited(path, context.limits.max_file_size, error);
  if (!buffer) return std::nullopt;
  DiagnosticSink sink(Profile{}, path);
  auto loaded = tensil::LoadModel(*buffer, context, sink);
  if (!loaded) *error = Str(path, " does not validate (accelcheck validate says why)");
  return loaded;
}

// One batch element's scalars of an input, row by row, padded to N lanes.
std::optional<std::vector<Scalar>> Scalars(const npy::Array& array, uint64_t first, uint64_t count,
                                           uint64_t lanes, const tensil::IoEntry& entry,
                                           const tensil::Machine& machine, uint64_t n,
                                           std::string* error) {
  if (lanes == 0 || lanes > n) {
    *error = Str("input ", Quoted(entry.name), " has ", lanes, " lanes; the array has ", n);
    return std::nullopt;
  }
  if (count / lanes > entry.size) {
    *error = Str("input ", Quoted(entry.name), " has ", count / lanes, " vectors, more than its ",
                 entry.size);
    return std::nullopt;
  }
  // Integer arrays hold raw scalars, which the data type must hold.
  const bool real = array.dtype.kind == npy::Kind::kFloat;
  const double raw_max =
      std::ldexp(1.0, static_cast<int>(tensil::InfoOf(machine.arch().data_type).width) - 1) - 1;
  std::vector<Scalar> scalars(count / lanes * n, 0);
  for (uint64_t i = 0; i < count; ++i) {
    const double value = array.values[first + i];
    if (!real && (value < -raw_max - 1 || value > raw_max)) {
      *error = Str("element ", first + i, " of input ", Quoted(entry.name), " is ", value,
                   ", not a raw scalar of the data type");
      return std::nullopt;
    }
    scalars[(i / lanes) * n + i % lanes] =
        real ? machine.FromFloat(static_cast<float>(value)) : static_cast<Scalar>(value);
  }
  return scalars;
}

std::optional<Arrays> Run(const Case& c, const std::string& mode, const Arrays& inputs,
                          const RunEnv& env, std::string* error) {
  const auto loaded = c.corpus_model() ? LoadCorpus(c, env, error) : BuildAssembled(c.model, error);
  if (!loaded) return std::nullopt;
  const uint64_t n = loaded->model.arch.array_size;
  // Every input is (vectors, lanes), or (batch, vectors, lanes) for a batch.
  uint64_t batch = 0;
  for (const tensil::IoEntry& entry : loaded->model.inputs) {
    const auto input = inputs.find(entry.name);
    if (input == inputs.end()) {
      *error = Str("no input named ", Quoted(entry.name));
      return std::nullopt;
    }
    const auto& shape = input->second.shape;
    if (shape.size() != 2 && shape.size() != 3) {
      *error =
          Str("input ", Quoted(entry.name), " is not (vectors, lanes) or (batch, vectors, lanes)");
      return std::nullopt;
    }
    const uint64_t this_batch = shape.size() == 3 ? shape[0] : 0;
    if (entry.name != loaded->model.inputs.front().name && this_batch != batch) {
      *error = "the inputs disagree on the batch";
      return std::nullopt;
    }
    batch = this_batch;
  }
  const bool batched = batch > 0;
  std::vector<std::vector<double>> outputs(loaded->model.outputs.size());
  for (uint64_t b = 0; b < std::max<uint64_t>(batch, 1); ++b) {
    tensil::Machine machine = tensil::PrepareMachine(*loaded);
    std::vector<std::vector<Scalar>> scalars;
    for (const tensil::IoEntry& entry : loaded->model.inputs) {
      const npy::Array& array = inputs.at(entry.name);
      const uint64_t lanes = array.shape.back();
      const uint64_t per_run = batched ? array.count() / batch : array.count();
      auto one = Scalars(array, b * per_run, per_run, lanes, entry, machine, n, error);
      if (!one) return std::nullopt;
      scalars.push_back(std::move(*one));
    }
    const tensil::ModelOutputs result = tensil::RunModel(machine, *loaded, scalars);
    for (size_t o = 0; o < result.outputs.size(); ++o) {
      for (Scalar s : result.outputs[o])
        outputs[o].push_back(mode == "raw" ? s : machine.ToDouble(s));
    }
  }
  Arrays out;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const tensil::IoEntry& entry = loaded->model.outputs[o];
    std::vector<uint64_t> shape = {entry.size, n};
    if (batched) shape.insert(shape.begin(), batch);
    const npy::DType dtype = mode == "raw" ? npy::DType{npy::Kind::kSigned, 4, false}
                                           : npy::DType{npy::Kind::kFloat, 8, false};
    out.emplace(entry.name, npy::FromValues(dtype, shape, outputs[o]));
  }
  return out;
}

}  // namespace

const GoldenFormat& TensilGolden() {
  static const GoldenFormat kFormat{
      .modes = {"raw", "real"}, .check_model = CheckModel, .run = Run};
  return kFormat;
}

}  // namespace accelcheck::golden
