// Whole-program pass over the memory plan: planned tensors that are live at
// the same time must not share bytes (pte.memory.live_overlap, PTE-65), and
// planned tensors are written before they are read (PTE-61). A view and its
// base, and an in-place result and its input, are one storage (PTE-66).
//
// Programs carry up to millions of planned tensors, so the pass works on flat
// arrays indexed by planned tensor (a "slot", its index in
// PlanFacts::planned): one radix sort by place, which also proves most plans
// free of shared bytes so that the liveness sweep is skipped, and counting
// sorts by time when it is not.
#include <algorithm>
#include <array>
#include <limits>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "validators/core/text.h"
#include "validators/pte/validate.h"

namespace accelcheck::pte {

namespace {

using fb::KernelTypes;

// Instruction times: 0 is before the first instruction, instruction k of the
// whole plan (chains in order) runs at time k + 1, and time `end` is after
// the last one.
using Time = int64_t;

// Live over [first, last], inclusive like the ExecuTorch memory planner's
// lifetimes; first > last until something touches the tensor.
struct Lifetime {
  Time first = std::numeric_limits<Time>::max();
  Time last = std::numeric_limits<Time>::min();
  bool touched() const { return first <= last; }
};

// PTE-61: the first read of a planned tensor before anything wrote it: the
// instruction's time, chain, index, argument position and the value read.
struct UnwrittenRead {
  uint32_t slot;
  Time time;
  uint32_t chain;
  uint32_t instruction;
  uint32_t arg;
  int32_t value;
};

// PTE-66: an instruction that may make `result` share the storage of `base`
// (both slots), at time `time`.
struct SharingCandidate {
  uint32_t base;
  uint32_t result;
  Time time;
};

// One planned tensor in the sort by place.
struct PlaceKey {
  uint64_t offset;
  uint32_t memory_id;
  uint32_t slot;
};

bool PlaceLess(const PlaceKey& a, const PlaceKey& b) {
  return a.memory_id != b.memory_id ? a.memory_id < b.memory_id : a.offset < b.offset;
}

// Byte `d` of the sort key (memory_id, offset): offset bytes 0-7, then
// memory_id bytes 0-3.
constexpr int kKeyBytes = 12;
uint32_t KeyByte(const PlaceKey& k, int d) {
  return d < 8 ? static_cast<uint32_t>(k.offset >> (8 * d)) & 0xff
               : (k.memory_id >> (8 * (d - 8))) & 0xff;
}

// Stable LSD radix sort by (memory_id, offset), one pass per key byte on
// which the keys differ: a few linear passes where a comparison sort of a
// million planned tensors would dominate the validation time.
void SortByPlace(std::vector<PlaceKey>& keys) {
  if (keys.size() < 2) return;
  uint64_t offset_bits = 0;
  uint32_t id_bits = 0;
  for (const PlaceKey& k : keys) {
    offset_bits |= k.offset ^ keys[0].offset;
    id_bits |= k.memory_id ^ keys[0].memory_id;
  }
  std::vector<int> digits;  // the key bytes that vary
  for (int d = 0; d < kKeyBytes; ++d) {
    const uint64_t bits = d < 8 ? offset_bits >> (8 * d) : id_bits >> (8 * (d - 8));
    if ((bits & 0xff) != 0) digits.push_back(d);
  }
  std::vector<std::array<uint32_t, 257>> start(digits.size());
  for (auto& s : start) s.fill(0);
  for (const PlaceKey& k : keys) {
    for (size_t i = 0; i < digits.size(); ++i) ++start[i][KeyByte(k, digits[i]) + 1];
  }
  std::vector<PlaceKey> scratch(keys.size());
  for (size_t i = 0; i < digits.size(); ++i) {
    auto& next = start[i];
    for (size_t b = 1; b < next.size(); ++b) next[b] += next[b - 1];
    for (const PlaceKey& k : keys) scratch[next[KeyByte(k, digits[i])]++] = k;
    keys.swap(scratch);
  }
}

// Liveness over the plan's chains, on the planned tensors ValidateTensors
// recorded.
class Liveness {
 public:
  Liveness(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
           const PlanFacts& facts)
      : ctx_(ctx),
        plan_(plan),
        p_(p),
        facts_(facts),
        planned_(facts.planned),
        n_(plan.values()->size()),
        slot_(n_, -1),
        life_(planned_.size()),
        flags_(planned_.size(), 0),
        storage_(planned_.size()) {
    for (uint32_t s = 0; s < planned_.size(); ++s) {
      slot_[planned_[s].value] = static_cast<int32_t>(s);
      storage_[s] = s;
    }
    OrderByPlace();
    AssignPlaces();
  }

