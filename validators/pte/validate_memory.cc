// Whole-program pass over the memory plan: planned tensors that are live at
// the same time must not share bytes (pte.memory.live_overlap), and planned
// tensors are written before they are read (#61).
#include <algorithm>
#include <limits>
#include <tuple>
#include <vector>

#include "validators/core/text.h"
#include "validators/pte/validate.h"

namespace accelcheck::pte {

namespace {

using fb::KernelTypes;

// One planned tensor with bytes: [offset, end) of buffer memory_id, live
// over the instruction times [first, last] (inclusive, like the ExecuTorch
// memory planner's lifetimes).
struct Planned {
  uint32_t value;
  uint32_t memory_id;
  uint64_t offset;
  uint64_t end;
  int64_t first = std::numeric_limits<int64_t>::max();
  int64_t last = std::numeric_limits<int64_t>::min();
  uint32_t place = 0;    // tensors with the same memory_id, offset and end share one
  bool written = false;  // #61: by an input, an initial value or an instruction
  // #61: the first read before any write (instruction time, chain, index,
  // argument position, the value read), reported once the whole plan is seen.
  int64_t unwritten_read = -1;
  uint32_t read_chain = 0;
  uint32_t read_instruction = 0;
  uint32_t read_arg = 0;
  int32_t read_value = 0;
};

// Liveness over the plan's chains. Time 0 is before the first instruction,
// instruction k of the whole plan (chains in order) runs at time k + 1, and
// time `end` is after the last one.
class Liveness {
 public:
  Liveness(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p)
      : ctx_(ctx), plan_(plan), p_(p), n_(plan.values()->size()), slot_(n_, -1), alias_(n_) {
    for (uint32_t i = 0; i < n_; ++i) alias_[i] = i;
    for (uint32_t i = 0; i < n_; ++i) AddIfPlanned(i);
    AssignPlaces();
  }

  std::vector<Planned>& planned() { return planned_; }

  void Run() {
    uint32_t total = 0;
    for (const auto* chain : *plan_.chains()) total += chain->instructions()->size();
    const int64_t end = int64_t{total} + 1;
    for (Planned& t : planned_) {
      // Initial values (mutable state, external data) are loaded at init and
      // persist across executions.
      if (SourceOf(*TensorAt(plan_, t.value)) == DataSource::kPlanned) continue;
      Touch(t, 0);
      Touch(t, end);
      t.written = true;
      place_written_[t.place] = 1;
    }
    for (const int32_t input : *plan_.inputs()) Write(input, 0);
    int64_t time = 1;
    for (uint32_t c = 0; c < plan_.chains()->size(); ++c) {
      const fb::Chain& chain = *plan_.chains()->Get(c);
      if (chain.inputs()) {
        for (const int32_t v : *chain.inputs()) Write(v, time);
      }
      const auto* instructions = chain.instructions();
      for (uint32_t j = 0; j < instructions->size(); ++j) {
        Step(*instructions->Get(j), c, j, time + j);
        if (const auto* jump = instructions->Get(j)->instr_args_as_JumpFalseCall()) {
          const int32_t destination = jump->destination_instruction();
          if (destination <= static_cast<int32_t>(j)) loops_.push_back({time + destination, time + j});
        }
      }
      time += instructions->size();
      if (chain.outputs()) {
        for (const int32_t v : *chain.outputs()) Read(v, time - 1);
      }
    }
    for (const int32_t output : *plan_.outputs()) Read(output, end);
    ReportUnwrittenReads();
    ExtendOverLoops();
  }

 private:
  struct Loop {
    int64_t begin;
    int64_t end;
  };

  void AddIfPlanned(uint32_t i) {
    const fb::Tensor* tensor = TensorAt(plan_, i);
    if (tensor == nullptr || tensor->allocation_info() == nullptr) return;
    const auto nbytes = TensorNbytes(*tensor);
    // Zero-byte tensors hold no bytes, so they never overlap.
    if (!nbytes || *nbytes == 0) return;
    const auto* info = tensor->allocation_info();
    const uint64_t offset =
        uint64_t{info->memory_offset_low()} | (uint64_t{info->memory_offset_high()} << 32);
    slot_[i] = static_cast<int32_t>(planned_.size());
    planned_.push_back(Planned{i, info->memory_id(), offset, offset + *nbytes});
  }

