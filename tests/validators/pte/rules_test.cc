// One negative test per rule: a valid base built with the recipe API, one
// change, and the rule id and object path it must give. Also: the base
// reports no rule at all.
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "tests/support/describe.h"
#include "validators/core/text.h"
#include "validators/pte/pte_format.h"
#include "validators/pte/rules.h"
#include "validators/pte/schema/program_generated.h"

namespace accelcheck::pte {
namespace {

namespace fb = executorch_flatbuffer;
using model::File;

std::vector<uint8_t> Floats4() { return std::vector<uint8_t>(16, 0); }

// Constants, a mutable tensor, lists, both delegate places, named data, a
// forward jump and a move: most rules have an object here to break.
File Base() {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  const int x = p.AddPlannedTensor(model::kFloat, {2, 2});                 // 0
  const int cond = p.AddPlannedTensor(model::kBool, {1});                  // 1
  const int w = p.AddConstantTensor(model::kFloat, {2, 2}, Floats4());     // 2
  const int state = p.AddMutableTensor(model::kFloat, {2, 2}, Floats4());  // 3
  const int alpha = p.AddInt(1);                                           // 4
  const int y = p.AddPlannedTensor(model::kFloat, {2, 2});                 // 5
  const int list = p.AddTensorList({x, w});                                // 6
  const int optional = p.AddOptionalTensorList({x, -1});                   // 7
  const int dims = p.AddIntList({0, 1});                                   // 8, 9, 10
  const int y2 = p.AddPlannedTensor(model::kFloat, {2, 2});                // 11
  const int y3 = p.AddPlannedTensor(model::kFloat, {2, 2});                // 12
  const int z = p.AddUnplannedTensor(model::kFloat, {2, 2});               // 13
  p.AddInput(x);
  p.AddInput(cond);
  p.AddOutput(z);
  p.AddOutput(y3);
  p.KernelCall(p.AddOperator("aten::add", "out"), {x, state, alpha, y});
  p.KernelCall(p.AddOperator("conformance::mix", "out"), {list, optional, dims, y3});
  p.JumpFalse(cond, 4);
  p.Move(y, y2);
  p.DelegateCall(p.AddDelegate("ExampleBackend", std::vector<uint8_t>(48, 7),
                               DelegatePlace::kInline, {{"target", "npu"}}),
                 {y2, z});
  p.DelegateCall(
      p.AddDelegate("OtherBackend", std::vector<uint8_t>(20, 3), DelegatePlace::kSegment), {y2, z});
  r.AddNamedData("weights", std::vector<uint8_t>(32, 1));
  PlanRecipe& version = r.AddPlan("version");
  version.AddOutput(version.AddInt(3));
  return r.Build();
}

DiagnosticSink ValidateBytes(const std::vector<uint8_t>& bytes) {
  DiagnosticSink sink(Profile{}, "test.pte");
  PteFormat().Validate(InputBuffer::Copy(bytes), ValidateContext{}, sink);
  return sink;
}

using ::accelcheck::test::Describe;

model::ExecutionPlan& Plan(File& f, size_t p = 0) { return (*f.program.execution_plan)[p]; }
model::EValue& Value(File& f, size_t i) { return (*Plan(f).values)[i]; }
model::Tensor& TensorOf(File& f, size_t i) { return std::get<model::Tensor>(Value(f, i).val); }
model::Chain& Chain0(File& f) { return (*Plan(f).chains)[0]; }
model::Instruction& Instr(File& f, size_t j) { return (*Chain0(f).instructions)[j]; }
template <typename T>
T& Args(File& f, size_t j) {
  return std::get<T>(Instr(f, j).args);
}
model::SubsegmentOffsets& Constants(File& f) { return *f.program.constant_segment; }
model::SubsegmentOffsets& Mutable(File& f) { return (*f.program.mutable_data_segments)[0]; }
model::DataSegment& Segment(File& f, size_t i) { return (*f.program.segments)[i]; }
model::BackendDelegate& Delegate(File& f, size_t d) { return (*Plan(f).delegates)[d]; }

void PutLE(std::vector<uint8_t>& bytes, size_t at, uint64_t value, size_t width) {
  for (size_t k = 0; k < width; ++k) bytes[at + k] = static_cast<uint8_t>(value >> (8 * k));
}
uint64_t GetLE(const std::vector<uint8_t>& bytes, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t k = 0; k < width; ++k) value |= uint64_t{bytes[at + k]} << (8 * k);
  return value;
}

// Moves the [ubyte] vector of `field` in `table` 4 bytes further and makes
// it 4 bytes shorter, so that its data is no longer 16-byte aligned.
void MisalignVector(std::vector<uint8_t>& bytes, const void* table, flatbuffers::voffset_t field) {
  const uint8_t* slot = reinterpret_cast<const flatbuffers::Table*>(table)->GetAddressOf(field);
  const auto at = static_cast<size_t>(slot - bytes.data());
  const uint64_t uoffset = GetLE(bytes, at, 4);
  PutLE(bytes, at, uoffset + 4, 4);
  PutLE(bytes, at + uoffset + 4, GetLE(bytes, at + uoffset, 4) - 4, 4);
}

// Moves the deprecated inline store in place of the constant segment.
void UseConstantBuffer(File& f, size_t constant_bytes) {
  Constants(f).offsets = std::vector<uint64_t>{};
  f.program.constant_buffer = std::vector<model::Buffer>{
      model::Buffer{}, model::Buffer{std::vector<uint8_t>(constant_bytes, 0)}};
}

constexpr const char* kX = "execution_plan[0].values[0].val.";

struct Case {
  const Rule* rule;
  std::function<void(File&)> edit;                   // on the model
  std::function<void(std::vector<uint8_t>&)> bytes;  // then on the bytes
  std::string path;
};

// gtest prints a parameter in test listings: the rule id, not the object's bytes.
void PrintTo(const Case& c, std::ostream* out) { *out << c.rule->id; }

std::vector<Case> PteCases() {
  using V = std::vector<uint8_t>;
  const auto none = [](File&) {};
  return {
      // A. container
      {&rules::kFileTooSmall, none, [](V& b) { b.resize(40); }, ""},
      {&rules::kFileIdentifier, none, [](V& b) { b[4] = 'X'; }, ""},
      {&rules::kFileVersion, none, [](V& b) { b[7] = '3'; }, ""},
      {&rules::kRootOffset, none, [](V& b) { PutLE(b, 0, 4, 4); }, "root"},
      {&rules::kHeaderMagic, none, [](V& b) { b[11] = '1'; }, "extended_header.magic"},
      {&rules::kHeaderLength, none, [](V& b) { PutLE(b, 12, 16, 4); }, "extended_header.length"},
      {&rules::kHeaderLengthNonstandard, none, [](V& b) { PutLE(b, 12, 24, 4); },
       "extended_header.length"},
      {&rules::kProgramSize, none, [](V& b) { PutLE(b, 16, b.size() + 1, 8); },
       "extended_header.program_size"},
      {&rules::kSegmentBaseBeforeProgram, none, [](V& b) { PutLE(b, 24, 16, 8); },
       "extended_header.segment_base_offset"},
      {&rules::kSegmentBaseAlign, none, [](V& b) { PutLE(b, 24, GetLE(b, 24, 8) + 8, 8); },
       "extended_header.segment_base_offset"},
      {&rules::kSegmentBaseAlign128, none, [](V& b) { PutLE(b, 24, GetLE(b, 24, 8) + 16, 8); },
       "extended_header.segment_base_offset"},
      {&rules::kSegmentDataBounds, none, [](V& b) { PutLE(b, 32, GetLE(b, 32, 8) + 1, 8); },
       "extended_header.segment_data_size"},
      {&rules::kTrailingBytes, none, [](V& b) { b.resize(b.size() + 16); }, ""},
      {&rules::kPaddingNonzero, none, [](V& b) { b[GetLE(b, 16, 8)] = 1; }, ""},
      {&rules::kSegmentWithoutHeader, [](File& f) { f.extended_header = false; }, nullptr,
       "segments[0]"},
      {&rules::kFlatbufferVerify, none, [](V& b) { PutLE(b, GetLE(b, 0, 4), 0x7fffffff, 4); }, ""},
      // B. program tables
      {&rules::kNoPlans, [](File& f) { f.program.execution_plan->clear(); }, nullptr,
       "execution_plan"},
      {&rules::kProgramVersion, [](File& f) { f.program.version = 1; }, nullptr, "version"},
      {&rules::kConstantTwoStores,
       [](File& f) { f.program.constant_buffer = std::vector<model::Buffer>(1); }, nullptr,
       "constant_buffer"},
      {&rules::kConstantDeprecatedBuffer, [](File& f) { UseConstantBuffer(f, 16); }, nullptr,
       "constant_buffer"},
      {&rules::kConstantPlaceholderOffset, [](File& f) { (*Constants(f).offsets)[0] = 16; },
       nullptr, "constant_segment.offsets[0]"},
      {&rules::kConstantPlaceholderBuffer,
       [](File& f) {
         UseConstantBuffer(f, 16);
         (*f.program.constant_buffer)[0].storage = V(1, 0);
       },
       nullptr, "constant_buffer[0].storage"},
      {&rules::kConstantSegmentIndex, [](File& f) { Constants(f).segment_index = 99; }, nullptr,
       "constant_segment.segment_index"},
      {&rules::kConstantOffsetBounds, [](File& f) { (*Constants(f).offsets)[1] = 0x1000; }, nullptr,
       "constant_segment.offsets[1]"},
      {&rules::kConstantOffsetOrder,
       [](File& f) {
         Constants(f).offsets = std::vector<uint64_t>{0, 0, 16, 0};
         f.segment_bytes[0].resize(32);
         LayoutSegments(f);
       },
       nullptr, "constant_segment.offsets[3]"},
      {&rules::kConstantOffsetAlign,
       [](File& f) {
         (*Constants(f).offsets)[1] = 8;
         f.segment_bytes[0].resize(32);
         LayoutSegments(f);
       },
       nullptr, "constant_segment.offsets[1]"},
      {&rules::kConstantTensorBounds,
       [](File& f) {
         TensorOf(f, 2).sizes = std::vector<int32_t>{2, 4};
       },
       nullptr, "execution_plan[0].values[2].val.data_buffer_idx"},
      {&rules::kConstantTensorOverlap,
       [](File& f) {
         TensorOf(f, 2).sizes = std::vector<int32_t>{2, 4};
         f.segment_bytes[0].resize(48);
         LayoutSegments(f);
         Constants(f).offsets->push_back(16);
       },
       nullptr, "execution_plan[0].values[2].val.data_buffer_idx"},
      {&rules::kConstantBufferAlign, [](File& f) { UseConstantBuffer(f, 32); },
       [](V& b) {
         MisalignVector(b, fb::GetProgram(b.data())->constant_buffer()->Get(1),
                        fb::Buffer::VT_STORAGE);
       },
       "constant_buffer[1].storage"},
      {&rules::kConstantBufferSize, [](File& f) { UseConstantBuffer(f, 4); }, nullptr,
       "execution_plan[0].values[2].val.data_buffer_idx"},
      {&rules::kSegmentOverflow, [](File& f) { Segment(f, 3).offset = ~uint64_t{0} - 4; }, nullptr,
       "segments[3]"},
      {&rules::kSegmentAlign, [](File& f) { Segment(f, 3).offset += 8; }, nullptr, "segments[3]"},
      {&rules::kSegmentOrder, [](File& f) { Segment(f, 0).offset = 0x400; }, nullptr,
       "segments[1]"},
      {&rules::kSegmentOverlap, [](File& f) { Segment(f, 2).offset = Segment(f, 1).offset; },
       nullptr, "segments[2]"},
      {&rules::kSegmentDataSize, [](File& f) { Segment(f, 3).size += 16; }, nullptr, "segments[3]"},
      {&rules::kSegmentBounds, [](File& f) { Segment(f, 3).size += 1 << 20; }, nullptr,
       "segments[3]"},
      {&rules::kSegmentUnreferenced,
       [](File& f) {
         f.program.segments->push_back({Segment(f, 3).offset + 32, 0});
       },
       nullptr, "segments[4]"},
      {&rules::kMutableSegmentShared,
       [](File& f) { f.program.mutable_data_segments->push_back(Mutable(f)); }, nullptr,
       "mutable_data_segments[1].segment_index"},
      {&rules::kDelegateDataIndex, [](File& f) { Delegate(f, 0).processed->index = 5; }, nullptr,
       "execution_plan[0].delegates[0].processed.index"},
      {&rules::kDelegateDataNull,
       [](File& f) { (*f.program.backend_delegate_data)[0].data.reset(); }, nullptr,
       "backend_delegate_data[0]"},
      {&rules::kDelegateDataAlign, none,
       [](V& b) {
         MisalignVector(b, fb::GetProgram(b.data())->backend_delegate_data()->Get(0),
                        fb::BackendDelegateInlineData::VT_DATA);
       },
       "backend_delegate_data[0].data"},
      {&rules::kDelegateDataUnreferenced,
       [](File& f) { f.program.backend_delegate_data->push_back({V(16, 1)}); }, nullptr,
       "backend_delegate_data[1]"},
      {&rules::kNamedDataNoSegments, [](File& f) { f.program.segments.reset(); }, nullptr,
       "named_data"},
      {&rules::kNamedDataKey, [](File& f) { (*f.program.named_data)[0].key = ""; }, nullptr,
       "named_data[0].key"},
      {&rules::kNamedDataKeyDuplicate,
       [](File& f) { f.program.named_data->push_back((*f.program.named_data)[0]); }, nullptr,
       "named_data[1].key"},
      {&rules::kNamedDataSegmentIndex,
       [](File& f) { (*f.program.named_data)[0].segment_index = 99; }, nullptr,
       "named_data[0].segment_index"},
      {&rules::kMutableSegmentIndex, [](File& f) { Mutable(f).segment_index = 99; }, nullptr,
       "mutable_data_segments[0].segment_index"},
      {&rules::kMutablePlaceholder, [](File& f) { (*Mutable(f).offsets)[0] = 4; }, nullptr,
       "mutable_data_segments[0].offsets[0]"},
      {&rules::kMutableOffsetBounds, [](File& f) { (*Mutable(f).offsets)[1] = 1 << 20; }, nullptr,
       "mutable_data_segments[0].offsets[1]"},
      {&rules::kMutableNoHeader, [](File& f) { f.extended_header = false; }, nullptr,
       "mutable_data_segments"},
      {&rules::kMutableMultiple,
       [](File& f) { f.program.mutable_data_segments->push_back(Mutable(f)); }, nullptr,
       "mutable_data_segments"},
      // C. plans
      {&rules::kPlanName, [](File& f) { Plan(f).name = ""; }, nullptr, "execution_plan[0].name"},
      {&rules::kPlanNameDuplicate, [](File& f) { Plan(f, 1).name = "forward"; }, nullptr,
       "execution_plan[1].name"},
      {&rules::kPlanFieldMissing, [](File& f) { Plan(f).operators.reset(); }, nullptr,
       "execution_plan[0].operators"},
      {&rules::kPlanContainerMeta, [](File& f) { Plan(f).container_meta_type.reset(); }, nullptr,
       "execution_plan[0].container_meta_type"},
      {&rules::kPlanNoChains, [](File& f) { Plan(f).chains->clear(); }, nullptr,
       "execution_plan[0].chains"},
      {&rules::kPlanIoIndex, [](File& f) { (*Plan(f).inputs)[0] = 99; }, nullptr,
       "execution_plan[0].inputs[0]"},
      {&rules::kPlanIoType, [](File& f) { Plan(f).outputs->push_back(6); }, nullptr,
       "execution_plan[0].outputs[2]"},
      {&rules::kPlanInputDuplicate, [](File& f) { Plan(f).inputs->push_back(0); }, nullptr,
       "execution_plan[0].inputs[2]"},
      {&rules::kPlanBufferSize, [](File& f) { Plan(f).non_const_buffer_sizes->push_back(-1); },
       nullptr, "execution_plan[0].non_const_buffer_sizes[2]"},
      {&rules::kPlanBufferReserved, [](File& f) { (*Plan(f).non_const_buffer_sizes)[0] = 16; },
       nullptr, "execution_plan[0].non_const_buffer_sizes[0]"},
      {&rules::kPlanBufferDevice,
       [](File& f) {
         Plan(f).non_const_buffer_device = std::vector<model::NonConstBufferDevice>{{0, 0, 0}};
       },
       nullptr, "execution_plan[0].non_const_buffer_device[0]"},
      {&rules::kOperatorName, [](File& f) { (*Plan(f).operators)[0].name = ""; }, nullptr,
       "execution_plan[0].operators[0].name"},
      {&rules::kOperatorNameLength,
       [](File& f) { (*Plan(f).operators)[0].name = std::string(120, 'a'); }, nullptr,
       "execution_plan[0].operators[0]"},
      {&rules::kOperatorDuplicate,
       [](File& f) { (*Plan(f).operators)[1] = (*Plan(f).operators)[0]; }, nullptr,
       "execution_plan[0].operators[1]"},
      {&rules::kOperatorUnused,
       [](File& f) {
         Plan(f).operators->push_back({"aten::mul", "out"});
       },
       nullptr, "execution_plan[0].operators[2]"},
      {&rules::kDelegateId, [](File& f) { Delegate(f, 0).id = ""; }, nullptr,
       "execution_plan[0].delegates[0].id"},
      {&rules::kDelegateProcessed, [](File& f) { Delegate(f, 0).processed.reset(); }, nullptr,
       "execution_plan[0].delegates[0].processed"},
      {&rules::kDelegateLocation, [](File& f) { Delegate(f, 0).processed->location = 5; }, nullptr,
       "execution_plan[0].delegates[0].processed.location"},
      {&rules::kDelegateSegmentIndex, [](File& f) { Delegate(f, 1).processed->index = 99; },
       nullptr, "execution_plan[0].delegates[1].processed.index"},
      {&rules::kDelegateCompileSpec,
       [](File& f) { (*Delegate(f, 0).compile_specs)[0].key.reset(); }, nullptr,
       "execution_plan[0].delegates[0].compile_specs[0]"},
      {&rules::kDelegateUnused, [](File& f) { Plan(f).delegates->push_back(Delegate(f, 0)); },
       nullptr, "execution_plan[0].delegates[2]"},
      {&rules::kDelegateXnnpackHeader,
       [](File& f) {
         auto& data = *(*f.program.backend_delegate_data)[0].data;
         std::memcpy(data.data() + 4, "XH00", 4);
         data[8] = 30;
         data[9] = 0;
         data[10] = 32;
         data[14] = 0xe8;
         data[15] = 0x03;  // flatbuffer [32, 32 + 1000)
       },
       nullptr, "execution_plan[0].delegates[0].processed"},
      // D. values
      {&rules::kValueType, [](File& f) { Value(f, 4).type = 0; }, nullptr,
       "execution_plan[0].values[4].val_type"},
      {&rules::kValueNull, [](File& f) { Value(f, 4).val = std::monostate{}; }, nullptr,
       "execution_plan[0].values[4].val"},
      {&rules::kValueStringNull,
       [](File& f) { Value(f, 4) = model::EValue::Of(model::String{std::nullopt}); }, nullptr,
       "execution_plan[0].values[4].val.string_val"},
      {&rules::kValueListItemsNull,
       [](File& f) { std::get<model::TensorList>(Value(f, 6).val).items.reset(); }, nullptr,
       "execution_plan[0].values[6].val.items"},
      {&rules::kValueListIndex,
       [](File& f) { (*std::get<model::TensorList>(Value(f, 6).val).items)[0] = 99; }, nullptr,
       "execution_plan[0].values[6].val.items[0]"},
      {&rules::kValueListElementType,
       [](File& f) { (*std::get<model::TensorList>(Value(f, 6).val).items)[0] = 4; }, nullptr,
       "execution_plan[0].values[6].val.items[0]"},
      {&rules::kValueTensorListForwardRef,
       [](File& f) { (*std::get<model::TensorList>(Value(f, 6).val).items)[0] = 11; }, nullptr,
       "execution_plan[0].values[6].val.items[0]"},
      {&rules::kValueIntListForwardRef,
       [](File& f) {
         (*std::get<model::IntList>(Value(f, 10).val).items)[0] = 14;
         Plan(f).values->push_back(model::EValue::Of(model::Int{0}));
       },
       nullptr, "execution_plan[0].values[10].val.items[0]"},
      // E. tensors
      {&rules::kTensorScalarType, [](File& f) { TensorOf(f, 0).scalar_type = 9; }, nullptr,
       std::string(kX) + "scalar_type"},
      {&rules::kTensorStorageOffset, [](File& f) { TensorOf(f, 0).storage_offset = 1; }, nullptr,
       std::string(kX) + "storage_offset"},
      {&rules::kTensorSizesMissing, [](File& f) { TensorOf(f, 0).sizes.reset(); }, nullptr,
       std::string(kX) + "sizes"},
      {&rules::kTensorRank,
       [](File& f) {
         TensorOf(f, 0).sizes = std::vector<int32_t>(17, 1);
         std::vector<uint8_t> d(17);
         for (uint8_t k = 0; k < 17; ++k) d[k] = k;
         TensorOf(f, 0).dim_order = d;
       },
       nullptr, std::string(kX) + "sizes"},
      {&rules::kTensorSizeNegative, [](File& f) { (*TensorOf(f, 0).sizes)[1] = -2; }, nullptr,
       std::string(kX) + "sizes[1]"},
      {&rules::kTensorDimOrder,
       [](File& f) {
         TensorOf(f, 0).dim_order = std::vector<uint8_t>{0, 0};
       },
       nullptr, std::string(kX) + "dim_order[1]"},
      {&rules::kTensorNumelOverflow,
       [](File& f) {
         TensorOf(f, 0).sizes = std::vector<int32_t>{0x7fffffff, 0x7fffffff, 0x7fffffff};
         TensorOf(f, 0).dim_order = std::vector<uint8_t>{0, 1, 2};
       },
       nullptr, std::string(kX) + "sizes"},
      {&rules::kTensorDynamism, [](File& f) { TensorOf(f, 0).shape_dynamism = 5; }, nullptr,
       std::string(kX) + "shape_dynamism"},
      {&rules::kTensorDynamicUnbound, [](File& f) { TensorOf(f, 0).shape_dynamism = 2; }, nullptr,
       std::string(kX) + "shape_dynamism"},
      {&rules::kTensorLayout, [](File& f) { TensorOf(f, 0).layout = 1; }, nullptr,
       std::string(kX) + "layout"},
      {&rules::kTensorConstantIndex, [](File& f) { TensorOf(f, 2).data_buffer_idx = 9; }, nullptr,
       "execution_plan[0].values[2].val.data_buffer_idx"},
      {&rules::kTensorMutableIndex, [](File& f) { TensorOf(f, 3).data_buffer_idx = 9; }, nullptr,
       "execution_plan[0].values[3].val.data_buffer_idx"},
      {&rules::kTensorMutableBounds,
       [](File& f) {
         TensorOf(f, 3).sizes = std::vector<int32_t>{4, 4};
       },
       nullptr, "execution_plan[0].values[3].val.data_buffer_idx"},
      {&rules::kTensorMemoryId, [](File& f) { TensorOf(f, 0).allocation->memory_id = 7; }, nullptr,
       std::string(kX) + "allocation_info.memory_id"},
      {&rules::kTensorMemoryBounds,
       [](File& f) { TensorOf(f, 0).allocation->offset_low = 1 << 20; }, nullptr,
       std::string(kX) + "allocation_info"},
      {&rules::kTensorMemoryAlign, [](File& f) { TensorOf(f, 0).allocation->offset_low += 4; },
       nullptr, std::string(kX) + "allocation_info"},
      {&rules::kTensorExternalName,
       [](File& f) {
         TensorOf(f, 13).extra = model::ExtraTensorInfo{0, std::nullopt, 1};
       },
       nullptr, "execution_plan[0].values[13].val.extra_tensor_info.fully_qualified_name"},
      {&rules::kTensorLocation,
       [](File& f) {
         TensorOf(f, 13).extra = model::ExtraTensorInfo{0, std::nullopt, 5};
       },
       nullptr, "execution_plan[0].values[13].val.extra_tensor_info.location"},
      {&rules::kTensorMutableSegmentsIdx,
       [](File& f) {
         TensorOf(f, 13).extra = model::ExtraTensorInfo{1, std::nullopt, 0};
       },
       nullptr, "execution_plan[0].values[13].val.extra_tensor_info.mutable_data_segments_idx"},
      {&rules::kTensorConstantWritten,
       [](File& f) {
         auto& a = *Args<model::KernelCall>(f, 0).args;
         a[3] = 2;
         a[4] = 2;
       },
       nullptr, "execution_plan[0].chains[0].instructions[0].instr_args.args[4]"},
      // F. instructions
      {&rules::kInstructionType, [](File& f) { Instr(f, 0).type = 0; }, nullptr,
       "execution_plan[0].chains[0].instructions[0].instr_args"},
      {&rules::kKernelArgsMissing, [](File& f) { Args<model::KernelCall>(f, 0).args.reset(); },
       nullptr, "execution_plan[0].chains[0].instructions[0].instr_args.args"},
      {&rules::kKernelOpIndex, [](File& f) { Args<model::KernelCall>(f, 0).op_index = 9; }, nullptr,
       "execution_plan[0].chains[0].instructions[0].instr_args.op_index"},
      {&rules::kKernelArgIndex, [](File& f) { (*Args<model::KernelCall>(f, 0).args)[0] = 99; },
       nullptr, "execution_plan[0].chains[0].instructions[0].instr_args.args[0]"},
      {&rules::kDelegateCallIndex,
       [](File& f) { Args<model::DelegateCall>(f, 4).delegate_index = 9; }, nullptr,
       "execution_plan[0].chains[0].instructions[4].instr_args.delegate_index"},
      {&rules::kJumpCondIndex,
       [](File& f) { Args<model::JumpFalseCall>(f, 2).cond_value_index = 99; }, nullptr,
       "execution_plan[0].chains[0].instructions[2].instr_args.cond_value_index"},
      {&rules::kJumpCondType,
       [](File& f) { Args<model::JumpFalseCall>(f, 2).cond_value_index = 4; }, nullptr,
       "execution_plan[0].chains[0].instructions[2].instr_args.cond_value_index"},
      {&rules::kJumpDestination,
       [](File& f) { Args<model::JumpFalseCall>(f, 2).destination_instruction = 99; }, nullptr,
       "execution_plan[0].chains[0].instructions[2].instr_args.destination_instruction"},
      {&rules::kJumpConstantLoop,
       [](File& f) {
         Plan(f).values->push_back(model::EValue::Of(model::Bool{false}));
         Args<model::JumpFalseCall>(f, 2) = {14, 0};
       },
       nullptr, "execution_plan[0].chains[0].instructions[2]"},
      {&rules::kMoveIndex, [](File& f) { Args<model::MoveCall>(f, 3).move_to = 99; }, nullptr,
       "execution_plan[0].chains[0].instructions[3].instr_args.move_to"},
      {&rules::kMoveType, [](File& f) { Args<model::MoveCall>(f, 3).move_to = 4; }, nullptr,
       "execution_plan[0].chains[0].instructions[3].instr_args"},
      {&rules::kFreeIndex,
       [](File& f) {
         Chain0(f).instructions->push_back(model::Instruction::Of(model::FreeCall{99}));
       },
       nullptr, "execution_plan[0].chains[0].instructions[6].instr_args.value_index"},
      {&rules::kFreeNotTensor,
       [](File& f) {
         Chain0(f).instructions->push_back(model::Instruction::Of(model::FreeCall{4}));
       },
       nullptr, "execution_plan[0].chains[0].instructions[6].instr_args.value_index"},
      {&rules::kFreeNotUnbound,
       [](File& f) {
         Chain0(f).instructions->push_back(model::Instruction::Of(model::FreeCall{13}));
       },
       nullptr, "execution_plan[0].chains[0].instructions[6].instr_args.value_index"},
      {&rules::kChainIoIndex, [](File& f) { Chain0(f).inputs = std::vector<int32_t>{99}; }, nullptr,
       "execution_plan[0].chains[0].inputs[0]"},
      {&rules::kChainStacktrace,
       [](File& f) { Chain0(f).stacktrace = std::vector<model::FrameList>(1); }, nullptr,
       "execution_plan[0].chains[0].stacktrace"},
      // Whole program
      {&rules::kMemoryLiveOverlap,
       [](File& f) {
         TensorOf(f, 12).allocation->offset_low = TensorOf(f, 0).allocation->offset_low;
       },
       nullptr, "execution_plan[0].values[12].val.allocation_info"},
      {&rules::kDataflowReadBeforeWrite,
       [](File& f) { (*Args<model::KernelCall>(f, 0).args)[1] = 12; }, nullptr,
       "execution_plan[0].chains[0].instructions[0].instr_args.args[1]"},
  };
}

class PteRuleCase : public testing::TestWithParam<Case> {};

TEST_P(PteRuleCase, OneChangeGivesTheRuleAtItsObject) {
  const Case& c = GetParam();
  File file = Base();
  c.edit(file);
  std::vector<uint8_t> bytes = Serialize(file);
  if (c.bytes) c.bytes(bytes);
  const DiagnosticSink sink = ValidateBytes(bytes);
  bool found = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule != c.rule || d.location.path != c.path) continue;
    found = true;
    EXPECT_TRUE(d.location.offset.has_value()) << c.rule->id;
  }
  EXPECT_TRUE(found) << c.rule->id << " at \"" << c.path << "\"\n" << Describe(sink);
}

