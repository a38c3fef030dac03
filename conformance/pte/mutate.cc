// One small function per rule of validators/pte/rules.def: each takes a
// valid program (decoded with ReadFile) and breaks exactly that rule. Most
// mutations add a new object with the defect (an unreferenced value, an
// appended instruction, an extra table entry) rather than damage an existing
// one, so that nothing else that refers to the object breaks with it. Header
// and layout rules patch the serialized bytes instead.
#include "conformance/pte/mutate.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>

#include <flatbuffers/flatbuffers.h>

#include "conformance/pte/bases.h"
#include "conformance/pte/mutate_ptd.h"
#include "conformance/pte/read.h"
#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "validators/core/checked.h"
#include "validators/core/format.h"
#include "validators/core/limits.h"
#include "validators/core/text.h"
#include "validators/pte/pte_format.h"
#include "validators/pte/rules.h"
#include "validators/pte/schema/program_generated.h"

namespace accelcheck::pte {

namespace {

namespace fb = executorch_flatbuffer;
using namespace model;
using Bytes = std::vector<uint8_t>;
using conformance::Base;
using conformance::Declined;
using conformance::Mutated;
using conformance::MutationCase;
using conformance::NamedFile;
using conformance::OrDeclined;
using conformance::Provider;

// What one mutation works on: the decoded file, then (for byte-level rules)
// a patch applied to its serialized bytes.
struct Ctx {
  File file;
  uint64_t seed = 0;
  std::string error;
  std::string path;  // where the validator should report the broken rule
  std::function<bool(Bytes&, Ctx&)> patch;
};

bool Decline(Ctx& c, std::string why) {
  c.error = std::move(why);
  return false;
}

uint64_t ElementSizeOr1(int8_t scalar_type) { return ScalarTypeSize(scalar_type).value_or(1); }

size_t Pick(const Ctx& c, size_t n) { return n == 0 ? 0 : static_cast<size_t>(c.seed % n); }

Vec<ExecutionPlan>& Plans(Ctx& c) { return *c.file.program.execution_plan; }

// The plan a mutation adds to: picked by the seed among plans with a chain.
std::optional<size_t> PickPlan(Ctx& c) {
  if (!c.file.program.execution_plan) return std::nullopt;
  std::vector<size_t> candidates;
  for (size_t i = 0; i < Plans(c).size(); ++i) {
    const ExecutionPlan& p = Plans(c)[i];
    if (p.values && p.chains && !p.chains->empty() && (*p.chains)[0].instructions && p.operators &&
        p.delegates && p.non_const_buffer_sizes && p.non_const_buffer_sizes->size() >= 2) {
      candidates.push_back(i);
    }
  }
  if (candidates.empty()) return std::nullopt;
  return candidates[Pick(c, candidates.size())];
}

std::string PlanPath(size_t p) { return Str("execution_plan[", p, "]"); }
std::string ValuePath(size_t p, size_t v) { return Str(PlanPath(p), ".values[", v, "]"); }
std::string InstructionPath(size_t p, size_t i) {
  return Str(PlanPath(p), ".chains[0].instructions[", i, "]");
}

int32_t AddValue(ExecutionPlan& plan, EValue v) {
  plan.values->push_back(std::move(v));
  return static_cast<int32_t>(plan.values->size() - 1);
}

Vec<Instruction>& Instructions(ExecutionPlan& plan) { return *(*plan.chains)[0].instructions; }

// Appends `instruction` at the end of chain 0; returns its index.
size_t AddInstruction(ExecutionPlan& plan, Instruction instruction) {
  Instructions(plan).push_back(std::move(instruction));
  return Instructions(plan).size() - 1;
}

Tensor SmallTensor(int8_t dtype = kFloat) {
  Tensor t;
  t.scalar_type = dtype;
  t.sizes = Vec<int32_t>{4};
  t.dim_order = Vec<uint8_t>{0};
  return t;
}

// A region of `nbytes` at the end of planned buffer 1 (grown to hold it), so
// that a new planned tensor overlaps nothing.
Allocation AddPlannedRegion(ExecutionPlan& plan, uint64_t nbytes, uint64_t misalign = 0) {
  int64_t& size = (*plan.non_const_buffer_sizes)[1];
  const uint64_t offset = AlignUp(static_cast<uint64_t>(size), 16) + misalign;
  size = static_cast<int64_t>(AlignUp(offset + nbytes, 16));
  return Allocation{1, static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)};
}

// Adds a value holding one broken tensor and points the expected location at it.
bool AddBrokenTensor(Ctx& c, const std::function<void(Tensor&, ExecutionPlan&)>& breaks) {
  const auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with values, chains and planned memory");
  ExecutionPlan& plan = Plans(c)[*p];
  Tensor t = SmallTensor();
  breaks(t, plan);
  c.path = ValuePath(*p, static_cast<size_t>(AddValue(plan, EValue::Of(std::move(t)))));
  return true;
}

bool AddBrokenValue(Ctx& c, EValue v) {
  const auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with values");
  c.path = ValuePath(*p, static_cast<size_t>(AddValue(Plans(c)[*p], std::move(v))));
  return true;
}

bool AddBrokenInstruction(Ctx& c, const std::function<Instruction(ExecutionPlan&)>& make) {
  const auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with a chain");
  ExecutionPlan& plan = Plans(c)[*p];
  Instruction i = make(plan);
  c.path = InstructionPath(*p, AddInstruction(plan, std::move(i)));
  return true;
}

// An operator for new KernelCalls: an existing one, else a new one.
int32_t AnyOperator(ExecutionPlan& plan) {
  if (plan.operators->empty()) plan.operators->push_back(Operator{"aten::clone", "out"});
  return 0;
}

int32_t ValueCount(const ExecutionPlan& plan) { return static_cast<int32_t>(plan.values->size()); }

bool AnySegmentData(const File& f) {
  return std::any_of(f.segment_bytes.begin(), f.segment_bytes.end(),
                     [](const Bytes& b) { return !b.empty(); });
}

// Appends a segment after every other one, at the writer's alignment.
uint32_t AppendSegment(File& f, Bytes bytes) {
  if (!f.program.segments) f.program.segments = Vec<DataSegment>{};
  uint64_t end = 0;
  for (size_t i = 0; i < f.program.segments->size(); ++i) {
    const uint64_t size = i < f.segment_bytes.size() ? f.segment_bytes[i].size() : 0;
    end = std::max(end, (*f.program.segments)[i].offset + size);
  }
  f.segment_bytes.resize(f.program.segments->size());
  f.program.segments->push_back(DataSegment{AlignUp(end, f.segment_alignment), bytes.size()});
  f.segment_bytes.push_back(std::move(bytes));
  return static_cast<uint32_t>(f.program.segments->size() - 1);
}

// ---------------------------------------------------------------------------
// Byte-level helpers for header and layout rules (docs/formats/pte.md §1.1).

constexpr uint64_t kProgramSizeAt = 16;
constexpr uint64_t kSegmentBaseAt = 24;
constexpr uint64_t kSegmentDataSizeAt = 32;

uint64_t Get64(const Bytes& b, uint64_t at) { return ReadLE<uint64_t>(b, at).value_or(0); }

void Put(Bytes& b, uint64_t at, uint64_t value, int width) {
  for (int i = 0; i < width; ++i)
    b[at + static_cast<uint64_t>(i)] = static_cast<uint8_t>(value >> (8 * i));
}

// Moves the segment data to `new_base` and records it in the header, so the
// segments stay where the header says they are.
void MoveSegmentData(Bytes& b, uint64_t new_base) {
  const uint64_t base = Get64(b, kSegmentBaseAt);
  const uint64_t size = Get64(b, kSegmentDataSizeAt);
  Bytes data(b.begin() + static_cast<ptrdiff_t>(base),
             b.begin() + static_cast<ptrdiff_t>(base + size));
  b.resize(Get64(b, kProgramSizeAt));
  b.resize(new_base, 0);
  b.insert(b.end(), data.begin(), data.end());
  Put(b, kSegmentBaseAt, new_base, 8);
}

bool NeedSegmentData(Ctx& c) {
  if (!AnySegmentData(c.file)) return Decline(c, "the input has no segment data");
  return true;
}

// Moves a [ubyte] vector 4 bytes further (its length 4 smaller) so that its
// data is no longer 16-byte aligned: the field's uoffset grows by 4 and the
// new length overwrites the first 4 data bytes.
void MisalignVector(Bytes& b, const uint8_t* base, const flatbuffers::Table* table,
                    flatbuffers::voffset_t field) {
  const uint8_t* slot = table->GetAddressOf(field);
  const uint64_t at = static_cast<uint64_t>(slot - base);
  const uint32_t uoffset = ReadLE<uint32_t>(b, at).value_or(0);
  const uint64_t vec = at + uoffset;
  const uint32_t length = ReadLE<uint32_t>(b, vec).value_or(0);
  Put(b, at, uoffset + 4, 4);
  Put(b, vec + 4, length - 4, 4);
}

const fb::Program* ProgramOf(const Bytes& b) { return fb::GetProgram(b.data()); }

// ---------------------------------------------------------------------------
// A. Container and extended header

bool FileTooSmall(Ctx& c) {
  c.patch = [](Bytes& b, Ctx&) {
    b.resize(std::min<size_t>(b.size(), 40));
    return true;
  };
  return true;
}

bool FileIdentifier(Ctx& c) {
  c.path = "";
  c.patch = [](Bytes& b, Ctx&) {
    std::memcpy(&b[4], "XT01", 4);
    return true;
  };
  return true;
}

bool FileVersion(Ctx& c) {
  c.patch = [](Bytes& b, Ctx&) {
    std::memcpy(&b[4], "ET13", 4);
    return true;
  };
  return true;
}

bool RootOffset(Ctx& c) {
  c.patch = [](Bytes& b, Ctx&) {
    Put(b, 0, 4, 4);
    return true;
  };
  return true;
}

// With no segment data the header carries nothing, so a reader that ignores
// it (docs/formats/pte.md §4 PTE-4) still reads the file correctly.
bool HeaderMagic(Ctx& c) {
  if (AnySegmentData(c.file))
    return Decline(c, "the input has segment data, which needs the header");
  c.file.extended_header = true;
  c.patch = [](Bytes& b, Ctx&) {
    b[11] = '1';
    return true;
  };
  return true;
}

bool HeaderLength(Ctx& c) {
  c.file.extended_header = true;
  c.patch = [](Bytes& b, Ctx&) {
    Put(b, 12, 16, 4);
    return true;
  };
  return true;
}

bool HeaderLengthNonstandard(Ctx& c) {
  if (AnySegmentData(c.file))
    return Decline(c, "the input has segment data, which a 28-byte header would lose");
  c.file.extended_header = true;
  c.patch = [](Bytes& b, Ctx&) {
    Put(b, 12, 28, 4);
    return true;
  };
  return true;
}

// Without segment data, so that the program does not also run over the
// segment base (PTE-7).
bool ProgramSize(Ctx& c) {
  if (AnySegmentData(c.file)) return Decline(c, "the input has segment data after the program");
  c.file.extended_header = true;
  c.patch = [](Bytes& b, Ctx&) {
    Put(b, kProgramSizeAt, b.size() + 16, 8);
    return true;
  };
  return true;
}

bool SegmentBaseBeforeProgram(Ctx& c) {
  if (!NeedSegmentData(c)) return false;
  c.patch = [](Bytes& b, Ctx&) {
    const uint64_t base = Get64(b, kSegmentBaseAt);
    if (base + 16 > b.size()) return false;
    Put(b, kProgramSizeAt, base + 16, 8);
    return true;
  };
  return true;
}

bool SegmentBaseAlign(Ctx& c) {
  if (!NeedSegmentData(c)) return false;
  c.patch = [](Bytes& b, Ctx&) {
    MoveSegmentData(b, Get64(b, kSegmentBaseAt) + 8);
    return true;
  };
  return true;
}

bool SegmentBaseAlign128(Ctx& c) {
  if (!NeedSegmentData(c)) return false;
  c.patch = [](Bytes& b, Ctx&) {
    MoveSegmentData(b, Get64(b, kSegmentBaseAt) + 16);
    return true;
  };
  return true;
}

bool SegmentDataBounds(Ctx& c) {
  c.file.extended_header = true;
  c.patch = [](Bytes& b, Ctx&) {
    Put(b, kSegmentDataSizeAt, b.size() - Get64(b, kSegmentBaseAt) + 16, 8);
    return true;
  };
  return true;
}

// Without a header the program is the whole file, so trailing bytes are
// only visible after segment data.
bool TrailingBytes(Ctx& c) {
  if (!NeedSegmentData(c)) return false;
  c.patch = [](Bytes& b, Ctx&) {
    b.resize(b.size() + 16, 0);
    return true;
  };
  return true;
}

bool PaddingNonzero(Ctx& c) {
  if (!NeedSegmentData(c)) return false;
  c.patch = [](Bytes& b, Ctx&) {
    const uint64_t program_size = Get64(b, kProgramSizeAt);
    MoveSegmentData(b, AlignUp(program_size, 128) + 128);
    b[program_size] = 0xa5;
    return true;
  };
  return true;
}

bool SegmentWithoutHeader(Ctx& c) {
  if (!NeedSegmentData(c)) return false;
  // Mutable segments without a header break PTE-28 as well.
  if (c.file.program.mutable_data_segments)
    return Decline(c, "the input has mutable data segments");
  c.file.extended_header = false;
  return true;
}

// The root table's vtable offset points far outside the buffer.
bool FlatbufferVerify(Ctx& c) {
  c.patch = [](Bytes& b, Ctx&) {
    const uint32_t root = ReadLE<uint32_t>(b, 0).value_or(0);
    Put(b, root, 0x7ffffff0u, 4);
    return true;
  };
  return true;
}

// ---------------------------------------------------------------------------
// B. Program-level tables

bool NoPlans(Ctx& c) {
  // Constants and delegate data lose their only users: drop them too.
  if (c.file.program.backend_delegate_data && !c.file.program.backend_delegate_data->empty()) {
    return Decline(c, "the input has delegate data that an empty program would leave unreferenced");
  }
  for (const ExecutionPlan& plan : Plans(c)) {
    if (!plan.delegates) continue;
    for (const BackendDelegate& d : *plan.delegates) {
      if (d.processed && d.processed->location == 1) {
        return Decline(c, "a delegate's segment would be left unreferenced by an empty program");
      }
    }
  }
  c.file.program.execution_plan = Vec<ExecutionPlan>{};
  c.path = "execution_plan";
  return true;
}

bool ProgramVersion(Ctx& c) {
  c.file.program.version = 1;
  return true;
}

std::optional<SubsegmentOffsets*> ConstantSegment(Ctx& c) {
  auto& cs = c.file.program.constant_segment;
  if (!cs || !cs->offsets || !c.file.program.segments ||
      cs->segment_index >= c.file.program.segments->size()) {
    return std::nullopt;
  }
  return &*cs;
}

bool HasInlineConstants(const File& f) {
  return f.program.constant_buffer && f.program.constant_buffer->size() > 1;
}

// Grows the constant segment to at least `size` bytes (zero filled) and lays
// the segments out again.
void GrowConstantSegment(File& f, uint32_t segment, uint64_t size) {
  f.segment_bytes.resize(std::max<size_t>(f.segment_bytes.size(), segment + 1));
  Bytes& bytes = f.segment_bytes[segment];
  if (bytes.size() < size) bytes.resize(size, 0);
  LayoutSegments(f);
}

bool ConstantTwoStores(Ctx& c) {
  auto cs = ConstantSegment(c);
  if (!cs || HasInlineConstants(c.file)) return Decline(c, "the input keeps no constant segment");
  if ((*cs)->offsets->size() < 2) (*cs)->offsets->push_back(0);
  c.file.program.constant_buffer = Vec<Buffer>{Buffer{Bytes{}}, Buffer{Bytes(16, 0)}};
  c.path = "constant_buffer";
  return true;
}

// The deprecated store replaces an empty constant segment that is the only
// segment, as in files written before 2024-09.
bool ConstantDeprecatedBuffer(Ctx& c) {
  auto cs = ConstantSegment(c);
  if (!cs || (*cs)->offsets->size() > 1 || AnySegmentData(c.file) ||
      c.file.program.segments->size() != 1) {
    return Decline(c, "the input has segments other than an empty constant segment");
  }
  c.file.program.constant_segment = std::nullopt;
  c.file.program.segments = Vec<DataSegment>{};
  c.file.segment_bytes.clear();
  c.file.program.constant_buffer = Vec<Buffer>{Buffer{Bytes{}}, Buffer{Bytes(16, 0)}};
  c.path = "constant_buffer";
  return true;
}

// Every constant moves 16 bytes further, the reserved offset 0 with them.
bool ConstantPlaceholderOffset(Ctx& c) {
  auto cs = ConstantSegment(c);
  if (!cs) return Decline(c, "the input has no constant segment");
  Bytes& bytes = c.file.segment_bytes[(*cs)->segment_index];
  bytes.insert(bytes.begin(), 16, 0);
  for (uint64_t& o : *(*cs)->offsets) o += 16;
  LayoutSegments(c.file);
  c.path = "constant_segment.offsets[0]";
  return true;
}

bool ConstantPlaceholderBuffer(Ctx& c) {
  if (!HasInlineConstants(c.file)) return Decline(c, "the input has no constant_buffer");
  (*c.file.program.constant_buffer)[0].storage = Bytes(16, 0);
  c.path = "constant_buffer[0]";
  return true;
}

bool ConstantSegmentIndex(Ctx& c) {
  auto cs = ConstantSegment(c);
  if (!cs) return Decline(c, "the input has no constant segment");
  for (const ExecutionPlan& p : Plans(c)) {
    for (const EValue& v : *p.values) {
      const Tensor* t = std::get_if<Tensor>(&v.val);
      if (t && t->data_buffer_idx > 0 && !t->allocation)
        return Decline(c, "the input's tensors use the constant segment");
    }
  }
  // The old segment stays referenced through a named_data entry.
  auto& named = c.file.program.named_data;
  if (!named) named = Vec<NamedData>{};
  named->push_back(NamedData{"conformance.constants", (*cs)->segment_index});
  (*cs)->segment_index = static_cast<uint32_t>(c.file.program.segments->size());
  c.path = "constant_segment";
  return true;
}

// Appends constant offsets (used by no tensor) after growing the segment to
// hold them.
bool AppendConstantOffsets(Ctx& c, const std::vector<uint64_t>& offsets, uint64_t segment_size) {
  auto cs = ConstantSegment(c);
  if (!cs) return Decline(c, "the input has no constant segment");
  const uint32_t segment = (*cs)->segment_index;
  c.path = Str("constant_segment.offsets[", (*cs)->offsets->size(), "]");
  for (uint64_t o : offsets) (*cs)->offsets->push_back(o);
  GrowConstantSegment(c.file, segment, segment_size);
  return true;
}

uint64_t ConstantSegmentSize(Ctx& c) {
  auto cs = ConstantSegment(c);
  return cs ? c.file.segment_bytes[(*cs)->segment_index].size() : 0;
}

uint64_t LastConstantOffset(Ctx& c) {
  auto cs = ConstantSegment(c);
  if (!cs || (*cs)->offsets->empty()) return 0;
  return *std::max_element((*cs)->offsets->begin(), (*cs)->offsets->end());
}

bool ConstantOffsetBounds(Ctx& c) {
  const uint64_t end = AlignUp(ConstantSegmentSize(c), 16);
  if (!AppendConstantOffsets(c, {end + 16}, end)) return false;
  return true;
}

bool ConstantOffsetOrder(Ctx& c) {
  const uint64_t high = AlignUp(std::max(ConstantSegmentSize(c), LastConstantOffset(c)), 16) + 16;
  if (!AppendConstantOffsets(c, {high, high - 16}, high)) return false;
  c.path = Str("constant_segment.offsets[", (*ConstantSegment(c))->offsets->size() - 1, "]");
  return true;
}

bool ConstantOffsetAlign(Ctx& c) {
  const uint64_t at = AlignUp(std::max(ConstantSegmentSize(c), LastConstantOffset(c)), 16) + 8;
  if (!AppendConstantOffsets(c, {at}, at + 8)) return false;
  return true;
}

struct ConstantTensor {
  size_t plan, value;
  Tensor* tensor;
  uint64_t offset, element;
};

std::vector<ConstantTensor> SegmentConstants(Ctx& c) {
  std::vector<ConstantTensor> out;
  auto cs = ConstantSegment(c);
  if (!cs || HasInlineConstants(c.file)) return out;
  for (size_t p = 0; p < Plans(c).size(); ++p) {
    if (!Plans(c)[p].values) continue;
    for (size_t v = 0; v < Plans(c)[p].values->size(); ++v) {
      Tensor* t = std::get_if<Tensor>(&(*Plans(c)[p].values)[v].val);
      if (!t || t->allocation || t->data_buffer_idx == 0 || t->extra ||
          t->data_buffer_idx >= (*cs)->offsets->size()) {
        continue;
      }
      out.push_back(
          {p, v, t, (*(*cs)->offsets)[t->data_buffer_idx], ElementSizeOr1(t->scalar_type)});
    }
  }
  return out;
}

// Reshapes `t` to one dimension of `elements`.
void Reshape(Tensor& t, uint64_t elements) {
  t.sizes = Vec<int32_t>{static_cast<int32_t>(elements)};
  t.dim_order = Vec<uint8_t>{0};
}

bool ConstantTensorBounds(Ctx& c) {
  std::vector<ConstantTensor> all = SegmentConstants(c);
  if (all.empty()) return Decline(c, "the input has no constant tensor in a segment");
  // The last constant: it can grow past the segment end without running
  // into another constant first.
  ConstantTensor& last = *std::max_element(
      all.begin(), all.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
  const uint64_t room = ConstantSegmentSize(c) - last.offset;
  Reshape(*last.tensor, room / last.element + 1);
  c.path = ValuePath(last.plan, last.value);
  return true;
}

bool ConstantTensorOverlap(Ctx& c) {
  std::vector<ConstantTensor> all = SegmentConstants(c);
  auto cs = ConstantSegment(c);
  const uint64_t size = ConstantSegmentSize(c);
  for (ConstantTensor& ct : all) {
    uint64_t next = size;
    for (uint64_t o : *(*cs)->offsets) {
      if (o > ct.offset) next = std::min(next, o);
    }
    const uint64_t elements = (next - ct.offset) / ct.element + 1;
    if (next < size && ct.offset + elements * ct.element <= size) {
      Reshape(*ct.tensor, elements);
      c.path = ValuePath(ct.plan, ct.value);
      return true;
    }
  }
  return Decline(c, "no constant tensor is followed by another constant");
}

bool ConstantBufferSize(Ctx& c) {
  if (!HasInlineConstants(c.file)) return Decline(c, "the input has no constant_buffer");
  for (size_t p = 0; p < Plans(c).size(); ++p) {
    for (size_t v = 0; v < Plans(c)[p].values->size(); ++v) {
      Tensor* t = std::get_if<Tensor>(&(*Plans(c)[p].values)[v].val);
      if (!t || t->allocation || t->data_buffer_idx == 0 ||
          t->data_buffer_idx >= c.file.program.constant_buffer->size()) {
        continue;
      }
      const auto& storage = (*c.file.program.constant_buffer)[t->data_buffer_idx].storage;
      Reshape(*t, (storage ? storage->size() : 0) / ElementSizeOr1(t->scalar_type) + 1);
      c.path = ValuePath(p, v);
      return true;
    }
  }
  return Decline(c, "no tensor uses constant_buffer");
}

bool ConstantBufferAlign(Ctx& c) {
  if (!HasInlineConstants(c.file)) return Decline(c, "the input has no constant_buffer");
  auto& buffers = *c.file.program.constant_buffer;
  const size_t k = 1 + Pick(c, buffers.size() - 1);
  if (!buffers[k].storage) buffers[k].storage = Bytes{};
  buffers[k].storage->resize(buffers[k].storage->size() + 16, 0);
  c.path = Str("constant_buffer[", k, "]");
  c.patch = [k](Bytes& b, Ctx&) {
    const auto* buffer =
        ProgramOf(b)->constant_buffer()->Get(static_cast<flatbuffers::uoffset_t>(k));
    MisalignVector(b, b.data(), reinterpret_cast<const flatbuffers::Table*>(buffer),
                   fb::Buffer::VT_STORAGE);
    return true;
  };
  return true;
}

// The last segment that holds data.
std::optional<size_t> LastDataSegment(Ctx& c) {
  std::optional<size_t> last;
  if (!c.file.program.segments) return last;
  for (size_t i = 0; i < c.file.program.segments->size(); ++i) {
    if ((*c.file.program.segments)[i].size > 0 &&
        (!last ||
         (*c.file.program.segments)[i].offset >= (*c.file.program.segments)[*last].offset)) {
      last = i;
    }
  }
  return last;
}

bool SegmentOverflow(Ctx& c) {
  const auto last = LastDataSegment(c);
  if (!last) return Decline(c, "the input has no segment with data");
  if (*last + 1 != c.file.segment_bytes.size())
    return Decline(c, "the last segment with data is not the last one");
  DataSegment& segment = (*c.file.program.segments)[*last];
  segment.offset = std::numeric_limits<uint64_t>::max() - 15;
  segment.size = std::max<uint64_t>(segment.size, 32);
  // Its bytes are not written, so segment_data_size covers the others only.
  c.file.segment_bytes.pop_back();
  c.file.extended_header = true;
  c.path = Str("segments[", *last, "]");
  return true;
}

bool SegmentAlign(Ctx& c) {
  const auto last = LastDataSegment(c);
  if (!last) return Decline(c, "the input has no segment with data");
  (*c.file.program.segments)[*last].offset += 8;
  c.path = Str("segments[", *last, "]");
  return true;
}

// An empty segment at offset 0 after a segment at a higher offset, named by
// a named_data entry so it is referenced. Being empty, it leaves the bytes
// before the higher segment what they were: zero padding.
bool SegmentOrder(Ctx& c) {
  auto& segs = c.file.program.segments;
  if (!segs ||
      std::none_of(segs->begin(), segs->end(), [](const DataSegment& s) { return s.offset > 0; })) {
    return Decline(c, "the input has no segment past offset 0");
  }
  c.file.segment_bytes.resize(segs->size());
  segs->push_back(DataSegment{0, 0});
  c.file.segment_bytes.push_back(Bytes{});
  auto& named = c.file.program.named_data;
  if (!named) named = Vec<NamedData>{};
  named->push_back(NamedData{"conformance.empty", static_cast<uint32_t>(segs->size() - 1)});
  c.path = Str("segments[", segs->size() - 1, "]");
  return true;
}

bool SegmentOverlap(Ctx& c) {
  auto& segs = c.file.program.segments;
  std::vector<size_t> with_data;
  for (size_t i = 0; segs && i < segs->size(); ++i) {
    if ((*segs)[i].size > 0) with_data.push_back(i);
  }
  if (with_data.size() < 2) return Decline(c, "the input has fewer than two segments with data");
  const size_t a = with_data[with_data.size() - 2], b = with_data.back();
  // The later segment starts 16 bytes into the earlier one.
  (*segs)[b].offset = (*segs)[a].offset + std::min<uint64_t>(16, (*segs)[a].size - 1) / 16 * 16;
  c.path = Str("segments[", b, "]");
  return true;
}

bool SegmentDataSize(Ctx& c) {
  if (!NeedSegmentData(c)) return false;
  c.patch = [](Bytes& b, Ctx&) {
    Put(b, kSegmentDataSizeAt, Get64(b, kSegmentDataSizeAt) - 1, 8);
    return true;
  };
  return true;
}

// An empty segment past the end of a file without segment data: it holds no
// bytes, so only its position is wrong.
bool SegmentBounds(Ctx& c) {
  if (AnySegmentData(c.file)) return Decline(c, "the input has segment data");
  auto cs = ConstantSegment(c);
  if (!cs) return Decline(c, "the input has no constant segment");
  // Empty segments write no bytes, so the file ends where the program does.
  c.file.segment_bytes.clear();
  (*c.file.program.segments)[(*cs)->segment_index].offset = uint64_t{1} << 24;
  c.path = Str("segments[", (*cs)->segment_index, "]");
  return true;
}

bool SegmentUnreferenced(Ctx& c) {
  c.path = Str("segments[", AppendSegment(c.file, Bytes(16, 0x5a)), "]");
  return true;
}

bool MutableSegmentShared(Ctx& c) {
  auto& m = c.file.program.mutable_data_segments;
  if (!m || m->empty()) return Decline(c, "the input has no mutable data segment");
  m->push_back(SubsegmentOffsets{(*m)[0].segment_index, Vec<uint64_t>{0}});
  c.path = Str("mutable_data_segments[", m->size() - 1, "]");
  return true;
}

// ---- delegates

struct DelegateRef {
  size_t plan, delegate;
};

std::vector<DelegateRef> Delegates(Ctx& c, int8_t location) {
  std::vector<DelegateRef> out;
  for (size_t p = 0; p < Plans(c).size(); ++p) {
    if (!Plans(c)[p].delegates || !Plans(c)[p].chains || Plans(c)[p].chains->empty()) continue;
    for (size_t d = 0; d < Plans(c)[p].delegates->size(); ++d) {
      const auto& processed = (*Plans(c)[p].delegates)[d].processed;
      if (processed && (location < 0 || processed->location == location)) out.push_back({p, d});
    }
  }
  return out;
}

// A copy of a delegate with its own DelegateCall at the end of the chain, so
// that breaking the copy leaves the original's data referenced.
std::optional<DelegateRef> DuplicateDelegate(Ctx& c, int8_t location) {
  auto all = Delegates(c, location);
  if (all.empty()) return std::nullopt;
  const DelegateRef r = all[Pick(c, all.size())];
  ExecutionPlan& plan = Plans(c)[r.plan];
  plan.delegates->push_back((*plan.delegates)[r.delegate]);
  const int32_t copy = static_cast<int32_t>(plan.delegates->size() - 1);
  AddInstruction(plan, Instruction::Of(DelegateCall{copy, Vec<int32_t>{}}));
  c.path = Str(PlanPath(r.plan), ".delegates[", copy, "]");
  return DelegateRef{r.plan, static_cast<size_t>(copy)};
}

BackendDelegate& DelegateAt(Ctx& c, DelegateRef r) {
  return (*Plans(c)[r.plan].delegates)[r.delegate];
}

bool DelegateDataIndex(Ctx& c) {
  auto d = DuplicateDelegate(c, 0);
  if (!d) return Decline(c, "the input has no INLINE delegate");
  DelegateAt(c, *d).processed->index =
      static_cast<uint32_t>(c.file.program.backend_delegate_data->size());
  return true;
}

bool DelegateDataNull(Ctx& c) {
  auto& data = c.file.program.backend_delegate_data;
  if (!data || data->empty()) return Decline(c, "the input has no backend_delegate_data");
  const size_t k = Pick(c, data->size());
  (*data)[k].data = std::nullopt;
  c.path = Str("backend_delegate_data[", k, "]");
  return true;
}

bool DelegateDataUnreferenced(Ctx& c) {
  auto& data = c.file.program.backend_delegate_data;
  if (!data) data = Vec<InlineData>{};
  data->push_back(InlineData{Bytes(32, 0x33)});
  c.path = Str("backend_delegate_data[", data->size() - 1, "]");
  return true;
}

bool DelegateDataAlign(Ctx& c) {
  auto& data = c.file.program.backend_delegate_data;
  if (!data || data->empty()) return Decline(c, "the input has no backend_delegate_data");
  const size_t k = Pick(c, data->size());
  if (!(*data)[k].data) return Decline(c, "the delegate data has no bytes");
  (*data)[k].data->resize((*data)[k].data->size() + 16, 0);
  c.path = Str("backend_delegate_data[", k, "]");
  c.patch = [k](Bytes& b, Ctx&) {
    const auto* entry =
        ProgramOf(b)->backend_delegate_data()->Get(static_cast<flatbuffers::uoffset_t>(k));
    MisalignVector(b, b.data(), reinterpret_cast<const flatbuffers::Table*>(entry),
                   fb::BackendDelegateInlineData::VT_DATA);
    return true;
  };
  return true;
}

bool NamedDataNoSegments(Ctx& c) {
  if (AnySegmentData(c.file)) return Decline(c, "the input has segment data");
  for (const ExecutionPlan& p : Plans(c)) {
    if (p.delegates && !Delegates(c, 1).empty())
      return Decline(c, "the input has SEGMENT delegates");
  }
  if (c.file.program.mutable_data_segments)
    return Decline(c, "the input has mutable data segments");
  c.file.program.segments = std::nullopt;
  c.file.segment_bytes.clear();
  c.file.program.constant_segment = std::nullopt;
  c.file.program.named_data = Vec<NamedData>{NamedData{"conformance.blob", 0}};
  c.path = "named_data";
  return true;
}

// A named blob in a new segment, for the named_data mutations.
size_t AddNamedBlob(Ctx& c, std::string key) {
  const uint32_t segment = AppendSegment(c.file, Bytes(16, 0x11));
  auto& named = c.file.program.named_data;
  if (!named) named = Vec<NamedData>{};
  named->push_back(NamedData{std::move(key), segment});
  return named->size() - 1;
}

bool NamedDataKey(Ctx& c) {
  const size_t k = AddNamedBlob(c, "");
  if (c.seed % 2 == 1) (*c.file.program.named_data)[k].key = std::nullopt;
  c.path = Str("named_data[", k, "]");
  return true;
}

bool NamedDataKeyDuplicate(Ctx& c) {
  AddNamedBlob(c, "conformance.weights");
  const size_t k = AddNamedBlob(c, "conformance.weights");
  c.path = Str("named_data[", k, "]");
  return true;
}

bool NamedDataSegmentIndex(Ctx& c) {
  auto& named = c.file.program.named_data;
  if (!named) named = Vec<NamedData>{};
  const uint32_t count =
      c.file.program.segments ? static_cast<uint32_t>(c.file.program.segments->size()) : 0;
  named->push_back(NamedData{"conformance.missing", count + 3});
  c.path = Str("named_data[", named->size() - 1, "]");
  return true;
}

// ---- mutable data segments

bool NeedMutable(Ctx& c) {
  auto& m = c.file.program.mutable_data_segments;
  if (!m || m->empty() || !(*m)[0].offsets || !c.file.program.segments ||
      (*m)[0].segment_index >= c.file.program.segments->size()) {
    return Decline(c, "the input has no mutable data segment");
  }
  return true;
}

SubsegmentOffsets& Mutable0(Ctx& c) { return (*c.file.program.mutable_data_segments)[0]; }

bool MutableSegmentIndex(Ctx& c) {
  if (!NeedMutable(c)) return false;
  // The old segment stays referenced through a named_data entry.
  const uint32_t old_segment = Mutable0(c).segment_index;
  auto& named = c.file.program.named_data;
  if (!named) named = Vec<NamedData>{};
  named->push_back(NamedData{"conformance.mutable", old_segment});
  Mutable0(c).segment_index = static_cast<uint32_t>(c.file.program.segments->size()) + 2;
  c.path = "mutable_data_segments[0]";
  return true;
}

bool MutablePlaceholder(Ctx& c) {
  if (!NeedMutable(c)) return false;
  Bytes& bytes = c.file.segment_bytes[Mutable0(c).segment_index];
  bytes.insert(bytes.begin(), 16, 0);
  for (uint64_t& o : *Mutable0(c).offsets) o += 16;
  LayoutSegments(c.file);
  c.path = "mutable_data_segments[0].offsets[0]";
  return true;
}

bool MutableOffsetBounds(Ctx& c) {
  if (!NeedMutable(c)) return false;
  const uint64_t size = c.file.segment_bytes[Mutable0(c).segment_index].size();
  c.path = Str("mutable_data_segments[0].offsets[", Mutable0(c).offsets->size(), "]");
  Mutable0(c).offsets->push_back(size + 16);
  return true;
}

// An empty mutable segment in a file without segment data, so no header.
bool MutableNoHeader(Ctx& c) {
  if (AnySegmentData(c.file))
    return Decline(c, "the input has segment data, which needs the header");
  if (c.file.program.mutable_data_segments)
    return Decline(c, "the input has mutable data segments");
  const uint32_t segment = AppendSegment(c.file, Bytes{});
  c.file.program.mutable_data_segments =
      Vec<SubsegmentOffsets>{SubsegmentOffsets{segment, Vec<uint64_t>{0}}};
  c.file.extended_header = false;
  c.path = "mutable_data_segments";
  return true;
}

bool MutableMultiple(Ctx& c) {
  auto& m = c.file.program.mutable_data_segments;
  if (!m) m = Vec<SubsegmentOffsets>{};
  const bool had_one = !m->empty();
  if (!had_one)
    m->push_back(SubsegmentOffsets{AppendSegment(c.file, Bytes(16, 0)), Vec<uint64_t>{0}});
  m->push_back(SubsegmentOffsets{AppendSegment(c.file, Bytes(16, 0)), Vec<uint64_t>{0}});
  c.path = "mutable_data_segments";
  return true;
}

// ---------------------------------------------------------------------------
// C. Execution plan

std::optional<size_t> AnyPlan(Ctx& c) {
  if (Plans(c).empty()) return std::nullopt;
  return Pick(c, Plans(c).size());
}

bool PlanName(Ctx& c) {
  auto p = AnyPlan(c);
  if (!p) return Decline(c, "the input has no plan");
  Plans(c)[*p].name = (c.seed / 2) % 2 == 0 ? Opt<std::string>(std::string()) : std::nullopt;
  c.path = PlanPath(*p);
  return true;
}

bool PlanNameDuplicate(Ctx& c) {
  auto p = AnyPlan(c);
  if (!p) return Decline(c, "the input has no plan");
  Plans(c).push_back(Plans(c)[*p]);
  c.path = PlanPath(Plans(c).size() - 1);
  return true;
}

bool PlanFieldMissing(Ctx& c) {
  auto p = AnyPlan(c);
  if (!p) return Decline(c, "the input has no plan");
  ExecutionPlan& plan = Plans(c)[*p];
  // Fields whose absence breaks nothing that refers to them.
  std::vector<std::function<void()>> fields = {[&] { plan.inputs = std::nullopt; },
                                               [&] { plan.outputs = std::nullopt; }};
  if (plan.operators && plan.operators->empty())
    fields.push_back([&] { plan.operators = std::nullopt; });
  if (plan.delegates && plan.delegates->empty())
    fields.push_back([&] { plan.delegates = std::nullopt; });
  fields[Pick(c, fields.size())]();
  c.path = PlanPath(*p);
  return true;
}

bool PlanContainerMeta(Ctx& c) {
  auto p = AnyPlan(c);
  if (!p) return Decline(c, "the input has no plan");
  Plans(c)[*p].container_meta_type = std::nullopt;
  c.path = PlanPath(*p);
  return true;
}

bool PlanNoChains(Ctx& c) {
  for (size_t p = 0; p < Plans(c).size(); ++p) {
    ExecutionPlan& plan = Plans(c)[p];
    if (plan.delegates && plan.delegates->empty() && plan.chains) {
      plan.chains = Vec<Chain>{};
      plan.operators = Vec<Operator>{};
      c.path = PlanPath(p);
      return true;
    }
  }
  return Decline(c, "every plan uses delegates");
}

bool PlanIoIndex(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with values");
  Plans(c)[*p].outputs->push_back(ValueCount(Plans(c)[*p]) + 2);
  c.path = Str(PlanPath(*p), ".outputs[", Plans(c)[*p].outputs->size() - 1, "]");
  return true;
}

bool PlanIoType(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with values");
  ExecutionPlan& plan = Plans(c)[*p];
  plan.outputs->push_back(AddValue(plan, EValue::Of(DoubleList{Vec<double>{1.0}})));
  c.path = Str(PlanPath(*p), ".outputs[", plan.outputs->size() - 1, "]");
  return true;
}

bool PlanInputDuplicate(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with values");
  ExecutionPlan& plan = Plans(c)[*p];
  const int32_t t = AddValue(plan, EValue::Of(SmallTensor()));
  plan.inputs->push_back(t);
  plan.inputs->push_back(t);
  c.path = Str(PlanPath(*p), ".inputs[", plan.inputs->size() - 1, "]");
  return true;
}

bool PlanBufferSize(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with planned memory");
  Plans(c)[*p].non_const_buffer_sizes->push_back(-16);
  c.path = Str(PlanPath(*p), ".non_const_buffer_sizes[",
               Plans(c)[*p].non_const_buffer_sizes->size() - 1, "]");
  return true;
}

bool PlanBufferReserved(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with planned memory");
  (*Plans(c)[*p].non_const_buffer_sizes)[0] = 16;
  c.path = Str(PlanPath(*p), ".non_const_buffer_sizes[0]");
  return true;
}

bool PlanBufferDevice(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with planned memory");
  NonConstBufferDevice d{1, 0, 0};
  switch ((c.seed / 2) % 3) {
    case 0:
      d.buffer_idx = 0;
      break;  // the reserved buffer
    case 1:
      d.device_type = 9;
      break;
    default:
      d.buffer_idx = static_cast<int32_t>(Plans(c)[*p].non_const_buffer_sizes->size());
      break;
  }
  Plans(c)[*p].non_const_buffer_device = Vec<NonConstBufferDevice>{d};
  c.path = Str(PlanPath(*p), ".non_const_buffer_device[0]");
  return true;
}

// A new operator used by a copy of an existing KernelCall, so it is not
// unused; the copy rewrites the same out value after the original.
std::optional<size_t> AddUsedOperator(Ctx& c, size_t p, Operator op) {
  ExecutionPlan& plan = Plans(c)[p];
  for (const Instruction& i : Instructions(plan)) {
    if (const auto* k = std::get_if<KernelCall>(&i.args)) {
      plan.operators->push_back(std::move(op));
      KernelCall copy = *k;
      copy.op_index = static_cast<int32_t>(plan.operators->size() - 1);
      AddInstruction(plan, Instruction::Of(std::move(copy)));
      return plan.operators->size() - 1;
    }
  }
  return std::nullopt;
}

bool BreakOperator(Ctx& c, Operator op) {
  for (size_t n = 0; n < Plans(c).size(); ++n) {
    const size_t p = (Pick(c, Plans(c).size()) + n) % Plans(c).size();
    if (!PickPlan(c) || !Plans(c)[p].chains || Plans(c)[p].chains->empty()) continue;
    if (auto k = AddUsedOperator(c, p, op)) {
      c.path = Str(PlanPath(p), ".operators[", *k, "]");
      return true;
    }
  }
  return Decline(c, "the input has no KernelCall");
}

bool OperatorName(Ctx& c) { return BreakOperator(c, Operator{std::string(), std::string("out")}); }
bool OperatorNameLength(Ctx& c) {
  return BreakOperator(c, Operator{"aten::" + std::string(100, 'x'), "out"});
}

bool OperatorDuplicate(Ctx& c) {
  for (size_t p = 0; p < Plans(c).size(); ++p) {
    ExecutionPlan& plan = Plans(c)[p];
    if (!plan.operators || plan.operators->empty() || !plan.chains || plan.chains->empty())
      continue;
    const Operator op = (*plan.operators)[0];
    if (auto k = AddUsedOperator(c, p, op)) {
      c.path = Str(PlanPath(p), ".operators[", *k, "]");
      return true;
    }
  }
  return Decline(c, "the input has no KernelCall");
}

bool OperatorUnused(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with operators");
  Plans(c)[*p].operators->push_back(Operator{"conformance::unused", "out"});
  c.path = Str(PlanPath(*p), ".operators[", Plans(c)[*p].operators->size() - 1, "]");
  return true;
}

bool DelegateId(Ctx& c) {
  auto d = DuplicateDelegate(c, -1);
  if (!d) return Decline(c, "the input has no delegate");
  DelegateAt(c, *d).id = std::string();
  return true;
}

bool DelegateProcessed(Ctx& c) {
  auto d = DuplicateDelegate(c, -1);
  if (!d) return Decline(c, "the input has no delegate");
  DelegateAt(c, *d).processed = std::nullopt;
  return true;
}

bool DelegateLocation(Ctx& c) {
  auto d = DuplicateDelegate(c, -1);
  if (!d) return Decline(c, "the input has no delegate");
  DelegateAt(c, *d).processed->location = 5;
  return true;
}

bool DelegateSegmentIndex(Ctx& c) {
  auto d = DuplicateDelegate(c, -1);
  if (!d) return Decline(c, "the input has no delegate");
  const uint32_t count =
      c.file.program.segments ? static_cast<uint32_t>(c.file.program.segments->size()) : 0;
  DelegateAt(c, *d).processed = DataReference{1, count + 2};
  return true;
}

bool DelegateCompileSpec(Ctx& c) {
  auto all = Delegates(c, -1);
  if (all.empty()) return Decline(c, "the input has no delegate");
  BackendDelegate& d = DelegateAt(c, all[Pick(c, all.size())]);
  if (!d.compile_specs) d.compile_specs = Vec<CompileSpec>{};
  CompileSpec spec{std::string("conformance"), Bytes{1}};
  if (c.seed % 2 == 0) {
    spec.key = std::nullopt;
  } else {
    spec.value = std::nullopt;
  }
  d.compile_specs->push_back(spec);
  const DelegateRef r = all[Pick(c, all.size())];
  c.path = Str(PlanPath(r.plan), ".delegates[", r.delegate, "].compile_specs[",
               d.compile_specs->size() - 1, "]");
  return true;
}

bool DelegateUnused(Ctx& c) {
  auto all = Delegates(c, -1);
  if (all.empty()) return Decline(c, "the input has no delegate");
  const DelegateRef r = all[Pick(c, all.size())];
  ExecutionPlan& plan = Plans(c)[r.plan];
  plan.delegates->push_back((*plan.delegates)[r.delegate]);
  c.path = Str(PlanPath(r.plan), ".delegates[", plan.delegates->size() - 1, "]");
  return true;
}

// An XNNPACK payload whose XH00 header places the flatbuffer past the end
// (docs/formats/pte.md §1.3), as a new INLINE delegate with its own DelegateCall.
bool DelegateXnnpackHeader(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with a chain");
  Bytes payload(64, 0);
  std::memcpy(&payload[4], "XH00", 4);
  payload[8] = 30;                         // header length
  payload[10] = 30;                        // flatbuffer offset
  payload[14] = 0x00, payload[15] = 0x10;  // flatbuffer size 0x1000: past the end
  payload[18] = 40;                        // constant data offset
  payload[22] = 8;                         // constant data size
  auto& data = c.file.program.backend_delegate_data;
  if (!data) data = Vec<InlineData>{};
  data->push_back(InlineData{payload});
  ExecutionPlan& plan = Plans(c)[*p];
  BackendDelegate d;
  d.id = "XnnpackBackend";
  d.processed = DataReference{0, static_cast<uint32_t>(data->size() - 1)};
  plan.delegates->push_back(d);
  AddInstruction(plan, Instruction::Of(DelegateCall{
                           static_cast<int32_t>(plan.delegates->size() - 1), Vec<int32_t>{}}));
  c.path = Str(PlanPath(*p), ".delegates[", plan.delegates->size() - 1, "]");
  return true;
}

// ---------------------------------------------------------------------------
// D. Values: each mutation adds one new, unreferenced value.

bool ValueType(Ctx& c) {
  EValue v;
  v.val = Int{1};
  v.type = c.seed % 2 == 0 ? 0 : 12;
  return AddBrokenValue(c, std::move(v));
}

bool ValueNull(Ctx& c) {
  EValue v;
  v.type = kTagInt;
  return AddBrokenValue(c, std::move(v));
}

bool ValueStringNull(Ctx& c) { return AddBrokenValue(c, EValue::Of(String{std::nullopt})); }

bool ValueListItemsNull(Ctx& c) {
  switch (c.seed % 4) {
    case 0:
      return AddBrokenValue(c, EValue::Of(IntList{std::nullopt}));
    case 1:
      return AddBrokenValue(c, EValue::Of(DoubleList{std::nullopt}));
    case 2:
      return AddBrokenValue(c, EValue::Of(BoolList{std::nullopt}));
    default:
      return AddBrokenValue(c, EValue::Of(TensorList{std::nullopt}));
  }
}

bool ValueListIndex(Ctx& c) { return AddBrokenValue(c, EValue::Of(TensorList{Vec<int32_t>{-5}})); }

bool ValueListElementType(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with values");
  ExecutionPlan& plan = Plans(c)[*p];
  const int32_t i = AddValue(plan, EValue::Of(Int{3}));
  c.path =
      ValuePath(*p, static_cast<size_t>(AddValue(plan, EValue::Of(TensorList{Vec<int32_t>{i}}))));
  return true;
}

bool ValueTensorListForwardRef(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with values");
  ExecutionPlan& plan = Plans(c)[*p];
  const int32_t list = AddValue(plan, EValue::Of(TensorList{Vec<int32_t>{ValueCount(plan) + 1}}));
  AddValue(plan, EValue::Of(SmallTensor()));
  c.path = ValuePath(*p, static_cast<size_t>(list));
  return true;
}

bool ValueIntListForwardRef(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with values");
  ExecutionPlan& plan = Plans(c)[*p];
  const int32_t list = AddValue(plan, EValue::Of(IntList{Vec<int64_t>{ValueCount(plan) + 1}}));
  AddValue(plan, EValue::Of(Int{2}));
  c.path = ValuePath(*p, static_cast<size_t>(list));
  return true;
}

// ---------------------------------------------------------------------------
// E. Tensors: each mutation adds one new, unreferenced tensor with the defect.

bool TensorScalarType(Ctx& c) {
  return AddBrokenTensor(
      c, [&](Tensor& t, ExecutionPlan&) { t.scalar_type = c.seed % 2 == 0 ? 9 : 40; });
}
bool TensorStorageOffset(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan&) { t.storage_offset = 4; });
}
bool TensorSizesMissing(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan&) {
    t.sizes = std::nullopt;
    t.dim_order = Vec<uint8_t>{};
  });
}
bool TensorRank(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan&) {
    t.sizes = Vec<int32_t>(17, 1);
    t.dim_order = Vec<uint8_t>{};
    for (uint8_t i = 0; i < 17; ++i) t.dim_order->push_back(i);
  });
}
bool TensorSizeNegative(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan&) { t.sizes = Vec<int32_t>{-2}; });
}
bool TensorDimOrder(Ctx& c) {
  return AddBrokenTensor(c, [&](Tensor& t, ExecutionPlan&) {
    t.sizes = Vec<int32_t>{2, 3};
    switch (c.seed % 3) {
      case 0:
        t.dim_order = Vec<uint8_t>{0, 0};
        break;
      case 1:
        t.dim_order = Vec<uint8_t>{0};
        break;
      default:
        t.dim_order = std::nullopt;
        break;
    }
  });
}
bool TensorNumelOverflow(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan&) {
    t.sizes = Vec<int32_t>{0x7fffffff, 0x7fffffff, 0x7fffffff};
    t.dim_order = Vec<uint8_t>{0, 1, 2};
  });
}
bool TensorDynamism(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan&) { t.shape_dynamism = 3; });
}
bool TensorDynamicUnbound(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan&) { t.shape_dynamism = 2; });
}
bool TensorLayout(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan&) { t.layout = 1; });
}
bool TensorConstantIndex(Ctx& c) {
  uint32_t count = 1;
  if (HasInlineConstants(c.file)) {
    count = static_cast<uint32_t>(c.file.program.constant_buffer->size());
  } else if (auto cs = ConstantSegment(c)) {
    count = static_cast<uint32_t>((*cs)->offsets->size());
  }
  return AddBrokenTensor(c, [count](Tensor& t, ExecutionPlan&) { t.data_buffer_idx = count + 3; });
}
bool TensorMutableIndex(Ctx& c) {
  uint32_t count = 1;
  if (c.file.program.mutable_data_segments && !c.file.program.mutable_data_segments->empty() &&
      Mutable0(c).offsets) {
    count = static_cast<uint32_t>(Mutable0(c).offsets->size());
  }
  return AddBrokenTensor(c, [count](Tensor& t, ExecutionPlan& plan) {
    t.allocation = AddPlannedRegion(plan, 16);
    t.data_buffer_idx = count + 3;
  });
}
bool TensorMutableBounds(Ctx& c) {
  if (!NeedMutable(c)) return false;
  const uint64_t size = c.file.segment_bytes[Mutable0(c).segment_index].size();
  const uint32_t index = static_cast<uint32_t>(Mutable0(c).offsets->size());
  Mutable0(c).offsets->push_back(size);  // an initial value at the very end, 0 bytes left
  return AddBrokenTensor(c, [index](Tensor& t, ExecutionPlan& plan) {
    t.allocation = AddPlannedRegion(plan, 16);
    t.data_buffer_idx = index;
  });
}
bool TensorMemoryId(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan& plan) {
    t.allocation = Allocation{static_cast<uint32_t>(plan.non_const_buffer_sizes->size() + 1), 0, 0};
  });
}
bool TensorMemoryBounds(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan& plan) {
    const uint64_t end = AlignUp(static_cast<uint64_t>((*plan.non_const_buffer_sizes)[1]), 16);
    (*plan.non_const_buffer_sizes)[1] = static_cast<int64_t>(end);
    t.allocation = Allocation{1, static_cast<uint32_t>(end), static_cast<uint32_t>(end >> 32)};
  });
}
bool TensorMemoryAlign(Ctx& c) {
  return AddBrokenTensor(
      c, [](Tensor& t, ExecutionPlan& plan) { t.allocation = AddPlannedRegion(plan, 16, 8); });
}
bool TensorExternalName(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan&) {
    t.extra = ExtraTensorInfo{0, std::nullopt, 1, 0, 0};
  });
}
bool TensorLocation(Ctx& c) {
  return AddBrokenTensor(c, [&](Tensor& t, ExecutionPlan&) {
    t.extra = ExtraTensorInfo{};
    if (c.seed % 2 == 0) {
      t.extra->location = 4;
    } else {
      t.extra->device_type = 7;
    }
  });
}
bool TensorMutableSegmentsIdx(Ctx& c) {
  return AddBrokenTensor(c, [](Tensor& t, ExecutionPlan&) {
    t.extra = ExtraTensorInfo{};
    t.extra->mutable_data_segments_idx = 1;
  });
}

