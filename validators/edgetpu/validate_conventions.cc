// I: where the Edge TPU compiler puts the parts of a package
// (docs/formats/edgetpu.md §4 I, §5.2). Nothing reads these conventions,
// which is why they are warnings and notes, but every real package keeps
// them: a package that breaks one was not written by the compiler, or was
// changed after it.
#include <algorithm>

#include "validators/core/text.h"
#include "validators/edgetpu/hint_plan.h"
#include "validators/edgetpu/rules.h"
#include "validators/edgetpu/validate.h"

namespace accelcheck::edgetpu {

namespace {

constexpr uint64_t kPage = 4096;

// Where `data` lies in the package, as the runtime's copy of it sees it.
uint64_t PackageOffset(const PackageView& view, const NestedBuffer& in, const void* data) {
  return in.region.file_offset + in.region.OffsetOf(data) - view.buffer.region.file_offset;
}

std::string PageText(uint64_t offset, uint64_t length) {
  return Str("starts at package offset ", Hex(offset), " and is ", length, " bytes long");
}

// EDG-86: the compiler writes the Package table in the package's first page
// and the multi-executable from the second page on, in whole pages.
void CheckMultiPage(const PackageView& view, DiagnosticSink& sink) {
  const auto* multi = view.package->serialized_multi_executable();
  const uint64_t start = PackageOffset(view, view.buffer, multi->data());
  if (start == kPage && multi->size() % kPage == 0) return;
  sink.Report(rules::kConventionMultiPage,
              view.buffer.region.At(view.buffer.region.OffsetOf(multi->data()), multi->size(),
                                    "serialized_multi_executable"),
              Str("serialized_multi_executable ", PageText(start, multi->size()),
                  "; the compiler starts it at 0x1000 and writes whole 4096-byte pages"));
}

// EDG-87: each executable in whole pages of the package.
void CheckExecutablePages(const PackageView& view, DiagnosticSink& sink) {
  const auto* strings = view.multi->serialized_executables();
  for (uint32_t i = 0; i < strings->size(); ++i) {
    const flatbuffers::String* s = strings->Get(i);
    const uint64_t start = PackageOffset(view, view.multi_buffer, s->data());
    if (start % kPage == 0 && s->size() % kPage == 0) continue;
    sink.Report(rules::kConventionExecutablePage,
                view.multi_buffer.region.At(view.multi_buffer.region.OffsetOf(s->data()), s->size(),
                                            Str("serialized_executables[", i, "]")),
                Str("executable ", i, " ", PageText(start, s->size()),
                    "; the compiler writes each executable in whole 4096-byte pages"));
  }
}

// EDG-87: of a pair, the compiler lists the PARAMETER_CACHING executable
// last and places it first.
void CheckPairOrder(const PackageView& view, DiagnosticSink& sink) {
  const ExecutableView* pc = nullptr;
  const ExecutableView* eo = nullptr;
  for (const ExecutableView& exe : view.executables) {
    if (exe.executable->type() == dwn::ExecutableType::PARAMETER_CACHING) pc = &exe;
    if (exe.executable->type() == dwn::ExecutableType::EXECUTION_ONLY) eo = &exe;
  }
  if (pc == nullptr || eo == nullptr) return;
  const bool listed_last = pc->index > eo->index;
  const bool placed_first = pc->buffer.region.file_offset < eo->buffer.region.file_offset;
  if (listed_last && placed_first) return;
  const flatbuffers::String* string = view.multi->serialized_executables()->Get(pc->index);
  sink.Report(
      rules::kConventionPairOrder,
      view.multi_buffer.region.At(view.multi_buffer.region.OffsetOf(string->data()), string->size(),
                                  Str("serialized_executables[", pc->index, "]")),
      Str("the PARAMETER_CACHING executable is serialized_executables[", pc->index,
          "] and the EXECUTION_ONLY one [", eo->index, "], the first ",
          placed_first ? "before" : "after",
          " the second in memory; the compiler lists [EXECUTION_ONLY, "
          "PARAMETER_CACHING] and places the PARAMETER_CACHING one first"));
}

// EDG-88: the multi-executable is the last object the compiler writes, and
// the custom options' string holds the package and nothing more.
void CheckPackageExtent(const PackageView& view, DiagnosticSink& sink) {
  const auto* multi = view.package->serialized_multi_executable();
  const uint64_t end = view.buffer.region.OffsetOf(multi->data()) + multi->size();
  const uint64_t size = view.buffer.region.bytes.size();
  if (end == size) return;
  sink.Report(rules::kConventionPackageExtent, view.buffer.region.At(end, size - end, ""),
              Str("the package is ", size,
                  " bytes but serialized_multi_executable, its last "
                  "object, ends at ",
                  Hex(end), ": ", size - end, " bytes follow it"));
}

// EDG-89: an EXECUTION_ONLY executable keeps parameters only when its hints
// stream them.
void CheckExecutionOnlyParameters(const PackageView& view, DiagnosticSink& sink) {
  for (const ExecutableView& exe : view.executables) {
    const dwn::Executable& e = *exe.executable;
    if (e.type() != dwn::ExecutableType::EXECUTION_ONLY || e.parameters() == nullptr ||
        e.parameters()->size() == 0)
      continue;
    const HintPlan plan = PlanHints(e);
    const bool streamed =
        std::any_of(plan.transfers.begin(), plan.transfers.end(),
                    [](const Transfer& t) { return t.kind == TransferKind::kParameter; });
    if (streamed) continue;
    ReportAt(sink, rules::kConventionEoParameters, exe, e.parameters(), "parameters",
             Str("the EXECUTION_ONLY executable keeps ", e.parameters()->size(),
                 " bytes of parameters, but no PARAMETER descriptor of its hints streams them"));
  }
}

}  // namespace

void ValidateConventions(const PackageView& view, DiagnosticSink& sink) {
  CheckMultiPage(view, sink);
  CheckExecutablePages(view, sink);
  CheckPairOrder(view, sink);
  CheckPackageExtent(view, sink);
  CheckExecutionOnlyParameters(view, sink);
}

}  // namespace accelcheck::edgetpu