std::string CaseName(const testing::TestParamInfo<Case>& info) {
  std::string name(info.param.rule->id);
  for (char& ch : name) {
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Pte, PteRuleCase, testing::ValuesIn(PteCases()), CaseName);

TEST(PteRules, BaseIsClean) {
  const DiagnosticSink sink = ValidateBytes(Serialize(Base()));
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
}

bool Has(const DiagnosticSink& sink, const Rule& rule) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == &rule) return true;
  }
  return false;
}

const Diagnostic* Find(const DiagnosticSink& sink, const Rule& rule) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == &rule) return &d;
  }
  return nullptr;
}

// Live ranges are told in words: the plan's entry and exit are no instruction.
TEST(PteRules, LiveOverlapSaysWhereEachTensorIsLive) {
  File file = Base();
  TensorOf(file, 12).allocation->offset_low = TensorOf(file, 0).allocation->offset_low;
  const DiagnosticSink sink = ValidateBytes(Serialize(file));
  const Diagnostic* d = Find(sink, rules::kMemoryLiveOverlap);
  ASSERT_NE(d, nullptr) << Describe(sink);
  EXPECT_NE(d->message.find("live from the plan's entry to instruction "), std::string::npos)
      << d->message;
  EXPECT_EQ(d->message.find("-1"), std::string::npos) << d->message;
}