// The program's EXTERNAL tensors (location 1, with a name): a program with
// one comes with a .ptd, against which PTE-51d holds.
struct ExternalTensor {
  size_t plan;
  Tensor tensor;
};
std::vector<ExternalTensor> ExternalTensors(Ctx& c) {
  std::vector<ExternalTensor> out;
  if (!c.file.program.execution_plan) return out;
  for (size_t p = 0; p < Plans(c).size(); ++p) {
    if (!Plans(c)[p].values) continue;
    for (const EValue& v : *Plans(c)[p].values) {
      const Tensor* t = std::get_if<Tensor>(&v.val);
      if (t && t->extra && t->extra->location == 1 && t->extra->fully_qualified_name &&
          !t->extra->fully_qualified_name->empty()) {
        out.push_back({p, *t});
      }
    }
  }
  return out;
}

// Adds a copy of an EXTERNAL tensor changed by `breaks`, unreferenced, so
// that the program alone stays valid and only the check against its .ptd
// fails (its case needs the companion).
bool AddBrokenExternal(Ctx& c, const std::function<bool(Tensor&)>& breaks) {
  std::vector<ExternalTensor> all = ExternalTensors(c);
  if (all.empty())
    return Decline(c, "the program has no EXTERNAL tensor, so no companion .ptd to check against");
  ExternalTensor& e = all[Pick(c, all.size())];
  if (!breaks(e.tensor))
    return Decline(c, "the EXTERNAL tensor's rank leaves no room for another dimension");
  c.path = ValuePath(
      e.plan, static_cast<size_t>(AddValue(Plans(c)[e.plan], EValue::Of(std::move(e.tensor)))));
  return true;
}

