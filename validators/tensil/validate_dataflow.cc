// Whole-program rules TNS-27 to TNS-30 (docs/formats/tensil.md §7.5): one pass in program
// order over a row-granular "holds a defined value" map of each memory.
#include <memory>
#include <unordered_map>

#include "validators/core/text.h"
#include "validators/tensil/instruction.h"
#include "validators/tensil/rules.h"
#include "validators/tensil/validate.h"

namespace accelcheck::tensil {

namespace {

// A set of rows, stored in 64 Ki-row pages allocated when first touched, so
// that memory follows the rows a program uses rather than declared depths.
class RowSet {
 public:
  bool Has(uint64_t row) const {
    const auto it = pages_.find(row >> kPageBits);
    if (it == pages_.end()) return false;
    const uint64_t bit = row & kPageMask;
    return (it->second[bit / 64] >> (bit % 64)) & 1;
  }
  void Add(uint64_t row) {
    auto& page = pages_[row >> kPageBits];
    if (!page) page = std::make_unique<uint64_t[]>(kPageWords);
    const uint64_t bit = row & kPageMask;
    page[bit / 64] |= uint64_t{1} << (bit % 64);
  }
  void AddRange(uint64_t base, uint64_t count) {
    for (uint64_t i = 0; i < count; ++i) Add(base + i);
  }

 private:
  static constexpr unsigned kPageBits = 16;
  static constexpr uint64_t kPageMask = (uint64_t{1} << kPageBits) - 1;
  static constexpr size_t kPageWords = (size_t{1} << kPageBits) / 64;
  std::unordered_map<uint64_t, std::unique_ptr<uint64_t[]>> pages_;
};

enum MemoryId { kLocal, kAcc, kDram0, kDram1 };
constexpr const char* kMemoryNames[] = {"local", "accumulator", "DRAM0", "DRAM1"};

// Rows an instruction touches on one side: address + i * 2^stride, i = 0..size.
struct Rows {
  MemoryId memory;
  uint64_t address, stride, size;
  uint64_t At(uint64_t i) const { return address + (i << stride); }
};

class Dataflow {
 public:
  Dataflow(const Program& program, const Model& model, const Layout& layout, DiagnosticSink& sink)
      : program_(program), model_(model), layout_(layout), sink_(sink) {
    for (const IoEntry& input : model.inputs) defined_[kDram0].AddRange(input.base, input.size);
    if (!model.consts.empty()) {
      const FileEntry& consts = model.consts.front();
      defined_[model.load_consts_to_local ? kLocal : kDram1].AddRange(consts.base, consts.size);
    }
  }

  void Run(const Instruction& in, uint64_t index) {
    index_ = index;
    const Fields f = FieldsOf(in, layout_);
    switch (in.opcode()) {
      case kMatMul:
        MatMul(in, f);
        break;
      case kDataMove:
        DataMove(in, f);
        break;
      case kLoadWeights:
        LoadWeights(in, f);
        break;
      case kSimd:
        Simd(in, f);
        break;
      default:
        break;
    }
  }

  // TNS-28
  void CheckOutputs() {
    for (size_t o = 0; o < model_.outputs.size(); ++o) {
      const IoEntry& out = model_.outputs[o];
      for (uint64_t i = 0; i < out.size; ++i) {
        if (stored_.Has(out.base + i)) continue;
        sink_.Report(rules::kFlowOutputUnwritten, model_.offsets.At(Str("/outputs/", o)),
                     Str("output ", Quoted(out.name), " row ", Hex(out.base + i),
                         " is never written by a Local->DRAM0 DataMove"));
        break;
      }
    }
  }

 private:
  Location Here() const { return InstructionAt(program_, layout_, index_); }

  // TNS-27 (or TNS-30 for an accumulating read): one report per instruction.
  void Read(const Rows& rows, const Rule& rule = rules::kFlowUninitialized) {
    for (uint64_t i = 0; i <= rows.size; ++i) {
      const uint64_t row = rows.At(i);
      if (defined_[rows.memory].Has(row)) continue;
      sink_.Report(rule, Here(),
                   Str(&rule == &rules::kFlowUninitialized ? "reads " : "accumulates into ",
                       kMemoryNames[rows.memory], " row ", Hex(row),
                       ", which holds no input or constant and was not written before"));
      return;
    }
  }

