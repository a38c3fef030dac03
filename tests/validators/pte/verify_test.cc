// Flatbuffer verification limits through PteFormat().Validate: a valid
// program conforms at the smallest --max-depth and --max-tables with which
// it verifies, and one below reports the limit, not a malformed buffer.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "tests/support/describe.h"
#include "validators/core/core_rules.h"
#include "validators/pte/pte_format.h"
#include "validators/pte/rules.h"

namespace accelcheck::pte {
namespace {

// A plan with tensors, a list, a kernel call and a delegate: tables at
// every nesting level of the schema.
std::vector<uint8_t> Program() {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  const int x = p.AddPlannedTensor(model::kFloat, {2, 2});
  const int w = p.AddConstantTensor(model::kFloat, {2, 2}, std::vector<uint8_t>(16, 0));
  const int list = p.AddTensorList({x, w});
  const int y = p.AddPlannedTensor(model::kFloat, {2, 2});
  p.AddInput(x);
  p.AddOutput(y);
  p.KernelCall(p.AddOperator("conformance::mix", "out"), {list, y});
  p.DelegateCall(p.AddDelegate("ExampleBackend", std::vector<uint8_t>(32, 7),
                               DelegatePlace::kInline, {{"target", "npu"}}),
                 {y});
  return Serialize(r.Build());
}

DiagnosticSink ValidateWith(const std::vector<uint8_t>& bytes, const Limits& limits) {
  DiagnosticSink sink(Profile{}, "test.pte");
  ValidateContext context;
  context.limits = limits;
  PteFormat().Validate(InputBuffer::Copy(bytes), context, sink);
  return sink;
}

bool Reports(const DiagnosticSink& sink, const Rule& rule) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == &rule) return true;
  }
  return false;
}

using ::accelcheck::test::Describe;

// The smallest value of `limit` with which `bytes` report nothing.
uint64_t SmallestPassing(const std::vector<uint8_t>& bytes, uint64_t Limits::*limit) {
  Limits limits;
  for (limits.*limit = 1; limits.*limit < 100000; ++(limits.*limit)) {
    if (ValidateWith(bytes, limits).diagnostics().empty()) break;
  }
  return limits.*limit;
}

TEST(PteVerifierLimits, ProgramIsClean) {
  const DiagnosticSink sink = ValidateWith(Program(), Limits{});
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
}

TEST(PteVerifierLimits, MaxDepthAtAndBelowTheLimit) {
  const std::vector<uint8_t> bytes = Program();
  const uint64_t depth = SmallestPassing(bytes, &Limits::max_depth);
  ASSERT_GT(depth, 1u);
  ASSERT_LT(depth, Limits{}.max_depth);
  Limits below;
  below.max_depth = depth - 1;
  const DiagnosticSink sink = ValidateWith(bytes, below);
  EXPECT_TRUE(Reports(sink, core_rules::kLimitDepth)) << Describe(sink);
  EXPECT_FALSE(Reports(sink, core_rules::kLimitTables)) << Describe(sink);
  EXPECT_FALSE(Reports(sink, rules::kFlatbufferVerify)) << Describe(sink);
}

TEST(PteVerifierLimits, MaxTablesAtAndBelowTheLimit) {
  const std::vector<uint8_t> bytes = Program();
  const uint64_t tables = SmallestPassing(bytes, &Limits::max_tables);
  ASSERT_GT(tables, 10u);
  Limits below;
  below.max_tables = tables - 1;
  const DiagnosticSink sink = ValidateWith(bytes, below);
  EXPECT_TRUE(Reports(sink, core_rules::kLimitTables)) << Describe(sink);
  EXPECT_FALSE(Reports(sink, core_rules::kLimitDepth)) << Describe(sink);
  EXPECT_FALSE(Reports(sink, rules::kFlatbufferVerify)) << Describe(sink);
}

// A buffer that shares no table is told from a malformed one however far
// below its needs the limits are.
TEST(PteVerifierLimits, FarBelowTheLimitsIsStillALimit) {
  Limits tiny;
  tiny.max_depth = 1;
  tiny.max_tables = 1;
  const DiagnosticSink sink = ValidateWith(Program(), tiny);
  EXPECT_TRUE(Reports(sink, core_rules::kLimitDepth) || Reports(sink, core_rules::kLimitTables))
      << Describe(sink);
  EXPECT_FALSE(Reports(sink, rules::kFlatbufferVerify)) << Describe(sink);
}

// Relaxing the limits does not hide a malformed buffer.
TEST(PteVerifierLimits, MalformedBufferIsNotALimit) {
  std::vector<uint8_t> bytes = Program();
  const uint32_t root = bytes[0] | bytes[1] << 8 | bytes[2] << 16 | uint32_t{bytes[3]} << 24;
  bytes[root] = 0xff;  // the root's vtable offset points outside the buffer
  bytes[root + 3] = 0x7f;
  const DiagnosticSink sink = ValidateWith(bytes, Limits{});
  EXPECT_TRUE(Reports(sink, rules::kFlatbufferVerify)) << Describe(sink);
  EXPECT_FALSE(Reports(sink, core_rules::kLimitDepth)) << Describe(sink);
  EXPECT_FALSE(Reports(sink, core_rules::kLimitTables)) << Describe(sink);
}

}  // namespace
}  // namespace accelcheck::pte
