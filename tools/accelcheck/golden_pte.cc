// The .pte interpreter's part of the golden runner (golden/README.md "pte").
// Models: a corpus program with its named-data files as companions, or
// {"recipe": {...}}: a program of the builder (conformance/pte/recipes.h),
// as `accelcheck generate pte` writes it, optionally with planned tensors
// moved onto another's bytes ("share_bytes") to make an aliasing plan. Both
// name the method to run ("method", default the first). Modes: "separate",
// "planned" and "both" (planned memory checked against separate; a
// difference leaves the case without a verdict). Inputs are "input_<i>" by
// plan input, outputs "output_<i>", as `accelcheck run --output-dir` names
// its files.
#include <algorithm>

#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "reference_exec/pte/execute.h"
#include "reference_exec/pte/npy_io.h"
#include "tools/accelcheck/golden_formats.h"
#include "validators/core/text.h"

namespace accelcheck::golden {

namespace {

namespace ex = pte::exec;

std::optional<std::string> CheckMethod(const Json& model) {
  if (model.contains("method") && (!model["method"].is_string() || model["method"].empty()))
    return "method is not a method name";
  return std::nullopt;
}

std::optional<std::string> CheckShareBytes(const Json& share) {
  constexpr const char* kForm = "share_bytes is an array of {\"value\": NAME, \"on\": NAME}";
  if (!share.is_array() || share.empty()) return kForm;
  for (const Json& item : share) {
    if (UnknownKey(item, {"value", "on"}, "share_bytes[]") || !item.contains("value") ||
        !item.contains("on") || !item["value"].is_string() || !item["on"].is_string())
      return kForm;
  }
  return std::nullopt;
}

std::optional<std::string> CheckModel(const Json& model) {
  if (auto key = UnknownKey(model, {"recipe", "method", "share_bytes"}, "model")) return key;
  if (!model.contains("recipe") || !model["recipe"].is_object())
    return "a model is {\"recipe\": {...}} or {\"corpus\": PATH}";
  if (model.contains("share_bytes")) {
    if (auto problem = CheckShareBytes(model["share_bytes"])) return problem;
  }
  return CheckMethod(model);
}

std::optional<std::string> CheckCorpusModel(const Json& model) {
  if (auto key = UnknownKey(model, {"corpus", "method"}, "model")) return key;
  return CheckMethod(model);
}

// A program's bytes and its named-data files' bytes.
struct ProgramFiles {
  std::vector<uint8_t> program;
  std::vector<std::vector<uint8_t>> data;
  bool aliased = false;  // share_bytes made the memory plan alias on purpose
};

pte::model::Tensor* NamedTensor(pte::RecipeFiles& files, size_t plan, const std::string& name,
                                std::string* error) {
  const auto& names = files.value_names.at(plan);
  const auto it = names.find(name);
  auto& values = *files.program.program.execution_plan->at(plan).values;
  auto* tensor =
      it == names.end() ? nullptr : std::get_if<pte::model::Tensor>(&values[it->second].val);
  if (tensor == nullptr || !tensor->allocation) {
    *error = Str("share_bytes: ", Quoted(name), " is not a planned tensor of the recipe");
    return nullptr;
  }
  return tensor;
}

// Builds the recipe, then places each share_bytes value on its partner's
// planned bytes: the validator reports the overlap, which is the point.
std::optional<ProgramFiles> BuildModel(const Json& model, std::string* error) {
  pte::RecipeFiles files;
  try {
    files = pte::BuildRecipeFiles(model["recipe"]);
  } catch (const std::exception& e) {
    *error = Str("the recipe does not build: ", e.what());
    return std::nullopt;
  }
  ProgramFiles out;
  if (model.contains("share_bytes")) {
    const std::string method = model.value("method", "");
    const auto& plans = *files.program.program.execution_plan;
    const auto plan = std::find_if(plans.begin(), plans.end(), [&](const auto& p) {
      return method.empty() || p.name == method;
    });
    if (plan == plans.end()) {
      *error = Str("the recipe has no method ", Quoted(method));
      return std::nullopt;
    }
    const size_t index = static_cast<size_t>(plan - plans.begin());
    for (const Json& share : model["share_bytes"]) {
      auto* moved = NamedTensor(files, index, share["value"].get<std::string>(), error);
      auto* onto = NamedTensor(files, index, share["on"].get<std::string>(), error);
      if (moved == nullptr || onto == nullptr) return std::nullopt;
      moved->allocation = onto->allocation;
    }
    out.aliased = true;
  }
  out.program = pte::Serialize(files.program);
  if (files.data) out.data.push_back(pte::SerializePtd(*files.data));
  return out;
}

std::optional<ProgramFiles> ReadModel(const Case& c, const RunEnv& env, std::string* error) {
  const Limits limits;
  ProgramFiles out;
  std::vector<std::string> paths = {*c.corpus_model()};
  paths.insert(paths.end(), c.companions.begin(), c.companions.end());
  for (const std::string& path : paths) {
    auto buffer = ReadFileLimited((env.corpus_dir / path).string(), limits.max_file_size, error);
    if (!buffer) return std::nullopt;
    std::vector<uint8_t> bytes(buffer->bytes().begin(), buffer->bytes().end());
    if (path == paths.front())
      out.program = std::move(bytes);
    else
      out.data.push_back(std::move(bytes));
  }
  return out;
}

// Validated as `accelcheck run` validates: an aliasing plan made on purpose
// may break the memory-plan rules and nothing else.
std::optional<ex::LoadedProgram> Load(const Case& c, ProgramFiles files, std::string* error) {
  ex::LoadOptions options;
  options.allow_memory_plan_errors = files.aliased;
  const std::string name = c.corpus_model().value_or(c.id());
  DiagnosticSink sink(Profile{}, name);
  auto loaded =
      ex::LoadProgramBytes(std::move(files.program), std::move(files.data), options, sink);
  if (!loaded) {
    std::string rules;
    for (const Diagnostic& d : sink.diagnostics()) {
      if (d.severity == Severity::kError) rules += Str(rules.empty() ? "" : ", ", d.rule->id);
    }
    *error = Str(name, " does not validate", rules.empty() ? "" : Str(": ", rules));
  }
  return loaded;
}

std::optional<std::vector<ex::HostTensor>> Inputs(const ex::fb::ExecutionPlan& plan,
                                                  const Arrays& arrays, std::string* error) {
  std::vector<ex::HostTensor> inputs;
  for (uint32_t i = 0; i < plan.inputs()->size(); ++i) {
    const std::string name = Str("input_", i);
    const auto array = arrays.find(name);
    if (array == arrays.end()) {
      *error = Str("method ", Quoted(plan.name()->str()), " has ", plan.inputs()->size(),
                   " inputs; the case gives no ", name);
      return std::nullopt;
    }
    auto tensor = ex::InputFromNpy(plan, i, array->second, error);
    if (!tensor) {
      *error = Str(name, ": ", *error);
      return std::nullopt;
    }
    inputs.push_back(std::move(*tensor));
  }
  if (arrays.size() != inputs.size()) {
    *error = Str("method ", Quoted(plan.name()->str()), " has ", plan.inputs()->size(),
                 " inputs but the case gives ", arrays.size());
    return std::nullopt;
  }
  return inputs;
}

std::optional<Arrays> Run(const Case& c, const std::string& mode, const Arrays& arrays,
                          const RunEnv& env, std::string* error) {
  auto files = c.corpus_model() ? ReadModel(c, env, error) : BuildModel(c.model, error);
  if (!files) return std::nullopt;
  const auto loaded = Load(c, std::move(*files), error);
  if (!loaded) return std::nullopt;
  const std::string method = c.model.value("method", "");
  const ex::fb::ExecutionPlan* plan = loaded->FindPlan(method);
  if (plan == nullptr) {
    *error = Str("the program has no method ", Quoted(method));
    return std::nullopt;
  }
  const auto inputs = Inputs(*plan, arrays, error);
  if (!inputs) return std::nullopt;
  ex::RunOptions options;
  options.memory = *ex::ParseMemory(mode);
  const ex::RunResult result = ex::Run(*loaded, *plan, *inputs, options);
  if (result.failure) {
    *error = Str(ex::OutcomeName(result.failure->outcome), " (", result.failure->mode,
                 " memory): ", result.failure->message);
    return std::nullopt;
  }
  if (result.difference) {
    *error = Str("the memory modes differ: ", result.difference->message);
    return std::nullopt;
  }
  Arrays outputs;
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    auto array = ex::OutputToNpy(result.outputs[i]);
    if (!array) {
      *error = Str("output ", i, " is a value no array holds");
      return std::nullopt;
    }
    outputs.emplace(Str("output_", i), std::move(*array));
  }
  return outputs;
}

}  // namespace

const GoldenFormat& PteGolden() {
  static const GoldenFormat kFormat{.modes = {"separate", "planned", "both"},  // ex::MemoryName
                                    .check_model = CheckModel,
                                    .run = Run,
                                    .check_corpus_model = CheckCorpusModel};
  return kFormat;
}

}  // namespace accelcheck::golden