// PTE-66: x = a + a; v = et_view(x, [4]); y = v + v; z = x + x. The view v
// and its base x are live together; the memory planner gives v x's bytes.
struct ViewPlan {
  File file;
  int x = 0, v = 0, y = 0, z = 0;
};

ViewPlan ViewOfALiveBase() {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  ViewPlan out;
  const int a = p.AddPlannedTensor(model::kFloat, {2, 2});
  const int alpha = p.AddInt(1);
  out.x = p.AddPlannedTensor(model::kFloat, {2, 2});
  const int size = p.AddIntList({4});
  out.v = p.AddPlannedTensor(model::kFloat, {4});
  out.y = p.AddPlannedTensor(model::kFloat, {4});
  out.z = p.AddPlannedTensor(model::kFloat, {2, 2});
  p.AddInput(a);
  p.AddOutput(out.y);
  p.AddOutput(out.z);
  const int add = p.AddOperator("aten::add", "out");
  p.KernelCall(add, {a, a, alpha, out.x});
  p.PrimCall(p.AddOperator("executorch_prim::et_view", "default"), {out.x, size, out.v});
  p.KernelCall(add, {out.v, out.v, alpha, out.y});
  p.KernelCall(add, {out.x, out.x, alpha, out.z});
  out.file = r.Build();
  TensorOf(out.file, out.v).allocation = TensorOf(out.file, out.x).allocation;
  return out;
}