// PTE-51d: a name the .ptd has no key for.
bool ExternalKeyMissing(Ctx& c) {
  return AddBrokenExternal(c, [](Tensor& t) {
    t.extra->fully_qualified_name = "conformance.missing." + *t.extra->fully_qualified_name;
    return true;
  });
}

// PTE-51d: the .ptd's key, with one more (size 1) dimension than its layout.
bool ExternalLayout(Ctx& c) {
  return AddBrokenExternal(c, [](Tensor& t) {
    if (!t.sizes || !t.dim_order || t.sizes->size() >= 16) return false;
    t.dim_order->push_back(static_cast<uint8_t>(t.sizes->size()));
    t.sizes->push_back(1);
    return true;
  });
}

// PTE-51d: the program unchanged, without the .ptd its EXTERNAL tensors
// name, so that the checks against it cannot run; the note names the first.
bool ExternalUnchecked(Ctx& c) {
  if (ExternalTensors(c).empty())
    return Decline(c, "the program has no EXTERNAL tensor, so every check of PTE-51d runs");
  for (size_t p = 0; p < Plans(c).size(); ++p) {
    if (!Plans(c)[p].values) continue;
    const Vec<EValue>& values = *Plans(c)[p].values;
    for (size_t v = 0; v < values.size(); ++v) {
      const Tensor* t = std::get_if<Tensor>(&values[v].val);
      if (t && t->extra && t->extra->location == 1) {
        c.path = ValuePath(p, v);
        return true;
      }
    }
  }
  return false;
}