  void Run() {
    uint64_t total = 0;
    for (const auto* chain : *plan_.chains()) total += chain->instructions()->size();
    end_ = static_cast<Time>(total) + 1;
    for (uint32_t s = 0; s < planned_.size(); ++s) {
      // Initial values (mutable state, external data) are loaded at init and
      // persist across executions.
      if (facts_.values[planned_[s].value].source == DataSource::kPlanned) continue;
      Touch(s, 0);
      Touch(s, end_);
      MarkWritten(s);
    }
    for (const int32_t input : *plan_.inputs()) Write(input, 0);
    Time time = 1;
    for (uint32_t c = 0; c < plan_.chains()->size(); ++c) {
      const fb::Chain& chain = *plan_.chains()->Get(c);
      if (chain.inputs()) {
        for (const int32_t v : *chain.inputs()) Write(v, time);
      }
      const auto* instructions = chain.instructions();
      for (uint32_t j = 0; j < instructions->size(); ++j) {
        const fb::Instruction& instruction = *instructions->Get(j);
        Step(instruction, c, j, time + j);
        if (const auto* jump = instruction.instr_args_as_JumpFalseCall()) {
          const int32_t destination = jump->destination_instruction();
          if (destination <= static_cast<int32_t>(j))
            loops_.push_back({time + destination, time + j});
        }
      }
      time += instructions->size();
      if (chain.outputs()) {
        for (const int32_t v : *chain.outputs()) Read(v, time - 1);
      }
    }
    for (const int32_t output : *plan_.outputs()) Read(output, end_);
    ReportUnwrittenReads();
    ShareStorage();
    ExtendOverLoops();
  }

  // Sweep over time: insert tensors as they become live, drop those whose
  // lifetime ended, and query the byte ranges of the live ones. Nothing to
  // do when no two planned tensors share a byte, whatever their lifetimes.
  void CheckLiveOverlap() const;

 private:
  static constexpr uint8_t kWritten = 1;  // PTE-61: by an input, an initial value or an instruction
  static constexpr uint8_t kReadRecorded = 2;  // an UnwrittenRead names it

  struct Loop {
    Time begin;
    Time end;
  };

  // The slot at position k of the order by (memory_id, offset, end).
  uint32_t SlotAt(size_t k) const { return order_.empty() ? static_cast<uint32_t>(k) : order_[k]; }

  static bool PlaceBefore(const PlannedRange& a, const PlannedRange& b) {
    return std::tie(a.memory_id, a.offset, a.end) < std::tie(b.memory_id, b.offset, b.end);
  }

  // Orders the slots by (memory_id, offset, end). A planner that lays
  // tensors out one after another leaves them in that order already, and
  // then nothing is sorted.
  void OrderByPlace() {
    bool sorted = true;
    for (size_t s = 1; s < planned_.size() && sorted; ++s) {
      sorted = !PlaceBefore(planned_[s], planned_[s - 1]);
    }
    if (sorted) return;
    std::vector<PlaceKey> keys(planned_.size());
    for (uint32_t s = 0; s < planned_.size(); ++s) {
      keys[s] = PlaceKey{planned_[s].offset, planned_[s].memory_id, s};
    }
    SortByPlace(keys);
    order_.resize(keys.size());
    for (size_t k = 0; k < keys.size(); ++k) order_[k] = keys[k].slot;
    // Ties on (memory_id, offset) are views and aliases: few, and short runs.
    for (size_t k = 0; k < order_.size();) {
      size_t run = k + 1;
      while (run < order_.size() && keys[run].memory_id == keys[k].memory_id &&
             keys[run].offset == keys[k].offset) {
        ++run;
      }
      if (run - k > 1) {
        std::stable_sort(order_.begin() + k, order_.begin() + run,
                         [&](uint32_t a, uint32_t b) { return planned_[a].end < planned_[b].end; });
      }
      k = run;
    }
  }

