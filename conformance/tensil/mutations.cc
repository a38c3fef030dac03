// One change per rule of validators/tensil/rules.def to a valid bundle, each
// reported at the object path it returns. The changes take addresses and
// sizes from the bundle's architecture and program, so that they apply to any
// model with room for them (the tiny bundle and the real ones).
#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>

#include "conformance/tensil/bundle.h"
#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/tensil/disasm.h"
#include "validators/tensil/instruction.h"
#include "validators/tensil/manifest.h"
#include "validators/tensil/rules.h"

namespace accelcheck::tensil::conformance {

namespace {

namespace ac = accelcheck::conformance;
using nlohmann::json;

using Result = ac::OrDeclined<std::string>;

// The bundle's manifest as decoded, where a change reads the sizes and
// addresses it needs, with the instruction layout of its architecture.
struct Manifest : Model {
  Layout layout;
};

// A change to a valid bundle that breaks `rule`; gives the object path the
// rule is reported at, or declines when the bundle offers no place for it.
struct Change {
  const Rule* rule;
  std::function<Result(Bundle& c, const Manifest& m)> change;
  std::vector<const Rule*> also = {};  // rules that necessarily break with it
};

// An instruction of the program with its fields under the model's layout.
struct Decoded {
  Instruction in;
  Fields f;
};

// The program as the validator decodes it, under the layout of the model's
// architecture (a manifest that decodes cleanly has one).
ac::OrDeclined<std::vector<Decoded>> DecodeProgram(const Bundle& c, const Manifest& m) {
  ac::OrDeclined<std::vector<uint8_t>> bytes = AssembleProgram(c);
  if (auto* declined = std::get_if<ac::Declined>(&bytes)) return std::move(*declined);
  const ByteView program = std::get<std::vector<uint8_t>>(bytes);
  const uint64_t count = program.size() / m.layout.instruction_bytes;
  std::vector<Decoded> decoded;
  decoded.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    const Instruction in = DecodeAt(program, i, m.layout);
    decoded.push_back({in, FieldsOf(in, m.layout)});
  }
  return decoded;
}

// The last row of address + i * 2^stride for i = 0..size, saturated.
uint64_t LastRow(uint64_t address, uint64_t size, uint64_t stride) {
  const auto step = stride < 64 ? CheckedMul(size, uint64_t{1} << stride) : std::nullopt;
  const auto last = step ? CheckedAdd(address, *step) : std::nullopt;
  return last.value_or(std::numeric_limits<uint64_t>::max());
}

bool IsDram0Kind(uint8_t kind) { return kind == kDram0ToLocal || kind == kLocalToDram0; }
bool IsAccumulatorKind(uint8_t kind) {
  return kind == kAccToLocal || kind == kLocalToAcc || kind == kLocalToAccAccumulate;
}
bool WritesLocal(uint8_t kind) {
  return kind == kDram0ToLocal || kind == kDram1ToLocal || kind == kAccToLocal;
}

// Local rows first..last that the instruction at `index` writes.
struct LocalWrite {
  uint64_t first, last;
  size_t index;
};

// An accumulator row and the instruction that writes it.
struct AccumulatorWrite {
  uint64_t row;
  size_t index;
};

// Where the program keeps its values, so that an added instruction reads
// only rows it wrote and an unwritten row is one it never touches
// (docs/formats/tensil.md TNS-27, TNS-30).
struct RowUse {
  std::vector<LocalWrite> local_writes;  // unstrided, in program order
  std::optional<AccumulatorWrite> first_accumulator_write;
  uint64_t past_accumulators = 0;  // one past every accumulator row touched
  uint64_t past_dram0 = 0;         // one past every DRAM0 row touched
};

void Touch(uint64_t* past, uint64_t last) {
  *past = std::max(*past, last == std::numeric_limits<uint64_t>::max() ? last : last + 1);
}

void NoteAccumulatorWrite(RowUse& use, uint64_t row, size_t index) {
  if (!use.first_accumulator_write) use.first_accumulator_write = {row, index};
}

void NoteDataMove(RowUse& use, const Fields& f, uint8_t kind, size_t index) {
  const uint64_t last = LastRow(f.address1, f.size, f.stride1);
  if (IsDram0Kind(kind)) Touch(&use.past_dram0, last);
  if (IsAccumulatorKind(kind)) Touch(&use.past_accumulators, last);
  if (kind == kLocalToAcc) NoteAccumulatorWrite(use, f.address1, index);
  if (WritesLocal(kind) && f.stride0 == 0)
    use.local_writes.push_back({f.address0, f.address0 + f.size, index});
}

RowUse RowUseOf(const std::vector<Decoded>& program) {
  RowUse use;
  for (size_t i = 0; i < program.size(); ++i) {
    const auto& [in, f] = program[i];
    if (in.opcode() == kDataMove) {
      NoteDataMove(use, f, in.flags(), i);
    } else if (in.opcode() == kMatMul) {
      Touch(&use.past_accumulators, LastRow(f.address1, f.size, f.stride1));
      if (!(in.flags() & kMatMulAccumulate)) NoteAccumulatorWrite(use, f.address1, i);
    } else if (in.opcode() == kSimd) {
      Touch(&use.past_accumulators, f.address0);
      Touch(&use.past_accumulators, f.address1);
      if ((in.flags() & kSimdWrite) && f.simd_dest == 0) NoteAccumulatorWrite(use, f.address0, i);
    }
  }
  return use;
}

ac::OrDeclined<RowUse> RowUseOf(const Bundle& c, const Manifest& m) {
  ac::OrDeclined<std::vector<Decoded>> program = DecodeProgram(c, m);
  if (auto* declined = std::get_if<ac::Declined>(&program)) return std::move(*declined);
  return RowUseOf(std::get<std::vector<Decoded>>(program));
}

// The first of `rows` consecutive local rows that the instructions before
// `before` write.
std::optional<uint64_t> WrittenLocalRun(const RowUse& use, uint64_t rows, size_t before) {
  std::vector<LocalWrite> writes;
  for (const LocalWrite& w : use.local_writes) {
    if (w.index < before) writes.push_back(w);
  }
  std::sort(writes.begin(), writes.end(),
            [](const LocalWrite& a, const LocalWrite& b) { return a.first < b.first; });
  for (size_t i = 0; i < writes.size();) {
    uint64_t last = writes[i].last;
    size_t j = i + 1;
    for (; j < writes.size() && writes[j].first <= last + 1; ++j)
      last = std::max(last, writes[j].last);
    if (last - writes[i].first + 1 >= rows) return writes[i].first;
    i = j;
  }
  return std::nullopt;
}

// Replaces every `key` in `line` with `value`.
void Fill(std::string& line, std::string_view key, uint64_t value) {
  for (size_t at = line.find(key); at != std::string::npos; at = line.find(key, at))
    line.replace(at, key.size(), Str(value));
}

// Appends an instruction, with {L} replaced by a local row the program
// writes and {A} by an accumulator row it writes; its path is prog[index].
Result Append(Bundle& c, const Manifest& m, std::string line) {
  if (line.find('{') != std::string::npos) {
    ac::OrDeclined<RowUse> use = RowUseOf(c, m);
    if (auto* declined = std::get_if<ac::Declined>(&use)) return std::move(*declined);
    const std::optional<uint64_t> local =
        WrittenLocalRun(std::get<RowUse>(use), 1, c.program.size());
    const std::optional<AccumulatorWrite> accumulator =
        std::get<RowUse>(use).first_accumulator_write;
    if (line.find("{L}") != std::string::npos && !local)
      return ac::Declined{"the program writes no local row"};
    if (line.find("{A}") != std::string::npos && !accumulator)
      return ac::Declined{"the program writes no accumulator row"};
    Fill(line, "{L}", local.value_or(0));
    Fill(line, "{A}", accumulator ? accumulator->row : 0);
  }
  c.program.push_back(line);
  return Str("prog[", c.program.size() - 1, "]");
}

// Appends an instruction no assembly form expresses, as bytes of the
// model's instruction size (docs/formats/tensil.md §4.2).
Result AppendRaw(Bundle& c, const Manifest& m, const Instruction& in) {
  return Append(c, m, RawBytesLine(in, m.layout));
}

uint8_t Header(uint8_t opcode, uint8_t flags) { return static_cast<uint8_t>(opcode << 4 | flags); }

// Replaces the constants with `rows` vectors of `lanes` zeros of `type`, or
// declines when they would take more than 64 MiB.
std::optional<ac::Declined> ZeroConstants(Bundle& c, uint64_t rows, uint64_t lanes, DataType type) {
  constexpr uint64_t kMaxBytes = uint64_t{64} << 20;
  const auto values = CheckedMul(rows, lanes);
  const auto bytes = values ? CheckedMul(*values, InfoOf(type).bytes) : std::nullopt;
  if (!bytes || *bytes > kMaxBytes) {
    return ac::Declined{Str(rows, " rows of constants would take more than ", kMaxBytes, " bytes")};
  }
  c.tdata.assign(*bytes, 0);
  return std::nullopt;
}

// The first DRAM0 row past every input and output.
uint64_t PastIo(const Manifest& m) {
  uint64_t end = 0;
  for (const auto* list : {&m.inputs, &m.outputs}) {
    for (const IoEntry& io : *list) end = std::max(end, io.base + io.size);
  }
  return end;
}

// A DRAM0 row past the inputs and outputs that the program never touches,
// below the probe rows (TNS-13).
ac::OrDeclined<uint64_t> UntouchedDram0Row(const Bundle& c, const Manifest& m) {
  ac::OrDeclined<RowUse> use = RowUseOf(c, m);
  if (auto* declined = std::get_if<ac::Declined>(&use)) return std::move(*declined);
  const uint64_t row = std::max(PastIo(m), std::get<RowUse>(use).past_dram0);
  if (row + 2 >= m.arch.dram0_depth)
    return ac::Declined{"the program touches every DRAM0 row below the probe rows"};
  return row;
}

// The index of the first LoadWeights.
std::optional<size_t> FirstLoadWeights(const std::vector<Decoded>& program) {
  for (size_t i = 0; i < program.size(); ++i) {
    if (program[i].in.opcode() == kLoadWeights) return i;
  }
  return std::nullopt;
}

// An instruction with a padding bit set that the layout has (TNS-19): a
// MatMul's above operand0's address and stride, else operand1's, else
// operand2's size, else a SIMD's above its sub-instruction.
std::optional<std::string> PaddedInstruction(const Layout& l) {
  const std::string matmul = "MatMul local={L} acc=0 size=0 ";
  if (l.op0_bytes * 8 > l.op0_address_bits + l.stride0_bits) return matmul + "pad0=1";
  if (l.op1_bytes * 8 > l.op1_address_bits + l.stride1_bits) return matmul + "pad1=1";
  if (l.op2_bytes * 8 > l.op2_address_bits) return matmul + "pad2=1";
  if (l.op2_bytes * 8 > l.simd_instruction_bits)
    return "SIMD op=zero left=in right=in dest=r1 pad2=1";
  return std::nullopt;
}

// A stride field of a SIMD that the layout has (TNS-24 wants 0).
std::optional<std::string> SimdStrideField(const Layout& l) {
  if (l.stride0_bits > 0) return "stride0=1";
  if (l.stride1_bits > 0) return "stride1=1";
  return std::nullopt;
}

// A stride0 value the field holds but stride0_depth does not allow
// (TNS-20), with the depth that makes it so: the depth itself when the field
// holds it, else one less when that keeps the field's width, else 3, which
// widens it.
struct BrokenStride {
  uint64_t stride;
  uint64_t depth;
};
BrokenStride BreakableStride0(const Manifest& m) {
  const Layout& l = m.layout;
  const uint64_t depth = m.arch.stride0_depth;
  if (HighBits(depth, l.stride0_bits) == 0) return {depth, depth};
  const uint64_t lowered = depth >= 3 && Log2Ceil(depth - 1) == l.stride0_bits ? depth - 1 : 3;
  return {lowered, lowered};
}

// Cuts the accumulators to the rows the program touches (at least 2,
// TNS-4), so that an address or size fits past them; declines when that
// leaves them as deep as they were.
std::optional<ac::Declined> CutAccumulators(Bundle& c, const Manifest& m, uint64_t* depth) {
  ac::OrDeclined<RowUse> use = RowUseOf(c, m);
  if (auto* declined = std::get_if<ac::Declined>(&use)) return std::move(*declined);
  *depth = std::max<uint64_t>(std::get<RowUse>(use).past_accumulators, 2);
  if (*depth >= m.arch.accumulator_depth)
    return ac::Declined{"the program touches every accumulator row"};
  c.arch()["accumulator_depth"] = *depth;
  return std::nullopt;
}

// A legacy key whose value is the one readers assume when it is missing, so
// that leaving it out changes nothing else (TNS-6).
std::optional<std::string> RemovableLegacyKey(Bundle& c, const Manifest& m) {
  if (!m.load_consts_to_local) {
    c.model.erase("load_consts_to_local");
    return std::string("");
  }
  const Architecture defaults;
  if (m.arch.thread_queue_depth == defaults.thread_queue_depth) {
    c.arch().erase("thread_queue_depth");
    return std::string("/arch");
  }
  return std::nullopt;
}

std::vector<Change> Table() {
  return {
      {&rules::kJsonSyntax,
       [](Bundle& c, const Manifest&) -> Result {
         c.model_text = "{\"prog\": ";
         return std::string("/prog");
       }},
      {&rules::kArchMismatch,
       [](Bundle& c, const Manifest& m) -> Result {
         c.tarch = c.arch();
         (*c.tarch)["local_depth"] = 2 * m.arch.local_depth;
         return std::string("/arch/local_depth");
       }},
      {&rules::kKeyMissing,
       [](Bundle& c, const Manifest&) -> Result {
         c.model.erase("name");
         return std::string("");
       }},
      {&rules::kKeyType,
       [](Bundle& c, const Manifest&) -> Result {
         c.model["inputs"][0]["base"] = "0";
         return std::string("/inputs/0/base");
       }},
      {&rules::kUnknownKey,
       [](Bundle& c, const Manifest&) -> Result {
         c.model["extra"] = 1;
         return std::string("/extra");
       }},
      {&rules::kLegacySchema,
       [](Bundle& c, const Manifest& m) -> Result {
         if (auto path = RemovableLegacyKey(c, m)) return *path;
         return ac::Declined{"every legacy key holds a value other than its default"};
       }},
      {&rules::kArchPositive,
       [](Bundle& c, const Manifest&) -> Result {
         c.arch()["local_depth"] = 0;
         return std::string("/arch/local_depth");
       }},
      {&rules::kArchDataType,
       [](Bundle& c, const Manifest&) -> Result {
         c.arch()["data_type"] = "FP64";
         return std::string("/arch/data_type");
       }},
      {&rules::kArchThreads,
       [](Bundle& c, const Manifest&) -> Result {
         c.arch()["number_of_threads"] = 3;
         return std::string("/arch/number_of_threads");
       },
       {&rules::kArchHeaderWidth}},
      {&rules::kArchHeaderWidth,
       [](Bundle& c, const Manifest&) -> Result {
         c.arch()["number_of_threads"] = 4;
         return std::string("/arch/number_of_threads");
       },
       {&rules::kArchThreads}},
      {&rules::kArchOperandWidth,
       [](Bundle& c, const Manifest&) -> Result {
         c.arch()["dram0_depth"] = uint64_t{1} << 62;
         c.arch()["stride1_depth"] = 1 << 20;
         return std::string("/arch");
       },
       {&rules::kArchDepthRange}},
      {&rules::kArchFloat32,
       [](Bundle& c, const Manifest& m) -> Result {
         c.arch()["data_type"] = "FLOAT32";
         if (auto declined =
                 ZeroConstants(c, m.consts[0].size, m.arch.array_size, DataType::kFloat32))
           return *declined;
         return std::string("/arch/data_type");
       }},
      // One lane past the documented 256 (TNS-4), with constants of that width.
      {&rules::kArchArraySizeRange,
       [](Bundle& c, const Manifest& m) -> Result {
         constexpr uint64_t kLanes = 257;
         c.arch()["array_size"] = kLanes;
         if (auto declined = ZeroConstants(c, m.consts[0].size, kLanes, m.arch.data_type))
           return *declined;
         return std::string("/arch/array_size");
       }},
      {&rules::kArchDepthRange,
       [](Bundle& c, const Manifest&) -> Result {
         c.arch()["local_depth"] = 1 << 17;
         return std::string("/arch/local_depth");
       }},
      {&rules::kModelFileMissing,
       [](Bundle& c, const Manifest&) -> Result {
         c.name_files = false;
         c.model["prog"]["file_name"] = "absent.tprog";
         return std::string("/prog/file_name");
       }},
      // One instruction more than the file holds.
      {&rules::kModelProgSize,
       [](Bundle& c, const Manifest& m) -> Result {
         c.fix_prog_size = false;
         c.model["prog"]["size"] = (c.program.size() + 1) * m.layout.instruction_bytes;
         return std::string("/prog/size");
       }},
      {&rules::kModelProgEmpty,
       [](Bundle& c, const Manifest&) -> Result {
         c.program.clear();
         return std::string("/prog/size");
       }},
      {&rules::kModelProgMultiple,
       [](Bundle& c, const Manifest& m) -> Result {
         if (m.layout.instruction_bytes < 2)
           return ac::Declined{"every size is a multiple of the instruction size"};
         c.fix_prog_size = false;
         c.model["prog"]["size"] = c.program.size() * m.layout.instruction_bytes + 1;
         return std::string("/prog/size");
       },
       {&rules::kModelProgSize}},
      {&rules::kModelConstsEmpty,
       [](Bundle& c, const Manifest&) -> Result {
         c.model["consts"] = json::array();
         return std::string("/consts");
       }},
      {&rules::kModelConstsSize,
       [](Bundle& c, const Manifest&) -> Result {
         c.model["consts"][0]["size"] = 0;
         c.tdata.clear();
         return std::string("/consts/0/size");
       }},
      {&rules::kModelConstsCount,
       [](Bundle& c, const Manifest&) -> Result {
         c.model["consts"].push_back(c.model["consts"][0]);
         return std::string("/consts");
       }},
      {&rules::kModelConstsBase,
       [](Bundle& c, const Manifest&) -> Result {
         c.model["consts"][0]["base"] = 1;
         return std::string("/consts/0/base");
       },
       {&rules::kFlowUninitialized}},
      // One row more than the memory the constants load into.
      {&rules::kModelConstsRange,
       [](Bundle& c, const Manifest& m) -> Result {
         const uint64_t rows =
             (m.load_consts_to_local ? m.arch.local_depth : m.arch.dram1_depth) + 1;
         c.model["consts"][0]["size"] = rows;
         if (auto declined = ZeroConstants(c, rows, m.arch.array_size, m.arch.data_type))
           return *declined;
         return std::string("/consts/0");
       }},
      {&rules::kModelIoEmpty,
       [](Bundle& c, const Manifest&) -> Result {
         c.model["inputs"] = json::array();
         return std::string("/inputs");
       }},
      {&rules::kModelIoName,
       [](Bundle& c, const Manifest&) -> Result {
         c.model["inputs"][0]["name"] = "";
         return std::string("/inputs/0/name");
       }},
      {&rules::kModelIoFileName,
       [](Bundle& c, const Model&) -> Result {
         c.model["outputs"][0]["name"] = "../../escaped";
         return std::string("/outputs/0/name");
       }},
      {&rules::kModelIoSize,
       [](Bundle& c, const Manifest&) -> Result {
         c.model["outputs"][0]["size"] = 0;
         return std::string("/outputs/0/size");
       }},
      {&rules::kModelIoRange,
       [](Bundle& c, const Manifest& m) -> Result {
         c.model["outputs"][0]["base"] = m.arch.dram0_depth;
         return std::string("/outputs/0");
       },
       {&rules::kModelProbeRows}},
      {&rules::kModelIoCount,
       [](Bundle& c, const Manifest& m) -> Result {
         const uint64_t past = PastIo(m);
         for (uint64_t i = 0; i < 4; ++i)
           c.model["inputs"].push_back({{"name", Str("x", i)}, {"base", past + i}, {"size", 1}});
         return std::string("/inputs");
       }},
      {&rules::kModelIoOverlap,
       [](Bundle& c, const Manifest&) -> Result {
         c.model["inputs"].push_back(
             {{"name", "z"}, {"base", c.model["inputs"][0]["base"]}, {"size", 1}});
         return std::string("/inputs/1");
       }},
      {&rules::kModelIoOrder,
       [](Bundle& c, const Manifest& m) -> Result {
         // A new input past the others, listed first.
         const json first = {{"name", "z"}, {"base", PastIo(m)}, {"size", 1}};
         c.model["inputs"].insert(c.model["inputs"].begin(), first);
         return std::string("/inputs/1/base");
       }},
      // A written row stored on DRAM0's last row.
      {&rules::kModelProbeRows,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(
             c, m,
             Str("DataMove local->dram0 local={L} dram0=", m.arch.dram0_depth - 1, " size=0"));
       }},
      {&rules::kTdataSize,
       [](Bundle& c, const Manifest&) -> Result {
         c.tdata.pop_back();
         return std::string("/consts/0");
       }},
      {&rules::kTdataFp18Padding,
       [](Bundle& c, const Manifest& m) -> Result {
         c.arch()["data_type"] = "FP18BP10";
         if (auto declined =
                 ZeroConstants(c, m.consts[0].size, m.arch.array_size, DataType::kFp18bp10))
           return *declined;
         c.tdata[7] = 0x80;
         return std::string("/consts/0");
       }},
      {&rules::kTdataNonFinite,
       [](Bundle& c, const Manifest& m) -> Result {
         c.arch()["data_type"] = "FLOAT32";
         if (auto declined =
                 ZeroConstants(c, m.consts[0].size, m.arch.array_size, DataType::kFloat32))
           return *declined;
         c.tdata[4] = 0x7f;
         c.tdata[5] = 0x80;
         return std::string("/consts/0");
       },
       {&rules::kArchFloat32}},
      {&rules::kProgTruncated,
       [](Bundle& c, const Manifest&) -> Result {
         c.trailing = {0, 0};
         return std::string("prog");
       },
       {&rules::kModelProgMultiple}},
      {&rules::kInstrTid,
       [](Bundle& c, const Manifest& m) -> Result { return Append(c, m, "Wait thread=0 tid=1"); }},
      // Opcode 5, LoadLUT, which nothing implements (TNS-17).
      {&rules::kInstrOpcode,
       [](Bundle& c, const Manifest& m) -> Result {
         return AppendRaw(c, m, Instruction{.header = Header(5, 0)});
       }},
      // DataMove kind 4, none of the seven directions (TNS-18).
      {&rules::kInstrFlags,
       [](Bundle& c, const Manifest& m) -> Result {
         return AppendRaw(c, m, Instruction{.header = Header(kDataMove, 4)});
       }},
      {&rules::kInstrPadding,
       [](Bundle& c, const Manifest& m) -> Result {
         const std::optional<std::string> padded = PaddedInstruction(m.layout);
         if (!padded) return ac::Declined{"the instruction layout has no padding bit"};
         return Append(c, m, *padded);
       }},
      {&rules::kInstrStride,
       [](Bundle& c, const Manifest& m) -> Result {
         const BrokenStride broken = BreakableStride0(m);
         Result path = Append(c, m, Str("MatMul local={L} acc=0 size=0 stride0=", broken.stride));
         if (broken.depth != m.arch.stride0_depth) c.arch()["stride0_depth"] = broken.depth;
         return path;
       }},
      {&rules::kInstrLocalRange,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, Str("MatMul local=", m.arch.local_depth - 1, " acc=0 size=1"));
       }},
      {&rules::kInstrOtherRange,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(
             c, m, Str("DataMove local->dram0 local=0 dram0=", m.arch.dram0_depth - 1, " size=1"));
       }},
      // A MatMul of as many rows as there are accumulators, when the size
      // field holds that many and the local memory is deeper; otherwise the
      // accumulators are cut to the rows the program uses first.
      {&rules::kInstrSize,
       [](Bundle& c, const Manifest& m) -> Result {
         uint64_t rows = m.arch.accumulator_depth;
         if (rows >= m.arch.local_depth || HighBits(rows, m.layout.op2_address_bits) != 0) {
           if (auto declined = CutAccumulators(c, m, &rows)) return *declined;
           if (rows >= m.arch.local_depth)
             return ac::Declined{"the local memory is no deeper than the accumulators"};
         }
         return Append(c, m, Str("MatMul local=0 acc=0 size=", rows));
       },
       {&rules::kInstrOtherRange}},
      {&rules::kInstrZeroesOperand,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, "MatMul zeroes local=1 acc=0 size=0");
       }},
      {&rules::kLoadWeightsRows,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, Str("LoadWeights local=0 size=", m.arch.array_size + 2));
       }},
      // N + 2 pushes of written rows (TNS-23: size is the count less one).
      {&rules::kLoadWeightsOversize,
       [](Bundle& c, const Manifest& m) -> Result {
         ac::OrDeclined<RowUse> use = RowUseOf(c, m);
         if (auto* declined = std::get_if<ac::Declined>(&use)) return std::move(*declined);
         const uint64_t rows = m.arch.array_size + 2;
         const std::optional<uint64_t> local =
             WrittenLocalRun(std::get<RowUse>(use), rows, c.program.size());
         if (!local)
           return ac::Declined{Str("the program writes no ", rows, " consecutive local rows")};
         return Append(c, m, Str("LoadWeights local=", *local, " size=", rows - 1));
       }},
      {&rules::kLoadWeightsOperand2,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, "LoadWeights local=0 size=0 operand2=1");
       }},
      // An accumulator address just past the accumulators, in whichever
      // operand holds it; otherwise the accumulators are cut first.
      {&rules::kSimdAccRange,
       [](Bundle& c, const Manifest& m) -> Result {
         uint64_t depth = m.arch.accumulator_depth;
         const char* operand = "racc";
         if (HighBits(depth, m.layout.op0_address_bits) == 0) {
           operand = "wacc";
         } else if (HighBits(depth, m.layout.op1_address_bits) != 0) {
           if (auto declined = CutAccumulators(c, m, &depth)) return *declined;
           operand = "wacc";
         }
         return Append(
             c, m, Str("SIMD read write op=max left=in right=r1 dest=out ", operand, "=", depth));
       }},
      {&rules::kSimdStride,
       [](Bundle& c, const Manifest& m) -> Result {
         const std::optional<std::string> stride = SimdStrideField(m.layout);
         if (!stride) return ac::Declined{"the instruction layout has no stride bits"};
         return Append(
             c, m,
             "SIMD read write op=move left=in right=in dest=out wacc={A} racc={A} " + *stride);
       }},
      // The register past the last, raising the depth by one when the field
      // cannot name it.
      {&rules::kSimdRegister,
       [](Bundle& c, const Manifest& m) -> Result {
         uint64_t depth = m.arch.simd_registers_depth;
         if (Log2Ceil(depth + 2) != Log2Ceil(depth + 1)) c.arch()["simd_registers_depth"] = ++depth;
         return Append(c, m, Str("SIMD op=zero left=in right=in dest=r", depth + 1));
       }},
      {&rules::kSimdUnusedAddress,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, "SIMD op=zero left=in right=in dest=r1 wacc=1");
       }},
      {&rules::kSimdReadWithoutInput,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, "SIMD read op=add left=r1 right=r1 dest=r1 racc={A}");
       }},
      {&rules::kSimdWriteDest,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, "SIMD read write op=move left=in right=in dest=r1 wacc={A} racc={A}");
       }},
      {&rules::kSimdAccumulate,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, "SIMD read accumulate op=move left=in right=in dest=r1 racc={A}");
       }},
      {&rules::kSimdInputWithoutRead,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, "SIMD op=move left=in right=in dest=r1");
       }},
      {&rules::kSimdZeroSources,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, "SIMD op=zero left=r1 right=in dest=r1");
       }},
      {&rules::kSimdDead,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, "SIMD read op=move left=in right=in dest=out racc={A}");
       }},
      {&rules::kSimdOpUnemulated,
       [](Bundle& c, const Manifest& m) -> Result {
         return Append(c, m, "SIMD read write op=abs left=in right=in dest=out wacc={A} racc={A}");
       }},
      // A Wait with a bit set past the thread it names (TNS-26).
      {&rules::kWaitOperands,
       [](Bundle& c, const Manifest& m) -> Result {
         return AppendRaw(
             c, m,
             Instruction{.operand0 = uint64_t{1} << m.layout.tid_bits, .header = Header(kWait, 0)});
       }},
      {&rules::kFlowUninitialized,
       [](Bundle& c, const Manifest& m) -> Result {
         ac::OrDeclined<uint64_t> row = UntouchedDram0Row(c, m);
         if (auto* declined = std::get_if<ac::Declined>(&row)) return std::move(*declined);
         return Append(
             c, m,
             Str("DataMove dram0->local local={L} dram0=", std::get<uint64_t>(row), " size=0"));
       }},
      // One more output, on a row nothing stores, listed last as it lies past
      // the others (TNS-12).
      {&rules::kFlowOutputUnwritten,
       [](Bundle& c, const Manifest& m) -> Result {
         ac::OrDeclined<uint64_t> row = UntouchedDram0Row(c, m);
         if (auto* declined = std::get_if<ac::Declined>(&row)) return std::move(*declined);
         c.model["outputs"].push_back(
             {{"name", "unwritten"}, {"base", std::get<uint64_t>(row)}, {"size", 1}});
         return Str("/outputs/", m.outputs.size());
       }},
      // A MatMul of a row written before the first LoadWeights, just before it.
      {&rules::kFlowResetWeights,
       [](Bundle& c, const Manifest& m) -> Result {
         ac::OrDeclined<std::vector<Decoded>> program = DecodeProgram(c, m);
         if (auto* declined = std::get_if<ac::Declined>(&program)) return std::move(*declined);
         const std::vector<Decoded>& decoded = std::get<std::vector<Decoded>>(program);
         const std::optional<size_t> at = FirstLoadWeights(decoded);
         const std::optional<uint64_t> local =
             at ? WrittenLocalRun(RowUseOf(decoded), 1, *at) : std::nullopt;
         if (!local) return ac::Declined{"the program loads no weights from a written row"};
         c.program.insert(c.program.begin() + static_cast<std::ptrdiff_t>(*at),
                          Str("MatMul local=", *local, " acc=0 size=0"));
         return Str("prog[", *at, "]");
       }},
      // An accumulating MatMul of zeroes into the first accumulator row the
      // program writes, just before it writes it, once weights are loaded.
      {&rules::kFlowAccumulateUnwritten,
       [](Bundle& c, const Manifest& m) -> Result {
         ac::OrDeclined<std::vector<Decoded>> program = DecodeProgram(c, m);
         if (auto* declined = std::get_if<ac::Declined>(&program)) return std::move(*declined);
         const std::vector<Decoded>& decoded = std::get<std::vector<Decoded>>(program);
         const std::optional<AccumulatorWrite> first = RowUseOf(decoded).first_accumulator_write;
         const std::optional<size_t> weights = FirstLoadWeights(decoded);
         if (!first || !weights || first->index < *weights)
           return ac::Declined{"the program writes no accumulator row after loading weights"};
         c.program.insert(c.program.begin() + static_cast<std::ptrdiff_t>(first->index),
                          Str("MatMul accumulate zeroes local=0 acc=", first->row, " size=0"));
         return Str("prog[", first->index, "]");
       }},
  };
}

