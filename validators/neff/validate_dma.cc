// Engine JSONs and their DMA blocks (docs/formats/neff.md §2.10 to §2.13,
// §4 E and H), checked one block at a time as the decoder reads them.
#include <algorithm>
#include <array>
#include <future>
#include <numeric>
#include <set>
#include <span>
#include <unordered_map>

#include "validators/core/beside.h"
#include "validators/core/checked.h"
#include "validators/core/json_reader.h"
#include "validators/core/text.h"
#include "validators/neff/access.h"
#include "validators/neff/rules.h"
#include "validators/neff/validate.h"

namespace accelcheck::neff {

using namespace rules;

namespace {

// Blocks of more descriptors' rows than this are checked for overlapping
// writes by their extents only (NEFF-51).
constexpr uint64_t kMaxOverlapRows = uint64_t{1} << 20;

// The JSON pointer of a block, one of its descriptors or one of a
// descriptor's from_arr sources, spelled out only when a finding needs it.
struct DmaPath {
  uint64_t block = 0;
  std::optional<size_t> desc = std::nullopt;
  std::optional<size_t> source = std::nullopt;

  void AppendTo(std::string& out) const {
    out += Str("/dma/", block);
    if (desc) out += Str("/desc/", *desc);
    if (source) out += Str("/from_arr/", *source);
  }
};

class EngineChecker {
 public:
  EngineChecker(Neff& neff, Subgraph& sg, size_t engine, DiagnosticSink& sink)
      : neff_(neff), sg_(sg), def_(*sg.def), engine_(engine), sink_(sink) {}

  void Block(uint64_t index, const neff::Block& block) {
    const DmaPath path{index};
    const QueueSet* queue = CheckQueue(block, path);
    if (queue != nullptr && block.id && block.semaphore) CheckSemaphore(block, *queue, path);
    if (block.has_desc && block.desc.empty()) {
      sink_.Report(kBlockEmpty, Location{block.offset, std::nullopt, Str(path, "/desc")},
                   "the block's desc list is empty");
    }
    // The rows written matter only when several descriptors write (NEFF-51).
    std::vector<WriteRows> writes;
    const bool several = block.desc.size() > 1;
    for (size_t j = 0; j < block.desc.size(); ++j) {
      CheckDescriptor(block.desc[j], {index, j}, several ? &writes : nullptr, j);
    }
    CheckDisjointWrites(block, writes, path);
    if (block.id && queue != nullptr) {
      sg_.blocks[engine_].push_back({.queue_index = static_cast<size_t>(queue - def_.queues.data()),
                                     .id = *block.id,
                                     .index = index,
                                     .offset = block.offset});
    }
    ++blocks_;
  }

  uint64_t blocks() const { return blocks_; }

 private:
  // A descriptor's write: what it reaches, and its pattern to list the rows
  // of when another write of the block reaches the same bytes.
  struct WriteRows {
    std::string_view var;  // a name of def_, which outlives the block
    AccessCheck extent;
    Pattern pattern;
    size_t desc = 0;
  };
  struct Row {
    uint64_t begin, end;
    size_t desc;
  };

  // NEFF-34: the block's queue set, declared and owned by this engine.
  const QueueSet* CheckQueue(const neff::Block& block, const DmaPath& path) {
    if (!block.queue && !block.instance_name) {
      sink_.Report(kBlockQueue, Location{block.offset, std::nullopt, Str(path)},
                   "the block has neither queue nor instance_name");
      return nullptr;
    }
    if (!block.queue) return nullptr;  // a queue instance, which def.json does not list
    const QueueSet* queue = def_.FindQueue(*block.queue);
    if (queue == nullptr) {
      sink_.Report(
          kBlockQueue, Location{block.offset, std::nullopt, Str(path, "/queue")},
          Str("queue ", Quoted(*block.queue), " is no queue set of ", Quoted(sg_.definition)));
      return nullptr;
    }
    if (queue->owner && queue->owner->value != kEngineKeys[engine_]) {
      sink_.Report(
          kBlockOwner, Location{block.offset, std::nullopt, Str(path, "/queue")},
          Str("queue set ", Quoted(*block.queue), " is owned by ", Quoted(queue->owner->value),
              ", not by this engine, ", Quoted(kEngineKeys[engine_])));
    }
    return queue;
  }

