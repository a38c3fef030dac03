// The Tensil Format: detection, the validation pipeline (decode manifest ->
// architecture -> files -> instructions -> dataflow) and inspection.
#include "validators/tensil/tensil_format.h"

#include <filesystem>

#include "validators/core/core_rules.h"
#include "validators/core/text.h"
#include "validators/tensil/disasm.h"
#include "validators/tensil/instruction.h"
#include "validators/tensil/rules.h"
#include "validators/tensil/validate.h"

namespace accelcheck::tensil {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool IsJson(ByteView bytes) {
  for (uint8_t c : bytes) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{' || c == '[';
  }
  return false;
}

bool IsModel(const json& object) { return object.contains("prog") || object.contains("consts"); }

std::optional<std::string> Companion(const ValidateContext& context, std::string_view extension) {
  for (const std::string& path : context.companions) {
    if (fs::path(path).extension() == extension) return path;
  }
  return std::nullopt;
}

// A file the manifest names: a companion with its extension, else the name
// relative to the manifest's directory (as the drivers resolve it).
std::string Resolve(const ValidateContext& context, const std::string& file_name) {
  if (auto named = Companion(context, fs::path(file_name).extension().string())) return *named;
  return (fs::path(context.path).parent_path() / file_name).string();
}

std::optional<InputBuffer> ReadCompanion(const std::string& path, const std::string& what,
                                         const ValidateContext& context, DiagnosticSink& sink) {
  std::string error;
  auto buffer = ReadFileLimited(path, context.limits.max_file_size, &error);
  if (!buffer) {
    sink.Report(rules::kModelFileMissing, AtPath(what),
                Str("cannot read ", Quoted(path), ": ", error));
  }
  return buffer;
}

// TNS-7
bool CheckProgramSize(const Model& m, const Layout& layout, uint64_t file_size,
                      DiagnosticSink& sink) {
  bool ok = true;
  if (m.prog_size && *m.prog_size != file_size) {
    sink.Report(rules::kModelProgSize, AtPath("prog.size"),
                Str("prog.size is ", Hex(*m.prog_size), " but ", Quoted(m.prog_file), " is ",
                    Hex(file_size), " bytes"));
  }
  const uint64_t size = m.prog_size.value_or(file_size);
  if (size == 0) {
    sink.Report(rules::kModelProgEmpty, AtPath("prog.size"), "the program is empty");
    ok = false;
  }
  if (size % layout.instruction_bytes != 0) {
    sink.Report(rules::kModelProgMultiple, AtPath("prog.size"),
                Str("prog.size ", Hex(size), " is not a multiple of the instruction size ",
                    layout.instruction_bytes));
  }
  return ok;
}

bool CheckWholeInstructions(ByteView program, const Layout& layout, DiagnosticSink& sink) {
  const uint64_t rest = program.size() % layout.instruction_bytes;
  if (rest == 0) return true;
  sink.Report(rules::kProgTruncated, {program.size() - rest, rest, "prog"},
              Str("the program is ", Hex(program.size()), " bytes, ", rest, " past its last whole ",
                  layout.instruction_bytes, "-byte instruction"));
  return false;
}

bool OutOfTime(const Deadline& deadline, const ValidateContext& context, DiagnosticSink& sink) {
  if (!deadline.expired()) return false;
  sink.Report(
      core_rules::kLimitTime, {},
      Str("validation stopped after --time-budget-ms ", context.limits.time_budget_ms, " ms"));
  return true;
}

std::optional<Architecture> ReadArchitectureFile(const std::string& path,
                                                 const ValidateContext& context,
                                                 DiagnosticSink& sink) {
  auto buffer = ReadCompanion(path, "arch", context, sink);
  if (!buffer) return std::nullopt;
  DiagnosticSink scratch(Profile{}, path);
  auto object = ParseObject(buffer->bytes(), scratch);
  std::optional<Architecture> arch;
  if (object && IsModel(*object)) {
    if (const auto m = DecodeModel(*object, scratch)) arch = m->arch;
  } else if (object) {
    arch = DecodeArchitecture(*object, "", scratch);
  }
  if (!arch) {
    sink.Report(
        rules::kModelFileMissing, AtPath("arch"),
        Str(Quoted(path), " is not a valid architecture (validate it on its own for the reasons)"));
  }
  return arch;
}

void ValidateStandaloneProgram(const InputBuffer& input, const ValidateContext& context,
                               DiagnosticSink& sink) {
  const auto arch = CompanionArchitecture(context, sink);
  if (!arch) return;
  const Layout layout = *LayoutOf(*arch);
  if (!CheckWholeInstructions(input.bytes(), layout, sink)) return;
  const Deadline deadline(context.limits.time_budget_ms);
  if (!CheckInstructions(input.bytes(), *arch, layout, deadline, sink))
    OutOfTime(deadline, context, sink);
}

void ValidateModel(const InputBuffer& input, const ValidateContext& context, DiagnosticSink& sink) {
  const Deadline deadline(context.limits.time_budget_ms);
  const auto loaded = LoadModel(input, context, sink);
  if (!loaded || OutOfTime(deadline, context, sink)) return;
  if (!CheckDataflow(loaded->program.bytes(), loaded->model, loaded->layout, deadline, sink)) {
    OutOfTime(deadline, context, sink);
  }
}

json LayoutJson(const Layout& l) {
  return json{{"instruction_bytes", l.instruction_bytes},
              {"operand0",
               {{"bytes", l.op0_bytes},
                {"address_bits", l.op0_address_bits},
                {"stride_bits", l.stride0_bits}}},
              {"operand1",
               {{"bytes", l.op1_bytes},
                {"address_bits", l.op1_address_bits},
                {"stride_bits", l.stride1_bits}}},
              {"operand2",
               {{"bytes", l.op2_bytes},
                {"size_bits", l.op2_address_bits},
                {"simd_bits", l.simd_instruction_bits}}},
              {"tid_bits", l.tid_bits}};
}

json ProgramJson(ByteView program, const Layout& layout) {
  static constexpr const char* kNames[] = {"Wait", "MatMul", "DataMove", "LoadWeights",
                                           "SIMD", "5",      "6",        "7"};
  json histogram = json::object();
  const uint64_t count = program.size() / layout.instruction_bytes;
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t opcode = DecodeAt(program, i, layout).opcode();
    histogram[kNames[opcode]] = histogram.value(kNames[opcode], 0) + 1;
  }
  return json{{"instructions", count}, {"opcodes", histogram}};
}

class TensilFormatImpl final : public Format {
 public:
  std::string_view id() const override { return "tensil"; }
  std::string_view description() const override {
    return "Tensil model (.tmodel with its .tprog and .tdata) and architecture (.tarch)";
  }
  RuleTable rules() const override { return AllRules(); }

