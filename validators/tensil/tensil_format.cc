// The Tensil Format: detection, the validation pipeline (decode manifest ->
// architecture -> files -> instructions -> dataflow) and inspection.
#include "validators/tensil/tensil_format.h"

#include <filesystem>

#include "validators/core/core_rules.h"
#include "validators/core/json_locate.h"
#include "validators/core/phases.h"
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

std::optional<std::string> Companion(const ValidateContext& context, std::string_view extension) {
  for (const std::string& path : context.companions) {
    if (fs::path(path).extension() == extension) return path;
  }
  return std::nullopt;
}

// A file the manifest names: a companion with its extension, else the name
// relative to the manifest's directory (as the drivers resolve it). A
// manifest without a path (bytes held in memory) has no directory, so only a
// companion can be the file.
std::optional<std::string> Resolve(const ValidateContext& context, const std::string& file_name) {
  if (auto named = Companion(context, fs::path(file_name).extension().string())) return named;
  if (context.path.empty()) return std::nullopt;
  return (fs::path(context.path).parent_path() / file_name).string();
}

// Reads a file the input names; `where` is the value that names it.
std::optional<InputBuffer> ReadCompanion(const std::string& path, const Location& where,
                                         const ValidateContext& context, DiagnosticSink& sink) {
  std::string error;
  auto buffer = context.ReadFile(path, &error);
  if (!buffer) {
    sink.Report(rules::kModelFileMissing, where, Str("cannot read ", Quoted(path), ": ", error));
  }
  return buffer;
}

// Reads the file `file_name` of the manifest; `where` is the value that names it.
std::optional<InputBuffer> ReadNamedFile(const std::string& file_name, const Location& where,
                                         const ValidateContext& context, DiagnosticSink& sink) {
  const auto path = Resolve(context, file_name);
  if (!path) {
    sink.Report(rules::kModelFileMissing, where,
                Str("cannot find ", Quoted(file_name),
                    ": the model has no path, and no companion has its extension"));
    return std::nullopt;
  }
  return ReadCompanion(*path, where, context, sink);
}

// TNS-7
void CheckProgramSize(const Model& m, const Layout& layout, uint64_t file_size,
                      DiagnosticSink& sink) {
  if (m.prog_size && *m.prog_size != file_size) {
    sink.Report(rules::kModelProgSize, m.offsets.At("/prog/size"),
                Str("prog.size is ", Hex(*m.prog_size), " but ", Quoted(m.prog_file), " is ",
                    Hex(file_size), " bytes"));
  }
  const uint64_t size = m.prog_size.value_or(file_size);
  if (size == 0) {
    sink.Report(rules::kModelProgEmpty, m.offsets.At("/prog/size"), "the program is empty");
  }
  if (size % layout.instruction_bytes != 0) {
    sink.Report(rules::kModelProgMultiple, m.offsets.At("/prog/size"),
                Str("prog.size ", Hex(size), " is not a multiple of the instruction size ",
                    layout.instruction_bytes));
  }
}

// A program's bytes with what its passes read them against.
struct ProgramCheck {
  Program program;
  const Architecture& arch;
  const Layout& layout;
  const ValidateContext& context;
  DiagnosticSink& sink;
};

void CheckWholeInstructions(const ProgramCheck& check) {
  const uint64_t size = check.program.bytes.size();
  const uint64_t rest = size % check.layout.instruction_bytes;
  if (rest == 0) return;
  check.sink.Report(rules::kProgTruncated,
                    Location{size - rest, rest, "prog", check.program.member},
                    Str("the program is ", Hex(size), " bytes, ", rest, " past its last whole ",
                        check.layout.instruction_bytes, "-byte instruction"));
}

void CheckEachInstruction(const ProgramCheck& check) {
  if (!CheckInstructions(check.program, check.arch, check.layout, check.context.deadline,
                         check.sink)) {
    OutOfTime(check.context, check.sink);
  }
}