  // NEFF-34 and NEFF-49: the semaphore is the set's, at id % num_queues.
  void CheckSemaphore(const neff::Block& block, const QueueSet& queue, const DmaPath& path) {
    if (!queue.semaphore_set || queue.semaphore_set->value.empty()) return;
    const std::vector<int64_t>& set = queue.semaphore_set->value;
    const auto at = [&] { return Location{block.offset, std::nullopt, Str(path, "/semaphore")}; };
    if (std::find(set.begin(), set.end(), *block.semaphore) == set.end()) {
      sink_.Report(kBlockSemaphore, at(),
                   Str("semaphore ", *block.semaphore, " is not in queue set ", Quoted(queue.name),
                       "'s semaphore_set"));
      return;
    }
    if (*block.id < 0 || queue.queue_count() == 0) return;
    const uint64_t slot = static_cast<uint64_t>(*block.id) % queue.queue_count();
    if (slot < set.size() && set[slot] != *block.semaphore) {
      sink_.Report(
          kBlockSemaphoreIndex, at(),
          Str("semaphore ", *block.semaphore, " of block id ", *block.id, " is not semaphore_set[",
              *block.id, " % ", queue.queue_count(), "] = ", set[slot]));
    }
  }

  void CheckDescriptor(const Descriptor& d, const DmaPath& path, std::vector<WriteRows>* writes,
                       size_t index) {
    CheckOperation(d, path);
    const Variable* to = nullptr;
    if (!d.to.var) {
      sink_.Report(kDescVariable, Location{d.offset, std::nullopt, Str(path)},
                   "the descriptor has no to");
    } else if ((to = def_.FindVar(*d.to.var)) == nullptr) {
      sink_.Report(kDescVariable, Location{d.offset, std::nullopt, Str(path, "/to")},
                   Str("to names ", Quoted(*d.to.var), ", which def.json does not declare"));
    }
    const std::optional<Pattern> to_pattern = CheckPattern(d.to, "to", d, path);
    if (d.from_arr) {
      // NEFF-35: at most 16 sources, each a from side of its own (§2.11).
      if (d.from_arr->size() > 16) {
        sink_.Report(
            kDescVariable, Location{d.offset, std::nullopt, Str(path, "/from_arr")},
            Str("from_arr lists ", d.from_arr->size(), " sources; at most 16 are allowed"));
      }
      for (size_t k = 0; k < d.from_arr->size(); ++k) {
        CheckFromSide((*d.from_arr)[k], to_pattern, d, {path.block, path.desc, k});
      }
    } else if (!d.from.var) {
      sink_.Report(kDescVariable, Location{d.offset, std::nullopt, Str(path)},
                   "the descriptor has neither from nor from_arr");
    } else {
      CheckFromSide(d.from, to_pattern, d, path);
    }
    if (to && to_pattern) {
      std::optional<AccessCheck> extent = CheckBounds(*to, *to_pattern, d, "to", path);
      if (extent && writes != nullptr) {
        writes->push_back({to->name, std::move(*extent), *to_pattern, index});
      }
    }
    CheckDtypes(d, path);
    CheckDirection(d, to, path);
  }