  // Tensors with the same buffer, offset and end share a place: the memory
  // planner gives a view (a reshape it removed) its base's bytes, so writing
  // one is writing the other (PTE-61). On the way, notes whether any two
  // tensors share a byte at all.
  void AssignPlaces() {
    place_.resize(planned_.size());
    uint32_t places = 0;
    uint64_t widest_end = 0;  // the largest end so far in this buffer
    for (size_t k = 0; k < planned_.size(); ++k) {
      const uint32_t s = SlotAt(k);
      const PlannedRange& t = planned_[s];
      const PlannedRange* previous = k > 0 ? &planned_[SlotAt(k - 1)] : nullptr;
      const bool same_buffer = previous != nullptr && previous->memory_id == t.memory_id;
      if (!same_buffer) widest_end = 0;
      if (same_buffer && t.offset < widest_end) shared_bytes_ = true;
      if (previous != nullptr &&
          !(same_buffer && previous->offset == t.offset && previous->end == t.end)) {
        ++places;
      }
      place_[s] = places;
      widest_end = std::max(widest_end, t.end);
    }
    place_written_.assign(planned_.empty() ? 0 : places + 1, 0);
  }

  uint32_t Alias(uint32_t value) const { return alias_.empty() ? value : alias_[value]; }

  void Touch(uint32_t s, Time time) {
    Lifetime& life = life_[s];
    life.first = std::min(life.first, time);
    life.last = std::max(life.last, time);
  }

  void MarkWritten(uint32_t s) {
    flags_[s] |= kWritten;
    place_written_[place_[s]] = 1;
  }

  // Calls `f` with the slot of the planned tensor behind `value` (following
  // MoveCalls), or with each item's for a tensor list.
  template <typename F>
  void ForEachStorage(int32_t value, F f) {
    if (value < 0 || static_cast<uint32_t>(value) >= n_) return;
    const KernelTypes type = facts_.TypeOf(static_cast<uint32_t>(value));
    if (type != KernelTypes::TensorList && type != KernelTypes::OptionalTensorList) {
      const int32_t s = slot_[Alias(static_cast<uint32_t>(value))];
      if (s >= 0) f(static_cast<uint32_t>(s));
      return;
    }
    for (const int32_t item : ItemsOf(value)) {
      if (item < 0 || static_cast<uint32_t>(item) >= n_) continue;
      const int32_t s = slot_[Alias(static_cast<uint32_t>(item))];
      if (s >= 0) f(static_cast<uint32_t>(s));
    }
  }

  // The items of a TensorList or OptionalTensorList value.
  std::span<const int32_t> ItemsOf(int32_t list) const {
    const fb::EValue* v = plan_.values()->Get(static_cast<uint32_t>(list));
    const flatbuffers::Vector<int32_t>* items = nullptr;
    if (const auto* tl = v->val_as_TensorList()) items = tl->items();
    if (const auto* otl = v->val_as_OptionalTensorList()) items = otl->items();
    if (items == nullptr) return {};
    return {items->data(), items->size()};
  }

  void Write(int32_t value, Time time) {
    ForEachStorage(value, [&](uint32_t s) {
      Touch(s, time);
      MarkWritten(s);
    });
  }
  void Read(int32_t value, Time time) {
    ForEachStorage(value, [&](uint32_t s) { Touch(s, time); });
  }
  // PTE-61: remembers the first read of a planned tensor nothing wrote yet.
  void ReadChecked(int32_t value, Time time, uint32_t c, uint32_t j, uint32_t k) {
    ForEachStorage(value, [&](uint32_t s) {
      Touch(s, time);
      if (place_written_[place_[s]] || (flags_[s] & kReadRecorded)) return;
      flags_[s] |= kReadRecorded;
      unwritten_reads_.push_back(UnwrittenRead{s, time, c, j, k, value});
    });
  }