  static void Touch(Planned& t, int64_t time) {
    t.first = std::min(t.first, time);
    t.last = std::max(t.last, time);
  }

  // Calls `f` with the planned tensor behind `value` (following MoveCalls),
  // or with each item's for a tensor list.
  template <typename F>
  void ForEachStorage(int32_t value, F f) {
    if (value < 0 || static_cast<uint32_t>(value) >= n_) return;
    const fb::EValue* v = plan_.values()->Get(static_cast<uint32_t>(value));
    const flatbuffers::Vector<int32_t>* items = nullptr;
    if (v->val_type() == KernelTypes::TensorList) items = v->val_as_TensorList()->items();
    if (v->val_type() == KernelTypes::OptionalTensorList) {
      items = v->val_as_OptionalTensorList()->items();
    }
    if (items == nullptr) {
      const int32_t s = slot_[alias_[value]];
      if (s >= 0) f(planned_[s]);
      return;
    }
    for (const int32_t item : *items) {
      if (item < 0 || static_cast<uint32_t>(item) >= n_) continue;
      const int32_t s = slot_[alias_[item]];
      if (s >= 0) f(planned_[s]);
    }
  }

  void Write(int32_t value, int64_t time) {
    ForEachStorage(value, [&](Planned& t) {
      Touch(t, time);
      t.written = true;
      place_written_[t.place] = 1;
    });
  }
  void Read(int32_t value, int64_t time) {
    ForEachStorage(value, [&](Planned& t) { Touch(t, time); });
  }
  // #61: remembers the first read of a planned tensor nothing wrote yet.
  void ReadChecked(int32_t value, int64_t time, uint32_t c, uint32_t j, uint32_t k) {
    ForEachStorage(value, [&](Planned& t) {
      Touch(t, time);
      if (t.written || place_written_[t.place] || t.unwritten_read >= 0) return;
      t.unwritten_read = time;
      t.read_chain = c;
      t.read_instruction = j;
      t.read_arg = k;
      t.read_value = value;
    });
  }

  // A tensor that one instruction alone touches and nothing ever writes is
  // that kernel's workspace: a mutable argument other than `out`, which only
  // the op schema could name (cortex_m kernels take scratch buffers).
  void ReportUnwrittenReads() {
    for (const Planned& t : planned_) {
      if (t.unwritten_read < 0 || (t.first == t.last && !t.written)) continue;
      ctx_.Report(rules::kDataflowReadBeforeWrite, TensorAt(plan_, t.value),
                  Str(PlanPath(p_), ".chains[", t.read_chain, "].instructions[",
                      t.read_instruction, "].instr_args.args[", t.read_arg, "]"),
                  Str("argument value ", t.read_value, " reads planned tensor value ", t.value,
                      " before any input, initial value or earlier instruction writes it"));
    }
  }

  // Tensors with the same buffer, offset and size share a place: the memory
  // planner gives a view (a reshape it removed) its base's bytes, so writing
  // one is writing the other (#61).
  void AssignPlaces() {
    std::vector<uint32_t> order(planned_.size());
    for (uint32_t s = 0; s < order.size(); ++s) order[s] = s;
    const auto place = [&](uint32_t s) {
      return std::tuple{planned_[s].memory_id, planned_[s].offset, planned_[s].end};
    };
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return place(a) < place(b); });
    uint32_t places = 0;
    for (size_t k = 0; k < order.size(); ++k) {
      if (k > 0 && place(order[k]) != place(order[k - 1])) ++places;
      planned_[order[k]].place = places;
    }
    place_written_.assign(order.empty() ? 0 : places + 1, 0);
  }

