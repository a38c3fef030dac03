// Two facts of newer compilers (docs/formats/neff.md): a state-buffer step
// that is a multiple of 2^18 moves whole partitions, 2^24 being 64 of them
// (§2.13, NEFF-39), and a DGE table has no size but a list of the device
// variables it holds, each once (§2.7, NEFF-26, NEFF-29).
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "conformance/neff/builder.h"
#include "conformance/neff/model.h"
#include "tests/support/describe.h"
#include "validators/neff/neff_format.h"
#include "validators/neff/rules.h"

namespace accelcheck::neff {
namespace {

namespace nc = conformance;

// x, a float32 input of 16 elements, and y, an output of as many; SP runs
// `desc` as its one block.
nc::Neff Built(nc::Descriptor desc) {
  nc::Spec spec = nc::Trn1Spec();
  spec.inputs = {{"x", "float32", {16}}};
  spec.outputs = {{"y", "float32", {16}}};
  spec.queues = {{"qSPIO0", nc::Engine::kSp, "in"}};
  spec.blocks = {{"qSPIO0", {std::move(desc)}}};
  return nc::Build(spec);
}

// The rules of the errors the default profile reports.
std::set<std::string> Errors(const nc::Neff& neff) {
  DiagnosticSink sink(Profile{}, "n.neff");
  NeffFormat().Validate(InputBuffer::Copy(nc::Write(neff)), ValidateContext{}, sink);
  std::set<std::string> errors;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity == Severity::kError) errors.insert(std::string(d.rule->id));
  }
  return errors;
}

// `rows` rows of 4 float32 of x into partitions 0, 64, 128, ... of the
// state buffer.
nc::Descriptor RowsEvery64Partitions(uint64_t rows) {
  nc::Descriptor d;
  d.from = {"x", 0, {16, rows}, {1, 16}, "float32"};
  d.to = {"SB", 0, {16, rows}, {1, int64_t{1} << 24}, "float32"};
  return d;
}

TEST(NeffStateBuffer, AStepOf2To24Moves64Partitions) {
  EXPECT_EQ(Errors(Built(RowsEvery64Partitions(2))), std::set<std::string>{});
  // Partitions 0, 64 and 128: the last is past the state buffer's 128.
  EXPECT_EQ(Errors(Built(RowsEvery64Partitions(3))), std::set<std::string>{"neff.desc.bounds"});
}

// x copied to y, and a DGE table `list` added to def.json.
nc::Neff WithDgeTable(const nc::Json& list) {
  nc::Descriptor copy;
  copy.from = {"x", 0, {64}, {1}, "float32"};
  copy.to = {"y", 0, {64}, {1}, "float32"};
  nc::Neff neff = Built(copy);
  nc::Json& vars = (*nc::JsonOf(neff, "sg00/def.json"))["var"];
  vars["DGETable0"] = {{"type", "dge-table"}, {"var_id", vars.size()}, {"list", list}};
  return neff;
}

int64_t VarId(const nc::Neff& neff, const std::string& name) {
  return (*nc::JsonOf(neff, "sg00/def.json"))["var"][name]["var_id"].get<int64_t>();
}

TEST(NeffDgeTable, ItHasNoSizeAndListsDeviceVariablesOnce) {
  const nc::Neff base = WithDgeTable(nc::Json::array());
  const int64_t x = VarId(base, "x"), y = VarId(base, "y"), sb = VarId(base, "SB");
  EXPECT_EQ(Errors(WithDgeTable({x, y})), std::set<std::string>{});
  for (const nc::Json& list :
       {nc::Json::array(), nc::Json{x, x}, nc::Json{x, sb}, nc::Json{x, int64_t{99}}}) {
    EXPECT_EQ(Errors(WithDgeTable(list)), std::set<std::string>{"neff.var.type_field"})
        << list.dump();
  }
}

}  // namespace
}  // namespace accelcheck::neff
