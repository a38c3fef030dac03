// The driver's hint walk (docs/formats/edgetpu.md §6.2).
#include "validators/edgetpu/hint_plan.h"

#include <algorithm>
#include <map>

namespace accelcheck::edgetpu {

namespace {

using Desc = dwn::Description;
using LayerVector = flatbuffers::Vector<flatbuffers::Offset<dwn::Layer>>;

// The driver finds buffers by layer name; with two layers of one name
// (EDG-70) the first is taken here.
std::map<std::string_view, const dwn::Layer*> ByName(const LayerVector* layers) {
  std::map<std::string_view, const dwn::Layer*> names;
  for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
    const dwn::Layer* layer = layers->Get(i);
    if (layer->name() != nullptr) names.emplace(layer->name()->string_view(), layer);
  }
  return names;
}

class Walk {
 public:
  explicit Walk(const dwn::Executable& exe)
      : exe_(exe), inputs_(ByName(exe.input_layers())), outputs_(ByName(exe.output_layers())) {}

  HintPlan plan;

  void One(uint32_t index, const dwn::DmaHint& hint) {
    switch (hint.any_hint_type()) {
      case dwn::AnyHint::NONE:
        return Skip(index, SkipReason::kNoneType);
      case dwn::AnyHint::DmaDescriptorHint:
        if (const auto* d = hint.any_hint_as_DmaDescriptorHint())
          return Descriptor(index, hint, *d);
        break;
      case dwn::AnyHint::InstructionHint:
        if (const auto* h = hint.any_hint_as_InstructionHint()) return Instruction(index, hint, *h);
        break;
      case dwn::AnyHint::InterruptHint:
        if (const auto* h = hint.any_hint_as_InterruptHint()) {
          Transfer t;
          t.kind = TransferKind::kInterrupt;
          t.hint = index;
          t.direction = static_cast<int16_t>(hint.direction());
          t.interrupt = static_cast<int16_t>(h->type());
          plan.transfers.push_back(t);
          return;
        }
        break;
      case dwn::AnyHint::FenceHint:
        if (hint.any_hint_as_FenceHint() != nullptr) {
          Transfer t;
          t.kind = TransferKind::kFence;
          t.hint = index;
          t.direction = static_cast<int16_t>(hint.direction());
          plan.transfers.push_back(t);
          return;
        }
        break;
      default:
        return Skip(index, SkipReason::kUnknownType);
    }
    Skip(index, SkipReason::kNullValue);
  }

 private:
  void Skip(uint32_t index, SkipReason reason) { plan.skipped.push_back({index, reason}); }

  void Descriptor(uint32_t index, const dwn::DmaHint& hint, const dwn::DmaDescriptorHint& d) {
    const dwn::Meta* meta = d.meta();
    if (meta == nullptr) return Skip(index, SkipReason::kNullMeta);
    Transfer t;
    t.hint = index;
    t.direction = static_cast<int16_t>(hint.direction());
    t.offset = d.offset_in_bytes();
    t.end = int64_t{d.offset_in_bytes()} + d.size_in_bytes();
    switch (meta->desc()) {
      case Desc::BASE_ADDRESS_INPUT_ACTIVATION:
      case Desc::BASE_ADDRESS_OUTPUT_ACTIVATION: {
        const bool input = meta->desc() == Desc::BASE_ADDRESS_INPUT_ACTIVATION;
        t.kind = input ? TransferKind::kInput : TransferKind::kOutput;
        t.batch = meta->batch();
        if (meta->name() != nullptr) {
          t.layer_name = meta->name()->string_view();
          const auto& layers = input ? inputs_ : outputs_;
          const auto found = layers.find(t.layer_name);
          if (found != layers.end()) t.layer = found->second;
        }
        break;
      }
      case Desc::BASE_ADDRESS_PARAMETER:
        t.kind = TransferKind::kParameter;
        break;
      case Desc::BASE_ADDRESS_SCRATCH:
        // The direction picks the stream; anything but INFEED goes out.
        t.kind = hint.direction() == dwn::Direction::INFEED ? TransferKind::kScratchIn
                                                            : TransferKind::kScratchOut;
        break;
      default:
        return Skip(index, SkipReason::kUnknownDesc);
    }
    plan.transfers.push_back(t);
  }

  void Instruction(uint32_t index, const dwn::DmaHint& hint, const dwn::InstructionHint& h) {
    Transfer t;
    t.kind = TransferKind::kInstructionChunk;
    t.hint = index;
    t.direction = static_cast<int16_t>(hint.direction());
    t.chunk = h.instruction_chunk_index();
    const auto* chunks = exe_.instruction_bitstreams();
    if (chunks != nullptr && t.chunk >= 0 && static_cast<uint32_t>(t.chunk) < chunks->size()) {
      const auto* bits = chunks->Get(static_cast<uint32_t>(t.chunk))->bitstream();
      t.end = bits == nullptr ? 0 : int64_t{bits->size()};
    }
    plan.transfers.push_back(t);
  }

  const dwn::Executable& exe_;
  std::map<std::string_view, const dwn::Layer*> inputs_, outputs_;
};

}  // namespace

std::string_view TransferKindName(TransferKind kind) {
  switch (kind) {
    case TransferKind::kInstructionChunk:
      return "instruction chunk";
    case TransferKind::kInput:
      return "input";
    case TransferKind::kOutput:
      return "output";
    case TransferKind::kParameter:
      return "parameter";
    case TransferKind::kScratchIn:
      return "scratch in";
    case TransferKind::kScratchOut:
      return "scratch out";
    case TransferKind::kFence:
      return "fence";
    case TransferKind::kInterrupt:
      return "interrupt";
  }
  return "?";
}

HintPlan PlanHints(const dwn::Executable& exe) {
  Walk walk(exe);
  const dwn::DmaHints* hints = exe.dma_hints();
  if (hints == nullptr || hints->hints() == nullptr) return std::move(walk.plan);
  walk.plan.present = true;
  walk.plan.fully_deterministic = hints->fully_deterministic();
  walk.plan.transfers.reserve(hints->hints()->size() + 1);
  for (uint32_t i = 0; i < hints->hints()->size(); ++i) walk.One(i, *hints->hints()->Get(i));
  // §6.2: ordering of what the hints leave out is enforced by a global fence.
  if (!walk.plan.fully_deterministic) walk.plan.transfers.push_back(Transfer{});
  return std::move(walk.plan);
}

Sweep SweepRanges(ByteRanges ranges, int64_t size) {
  // Compilers stream a buffer in order, which needs no sort.
  if (!std::is_sorted(ranges.begin(), ranges.end())) std::sort(ranges.begin(), ranges.end());
  Sweep out;
  int64_t covered = 0;  // [0, covered) is covered so far
  for (auto [offset, end] : ranges) {
    offset = std::clamp<int64_t>(offset, 0, size);
    end = std::clamp<int64_t>(end, 0, size);
    if (end <= offset) continue;
    if (offset > covered) out.gaps.emplace_back(covered, offset);
    if (offset < covered) out.overlaps.emplace_back(offset, std::min(end, covered));
    covered = std::max(covered, end);
  }
  if (covered < size) out.gaps.emplace_back(covered, size);
  return out;
}

}  // namespace accelcheck::edgetpu