// Instructions are decoded only from a program of whole instructions.
constexpr void (*kProgramPasses[])(const ProgramCheck&) = {CheckWholeInstructions,
                                                           CheckEachInstruction};

// The architecture of a .tarch or .tmodel the input names; `where` is the
// place in the input that needs it.
std::optional<Architecture> ReadArchitectureFile(const std::string& path, const Location& where,
                                                 const ValidateContext& context,
                                                 DiagnosticSink& sink) {
  auto buffer = ReadCompanion(path, where, context, sink);
  if (!buffer) return std::nullopt;
  DiagnosticSink scratch(Profile{}, path);
  std::optional<Architecture> arch;
  if (IsModelDocument(buffer->bytes(), context.limits)) {
    if (const auto m = DecodeModelDocument(buffer->bytes(), context.limits, scratch))
      arch = m->arch;
  } else {
    arch = DecodeArchitectureDocument(buffer->bytes(), context.limits, scratch);
  }
  if (!arch) {
    sink.Report(rules::kModelFileMissing, where,
                Str(Quoted(path), " is not a valid architecture (its problems follow)"));
    ReportCompanionProblems(buffer->bytes(), path, context.limits, scratch, sink);
  }
  return arch;
}

// The files a .tmodel names (docs/formats/tensil.md §2), read before the
// passes that compare the manifest with them.
struct ModelFiles {
  const Model& model;
  const Layout& layout;
  std::optional<std::string> tarch_path;  // a --data .tarch, compared with the model's
  std::optional<Architecture> tarch;
  std::optional<InputBuffer> program;
  std::optional<InputBuffer> constants;  // consts[0]
  DiagnosticSink& sink;
};

ModelFiles ReadModelFiles(const Model& model, const Layout& layout, const ValidateContext& context,
                          DiagnosticSink& sink) {
  ModelFiles files{model, layout, Companion(context, ".tarch"), {}, {}, {}, sink};
  if (files.tarch_path) {
    files.tarch = ReadArchitectureFile(*files.tarch_path, model.offsets.At("/arch"), context, sink);
  }
  files.program =
      ReadNamedFile(model.prog_file, model.offsets.At("/prog/file_name"), context, sink);
  if (!model.consts.empty()) {
    files.constants = ReadNamedFile(model.consts[0].file_name,
                                    model.offsets.At("/consts/0/file_name"), context, sink);
  }
  return files;
}

// Each compares the decoded manifest with one file, so all of them run; a
// file that could not be read has been reported and is not compared.
constexpr void (*kManifestChecks[])(const ModelFiles&) = {
    [](const ModelFiles& f) {
      if (f.tarch) CheckArchitecturesMatch(f.model, *f.tarch, *f.tarch_path, f.sink);
    },
    [](const ModelFiles& f) {
      if (f.constants) CheckConstants(f.constants->bytes(), f.model, 0, f.sink);
    },
    [](const ModelFiles& f) {
      if (f.program) CheckProgramSize(f.model, f.layout, f.program->size(), f.sink);
    },
};
constexpr PassGroup<ModelFiles> kManifestPasses[] = {kManifestChecks};

// A loaded model with what its whole-program passes report to.
struct LoadedCheck {
  const LoadedModel& loaded;
  const ValidateContext& context;
  DiagnosticSink& sink;
};

void CheckModelDataflow(const LoadedCheck& check) {
  const Program program{check.loaded.program.bytes(), check.loaded.model.prog_file};
  if (!CheckDataflow(program, check.loaded.model, check.loaded.layout, check.context.deadline,
                     check.sink)) {
    OutOfTime(check.context, check.sink);
  }
}

// TNS-27 to TNS-30 follow values through the memories, so they run only on a
// model whose files and instructions are clean.
constexpr void (*kWholeProgramPasses[])(const LoadedCheck&) = {CheckModelDataflow};

