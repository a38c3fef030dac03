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
using flatbuffers::Verifier;

using Locator = FlatbufferLocator;

void LocateInstruction(Locator& loc, const fb::Instruction* instruction, const std::string& path) {
  if (!loc.Start(instruction) || !loc.OffsetField(instruction, fb::Instruction::VT_INSTR_ARGS)) {
    loc.Leaf(instruction, path);
    return;
  }
  loc.Leaf(instruction->instr_args() ? instruction->instr_args() : instruction,
           instruction->instr_args() ? JoinPath(path, "instr_args") : path);
}

void LocateChain(Locator& loc, const fb::Chain* chain, const std::string& path) {
  if (!loc.Start(chain)) {
    loc.Leaf(chain, path);
    return;
  }
  using C = fb::Chain;
  if (!loc.ScalarVector<int32_t>(chain, C::VT_INPUTS, JoinPath(path, "inputs")) ||
      !loc.ScalarVector<int32_t>(chain, C::VT_OUTPUTS, JoinPath(path, "outputs")) ||
      !loc.TableVector<fb::Instruction>(
          chain, C::VT_INSTRUCTIONS, JoinPath(path, "instructions"),
          [&](const fb::Instruction* i, const std::string& p) { LocateInstruction(loc, i, p); }) ||
      !loc.TableVector<fb::FrameList>(chain, C::VT_STACKTRACE, JoinPath(path, "stacktrace"),
                                      loc.LeafOf<fb::FrameList>())) {
    return;
  }
  loc.Leaf(chain, path);
}

void LocateValue(Locator& loc, const fb::EValue* value, const std::string& path) {
  if (!loc.Start(value) || !loc.OffsetField(value, fb::EValue::VT_VAL) || value->val() == nullptr) {
    loc.Leaf(value, path);
    return;
  }
  loc.Leaf(value->val(), JoinPath(path, "val"));
}

void LocatePlan(Locator& loc, const fb::ExecutionPlan* plan, const std::string& path) {
  if (!loc.Start(plan)) {
    loc.Leaf(plan, path);
    return;
  }
  using P = fb::ExecutionPlan;
  bool ok = false;
  loc.VectorField<char>(plan, P::VT_NAME, JoinPath(path, "name"), &ok);
  if (!ok ||
      !loc.SubTable<fb::ContainerMetadata>(plan, P::VT_CONTAINER_META_TYPE,
                                           JoinPath(path, "container_meta_type"),
                                           loc.LeafOf<fb::ContainerMetadata>()) ||
      !loc.TableVector<fb::EValue>(
          plan, P::VT_VALUES, JoinPath(path, "values"),
          [&](const fb::EValue* v, const std::string& p) { LocateValue(loc, v, p); }) ||
      !loc.ScalarVector<int32_t>(plan, P::VT_INPUTS, JoinPath(path, "inputs")) ||
      !loc.ScalarVector<int32_t>(plan, P::VT_OUTPUTS, JoinPath(path, "outputs")) ||
      !loc.TableVector<fb::Chain>(
          plan, P::VT_CHAINS, JoinPath(path, "chains"),
          [&](const fb::Chain* c, const std::string& p) { LocateChain(loc, c, p); }) ||
      !loc.TableVector<fb::Operator>(plan, P::VT_OPERATORS, JoinPath(path, "operators"),
                                     loc.LeafOf<fb::Operator>()) ||
      !loc.TableVector<fb::BackendDelegate>(plan, P::VT_DELEGATES, JoinPath(path, "delegates"),
                                            loc.LeafOf<fb::BackendDelegate>()) ||
      !loc.ScalarVector<int64_t>(plan, P::VT_NON_CONST_BUFFER_SIZES,
                                 JoinPath(path, "non_const_buffer_sizes")) ||
      !loc.TableVector<fb::NonConstBufferDevice>(plan, P::VT_NON_CONST_BUFFER_DEVICE,
                                                 JoinPath(path, "non_const_buffer_device"),
                                                 loc.LeafOf<fb::NonConstBufferDevice>())) {
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
                                   loc.LeafOf<fb::Buffer>()) ||
      !loc.TableVector<fb::BackendDelegateInlineData>(
          program, P::VT_BACKEND_DELEGATE_DATA, "backend_delegate_data",
          loc.LeafOf<fb::BackendDelegateInlineData>()) ||
      !loc.TableVector<fb::DataSegment>(program, P::VT_SEGMENTS, "segments",
                                        loc.LeafOf<fb::DataSegment>()) ||
      !loc.SubTable<fb::SubsegmentOffsets>(program, P::VT_CONSTANT_SEGMENT, "constant_segment",
                                           loc.LeafOf<fb::SubsegmentOffsets>()) ||
      !loc.TableVector<fb::SubsegmentOffsets>(program, P::VT_MUTABLE_DATA_SEGMENTS,
                                              "mutable_data_segments",
                                              loc.LeafOf<fb::SubsegmentOffsets>()) ||
      !loc.TableVector<fb::NamedData>(program, P::VT_NAMED_DATA, "named_data",
                                      loc.LeafOf<fb::NamedData>())) {
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
                                        loc.LeafOf<ft::DataSegment>()) ||
      !loc.TableVector<ft::NamedData>(root, F::VT_NAMED_DATA, "named_data",
                                      loc.LeafOf<ft::NamedData>())) {
    return;
  }
  loc.Leaf(root, "");
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
  const FlatbufferRegion region{program, 0, ""};
  const FlatbufferVerification verification(region, limits, sink, rules::kFlatbufferVerify,
                                            "the program");
  return verification.Run(
             [](Verifier& v) { return fb::VerifyProgramBuffer(v); },
             [&](Locator& loc) { LocateProgram(loc, fb::GetProgram(program.data())); }) &&
         CheckWideVectors(program, *fb::GetProgram(program.data()), sink);
}

bool VerifyFlatTensor(ByteView buffer, const Limits& limits, DiagnosticSink& sink) {
  const FlatbufferRegion region{buffer, 0, ""};
  const FlatbufferVerification verification(region, limits, sink, rules::kPtdVerify,
                                            "the named-data flatbuffer");
  return verification.Run(
      [](Verifier& v) { return ft::VerifyFlatTensorBuffer(v); },
      [&](Locator& loc) { LocateFlatTensor(loc, ft::GetFlatTensor(buffer.data())); });
}

}  // namespace accelcheck::pte