  // A tensor that one instruction alone touches and nothing ever writes is
  // that kernel's workspace: a mutable argument other than `out`, which only
  // the op schema could name (cortex_m kernels take scratch buffers).
  void ReportUnwrittenReads() {
    std::sort(unwritten_reads_.begin(), unwritten_reads_.end(),
              [](const UnwrittenRead& a, const UnwrittenRead& b) { return a.slot < b.slot; });
    for (const UnwrittenRead& read : unwritten_reads_) {
      const Lifetime& life = life_[read.slot];
      if (life.first == life.last && !(flags_[read.slot] & kWritten)) continue;
      const uint32_t value = planned_[read.slot].value;
      ctx_.Report(rules::kDataflowReadBeforeWrite, TensorAt(plan_, value),
                  Str(PlanPath(p_), ".chains[", read.chain, "].instructions[", read.instruction,
                      "].instr_args.args[", read.arg, "]"),
                  Str("argument value ", read.value, " reads planned tensor value ", value,
                      " before any input, initial value or earlier instruction writes it"));
    }
  }

  // Whether `value` is an item of the TensorList `list`.
  bool InList(int32_t list, int32_t value) const {
    if (facts_.TypeOf(static_cast<uint32_t>(list)) != KernelTypes::TensorList) return false;
    const auto items = ItemsOf(list);
    return std::find(items.begin(), items.end(), value) != items.end();
  }

  // KernelCall convention (docs/formats/pte.md §7): the last argument is the return
  // value (the out tensor, or a TensorList of the outs); the outs also appear
  // in their schema positions. Everything else is read.
  void StepKernel(const fb::KernelCall& call, uint32_t c, uint32_t j, Time time) {
    const auto* args = call.args();
    if (args->size() == 0) return;
    const int32_t ret = args->Get(args->size() - 1);
    for (uint32_t k = 0; k + 1 < args->size(); ++k) {
      const int32_t a = args->Get(k);
      if (a == ret || InList(ret, a)) continue;
      ReadChecked(a, time, c, j, k);
    }
    Write(ret, time);
    NoteSharing(call, time);
  }

  bool IsTensor(int32_t value) const {
    return value >= 0 && static_cast<uint32_t>(value) < n_ &&
           facts_.TypeOf(static_cast<uint32_t>(value)) == KernelTypes::Tensor;
  }

  // The planned tensor behind a Tensor value (following MoveCalls), or -1.
  int32_t TensorSlot(int32_t value) const {
    return IsTensor(value) ? slot_[Alias(static_cast<uint32_t>(value))] : -1;
  }

  // PTE-66: et_view's args are [self, size, out] with no separate return
  // value; the runtime points out at self's data.
  bool IsView(const fb::KernelCall& call) const {
    const auto* operators = plan_.operators();
    if (operators == nullptr || call.op_index() < 0 ||
        static_cast<uint32_t>(call.op_index()) >= operators->size()) {
      return false;
    }
    const fb::Operator* op = operators->Get(static_cast<uint32_t>(call.op_index()));
    return op->name() != nullptr && op->overload() != nullptr &&
           op->name()->string_view() == "executorch_prim::et_view" &&
           op->overload()->string_view() == "default" && call.args()->size() == 3;
  }

  // PTE-66: remembers the pairs that may share storage. A view shares its
  // input's; an out variant's result may share its first tensor argument's,
  // which is where the memory planner puts an in-place result.
  void NoteSharing(const fb::KernelCall& call, Time time) {
    const auto* args = call.args();
    const int32_t ret = args->Get(args->size() - 1);
    const int32_t result = TensorSlot(ret);
    if (result < 0) return;
    int32_t base = -1;
    if (IsView(call)) {
      base = TensorSlot(args->Get(0));
      if (base >= 0)
        views_.push_back({static_cast<uint32_t>(base), static_cast<uint32_t>(result), time});
      return;
    }
    // The first tensor argument; unplanned, it shares with nothing.
    for (uint32_t k = 0; k + 1 < args->size(); ++k) {
      const int32_t a = args->Get(k);
      if (a == ret || !IsTensor(a)) continue;
      base = TensorSlot(a);
      break;
    }
    if (base >= 0 && base != result)
      in_place_.push_back({static_cast<uint32_t>(base), static_cast<uint32_t>(result), time});
  }

