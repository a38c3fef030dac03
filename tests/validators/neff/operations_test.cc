// The arithmetic descriptors' fields (NEFF-38) and the CCE sources of
// from_arr, each of which is checked as a from side of its own (NEFF-36,
// NEFF-37, NEFF-39, NEFF-53): docs/formats/neff.md §2.11.
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

// x and z, float32 inputs of 16 elements, into y of 16: the SP's queue
// holds `desc` as its one block.
nc::Spec SpecWith(nc::Descriptor desc) {
  nc::Spec spec = nc::Trn1Spec();
  spec.inputs = {{"x", "float32", {16}}, {"z", "float32", {16}}};
  spec.outputs = {{"y", "float32", {16}}};
  spec.queues = {{"qSPIO0", nc::Engine::kSp, "in"}};
  spec.blocks = {{"qSPIO0", {std::move(desc)}}};
  return spec;
}

nc::Side Whole(const std::string& var) { return {var, 0, {64}, {1}, "float32"}; }

nc::Descriptor Sum(std::vector<nc::Side> sources) {
  nc::Descriptor d;
  d.op = "add";
  d.from_arr = std::move(sources);
  d.to = Whole("y");
  return d;
}

// The validation of `spec` under --strict, and its findings but the hash
// order's note (NEFF-7), which every built file has.
struct Checked {
  DiagnosticSink sink;
  std::vector<Diagnostic> found;
};

Checked Check(const nc::Spec& spec) {
  Checked c{DiagnosticSink(Profile{.strict = true}, "ops.neff"), {}};
  NeffFormat().Validate(InputBuffer::Copy(nc::Write(nc::Build(spec))), ValidateContext{}, c.sink);
  for (const Diagnostic& d : c.sink.diagnostics()) {
    if (d.rule != &rules::kHashOrder) c.found.push_back(d);
  }
  return c;
}

// Exactly one finding: `rule` at the first descriptor's `suffix`.
void ExpectOnly(const nc::Spec& spec, const Rule& rule, const std::string& suffix) {
  const Checked c = Check(spec);
  ASSERT_EQ(c.found.size(), 1u) << test::Describe(c.sink);
  EXPECT_EQ(c.found[0].rule, &rule) << test::Describe(c.sink);
  EXPECT_EQ(c.found[0].location.path, "/dma/0/desc/0" + suffix) << test::Describe(c.sink);
}

void ExpectValid(const nc::Spec& spec) {
  const Checked c = Check(spec);
  EXPECT_TRUE(c.found.empty()) << test::Describe(c.sink);
}

TEST(NeffOperations, ArithmeticDescriptorsWithTheirFieldsAreValid) {
  ExpectValid(SpecWith(Sum({Whole("x"), Whole("z")})));
  nc::Descriptor fma = Sum({Whole("x")});
  fma.op = "fma";
  fma.scale = 0.5;
  fma.scale_dtype = "float32";
  ExpectValid(SpecWith(fma));
  for (const char* op : {"min", "max"}) {
    for (const char* dtype : {"float32", "int32", "uint32"}) {
      nc::Descriptor d = Sum({Whole("x"), Whole("z")});
      d.op = op;
      d.constant = 3;
      d.constant_dtype = dtype;
      SCOPED_TRACE(std::string(op) + " " + dtype);
      ExpectValid(SpecWith(d));
    }
  }
}

TEST(NeffOperations, TheScaleIsAFloat32) {
  nc::Descriptor d = Sum({Whole("x")});
  d.op = "fma";
  d.scale = 2;
  d.scale_dtype = "float16";
  ExpectOnly(SpecWith(d), rules::kDescOp, "/scale_dtype");
}

TEST(NeffOperations, TheConstantIsAFloat32OrA32BitInteger) {
  nc::Descriptor d = Sum({Whole("x")});
  d.op = "max";
  d.constant = 0;
  d.constant_dtype = "int8";
  ExpectOnly(SpecWith(d), rules::kDescOp, "/constant_dtype");
}

TEST(NeffOperations, AConstantDtypeRequiresItsConstant) {
  nc::Descriptor d = Sum({Whole("x")});
  d.op = "min";
  d.constant_dtype = "float32";
  ExpectOnly(SpecWith(d), rules::kDescOp, "/constant_dtype");
}

TEST(NeffOperations, ASourceOutsideItsVariableIsReportedAtTheSource) {
  nc::Side late = Whole("z");
  late.off = 4;
  ExpectOnly(SpecWith(Sum({Whole("x"), late})), rules::kDescBounds, "/from_arr/1/from_off");
}

TEST(NeffOperations, ASourceOfAnotherElementCountIsReported) {
  nc::Side half = Whole("z");
  half.sizes = {32};
  ExpectOnly(SpecWith(Sum({Whole("x"), half})), rules::kDescElements, "/from_arr/1");
}

TEST(NeffOperations, ASourceWithAnUnequalPatternIsReported) {
  nc::Side bad = Whole("z");
  bad.steps = {1, 64};
  ExpectOnly(SpecWith(Sum({Whole("x"), bad})), rules::kDescPattern, "/from_arr/1/from_sizes");
}

TEST(NeffOperations, ASourceThatReadsAnOutputIsReported) {
  ExpectOnly(SpecWith(Sum({Whole("x"), Whole("y")})), rules::kDescReadsOutput, "/from_arr/1/from");
}

TEST(NeffOperations, ASourceOfAnUndeclaredVariableIsReported) {
  ExpectOnly(SpecWith(Sum({Whole("x"), Whole("nowhere")})), rules::kDescVariable,
             "/from_arr/1/from");
}

TEST(NeffOperations, ASourceNeedsItsOffsetSizesAndSteps) {
  nc::Neff neff = nc::Build(SpecWith(Sum({Whole("x"), Whole("z")})));
  nc::Json* sp = nc::JsonOf(neff, "sg00/SP.json");
  ASSERT_NE(sp, nullptr);
  (*sp)["dma"][0]["desc"][0]["from_arr"][1].erase("from_steps");
  DiagnosticSink sink(Profile{.strict = true}, "ops.neff");
  NeffFormat().Validate(InputBuffer::Copy(nc::Write(neff)), ValidateContext{}, sink);
  bool missing = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    missing |= d.rule == &rules::kJsonMissingKey && d.location.path == "/dma/0/desc/0/from_arr/1";
  }
  EXPECT_TRUE(missing) << test::Describe(sink);
}

}  // namespace
}  // namespace accelcheck::neff
