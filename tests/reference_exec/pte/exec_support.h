// Building, loading and running small programs for the executor's tests.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "reference_exec/pte/execute.h"
#include "validators/core/core_rules.h"

namespace accelcheck::pte::exec::test {

template <typename T>
HostTensor Tensor(DType type, std::vector<int64_t> sizes, const std::vector<T>& values) {
  HostTensor t;
  t.scalar_type = static_cast<int8_t>(type);
  t.sizes = std::move(sizes);
  t.bytes.resize(values.size() * SizeOf(type));
  for (size_t i = 0; i < values.size(); ++i) StoreAs<T>(type, t.bytes.data(), i, values[i]);
  return t;
}

inline HostTensor Floats(std::vector<int64_t> sizes, const std::vector<float>& values) {
  return Tensor<float>(DType::kFloat, std::move(sizes), values);
}

// The elements of an output tensor as doubles.
inline std::vector<double> Values(const HostValue& v) {
  std::vector<double> out;
  if (v.type != fb::KernelTypes::Tensor || !IsSupported(v.tensor.scalar_type)) return out;
  const DType t = static_cast<DType>(v.tensor.scalar_type);
  for (size_t i = 0; i < v.tensor.bytes.size() / SizeOf(t); ++i)
    out.push_back(LoadAs<double>(t, v.tensor.bytes.data(), i));
  return out;
}

// A built program, validated and ready to run.
struct Built {
  std::optional<LoadedProgram> program;
  std::vector<std::string> errors;  // rule ids of the validation errors
};

inline Built Load(const model::File& file, const std::optional<model::PtdFile>& data,
                  bool allow_memory_plan_errors = false) {
  LoadOptions options;
  options.allow_memory_plan_errors = allow_memory_plan_errors;
  DiagnosticSink sink(Profile{}, "test.pte");
  std::vector<std::vector<uint8_t>> ptd;
  if (data) ptd.push_back(SerializePtd(*data));
  Built built;
  built.program = LoadProgramBytes(Serialize(file), ptd, options, sink);
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity == Severity::kError) built.errors.push_back(std::string(d.rule->id));
  }
  return built;
}

inline RunResult RunRecipe(const nlohmann::json& recipe, const std::vector<HostTensor>& inputs,
                           Memory memory = Memory::kBoth, Limits limits = {}) {
  const RecipeFiles files = BuildRecipeFiles(recipe);
  const Built built = Load(files.program, files.data);
  EXPECT_TRUE(built.program.has_value()) << testing::PrintToString(built.errors);
  if (!built.program) return {};
  RunOptions options;
  options.memory = memory;
  options.limits = limits;
  return exec::Run(*built.program, *built.program->FindPlan(""), inputs, options);
}

// A one-plan recipe from its values, inputs, outputs and instructions.
inline nlohmann::json Plan(const char* values, const char* inputs, const char* outputs,
                           const char* instructions) {
  return nlohmann::json::parse(std::string(R"({"plans": [{"name": "forward", "values": )") +
                               values + R"(, "inputs": )" + inputs + R"(, "outputs": )" + outputs +
                               R"(, "instructions": )" + instructions + "}]}");
}

inline std::string Describe(const RunResult& r) {
  if (r.failure) return std::string(OutcomeName(r.failure->outcome)) + ": " + r.failure->message;
  if (r.difference) return "difference: " + r.difference->message;
  return "ok";
}

}  // namespace accelcheck::pte::exec::test