// A KernelCall appended at the end that writes a constant tensor.
bool TensorConstantWritten(Ctx& c) {
  std::vector<ConstantTensor> all = SegmentConstants(c);
  if (all.empty()) return Decline(c, "the input has no constant tensor in a segment");
  const ConstantTensor& ct = all[Pick(c, all.size())];
  ExecutionPlan& plan = Plans(c)[ct.plan];
  if (!plan.chains || plan.chains->empty() || !plan.operators)
    return Decline(c, "the constant's plan has no chain");
  const int32_t v = static_cast<int32_t>(ct.value);
  const int32_t op = AnyOperator(plan);
  // Keep the operator used even if it was just added.
  c.path = InstructionPath(
      ct.plan, AddInstruction(plan, Instruction::Of(KernelCall{op, Vec<int32_t>{v, v}})));
  return true;
}

// ---------------------------------------------------------------------------
// F. Instructions: each mutation appends one instruction at the chain's end.

bool InstructionType(Ctx& c) {
  return AddBrokenInstruction(c, [&](ExecutionPlan&) {
    Instruction i;
    i.type = c.seed % 2 == 0 ? kInstrKernel : 9;
    return i;
  });
}

bool KernelArgsMissing(Ctx& c) {
  return AddBrokenInstruction(c, [](ExecutionPlan& plan) {
    return Instruction::Of(KernelCall{AnyOperator(plan), std::nullopt});
  });
}