std::vector<const Diagnostic*> Overlaps(const DiagnosticSink& sink) {
  std::vector<const Diagnostic*> found;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == &rules::kMemoryLiveOverlap) found.push_back(&d);
  }
  return found;
}

TEST(PteMemoryViews, AViewAndItsLiveBaseShareOneStorage) {
  ViewPlan plan = ViewOfALiveBase();
  const DiagnosticSink sink = ValidateBytes(Serialize(plan.file));
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
}

// The storage of x and its view lives from x's write to z's read: y on
// those bytes overlaps it, and the message names both values of the storage.
TEST(PteMemoryViews, ATensorOnAViewsBytesOverlapsItsStorage) {
  ViewPlan plan = ViewOfALiveBase();
  TensorOf(plan.file, plan.y).allocation = TensorOf(plan.file, plan.x).allocation;
  const DiagnosticSink sink = ValidateBytes(Serialize(plan.file));
  const auto overlaps = Overlaps(sink);
  ASSERT_EQ(overlaps.size(), 1u) << Describe(sink);
  EXPECT_EQ(overlaps[0]->location.path,
            Str("execution_plan[0].values[", plan.y, "].val.allocation_info"));
  EXPECT_NE(overlaps[0]->message.find(
                Str("overlaps value ", plan.x, " (one storage with value ", plan.v, ")")),
            std::string::npos)
      << overlaps[0]->message;
}