// The changes in rule-table order.
const std::vector<Change>& Changes() {
  static const std::vector<Change> kChanges = [] {
    std::vector<Change> table = Table();
    const RuleTable all = AllRules();
    const auto order = [&](const Change& m) {
      return std::find_if(all.begin(), all.end(), [&](const Rule* r) { return r == m.rule; }) -
             all.begin();
    };
    std::stable_sort(table.begin(), table.end(),
                     [&](const Change& a, const Change& b) { return order(a) < order(b); });
    return table;
  }();
  return kChanges;
}

// OUT.tmodel names the bundle OUT; any other name is the stem itself.
std::string StemOf(const std::string& name) {
  const std::filesystem::path path(name);
  return path.extension() == ".tmodel" ? path.stem().string() : name;
}

// The table has one change per rule, so `seed` has nothing to pick. The
// result keeps the architecture file the base was validated against, unless
// the change writes its own or edits the architecture, which the file then
// no longer describes.
ac::OrDeclined<ac::Mutated> ApplyToBase(const Rule& rule, const ac::Base& base,
                                        const std::string& name) {
  ac::OrDeclined<Bundle> bundle = BundleFromFiles(base.files);
  if (auto* declined = std::get_if<ac::Declined>(&bundle)) return std::move(*declined);
  const json arch = std::get<Bundle>(bundle).arch();
  ac::OrDeclined<std::string> path = ApplyChange(rule, std::get<Bundle>(bundle));
  if (auto* declined = std::get_if<ac::Declined>(&path)) return std::move(*declined);
  const std::string stem = StemOf(name);
  auto files = SerializeBundle(std::get<Bundle>(bundle), stem);
  if (auto* declined = std::get_if<ac::Declined>(&files)) return std::move(*declined);
  ac::Mutated result{std::move(std::get<std::vector<ac::NamedFile>>(files)),
                     {},
                     std::move(std::get<std::string>(path))};
  if (std::get<Bundle>(bundle).tarch) {
    result.companions.push_back(stem + ".tarch");
  } else if (std::get<Bundle>(bundle).arch() == arch) {
    for (const ac::NamedFile& companion : base.companions)
      result.companions.push_back(companion.name);
  }
  return result;
}

}  // namespace

