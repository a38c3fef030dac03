// The trigger balance (NEFF-48): each block is triggered as often as it
// exists, also when its id is past its queue's block count, where the
// count is kept apart from the dense ids of a valid file
// (validators/neff/validate_programs.cc).
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/neff/builder.h"
#include "conformance/neff/model.h"
#include "tests/support/describe.h"
#include "validators/neff/neff_format.h"
#include "validators/neff/rules.h"

namespace accelcheck::neff {
namespace {

namespace nc = conformance;

// SP's queue with two blocks, ids 0 and 1, each triggered once.
nc::Neff TwoBlocks() {
  nc::Spec spec = nc::Trn1Spec();
  spec.inputs = {{"x", "float32", {16}}};
  spec.outputs = {{"y", "float32", {16}}};
  spec.queues = {{"qSPIO0", nc::Engine::kSp, "in"}};
  for (int i = 0; i < 2; ++i) {
    spec.blocks.push_back({"qSPIO0", {nc::MoveRows("x", 0, "float32", "y", 0, "float32", 1, 16)}});
  }
  return nc::Build(spec);
}

std::vector<uint8_t>& Program(nc::Neff& neff) {
  const nc::Json& def = *nc::JsonOf(neff, "sg00/def.json");
  nc::Member* program = nc::Find(neff, "sg00/" + def["sp_instr"].get<std::string>());
  return std::get<std::vector<uint8_t>>(program->content);
}

// Sets the block id of the program's `n`th trigger.
void SetTriggerId(std::vector<uint8_t>& program, size_t n, uint32_t id) {
  size_t seen = 0;
  for (size_t at = 0; at + 64 <= program.size(); at += 64) {
    if (program[at] != nc::kOpcodeTrigger || seen++ != n) continue;
    std::memcpy(&program[at + nc::trigger_offset::kBlockId], &id, 4);  // little-endian host
    return;
  }
  FAIL() << "no trigger " << n;
}

std::vector<const Rule*> Rules(const nc::Neff& neff, DiagnosticSink& sink) {
  NeffFormat().Validate(InputBuffer::Copy(nc::Write(neff)), ValidateContext{}, sink);
  std::vector<const Rule*> rules;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule != &rules::kHashOrder) rules.push_back(d.rule);
  }
  return rules;
}

TEST(NeffTriggers, ABlockIdPastItsQueuesCountIsBalancedByItsTrigger) {
  nc::Neff neff = TwoBlocks();
  (*nc::JsonOf(neff, "sg00/SP.json"))["dma"][1]["id"] = 7;
  SetTriggerId(Program(neff), 1, 7);
  DiagnosticSink sink(Profile{}, "t.neff");
  // The id breaks NEFF-49, NEFF-34, NEFF-47 and the trigger order; every
  // trigger names a block, and each block is triggered once.
  EXPECT_EQ(Rules(neff, sink),
            (std::vector<const Rule*>{&rules::kBlockSemaphoreIndex, &rules::kBlockIds,
                                      &rules::kBlockQueueId, &rules::kTriggerOrder}))
      << test::Describe(sink);
}

TEST(NeffTriggers, ABlockIdPastItsQueuesCountTriggeredTwiceIsReported) {
  nc::Neff neff = TwoBlocks();
  (*nc::JsonOf(neff, "sg00/SP.json"))["dma"][1]["id"] = 7;
  SetTriggerId(Program(neff), 0, 7);
  SetTriggerId(Program(neff), 1, 7);
  DiagnosticSink sink(Profile{}, "t.neff");
  Rules(neff, sink);
  std::vector<std::string> counts;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == &rules::kTriggerCount) counts.push_back(d.message);
  }
  EXPECT_EQ(counts, (std::vector<std::string>{
                        "block 0 of queue \"qSPIO0\" is triggered fewer times than it exists (1 "
                        "time)",
                        "block 7 of queue \"qSPIO0\" is triggered more times than it exists (1 "
                        "time)"}))
      << test::Describe(sink);
}

TEST(NeffTriggers, ATriggerOfABlockNoQueueHasIsATargetFinding) {
  nc::Neff neff = TwoBlocks();
  SetTriggerId(Program(neff), 1, 5);
  DiagnosticSink sink(Profile{}, "t.neff");
  EXPECT_EQ(Rules(neff, sink),
            (std::vector<const Rule*>{&rules::kTriggerTarget, &rules::kTriggerCount}))
      << test::Describe(sink);
}

}  // namespace
}  // namespace accelcheck::neff
