// accelcheck run MODEL.tmodel --input X.npy... [--output-dir D] [--raw]: the
// bit-exact Tensil emulator (reference_exec/tensil) on a validated model.
#include <cmath>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "reference_exec/tensil/run_model.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/console.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "validators/core/npy.h"
#include "validators/core/output_file.h"
#include "validators/core/text.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck::cli {

namespace {

using tensil::Scalar;

const CommandSpec& RunTensilSpec() {
  static const CommandSpec kSpec = [] {
    CommandSpec spec{
        "run",
        "run a Tensil model on the bit-exact emulator",
        "usage: accelcheck run MODEL.tmodel --input X.npy... [--output-dir D] [--raw]\n"
        "Validates the model with its .tprog and .tdata, then runs it on the bit-exact emulator.\n"
        "One --input per inputs[] entry, in order: a float array holds real values (converted\n"
        "as the Tensil drivers do), an integer array the raw scalars. The last dimension is the\n"
        "vector's lanes (at most array_size, padded with zeros), the others count vectors (at\n"
        "most the input's size). Prints the outputs as JSON, or writes D/<name>.npy of shape\n"
        "(size, array_size) with --output-dir. --time-budget-ms bounds validation and run\n"
        "together. Exit 1 when the model does not validate, 3 on a limit.\n",
        {
            {"input", true, "FILE",
             "a .npy per model input, in the order of inputs[] (repeatable)"},
            {"output-dir", true, "DIR", "write each output as DIR/<name>.npy"},
            {"raw", false, "",
             "give the raw scalars (int32; FLOAT32 bit patterns) instead of real values"},
            {"data", true, "FILE", "a companion file: .tarch, .tprog or .tdata (repeatable)"},
            {"help", false, "", "print this help"},
        }};
    for (Flag& f : RunLimitFlags()) spec.flags.push_back(std::move(f));
    return spec;
  }();
  return kSpec;
}

// One input's scalars, row by row, padded to the architecture's N lanes.
std::optional<std::vector<Scalar>> InputScalars(const npy::Array& array,
                                                const tensil::IoEntry& entry,
                                                const tensil::Machine& machine,
                                                std::string* error) {
  const uint64_t n = machine.arch().array_size;
  const uint64_t lanes = array.shape.empty() ? 1 : array.shape.back();
  const uint64_t rows = lanes == 0 ? 0 : array.count() / lanes;
  if (lanes > n) {
    *error = Str("the last dimension ", lanes, " exceeds array_size ", n);
    return std::nullopt;
  }
  if (rows > entry.size) {
    *error = Str(rows, " vectors exceed the ", entry.size, " of input ", Quoted(entry.name));
    return std::nullopt;
  }
  // Integer arrays hold raw values of the data type (what --raw writes): one
  // that the type cannot hold is refused rather than wrapped.
  // (FLOAT32's raw values are its 32-bit patterns.)
  const tensil::DataTypeInfo& type = tensil::InfoOf(machine.arch().data_type);
  const double raw_max = std::ldexp(1.0, static_cast<int>(type.width) - 1) - 1;
  std::vector<Scalar> scalars(rows * n, 0);
  for (uint64_t i = 0; i < array.count(); ++i) {
    const double value = array.values[i];
    Scalar& scalar = scalars[(i / lanes) * n + i % lanes];
    if (array.dtype.kind == npy::Kind::kFloat) {
      scalar = machine.FromFloat(static_cast<float>(value));
    } else if (value < -raw_max - 1 || value > raw_max) {
      *error = Str("element ", i, " of input ", Quoted(entry.name), " is ", value, ", not a raw ",
                   type.name,
                   " value (integer arrays hold raw values; give floats to have them converted)");
      return std::nullopt;
    } else {
      scalar = static_cast<Scalar>(value);
    }
  }
  return scalars;
}

std::vector<double> OutputValues(const std::vector<Scalar>& scalars, const tensil::Machine& machine,
                                 bool raw) {
  std::vector<double> values(scalars.size());
  for (size_t i = 0; i < scalars.size(); ++i)
    values[i] = raw ? scalars[i] : machine.ToDouble(scalars[i]);
  return values;
}

}  // namespace

