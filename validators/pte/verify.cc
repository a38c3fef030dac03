// Flatbuffer verification (PTE-13, PTE-64), limit classification and the location
// of the first object that fails.
#include "validators/pte/verify.h"

#include <algorithm>
#include <limits>
#include <string>

#include "validators/core/core_rules.h"
#include "validators/core/text.h"
#include "validators/pte/rules.h"
#include "validators/pte/schema/flat_tensor_generated.h"
#include "validators/pte/schema/program_generated.h"

namespace accelcheck::pte {

namespace {

namespace fb = executorch_flatbuffer;
namespace ft = flat_tensor_flatbuffer;
using flatbuffers::Offset;
using flatbuffers::Table;
using flatbuffers::Vector;
using flatbuffers::Verifier;
using flatbuffers::voffset_t;

Verifier::Options OptionsFrom(const Limits& limits) {
  constexpr uint64_t kMax = std::numeric_limits<flatbuffers::uoffset_t>::max();
  Verifier::Options options;
  options.max_depth = static_cast<flatbuffers::uoffset_t>(std::min(limits.max_depth, kMax));
  options.max_tables = static_cast<flatbuffers::uoffset_t>(std::min(limits.max_tables, kMax));
  return options;
}

// Limits under which a buffer that failed only for the user's limits
// verifies, so that a limit is told from a malformed buffer, at a bounded
// cost: the schemas nest no table in itself, so no verifiable buffer is
// deeper than the default 64; and a buffer that shares no table visits each
// once, at most size / 4 of them. Shared tables beyond twice the user's
// limit are left unclassified, as hostile files make their number explode.
Verifier::Options Relaxed(Verifier::Options options, size_t buffer_size, bool depth, bool tables) {
  constexpr uint64_t kMax = std::numeric_limits<flatbuffers::uoffset_t>::max();
  const auto twice = [&](uint64_t limit, uint64_t floor) {
    return static_cast<flatbuffers::uoffset_t>(std::min(std::max(2 * limit, floor), kMax));
  };
  if (depth) options.max_depth = twice(options.max_depth, Limits{}.max_depth);
  if (tables) options.max_tables = twice(options.max_tables, buffer_size / 4);
  return options;
}

std::string Join(const std::string& path, std::string_view field) {
  return path.empty() ? std::string(field) : Str(path, ".", field);
}

// Narrows a failing buffer down to the deepest object whose own verification
// fails, re-running the generated Verify methods on sub-objects with a fresh
// Verifier each time. Every offset is verified before it is followed.
class Locator {
 public:
  Locator(ByteView buffer, Verifier::Options options) : buffer_(buffer), options_(options) {}

  const std::string& path() const { return path_; }
  uint64_t offset() const { return offset_; }

  void Fail(std::string path, const void* at) { Fail(std::move(path), OffsetOf(at)); }
  void Fail(std::string path, uint64_t offset) {
    path_ = std::move(path);
    offset_ = offset;
  }

  Verifier Fresh() const { return Verifier(buffer_.data(), buffer_.size(), options_); }

  template <typename T>
  bool Whole(const T* table) const {
    Verifier v = Fresh();
    return v.VerifyTable(table);
  }

  bool Start(const void* table) const {
    Verifier v = Fresh();
    return AsTable(table)->VerifyTableStart(v);
  }

  // The offset field `vt` of `table` is absent or points inside the buffer.
  bool OffsetField(const void* table, voffset_t vt) const {
    Verifier v = Fresh();
    return AsTable(table)->VerifyTableStart(v) && AsTable(table)->VerifyOffset(v, vt);
  }

  // A vector (of scalars, strings or tables) field: its offset and extent.
  template <typename Elem>
  const Vector<Elem>* VectorField(const void* table, voffset_t vt, const std::string& path,
                                  bool* ok) {
    *ok = false;
    if (!OffsetField(table, vt)) {
      Fail(path, FieldAt(table, vt));
      return nullptr;
    }
    const auto* vec = AsTable(table)->GetPointer<const Vector<Elem>*>(vt);
    Verifier v = Fresh();
    if (!v.VerifyVector(vec)) {
      Fail(path, vec);
      return nullptr;
    }
    *ok = true;
    return vec;
  }