bool KernelOpIndex(Ctx& c) {
  return AddBrokenInstruction(c, [](ExecutionPlan& plan) {
    return Instruction::Of(
        KernelCall{static_cast<int32_t>(plan.operators->size()) + 1, Vec<int32_t>{}});
  });
}

bool KernelArgIndex(Ctx& c) {
  return AddBrokenInstruction(c, [&](ExecutionPlan& plan) {
    const int32_t bad = c.seed % 2 == 0 ? ValueCount(plan) + 4 : -3;
    return Instruction::Of(KernelCall{AnyOperator(plan), Vec<int32_t>{bad}});
  });
}

bool DelegateCallIndex(Ctx& c) {
  return AddBrokenInstruction(c, [](ExecutionPlan& plan) {
    return Instruction::Of(
        DelegateCall{static_cast<int32_t>(plan.delegates->size()) + 2, Vec<int32_t>{}});
  });
}

// JumpFalse to the end of the chain (destination = its own index + 1).
Instruction JumpToEnd(ExecutionPlan& plan, int32_t cond) {
  return Instruction::Of(JumpFalseCall{cond, static_cast<int32_t>(Instructions(plan).size() + 1)});
}

bool JumpCondIndex(Ctx& c) {
  return AddBrokenInstruction(
      c, [](ExecutionPlan& plan) { return JumpToEnd(plan, ValueCount(plan) + 7); });
}

