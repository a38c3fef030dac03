#include "tools/accelcheck/registry.h"

#include "conformance/edgetpu/mutate.h"
#include "conformance/gemini/mutate.h"
#include "conformance/neff/mutate.h"
#include "conformance/pte/mutate.h"
#include "conformance/tensil/mutate.h"
#include "tools/accelcheck/golden_formats.h"
#include "validators/core/compressed.h"
#include "validators/core/core_rules.h"
#include "validators/core/text.h"
#include "validators/edgetpu/edgetpu_format.h"
#include "validators/gemini/gemini_format.h"
#include "validators/neff/neff_format.h"
#include "validators/pte/pte_format.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck {

std::span<const FormatEntry> Formats() {
  using namespace cli;
  // One entry per format. The order is detection's, and the order of every
  // listing (rules, reports, docs/RULES.md).
  static const FormatEntry kFormats[] = {
      {.validator = pte::PteFormat(),
       .conformance = &pte::PteConformance(),
       .run = RunPte,
       .generate = RunGeneratePte,
       .golden = &golden::PteGolden()},
      {.validator = edgetpu::EdgetpuFormat(),
       .conformance = &edgetpu::EdgetpuConformance(),
       .run = RunEdgetpu,
       .golden = &golden::EdgetpuGolden()},
      {.validator = tensil::TensilFormat(),
       .conformance = &tensil::conformance::TensilConformance(),
       .disassemble = tensil::DisassembleInput,
       .run = RunTensil,
       .assemble = RunAssembleTensil,
       .golden = &golden::TensilGolden()},
      {.validator = gemini::GeminiFormat(),
       .conformance = &gemini::GeminiConformance(),
       .run = RunGemini,
       .simulate = RunSimulateGemini,
       .generate = RunGenerateGemini,
       .golden = &golden::GeminiGolden()},
      {.validator = neff::NeffFormat(),
       .conformance = &neff::conformance::NeffConformance(),
       .run = RunNeff,
       .golden = &golden::NeffGolden()},
  };
  return kFormats;
}

std::vector<const Format*> Validators() {
  std::vector<const Format*> validators;
  for (const FormatEntry& entry : Formats()) validators.push_back(&entry.validator);
  return validators;
}

std::vector<const conformance::Provider*> Providers() {
  std::vector<const conformance::Provider*> providers;
  for (const FormatEntry& entry : Formats()) {
    if (entry.conformance != nullptr) providers.push_back(entry.conformance);
  }
  return providers;
}

const FormatEntry* FindFormat(std::string_view id) {
  for (const FormatEntry& entry : Formats()) {
    if (entry.id() == id) return &entry;
  }
  return nullptr;
}

const FormatEntry* DetectFormat(ByteView bytes) {
  for (const FormatEntry& entry : Formats()) {
    if (entry.validator.Detect(bytes)) return &entry;
  }
  return nullptr;
}

const FormatEntry* ResembledFormat(const std::string& path, ByteView bytes) {
  for (const FormatEntry& entry : Formats()) {
    if (entry.validator.Resembles(path, bytes)) return &entry;
  }
  return nullptr;
}

std::optional<std::string_view> UnsupportedFormat(ByteView bytes) {
  // A gzip input is inflated once (validators/core/compressed.h): what is
  // still gzip is a stream inside it.
  if (IsCompressed(bytes)) return "a gzip stream inside a gzip stream (one is inflated)";
  return std::nullopt;
}

const Format* ValidatorFor(ByteView bytes, const Format* forced) {
  if (forced != nullptr) return forced;
  const FormatEntry* detected = DetectFormat(bytes);
  return detected != nullptr ? &detected->validator : nullptr;
}

void ReportUnknownFormat(std::string_view to_force, DiagnosticSink& sink) {
  sink.Report(core_rules::kFormatUnknown, {},
              Str("content matches no supported format (", FormatIds(), "); ", to_force,
                  " checks it as one"));
}

const Rule* FindRule(std::string_view id) {
  for (const FormatEntry& entry : Formats()) {
    if (const Rule* rule = FindRuleOf(entry.validator, id)) return rule;
  }
  return nullptr;
}

}  // namespace accelcheck
