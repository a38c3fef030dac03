// The pte Format: content detection, the validation pipeline for .pte and
// .ptd, and inspection.
#include "validators/pte/pte_format.h"

#include <filesystem>

#include "validators/core/core_rules.h"
#include "validators/core/phases.h"
#include "validators/core/text.h"
#include "validators/pte/inspect.h"
#include "validators/pte/validate.h"
#include "validators/pte/validate_ptd.h"
#include "validators/pte/verify.h"

namespace accelcheck::pte {

namespace {

bool IsPtd(ByteView bytes) { return HasBytesAt(bytes, 4, "FT01"); }

// The named-data file: the first companion that is a .ptd by content, else
// <stem>.ptd next to the .pte.
std::optional<InputBuffer> ReadNamedData(const ValidateContext& context, std::string* path) {
  std::string error;
  for (const std::string& companion : context.companions) {
    auto buffer = context.ReadFile(companion, &error);
    if (!buffer || !IsPtd(buffer->bytes())) continue;
    *path = companion;
    return buffer;
  }
  if (context.path.empty()) return std::nullopt;
  std::filesystem::path sibling(context.path);
  sibling.replace_extension(".ptd");
  if (sibling.string() == context.path || !context.files->HasFile(sibling.string()))
    return std::nullopt;
  auto buffer = context.ReadFile(sibling.string(), &error);
  if (!buffer || !IsPtd(buffer->bytes())) return std::nullopt;
  *path = sibling.string();
  return buffer;
}

// The named data a companion .ptd offers, when it validates; its own
// problems belong to its own validation run.
struct Companion {
  InputBuffer buffer;
  NamedLayouts layouts;
};
// Without one, `unusable` names a .ptd that was found but cannot be used, and why.
std::optional<Companion> LoadCompanion(const ValidateContext& context, std::string* unusable) {
  std::string path;
  auto buffer = ReadNamedData(context, &path);
  if (!buffer) return std::nullopt;
  DiagnosticSink scratch(Profile{}, path);
  const auto* root = ValidatePtd(buffer->bytes(), context.limits, scratch);
  if (root == nullptr) {
    *unusable = path;
    return std::nullopt;
  }
  Companion companion{std::move(*buffer), {}};
  companion.layouts = LayoutsOf(*flat_tensor_flatbuffer::GetFlatTensor(companion.buffer.data()));
  return companion;
}

// One plan with the facts its passes share.
struct PlanState {
  const ProgramContext& ctx;
  const fb::ExecutionPlan& plan;
  uint32_t p;
  PlanFacts& facts;
};

// The structure, values, tensors and instructions of a plan rely only on its
// facts and run together; the memory plan follows indices and sizes, so it
// runs only on a plan the others found clean.
constexpr void (*kPlanChecks[])(const PlanState&) = {
    [](const PlanState& s) { ValidatePlan(s.ctx, s.plan, s.p, s.facts); },
    [](const PlanState& s) { ValidateValues(s.ctx, s.plan, s.p, s.facts); },
    [](const PlanState& s) { ValidateTensors(s.ctx, s.plan, s.p, s.facts); },
    [](const PlanState& s) { ValidateInstructions(s.ctx, s.plan, s.p, s.facts); },
};
constexpr void (*kMemoryPlanCheck[])(const PlanState&) = {
    [](const PlanState& s) { ValidateMemoryPlan(s.ctx, s.plan, s.p, s.facts); },
};
constexpr PassGroup<PlanState> kPlanPasses[] = {kPlanChecks, kMemoryPlanCheck};

// The EXTERNAL tensors no named data was at hand for: how many, and the first.
struct UncheckedExternals {
  uint64_t count = 0;
  uint32_t plan = 0;
  uint32_t value = 0;