  void Write(const Rows& rows) {
    for (uint64_t i = 0; i <= rows.size; ++i) defined_[rows.memory].Add(rows.At(i));
  }

  // TNS-29
  void CheckWeightsLoaded() {
    if (weights_loaded_ || reset_reported_) return;
    reset_reported_ = true;
    sink_.Report(rules::kFlowResetWeights, Here(),
                 "MatMul before any LoadWeights multiplies by the reset (zero) weights");
  }

  void MatMul(const Instruction& in, const Fields& f) {
    CheckWeightsLoaded();
    const Rows acc{kAcc, f.address1, f.stride1, f.size};
    if (!(in.flags() & kMatMulZeroes)) Read({kLocal, f.address0, f.stride0, f.size});
    if (in.flags() & kMatMulAccumulate) Read(acc, rules::kFlowAccumulateUnwritten);
    Write(acc);
  }

  void DataMove(const Instruction& in, const Fields& f) {
    const Rows local{kLocal, f.address0, f.stride0, f.size};
    switch (in.flags()) {
      case kDram0ToLocal:
        Read({kDram0, f.address1, f.stride1, f.size});
        Write(local);
        break;
      case kDram1ToLocal:
        Read({kDram1, f.address1, f.stride1, f.size});
        Write(local);
        break;
      case kAccToLocal:
        Read({kAcc, f.address1, f.stride1, f.size});
        Write(local);
        break;
      case kLocalToDram0: {
        const Rows dram0{kDram0, f.address1, f.stride1, f.size};
        Read(local);
        Write(dram0);
        for (uint64_t i = 0; i <= f.size; ++i) stored_.Add(dram0.At(i));
        break;
      }
      case kLocalToDram1:
        Read(local);
        Write({kDram1, f.address1, f.stride1, f.size});
        break;
      case kLocalToAcc:
        Read(local);
        Write({kAcc, f.address1, f.stride1, f.size});
        break;
      case kLocalToAccAccumulate: {
        const Rows acc{kAcc, f.address1, f.stride1, f.size};
        Read(local);
        Read(acc, rules::kFlowAccumulateUnwritten);
        Write(acc);
        break;
      }
    }
  }

  void LoadWeights(const Instruction& in, const Fields& f) {
    weights_loaded_ = true;
    if (!(in.flags() & kLoadWeightsZeroes)) Read({kLocal, f.address0, f.stride0, in.operand1});
  }

  // Registers start at zero in both the emulator and the RTL reset; only the
  // accumulator side is tracked.
  void Simd(const Instruction& in, const Fields& f) {
    if (in.flags() & kSimdRead) Read({kAcc, f.address1, 0, 0});
    if ((in.flags() & kSimdWrite) && f.simd_dest == 0) {
      const Rows acc{kAcc, f.address0, 0, 0};
      if (in.flags() & kSimdAccumulate) Read(acc, rules::kFlowAccumulateUnwritten);
      Write(acc);
    }
  }

  const Program& program_;
  const Model& model_;
  const Layout& layout_;
  DiagnosticSink& sink_;
  RowSet defined_[4];
  RowSet stored_;  // DRAM0 rows written by Local->DRAM0
  uint64_t index_ = 0;
  bool weights_loaded_ = false;
  bool reset_reported_ = false;
};

}  // namespace

bool CheckDataflow(const Program& program, const Model& model, const Layout& layout,
                   const Deadline& deadline, DiagnosticSink& sink) {
  Dataflow flow(program, model, layout, sink);
  const uint64_t count = program.bytes.size() / layout.instruction_bytes;
  for (uint64_t i = 0; i < count; ++i) {
    if ((i & 0x3ff) == 0 && deadline.expired()) return false;
    flow.Run(DecodeAt(program.bytes, i, layout), i);
  }
  flow.CheckOutputs();
  return true;
}

}  // namespace accelcheck::tensil