  static bool InList(const fb::ExecutionPlan& plan, int32_t list, int32_t value) {
    const fb::EValue* v = plan.values()->Get(static_cast<uint32_t>(list));
    const auto* tl = v->val_as_TensorList();
    if (tl == nullptr || tl->items() == nullptr) return false;
    return std::find(tl->items()->begin(), tl->items()->end(), value) != tl->items()->end();
  }

  // KernelCall convention (spec/pte.md §7): the last argument is the return
  // value (the out tensor, or a TensorList of the outs); the outs also appear
  // in their schema positions. Everything else is read.
  void StepKernel(const fb::KernelCall& call, uint32_t c, uint32_t j, int64_t time) {
    const auto* args = call.args();
    if (args->size() == 0) return;
    const int32_t ret = args->Get(args->size() - 1);
    for (uint32_t k = 0; k + 1 < args->size(); ++k) {
      const int32_t a = args->Get(k);
      if (a == ret || InList(plan_, ret, a)) continue;
      ReadChecked(a, time, c, j, k);
    }
    Write(ret, time);
  }

  void Step(const fb::Instruction& instruction, uint32_t c, uint32_t j, int64_t time) {
    switch (instruction.instr_args_type()) {
      case fb::InstructionArguments::KernelCall:
        StepKernel(*instruction.instr_args_as_KernelCall(), c, j, time);
        break;
      case fb::InstructionArguments::DelegateCall:
        // Delegate arguments are opaque: inputs then outputs, split unknown.
        for (const int32_t a : *instruction.instr_args_as_DelegateCall()->args()) Write(a, time);
        break;
      case fb::InstructionArguments::MoveCall: {
        // values[to] = values[from]: `to` now shares from's storage.
        const auto* move = instruction.instr_args_as_MoveCall();
        Read(move->move_from(), time);
        alias_[move->move_to()] = alias_[move->move_from()];
        break;
      }
      case fb::InstructionArguments::JumpFalseCall:
        Read(instruction.instr_args_as_JumpFalseCall()->cond_value_index(), time);
        break;
      case fb::InstructionArguments::FreeCall:
        Read(instruction.instr_args_as_FreeCall()->value_index(), time);
        break;
      default:
        break;
    }
  }

  // A tensor live across a backward jump's edge is live over the whole loop.
  void ExtendOverLoops() {
    for (const Loop& loop : loops_) {
      for (Planned& t : planned_) {
        if (t.first > t.last || t.last < loop.begin || t.first > loop.end) continue;
        if (t.first < loop.begin || t.last > loop.end) {
          t.first = std::min(t.first, loop.begin);
          t.last = std::max(t.last, loop.end);
        }
      }
    }
  }

  const ProgramContext& ctx_;
  const fb::ExecutionPlan& plan_;
  uint32_t p_;
  uint32_t n_;
  std::vector<int32_t> slot_;   // value -> index in planned_, or -1
  std::vector<uint32_t> alias_;  // value -> the value whose storage it uses
  std::vector<Planned> planned_;
  std::vector<uint8_t> place_written_;
  std::vector<Loop> loops_;
};

// Range-maximum over the planned tensors in (memory_id, offset) order of the
// end byte of the live ones, so that "does a live tensor overlap [b, e)" is
// one O(log n) query.
class MaxEndTree {
 public:
  explicit MaxEndTree(size_t n) {
    while (size_ < n) size_ *= 2;
    end_.assign(2 * size_, 0);
    who_.assign(2 * size_, 0);
  }
  void Set(size_t rank, uint64_t end, uint32_t who) {
    size_t i = rank + size_;
    end_[i] = end;
    who_[i] = who;
    for (i /= 2; i >= 1; i /= 2) {
      const size_t better = end_[2 * i] >= end_[2 * i + 1] ? 2 * i : 2 * i + 1;
      end_[i] = end_[better];
      who_[i] = who_[better];
    }
  }
  // The largest end in ranks [lo, hi), and whose it is.
  std::pair<uint64_t, uint32_t> Max(size_t lo, size_t hi) const {
    std::pair<uint64_t, uint32_t> best{0, 0};
    for (lo += size_, hi += size_; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) best = std::max(best, std::pair{end_[lo], who_[lo]}, Less), ++lo;
      if (hi & 1) --hi, best = std::max(best, std::pair{end_[hi], who_[hi]}, Less);
    }
    return best;
  }

 private:
  static bool Less(const std::pair<uint64_t, uint32_t>& a, const std::pair<uint64_t, uint32_t>& b) {
    return a.first < b.first;
  }
  size_t size_ = 1;
  std::vector<uint64_t> end_;
  std::vector<uint32_t> who_;
};