  // NEFF-35, NEFF-36, NEFF-37, NEFF-39 and NEFF-53 for one source: its
  // variable declared, its pattern, its element count against the
  // destination's, its bounds and its direction.
  void CheckFromSide(const Side& side, const std::optional<Pattern>& to, const Descriptor& d,
                     const DmaPath& path) {
    const auto what = [&] { return path.source ? Str("from_arr source ", *path.source) : "from"; };
    const Variable* var = side.var ? def_.FindVar(*side.var) : nullptr;
    if (var == nullptr) {
      sink_.Report(kDescVariable, Location{d.offset, std::nullopt, Str(path, "/from")},
                   Str(what(), side.var ? Str(" names ", Quoted(*side.var),
                                              ", which def.json does not declare")
                                        : std::string(" has no from")));
    } else if (var->type == VarType::kOutput) {
      // NEFF-53: outputs are only written.
      sink_.Report(kDescReadsOutput, Location{d.offset, std::nullopt, Str(path, "/from")},
                   Str("the descriptor's ", what(), " reads output variable ", Quoted(var->name)));
    }
    const std::optional<Pattern> from = CheckPattern(side, "from", d, path);
    if (!from) return;
    if (to && from->elements && to->elements && *from->elements != *to->elements) {
      sink_.Report(kDescElements, Location{d.offset, std::nullopt, Str(path)},
                   Str(what(), " visits ", *from->elements, " elements of ", from->dtype, ", to ",
                       *to->elements, " of ", to->dtype));
    }
    if (var != nullptr) CheckBounds(*var, *from, d, "from", path);
  }

  // NEFF-36, NEFF-37's element count.
  std::optional<Pattern> CheckPattern(const Side& side, std::string_view name, const Descriptor& d,
                                      const DmaPath& path) {
    if (!side.sizes || !side.steps || !side.off) return std::nullopt;
    const Dims& sizes = *side.sizes;
    const Dims& steps = *side.steps;
    if (sizes.size() != steps.size() || sizes.empty() || sizes.size() > kMaxDimensions) {
      sink_.Report(kDescPattern, Location{d.offset, std::nullopt, Str(path, "/", name, "_sizes")},
                   Str(name, "_sizes has ", sizes.size(), " entries and ", name, "_steps ",
                       steps.size(), "; both need the same count, 1 to 4"));
      return std::nullopt;
    }
    const std::string_view dtype = side.Dtype();
    const uint64_t element = DtypeBytes(dtype);
    if (element == 0) {
      sink_.Report(kDescDtype, Location{d.offset, std::nullopt, Str(path, "/", name, "_dtype")},
                   Str(name, "_dtype ", Quoted(dtype), " is not one of the 15 dtypes"));
      return std::nullopt;
    }
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (sizes[k] < 1) {
        sink_.Report(kDescPatternValues,
                     Location{d.offset, std::nullopt, Str(path, "/", name, "_sizes/", k)},
                     Str(name, "_sizes[", k, "] is ", sizes[k]));
        return std::nullopt;
      }
    }
    if (steps[0] != 1) {
      sink_.Report(kDescFirstStep,
                   Location{d.offset, std::nullopt, Str(path, "/", name, "_steps/0")},
                   Str(name, "_steps[0] is ", steps[0], ", not 1"));
    }
    Pattern pattern{.off = *side.off, .sizes = sizes.kept(), .steps = steps.kept(), .dtype = dtype};
    if (static_cast<uint64_t>(sizes[0]) % element != 0) {
      sink_.Report(kDescRowBytes,
                   Location{d.offset, std::nullopt, Str(path, "/", name, "_sizes/0")},
                   Str(name, "_sizes[0] = ", sizes[0], " bytes is not a whole number of ", dtype,
                       " elements (", element, " bytes)"));
      return pattern;
    }
    pattern.elements = ElementCount(pattern.sizes, element);
    return pattern;
  }