void ValidateStandaloneProgram(const InputBuffer& input, const ValidateContext& context,
                               DiagnosticSink& sink) {
  const auto arch = CompanionArchitecture(context, sink);
  if (!arch) return;
  const Layout layout = *LayoutOf(*arch);
  RunPasses<ProgramCheck>(kProgramPasses,
                          ProgramCheck{{input.bytes(), ""}, *arch, layout, context, sink}, context,
                          sink);
}

void ValidateModel(const InputBuffer& input, const ValidateContext& context, DiagnosticSink& sink) {
  const auto loaded = LoadModel(input, context, sink);
  if (!loaded) return;
  RunPasses<LoadedCheck>(kWholeProgramPasses, LoadedCheck{*loaded, context, sink}, context, sink);
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
  // Found by extension, as the drivers find them: .tprog and .tdata are raw
  // bytes that only their names tell.
  bool TakesCompanion(const std::string& path, ByteView) const override {
    const fs::path extension = fs::path(path).extension();
    return extension == ".tarch" || extension == ".tmodel" || extension == ".tprog" ||
           extension == ".tdata";
  }
  // A .tprog or .tdata is validated through the .tmodel that names it.
  bool Resembles(const std::string& path, ByteView) const override {
    const fs::path extension = fs::path(path).extension();
    return extension == ".tmodel" || extension == ".tarch";
  }
  std::string_view companion_kinds() const override {
    return "a .tarch or .tmodel, or the .tprog or .tdata of a .tmodel";
  }

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
    if (IsModelDocument(input.bytes(), context.limits)) {
      ValidateModel(input, context, sink);
    } else {
      DecodeArchitectureDocument(input.bytes(), context.limits, sink);
    }
    PinJsonLocations(input.bytes(), "", context.limits, sink.MutableDiagnostics(), &input);
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
    if (!IsModelDocument(input.bytes(), context.limits)) {
      const auto arch = DecodeArchitectureDocument(input.bytes(), context.limits, sink);
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
  // A .tprog has no object for its architecture: the path names what is needed.
  const Location kNeedsArchitecture{std::nullopt, std::nullopt, "arch"};
  auto path = Companion(context, ".tarch");
  if (!path) path = Companion(context, ".tmodel");
  if (!path) {
    sink.Report(rules::kModelFileMissing, kNeedsArchitecture,
                "a .tprog is read with its architecture: name a .tarch or .tmodel with --data");
    return std::nullopt;
  }
  return ReadArchitectureFile(*path, kNeedsArchitecture, context, sink);
}

std::optional<LoadedModel> LoadModel(const InputBuffer& tmodel, const ValidateContext& context,
                                     DiagnosticSink& sink) {
  const uint64_t before = sink.blocking_count();
  auto model = DecodeModelDocument(tmodel.bytes(), context.limits, sink);
  if (!model) return std::nullopt;
  const Layout layout = *LayoutOf(model->arch);
  ModelFiles files = ReadModelFiles(*model, layout, context, sink);
  RunPassGroups<ModelFiles>(kManifestPasses, files, context, sink);
  // The program's passes rely on its bytes alone, not on the manifest agreeing with them.
  if (!files.program) return std::nullopt;
  const ProgramCheck program{
      {files.program->bytes(), model->prog_file}, model->arch, layout, context, sink};
  if (!RunPasses<ProgramCheck>(kProgramPasses, program, context, sink)) return std::nullopt;
  if (sink.blocking_count() != before || !files.constants) return std::nullopt;
  return LoadedModel{std::move(*model), layout, std::move(*files.program),
                     std::move(*files.constants)};
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
  // A .tprog is disassembled as it is, once it holds whole instructions.
  const uint64_t before = sink.blocking_count();
  CheckWholeInstructions(ProgramCheck{{input.bytes(), ""}, *arch, layout, context, sink});
  if (sink.blocking_count() != before) return std::nullopt;
  return Disassemble(input.bytes(), layout);
}

const Format& TensilFormat() {
  static const TensilFormatImpl kFormat;
  return kFormat;
}

}  // namespace accelcheck::tensil
