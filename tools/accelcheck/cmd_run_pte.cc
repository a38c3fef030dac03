// accelcheck run MODEL.pte [--method NAME] [--data F.ptd] --input X.npy...
// [--output-dir D] [--memory separate|planned|both]: the .pte reference
// executor (reference_exec/pte) on a validated program.
#include <iostream>

#include <nlohmann/json.hpp>

#include "reference_exec/pte/execute.h"
#include "reference_exec/pte/npy_io.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/console.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "validators/core/npy.h"
#include "validators/core/output_file.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

namespace {

namespace ex = pte::exec;

const CommandSpec& RunPteSpec() {
  static const CommandSpec kSpec = [] {
    CommandSpec spec{
        "run",
        "run an ExecuTorch program on the reference interpreter",
        "usage: accelcheck run MODEL.pte [--method NAME] [--data F.ptd] --input X.npy... "
        "[--output-dir D] [--memory separate|planned|both]\n"
        "Validates the program (with its named data), then interprets a method's instructions\n"
        "with the portable operators (docs/formats/pte.md \"Reference executor\"). One --input\n"
        "per plan input, in order, of the input's dtype and shape (a DYNAMIC_BOUND tensor takes\n"
        "any shape of its rank within its bound; BOOL as bool or uint8 0/1). Prints the\n"
        "outputs as JSON, or writes D/output_<i>.npy with --output-dir. --memory both (the "
        "default) runs separate\n"
        "buffers and the planned memory layout side by side and reports the first instruction\n"
        "where they differ, with the planned values whose bytes overlap. Exit 1 when the program\n"
        "does not validate, uses a delegate or an operator the interpreter does not run\n"
        "(unsupported), breaks a kernel's contract, or the memory modes differ; 3 on a limit.\n",
        {
            {"method", true, "NAME", "the execution plan to run (default: the first)"},
            {"input", true, "FILE", "a .npy per plan input, in the order of inputs (repeatable)"},
            {"data", true, "FILE", "a named-data file (.ptd) for EXTERNAL tensors (repeatable)"},
            {"output-dir", true, "DIR", "write output i as DIR/output_<i>.npy"},
            {"memory", true, "MODE",
             "separate, planned or both (default both: planned memory checked against separate)"},
            {"allow-invalid", false, "",
             "run a program whose only errors are memory-plan rules (pte.memory.live_overlap, "
             "pte.dataflow.read_before_write), to see what the aliasing does"},
            {"help", false, "", "print this help"},
        }};
    for (Flag& f : RunLimitFlags()) spec.flags.push_back(std::move(f));
    return spec;
  }();
  return kSpec;
}

nlohmann::json ScalarJson(const ex::HostValue& v) {
  switch (v.type) {
    case ex::fb::KernelTypes::Int:
      return v.int_value;
    case ex::fb::KernelTypes::Bool:
      return v.bool_value;
    case ex::fb::KernelTypes::Double:
      return v.double_value;
    case ex::fb::KernelTypes::String:
      return v.string_value;
    default:
      return nullptr;
  }
}

nlohmann::json DifferenceJson(const ex::Difference& d) {
  nlohmann::json out = {{"instruction", d.instruction}, {"message", d.message}};
  if (d.memory_id == 0) return out;
  out["value"] = d.value;
  out["when"] = d.after ? "written" : "read";
  out["planned"] = {{"memory_id", d.memory_id}, {"offset", d.offset}, {"end", d.end}};
  if (!d.written_by.empty()) out["written_by"] = d.written_by;
  out["overlaps"] = nlohmann::json::array();
  for (const ex::Overlap& o : d.overlaps) {
    nlohmann::json item = {{"value", o.value}, {"offset", o.offset}, {"end", o.end}};
    if (!o.written_by.empty()) item["written_by"] = o.written_by;
    out["overlaps"].push_back(item);
  }
  return out;
}

// An output's elements, integers exactly (int64 beyond 2^53 included).
nlohmann::json ValuesJson(const npy::Array& array) {
  nlohmann::json values = nlohmann::json::array();
  for (uint64_t i = 0; i < array.count(); ++i) {
    switch (array.dtype.kind) {
      case npy::Kind::kSigned:
        values.push_back(array.Int(i));
        break;
      case npy::Kind::kUnsigned:
        values.push_back(array.UInt(i));
        break;
      case npy::Kind::kBool:
        values.push_back(array.UInt(i) != 0);
        break;
      default:
        values.push_back(array.values[i]);
    }
  }
  return values;
}

}  // namespace