  // A vector of tables: the vector, then each element; `descend` narrows a
  // failing element further (or just records it).
  template <typename T, typename Descend>
  bool TableVector(const void* table, voffset_t vt, const std::string& path, Descend descend) {
    bool ok = false;
    const auto* vec = VectorField<Offset<T>>(table, vt, path, &ok);
    if (!ok) return false;
    if (vec == nullptr) return true;
    for (uint32_t i = 0; i < vec->size(); ++i) {
      const T* element = vec->Get(i);
      if (Whole(element)) continue;
      descend(element, Str(path, "[", i, "]"));
      return false;
    }
    return true;
  }

  template <typename Elem>
  bool ScalarVector(const void* table, voffset_t vt, const std::string& path) {
    bool ok = false;
    VectorField<Elem>(table, vt, path, &ok);
    return ok;
  }

  // A sub-table field: the offset, then the table.
  template <typename T, typename Descend>
  bool SubTable(const void* table, voffset_t vt, const std::string& path, Descend descend) {
    if (!OffsetField(table, vt)) {
      Fail(path, FieldAt(table, vt));
      return false;
    }
    const T* sub = AsTable(table)->GetPointer<const T*>(vt);
    if (Whole(sub)) return true;
    descend(sub, path);
    return false;
  }

  // Records `table` itself when its start does not verify or none of its
  // parts is to blame (a misaligned scalar field, say).
  bool Leaf(const void* table, const std::string& path) {
    Fail(path, table);
    return false;
  }

 private:
  static const Table* AsTable(const void* p) { return reinterpret_cast<const Table*>(p); }
  uint64_t OffsetOf(const void* p) const {
    return static_cast<uint64_t>(static_cast<const uint8_t*>(p) - buffer_.data());
  }
  // The file offset of the field's slot (its vtable was verified), for the
  // location of an offset that points outside the buffer.
  uint64_t FieldAt(const void* table, voffset_t vt) const {
    return OffsetOf(table) + AsTable(table)->GetOptionalFieldOffset(vt);
  }