ExitCode RunTensil(const Args& args) {
  const CommandSpec& spec = RunTensilSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const auto parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected exactly one .tmodel");
  ValidateContext context;
  std::string error;
  if (!ApplyLimitFlags(*parsed, &context.limits, &error)) return UsageError(spec, error);
  context.path = parsed->positional[0];
  context.companions = parsed->All("data");
  // The budget bounds the whole command: it starts before the file is read.
  context.deadline = Deadline(context.limits.time_budget_ms);
  const bool quiet = parsed->Has("quiet");
  const ProgressOptions progress = ProgressFor(quiet);

  DiagnosticSink sink(Profile{}, DisplayName(context.path));
  std::optional<tensil::LoadedModel> loaded;
  {
    const Progress validating(progress, "accelcheck run: validating");
    const auto tmodel = ReadInput(context.path, context.limits, sink);
    if (tmodel) loaded = tensil::LoadModel(*tmodel, context, sink);
  }
  PrintDiagnostics(sink, quiet);
  if (!loaded) {
    std::cerr << "accelcheck run: " << context.path
              << (sink.failed() ? " could not be checked" : " does not validate")
              << "; nothing run\n";
    return sink.failed() ? ExitCode::kFailure : ExitCode::kErrors;
  }
  const auto& input_paths = parsed->All("input");
  if (input_paths.size() != loaded->model.inputs.size()) {
    return UsageError(spec, Str("the model has ", loaded->model.inputs.size(), " inputs but ",
                                input_paths.size(), " --input were given"));
  }

  tensil::Machine machine = tensil::PrepareMachine(*loaded);
  std::vector<std::vector<Scalar>> inputs;
  for (size_t i = 0; i < input_paths.size(); ++i) {
    DiagnosticSink read_sink(Profile{}, input_paths[i]);
    const auto bytes = ReadInput(input_paths[i], context.limits, read_sink);
    const auto array = bytes ? npy::Read(bytes->bytes(), &error) : std::nullopt;
    const auto scalars =
        array ? InputScalars(*array, loaded->model.inputs[i], machine, &error) : std::nullopt;
    PrintDiagnostics(read_sink, quiet);
    if (!bytes) return ExitCode::kFailure;
    if (!scalars) return UsageError(spec, Str(input_paths[i], ": ", error));
    inputs.push_back(*scalars);
  }

  tensil::ModelOutputs result;
  {
    Progress running(progress, "accelcheck run: instructions");
    RunControl control{context.deadline,
                       [&](uint64_t done, uint64_t total) { running.Set(done, total); }};
    result = tensil::RunModel(machine, *loaded, inputs, control);
  }
  if (result.stats.out_of_time) {
    DiagnosticSink limit(Profile{}, DisplayName(context.path));
    ReportRunOutOfTime("emulation", context.limits, limit);
    PrintDiagnostics(limit, quiet);
    return ExitCode::kFailure;
  }
  const bool raw = parsed->Has("raw");
  const uint64_t n = loaded->model.arch.array_size;
  nlohmann::json summary = {{"model", loaded->model.name},
                            {"instructions", result.stats.instructions},
                            {"macs", result.stats.macs},
                            {"outputs", nlohmann::json::array()}};
  const auto output_dir = parsed->Get("output-dir");
  if (output_dir && !MakeDirectories(*output_dir, &error)) return IoError(spec, error);
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    const tensil::IoEntry& entry = loaded->model.outputs[i];
    const std::vector<double> values = OutputValues(result.outputs[i], machine, raw);
    nlohmann::json out = {{"name", entry.name}, {"shape", {entry.size, n}}};
    if (output_dir) {
      // Real values are exact in float64 for every fixed-point type.
      const npy::DType dtype =
          raw ? npy::DType{npy::Kind::kSigned, 4, false} : npy::DType{npy::Kind::kFloat, 8, false};
      // The validator rejects such names (tensil.model.io_name); checked
      // again here, where a file is written.
      const auto path = FileInside(*output_dir, entry.name, ".npy", &error);
      if (!path) return IoError(spec, error);
      if (!WriteOutputFile(*path, npy::Write(values, {entry.size, n}, dtype), &error))
        return IoError(spec, error);
      out["file"] = path->string();
    } else {
      out["values"] = values;
    }
    summary["outputs"].push_back(out);
  }
  std::cout << summary.dump(2) << "\n";
  return ExitCode::kConforms;
}

}  // namespace accelcheck::cli