  bool Detect(ByteView bytes) const override { return LooksLikeTensilJson(bytes); }

  void Validate(const InputBuffer& input, const ValidateContext& context,
                DiagnosticSink& sink) const override {
    // Only a forced --format tensil reaches here with binary content: a .tprog.
    if (!IsJson(input.bytes())) return ValidateStandaloneProgram(input, context, sink);
    const auto object = ParseObject(input.bytes(), sink);
    if (!object) return;
    if (IsModel(*object)) return ValidateModel(input, context, sink);
    DecodeArchitecture(*object, "", sink);
  }

  json Inspect(const InputBuffer& input, const ValidateContext& context,
               DiagnosticSink& sink) const override {
    if (!IsJson(input.bytes())) {
      const auto arch = CompanionArchitecture(context, sink);
      if (!arch) return nullptr;
      const Layout layout = *LayoutOf(*arch);
      return json{{"kind", "tprog"},
                  {"arch", ArchJson(*arch)},
                  {"layout", LayoutJson(layout)},
                  {"program", ProgramJson(input.bytes(), layout)}};
    }
    const auto object = ParseObject(input.bytes(), sink);
    if (!object) return nullptr;
    if (!IsModel(*object)) {
      const auto arch = DecodeArchitecture(*object, "", sink);
      if (!arch) return nullptr;
      return json{
          {"kind", "tarch"}, {"arch", ArchJson(*arch)}, {"layout", LayoutJson(*LayoutOf(*arch))}};
    }
    const auto loaded = LoadModel(input, context, sink);
    if (!loaded) return nullptr;
    const Model& m = loaded->model;
    json inputs = json::array(), outputs = json::array();
    for (const IoEntry& e : m.inputs)
      inputs.push_back({{"name", e.name}, {"base", e.base}, {"size", e.size}});
    for (const IoEntry& e : m.outputs)
      outputs.push_back({{"name", e.name}, {"base", e.base}, {"size", e.size}});
    return json{{"kind", "tmodel"},
                {"name", m.name},
                {"arch", ArchJson(m.arch)},
                {"layout", LayoutJson(loaded->layout)},
                {"prog", {{"file_name", m.prog_file}, {"size", loaded->program.size()}}},
                {"consts",
                 {{"file_name", m.consts[0].file_name},
                  {"base", m.consts[0].base},
                  {"size", m.consts[0].size}}},
                {"inputs", inputs},
                {"outputs", outputs},
                {"load_consts_to_local", m.load_consts_to_local},
                {"program", ProgramJson(loaded->program.bytes(), loaded->layout)}};
  }
};

}  // namespace