ac::OrDeclined<std::string> ApplyChange(const Rule& rule, Bundle& bundle) {
  const auto change = std::find_if(Changes().begin(), Changes().end(),
                                   [&](const Change& c) { return c.rule->id == rule.id; });
  if (change == Changes().end()) return ac::Declined{Str("no mutation breaks ", rule.id)};
  // A manifest that decodes cleanly has every key a change reads or sets,
  // each of its type, non-empty consts, inputs and outputs, and an
  // architecture with an instruction layout.
  const std::string manifest = bundle.model.dump();
  DiagnosticSink sink(Profile{}, "manifest");
  const std::optional<Model> decoded = DecodeModelDocument(AsBytes(manifest), Limits{}, sink);
  const std::optional<Layout> layout = decoded ? LayoutOf(decoded->arch) : std::nullopt;
  if (!layout || sink.blocking_count() != 0) {
    return ac::Declined{Str("cannot break ", rule.id, ": the manifest does not decode cleanly")};
  }
  return change->change(bundle, Manifest{*decoded, *layout});
}

const std::vector<ac::MutationCase>& MutationCases() {
  static const std::vector<ac::MutationCase> kCases = [] {
    std::vector<ac::MutationCase> cases;
    for (const Change& c : Changes()) {
      const Rule* rule = c.rule;
      cases.push_back({rule, c.also, false,
                       [rule](const ac::Base& base, uint64_t /*seed*/, const std::string& name) {
                         return ApplyToBase(*rule, base, name);
                       }});
    }
    return cases;
  }();
  return kCases;
}

}  // namespace accelcheck::tensil::conformance