  void Add(const PlanFacts& facts, uint32_t p) {
    for (uint32_t v = 0; v < facts.values.size(); ++v) {
      if (facts.values[v].source != DataSource::kExternal) continue;
      if (count++ == 0) {
        plan = p;
        value = v;
      }
    }
  }
};

// PTE-51d: a check that could not run is said, not passed over.
void ReportUnchecked(const ProgramContext& ctx, const UncheckedExternals& unchecked,
                     const std::string& unusable) {
  if (unchecked.count == 0) return;
  const auto* tensor = ctx.program.execution_plan()
                           ->Get(unchecked.plan)
                           ->values()
                           ->Get(unchecked.value)
                           ->val_as_Tensor();
  const std::string why =
      unusable.empty()
          ? "no named-data file was given (--data FILE.ptd) or found beside the program"
          : "the named-data file " + unusable;
  ctx.Report(
      rules::kExternalUnchecked, tensor->extra_tensor_info(),
      ValuePath(unchecked.plan, unchecked.value) + ".val.extra_tensor_info",
      Str(unchecked.count, unchecked.count == 1 ? " EXTERNAL tensor was" : " EXTERNAL tensors were",
          " not checked against named data: ", why));
}

// decode -> verify -> program tables -> per plan: structure, values,
// tensors, instructions -> whole-program memory plan (docs/ARCHITECTURE.md "Phases").
void ValidatePte(ByteView file, const ValidateContext& context, DiagnosticSink& sink) {
  const auto header = DecodeHeader(file, sink);
  if (!header) return;
  if (!VerifyProgram(file.first(header->program_size), context.limits, sink)) return;
  const fb::Program& program = *fb::GetProgram(file.data());
  CheckContainer(file, *header, program, sink);

  std::string unusable;
  const auto companion = LoadCompanion(context, &unusable);
  ProgramContext ctx{FlatbufferRegion{file, 0, ""},
                     *header,
                     program,
                     sink,
                     companion ? &companion->layouts : nullptr,
                     ConstantLimits(program)};
  ValidateProgramTables(ctx);
  ValidatePlanNames(ctx);
  const auto* plans = program.execution_plan();
  if (plans == nullptr) return;
  UncheckedExternals unchecked;
  for (uint32_t p = 0; p < plans->size(); ++p) {
    if (OutOfTime(context, sink)) return;
    const fb::ExecutionPlan& plan = *plans->Get(p);
    const uint64_t before = sink.blocking_count();
    PlanFacts facts = GatherPlanFacts(ctx, plan, p);
    // Misaligned list items cannot be read: no pass of this plan runs then.
    if (sink.blocking_count() != before) continue;
    RunPassGroups<PlanState>(kPlanPasses, PlanState{ctx, plan, p, facts}, context, sink);
    if (!companion) unchecked.Add(facts, p);
  }
  ReportUnchecked(ctx, unchecked, unusable);
}

class PteFormatImpl final : public Format {
 public:
  bool TakesCompanion(const std::string&, ByteView bytes) const override { return IsPtd(bytes); }
  // "ET" opens the identifier of every ExecuTorch version (docs/formats/pte.md §1).
  bool Resembles(const std::string& path, ByteView bytes) const override {
    const std::filesystem::path extension = std::filesystem::path(path).extension();
    return extension == ".pte" || extension == ".ptd" || HasBytesAt(bytes, 4, "ET");
  }
  std::string_view companion_kinds() const override { return "a .ptd (named data)"; }

  std::string_view id() const override { return "pte"; }
  std::string_view description() const override {
    return "ExecuTorch program (.pte, ET12) and named-data file (.ptd, FT01)";
  }
  RuleTable rules() const override { return AllRules(); }

  // ET12, any other ET?? (reported as an unsupported version), or FT01.
  bool Detect(ByteView bytes) const override { return HasBytesAt(bytes, 4, "ET") || IsPtd(bytes); }

  void Validate(const InputBuffer& input, const ValidateContext& context,
                DiagnosticSink& sink) const override {
    if (IsPtd(input.bytes())) {
      ValidatePtd(input.bytes(), context.limits, sink);
    } else {
      ValidatePte(input.bytes(), context, sink);
    }
  }

  nlohmann::json Inspect(const InputBuffer& input, const ValidateContext& context,
                         DiagnosticSink& sink) const override {
    return IsPtd(input.bytes()) ? InspectPtd(input, context, sink)
                                : InspectPte(input, context, sink);
  }
};

}  // namespace

const Format& PteFormat() {
  static const PteFormatImpl kFormat;
  return kFormat;
}

}  // namespace accelcheck::pte
