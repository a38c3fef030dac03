// DMA-hint replay (docs/formats/edgetpu.md §6.2, EDG-68).
#include "reference_exec/edgetpu/dma_replay.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <tuple>

#include "validators/core/text.h"

namespace accelcheck::edgetpu {

namespace {

using Kind = TransferKind;
using LayerVector = flatbuffers::Vector<flatbuffers::Offset<dwn::Layer>>;

std::string RangesText(const ByteRanges& ranges) {
  constexpr size_t kListed = 4;
  std::string text;
  for (size_t k = 0; k < ranges.size() && k < kListed; ++k)
    text += Str(k == 0 ? "" : ", ", "[", ranges[k].first, ", ", ranges[k].second, ")");
  if (ranges.size() > kListed) text += Str(" and ", ranges.size() - kListed, " more");
  return text;
}

std::string BufferText(const BufferUse& use) {
  if (use.kind == Kind::kParameter) return "the parameters";
  return Str(TransferKindName(use.kind), " ", Quoted(use.name), " batch ", use.batch);
}

// One entry per batch element the transfers move, batch 0 at least; the
// work follows the hints, not batch_size, which may be any positive int32.
void AddLayers(const LayerVector* layers, Kind kind,
               const std::set<std::pair<std::string_view, int32_t>>& moved,
               std::vector<BufferUse>& out) {
  for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
    const dwn::Layer& layer = *layers->Get(i);
    if (layer.name() == nullptr) continue;
    const int64_t size =
        int64_t{layer.size_bytes()} * std::max(1, layer.execution_count_per_inference());
    const std::string_view name = layer.name()->string_view();
    std::set<int32_t> batches = {0};
    for (auto it = moved.lower_bound({name, INT32_MIN}); it != moved.end() && it->first == name;
         ++it)
      batches.insert(it->second);
    for (const int32_t b : batches)
      out.push_back({kind, std::string(name), b, std::max<int64_t>(size, 0), 0, {}, {}});
  }
}

void Judge(const DmaReplay& replay, BufferUse& use, std::vector<std::string>& findings) {
  if (!replay.plan.fully_deterministic) return;
  if (!use.gaps.empty()) {
    findings.push_back(Str(BufferText(use), ": bytes ", RangesText(use.gaps), " of ", use.size,
                           use.kind == Kind::kOutput ? " are never received" : " are never sent"));
  }
  if (use.kind != Kind::kInput && !use.overlaps.empty()) {
    findings.push_back(Str(BufferText(use), ": bytes ", RangesText(use.overlaps),
                           use.kind == Kind::kOutput ? " are received more than once"
                                                     : " are streamed more than once"));
  }
}

}  // namespace