bool JumpCondType(Ctx& c) {
  return AddBrokenInstruction(
      c, [](ExecutionPlan& plan) { return JumpToEnd(plan, AddValue(plan, EValue::Of(Int{1}))); });
}

bool JumpDestination(Ctx& c) {
  return AddBrokenInstruction(c, [&](ExecutionPlan& plan) {
    const int32_t cond = AddValue(plan, EValue::Of(Bool{true}));
    const int32_t bad = c.seed % 2 == 0 ? static_cast<int32_t>(Instructions(plan).size()) + 5 : -2;
    return Instruction::Of(JumpFalseCall{cond, bad});
  });
}

bool JumpConstantLoop(Ctx& c) {
  return AddBrokenInstruction(c, [](ExecutionPlan& plan) {
    const int32_t cond = AddValue(plan, EValue::Of(Bool{false}));
    return Instruction::Of(JumpFalseCall{cond, static_cast<int32_t>(Instructions(plan).size())});
  });
}

bool MoveIndex(Ctx& c) {
  return AddBrokenInstruction(c, [](ExecutionPlan& plan) {
    const int32_t to = AddValue(plan, EValue::Of(Int{0}));
    return Instruction::Of(MoveCall{ValueCount(plan) + 3, to});
  });
}

bool MoveType(Ctx& c) {
  return AddBrokenInstruction(c, [](ExecutionPlan& plan) {
    const int32_t from = AddValue(plan, EValue::Of(Int{0}));
    const int32_t to = AddValue(plan, EValue::Of(Double{0}));
    return Instruction::Of(MoveCall{from, to});
  });
}