void ReportOverlap(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                   const Planned& a, const Planned& b) {
  ctx.Report(rules::kMemoryLiveOverlap, TensorAt(plan, a.value)->allocation_info(),
             Str(ValuePath(p, a.value), ".val.allocation_info"),
             Str("planned tensor value ", a.value, " [", Hex(a.offset), ", ", Hex(a.end),
                 ") of buffer ", a.memory_id, ", live over instructions [", a.first - 1, ", ",
                 a.last - 1, "], overlaps value ", b.value, " [", Hex(b.offset), ", ", Hex(b.end),
                 "), live over [", b.first - 1, ", ", b.last - 1, "]"));
}

// Sweep over time: insert tensors as they become live, drop those whose
// lifetime ended, and query the byte ranges of the live ones.
void CheckLiveOverlap(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                      std::vector<Planned>& planned) {
  std::vector<uint32_t> live;  // touched tensors
  for (uint32_t s = 0; s < planned.size(); ++s) {
    if (planned[s].first <= planned[s].last) live.push_back(s);
  }
  if (live.size() < 2) return;
  std::vector<uint32_t> by_place = live;
  std::sort(by_place.begin(), by_place.end(), [&](uint32_t a, uint32_t b) {
    return std::pair{planned[a].memory_id, planned[a].offset} <
           std::pair{planned[b].memory_id, planned[b].offset};
  });
  std::vector<uint32_t> rank(planned.size(), 0);
  for (uint32_t r = 0; r < by_place.size(); ++r) rank[by_place[r]] = r;
  const auto lower = [&](uint32_t memory_id, uint64_t offset) {
    return static_cast<size_t>(
        std::lower_bound(by_place.begin(), by_place.end(), std::pair{memory_id, offset},
                         [&](uint32_t s, const std::pair<uint32_t, uint64_t>& key) {
                           return std::pair{planned[s].memory_id, planned[s].offset} < key;
                         }) -
        by_place.begin());
  };
  std::vector<uint32_t> by_first = live;
  std::sort(by_first.begin(), by_first.end(),
            [&](uint32_t a, uint32_t b) { return planned[a].first < planned[b].first; });
  std::vector<uint32_t> by_last = live;
  std::sort(by_last.begin(), by_last.end(),
            [&](uint32_t a, uint32_t b) { return planned[a].last < planned[b].last; });

  MaxEndTree tree(by_place.size());
  size_t expired = 0;
  for (const uint32_t s : by_first) {
    const Planned& t = planned[s];
    for (; expired < by_last.size() && planned[by_last[expired]].last < t.first; ++expired) {
      tree.Set(rank[by_last[expired]], 0, 0);
    }
    const size_t lo = lower(t.memory_id, 0);
    const size_t hi = lower(t.memory_id, t.end);
    const auto [max_end, who] = tree.Max(lo, hi);
    if (max_end > t.offset) ReportOverlap(ctx, plan, p, t, planned[who]);
    tree.Set(rank[s], t.end, s);
  }
}

}  // namespace

void ValidateMemoryPlan(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p) {
  if (plan.values() == nullptr || plan.chains() == nullptr || plan.inputs() == nullptr ||
      plan.outputs() == nullptr) {
    return;
  }
  Liveness liveness(ctx, plan, p);
  if (liveness.planned().empty()) return;
  liveness.Run();
  CheckLiveOverlap(ctx, plan, p, liveness.planned());
}

}  // namespace accelcheck::pte
