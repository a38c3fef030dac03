// accelcheck run MODEL.neff --input NAME=FILE ... [--output-dir DIR]: the
// DMA-level reference executor (reference_exec/neff) on a validated NEFF.
// The engines' compute ISA is not public, so the run moves bytes: every DMA
// block in trigger order, with copies, casts and transposes, each access
// checked against its variable and the runtime's reservations.
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "reference_exec/neff/dma.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/console.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "validators/core/npy.h"
#include "validators/core/output_file.h"
#include "validators/core/text.h"
#include "validators/neff/neff_format.h"

namespace accelcheck::cli {

namespace {

using Json = nlohmann::ordered_json;
using namespace neff;

const CommandSpec& RunNeffSpec() {
  static const CommandSpec kSpec = [] {
    CommandSpec spec{
        "run",
        "run a NEFF's DMA blocks: copies, casts and transposes between its variables",
        "usage: accelcheck run MODEL.neff --input NAME=FILE ... [--output-dir DIR] [options]\n"
        "Validates the NEFF, then runs the DMA blocks of its subgraph in the order the engine\n"
        "programs trigger them (docs/formats/neff.md §7): every input variable takes the bytes\n"
        "of its --input (.npy data or raw bytes, exactly the variable's size), constants come\n"
        "from their members, and each output is written to DIR/NAME.npy. Compute instructions\n"
        "are not run: an output holds what the DMA moved into it. Prints what ran, the bytes\n"
        "no DMA wrote, and the bytes whose value depends on the order of engines.\n"
        "Exit 1 when the NEFF does not validate or a block leaves its variable, touches a\n"
        "reservation or needs what the executor does not model; 2 on a usage error; 3 on a\n"
        "limit or an I/O error.\n",
        {
            {"input", true, "NAME=FILE", "the bytes of input variable NAME (repeatable)"},
            {"output-dir", true, "DIR", "where each output is written as NAME.npy"},
            {"help", false, "", "print this help"},
        }};
    for (Flag& f : RunLimitFlags()) spec.flags.push_back(std::move(f));
    for (Flag& f : TargetFlags()) spec.flags.push_back(std::move(f));
    return spec;
  }();
  return kSpec;
}

// The NumPy dtype of a NEFF dtype name; bytes for any other.
npy::DType NpyDtype(std::string_view dtype) {
  using npy::Kind;
  if (dtype == "float32") return {Kind::kFloat, 4, false};
  if (dtype == "float16") return {Kind::kFloat, 2, false};
  if (dtype == "bfloat16") return {Kind::kBFloat16, 2, false};
  const uint64_t size = DtypeBytes(dtype);
  if (dtype.starts_with("int") && size != 0) {
    return {Kind::kSigned, static_cast<unsigned>(size), false};
  }
  if (dtype.starts_with("uint") && size != 0) {
    return {Kind::kUnsigned, static_cast<unsigned>(size), false};
  }
  return {Kind::kUnsigned, 1, false};
}

npy::Array ArrayOf(const exec::Buffer& b, const std::vector<uint8_t>& bytes) {
  npy::DType dtype = NpyDtype(b.dtype);
  std::vector<uint64_t> shape = b.shape;
  if (dtype.bytes == 1 && DtypeBytes(b.dtype) != 1) shape = {bytes.size()};
  return npy::FromBytes(dtype, std::move(shape), bytes);
}

// The bytes of each --input: .npy data (little-endian, C order) or the file.
std::optional<std::map<std::string, std::vector<uint8_t>>> ReadInputs(const ParsedArgs& args,
                                                                      const exec::Loaded& loaded,
                                                                      const Limits& limits,
                                                                      std::string* error) {
  std::map<std::string, std::vector<uint8_t>> inputs;
  for (const std::string& given : args.All("input")) {
    const size_t eq = given.find('=');
    if (eq == std::string::npos) {
      *error = "--input: expected NAME=FILE";
      return std::nullopt;
    }
    const std::string name = given.substr(0, eq), file = given.substr(eq + 1);
    const exec::Buffer* b = loaded.Find(name);
    if (b == nullptr || b->type != VarType::kInput) {
      *error = Str("--input ", Quoted(name), ": the NEFF has no input variable of that name");
      return std::nullopt;
    }
    DiagnosticSink read(Profile{}, file);
    const auto bytes = ReadInput(file, limits, read);
    if (!bytes) {
      *error = Str("cannot read ", file);
      return std::nullopt;
    }
    std::vector<uint8_t> data(bytes->bytes().begin(), bytes->bytes().end());
    if (file.ends_with(".npy")) {
      const auto array = npy::Read(bytes->bytes(), error);
      if (!array) {
        *error = Str(file, ": ", *error);
        return std::nullopt;
      }
      data = array->data;
    }
    inputs[name] = std::move(data);
  }
  for (const exec::Buffer* b : loaded.OfType(VarType::kInput)) {
    if (inputs.count(b->name) == 0) {
      *error = Str("input ", Quoted(b->name), " (", b->size, " bytes, ", b->dtype,
                   ") needs --input ", b->name, "=FILE");
      return std::nullopt;
    }
  }
  return inputs;
}

}  // namespace

ExitCode RunNeff(const Args& args) {
  const CommandSpec& spec = RunNeffSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const auto parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected exactly one NEFF");
  ValidateContext context;
  std::string error;
  if (!InputContext(*parsed, &context, &error)) return UsageError(spec, error);
  const std::optional<std::string> output_dir = parsed->Get("output-dir");
  if (output_dir && !MakeDirectories(*output_dir, &error)) return IoError(spec, error);

  DiagnosticSink sink(Profile{}, DisplayName(context.path));
  const auto input = ReadInput(context.path, context.limits, sink);
  if (input) ValidateGuarded(NeffFormat(), *input, context, sink);
  PrintDiagnostics(sink, parsed->Has("quiet"));
  if (!input || sink.failed() || sink.error_count() != 0) {
    std::cerr << "accelcheck run: " << context.path
              << (sink.failed() || !input ? " could not be checked" : " does not validate")
              << "; nothing run\n";
    return sink.failed() || !input ? ExitCode::kFailure : ExitCode::kErrors;
  }
  exec::Refusal refusal = exec::Refusal::kUnsupported;
  const std::optional<exec::Loaded> loaded = exec::Load(*input, context, &error, &refusal);
  if (!loaded) {
    std::cerr << "accelcheck run: " << error << "\n";
    // A limit leaves the file unchecked, as in validate (exit 3).
    return refusal == exec::Refusal::kLimit ? ExitCode::kFailure : ExitCode::kErrors;
  }
  const auto inputs = ReadInputs(*parsed, *loaded, context.limits, &error);
  if (!inputs) return UsageError(spec, error);
  const std::optional<exec::Result> result =
      exec::Run(*loaded, *inputs, &error, {.deadline = context.deadline}, &refusal);
  if (!result) {
    std::cerr << "accelcheck run: " << error << "\n";
    return refusal == exec::Refusal::kLimit ? ExitCode::kFailure : ExitCode::kErrors;
  }
  Json outputs = Json::array();
  for (const auto& [name, bytes] : result->outputs) {
    const exec::Buffer* b = loaded->Find(name);
    const npy::Array array = ArrayOf(*b, bytes);
    Json out = {{"name", name},
                {"dtype", array.dtype.Name()},
                {"shape", array.shape},
                {"unwritten_bytes", result->unwritten.at(name)}};
    if (output_dir) {
      const auto path = FileInside(*output_dir, name, ".npy", &error);
      if (!path || !WriteOutputFile(*path, npy::Write(array), &error)) return IoError(spec, error);
      out["file"] = path->string();
    }
    outputs.push_back(std::move(out));
  }
  std::cout << Json{{"subgraph", loaded->subgraph},
                    {"blocks", result->blocks},
                    {"descriptors", result->descriptors},
                    {"order_dependent_bytes", result->order_dependent},
                    {"outputs", std::move(outputs)}}
                   .dump(2)
            << "\n";
  return ExitCode::kConforms;
}

}  // namespace accelcheck::cli