ExitCode RunPte(const Args& args) {
  const CommandSpec& spec = RunPteSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const auto parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected exactly one .pte");
  ex::LoadOptions load;
  std::string error;
  if (!ApplyLimitFlags(*parsed, &load.limits, &error)) return UsageError(spec, error);
  ex::RunOptions options;
  options.limits = load.limits;
  if (const auto memory = parsed->Get("memory")) {
    const auto mode = ex::ParseMemory(*memory);
    if (!mode)
      return UsageError(spec, Str("--memory ", Quoted(*memory), ": separate, planned or both"));
    options.memory = *mode;
  }
  const std::string path = parsed->positional[0];
  load.data = parsed->All("data");
  load.allow_memory_plan_errors = parsed->Has("allow-invalid");
  // The budget bounds the whole command: it starts before the file is read.
  load.deadline = Deadline(load.limits.time_budget_ms);
  const bool quiet = parsed->Has("quiet");
  const ProgressOptions progress = ProgressFor(quiet);

  DiagnosticSink sink(Profile{}, DisplayName(path));
  std::optional<ex::LoadedProgram> loaded;
  {
    const Progress validating(progress, "accelcheck run: validating");
    loaded = ex::LoadProgram(path, load, sink);
  }
  PrintDiagnostics(sink, quiet);
  if (!loaded) {
    std::cerr << "accelcheck run: " << path
              << (sink.failed() ? " could not be checked" : " does not validate")
              << "; nothing run\n";
    return sink.failed() ? ExitCode::kFailure : ExitCode::kErrors;
  }
  const std::string method = parsed->Get("method").value_or("");
  const ex::fb::ExecutionPlan* plan = loaded->FindPlan(method);
  if (plan == nullptr) return UsageError(spec, Str("the program has no method ", Quoted(method)));

  const auto& input_paths = parsed->All("input");
  if (input_paths.size() != plan->inputs()->size()) {
    return UsageError(spec,
                      Str("method ", Quoted(plan->name()->str()), " has ", plan->inputs()->size(),
                          " inputs but ", input_paths.size(), " --input were given"));
  }
  std::vector<ex::HostTensor> inputs;
  for (size_t i = 0; i < input_paths.size(); ++i) {
    DiagnosticSink read_sink(Profile{}, input_paths[i]);
    const auto bytes = ReadInput(input_paths[i], load.limits, read_sink);
    PrintDiagnostics(read_sink, quiet);
    if (!bytes) return ExitCode::kFailure;
    const auto array = npy::Read(bytes->bytes(), &error);
    if (!array) return UsageError(spec, Str(input_paths[i], ": ", error));
    const auto tensor = ex::InputFromNpy(*plan, i, *array, &error);
    if (!tensor) return UsageError(spec, Str(input_paths[i], ": ", error));
    inputs.push_back(*tensor);
  }

  ex::RunResult result;
  {
    Progress running(progress, "accelcheck run: instructions");
    RunControl control{load.deadline,
                       [&](uint64_t done, uint64_t total) { running.Set(done, total); }};
    result = ex::Run(*loaded, *plan, inputs, options, control);
  }
  if (result.out_of_time) {
    DiagnosticSink limit(Profile{}, DisplayName(path));
    ReportRunOutOfTime("the interpreter", load.limits, limit);
    PrintDiagnostics(limit, quiet);
    return ExitCode::kFailure;
  }
  if (result.failure) {
    const ex::Failure& f = *result.failure;
    if (f.outcome == ex::Outcome::kLimit && f.limit != nullptr) {
      DiagnosticSink limit(Profile{}, DisplayName(path));
      limit.Report(*f.limit, {}, f.message);
      PrintDiagnostics(limit, quiet);
      return ExitCode::kFailure;
    }
    std::cerr << "accelcheck run: " << path << ": " << ex::OutcomeName(f.outcome) << " (" << f.mode
              << " memory): " << f.message << "\n";
    if (f.outcome == ex::Outcome::kInvalid && f.message.rfind("input ", 0) == 0)
      return ExitCode::kUsage;
    return f.outcome == ex::Outcome::kLimit || f.outcome == ex::Outcome::kInternal
               ? ExitCode::kFailure
               : ExitCode::kErrors;
  }
  nlohmann::json summary = {{"method", plan->name()->str()},
                            {"memory", ex::MemoryName(options.memory)},
                            {"instructions", result.instructions}};
  if (result.difference) {
    summary["difference"] = DifferenceJson(*result.difference);
    std::cout << summary.dump(2) << "\n";
    std::cerr << "accelcheck run: " << path << ": " << result.difference->message << "\n";
    return ExitCode::kErrors;
  }
  const auto output_dir = parsed->Get("output-dir");
  if (output_dir && !MakeDirectories(*output_dir, &error)) return IoError(spec, error);
  summary["outputs"] = nlohmann::json::array();
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    const ex::HostValue& v = result.outputs[i];
    nlohmann::json out = {{"index", i}};
    if (v.type != ex::fb::KernelTypes::Tensor) {
      out["type"] = ex::fb::EnumNameKernelTypes(v.type);
      out["value"] = ScalarJson(v);
      summary["outputs"].push_back(out);
      continue;
    }
    out["dtype"] = ex::DTypeName(v.tensor.scalar_type);
    out["shape"] = v.tensor.sizes;
    if (!ex::IsSupported(v.tensor.scalar_type)) {
      out["note"] = "a dtype .npy output is not written for";
    } else if (output_dir) {
      const auto file = FileInside(*output_dir, Str("output_", i), ".npy", &error);
      if (!file) return IoError(spec, error);
      if (!WriteOutputFile(*file, ex::ToNpy(v.tensor), &error)) return IoError(spec, error);
      out["file"] = file->string();
    } else {
      out["values"] = ValuesJson(ex::ToNpyArray(v.tensor));
    }
    summary["outputs"].push_back(out);
  }
  std::cout << summary.dump(2) << "\n";
  return ExitCode::kConforms;
}

}  // namespace accelcheck::cli