  ByteView buffer_;
  Verifier::Options options_;
  std::string path_;
  uint64_t offset_ = 0;
};

template <typename T>
auto LeafOf(Locator& loc) {
  return [&loc](const T* t, const std::string& path) { loc.Leaf(t, path); };
}

void LocateInstruction(Locator& loc, const fb::Instruction* instruction, const std::string& path) {
  if (!loc.Start(instruction) || !loc.OffsetField(instruction, fb::Instruction::VT_INSTR_ARGS)) {
    loc.Leaf(instruction, path);
    return;
  }
  loc.Leaf(instruction->instr_args() ? instruction->instr_args() : instruction,
           instruction->instr_args() ? Join(path, "instr_args") : path);
}

void LocateChain(Locator& loc, const fb::Chain* chain, const std::string& path) {
  if (!loc.Start(chain)) {
    loc.Leaf(chain, path);
    return;
  }
  using C = fb::Chain;
  if (!loc.ScalarVector<int32_t>(chain, C::VT_INPUTS, Join(path, "inputs")) ||
      !loc.ScalarVector<int32_t>(chain, C::VT_OUTPUTS, Join(path, "outputs")) ||
      !loc.TableVector<fb::Instruction>(
          chain, C::VT_INSTRUCTIONS, Join(path, "instructions"),
          [&](const fb::Instruction* i, const std::string& p) { LocateInstruction(loc, i, p); }) ||
      !loc.TableVector<fb::FrameList>(chain, C::VT_STACKTRACE, Join(path, "stacktrace"),
                                      LeafOf<fb::FrameList>(loc))) {
    return;
  }
  loc.Leaf(chain, path);
}

void LocateValue(Locator& loc, const fb::EValue* value, const std::string& path) {
  if (!loc.Start(value) || !loc.OffsetField(value, fb::EValue::VT_VAL) || value->val() == nullptr) {
    loc.Leaf(value, path);
    return;
  }
  loc.Leaf(value->val(), Join(path, "val"));
}

void LocatePlan(Locator& loc, const fb::ExecutionPlan* plan, const std::string& path) {
  if (!loc.Start(plan)) {
    loc.Leaf(plan, path);
    return;
  }
  using P = fb::ExecutionPlan;
  bool ok = false;
  loc.VectorField<char>(plan, P::VT_NAME, Join(path, "name"), &ok);
  if (!ok ||
      !loc.SubTable<fb::ContainerMetadata>(plan, P::VT_CONTAINER_META_TYPE,
                                           Join(path, "container_meta_type"),
                                           LeafOf<fb::ContainerMetadata>(loc)) ||
      !loc.TableVector<fb::EValue>(
          plan, P::VT_VALUES, Join(path, "values"),
          [&](const fb::EValue* v, const std::string& p) { LocateValue(loc, v, p); }) ||
      !loc.ScalarVector<int32_t>(plan, P::VT_INPUTS, Join(path, "inputs")) ||
      !loc.ScalarVector<int32_t>(plan, P::VT_OUTPUTS, Join(path, "outputs")) ||
      !loc.TableVector<fb::Chain>(
          plan, P::VT_CHAINS, Join(path, "chains"),
          [&](const fb::Chain* c, const std::string& p) { LocateChain(loc, c, p); }) ||
      !loc.TableVector<fb::Operator>(plan, P::VT_OPERATORS, Join(path, "operators"),
                                     LeafOf<fb::Operator>(loc)) ||
      !loc.TableVector<fb::BackendDelegate>(plan, P::VT_DELEGATES, Join(path, "delegates"),
                                            LeafOf<fb::BackendDelegate>(loc)) ||
      !loc.ScalarVector<int64_t>(plan, P::VT_NON_CONST_BUFFER_SIZES,
                                 Join(path, "non_const_buffer_sizes")) ||
      !loc.TableVector<fb::NonConstBufferDevice>(plan, P::VT_NON_CONST_BUFFER_DEVICE,
                                                 Join(path, "non_const_buffer_device"),
                                                 LeafOf<fb::NonConstBufferDevice>(loc))) {
    return;
  }
  loc.Leaf(plan, path);
}

void LocateProgram(Locator& loc, const fb::Program* program) {
  using P = fb::Program;
  if (!loc.Start(program)) {
    loc.Leaf(program, "");
    return;
  }
  if (!loc.TableVector<fb::ExecutionPlan>(
          program, P::VT_EXECUTION_PLAN, "execution_plan",
          [&](const fb::ExecutionPlan* p, const std::string& s) { LocatePlan(loc, p, s); }) ||
      !loc.TableVector<fb::Buffer>(program, P::VT_CONSTANT_BUFFER, "constant_buffer",
                                   LeafOf<fb::Buffer>(loc)) ||
      !loc.TableVector<fb::BackendDelegateInlineData>(program, P::VT_BACKEND_DELEGATE_DATA,
                                                      "backend_delegate_data",
                                                      LeafOf<fb::BackendDelegateInlineData>(loc)) ||
      !loc.TableVector<fb::DataSegment>(program, P::VT_SEGMENTS, "segments",
                                        LeafOf<fb::DataSegment>(loc)) ||
      !loc.SubTable<fb::SubsegmentOffsets>(program, P::VT_CONSTANT_SEGMENT, "constant_segment",
                                           LeafOf<fb::SubsegmentOffsets>(loc)) ||
      !loc.TableVector<fb::SubsegmentOffsets>(program, P::VT_MUTABLE_DATA_SEGMENTS,
                                              "mutable_data_segments",
                                              LeafOf<fb::SubsegmentOffsets>(loc)) ||
      !loc.TableVector<fb::NamedData>(program, P::VT_NAMED_DATA, "named_data",
                                      LeafOf<fb::NamedData>(loc))) {
    return;
  }
  loc.Leaf(program, "");
}

void LocateFlatTensor(Locator& loc, const ft::FlatTensor* root) {
  using F = ft::FlatTensor;
  if (!loc.Start(root)) {
    loc.Leaf(root, "");
    return;
  }
  if (!loc.TableVector<ft::DataSegment>(root, F::VT_SEGMENTS, "segments",
                                        LeafOf<ft::DataSegment>(loc)) ||
      !loc.TableVector<ft::NamedData>(root, F::VT_NAMED_DATA, "named_data",
                                      LeafOf<ft::NamedData>(loc))) {
    return;
  }
  loc.Leaf(root, "");
}

// Shared by both schemas: size check, verification with the limits, limit
// classification by re-running with them lifted, then the location.
template <typename VerifyFn, typename LocateFn>
bool VerifyBuffer(ByteView buffer, const Limits& limits, DiagnosticSink& sink, const Rule& rule,
                  std::string_view what, VerifyFn verify, LocateFn locate) {
  // flatbuffers 2.0.8 asserts on buffers of 2 GiB and more.
  if (buffer.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    sink.Report(rule, Location{0, buffer.size(), ""},
                Str(what, " size ", Hex(buffer.size()), " is not below the flatbuffers limit ",
                    Hex(FLATBUFFERS_MAX_BUFFER_SIZE)));
    return false;
  }
  const Verifier::Options options = OptionsFrom(limits);
  auto run = [&](const Verifier::Options& o) {
    Verifier v(buffer.data(), buffer.size(), o);
    return verify(v);
  };
  if (run(options)) return true;
  const Verifier::Options relaxed = Relaxed(options, buffer.size(), true, true);
  if (run(relaxed)) {
    const bool depth = run(Relaxed(options, buffer.size(), true, false));
    const LimitInfo* info = nullptr;
    for (const LimitInfo& l : AllLimits()) {
      if (l.rule == (depth ? &core_rules::kLimitDepth : &core_rules::kLimitTables)) info = &l;
    }
    const uint64_t value = depth ? limits.max_depth : limits.max_tables;
    sink.Report(depth ? core_rules::kLimitDepth : core_rules::kLimitTables, Location{0, {}, ""},
                Str(what, " verifies only with more than --", info ? info->flag : "", " ", value,
                    " ", info ? info->unit : ""));
    return false;
  }
  Locator loc(buffer, relaxed);
  locate(loc);
  sink.Report(rule, Location{loc.offset(), std::nullopt, loc.path()},
              Str(what, " fails flatbuffer verification at ",
                  loc.path().empty() ? std::string("the root table") : loc.path(), " (",
                  Hex(loc.offset()), "): an offset, vtable, vector or string lies outside [0, ",
                  Hex(buffer.size()), ") or is misaligned"));
  return false;
}

// Misaligned 8-byte vectors of the program tables (see ElementsAligned);
// those of list values are checked with the plan's facts.
class WideVectorCheck {
 public:
  WideVectorCheck(ByteView buffer, DiagnosticSink& sink) : buffer_(buffer), sink_(sink) {}