DmaReplay ReplayHints(const dwn::Executable& exe) {
  DmaReplay replay;
  replay.plan = PlanHints(exe);
  std::set<std::pair<std::string_view, int32_t>> inputs, outputs;
  for (const Transfer& t : replay.plan.transfers) {
    if (t.kind == Kind::kInput) inputs.insert({t.layer_name, t.batch});
    if (t.kind == Kind::kOutput) outputs.insert({t.layer_name, t.batch});
  }
  AddLayers(exe.input_layers(), Kind::kInput, inputs, replay.buffers);
  AddLayers(exe.output_layers(), Kind::kOutput, outputs, replay.buffers);
  if (exe.parameters() != nullptr && exe.parameters()->size() != 0)
    replay.buffers.push_back(
        {Kind::kParameter, "", 0, int64_t{exe.parameters()->size()}, 0, {}, {}});
  const auto* chunks = exe.instruction_bitstreams();
  replay.chunk_sends.assign(chunks == nullptr ? 0 : chunks->size(), 0);

  std::map<std::tuple<Kind, std::string_view, int32_t>, ByteRanges> ranges;
  for (const Transfer& t : replay.plan.transfers) {
    if (t.kind == Kind::kInstructionChunk && t.chunk >= 0 &&
        static_cast<size_t>(t.chunk) < replay.chunk_sends.size()) {
      ++replay.chunk_sends[static_cast<size_t>(t.chunk)];
    } else if (t.kind == Kind::kInput || t.kind == Kind::kOutput) {
      ranges[{t.kind, t.layer_name, t.batch}].emplace_back(t.offset, t.end);
    } else if (t.kind == Kind::kParameter) {
      ranges[{t.kind, std::string_view(), 0}].emplace_back(t.offset, t.end);
    }
  }
  for (BufferUse& use : replay.buffers) {
    const auto it = ranges.find({use.kind, use.name, use.batch});
    const ByteRanges moved = it == ranges.end() ? ByteRanges{} : it->second;
    for (const auto& [offset, end] : moved) use.moved += end - offset;
    Sweep sweep = SweepRanges(moved, use.size);
    use.gaps = std::move(sweep.gaps);
    use.overlaps = std::move(sweep.overlaps);
    Judge(replay, use, replay.findings);
  }
  // Batch elements no transfer moves at all (counted, not listed).
  const int64_t batch_size = std::max(1, exe.batch_size());
  for (const auto* layer_set : {&inputs, &outputs}) {
    std::map<std::string_view, int64_t> per_layer;
    for (const auto& [name, batch] : *layer_set) {
      if (batch >= 0 && batch < batch_size) ++per_layer[name];
    }
    const bool input = layer_set == &inputs;
    const auto* layers = input ? exe.input_layers() : exe.output_layers();
    for (uint32_t i = 0; replay.plan.fully_deterministic && layers != nullptr && i < layers->size();
         ++i) {
      if (layers->Get(i)->name() == nullptr) continue;
      const int64_t moved = per_layer[layers->Get(i)->name()->string_view()];
      if (moved != 0 && moved < batch_size)
        replay.findings.push_back(
            Str(input ? "input " : "output ", Quoted(layers->Get(i)->name()->string_view()), ": ",
                batch_size - moved, " of ", batch_size, " batch elements are never moved"));
    }
  }
  for (size_t c = 0; replay.plan.fully_deterministic && c < replay.chunk_sends.size(); ++c) {
    if (replay.chunk_sends[c] == 0)
      replay.findings.push_back(Str("instruction chunk ", c, " is never sent"));
  }
  return replay;
}

nlohmann::ordered_json ReplayJson(const DmaReplay& replay) {
  using Json = nlohmann::ordered_json;
  Json transfers = Json::array();
  for (const Transfer& t : replay.plan.transfers) {
    Json step = {{"kind", TransferKindName(t.kind)}};
    if (t.hint != Transfer::kNoHint) step["hint"] = t.hint;
    switch (t.kind) {
      case Kind::kInstructionChunk:
        step["chunk"] = t.chunk;
        step["bytes"] = t.end - t.offset;
        break;
      case Kind::kInput:
      case Kind::kOutput:
        step["layer"] = std::string(t.layer_name);
        step["batch"] = t.batch;
        [[fallthrough]];
      case Kind::kParameter:
      case Kind::kScratchIn:
      case Kind::kScratchOut:
        step["offset"] = t.offset;
        step["end"] = t.end;
        break;
      case Kind::kInterrupt:
        step["interrupt"] = t.interrupt;
        break;
      case Kind::kFence:
        break;
    }
    transfers.push_back(std::move(step));
  }
  Json buffers = Json::array();
  for (const BufferUse& use : replay.buffers) {
    const auto ranges = [](const ByteRanges& list) {
      Json out = Json::array();
      for (const auto& [offset, end] : list) out.push_back({offset, end});
      return out;
    };
    Json entry = {{"kind", TransferKindName(use.kind)}};
    if (use.kind != Kind::kParameter) {
      entry["layer"] = use.name;
      entry["batch"] = use.batch;
    }
    entry["size"] = use.size;
    entry["moved"] = use.moved;
    entry["gaps"] = ranges(use.gaps);
    entry["overlaps"] = ranges(use.overlaps);
    buffers.push_back(std::move(entry));
  }
  return {{"fully_deterministic", replay.plan.fully_deterministic},
          {"transfers", std::move(transfers)},
          {"skipped_hints", replay.plan.skipped.size()},
          {"buffers", std::move(buffers)},
          {"chunk_sends", replay.chunk_sends},
          {"findings", replay.findings}};
}

}  // namespace accelcheck::edgetpu
