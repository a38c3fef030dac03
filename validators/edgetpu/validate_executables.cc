// C: the executable set (EDG-28 to EDG-40, EDG-97), as the registry picks
// the main and the parameter-caching executable from it.
#include <map>

#include "validators/core/text.h"
#include "validators/edgetpu/rules.h"
#include "validators/edgetpu/validate.h"

namespace accelcheck::edgetpu {

namespace {

using Type = dwn::ExecutableType;

std::string TypeText(Type type) {
  const char* name = dwn::EnumNameExecutableType(type);
  return *name != '\0' ? std::string(name) : Str("type ", static_cast<int>(type));
}

bool KnownType(Type type) {
  return type == Type::STAND_ALONE || type == Type::PARAMETER_CACHING ||
         type == Type::EXECUTION_ONLY;
}

// EDG-28, EDG-32, EDG-36 to EDG-40, EDG-97: each executable on its own.
void CheckOne(const ExecutableView& view, DiagnosticSink& sink) {
  const dwn::Executable& exe = *view.executable;
  if (exe.name() == nullptr) {
    ReportAt(sink, rules::kExecutableName, view, &exe, "name",
             "the executable has no name, which the driver prints when a request fails");
  }
  if (exe.batch_size() < 1) {
    ReportAt(sink, rules::kBatchSize, view, &exe, "batch_size",
             Str("batch_size is ", exe.batch_size(), "; the runtime needs at least 1"));
  }
  if (!KnownType(exe.type())) {
    ReportAt(sink, rules::kTypeValue, view, &exe, "type",
             Str("type is ", static_cast<int>(exe.type()),
                 ", none of STAND_ALONE (0), PARAMETER_CACHING (1), EXECUTION_ONLY (2)"));
  }
  if (exe.chip() == nullptr || exe.chip()->string_view() != "beagle") {
    ReportAt(sink, rules::kChip, view, &exe, "chip",
             exe.chip() == nullptr ? std::string("the executable names no chip")
                                   : Str("chip is ", Quoted(exe.chip()->str()),
                                         ", not beagle, the only chip of the runtime"));
  }
  if (exe.version() != 0) {
    ReportAt(sink, rules::kExecutableVersion, view, &exe, "version",
             Str("version is ", exe.version(), ", not 0, the only executable format version"));
  }
  if (exe.use_tpu_dram_for_parameters()) {
    ReportAt(sink, rules::kDram, view, &exe, "use_tpu_dram_for_parameters",
             "use_tpu_dram_for_parameters is set, but the Edge TPU has no DRAM of its own");
  }
  for (const auto& [layers, name] : {std::pair{exe.input_layers(), "input_layers"},
                                     std::pair{exe.output_layers(), "output_layers"}}) {
    for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
      if (!layers->Get(i)->cache_on_dram()) continue;
      ReportAt(sink, rules::kDram, view, layers->Get(i), Str(name, "[", i, "].cache_on_dram"),
               "cache_on_dram is set, but the Edge TPU has no DRAM of its own");
    }
  }
  if (exe.scratch_size_bytes() < 0) {
    ReportAt(sink, rules::kScratchSize, view, &exe, "scratch_size_bytes",
             Str("scratch_size_bytes is ", exe.scratch_size_bytes(),
                 ", which the runtime takes as a huge allocation"));
  }
  if (exe.estimated_cycles() < 0 || exe.estimated_cycles_64bit() < 0) {
    ReportAt(sink, rules::kCycles, view, &exe,
             exe.estimated_cycles() < 0 ? "estimated_cycles" : "estimated_cycles_64bit",
             Str("the cycle estimate is negative (", exe.estimated_cycles(), ", ",
                 exe.estimated_cycles_64bit(), ")"));
  }
}

// EDG-29, EDG-30: which sets the registry accepts.
bool CheckCombination(const PackageView& view, DiagnosticSink& sink) {
  std::map<Type, const ExecutableView*> by_type;
  bool ok = true;
  for (const ExecutableView& exe : view.executables) {
    const Type type = exe.executable->type();
    const auto [it, inserted] = by_type.emplace(type, &exe);
    if (inserted) continue;
    ReportAt(
        sink, rules::kDuplicateType, exe, exe.executable, "type",
        Str("executables ", it->second->index, " and ", exe.index, " are both ", TypeText(type)));
    ok = false;
  }
  const size_t n = view.executable_count;
  const bool pair = n == 2 && by_type.count(Type::PARAMETER_CACHING) != 0 &&
                    by_type.count(Type::EXECUTION_ONLY) != 0;
  const bool triple = n == 3 && by_type.size() == 3 && by_type.count(Type::STAND_ALONE) != 0 &&
                      by_type.count(Type::PARAMETER_CACHING) != 0 &&
                      by_type.count(Type::EXECUTION_ONLY) != 0;
  const Location at = view.multi_buffer.region.AtObject(view.multi->serialized_executables(),
                                                        "serialized_executables");
  if (n >= 2 && ok && !pair && !triple) {
    std::string types;
    for (const auto& [type, exe] : by_type) types += Str(types.empty() ? "" : ", ", TypeText(type));
    sink.Report(rules::kCombination, at,
                Str("the package holds ", n, " executables (", types,
                    "); the runtime takes one, a PARAMETER_CACHING and EXECUTION_ONLY pair, or "
                    "those two with a STAND_ALONE"));
    ok = false;
  }
  if (n == 1 && !view.executables.empty() &&
      view.executables[0].executable->type() != Type::STAND_ALONE) {
    const ExecutableView& only = view.executables[0];
    ReportAt(sink, rules::kSingleType, only, only.executable, "type",
             Str("the only executable is ", TypeText(only.executable->type()),
                 "; the runtime runs it as STAND_ALONE"));
  }
  return ok && (pair || triple);
}

// EDG-33 to EDG-35: the pair that shares a parameter cache.
void CheckCachingPair(const PackageView& view, DiagnosticSink& sink) {
  const ExecutableView* pc = nullptr;
  const ExecutableView* eo = nullptr;
  for (const ExecutableView& exe : view.executables) {
    if (exe.executable->type() == Type::PARAMETER_CACHING) pc = &exe;
    if (exe.executable->type() == Type::EXECUTION_ONLY) eo = &exe;
  }
  if (pc == nullptr || eo == nullptr) return;
  const uint64_t token = pc->executable->parameter_caching_token();
  if (token == 0) {
    ReportAt(sink, rules::kPcToken, *pc, pc->executable, "parameter_caching_token",
             "the parameter-caching executable has no token (Parameter caching tag is not set)");
  } else if (eo->executable->parameter_caching_token() != token) {
    ReportAt(sink, rules::kTokenMismatch, *eo, eo->executable, "parameter_caching_token",
             Str("the EXECUTION_ONLY token ", eo->executable->parameter_caching_token(),
                 " differs from the PARAMETER_CACHING token ", token,
                 ": the cache is dropped and refilled before every inference"));
  }
  for (const auto& [layers, name] : {std::pair{pc->executable->input_layers(), "input_layers"},
                                     std::pair{pc->executable->output_layers(), "output_layers"}}) {
    if (layers == nullptr || layers->size() == 0) continue;
    ReportAt(sink, rules::kPcLayers, *pc, layers, name,
             Str("the parameter-caching executable has ", layers->size(), " ", name,
                 "; its requests carry no buffers"));
  }
}

}  // namespace

void ValidateExecutableSet(const PackageView& view, DiagnosticSink& sink) {
  for (const ExecutableView& exe : view.executables) CheckOne(exe, sink);
  // The set is judged only when every executable was read.
  if (view.executables.size() != view.executable_count) return;
  if (CheckCombination(view, sink)) CheckCachingPair(view, sink);
}

}  // namespace accelcheck::edgetpu
