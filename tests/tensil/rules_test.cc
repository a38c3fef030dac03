// One negative test per rule: the tiny valid model, one change, and the rule
// id and object path it must give. The base itself reports nothing.
#include <functional>
#include <set>

#include <gtest/gtest.h>

#include "tests/tensil/fixture.h"
#include "validators/tensil/rules.h"

namespace accelcheck::tensil {
namespace {

using fixture::Case;
using fixture::Describe;
using fixture::ValidateCase;

struct RuleCase {
  const char* name;
  std::function<void(Case&)> change;
  const Rule* rule;
  std::string path;
};

void Append(Case& c, const std::string& line) { c.program.push_back(line); }

std::vector<RuleCase> Cases() {
  using nlohmann::json;
  return {
      {"key_missing", [](Case& c) { c.model.erase("name"); }, &rules::kKeyMissing, "name"},
      {"key_type", [](Case& c) { c.model["inputs"][0]["base"] = "0"; }, &rules::kKeyType, "inputs[0].base"},
      {"key_negative", [](Case& c) { c.model["outputs"][0]["size"] = -1; }, &rules::kKeyType, "outputs[0].size"},
      {"unknown_key", [](Case& c) { c.model["extra"] = 1; }, &rules::kUnknownKey, "extra"},
      {"legacy_schema", [](Case& c) { c.model.erase("load_consts_to_local"); }, &rules::kLegacySchema,
       "load_consts_to_local"},
      {"arch_positive", [](Case& c) { c.arch()["local_depth"] = 0; }, &rules::kArchPositive, "arch.local_depth"},
      {"arch_data_type", [](Case& c) { c.arch()["data_type"] = "FP64"; }, &rules::kArchDataType, "arch.data_type"},
      {"arch_threads", [](Case& c) { c.arch()["number_of_threads"] = 3; }, &rules::kArchThreads,
       "arch.number_of_threads"},
      {"arch_header_width", [](Case& c) { c.arch()["number_of_threads"] = 4; }, &rules::kArchHeaderWidth,
       "arch.number_of_threads"},
      {"arch_operand_width",
       [](Case& c) {
         c.arch()["dram0_depth"] = uint64_t{1} << 62;
         c.arch()["stride1_depth"] = 1 << 20;
       },
       &rules::kArchOperandWidth, "arch"},
      {"arch_float32", [](Case& c) { c.arch()["data_type"] = "FLOAT32"; }, &rules::kArchFloat32, "arch.data_type"},
      {"arch_array_size_range", [](Case& c) { c.arch()["array_size"] = 1; }, &rules::kArchArraySizeRange,
       "arch.array_size"},
      {"arch_depth_range", [](Case& c) { c.arch()["simd_registers_depth"] = 17; }, &rules::kArchDepthRange,
       "arch.simd_registers_depth"},
      {"file_missing", [](Case& c) { c.model["prog"]["file_name"] = "absent.tprog"; }, &rules::kModelFileMissing,
       "prog.file_name"},
      {"prog_size",
       [](Case& c) {
         c.fix_prog_size = false;
         c.model["prog"]["size"] = 4;
       },
       &rules::kModelProgSize, "prog.size"},
      {"prog_empty", [](Case& c) { c.program.clear(); }, &rules::kModelProgEmpty, "prog.size"},
      {"prog_multiple",
       [](Case& c) {
         c.fix_prog_size = false;
         c.model["prog"]["size"] = 31;
       },
       &rules::kModelProgMultiple, "prog.size"},
      {"consts_empty", [](Case& c) { c.model["consts"] = json::array(); }, &rules::kModelConstsEmpty, "consts"},
      {"consts_size", [](Case& c) { c.model["consts"][0]["size"] = 0; }, &rules::kModelConstsSize,
       "consts[0].size"},
      {"consts_count", [](Case& c) { c.model["consts"].push_back(c.model["consts"][0]); },
       &rules::kModelConstsCount, "consts"},
      {"consts_base", [](Case& c) { c.model["consts"][0]["base"] = 1; }, &rules::kModelConstsBase,
       "consts[0].base"},
      {"consts_range", [](Case& c) { c.model["consts"][0]["size"] = 300; }, &rules::kModelConstsRange, "consts[0]"},
      {"io_empty", [](Case& c) { c.model["inputs"] = json::array(); }, &rules::kModelIoEmpty, "inputs"},
      {"io_name", [](Case& c) { c.model["inputs"][0]["name"] = ""; }, &rules::kModelIoName, "inputs[0].name"},
      {"io_size", [](Case& c) { c.model["outputs"][0]["size"] = 0; }, &rules::kModelIoSize, "outputs[0].size"},
      {"io_range", [](Case& c) { c.model["outputs"][0]["base"] = 256; }, &rules::kModelIoRange, "outputs[0]"},
      {"io_count",
       [](Case& c) {
         for (int i = 1; i <= 4; ++i) c.model["inputs"].push_back({{"name", "x"}, {"base", 10 * i}, {"size", 1}});
       },
       &rules::kModelIoCount, "inputs"},
      {"io_overlap", [](Case& c) { c.model["inputs"].push_back({{"name", "z"}, {"base", 0}, {"size", 1}}); },
       &rules::kModelIoOverlap, "inputs[1]"},
      {"io_order",
       [](Case& c) {
         c.model["inputs"][0]["base"] = 10;
         c.model["inputs"].push_back({{"name", "z"}, {"base", 0}, {"size", 1}});
       },
       &rules::kModelIoOrder, "inputs[1].base"},
      {"probe_rows_io", [](Case& c) { c.model["inputs"][0]["base"] = 254; }, &rules::kModelProbeRows, "inputs[0]"},
      {"probe_rows_program", [](Case& c) { Append(c, "DataMove local->dram0 local=4 dram0=255 size=0"); },
       &rules::kModelProbeRows, "prog[8]"},
      {"tdata_size", [](Case& c) { c.tdata.resize(10); }, &rules::kTdataSize, "consts[0]"},
      {"tdata_fp18_padding",
       [](Case& c) {
         c.arch()["data_type"] = "FP18BP10";
         c.tdata.assign(24, 0);
         c.tdata[7] = 0x80;
       },
       &rules::kTdataFp18Padding, "consts[0].data"},
      {"tdata_nonfinite",
       [](Case& c) {
         c.arch()["data_type"] = "FLOAT32";
         c.tdata.assign(24, 0);
         c.tdata[4] = 0x7f;
         c.tdata[5] = 0x80;
       },
       &rules::kTdataNonFinite, "consts[0].data"},
      {"prog_truncated", [](Case& c) { c.trailing = {0, 0}; }, &rules::kProgTruncated, "prog"},
      {"instr_tid", [](Case& c) { Append(c, "Wait thread=0 tid=1"); }, &rules::kInstrTid, "prog[8]"},
      {"instr_opcode", [](Case& c) { Append(c, ".bytes 00 00 00 00 00 50"); }, &rules::kInstrOpcode, "prog[8]"},
      {"instr_flags", [](Case& c) { Append(c, ".bytes 00 00 00 00 00 24"); }, &rules::kInstrFlags, "prog[8]"},
      {"instr_padding", [](Case& c) { Append(c, "MatMul local=3 acc=2 size=0 pad0=1"); }, &rules::kInstrPadding,
       "prog[8]"},
      {"instr_stride",
       [](Case& c) {
         c.arch()["stride0_depth"] = 3;
         Append(c, "MatMul local=0 acc=2 size=0 stride0=3");
       },
       &rules::kInstrStride, "prog[8]"},
      {"instr_local_range", [](Case& c) { Append(c, "MatMul local=250 acc=2 size=3 stride0=1"); },
       &rules::kInstrLocalRange, "prog[8]"},
      {"instr_other_range", [](Case& c) { Append(c, "DataMove local->dram0 local=4 dram0=250 size=3 stride1=1"); },
       &rules::kInstrOtherRange, "prog[8]"},
      {"instr_size",
       [](Case& c) {
         c.arch()["accumulator_depth"] = 16;
         Append(c, "MatMul local=0 acc=0 size=16");
       },
       &rules::kInstrSize, "prog[8]"},
      {"instr_zeroes_operand", [](Case& c) { Append(c, "MatMul zeroes local=5 acc=2 size=0"); },
       &rules::kInstrZeroesOperand, "prog[8]"},
      {"loadweights_rows", [](Case& c) { Append(c, "LoadWeights local=0 size=4"); }, &rules::kLoadWeightsRows,
       "prog[8]"},
      {"loadweights_oversize", [](Case& c) { Append(c, "LoadWeights local=0 size=3"); },
       &rules::kLoadWeightsOversize, "prog[8]"},
      {"loadweights_operand2", [](Case& c) { Append(c, "LoadWeights local=0 size=2 operand2=1"); },
       &rules::kLoadWeightsOperand2, "prog[8]"},
      {"simd_acc_range",
       [](Case& c) {
         c.arch()["accumulator_depth"] = 16;
         Append(c, "SIMD read write op=max left=in right=r1 dest=out wacc=20 racc=1");
       },
       &rules::kSimdAccRange, "prog[8]"},
      {"simd_stride", [](Case& c) { Append(c, "SIMD read write op=move left=in right=in dest=out wacc=2 racc=1 stride0=1"); },
       &rules::kSimdStride, "prog[8]"},
      {"simd_register",
       [](Case& c) {
         c.arch()["simd_registers_depth"] = 2;
         Append(c, "SIMD op=zero left=in right=in dest=r3");
       },
       &rules::kSimdRegister, "prog[8]"},
      {"simd_unused_address", [](Case& c) { Append(c, "SIMD op=zero left=in right=in dest=r1 wacc=3"); },
       &rules::kSimdUnusedAddress, "prog[8]"},
      {"simd_read_unused", [](Case& c) { Append(c, "SIMD read op=add left=r1 right=r1 dest=r1 racc=1"); },
       &rules::kSimdReadWithoutInput, "prog[8]"},
      {"simd_write_dest", [](Case& c) { Append(c, "SIMD read write op=move left=in right=in dest=r1 wacc=2 racc=1"); },
       &rules::kSimdWriteDest, "prog[8]"},
      {"simd_accumulate", [](Case& c) { Append(c, "SIMD read accumulate op=move left=in right=in dest=r1 racc=1"); },
       &rules::kSimdAccumulate, "prog[8]"},
      {"simd_input_unread", [](Case& c) { Append(c, "SIMD op=move left=in right=in dest=r1"); },
       &rules::kSimdInputWithoutRead, "prog[8]"},
      {"simd_zero_sources", [](Case& c) { Append(c, "SIMD op=zero left=r1 right=in dest=r1"); },
       &rules::kSimdZeroSources, "prog[8]"},
      {"simd_dead", [](Case& c) { Append(c, "SIMD read op=move left=in right=in dest=out racc=1"); },
       &rules::kSimdDead, "prog[8]"},
      {"simd_op_unemulated", [](Case& c) { Append(c, "SIMD read write op=abs left=in right=in dest=out wacc=2 racc=1"); },
       &rules::kSimdOpUnemulated, "prog[8]"},
      {"wait", [](Case& c) { Append(c, ".bytes 01 00 00 00 00 00"); }, &rules::kWaitOperands, "prog[8]"},
      {"flow_read_uninitialized", [](Case& c) { Append(c, "DataMove dram0->local local=5 dram0=7 size=0"); },
       &rules::kFlowUninitialized, "prog[8]"},
      {"flow_output_unwritten", [](Case& c) { c.program.pop_back(); }, &rules::kFlowOutputUnwritten, "outputs[0]"},
      {"flow_reset_weights",
       [](Case& c) { c.program.insert(c.program.begin() + 2, "MatMul local=3 acc=5 size=0"); },
       &rules::kFlowResetWeights, "prog[2]"},
      {"flow_accumulate_unwritten", [](Case& c) { Append(c, "MatMul accumulate local=3 acc=9 size=0"); },
       &rules::kFlowAccumulateUnwritten, "prog[8]"},
  };
}

TEST(TensilRules, BaseReportsNothing) {
  const auto result = ValidateCase(Case{});
  EXPECT_TRUE(result.sink.diagnostics().empty()) << Describe(result.sink);
}

TEST(TensilRules, EachChangeGivesItsRuleAtItsPath) {
  for (const RuleCase& rc : Cases()) {
    Case c;
    rc.change(c);
    const auto result = ValidateCase(c);
    bool found = false;
    for (const Diagnostic& d : result.sink.diagnostics()) {
      if (d.rule == rc.rule && d.location.path == rc.path) found = true;
    }
    EXPECT_TRUE(found) << rc.name << ": expected " << rc.rule->id << " at " << rc.path << ", got:\n"
                       << Describe(result.sink);
  }
}

// Instruction diagnostics carry the instruction's byte range in the .tprog.
TEST(TensilRules, InstructionLocationsAreByteRanges) {
  Case c;
  Append(c, ".bytes 00 00 00 00 00 50");
  const auto result = ValidateCase(c);
  ASSERT_FALSE(result.sink.diagnostics().empty());
  const Location& where = result.sink.diagnostics().front().location;
  EXPECT_EQ(where.offset, 8u * 6);
  EXPECT_EQ(where.length, 6u);
}

// Every rule in the table has a negative case above (JSON syntax and the
// arch mismatch have their own tests below).
TEST(TensilRules, EveryRuleHasANegativeCase) {
  std::set<std::string_view> covered = {rules::kJsonSyntax.id, rules::kArchMismatch.id};
  for (const RuleCase& rc : Cases()) covered.insert(rc.rule->id);
  for (const Rule* rule : AllRules()) EXPECT_TRUE(covered.count(rule->id)) << rule->id;
}

TEST(TensilRules, JsonSyntax) {
  for (std::string text : {std::string("{"), std::string("[1]"), std::string(100, '[') + std::string(100, ']')}) {
    DiagnosticSink sink(Profile{}, "bad.tmodel");
    TensilFormat().Validate(InputBuffer::Copy({reinterpret_cast<const uint8_t*>(text.data()), text.size()}),
                            ValidateContext{}, sink);
    EXPECT_TRUE(sink.Has(rules::kJsonSyntax)) << text.substr(0, 10) << "\n" << Describe(sink);
  }
}

TEST(TensilRules, ArchMismatchWithNamedTarch) {
  auto arch = fixture::TinyArch();
  arch["local_depth"] = 512;
  const auto path = fixture::TempDir() / "other.tarch";
  fixture::WriteFile(path, arch.dump());
  Case c;
  c.companions = {path.string()};
  const auto result = ValidateCase(c);
  EXPECT_TRUE(result.sink.Has(rules::kArchMismatch)) << Describe(result.sink);
  ASSERT_FALSE(result.sink.diagnostics().empty());
  EXPECT_EQ(result.sink.diagnostics().front().location.path, "arch.local_depth");

  fixture::WriteFile(path, fixture::TinyArch().dump());
  EXPECT_TRUE(ValidateCase(c).sink.diagnostics().empty());
}

// The warnings are errors under --strict, and the legacy schema is one.
TEST(TensilRules, LegacySchemaIsAnErrorUnderStrict) {
  Case c;
  c.model["prog"].erase("size");
  c.arch().erase("number_of_threads");
  c.arch().erase("thread_queue_depth");
  c.model.erase("load_consts_to_local");
  const auto lenient = ValidateCase(c);
  EXPECT_EQ(lenient.sink.error_count(), 0u) << Describe(lenient.sink);
  EXPECT_TRUE(lenient.sink.Has(rules::kLegacySchema));
  const auto strict = ValidateCase(c, Profile{.strict = true});
  EXPECT_GT(strict.sink.error_count(), 0u);
}

TEST(TensilRules, StandaloneProgramNeedsItsArchitecture) {
  const auto bytes = fixture::AssembleFor(fixture::TinyArch(), fixture::BaseProgram());
  const InputBuffer input = InputBuffer::Copy(bytes);
  DiagnosticSink without(Profile{}, "tiny.tprog");
  TensilFormat().Validate(input, ValidateContext{}, without);
  EXPECT_TRUE(without.Has(rules::kModelFileMissing));

  const auto path = fixture::TempDir() / "tiny.tarch";
  fixture::WriteFile(path, fixture::TinyArch().dump());
  ValidateContext context;
  context.companions = {path.string()};
  DiagnosticSink with(Profile{}, "tiny.tprog");
  TensilFormat().Validate(input, context, with);
  EXPECT_TRUE(with.diagnostics().empty()) << Describe(with);
}

TEST(TensilRules, DetectsOnlyTensilJson) {
  const std::string tarch = fixture::TinyArch().dump();
  const std::string other = R"({"graph": {"nodes": []}, "array_size": 2})";
  const auto view = [](const std::string& s) { return ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
  EXPECT_TRUE(TensilFormat().Detect(view(tarch)));
  EXPECT_FALSE(TensilFormat().Detect(view(other)));
  EXPECT_FALSE(TensilFormat().Detect(view("ET12")));
}

}  // namespace
}  // namespace accelcheck::tensil