bool FreeIndex(Ctx& c) {
  return AddBrokenInstruction(
      c, [](ExecutionPlan& plan) { return Instruction::Of(FreeCall{ValueCount(plan) + 3}); });
}

bool FreeNotTensor(Ctx& c) {
  return AddBrokenInstruction(c, [](ExecutionPlan& plan) {
    return Instruction::Of(FreeCall{AddValue(plan, EValue::Of(Int{0}))});
  });
}

bool FreeNotUnbound(Ctx& c) {
  return AddBrokenInstruction(c, [](ExecutionPlan& plan) {
    return Instruction::Of(FreeCall{AddValue(plan, EValue::Of(SmallTensor()))});
  });
}

bool ChainIoIndex(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with a chain");
  Chain& chain = (*Plans(c)[*p].chains)[0];
  if (!chain.inputs) chain.inputs = Vec<int32_t>{};
  chain.inputs->push_back(ValueCount(Plans(c)[*p]) + 1);
  c.path = Str(PlanPath(*p), ".chains[0].inputs[", chain.inputs->size() - 1, "]");
  return true;
}

bool ChainStacktrace(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with a chain");
  Chain& chain = (*Plans(c)[*p].chains)[0];
  chain.stacktrace = Vec<FrameList>(chain.instructions->size() + 1);
  c.path = Str(PlanPath(*p), ".chains[0]");
  return true;
}

// ---------------------------------------------------------------------------
// Whole program

// Two new planned inputs in the same bytes: both live from the start.
bool MemoryLiveOverlap(Ctx& c) {
  auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with planned memory");
  ExecutionPlan& plan = Plans(c)[*p];
  Tensor a = SmallTensor();
  a.allocation = AddPlannedRegion(plan, 16);
  Tensor b = a;
  plan.inputs->push_back(AddValue(plan, EValue::Of(std::move(a))));
  const int32_t second = AddValue(plan, EValue::Of(std::move(b)));
  plan.inputs->push_back(second);
  c.path = ValuePath(*p, static_cast<size_t>(second));
  return true;
}

// Two KernelCalls appended at the end that read a planned tensor nothing
// wrote (a tensor read by one instruction only may be its workspace).
bool DataflowReadBeforeWrite(Ctx& c) {
  const auto p = PickPlan(c);
  if (!p) return Decline(c, "no plan with a chain");
  ExecutionPlan& plan = Plans(c)[*p];
  Tensor in = SmallTensor();
  in.allocation = AddPlannedRegion(plan, 16);
  Tensor out = SmallTensor();
  out.allocation = AddPlannedRegion(plan, 16);
  const int32_t a = AddValue(plan, EValue::Of(std::move(in)));
  const int32_t b = AddValue(plan, EValue::Of(std::move(out)));
  const int32_t op = AnyOperator(plan);
  const size_t first = AddInstruction(plan, Instruction::Of(KernelCall{op, Vec<int32_t>{a, b, b}}));
  AddInstruction(plan, Instruction::Of(KernelCall{op, Vec<int32_t>{a, b, b}}));
  c.path = InstructionPath(*p, first);
  return true;
}

// ---------------------------------------------------------------------------

// A rule's mutation, with the rules that necessarily break with it whatever
// the input (most have none), and whether it shows only against the
// program's companion .ptd (docs/formats/pte.md §4 PTE-51d): the mutated
// program is valid alone.
struct Mutation {
  const Rule* rule;
  bool (*apply)(Ctx&);
  std::vector<const Rule*> also = {};
  bool needs_companion = false;
};

