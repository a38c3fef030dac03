// Engine programs (docs/formats/neff.md §3, §4 F): 64-byte slots, and the
// PSEUDO_DMA_TRIGGER slots that start the DMA blocks.
#include <algorithm>
#include <string_view>
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

// NEFF-40, NEFF-50: the slots, and the triggers among them.
std::vector<Trigger> ReadSlots(ByteView program, DiagnosticSink& sink) {
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
  return ReadTriggers(program);
}

// NEFF-41 and NEFF-48: each trigger names one of the engine's blocks on a
// queue it owns, every block is triggered as often as it exists, and each
// queue's ids run 0, 1, 2, ...
// A block of one engine: its queue (viewing the block's or the trigger's
// name) and its id.
struct QueueId {
  std::string_view queue;
  int64_t id = 0;
  bool operator==(const QueueId&) const = default;
  auto operator<=>(const QueueId&) const = default;
};
struct QueueIdHash {
  size_t operator()(const QueueId& k) const {
    return std::hash<std::string_view>()(k.queue) ^
           (std::hash<int64_t>()(k.id) * 0x9E3779B97F4A7C15ull);
  }
};

void CheckTriggers(const Subgraph& sg, size_t e, const std::vector<Trigger>& triggers,
                   DiagnosticSink& sink) {
  const Definition& def = *sg.def;
  std::unordered_map<QueueId, int64_t, QueueIdHash> balance;  // blocks minus triggers
  balance.reserve(sg.blocks[e].size());
  for (const BlockKey& b : sg.blocks[e]) ++balance[{b.queue, b.id}];
  std::unordered_map<std::string_view, uint32_t> next_id;
  bool order_reported = false;
  for (const Trigger& t : triggers) {
    const Location at{t.offset + kQueueAt, std::nullopt, SlotPath(t.offset)};
    const QueueSet* queue = def.FindQueue(t.queue);
    if (queue == nullptr) {
      sink.Report(kTriggerTarget, at,
                  Str("the trigger names queue ", Quoted(t.queue), ", no queue set of ",
                      Quoted(sg.definition)));
      continue;
    }
    const auto block = balance.find({t.queue, static_cast<int64_t>(t.block_id)});
    if (block != balance.end()) --block->second;
    if (queue->owner && queue->owner->value != kEngineKeys[e]) {
      sink.Report(kTriggerTarget, at,
                  Str("the trigger names queue ", Quoted(t.queue), ", owned by ",
                      Quoted(queue->owner->value), ", not by ", Quoted(kEngineKeys[e])));
      continue;
    }
    if (block == balance.end()) {
      sink.Report(kTriggerTarget, Location{t.offset + kBlockIdAt, 4, SlotPath(t.offset)},
                  Str("the trigger names block ", t.block_id, " on queue ", Quoted(t.queue),
                      ", which the engine's JSON does not have"));
      continue;
    }
    uint32_t& expected = next_id[t.queue];
    if (t.block_id != expected && !order_reported) {
      sink.Report(kTriggerOrder, Location{t.offset + kBlockIdAt, 4, SlotPath(t.offset)},
                  Str("queue ", Quoted(t.queue), " triggers block ", t.block_id, " where block ",
                      expected, " comes next"));
      order_reported = true;
    }
    expected = t.block_id + 1;
  }
  // Reported by queue name and id, whatever the map's order.
  std::vector<std::pair<QueueId, int64_t>> unbalanced;
  for (const auto& [key, left] : balance) {
    if (left != 0) unbalanced.emplace_back(key, left);
  }
  std::sort(unbalanced.begin(), unbalanced.end());
  for (const auto& [key, left] : unbalanced) {
    sink.Report(kTriggerCount, Location{0, std::nullopt, ""},
                Str("block ", key.id, " of queue ", Quoted(key.queue), " is triggered ",
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
  const std::vector<Trigger> triggers = ReadSlots(program->data, sink);
  CheckTriggers(sg, e, triggers, sink);
}

}  // namespace accelcheck::neff
