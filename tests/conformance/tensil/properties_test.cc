// Properties of the Tensil tool chain on random architectures and programs:
// assembly round trips, random valid programs validate without errors and
// run, and MatMul and SIMD results equal a plain-integer model of the
// fixed-point arithmetic (docs/formats/tensil.md §5.2, §5.3, §5.6).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "reference_exec/tensil/emulator.h"
#include "reference_exec/tensil/run_model.h"
#include "tests/support/describe.h"
#include "tests/validators/tensil/fixture.h"
#include "validators/tensil/disasm.h"
#include "validators/tensil/instruction.h"

namespace accelcheck::tensil {
namespace {

// --- random architectures and programs -------------------------------------

const DataType kFixedTypes[] = {DataType::kFp8bp4, DataType::kFp16bp8, DataType::kFp18bp10,
                                DataType::kFp32bp16};

// Small memories keep validation and emulation of each case fast; DRAM0 has
// room for the model's input and output rows below the two probe rows.
rc::Gen<Architecture> GenArchitecture() {
  return rc::gen::exec([] {
    Architecture a;
    a.data_type = *rc::gen::element(DataType::kFp8bp4, DataType::kFp16bp8, DataType::kFp18bp10,
                                    DataType::kFp32bp16, DataType::kFloat32);
    a.array_size = *rc::gen::inRange<uint64_t>(2, 7);
    a.dram0_depth = *rc::gen::inRange<uint64_t>(8, 300);
    a.dram1_depth = *rc::gen::inRange<uint64_t>(2, 300);
    a.local_depth = *rc::gen::inRange<uint64_t>(2, 300);
    a.accumulator_depth = *rc::gen::inRange<uint64_t>(2, 300);
    a.simd_registers_depth = *rc::gen::inRange<uint64_t>(1, 5);
    a.stride0_depth = *rc::gen::inRange<uint64_t>(1, 5);
    a.stride1_depth = *rc::gen::inRange<uint64_t>(1, 5);
    a.number_of_threads = *rc::gen::inRange<uint64_t>(1, 3);
    a.thread_queue_depth = *rc::gen::inRange<uint64_t>(1, 17);
    return a;
  });
}

uint8_t Header(uint8_t opcode, uint8_t flags, uint64_t tid) {
  return static_cast<uint8_t>(tid << 7 | opcode << 4 | flags);
}

// Rows address + i * 2^stride for i = 0..size within both memories, and size
// below min(local_depth, other depth) (docs/formats/tensil.md §7.4 TNS-20 to TNS-22).
struct Span {
  uint64_t address0, stride0, address1, stride1, size;
};

Span GenSpan(const Architecture& a, uint64_t other_depth, bool with_stride1) {
  const uint64_t s0 = *rc::gen::inRange<uint64_t>(0, a.stride0_depth);
  const uint64_t s1 = with_stride1 ? *rc::gen::inRange<uint64_t>(0, a.stride1_depth) : 0;
  const uint64_t max_size = std::min({(a.local_depth - 1) >> s0, (other_depth - 1) >> s1,
                                      std::min(a.local_depth, other_depth) - 1});
  const uint64_t size = *rc::gen::inRange<uint64_t>(0, max_size + 1);
  const uint64_t address0 = *rc::gen::inRange<uint64_t>(0, a.local_depth - (size << s0));
  const uint64_t address1 = *rc::gen::inRange<uint64_t>(0, other_depth - (size << s1));
  return {address0, s0, address1, s1, size};
}

Instruction Operands(const Layout& l, const Span& s) {
  Instruction in;
  in.operand0 = PackOperand(s.address0, l.op0_address_bits, s.stride0, l.stride0_bits, 0);
  in.operand1 = PackOperand(s.address1, l.op1_address_bits, s.stride1, l.stride1_bits, 0);
  in.operand2 = s.size;
  return in;
}

Instruction GenInstruction(const Architecture& a, const Layout& l) {
  const uint64_t tid = *rc::gen::inRange<uint64_t>(0, a.number_of_threads);
  switch (*rc::gen::inRange(0, 5)) {
    case 0: {
      Instruction in;
      in.operand0 = tid;
      in.header = Header(kWait, 0, tid);
      return in;
    }
    case 1: {
      Instruction in = Operands(l, GenSpan(a, a.accumulator_depth, true));
      in.header = Header(kMatMul, *rc::gen::inRange<uint8_t>(0, 4), tid);
      return in;
    }
    case 2: {
      const uint8_t kind =
          *rc::gen::element(kDram0ToLocal, kLocalToDram0, kDram1ToLocal, kLocalToDram1, kAccToLocal,
                            kLocalToAcc, kLocalToAccAccumulate);
      const uint64_t other = kind <= kLocalToDram0   ? a.dram0_depth
                             : kind <= kLocalToDram1 ? a.dram1_depth
                                                     : a.accumulator_depth;
      Instruction in = Operands(l, GenSpan(a, other, true));
      in.header = Header(kDataMove, kind, tid);
      return in;
    }
    case 3: {
      // operand1 is the row count - 1, at most array_size (TNS-23), and the
      // rows stay within local memory.
      const uint64_t s0 = *rc::gen::inRange<uint64_t>(0, a.stride0_depth);
      const uint64_t rows =
          *rc::gen::inRange<uint64_t>(0, std::min(a.array_size, (a.local_depth - 1) >> s0) + 1);
      const uint64_t address = *rc::gen::inRange<uint64_t>(0, a.local_depth - (rows << s0));
      Instruction in;
      in.operand0 = PackOperand(address, l.op0_address_bits, s0, l.stride0_bits, 0);
      in.operand1 = rows;
      in.header = Header(kLoadWeights, *rc::gen::inRange<uint8_t>(0, 2), tid);
      return in;
    }
    default: {
      // Read needs a source that is Input (TNS-25): the left one here; Write
      // writes the output register alone, where RTL and emulator agree (§5.6).
      const uint8_t flags = *rc::gen::inRange<uint8_t>(0, 8);
      const uint64_t registers = a.simd_registers_depth + 1;
      const uint64_t left = (flags & kSimdRead) ? 0 : *rc::gen::inRange<uint64_t>(0, registers);
      const uint64_t dest = (flags & kSimdWrite) ? 0 : *rc::gen::inRange<uint64_t>(0, registers);
      Instruction in;
      in.operand0 = *rc::gen::inRange<uint64_t>(0, a.accumulator_depth);
      in.operand1 = *rc::gen::inRange<uint64_t>(0, a.accumulator_depth);
      in.operand2 = PackSimd(l, *rc::gen::inRange<uint64_t>(0, 16), left,
                             *rc::gen::inRange<uint64_t>(0, registers), dest, 0);
      in.header = Header(kSimd, flags, tid);
      return in;
    }
  }
}

struct RandomProgram {
  Architecture arch;
  Layout layout;
  std::vector<uint8_t> bytes;
};

rc::Gen<RandomProgram> GenProgram() {
  return rc::gen::exec([] {
    RandomProgram p;
    p.arch = *GenArchitecture();
    p.layout = *LayoutOf(p.arch);
    const int count = *rc::gen::inRange(1, 40);
    for (int i = 0; i < count; ++i) Encode(GenInstruction(p.arch, p.layout), p.layout, &p.bytes);
    return p;
  });
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

// A model around the program: one constant row, input DRAM0 row 0, output
// row 1, zero constants.
fixture::Case CaseFor(const RandomProgram& p) {
  fixture::Case c;
  c.arch() = ArchJson(p.arch);
  c.model["consts"][0]["size"] = 1;
  c.tdata.assign(p.arch.array_size * InfoOf(p.arch.data_type).bytes, 0);
  c.program = Lines(Disassemble(p.bytes, p.layout));
  return c;
}

RC_GTEST_PROP(TensilProperties, AssemblyRoundTripsToTheSameBytesAndText, ()) {
  const RandomProgram p = *GenProgram();
  const std::string text = Disassemble(p.bytes, p.layout);
  AssembleError error;
  const auto bytes = Assemble(text, p.layout, &error);
  RC_ASSERT(bytes.has_value());
  RC_ASSERT(*bytes == p.bytes);
  RC_ASSERT(Disassemble(*bytes, p.layout) == text);
}

// The generator makes each instruction valid, not the program's dataflow:
// reads of rows nothing wrote, an output left unwritten and the like are the
// whole-program rules' errors (§7 F), which such a program may break; no
// other rule may fire.
bool OnlyDataflowErrors(const DiagnosticSink& sink) {
  for (const Diagnostic& d : sink.diagnostics()) {
    const bool dataflow = d.rule->id.starts_with("tensil.flow.") ||
                          d.rule->id == "tensil.instr.simd_input_unread" ||
                          d.rule->id == "tensil.instr.simd_accumulate";
    if (d.severity == Severity::kError && !dataflow) return false;
  }
  return true;
}

RC_GTEST_PROP(TensilProperties, RandomValidProgramsValidateWithoutErrorsAndRun, ()) {
  const RandomProgram p = *GenProgram();
  fixture::Case c = CaseFor(p);
  const fixture::Result result = fixture::ValidateCase(c);
  if (!OnlyDataflowErrors(result.sink)) RC_FAIL(test::Describe(result.sink));

  LoadedModel loaded;
  loaded.model.arch = p.arch;
  loaded.layout = p.layout;
  loaded.model.consts.push_back({"tiny.tdata", 0, 1});
  loaded.model.inputs.push_back({"x", 0, 1});
  loaded.model.outputs.push_back({"y", 1, 1});
  loaded.program = InputBuffer::Copy(p.bytes);
  loaded.constants = InputBuffer::Copy(c.tdata);
  Machine machine = PrepareMachine(loaded);
  const ModelOutputs out = RunModel(machine, loaded, {std::vector<Scalar>(p.arch.array_size, 1)});
  RC_ASSERT(out.stats.instructions == p.bytes.size() / p.layout.instruction_bytes);
  RC_ASSERT(out.outputs.size() == 1u);
  RC_ASSERT(out.outputs[0].size() == p.arch.array_size);
}

// --- the arithmetic against plain integers -----------------------------------

struct FixedPoint {
  int64_t min, max, one;
  unsigned point;

  explicit FixedPoint(DataType type) {
    const DataTypeInfo& info = InfoOf(type);
    min = -(int64_t{1} << (info.width - 1));
    max = (int64_t{1} << (info.width - 1)) - 1;
    point = info.fraction;
    one = int64_t{1} << point;
  }
  int64_t Saturate(int64_t v) const { return std::clamp(v, min, max); }
  // v / 2^point rounded to nearest, ties to even, with floor division spelled
  // out rather than shifted.
  int64_t RoundHalfEven(int64_t v) const {
    const int64_t d = one;
    int64_t q = v / d, r = v % d;
    if (r < 0) {
      q -= 1;
      r += d;
    }
    if (2 * r > d || (2 * r == d && q % 2 != 0)) q += 1;
    return q;
  }
  int64_t Mac(int64_t x, int64_t y, int64_t z) const {
    return Saturate(RoundHalfEven(x * y + z * one));
  }
  int64_t Add(int64_t a, int64_t b) const { return Saturate(a + b); }
};

rc::Gen<int64_t> GenValue(const FixedPoint& fp) {
  return rc::gen::oneOf(
      rc::gen::element(fp.min, fp.max, int64_t{0}, int64_t{1}, int64_t{-1}, fp.one, -fp.one),
      rc::gen::inRange(fp.min, fp.max + 1), rc::gen::inRange(-4 * fp.one, 4 * fp.one + 1));
}

std::vector<Scalar> GenRow(const FixedPoint& fp, uint64_t n) {
  std::vector<Scalar> row(n);
  for (Scalar& v : row) v = static_cast<Scalar>(*GenValue(fp));
  return row;
}

Architecture ArithmeticArchitecture(DataType type, uint64_t n) {
  return Architecture{.data_type = type,
                      .array_size = n,
                      .dram0_depth = 16,
                      .dram1_depth = 16,
                      .local_depth = 16,
                      .accumulator_depth = 16,
                      .simd_registers_depth = 1,
                      .stride0_depth = 1,
                      .stride1_depth = 1};
}

std::vector<uint8_t> AssembleLines(const std::vector<std::string>& lines, const Layout& layout) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  AssembleError error;
  const auto bytes = Assemble(text, layout, &error);
  if (!bytes) throw std::runtime_error("line " + std::to_string(error.line) + ": " + error.message);
  return *bytes;
}

// DRAM0 rows: 0 bias, 1..N weights, N+1 input. Output rows 8 (MatMul then
// MatMul accumulate into the same row) and 9 (one MatMul).
RC_GTEST_PROP(TensilProperties, MatMulEqualsPlainIntegerArithmetic, ()) {
  const DataType type =
      *rc::gen::elementOf(std::vector<DataType>(std::begin(kFixedTypes), std::end(kFixedTypes)));
  const uint64_t n = *rc::gen::inRange<uint64_t>(2, 6);
  const FixedPoint fp(type);
  std::vector<std::vector<Scalar>> rows;
  for (uint64_t r = 0; r < n + 2; ++r) rows.push_back(GenRow(fp, n));

  const Architecture arch = ArithmeticArchitecture(type, n);
  const Layout layout = *LayoutOf(arch);
  Machine machine(arch);
  for (uint64_t r = 0; r < rows.size(); ++r) machine.WriteDram0(r, rows[r]);
  const std::string size = std::to_string(n + 1), input = std::to_string(n + 1);
  machine.Run(AssembleLines({"DataMove dram0->local local=0 dram0=0 size=" + size,
                             "LoadWeights local=0 size=" + std::to_string(n),
                             "MatMul local=" + input + " acc=0 size=0",
                             "MatMul accumulate local=" + input + " acc=0 size=0",
                             "MatMul local=" + input + " acc=1 size=0",
                             "DataMove acc->local local=8 acc=0 size=1",
                             "DataMove local->dram0 local=8 dram0=8 size=1"},
                            layout),
              layout);
  const std::vector<Scalar> out = machine.ReadDram0(8, 2);

  const std::vector<Scalar>& bias = rows[0];
  const std::vector<Scalar>& x = rows[n + 1];
  for (uint64_t k = 0; k < n; ++k) {
    int64_t y = bias[k];
    for (uint64_t j = 0; j < n; ++j) y = fp.Mac(x[j], rows[j + 1][k], y);
    RC_ASSERT(out[n + k] == y);
    RC_ASSERT(out[k] == fp.Add(y, y));
  }
}

int64_t SimdModel(const FixedPoint& fp, uint8_t op, int64_t a, int64_t b) {
  const auto truth = [&](bool v) { return v ? fp.one : 0; };
  switch (op) {
    case kSimdNoOp:
      return a;  // the Input, which is the left operand here
    case kSimdZero:
      return 0;
    case kSimdMove:
      return a;
    case kSimdNot:
      return truth(a == 0);
    case kSimdAnd:
      return truth(a != 0 && b != 0);
    case kSimdOr:
      return truth(a != 0 || b != 0);
    case kSimdIncrement:
      return fp.Saturate(a + fp.one);
    case kSimdDecrement:
      return fp.Saturate(a - fp.one);
    case kSimdAdd:
      return fp.Saturate(a + b);
    case kSimdSubtract:
      return fp.Saturate(a - b);
    case kSimdMultiply:
      return fp.Saturate(fp.RoundHalfEven(a * b));
    case kSimdAbs:
      return a == fp.min ? a : (a < 0 ? -a : a);  // wraps, as in the RTL
    case kSimdGreaterThan:
      return truth(a > b);
    case kSimdGreaterThanEqual:
      return truth(a >= b);
    case kSimdMin:
      return std::min(a, b);
    default:
      return std::max(a, b);
  }
}

// Accumulators 0 = a, 1 = b; r1 <- b; accumulator 2 <- op(a, r1), read back
// through DRAM0 row 2.
RC_GTEST_PROP(TensilProperties, SimdEqualsPlainIntegerArithmetic, ()) {
  const DataType type =
      *rc::gen::elementOf(std::vector<DataType>(std::begin(kFixedTypes), std::end(kFixedTypes)));
  const uint64_t n = *rc::gen::inRange<uint64_t>(2, 6);
  const uint8_t op = *rc::gen::inRange<uint8_t>(0, 16);
  const FixedPoint fp(type);
  const std::vector<Scalar> a = GenRow(fp, n), b = GenRow(fp, n);

  const Architecture arch = ArithmeticArchitecture(type, n);
  const Layout layout = *LayoutOf(arch);
  Machine machine(arch);
  machine.WriteDram0(0, a);
  machine.WriteDram0(1, b);
  machine.Run(AssembleLines({"DataMove dram0->local local=0 dram0=0 size=1",
                             "DataMove local->acc local=0 acc=0 size=1",
                             "SIMD read op=move left=in right=in dest=r1 wacc=0 racc=1",
                             "SIMD read write op=" + std::string(SimdOpName(op)) +
                                 " left=in right=r1 dest=out wacc=2 racc=0",
                             "DataMove acc->local local=2 acc=2 size=0",
                             "DataMove local->dram0 local=2 dram0=2 size=0"},
                            layout),
              layout);
  const std::vector<Scalar> out = machine.ReadDram0(2, 1);
  for (uint64_t k = 0; k < n; ++k) RC_ASSERT(out[k] == SimdModel(fp, op, a[k], b[k]));
}

}  // namespace
}  // namespace accelcheck::tensil