  // NEFF-39 and NEFF-31's accesses; what the access reaches when it is inside.
  std::optional<AccessCheck> CheckBounds(const Variable& var, const Pattern& p, const Descriptor& d,
                                         std::string_view name, const DmaPath& path) {
    const auto at = [&] { return Location{d.offset, std::nullopt, Str(path, "/", name, "_off")}; };
    const AccessCheck check = var.type == VarType::kStateBuffer
                                  ? CheckStateBufferAccess(p, neff_.state_buffer)
                                  : CheckVariableAccess(p, var.size ? var.size->value : 0);
    if (!check.problem.empty()) {
      sink_.Report(kDescBounds, at(), Str(name, " ", Quoted(var.name), ": ", check.problem));
      return std::nullopt;
    }
    if (var.type != VarType::kStateBuffer) return check;
    for (const Reservation& r : def_.reservations) {
      if (r.type != "evtaccel" || !r.base_partition || !r.partitions || !r.offset || !r.size)
        continue;
      if (check.Touches(*r.base_partition, *r.partitions, *r.offset, *r.size)) {
        sink_.Report(
            kReservationAccess, at(),
            Str(name, " reaches bytes ", *r.offset, " to ", *r.offset + *r.size - 1,
                " of partitions ", *r.base_partition, " to ", *r.base_partition + *r.partitions - 1,
                ", which the runtime reserves (evtaccel)"));
      }
    }
    return check;
  }

  // NEFF-38: the operation and its fields.
  void CheckOperation(const Descriptor& d, const DmaPath& path) {
    static constexpr std::string_view kOps[] = {"fma", "cast",      "add", "min",
                                                "max", "transpose", "copy"};
    const auto report = [&](std::string_view key, std::string message) {
      sink_.Report(kDescOp, Location{d.offset, std::nullopt, Str(path, "/", key)},
                   std::move(message));
    };
    if (d.op && std::find(std::begin(kOps), std::end(kOps), *d.op) == std::end(kOps)) {
      report("op",
             Str("op ", Quoted(*d.op), " is not fma, cast, add, min, max, transpose or copy"));
    }
    if (d.transpose_shape && d.transpose_shape->size() != 4) {
      report("transpose_shape",
             Str("transpose_shape has ", d.transpose_shape->size(), " entries, not 4"));
    }
    const std::string_view op = d.Op();
    if ((d.has_scale || d.has_scale_dtype) && op != "fma") {
      report(d.has_scale ? "scale" : "scale_dtype",
             Str("scale is for the fma op; this descriptor's op is ", op));
    }
    if (d.has_constant && (!d.has_constant_dtype || (op != "min" && op != "max"))) {
      report("constant", d.has_constant_dtype
                             ? Str("constant is for the min and max ops; this one's is ", op)
                             : "constant is given without constant_dtype");
    }
    CheckOperandDtypes(d, report);
    if (d.num_tiling_dimensions && d.to.sizes &&
        *d.num_tiling_dimensions > static_cast<int64_t>(d.to.sizes->size())) {
      sink_.Report(kDescTiling,
                   Location{d.offset, std::nullopt, Str(path, "/num_tiling_dimensions")},
                   Str("num_tiling_dimensions is ", *d.num_tiling_dimensions, " for ",
                       d.to.sizes->size(), " dimensions"));
    }
  }

  // NEFF-38's operand types: the scale is a float32; the constant a
  // float32, int32 or uint32 that constant_dtype requires (§2.11).
  template <typename Report>
  void CheckOperandDtypes(const Descriptor& d, const Report& report) {
    if (d.scale_dtype && *d.scale_dtype != "float32") {
      report("scale_dtype", Str("scale_dtype is ", Quoted(*d.scale_dtype), ", not float32"));
    }
    if (d.constant_dtype && *d.constant_dtype != "float32" && *d.constant_dtype != "int32" &&
        *d.constant_dtype != "uint32") {
      report("constant_dtype", Str("constant_dtype is ", Quoted(*d.constant_dtype),
                                   ", not float32, int32 or uint32"));
    }
    if (d.has_constant_dtype && !d.has_constant) {
      report("constant_dtype", "constant_dtype is given without the constant it requires");
    }
  }

