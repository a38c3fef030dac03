// F: the DMA hints (EDG-57 to EDG-68), judged on the transfer plan the
// driver makes of them (docs/formats/edgetpu.md §6.2, hint_plan.h): first
// each hint on its own, then, when every hint is one the driver can carry
// out, the compiler's order (grammar) and what the transfers cover.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "validators/core/text.h"
#include "validators/edgetpu/hint_plan.h"
#include "validators/edgetpu/rules.h"
#include "validators/edgetpu/validate.h"

namespace accelcheck::edgetpu {

namespace {

using Kind = TransferKind;
using Direction = dwn::Direction;

// The driver's page for the input over-read check (§6.2).
constexpr int64_t kPage = 4096;
// Gaps, overlaps or chunks listed in one finding; the rest are counted.
constexpr size_t kListedRanges = 3;
// Hints listed when a parameter-caching executable's are not the usual three.
constexpr size_t kListedHints = 5;

// One executable's hints, for locations.
class Hints {
 public:
  explicit Hints(const ExecutableView& view) : view_(view) {}

  const ExecutableView& view() const { return view_; }
  const dwn::Executable& exe() const { return *view_.executable; }
  const dwn::DmaHint* hint(uint32_t i) const { return exe().dma_hints()->hints()->Get(i); }

  // Reports at hint `i`, at `object` inside it (the hint itself when null),
  // `field` being the path below the hint.
  void Report(DiagnosticSink& sink, const Rule& rule, uint32_t i, const void* object,
              std::string_view field, std::string message) const {
    const std::string path = Str("dma_hints.hints[", i, "]", field.empty() ? "" : ".", field);
    ReportAt(sink, rule, view_, object != nullptr ? object : hint(i), path, std::move(message));
  }
  const dwn::DmaDescriptorHint* descriptor(uint32_t i) const {
    return hint(i)->any_hint_as_DmaDescriptorHint();
  }
  const dwn::Meta* meta(uint32_t i) const { return descriptor(i)->meta(); }