  void Step(const fb::Instruction& instruction, uint32_t c, uint32_t j, Time time) {
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
        if (alias_.empty()) {
          alias_.resize(n_);
          for (uint32_t i = 0; i < n_; ++i) alias_[i] = i;
        }
        alias_[static_cast<uint32_t>(move->move_to())] =
            Alias(static_cast<uint32_t>(move->move_from()));
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

  // PTE-66: the storage a slot belongs to, by its first slot.
  uint32_t StorageOf(uint32_t s) const {
    while (storage_[s] != s) s = storage_[s];
    return s;
  }

  // Makes `member`'s storage part of `owner`'s, which keeps its bytes and
  // lives over both lifetimes.
  void JoinStorage(uint32_t owner, uint32_t member) {
    owner = StorageOf(owner);
    member = StorageOf(member);
    if (owner == member) return;
    storage_[member] = owner;
    Lifetime& life = life_[owner];
    life.first = std::min(life.first, life_[member].first);
    life.last = std::max(life.last, life_[member].last);
    life_[member] = Lifetime{};  // the sweep sees the storage once, as its owner
    sharers_.push_back(member);
  }

  bool SameBytes(uint32_t a, uint32_t b) const {
    const PlannedRange& x = planned_[a];
    const PlannedRange& y = planned_[b];
    return x.memory_id == y.memory_id && x.offset == y.offset && x.end == y.end;
  }

  // PTE-66: the memory planner puts an in-place result at its input's
  // offset, within its bytes, and only when the input is not used after the
  // instruction: the two meet at that instruction and nowhere else.
  bool IsInPlace(const SharingCandidate& c) const {
    const uint32_t base = StorageOf(c.base);
    const uint32_t result = StorageOf(c.result);
    const PlannedRange& b = planned_[base];
    const PlannedRange& r = planned_[c.result];
    return base != result && r.memory_id == b.memory_id && r.offset == b.offset && r.end <= b.end &&
           life_[base].last == c.time && life_[result].first == c.time;
  }

  // PTE-66: a view whose bytes are exactly its input's shares its input's
  // storage, then in-place results join their input's. Every other pair
  // of tensors stays apart.
  void ShareStorage() {
    for (const SharingCandidate& v : views_) {
      if (SameBytes(v.base, v.result)) JoinStorage(v.base, v.result);
    }
    for (const SharingCandidate& c : in_place_) {
      if (IsInPlace(c)) JoinStorage(c.base, c.result);
    }
  }

  // " (one storage with values 46, 47)" for a storage that holds more than
  // one planned tensor, else "".
  std::string SharersText(uint32_t owner) const {
    std::string values;
    for (const uint32_t s : sharers_) {
      if (StorageOf(s) == owner) values += Str(values.empty() ? "" : ", ", planned_[s].value);
    }
    return values.empty() ? "" : Str(" (one storage with value ", values, ")");
  }

  // A tensor live across a backward jump's edge is live over the whole loop.
  void ExtendOverLoops() {
    for (const Loop& loop : loops_) {
      for (Lifetime& life : life_) {
        if (!life.touched() || life.last < loop.begin || life.first > loop.end) continue;
        life.first = std::min(life.first, loop.begin);
        life.last = std::max(life.last, loop.end);
      }
    }
  }

  void ReportOverlap(uint32_t a, uint32_t b) const;
  std::string LiveSpan(const Lifetime& life) const;

  const ProgramContext& ctx_;
  const fb::ExecutionPlan& plan_;
  uint32_t p_;
  const PlanFacts& facts_;
  const std::vector<PlannedRange>& planned_;
  uint32_t n_;
  Time end_ = 0;
  std::vector<int32_t> slot_;    // value -> slot, or -1
  std::vector<uint32_t> alias_;  // value -> the value whose storage it uses; empty: itself
  std::vector<Lifetime> life_;
  std::vector<uint8_t> flags_;
  std::vector<uint32_t> place_;  // slot -> place
  std::vector<uint8_t> place_written_;
  std::vector<uint32_t> order_;  // slots by (memory_id, offset, end); empty: already so
  bool shared_bytes_ = false;    // some two planned tensors share a byte
  std::vector<UnwrittenRead> unwritten_reads_;
  std::vector<Loop> loops_;
  std::vector<uint32_t> storage_;  // slot -> a slot of its storage; itself for an owner
  std::vector<uint32_t> sharers_;  // slots that joined another's storage
  std::vector<SharingCandidate> views_;
  std::vector<SharingCandidate> in_place_;
};

// Range-maximum over the live planned tensors in (memory_id, offset) order
// of their end byte, so that "does a live tensor overlap [b, e)" is one
// O(log n) query.
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

// `slots` in increasing order of `time(slot)`, stable; times lie in [0, end].
template <typename TimeOf>
std::vector<uint32_t> ByTime(const std::vector<uint32_t>& slots, Time end, TimeOf time) {
  std::vector<uint32_t> start(static_cast<size_t>(end) + 2, 0);
  for (const uint32_t s : slots) ++start[static_cast<size_t>(time(s)) + 1];
  for (size_t t = 1; t < start.size(); ++t) start[t] += start[t - 1];
  std::vector<uint32_t> sorted(slots.size());
  for (const uint32_t s : slots) sorted[start[static_cast<size_t>(time(s))]++] = s;
  return sorted;
}

void Liveness::ReportOverlap(uint32_t a, uint32_t b) const {
  const PlannedRange& x = planned_[a];
  const PlannedRange& y = planned_[b];
  ctx_.Report(
      rules::kMemoryLiveOverlap, TensorAt(plan_, x.value)->allocation_info(),
      Str(ValuePath(p_, x.value), ".val.allocation_info"),
      Str("planned tensor value ", x.value, SharersText(a), " [", Hex(x.offset), ", ", Hex(x.end),
          ") of buffer ", x.memory_id, ", ", LiveSpan(life_[a]), ", overlaps value ", y.value,
          SharersText(b), " [", Hex(y.offset), ", ", Hex(y.end), "), ", LiveSpan(life_[b])));
}

// Time 0 is the plan's entry (inputs, initial values), time t the plan's
// instruction t - 1 counted across its chains, end_ its exit (outputs).
std::string Liveness::LiveSpan(const Lifetime& life) const {
  const auto at = [&](Time t) {
    if (t <= 0) return std::string("the plan's entry");
    if (t >= end_) return std::string("the plan's exit");
    return Str("instruction ", t - 1);
  };
  if (life.first == life.last) return "live only at " + at(life.first);
  return Str("live from ", at(life.first), " to ", at(life.last));
}

void Liveness::CheckLiveOverlap() const {
  if (!shared_bytes_) return;
  std::vector<PlaceKey> live;  // touched tensors, by place
  for (size_t k = 0; k < planned_.size(); ++k) {
    const uint32_t s = SlotAt(k);
    if (life_[s].touched()) live.push_back(PlaceKey{planned_[s].offset, planned_[s].memory_id, s});
  }
  if (live.size() < 2) return;
  std::vector<uint32_t> rank(planned_.size(), 0);
  std::vector<uint32_t> slots(live.size());
  for (uint32_t r = 0; r < live.size(); ++r) {
    rank[live[r].slot] = r;
    slots[r] = live[r].slot;
  }
  const auto lower = [&](uint32_t memory_id, uint64_t offset) {
    const PlaceKey key{offset, memory_id, 0};
    return static_cast<size_t>(std::lower_bound(live.begin(), live.end(), key, PlaceLess) -
                               live.begin());
  };
  const auto by_first = ByTime(slots, end_, [&](uint32_t s) { return life_[s].first; });
  const auto by_last = ByTime(slots, end_, [&](uint32_t s) { return life_[s].last; });

  MaxEndTree tree(live.size());
  size_t expired = 0;
  for (const uint32_t s : by_first) {
    const PlannedRange& t = planned_[s];
    for (; expired < by_last.size() && life_[by_last[expired]].last < life_[s].first; ++expired) {
      tree.Set(rank[by_last[expired]], 0, 0);
    }
    const size_t lo = lower(t.memory_id, 0);
    const size_t hi = lower(t.memory_id, t.end);
    const auto [max_end, who] = tree.Max(lo, hi);
    if (max_end > t.offset) ReportOverlap(s, who);
    tree.Set(rank[s], t.end, s);
  }
}

}  // namespace

void ValidateMemoryPlan(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                        const PlanFacts& facts) {
  if (plan.values() == nullptr || plan.chains() == nullptr || plan.inputs() == nullptr ||
      plan.outputs() == nullptr || facts.planned.empty()) {
    return;
  }
  Liveness liveness(ctx, plan, p, facts);
  liveness.Run();
  liveness.CheckLiveOverlap();
}

}  // namespace accelcheck::pte