std::optional<Architecture> CompanionArchitecture(const ValidateContext& context,
                                                  DiagnosticSink& sink) {
  auto path = Companion(context, ".tarch");
  if (!path) path = Companion(context, ".tmodel");
  if (!path) {
    sink.Report(rules::kModelFileMissing, AtPath("arch"),
                "a .tprog is read with its architecture: name a .tarch or .tmodel with --data");
    return std::nullopt;
  }
  return ReadArchitectureFile(*path, context, sink);
}

std::optional<LoadedModel> LoadModel(const InputBuffer& tmodel, const ValidateContext& context,
                                     DiagnosticSink& sink) {
  const auto object = ParseObject(tmodel.bytes(), sink);
  if (!object) return std::nullopt;
  const uint64_t before = sink.blocking_count();
  auto model = DecodeModel(*object, sink);
  if (!model) return std::nullopt;
  if (const auto tarch_path = Companion(context, ".tarch")) {
    if (const auto tarch = ReadArchitectureFile(*tarch_path, context, sink)) {
      CheckArchitecturesMatch(model->arch, *tarch, *tarch_path, sink);
    }
  }
  const Layout layout = *LayoutOf(model->arch);
  auto program = ReadCompanion(Resolve(context, model->prog_file), "prog.file_name", context, sink);
  std::optional<InputBuffer> constants;
  if (!model->consts.empty()) {
    constants = ReadCompanion(Resolve(context, model->consts[0].file_name), "consts[0].file_name",
                              context, sink);
    if (constants) CheckConstants(constants->bytes(), *model, 0, sink);
  }
  if (!program) return std::nullopt;
  if (!CheckProgramSize(*model, layout, program->size(), sink)) return std::nullopt;
  if (!CheckWholeInstructions(program->bytes(), layout, sink)) return std::nullopt;
  const Deadline deadline(context.limits.time_budget_ms);
  if (!CheckInstructions(program->bytes(), model->arch, layout, deadline, sink)) {
    OutOfTime(deadline, context, sink);
    return std::nullopt;
  }
  if (sink.blocking_count() != before || !constants) return std::nullopt;
  return LoadedModel{std::move(*model), layout, std::move(*program), std::move(*constants)};
}

std::optional<std::string> DisassembleInput(const InputBuffer& input,
                                            const ValidateContext& context, DiagnosticSink& sink) {
  if (IsJson(input.bytes())) {
    const auto loaded = LoadModel(input, context, sink);
    if (!loaded) return std::nullopt;
    return Disassemble(loaded->program.bytes(), loaded->layout);
  }
  const auto arch = CompanionArchitecture(context, sink);
  if (!arch) return std::nullopt;
  const Layout layout = *LayoutOf(*arch);
  if (!CheckWholeInstructions(input.bytes(), layout, sink)) return std::nullopt;
  return Disassemble(input.bytes(), layout);
}

const Format& TensilFormat() {
  static const TensilFormatImpl kFormat;
  return kFormat;
}

}  // namespace accelcheck::tensil