// Two views of two bases on the same bytes are two storages.
TEST(PteMemoryViews, AViewOfAnotherBaseOnTheSameBytesOverlaps) {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  const int a = p.AddPlannedTensor(model::kFloat, {4});
  const int alpha = p.AddInt(1);
  const int x1 = p.AddPlannedTensor(model::kFloat, {4});
  const int x2 = p.AddPlannedTensor(model::kFloat, {4});
  const int size = p.AddIntList({2, 2});
  const int v1 = p.AddPlannedTensor(model::kFloat, {2, 2});
  const int v2 = p.AddPlannedTensor(model::kFloat, {2, 2});
  const int z = p.AddPlannedTensor(model::kFloat, {2, 2});
  p.AddInput(a);
  p.AddOutput(z);
  const int add = p.AddOperator("aten::add", "out");
  const int view = p.AddOperator("executorch_prim::et_view", "default");
  p.KernelCall(add, {a, a, alpha, x1});
  p.KernelCall(add, {a, a, alpha, x2});
  p.PrimCall(view, {x1, size, v1});
  p.PrimCall(view, {x2, size, v2});
  p.KernelCall(add, {v1, v2, alpha, z});
  File file = r.Build();
  TensorOf(file, v1).allocation = TensorOf(file, x1).allocation;
  TensorOf(file, x2).allocation = TensorOf(file, x1).allocation;
  TensorOf(file, v2).allocation = TensorOf(file, x1).allocation;
  const DiagnosticSink sink = ValidateBytes(Serialize(file));
  const auto overlaps = Overlaps(sink);
  ASSERT_EQ(overlaps.size(), 1u) << Describe(sink);
  EXPECT_NE(overlaps[0]->message.find(Str("one storage with value ", v1)), std::string::npos)
      << overlaps[0]->message;
  EXPECT_NE(overlaps[0]->message.find(Str("one storage with value ", v2)), std::string::npos)
      << overlaps[0]->message;
}