  // NEFF-52: copies keep the dtype, casts change it.
  void CheckDtypes(const Descriptor& d, const DmaPath& path) {
    if (d.from_arr) return;
    const std::string_view from = d.from.Dtype(), to = d.to.Dtype();
    const std::string_view op = d.Op();
    if ((op == "copy" || op == "transpose") && from != to) {
      sink_.Report(kDescOpDtype, Location{d.offset, std::nullopt, Str(path, "/to_dtype")},
                   Str("a ", op, " from ", from, " to ", to, " changes the dtype"));
    } else if (op == "cast" && from == to) {
      sink_.Report(kDescCastSameDtype, Location{d.offset, std::nullopt, Str(path, "/to_dtype")},
                   Str("a cast from ", from, " to ", to, " keeps the dtype"));
    }
  }

  // NEFF-53: inputs and constants are only read (their readers are in
  // CheckFromSide).
  void CheckDirection(const Descriptor& d, const Variable* to, const DmaPath& path) {
    if (to != nullptr && (to->type == VarType::kInput || to->type == VarType::kFile)) {
      sink_.Report(
          kDescDirection, Location{d.offset, std::nullopt, Str(path, "/to")},
          Str("the descriptor writes ", VarTypeName(to->type), " variable ", Quoted(to->name)));
    }
  }

  static bool Intersect(const AccessCheck& a, const AccessCheck& b) {
    return a.first_partition <= b.last_partition && b.first_partition <= a.last_partition &&
           a.first_byte <= b.last_byte && b.first_byte <= a.last_byte;
  }

  // NEFF-51: the block's descriptors write disjoint bytes. Writes whose
  // extents are apart cannot share a byte; only the variables where two
  // extents meet have their rows listed, sorted and swept.
  void CheckDisjointWrites(const neff::Block& block, std::vector<WriteRows>& writes,
                           const DmaPath& path) {
    if (writes.size() < 2) return;
    std::vector<bool> done(writes.size(), false);
    for (size_t i = 0; i < writes.size(); ++i) {
      if (done[i]) continue;
      const std::string_view var = writes[i].var;
      std::vector<const WriteRows*> group;
      for (size_t j = i; j < writes.size(); ++j) {
        if (writes[j].var != var) continue;
        done[j] = true;
        group.push_back(&writes[j]);
      }
      bool meet = false;
      for (size_t a = 0; a < group.size() && !meet; ++a) {
        for (size_t b = a + 1; b < group.size() && !meet; ++b) {
          meet = Intersect(group[a]->extent, group[b]->extent);
        }
      }
      if (meet && !SweepRows(block, group, var, path)) return;
    }
  }

  // The rows of `group`, sorted, swept for two descriptors on one byte;
  // false once that is reported. Writes of too many rows go unchecked.
  bool SweepRows(const neff::Block& block, const std::vector<const WriteRows*>& group,
                 std::string_view var, const DmaPath& path) {
    rows_.clear();
    for (const WriteRows* w : group) {
      const uint64_t room = kMaxOverlapRows - std::min<uint64_t>(rows_.size(), kMaxOverlapRows);
      if (!ForEachRow(w->pattern, room, [&](uint64_t begin, uint64_t end) {
            rows_.push_back({begin, end, w->desc});
          })) {
        return true;
      }
    }
    std::sort(rows_.begin(), rows_.end(),
              [](const Row& a, const Row& b) { return a.begin < b.begin; });
    const Row* reach = nullptr;  // the row reaching furthest so far
    for (const Row& row : rows_) {
      if (reach != nullptr && row.begin < reach->end && row.desc != reach->desc) {
        sink_.Report(kBlockOverlap, Location{block.offset, std::nullopt, Str(path, "/desc")},
                     Str("descriptors ", std::min(reach->desc, row.desc), " and ",
                         std::max(reach->desc, row.desc), " both write byte ", Hex(row.begin),
                         " of ", Quoted(var)));
        return false;
      }
      if (reach == nullptr || row.end > reach->end) reach = &row;
    }
    return true;
  }