  template <typename T>
  void Check(const flatbuffers::Vector<T>* vector, const std::string& path) {
    if (ElementsAligned(vector)) return;
    const auto offset = static_cast<uint64_t>(vector->Data() - buffer_.data());
    sink_.Report(rules::kFlatbufferVerify, Location{offset, vector->size() * sizeof(T), path},
                 Str("the 8-byte elements of ", path, " start at ", Hex(offset),
                     ", which is not a multiple of 8"));
    ok_ = false;
  }
  bool ok() const { return ok_; }

 private:
  ByteView buffer_;
  DiagnosticSink& sink_;
  bool ok_ = true;
};

bool CheckWideVectors(ByteView buffer, const fb::Program& program, DiagnosticSink& sink) {
  WideVectorCheck check(buffer, sink);
  if (const auto* constants = program.constant_segment()) {
    check.Check(constants->offsets(), "constant_segment.offsets");
  }
  if (const auto* mutables = program.mutable_data_segments()) {
    for (uint32_t k = 0; k < mutables->size(); ++k) {
      check.Check(mutables->Get(k)->offsets(), Str("mutable_data_segments[", k, "].offsets"));
    }
  }
  const auto* plans = program.execution_plan();
  for (uint32_t p = 0; plans != nullptr && p < plans->size(); ++p) {
    check.Check(plans->Get(p)->non_const_buffer_sizes(),
                Str("execution_plan[", p, "].non_const_buffer_sizes"));
  }
  return check.ok();
}

}  // namespace

bool VerifyProgram(ByteView program, const Limits& limits, DiagnosticSink& sink) {
  return VerifyBuffer(
             program, limits, sink, rules::kFlatbufferVerify, "the program",
             [](Verifier& v) { return fb::VerifyProgramBuffer(v); },
             [&](Locator& loc) { LocateProgram(loc, fb::GetProgram(program.data())); }) &&
         CheckWideVectors(program, *fb::GetProgram(program.data()), sink);
}

bool VerifyFlatTensor(ByteView buffer, const Limits& limits, DiagnosticSink& sink) {
  return VerifyBuffer(
      buffer, limits, sink, rules::kPtdVerify, "the named-data flatbuffer",
      [](Verifier& v) { return ft::VerifyFlatTensorBuffer(v); },
      [&](Locator& loc) { LocateFlatTensor(loc, ft::GetFlatTensor(buffer.data())); });
}

}  // namespace accelcheck::pte