 private:
  const ExecutableView& view_;
};

std::string Range(int64_t offset, int64_t end) { return Str("[", offset, ", ", end, ")"); }

// "input "x" batch 0": what a layer transfer moves.
std::string LayerText(const Transfer& t) {
  return Str(TransferKindName(t.kind), " ", Quoted(t.layer_name), " batch ", t.batch);
}

// size_bytes · execution_count_per_inference: one batch element's buffer.
// Nothing when either is out of range, which the layer rules report
// (EDG-74, EDG-75) and which leaves the buffer's size unknown.
std::optional<int64_t> LayerBytes(const dwn::Layer& layer) {
  if (layer.size_bytes() < 0 || layer.execution_count_per_inference() < 1) return std::nullopt;
  return int64_t{layer.size_bytes()} * layer.execution_count_per_inference();
}

// EDG-59, EDG-60: the hints the driver cannot turn into a transfer.
void CheckSkipped(const Hints& hints, const SkippedHint& skipped, DiagnosticSink& sink) {
  const uint32_t i = skipped.hint;
  const dwn::DmaHint* hint = hints.hint(i);
  const int type = static_cast<int>(hint->any_hint_type());
  switch (skipped.reason) {
    case SkipReason::kNoneType:
      return hints.Report(sink, rules::kHintsType, i, nullptr, "any_hint_type",
                          "the hint's type is NONE: the driver aborts (Unrecognized hint)");
    case SkipReason::kUnknownType:
      return hints.Report(sink, rules::kHintsUnknownType, i, nullptr, "any_hint_type",
                          Str("the hint's type is ", type,
                              ", none of the four hint types (1 to 4): the driver skips it"));
    case SkipReason::kNullValue:
      return hints.Report(sink, rules::kHintsType, i, nullptr, "any_hint",
                          Str("the hint's type is ", type,
                              " but it has no value: the driver reads it through null"));
    case SkipReason::kNullMeta:
      return hints.Report(sink, rules::kHintsMeta, i, hints.descriptor(i), "any_hint.meta",
                          "the DMA descriptor has no meta: the driver reads it through null");
    case SkipReason::kUnknownDesc:
      return hints.Report(
          sink, rules::kHintsMeta, i, hints.meta(i), "any_hint.meta.desc",
          Str("the DMA descriptor's desc is ", static_cast<int>(hints.meta(i)->desc()),
              ", none of OUTPUT, INPUT, PARAMETER, SCRATCH: no DMA is made"));
  }
}

// EDG-61, EDG-62: the layer and batch an INPUT or OUTPUT descriptor names.
// True when both are valid, so that the bounds can be checked.
bool CheckLayerAndBatch(const Hints& hints, const Transfer& t, DiagnosticSink& sink) {
  const char* direction = t.kind == Kind::kInput ? "input" : "output";
  bool ok = true;
  if (t.layer == nullptr) {
    const dwn::Meta* meta = hints.meta(t.hint);
    hints.Report(sink, rules::kHintsLayer, t.hint, meta, "any_hint.meta.name",
                 meta->name() == nullptr
                     ? Str("the ", direction,
                           " descriptor names no layer: the driver reads the name through null")
                     : Str("the ", direction, " descriptor names ", Quoted(t.layer_name), ", no ",
                           direction, " layer of the executable: the driver aborts"));
    ok = false;
  }
  const int32_t batch_size = hints.exe().batch_size();
  if (t.batch < 0 || t.batch >= batch_size) {
    hints.Report(
        sink, rules::kHintsBatch, t.hint, hints.meta(t.hint), "any_hint.meta.batch",
        Str("the ", direction, " descriptor's batch is ", t.batch,
            " but the executable's batch_size is ", batch_size, ": the driver has no such buffer"));
    ok = false;
  }
  return ok;
}

// EDG-61: an input may be read past its end only within the buffer's last
// page, which depends on where the buffer lies; a buffer that starts on a
// page boundary allows the most. Reading past the layer's bytes at all is
// what compilers never do.
void CheckInput(const Hints& hints, const Transfer& t, DiagnosticSink& sink) {
  if (!CheckLayerAndBatch(hints, t, sink)) return;
  const int64_t size = t.end - t.offset;
  const dwn::DmaDescriptorHint* d = hints.descriptor(t.hint);
  if (t.offset < 0 || size < 1) {
    return hints.Report(sink, rules::kHintsInputBounds, t.hint, d,
                        t.offset < 0 ? "any_hint.offset_in_bytes" : "any_hint.size_in_bytes",
                        Str("the ", LayerText(t), " descriptor has offset ", t.offset, " and size ",
                            size, "; it needs offset >= 0 and size >= 1"));
  }
  const auto bytes = LayerBytes(*t.layer);
  if (!bytes) return;
  const int64_t last_page_of_buffer = *bytes == 0 ? -1 : (*bytes - 1) / kPage;
  if ((t.end - 1) / kPage > last_page_of_buffer) {
    hints.Report(sink, rules::kHintsInputBounds, t.hint, d, "any_hint.size_in_bytes",
                 Str("the ", LayerText(t), " descriptor reads ", Range(t.offset, t.end),
                     ", past the last 4096-byte page of its ", *bytes,
                     "-byte buffer even when that starts on a page: the driver aborts"));
  } else if (t.end > *bytes) {
    hints.Report(sink, rules::kHintsInputOverread, t.hint, d, "any_hint.size_in_bytes",
                 Str("the ", LayerText(t), " descriptor reads ", Range(t.offset, t.end),
                     ", past the layer's ", *bytes,
                     " bytes: the driver aborts unless the buffer ends early enough in its page"));
  }
}

// EDG-62.
void CheckOutput(const Hints& hints, const Transfer& t, DiagnosticSink& sink) {
  if (!CheckLayerAndBatch(hints, t, sink)) return;
  const auto bytes = LayerBytes(*t.layer);
  if (!bytes) return;
  if (t.offset >= 0 && t.end >= t.offset && t.end <= *bytes) return;
  hints.Report(sink, rules::kHintsOutputBounds, t.hint, hints.descriptor(t.hint),
               "any_hint.size_in_bytes",
               Str("the ", LayerText(t), " descriptor writes ", Range(t.offset, t.end),
                   ", not within the layer's ", *bytes, " bytes: the driver aborts"));
}

// EDG-63, EDG-64: parameters and scratch are sliced like outputs.
void CheckParameterOrScratch(const Hints& hints, const Transfer& t, DiagnosticSink& sink) {
  const bool parameter = t.kind == Kind::kParameter;
  int64_t bytes = 0;
  if (parameter) {
    const auto* parameters = hints.exe().parameters();
    bytes = parameters == nullptr ? 0 : int64_t{parameters->size()};
  } else {
    // A negative scratch size is reported by EDG-39.
    if (hints.exe().scratch_size_bytes() < 0) return;
    bytes = hints.exe().scratch_size_bytes();
  }
  if (t.offset >= 0 && t.end >= t.offset && t.end <= bytes) return;
  hints.Report(sink, parameter ? rules::kHintsParameterBounds : rules::kHintsScratchBounds, t.hint,
               hints.descriptor(t.hint), "any_hint.size_in_bytes",
               Str("the ", parameter ? "PARAMETER" : "SCRATCH", " descriptor covers ",
                   Range(t.offset, t.end), ", not within the ", bytes,
                   parameter ? " bytes of parameters" : " bytes of scratch_size_bytes",
                   ": the driver aborts"));
}

// EDG-65: the direction each kind of hint has in every real file.
void CheckDirection(const Hints& hints, const Transfer& t, DiagnosticSink& sink) {
  const auto infeed = static_cast<int16_t>(Direction::INFEED);
  const auto outfeed = static_cast<int16_t>(Direction::OUTFEED);
  std::string expected;
  switch (t.kind) {
    case Kind::kInput:
    case Kind::kParameter:
    case Kind::kInstructionChunk:
    case Kind::kFence:
      if (t.direction != infeed) expected = "INFEED (0)";
      break;
    case Kind::kOutput:
    case Kind::kInterrupt:
      if (t.direction != outfeed) expected = "OUTFEED (1)";
      break;
    case Kind::kScratchIn:
    case Kind::kScratchOut:
      if (t.direction != infeed && t.direction != outfeed) {
        expected = "INFEED (0) or OUTFEED (1); the driver sends it out";
      }
      break;
  }
  if (expected.empty()) return;
  hints.Report(sink, rules::kHintsDirection, t.hint, nullptr, "direction",
               Str("the ", TransferKindName(t.kind), " hint's direction is ", t.direction, ", not ",
                   expected));
}

// EDG-66, EDG-67. An executable without chunks is reported by EDG-41.
void CheckChunkOrInterrupt(const Hints& hints, const Transfer& t, DiagnosticSink& sink) {
  const dwn::DmaHint* hint = hints.hint(t.hint);
  if (t.kind == Kind::kInstructionChunk) {
    const auto* chunks = hints.exe().instruction_bitstreams();
    if (chunks == nullptr || chunks->size() == 0) return;
    if (t.chunk >= 0 && static_cast<uint32_t>(t.chunk) < chunks->size()) return;
    hints.Report(sink, rules::kHintsChunkIndex, t.hint, hint->any_hint(),
                 "any_hint.instruction_chunk_index",
                 Str("the InstructionHint sends chunk ", t.chunk, " but the executable has ",
                     chunks->size(), " instruction bitstream chunk", chunks->size() == 1 ? "" : "s",
                     ": the driver reads out of bounds"));
  } else if (t.kind == Kind::kInterrupt && (t.interrupt < 0 || t.interrupt > 3)) {
    hints.Report(
        sink, rules::kHintsInterruptType, t.hint, hint->any_hint(), "any_hint.type",
        Str("the InterruptHint's type is ", t.interrupt, ", none of SCALAR_CORE_INT_0 to 3"));
  }
}

void CheckTransfer(const Hints& hints, const Transfer& t, DiagnosticSink& sink) {
  if (t.hint == Transfer::kNoHint) return;  // the global fence
  CheckDirection(hints, t, sink);
  switch (t.kind) {
    case Kind::kInput:
      return CheckInput(hints, t, sink);
    case Kind::kOutput:
      return CheckOutput(hints, t, sink);
    case Kind::kParameter:
    case Kind::kScratchIn:
    case Kind::kScratchOut:
      return CheckParameterOrScratch(hints, t, sink);
    case Kind::kInstructionChunk:
    case Kind::kInterrupt:
      return CheckChunkOrInterrupt(hints, t, sink);
    case Kind::kFence:
      return;
  }
}

std::string Describe(const Transfer& t) {
  switch (t.kind) {
    case Kind::kInstructionChunk:
      return Str("InstructionHint ", t.chunk);
    case Kind::kInterrupt:
      return Str("InterruptHint ", t.interrupt);
    case Kind::kFence:
      return "FenceHint";
    case Kind::kInput:
    case Kind::kOutput:
      return Str(LayerText(t), " ", Range(t.offset, t.end));
    case Kind::kParameter:
    case Kind::kScratchIn:
    case Kind::kScratchOut:
      return Str(TransferKindName(t.kind), " ", Range(t.offset, t.end));
  }
  return "?";
}

// EDG-68 for a parameter-caching executable: chunk 0, its parameters, and
// interrupt 0, nothing else (the range is the coverage's).
void CheckCachingGrammar(const Hints& hints, const std::vector<Transfer>& plan,
                         DiagnosticSink& sink) {
  const bool ok = plan.size() == 3 && plan[0].kind == Kind::kInstructionChunk &&
                  plan[0].chunk == 0 && plan[1].kind == Kind::kParameter &&
                  plan[2].kind == Kind::kInterrupt && plan[2].interrupt == 0;
  if (ok) return;
  std::string got;
  for (size_t k = 0; k < plan.size() && k < kListedHints; ++k) {
    got += Str(k == 0 ? "" : ", ", Describe(plan[k]));
  }
  if (plan.size() > kListedHints) got += Str(" and ", plan.size() - kListedHints, " more");
  ReportAt(sink, rules::kHintsOrder, hints.view(), hints.exe().dma_hints(), "dma_hints.hints",
           Str("the parameter-caching executable's hints are ", got.empty() ? "none" : got,
               ", not InstructionHint 0, one PARAMETER descriptor, InterruptHint 0"));
}

// EDG-68: chunk 0 first, each chunk once (every chunk when the hints are
// fully deterministic), and a fully deterministic stream ends with
// interrupt 0. Hints that are not fully deterministic leave DMAs to the
// device, so only what they do say is held to the order (keras_lstm, §5.2).
void CheckChunkGrammar(const Hints& hints, const HintPlan& plan, DiagnosticSink& sink) {
  const auto& transfers = plan.transfers;
  const bool deterministic = plan.fully_deterministic;
  const auto* chunks = hints.exe().instruction_bitstreams();
  const uint32_t chunk_count = chunks == nullptr ? 0 : chunks->size();
  if (transfers.empty() || transfers[0].hint == Transfer::kNoHint) {
    if (deterministic) {
      ReportAt(sink, rules::kHintsGrammar, hints.view(), hints.exe().dma_hints(), "dma_hints.hints",
               "the fully deterministic hints are empty: they send no instructions");
    }
    return;
  }
  const Transfer& first = transfers[0];
  if (first.kind != Kind::kInstructionChunk || first.chunk != 0) {
    hints.Report(sink, rules::kHintsOrder, first.hint, nullptr, "",
                 Str("the first hint is ", Describe(first), ", not InstructionHint 0"));
  }
  std::map<int32_t, uint32_t> sent;  // chunk -> the hint that first sends it
  for (const Transfer& t : transfers) {
    if (t.kind != Kind::kInstructionChunk) continue;
    const auto [it, inserted] = sent.emplace(t.chunk, t.hint);
    if (inserted) continue;
    hints.Report(sink, rules::kHintsOrder, t.hint, nullptr, "",
                 Str("chunk ", t.chunk, " is sent again (first by hints[", it->second,
                     "]); the compiler sends each chunk once"));
  }
  if (!deterministic) return;
  std::string unsent;
  uint32_t unsent_count = 0;
  for (uint32_t c = 0; c < chunk_count; ++c) {
    if (sent.count(static_cast<int32_t>(c)) != 0) continue;
    if (unsent_count++ < kListedRanges) unsent += Str(unsent.empty() ? "" : ", ", c);
  }
  if (unsent_count > kListedRanges) unsent += Str(" and ", unsent_count - kListedRanges, " more");
  if (unsent_count != 0) {
    ReportAt(sink, rules::kHintsGrammar, hints.view(), hints.exe().dma_hints(), "dma_hints.hints",
             Str("the fully deterministic hints never send chunk ", unsent));
  }
  const Transfer& last = transfers.back();
  if (last.kind != Kind::kInterrupt || last.interrupt != 0) {
    hints.Report(
        sink, rules::kHintsGrammar, last.hint, nullptr, "",
        Str("the fully deterministic hints end with ", Describe(last), ", not InterruptHint 0"));
  }
}

// EDG-68: one output's descriptors (per batch element) follow each other
// and each starts where the one before ended, the first at 0.
void CheckOutputGrammar(const Hints& hints, const std::vector<Transfer>& transfers,
                        DiagnosticSink& sink) {
  std::map<std::pair<std::string_view, int32_t>, size_t> last;  // output -> its last transfer
  for (size_t k = 0; k < transfers.size(); ++k) {
    const Transfer& t = transfers[k];
    if (t.kind != Kind::kOutput) continue;
    const auto [it, first] = last.emplace(std::pair{t.layer_name, t.batch}, k);
    if (first) {
      if (t.offset != 0) {
        hints.Report(
            sink, rules::kHintsOrder, t.hint, nullptr, "",
            Str("the first descriptor of ", LayerText(t), " starts at ", t.offset, ", not 0"));
      }
      continue;
    }
    const Transfer& before = transfers[it->second];
    if (it->second + 1 != k) {
      hints.Report(sink, rules::kHintsOrder, t.hint, nullptr, "",
                   Str("the descriptors of ", LayerText(t), " are apart: hints[", before.hint,
                       "] and hints[", t.hint, "] have other hints between them"));
    } else if (t.offset != before.end) {
      hints.Report(sink, rules::kHintsOrder, t.hint, nullptr, "",
                   Str(LayerText(t), " continues at ", t.offset, " after ",
                       Range(before.offset, before.end), ", not at ", before.end));
    }
    it->second = k;
  }
}

std::string RangesText(const ByteRanges& ranges) {
  std::string text;
  for (size_t k = 0; k < ranges.size() && k < kListedRanges; ++k) {
    text += Str(k == 0 ? "" : ", ", Range(ranges[k].first, ranges[k].second));
  }
  if (ranges.size() > kListedRanges) text += Str(" and ", ranges.size() - kListedRanges, " more");
  return text;
}

// EDG-68, §6.2 for fully deterministic hints: every byte of every input and
// output of every batch element is moved (inputs may overlap: halos), and
// the parameters are streamed exactly once. Scratch is the device's own.
void CheckCoverage(const Hints& hints, const std::vector<Transfer>& transfers,
                   DiagnosticSink& sink) {
  using Key = std::tuple<Kind, std::string_view, int32_t>;
  std::map<Key, ByteRanges> ranges;
  // Compilers write a buffer's descriptors one after another: the buffer of
  // the previous transfer is looked up again only when it changes.
  ByteRanges* last = nullptr;
  Key last_key;
  for (const Transfer& t : transfers) {
    Key key;
    if (t.kind == Kind::kInput || t.kind == Kind::kOutput) {
      key = {t.kind, t.layer_name, t.batch};
    } else if (t.kind == Kind::kParameter) {
      key = {t.kind, {}, 0};
    } else {
      continue;
    }
    if (last == nullptr || key != last_key) {
      last = &ranges[key];
      last_key = key;
    }
    last->emplace_back(t.offset, t.end);
  }
  const dwn::Executable& exe = hints.exe();
  const auto report = [&](std::string message) {
    ReportAt(sink, rules::kHintsCoverage, hints.view(), exe.dma_hints(), "dma_hints.hints",
             std::move(message));
  };
  for (const auto& [kind, layers] : {std::pair{Kind::kInput, exe.input_layers()},
                                     std::pair{Kind::kOutput, exe.output_layers()}}) {
    for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
      const dwn::Layer& layer = *layers->Get(i);
      const auto bytes = LayerBytes(layer);
      if (layer.name() == nullptr || !bytes || *bytes == 0) continue;
      Transfer t;
      t.kind = kind;
      t.layer_name = layer.name()->string_view();
      // The batch elements the hints move, in order (the map is sorted):
      // the work follows the hints, not batch_size.
      std::vector<int32_t> unmoved;
      int64_t unmoved_count = 0;
      int32_t next = 0;  // batches below it are judged
      const auto note_unmoved_before = [&](int32_t batch) {
        unmoved_count += batch - next;
        for (int32_t b = next; b < batch && unmoved.size() < kListedRanges; ++b)
          unmoved.push_back(b);
      };
      for (auto it = ranges.lower_bound({kind, t.layer_name, 0});
           it != ranges.end() && std::get<0>(it->first) == kind &&
           std::get<1>(it->first) == t.layer_name && std::get<2>(it->first) < exe.batch_size();
           ++it) {
        t.batch = std::get<2>(it->first);
        note_unmoved_before(t.batch);
        next = t.batch + 1;
        const Sweep sweep = SweepRanges(it->second, *bytes);
        if (!sweep.gaps.empty()) {
          report(Str("the hints leave bytes ", RangesText(sweep.gaps), " of ", LayerText(t), " (",
                     *bytes, " bytes) unmoved"));
        }
      }
      note_unmoved_before(std::max(exe.batch_size(), next));
      if (unmoved_count == 0) continue;
      std::string listed;
      for (const int32_t b : unmoved) listed += Str(listed.empty() ? "" : ", ", b);
      if (unmoved_count > static_cast<int64_t>(unmoved.size())) {
        listed += Str(" and ", unmoved_count - static_cast<int64_t>(unmoved.size()), " more");
      }
      report(Str("the hints never move ", TransferKindName(kind), " ", Quoted(t.layer_name), " (",
                 *bytes, " bytes) for batch ", listed));
    }
  }
  const auto* parameters = exe.parameters();
  const int64_t parameter_bytes = parameters == nullptr ? 0 : int64_t{parameters->size()};
  const auto found = ranges.find({Kind::kParameter, {}, 0});
  const Sweep sweep =
      SweepRanges(found == ranges.end() ? ByteRanges{} : found->second, parameter_bytes);
  if (!sweep.gaps.empty()) {
    report(Str("the hints never stream parameter bytes ", RangesText(sweep.gaps), " of ",
               parameter_bytes));
  }
  if (!sweep.overlaps.empty()) {
    report(Str("the hints stream parameter bytes ", RangesText(sweep.overlaps), " more than once"));
  }
}

void CheckExecutable(const ExecutableView& view, DiagnosticSink& sink) {
  const dwn::Executable& exe = *view.executable;
  const HintPlan plan = PlanHints(exe);
  if (!plan.present) {
    if (exe.dma_hints() == nullptr) {
      ReportAt(sink, rules::kHintsMissing, view, &exe, "dma_hints",
               "the executable has no dma_hints, which the driver CHECKs and reads unchecked");
    } else {
      ReportAt(sink, rules::kHintsMissing, view, exe.dma_hints(), "dma_hints.hints",
               "dma_hints has no hints vector, which the driver walks unchecked");
    }
    return;
  }
  const Hints hints(view);
  if (!plan.fully_deterministic) {
    ReportAt(sink, rules::kHintsNotDeterministic, view, exe.dma_hints(),
             "dma_hints.fully_deterministic",
             "fully_deterministic is false: the driver adds a global fence after the hints, and "
             "the USB driver refuses the executable when DMA descriptors from the device are "
             "disabled");
  }
  const uint64_t before = sink.blocking_count();
  for (const SkippedHint& skipped : plan.skipped) CheckSkipped(hints, skipped, sink);
  for (const Transfer& t : plan.transfers) CheckTransfer(hints, t, sink);
  // The order and the coverage mean something only for hints the driver
  // carries out as written.
  if (sink.blocking_count() != before || !plan.skipped.empty()) return;
  if (exe.type() == dwn::ExecutableType::PARAMETER_CACHING) {
    CheckCachingGrammar(hints, plan.transfers, sink);
  } else {
    CheckChunkGrammar(hints, plan, sink);
    CheckOutputGrammar(hints, plan.transfers, sink);
  }
  if (plan.fully_deterministic) CheckCoverage(hints, plan.transfers, sink);
}

}  // namespace

void ValidateHints(const PackageView& view, DiagnosticSink& sink) {
  for (const ExecutableView& exe : view.executables) CheckExecutable(exe, sink);
}

}  // namespace accelcheck::edgetpu