const std::vector<Mutation>& Mutations() {
  using namespace rules;
  static const std::vector<Mutation> kMutations = {
      {&kFileTooSmall, FileTooSmall},
      {&kFileIdentifier, FileIdentifier},
      {&kFileVersion, FileVersion},
      {&kRootOffset, RootOffset},
      {&kHeaderMagic, HeaderMagic},
      {&kHeaderLength, HeaderLength},
      {&kHeaderLengthNonstandard, HeaderLengthNonstandard},
      {&kProgramSize, ProgramSize},
      {&kSegmentBaseBeforeProgram, SegmentBaseBeforeProgram},
      {&kSegmentBaseAlign, SegmentBaseAlign},
      {&kSegmentBaseAlign128, SegmentBaseAlign128},
      {&kSegmentDataBounds, SegmentDataBounds},
      {&kTrailingBytes, TrailingBytes},
      {&kPaddingNonzero, PaddingNonzero},
      {&kSegmentWithoutHeader, SegmentWithoutHeader},
      {&kFlatbufferVerify, FlatbufferVerify},
      {&kNoPlans, NoPlans},
      {&kProgramVersion, ProgramVersion},
      {&kConstantTwoStores, ConstantTwoStores},
      {&kConstantDeprecatedBuffer, ConstantDeprecatedBuffer},
      {&kConstantPlaceholderOffset, ConstantPlaceholderOffset},
      {&kConstantPlaceholderBuffer, ConstantPlaceholderBuffer},
      {&kConstantSegmentIndex, ConstantSegmentIndex},
      {&kConstantOffsetBounds, ConstantOffsetBounds},
      {&kConstantOffsetOrder, ConstantOffsetOrder},
      {&kConstantOffsetAlign, ConstantOffsetAlign},
      {&kConstantTensorBounds, ConstantTensorBounds},
      {&kConstantTensorOverlap, ConstantTensorOverlap},
      {&kConstantBufferSize, ConstantBufferSize},
      {&kConstantBufferAlign, ConstantBufferAlign},
      {&kSegmentOverflow, SegmentOverflow},
      {&kSegmentAlign, SegmentAlign},
      {&kSegmentOrder, SegmentOrder},
      {&kSegmentOverlap, SegmentOverlap},
      // A segment that ends past segment_data_size but inside the file leaves
      // bytes after the declared data (PTE-10, PTE-24).
      {&kSegmentDataSize, SegmentDataSize, {&kTrailingBytes}},
      {&kSegmentBounds, SegmentBounds},
      {&kSegmentUnreferenced, SegmentUnreferenced},
      // Two mutable entries that share a segment are also two entries (PTE-25,
      // PTE-63).
      {&kMutableSegmentShared, MutableSegmentShared, {&kMutableMultiple}},
      {&kDelegateDataIndex, DelegateDataIndex},
      {&kDelegateDataNull, DelegateDataNull},
      {&kDelegateDataUnreferenced, DelegateDataUnreferenced},
      {&kDelegateDataAlign, DelegateDataAlign},
      // Without a segments vector no segment_index names a segment (PTE-27).
      {&kNamedDataNoSegments, NamedDataNoSegments, {&kNamedDataSegmentIndex}},
      {&kNamedDataKey, NamedDataKey},
      {&kNamedDataKeyDuplicate, NamedDataKeyDuplicate},
      {&kNamedDataSegmentIndex, NamedDataSegmentIndex},
      {&kMutableSegmentIndex, MutableSegmentIndex},
      {&kMutablePlaceholder, MutablePlaceholder},
      {&kMutableOffsetBounds, MutableOffsetBounds},
      {&kMutableNoHeader, MutableNoHeader},
      {&kMutableMultiple, MutableMultiple},
      {&kPlanName, PlanName},
      {&kPlanNameDuplicate, PlanNameDuplicate},
      {&kPlanFieldMissing, PlanFieldMissing},
      {&kPlanContainerMeta, PlanContainerMeta},
      {&kPlanNoChains, PlanNoChains},
      {&kPlanIoIndex, PlanIoIndex},
      {&kPlanIoType, PlanIoType},
      {&kPlanInputDuplicate, PlanInputDuplicate},
      {&kPlanBufferSize, PlanBufferSize},
      {&kPlanBufferReserved, PlanBufferReserved},
      {&kPlanBufferDevice, PlanBufferDevice},
      {&kOperatorName, OperatorName},
      {&kOperatorNameLength, OperatorNameLength},
      {&kOperatorDuplicate, OperatorDuplicate},
      {&kOperatorUnused, OperatorUnused},
      {&kDelegateId, DelegateId},
      {&kDelegateProcessed, DelegateProcessed},
      {&kDelegateLocation, DelegateLocation},
      {&kDelegateSegmentIndex, DelegateSegmentIndex},
      {&kDelegateCompileSpec, DelegateCompileSpec},
      {&kDelegateUnused, DelegateUnused},
      {&kDelegateXnnpackHeader, DelegateXnnpackHeader},
      {&kValueType, ValueType},
      {&kValueNull, ValueNull},
      {&kValueStringNull, ValueStringNull},
      {&kValueListItemsNull, ValueListItemsNull},
      {&kValueListIndex, ValueListIndex},
      {&kValueListElementType, ValueListElementType},
      {&kValueTensorListForwardRef, ValueTensorListForwardRef},
      {&kValueIntListForwardRef, ValueIntListForwardRef},
      {&kTensorScalarType, TensorScalarType},
      {&kTensorStorageOffset, TensorStorageOffset},
      {&kTensorSizesMissing, TensorSizesMissing},
      {&kTensorRank, TensorRank},
      {&kTensorSizeNegative, TensorSizeNegative},
      {&kTensorDimOrder, TensorDimOrder},
      {&kTensorNumelOverflow, TensorNumelOverflow},
      {&kTensorDynamism, TensorDynamism},
      {&kTensorDynamicUnbound, TensorDynamicUnbound},
      {&kTensorLayout, TensorLayout},
      {&kTensorConstantIndex, TensorConstantIndex},
      {&kTensorMutableIndex, TensorMutableIndex},
      {&kTensorMutableBounds, TensorMutableBounds},
      {&kTensorMemoryId, TensorMemoryId},
      {&kTensorMemoryBounds, TensorMemoryBounds},
      {&kTensorMemoryAlign, TensorMemoryAlign},
      {&kTensorExternalName, TensorExternalName},
      {&kTensorLocation, TensorLocation},
      {&kTensorMutableSegmentsIdx, TensorMutableSegmentsIdx},
      {&kTensorConstantWritten, TensorConstantWritten},
      {&kExternalKeyMissing, ExternalKeyMissing, {}, true},
      {&kExternalLayout, ExternalLayout, {}, true},
      {&kExternalUnchecked, ExternalUnchecked},
      {&kInstructionType, InstructionType},
      {&kKernelArgsMissing, KernelArgsMissing},
      {&kKernelOpIndex, KernelOpIndex},
      {&kKernelArgIndex, KernelArgIndex},
      {&kDelegateCallIndex, DelegateCallIndex},
      {&kJumpCondIndex, JumpCondIndex},
      {&kJumpCondType, JumpCondType},
      {&kJumpDestination, JumpDestination},
      {&kJumpConstantLoop, JumpConstantLoop},
      {&kMoveIndex, MoveIndex},
      {&kMoveType, MoveType},
      {&kFreeIndex, FreeIndex},
      {&kFreeNotTensor, FreeNotTensor},
      {&kFreeNotUnbound, FreeNotUnbound},
      {&kChainIoIndex, ChainIoIndex},
      {&kChainStacktrace, ChainStacktrace},
      {&kMemoryLiveOverlap, MemoryLiveOverlap},
      {&kDataflowReadBeforeWrite, DataflowReadBeforeWrite},
  };
  return kMutations;
}

// No error-severity diagnostic under --strict (warnings of the default
// profile would hide a second broken rule in the result).
bool ValidatesWithoutErrors(ByteView bytes) {
  const InputBuffer input = InputBuffer::Copy(bytes);
  DiagnosticSink sink(Profile{.strict = true}, "mutation-input");
  PteFormat().Validate(input, ValidateContext{}, sink);
  return sink.error_count() == 0 && !sink.failed();
}

bool IsPtdRule(const Rule& rule) {
  const std::vector<const Rule*> ptd_rules = PtdMutationRules();
  return std::any_of(ptd_rules.begin(), ptd_rules.end(),
                     [&](const Rule* r) { return r->id == rule.id; });
}

// The program's mutations, then the .ptd's: the .ptd rules come last in the
// rule table.
std::vector<Mutation> AllMutations() {
  std::vector<Mutation> all = Mutations();
  for (const Rule* rule : PtdMutationRules()) all.push_back({rule, nullptr});
  return all;
}

// A case's result is named like its first file: `name`, with the extension of
// the base (a .pte or a .ptd).
OrDeclined<Mutated> ApplyCase(const Mutation& m, const Base& base, uint64_t seed,
                              const std::string& name) {
  OrDeclined<ByteMutation> mutated = MutatePte(base.files[0].bytes, *m.rule, seed);
  if (auto* declined = std::get_if<Declined>(&mutated)) return std::move(*declined);
  ByteMutation& bytes = std::get<ByteMutation>(mutated);
  Mutated result{{{name, std::move(bytes.bytes)}}, {}, std::move(bytes.path)};
  if (m.needs_companion) {
    for (const NamedFile& companion : base.companions) result.companions.push_back(companion.name);
  }
  return result;
}

std::optional<Bytes> ReadBytes(const std::string& path, std::string* error) {
  std::optional<InputBuffer> input = ReadFileLimited(path, Limits{}.max_file_size, error);
  if (!input) return std::nullopt;
  return Bytes(input->bytes().begin(), input->bytes().end());
}

class PteProvider final : public Provider {
 public:
  std::string_view format() const override { return "pte"; }

  // Each example program, its companion .ptd (if any) first: the .ptd is a
  // base of its own, for the .ptd rules.
  std::vector<Base> Bases() const override {
    std::vector<Base> bases;
    for (const NamedBase& example : ExampleBases()) {
      std::vector<NamedFile> companions;
      if (example.data) {
        NamedFile ptd{"valid_" + example.name + ".ptd", SerializePtd(*example.data)};
        bases.push_back({"pte.valid." + example.name + ".ptd", example.name + ".ptd", {ptd}, {}});
        companions.push_back(std::move(ptd));
      }
      bases.push_back({"pte.valid." + example.name,
                       example.name + ".pte",
                       {{"valid_" + example.name + ".pte", Serialize(example.file)}},
                       std::move(companions)});
    }
    return bases;
  }

  const std::vector<MutationCase>& Cases() const override {
    static const std::vector<MutationCase> kCases = [] {
      std::vector<MutationCase> cases;
      for (const Mutation& m : AllMutations()) {
        cases.push_back({m.rule, m.also, m.needs_companion,
                         [m](const Base& base, uint64_t seed, const std::string& name) {
                           return ApplyCase(m, base, seed, name);
                         }});
      }
      return cases;
    }();
    return kCases;
  }

  OrDeclined<Base> ReadBase(const std::string& path,
                            const std::vector<std::string>& companions) const override {
    std::string error;
    Base base;
    std::optional<Bytes> bytes = ReadBytes(path, &error);
    if (!bytes) return Declined{error};
    base.files.push_back({std::filesystem::path(path).filename().string(), std::move(*bytes)});
    for (const std::string& companion : companions) {
      bytes = ReadBytes(companion, &error);
      if (!bytes) return Declined{error};
      base.companions.push_back({companion, std::move(*bytes)});
    }
    return base;
  }

  std::string_view companion_option() const override { return "--data FILE.ptd"; }
};

}  // namespace

OrDeclined<ByteMutation> MutatePte(ByteView valid, const Rule& rule, uint64_t seed) {
  const bool ptd_rule = IsPtdRule(rule);
  if (ptd_rule != IsPtdFile(valid)) {
    return Declined{Str(rule.id, ptd_rule ? " is a .ptd rule but the input is not a .ptd (FT01)"
                                          : " is a program rule but the input is a .ptd")};
  }
  // Mutations assume every other rule holds, so that the result breaks only
  // the intended one; they decline inputs that already break a rule.
  if (!ValidatesWithoutErrors(valid))
    return Declined{"the input does not validate: mutations start from a valid file"};
  if (ptd_rule) return MutatePtd(valid, rule, seed);
  const auto it = std::find_if(Mutations().begin(), Mutations().end(),
                               [&](const Mutation& m) { return m.rule->id == rule.id; });
  if (it == Mutations().end()) return Declined{Str("no mutation breaks ", rule.id)};
  std::string read_error;
  std::optional<File> file = ReadFile(valid, &read_error);
  if (!file) return Declined{"the input does not decode: " + read_error};
  Ctx c;
  c.file = std::move(*file);
  // Follow the writer (a header exactly when there is segment data) unless
  // the mutation says otherwise.
  c.file.extended_header = std::nullopt;
  c.seed = seed;
  if (!it->apply(c)) return Declined{Str("cannot break ", rule.id, " in this input: ", c.error)};
  Bytes bytes = Serialize(c.file);
  if (c.patch && !c.patch(bytes, c))
    return Declined{Str("cannot break ", rule.id, " in this input: its layout leaves no room")};
  return ByteMutation{std::move(bytes), c.path};
}

const Provider& PteConformance() {
  static const PteProvider kProvider;
  return kProvider;
}

}  // namespace accelcheck::pte