// A view has exactly its base's bytes; anything else is an ordinary overlap.
TEST(PteMemoryViews, AViewWhoseBytesAreNotItsBasesOverlaps) {
  for (const uint32_t shift : {0u, 16u}) {
    ProgramRecipe r;
    PlanRecipe& p = r.AddPlan("forward");
    const int a = p.AddPlannedTensor(model::kFloat, {8});
    const int alpha = p.AddInt(1);
    const int x = p.AddPlannedTensor(model::kFloat, {8});
    const int size = p.AddIntList({4});
    const int v = p.AddPlannedTensor(model::kFloat, {4});  // half of x's bytes
    const int z = p.AddPlannedTensor(model::kFloat, {8});
    const int y = p.AddPlannedTensor(model::kFloat, {4});
    p.AddInput(a);
    p.AddOutput(y);
    p.AddOutput(z);
    const int add = p.AddOperator("aten::add", "out");
    p.KernelCall(add, {a, a, alpha, x});
    p.PrimCall(p.AddOperator("executorch_prim::et_view", "default"), {x, size, v});
    p.KernelCall(add, {v, v, alpha, y});
    p.KernelCall(add, {x, x, alpha, z});
    File file = r.Build();
    TensorOf(file, v).allocation = TensorOf(file, x).allocation;
    TensorOf(file, v).allocation->offset_low += shift;
    const DiagnosticSink sink = ValidateBytes(Serialize(file));
    EXPECT_EQ(Overlaps(sink).size(), 1u) << "view at x + " << shift << "\n" << Describe(sink);
  }
}