  Neff& neff_;
  Subgraph& sg_;
  const Definition& def_;
  size_t engine_;
  DiagnosticSink& sink_;
  std::vector<Row> rows_;  // CheckDisjointWrites' rows of one variable
  uint64_t blocks_ = 0;
};

// A block's place among an engine's blocks sorted by queue, id and
// position: a repeated (queue, id) pair follows its first block.
struct SortedId {
  size_t queue = 0;  // the rank of the queue set's name
  size_t block = 0;  // the position in the engine's blocks
  int64_t id = 0;
  bool operator<(const SortedId& o) const {
    return queue != o.queue ? queue < o.queue : id != o.id ? id < o.id : block < o.block;
  }
};

// The engine's blocks sorted by queue name, id and position. Sorted
// copies rather than maps: an engine has blocks by the hundred thousand.
std::vector<SortedId> SortIds(const std::vector<BlockKey>& blocks, const Definition& def) {
  std::vector<size_t> by_name(def.queues.size());
  std::iota(by_name.begin(), by_name.end(), size_t{0});
  std::sort(by_name.begin(), by_name.end(),
            [&](size_t a, size_t b) { return def.queues[a].name < def.queues[b].name; });
  std::vector<size_t> rank(def.queues.size());
  for (size_t r = 0; r < by_name.size(); ++r) rank[by_name[r]] = r;
  std::vector<SortedId> sorted(blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    sorted[i] = {rank[blocks[i].queue_index], i, blocks[i].id};
  }
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

// The first of `ids` (sorted, repeats included) whose distinct rank is not
// its value, as its block and that rank; the count of distinct ids.
struct Gap {
  std::optional<size_t> block;
  int64_t rank = 0;
  int64_t distinct = 0;
};
Gap FindGap(std::span<const SortedId> ids) {
  Gap gap;
  const SortedId* previous = nullptr;
  for (const SortedId& s : ids) {
    if (previous != nullptr && previous->id == s.id) continue;
    if (!gap.block && s.id != gap.distinct) {
      gap.block = s.block;
      gap.rank = gap.distinct;
    }
    ++gap.distinct;
    previous = &s;
  }
  return gap;
}

// NEFF-34 and NEFF-47: ids 0..k-1 per engine and per queue, (queue, id)
// pairs unique. Reported in that order: repeats in block order, the
// engine's gap, each queue's in name order.
void CheckBlockIds(const std::vector<BlockKey>& blocks, const Definition& def,
                   DiagnosticSink& sink) {
  std::vector<SortedId> sorted = SortIds(blocks, def);
  std::vector<std::pair<size_t, size_t>> repeats;  // block, its pair's first block
  for (size_t i = 1, first = 0; i < sorted.size(); ++i) {
    if (sorted[i].queue != sorted[first].queue || sorted[i].id != sorted[first].id) {
      first = i;
    } else {
      repeats.emplace_back(sorted[i].block, sorted[first].block);
    }
  }
  std::vector<Gap> queue_gaps;
  for (auto begin = sorted.begin(); begin != sorted.end();) {
    const auto end = std::find_if(begin, sorted.end(),
                                  [&](const SortedId& s) { return s.queue != begin->queue; });
    if (Gap gap = FindGap({begin, end}); gap.block) {
      queue_gaps.push_back(gap);
    }
    begin = end;
  }
  // Now by id alone, for the engine's gap.
  std::sort(sorted.begin(), sorted.end(), [](const SortedId& a, const SortedId& b) {
    return a.id != b.id ? a.id < b.id : a.block < b.block;
  });
  const Gap engine_gap = FindGap(sorted);

  std::sort(repeats.begin(), repeats.end());
  const auto at = [&](const BlockKey& b) {
    return Location{b.offset, std::nullopt, Str("/dma/", b.index, "/id")};
  };
  const auto queue_name = [&](const BlockKey& b) { return Quoted(def.queues[b.queue_index].name); };
  for (const auto& [block, first] : repeats) {
    const BlockKey& b = blocks[block];
    sink.Report(kBlockQueueId, at(b),
                Str("block ", b.index, " has queue ", queue_name(b), " and id ", b.id,
                    ", like block ", blocks[first].index, "; a trigger would name both"));
  }
  if (engine_gap.block) {
    const BlockKey& b = blocks[*engine_gap.block];
    sink.Report(kBlockIds, at(b),
                Str("the engine's block ids are not 0 to ", engine_gap.distinct - 1, ": ", b.id,
                    " comes where ", engine_gap.rank, " belongs"));
  }
  for (const Gap& gap : queue_gaps) {
    const BlockKey& b = blocks[*gap.block];
    sink.Report(kBlockQueueId, at(b),
                Str("the ids of queue ", queue_name(b), " are not 0 to ", gap.distinct - 1, ": ",
                    b.id, " is among them"));
  }
}

// NEFF-44: the activation sets Activation.json uses, and their files.
void CheckActivationSets(Neff& neff, Subgraph& sg, const EngineDocument& doc,
                         DiagnosticSink& sink) {
  if (!doc.act_info) return;
  const std::string member = sg.Member(doc.act_info->value);
  const Location at{doc.act_info->offset, std::nullopt, "/act_info"};
  if (!neff.Reach(member)) {
    sink.Report(kActivationSet, at,
                Str("act_info ", Quoted(doc.act_info->value), " names no member"));
    return;
  }
  const tar::Member* catalogue_member = JsonMember(neff, member);
  if (catalogue_member == nullptr) return;
  const std::optional<ActivationCatalogue> catalogue =
      DecodeActivationCatalogue(catalogue_member->data, neff.context.limits, neff.In(member));
  if (!catalogue || !doc.activation_sets) return;
  const std::vector<std::string>& used = doc.activation_sets->value;
  for (size_t i = 0; i < used.size(); ++i) {
    const auto set = std::find_if(catalogue->begin(), catalogue->end(),
                                  [&](const ActivationSet& s) { return s.name == used[i]; });
    if (set == catalogue->end()) {
      sink.Report(
          kActivationSet,
          Location{doc.activation_sets->offset, std::nullopt, Str("/activation_function_sets/", i)},
          Str("activation set ", Quoted(used[i]), " is not in ", Quoted(member)));
      continue;
    }
    for (const Reference& file : set->files) {
      neff.names.push_back({member, file});
      if (!neff.Reach(sg.Member(file.name))) {
        neff.In(member).Report(kActivationFiles, Location{file.offset, std::nullopt, file.pointer},
                               Str("activation set ", Quoted(set->name), "'s file ",
                                   Quoted(file.name), " is not in the archive"));
      }
    }
  }
}

// An engine JSON decoded, its blocks checked as they are read: the larger
// part of a NEFF's work. It reports into its own member's sink alone and
// fills its own slot of sg.blocks, so that engines can run side by side.
struct DecodedEngine {
  std::optional<EngineDocument> doc;
  uint64_t blocks = 0;
};

// NEFF-33: the engine JSON's instr and name agree with def.json and the
// member's own name.
void CheckEngineNames(const Subgraph& sg, size_t e, const EngineDocument& doc,
                      DiagnosticSink& sink) {
  const Definition& def = *sg.def;
  const std::string_view own_name =
      std::string_view(sg.engine_member[e]).substr(sg.name_prefix().size());
  if (doc.instr && def.engine_program[e] && doc.instr->value != def.engine_program[e]->value) {
    sink.Report(kEngineNames, Location{doc.instr->offset, std::nullopt, "/instr"},
                Str("instr ", Quoted(doc.instr->value), " differs from def.json's ",
                    Quoted(def.engine_program[e]->value)));
  }
  if (doc.name && doc.name->value != own_name) {
    sink.Report(kEngineSelfName, Location{doc.name->offset, std::nullopt, "/name"},
                Str("name ", Quoted(doc.name->value), " differs from the member's own name ",
                    Quoted(own_name)));
  }
}

DecodedEngine DecodeAndCheckBlocks(Neff& neff, Subgraph& sg, size_t e) {
  const std::string& member = sg.engine_member[e];
  if (member.empty() || neff.container.Find(member) == nullptr) return {};
  const tar::Member* text = JsonMember(neff, member);
  if (text == nullptr) return {};
  DiagnosticSink& sink = neff.In(member);
  EngineChecker checker(neff, sg, e, sink);
  DecodedEngine out;
  out.doc = DecodeEngine(text->data, neff.context.limits, sink,
                         [&](uint64_t index, const Block& block) { checker.Block(index, block); });
  out.blocks = checker.blocks();
  if (out.doc) {
    CheckEngineNames(sg, e, *out.doc, sink);
    CheckBlockIds(sg.blocks[e], *sg.def, sink);
  }
  return out;
}

// What an engine's checks share with the rest: the names it gives, the
// members it reaches, the activation catalogue.
void FinishEngine(Neff& neff, Subgraph& sg, size_t e, const EngineDocument& doc) {
  const std::string& member = sg.engine_member[e];
  DiagnosticSink& sink = neff.In(member);
  for (const auto* ref : {&doc.instr, &doc.act_info}) {
    if (*ref)
      neff.names.push_back(
          {member, {(*ref)->value, ref == &doc.instr ? "/instr" : "/act_info", (*ref)->offset}});
  }
  for (const Reference& table : doc.dve_tables) neff.names.push_back({member, table});
  CheckActivationSets(neff, sg, doc, sink);
  for (const Reference& table : doc.dve_tables) {
    if (!neff.Reach(sg.Member(table.name))) {
      sink.Report(kDveTables, Location{table.offset, std::nullopt, table.pointer},
                  Str("DVE table ", Quoted(table.name), " is not in the archive"));
    }
  }
}

// From this many bytes of engine JSON on, the engines are decoded on
// threads of their own (bench/README.md "NEFF").
constexpr uint64_t kConcurrentEngineBytes = uint64_t{1} << 20;

}  // namespace

void CheckEngines(Neff& neff, Subgraph& sg) {
  // Every engine's sinks (its JSON's, its program's) exist before any
  // engine runs, so that the engines only look their own up. Engines that
  // name one member share its sink, and run one after the other.
  uint64_t bytes = 0;
  std::set<std::string> members;
  bool distinct = true;
  for (size_t e = 0; e < kEngineCount; ++e) {
    for (std::string member : {sg.engine_member[e], ProgramMember(sg, e)}) {
      if (member.empty()) continue;
      neff.In(member);
      if (const tar::Member* m = neff.container.Find(member)) bytes += m->data.size();
      distinct = members.insert(std::move(member)).second && distinct;
    }
  }
  std::array<std::future<DecodedEngine>, kEngineCount> running;
  for (size_t e = 0; e < kEngineCount; ++e) {
    running[e] = StartBeside(distinct && bytes >= kConcurrentEngineBytes, [&neff, &sg, e] {
      DecodedEngine engine = DecodeAndCheckBlocks(neff, sg, e);
      if (!neff.context.deadline.expired()) CheckProgram(neff, sg, e);
      return engine;
    });
  }
  // Every engine is joined before any is finished: finishing creates sinks
  // that running engines would look past.
  std::array<DecodedEngine, kEngineCount> decoded;
  for (size_t e = 0; e < kEngineCount; ++e) decoded[e] = running[e].get();
  for (size_t e = 0; e < kEngineCount; ++e) {
    sg.block_count += decoded[e].blocks;
    if (decoded[e].doc) FinishEngine(neff, sg, e, *decoded[e].doc);
  }
}

}  // namespace accelcheck::neff
