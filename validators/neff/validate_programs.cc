// Engine programs (docs/formats/neff.md §3, §4 F): 64-byte slots, and the
// PSEUDO_DMA_TRIGGER slots that start the DMA blocks.
#include <algorithm>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/text.h"
#include "validators/neff/program.h"
#include "validators/neff/rules.h"
#include "validators/neff/validate.h"

namespace accelcheck::neff {

using namespace rules;

namespace {

std::string SlotPath(uint64_t offset) { return Str("slot[", offset / kSlot, "]"); }

// NEFF-40, NEFF-50: the slots.
void CheckSlots(ByteView program, DiagnosticSink& sink) {
  if (program.size() % kSlot != 0) {
    const uint64_t tail = program.size() / kSlot * kSlot;
    sink.Report(kProgramSlots, Location{tail, program.size() - tail, SlotPath(tail)},
                Str("the program is ", program.size(), " bytes, not a whole number of ", kSlot,
                    "-byte slots"));
  }
  if (program.size() < kSlot || program[0] != kFirstOpcode) {
    sink.Report(kProgramFirstSlot, Location{0, std::nullopt, "slot[0]"},
                program.size() < kSlot
                    ? std::string("the program has no slot")
                    : Str("the first slot's opcode is ", Hex(program[0]), ", not 0xb1"));
  }
  uint64_t bad_lengths = 0, first_bad = 0;
  for (uint64_t at = 0; program.size() - at >= kSlot; at += kSlot) {
    if (program[at + 1] != kSlotWords && bad_lengths++ == 0) first_bad = at;
  }
  if (bad_lengths != 0) {
    sink.Report(
        kProgramSlots, Location{first_bad + 1, 1, SlotPath(first_bad)},
        Str("slot ", first_bad / kSlot, "'s length byte is ", Hex(program[first_bad + 1]),
            ", not 0x10 (", bad_lengths, bad_lengths == 1 ? " slot" : " slots", " in all)"));
  }
}

// Blocks and triggers of one engine per queue set and id. A queue's ids
// below its block count, every id of a file NEFF-47 accepts, are counted
// in a list; any other in a map.
class TriggerBalance {
 public:
  struct Count {
    int64_t blocks = 0, triggers = 0;
  };

  TriggerBalance(const std::vector<BlockKey>& blocks, const Definition& def)
      : def_(def), dense_(def.queues.size()) {
    for (const BlockKey& b : blocks) ++dense_[b.queue_index].blocks;
    for (Dense& queue : dense_) queue.counts.resize(static_cast<size_t>(queue.blocks));
    for (const BlockKey& b : blocks) {
      Count* count = At(b.queue_index, b.id);
      if (count == nullptr) count = &others_[{b.queue_index, b.id}];
      ++count->blocks;
    }
  }

  // The count of a (queue, id) some block has; null for any other.
  Count* Find(size_t queue, int64_t id) {
    Count* count = At(queue, id);
    if (count == nullptr) {
      const auto other = others_.find({queue, id});
      count = other == others_.end() ? nullptr : &other->second;
    }
    return count != nullptr && count->blocks != 0 ? count : nullptr;
  }