// A copying op (view_copy) writes its own bytes: on its live input's, it
// overlaps, whatever its name says.
TEST(PteMemoryViews, ACopyOnItsLiveInputsBytesOverlaps) {
  ViewPlan plan = ViewOfALiveBase();
  model::Operator& op = (*Plan(plan.file).operators)[1];
  op.name = "aten::view_copy";
  op.overload = "out";
  const DiagnosticSink sink = ValidateBytes(Serialize(plan.file));
  EXPECT_EQ(Overlaps(sink).size(), 1u) << Describe(sink);
}

// x = a + a; y = x * x with y in place of x, which nothing reads after: the
// planner's in-place result, placed on its first tensor argument's bytes.
struct InPlacePlan {
  File file;
  int x = 0, y = 0, z = 0;
};

InPlacePlan InPlaceResult(bool read_input_after) {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  InPlacePlan out;
  const int a = p.AddPlannedTensor(model::kFloat, {4});
  const int alpha = p.AddInt(1);
  out.x = p.AddPlannedTensor(model::kFloat, {4});
  out.y = p.AddPlannedTensor(model::kFloat, {4});
  out.z = p.AddPlannedTensor(model::kFloat, {4});
  p.AddInput(a);
  p.AddOutput(out.z);
  const int add = p.AddOperator("aten::add", "out");
  p.KernelCall(add, {a, a, alpha, out.x});
  p.KernelCall(p.AddOperator("aten::mul", "out"), {out.x, out.x, out.y});
  p.KernelCall(add, {out.y, read_input_after ? out.x : out.y, alpha, out.z});
  out.file = r.Build();
  TensorOf(out.file, out.y).allocation = TensorOf(out.file, out.x).allocation;
  return out;
}

TEST(PteMemoryViews, AnInPlaceResultSharesItsDeadInputsStorage) {
  InPlacePlan plan = InPlaceResult(/*read_input_after=*/false);
  const DiagnosticSink sink = ValidateBytes(Serialize(plan.file));
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
}

// The emitter's other in-place form: the result is the input's own value.
TEST(PteMemoryViews, AnInPlaceOpThatWritesItsInputIsClean) {
  InPlacePlan plan = InPlaceResult(/*read_input_after=*/false);
  (*Args<model::KernelCall>(plan.file, 1).args) = {plan.x, plan.x, plan.x, plan.x};
  (*Args<model::KernelCall>(plan.file, 2).args)[0] = plan.x;
  (*Args<model::KernelCall>(plan.file, 2).args)[1] = plan.x;
  TensorOf(plan.file, plan.y).allocation->offset_low += 16;  // y is unused now
  const DiagnosticSink sink = ValidateBytes(Serialize(plan.file));
  EXPECT_FALSE(Has(sink, rules::kMemoryLiveOverlap)) << Describe(sink);
}

// The input is still read after the result overwrote it: not in place.
TEST(PteMemoryViews, AResultOnAnInputReadLaterOverlaps) {
  InPlacePlan plan = InPlaceResult(/*read_input_after=*/true);
  const DiagnosticSink sink = ValidateBytes(Serialize(plan.file));
  EXPECT_EQ(Overlaps(sink).size(), 1u) << Describe(sink);
}

// The planner puts an in-place result at its input's offset, nowhere else
// in its bytes.
TEST(PteMemoryViews, AResultInsideItsInputButNotAtItsStartOverlaps) {
  InPlacePlan plan = InPlaceResult(/*read_input_after=*/false);
  TensorOf(plan.file, plan.x).sizes = std::vector<int32_t>{8};
  TensorOf(plan.file, plan.y).allocation->offset_low += 16;
  const DiagnosticSink sink = ValidateBytes(Serialize(plan.file));
  EXPECT_EQ(Overlaps(sink).size(), 1u) << Describe(sink);
}

// PTE-13: a cut program names the reference that runs out and says so. A
// program without segments has no extended header to tell its size, so the
// Verifier is the first to see the cut.
TEST(PteRules, VerifyFailureOfACutProgramSaysItLooksTruncated) {
  std::vector<uint8_t> bytes = Serialize(BuildRecipe(nlohmann::json::parse(R"({"plans": [{
      "values": [{"name": "x", "tensor": {"dtype": "float", "sizes": [4]}},
                 {"name": "alpha", "int": 1},
                 {"name": "z", "tensor": {"dtype": "float", "sizes": [4]}}],
      "inputs": ["x"], "outputs": ["z"],
      "instructions": [{"kernel": "aten::add.out", "args": ["x", "x", "alpha", "z"]}]}]})")));
  bytes.resize(bytes.size() / 2);
  const DiagnosticSink sink = ValidateBytes(bytes);
  const Diagnostic* d = Find(sink, rules::kFlatbufferVerify);
  ASSERT_NE(d, nullptr) << Describe(sink);
  EXPECT_NE(d->message.find("past the end of the program"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("the file looks truncated"), std::string::npos) << d->message;
}