  // Each (queue name, id) whose blocks and triggers differ, with blocks
  // minus triggers, sorted.
  std::vector<std::tuple<std::string_view, int64_t, int64_t>> Unbalanced() const {
    std::vector<std::tuple<std::string_view, int64_t, int64_t>> out;
    const auto add = [&](size_t queue, int64_t id, const Count& c) {
      if (c.blocks != 0 && c.blocks != c.triggers)
        out.emplace_back(def_.queues[queue].name, id, c.blocks - c.triggers);
    };
    for (size_t q = 0; q < dense_.size(); ++q) {
      for (size_t id = 0; id < dense_[q].counts.size(); ++id)
        add(q, static_cast<int64_t>(id), dense_[q].counts[id]);
    }
    for (const auto& [key, count] : others_) add(key.first, key.second, count);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  struct Dense {
    int64_t blocks = 0;
    std::vector<Count> counts;
  };
  struct KeyHash {
    size_t operator()(const std::pair<size_t, int64_t>& k) const {
      return k.first ^ (static_cast<size_t>(k.second) * 0x9E3779B97F4A7C15ull);
    }
  };

  Count* At(size_t queue, int64_t id) {
    if (queue >= dense_.size() || id < 0) return nullptr;
    std::vector<Count>& counts = dense_[queue].counts;
    return static_cast<uint64_t>(id) < counts.size() ? &counts[static_cast<size_t>(id)] : nullptr;
  }

  const Definition& def_;
  std::vector<Dense> dense_;
  std::unordered_map<std::pair<size_t, int64_t>, Count, KeyHash> others_;
};

// NEFF-41 and NEFF-48: each trigger names one of the engine's blocks on a
// queue it owns, every block is triggered as often as it exists, and each
// queue's ids run 0, 1, 2, ...
void CheckTriggers(const Subgraph& sg, size_t e, ByteView program, DiagnosticSink& sink) {
  const Definition& def = *sg.def;
  TriggerBalance balance(sg.blocks[e], def);
  std::vector<uint32_t> next_id(def.queues.size());  // by queue index
  bool order_reported = false;
  ForEachTrigger(program, [&](const Trigger& t) {
    const auto at = [&] { return Location{t.offset + kQueueAt, std::nullopt, SlotPath(t.offset)}; };
    const QueueSet* queue = def.FindQueue(t.queue);
    if (queue == nullptr) {
      sink.Report(kTriggerTarget, at(),
                  Str("the trigger names queue ", Quoted(t.queue), ", no queue set of ",
                      Quoted(sg.definition)));
      return;
    }
    const auto queue_index = static_cast<size_t>(queue - def.queues.data());
    TriggerBalance::Count* block = balance.Find(queue_index, static_cast<int64_t>(t.block_id));
    if (block != nullptr) ++block->triggers;
    if (queue->owner && queue->owner->value != kEngineKeys[e]) {
      sink.Report(kTriggerTarget, at(),
                  Str("the trigger names queue ", Quoted(t.queue), ", owned by ",
                      Quoted(queue->owner->value), ", not by ", Quoted(kEngineKeys[e])));
      return;
    }
    if (block == nullptr) {
      sink.Report(kTriggerTarget, Location{t.offset + kBlockIdAt, 4, SlotPath(t.offset)},
                  Str("the trigger names block ", t.block_id, " on queue ", Quoted(t.queue),
                      ", which the engine's JSON does not have"));
      return;
    }
    uint32_t& expected = next_id[queue_index];
    if (t.block_id != expected && !order_reported) {
      sink.Report(kTriggerOrder, Location{t.offset + kBlockIdAt, 4, SlotPath(t.offset)},
                  Str("queue ", Quoted(t.queue), " triggers block ", t.block_id, " where block ",
                      expected, " comes next"));
      order_reported = true;
    }
    expected = t.block_id + 1;
  });
  for (const auto& [queue, id, left] : balance.Unbalanced()) {
    sink.Report(kTriggerCount, Location{0, std::nullopt, ""},
                Str("block ", id, " of queue ", Quoted(queue), " is triggered ",
                    left > 0 ? "fewer" : "more", " times than it exists (", left > 0 ? left : -left,
                    left == 1 || left == -1 ? " time" : " times", ")"));
  }
}

}  // namespace

std::string ProgramMember(const Subgraph& sg, size_t e) {
  const auto& program = sg.def->engine_program[e];
  return program ? sg.Member(program->value) : std::string();
}

void CheckProgram(Neff& neff, const Subgraph& sg, size_t e) {
  const std::string member = ProgramMember(sg, e);
  const tar::Member* program = member.empty() ? nullptr : neff.container.Find(member);
  if (program == nullptr) return;
  DiagnosticSink& sink = neff.In(member);
  CheckSlots(program->data, sink);
  CheckTriggers(sg, e, program->data, sink);
}

}  // namespace accelcheck::neff