// PTE-6: with an extended header the cut shows first in program_size.
TEST(PteRules, ProgramSizePastTheFileSaysItLooksTruncated) {
  std::vector<uint8_t> bytes = Serialize(Base());
  bytes.resize(bytes.size() / 2);
  const DiagnosticSink sink = ValidateBytes(bytes);
  const Diagnostic* d = Find(sink, rules::kProgramSize);
  ASSERT_NE(d, nullptr) << Describe(sink);
  EXPECT_NE(d->message.find("the file looks truncated"), std::string::npos) << d->message;
}

// PTE-13: damage inside the buffer is no truncation.
TEST(PteRules, VerifyFailureInsideTheProgramIsNotCalledTruncation) {
  std::vector<uint8_t> bytes = Serialize(Base());
  const auto* plan = fb::GetProgram(bytes.data())->execution_plan()->Get(0);
  const uint8_t* slot =
      reinterpret_cast<const flatbuffers::Table*>(plan)->GetAddressOf(fb::ExecutionPlan::VT_NAME);
  PutLE(bytes, static_cast<size_t>(slot - bytes.data()), 0, 4);  // an offset of 0 is never valid
  const DiagnosticSink sink = ValidateBytes(bytes);
  const Diagnostic* d = Find(sink, rules::kFlatbufferVerify);
  ASSERT_NE(d, nullptr) << Describe(sink);
  EXPECT_EQ(d->location.path, "execution_plan[0].name");
  EXPECT_EQ(d->message.find("truncated"), std::string::npos) << d->message;
}

// Moves a vector of 8-byte elements 4 bytes on, dropping its last element:
// it stays inside the buffer and 4-aligned, which is all the flatbuffers
// 2.0.8 Verifier asks, but its elements are no longer 8-aligned.
void MisalignWideVector(std::vector<uint8_t>& bytes, const void* table,
                        flatbuffers::voffset_t field) {
  const uint8_t* slot = reinterpret_cast<const flatbuffers::Table*>(table)->GetAddressOf(field);
  const auto at = static_cast<size_t>(slot - bytes.data());
  const uint64_t uoffset = GetLE(bytes, at, 4);
  PutLE(bytes, at, uoffset + 4, 4);
  PutLE(bytes, at + uoffset + 4, GetLE(bytes, at + uoffset, 4) - 1, 4);
}

// PTE-13: the Verifier accepts these; reading them would be undefined behaviour.
TEST(PteRules, MisalignedBufferSizesAreMalformed) {
  std::vector<uint8_t> bytes = Serialize(Base());
  MisalignWideVector(bytes, fb::GetProgram(bytes.data())->execution_plan()->Get(0),
                     fb::ExecutionPlan::VT_NON_CONST_BUFFER_SIZES);
  const DiagnosticSink sink = ValidateBytes(bytes);
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
  EXPECT_EQ(sink.diagnostics()[0].rule, &rules::kFlatbufferVerify);
  EXPECT_EQ(sink.diagnostics()[0].location.path, "execution_plan[0].non_const_buffer_sizes");
}

TEST(PteRules, MisalignedIntListItemsAreMalformed) {
  std::vector<uint8_t> bytes = Serialize(Base());
  const auto* value = fb::GetProgram(bytes.data())->execution_plan()->Get(0)->values()->Get(10);
  ASSERT_EQ(value->val_type(), fb::KernelTypes::IntList);
  MisalignWideVector(bytes, value->val_as_IntList(), fb::IntList::VT_ITEMS);
  const DiagnosticSink sink = ValidateBytes(bytes);
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
  EXPECT_EQ(sink.diagnostics()[0].rule, &rules::kFlatbufferVerify);
  EXPECT_EQ(sink.diagnostics()[0].location.path, "execution_plan[0].values[10].val.items");
}

// Two named-data segments listed in the opposite order of their offsets:
// the bytes before the first listed segment are the second one's data.
File SwappedSegments() {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  p.AddOutput(p.AddInt(1));
  r.AddNamedData("a", std::vector<uint8_t>(32, 1));
  r.AddNamedData("b", std::vector<uint8_t>(32, 2));
  File f = r.Build();
  auto& segments = *f.program.segments;
  auto& named = *f.program.named_data;
  std::swap(segments[named[0].segment_index], segments[named[1].segment_index]);
  std::swap(f.segment_bytes[named[0].segment_index], f.segment_bytes[named[1].segment_index]);
  std::swap(named[0].segment_index, named[1].segment_index);
  return f;
}

// PTE-11: padding is the bytes no segment covers, whatever the segment order.
TEST(PteRules, SegmentDataOutOfOrderIsNotPadding) {
  const DiagnosticSink sink = ValidateBytes(Serialize(SwappedSegments()));
  EXPECT_TRUE(Has(sink, rules::kSegmentOrder)) << Describe(sink);
  EXPECT_FALSE(Has(sink, rules::kPaddingNonzero)) << Describe(sink);
}

TEST(PteRules, PaddingBetweenSegmentsOutOfOrder) {
  const File f = SwappedSegments();
  std::vector<uint8_t> bytes = Serialize(f);
  // The gap after the lower segment, before the higher one.
  const auto& a = (*f.program.segments)[(*f.program.named_data)[0].segment_index];
  const auto& b = (*f.program.segments)[(*f.program.named_data)[1].segment_index];
  const uint64_t lower_end = std::min(a.offset + a.size, b.offset + b.size);
  ASSERT_LT(lower_end, std::max(a.offset, b.offset));
  bytes[GetLE(bytes, 24, 8) + lower_end] = 9;
  const DiagnosticSink sink = ValidateBytes(bytes);
  EXPECT_TRUE(Has(sink, rules::kPaddingNonzero)) << Describe(sink);
}

}  // namespace
}  // namespace accelcheck::pte
