// An in-memory .pte that can express every file, valid or not: optional
// fields distinguish "absent" from "empty", enum fields hold raw bytes, and a
// union's type tag is stored apart from its payload. The builder, the mutators,
// the conformance cases, the property tests and the fuzz seeds all start here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace accelcheck::pte::model {

template <typename T>
using Opt = std::optional<T>;
template <typename T>
using Vec = std::vector<T>;

// ScalarType values used by the recipes (docs/formats/pte.md §2.1).
enum : int8_t {
  kByte = 0,
  kChar = 1,
  kShort = 2,
  kInt = 3,
  kLong = 4,
  kHalf = 5,
  kFloat = 6,
  kDouble = 7,
  kBool = 11
};
// KernelTypes tags.
enum : uint8_t {
  kTagNone = 0,
  kTagNull,
  kTagInt,
  kTagBool,
  kTagDouble,
  kTagTensor,
  kTagString,
  kTagIntList,
  kTagDoubleList,
  kTagBoolList,
  kTagTensorList,
  kTagOptionalTensorList
};
// InstructionArguments tags.
enum : uint8_t {
  kInstrNone = 0,
  kInstrKernel,
  kInstrDelegate,
  kInstrMove,
  kInstrJumpFalse,
  kInstrFree
};

struct Allocation {
  uint32_t memory_id = 1;
  uint32_t offset_low = 0;
  uint32_t offset_high = 0;
};

struct ExtraTensorInfo {
  uint64_t mutable_data_segments_idx = 0;
  Opt<std::string> fully_qualified_name;
  int8_t location = 0;  // SEGMENT
  int8_t device_type = 0;
  int8_t device_index = 0;
};

struct Tensor {
  int8_t scalar_type = kFloat;
  int32_t storage_offset = 0;
  Opt<Vec<int32_t>> sizes = Vec<int32_t>{};
  Opt<Vec<uint8_t>> dim_order = Vec<uint8_t>{};
  bool requires_grad = false;
  uint32_t data_buffer_idx = 0;
  Opt<Allocation> allocation;
  int8_t layout = 0;
  int8_t shape_dynamism = 0;
  Opt<ExtraTensorInfo> extra;
};

struct Null {};
struct Int {
  int64_t value = 0;
};
struct Bool {
  bool value = false;
};
struct Double {
  double value = 0;
};
struct String {
  Opt<std::string> value = std::string();
};
struct IntList {
  Opt<Vec<int64_t>> items = Vec<int64_t>{};
};  // value indices of Int values
struct DoubleList {
  Opt<Vec<double>> items = Vec<double>{};
};
struct BoolList {
  Opt<Vec<uint8_t>> items = Vec<uint8_t>{};
};
struct TensorList {
  Opt<Vec<int32_t>> items = Vec<int32_t>{};
};
struct OptionalTensorList {
  Opt<Vec<int32_t>> items = Vec<int32_t>{};
};

// The alternative index equals the KernelTypes tag; monostate means "no val".
using ValuePayload = std::variant<std::monostate, Null, Int, Bool, Double, Tensor, String, IntList,
                                  DoubleList, BoolList, TensorList, OptionalTensorList>;

struct EValue {
  uint8_t type = kTagNone;  // written as is, so it may disagree with `val`
  ValuePayload val;

  template <typename T>
  static EValue Of(T payload) {
    EValue v;
    v.val = std::move(payload);
    v.type = static_cast<uint8_t>(v.val.index());
    return v;
  }
};

struct KernelCall {
  int32_t op_index = 0;
  Opt<Vec<int32_t>> args = Vec<int32_t>{};
};
struct DelegateCall {
  int32_t delegate_index = 0;
  Opt<Vec<int32_t>> args = Vec<int32_t>{};
};
struct MoveCall {
  int32_t move_from = 0;
  int32_t move_to = 0;
};
struct JumpFalseCall {
  int32_t cond_value_index = 0;
  int32_t destination_instruction = 0;
};
struct FreeCall {
  int32_t value_index = 0;
};

// The alternative index equals the InstructionArguments tag.
using InstructionPayload =
    std::variant<std::monostate, KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall>;

struct Instruction {
  uint8_t type = kInstrNone;
  InstructionPayload args;

  template <typename T>
  static Instruction Of(T payload) {
    Instruction i;
    i.args = std::move(payload);
    i.type = static_cast<uint8_t>(i.args.index());
    return i;
  }
};

struct Frame {
  Opt<std::string> filename;
  int32_t lineno = 0;
  Opt<std::string> name;
  Opt<std::string> context;
};
struct FrameList {
  Opt<Vec<Frame>> items = Vec<Frame>{};
};

struct Chain {
  Opt<Vec<int32_t>> inputs = Vec<int32_t>{};
  Opt<Vec<int32_t>> outputs = Vec<int32_t>{};
  Opt<Vec<Instruction>> instructions = Vec<Instruction>{};
  Opt<Vec<FrameList>> stacktrace;
};

struct Operator {
  Opt<std::string> name = std::string();
  Opt<std::string> overload = std::string();
};

struct CompileSpec {
  Opt<std::string> key = std::string();
  Opt<Vec<uint8_t>> value = Vec<uint8_t>{};
};

struct DataReference {
  int8_t location = 0;  // INLINE = 0, SEGMENT = 1
  uint32_t index = 0;
};

struct BackendDelegate {
  Opt<std::string> id = std::string();
  Opt<DataReference> processed = DataReference{};
  Opt<Vec<CompileSpec>> compile_specs = Vec<CompileSpec>{};
};

struct ContainerMetadata {
  Opt<std::string> encoded_inp_str = std::string();
  Opt<std::string> encoded_out_str = std::string();
};

struct NonConstBufferDevice {
  int32_t buffer_idx = 0;
  int8_t device_type = 0;
  int8_t device_index = 0;
};

struct ExecutionPlan {
  Opt<std::string> name = std::string("forward");
  Opt<ContainerMetadata> container_meta_type = ContainerMetadata{};
  Opt<Vec<EValue>> values = Vec<EValue>{};
  Opt<Vec<int32_t>> inputs = Vec<int32_t>{};
  Opt<Vec<int32_t>> outputs = Vec<int32_t>{};
  Opt<Vec<Chain>> chains = Vec<Chain>{};
  Opt<Vec<Operator>> operators = Vec<Operator>{};
  Opt<Vec<BackendDelegate>> delegates = Vec<BackendDelegate>{};
  Opt<Vec<int64_t>> non_const_buffer_sizes = Vec<int64_t>{0};
  Opt<Vec<NonConstBufferDevice>> non_const_buffer_device;
};

struct Buffer {
  Opt<Vec<uint8_t>> storage = Vec<uint8_t>{};
};
struct InlineData {
  Opt<Vec<uint8_t>> data = Vec<uint8_t>{};
};
struct DataSegment {
  uint64_t offset = 0;
  uint64_t size = 0;
};
struct SubsegmentOffsets {
  uint32_t segment_index = 0;
  Opt<Vec<uint64_t>> offsets = Vec<uint64_t>{};
};
struct NamedData {
  Opt<std::string> key = std::string();
  uint32_t segment_index = 0;
};

struct Program {
  uint32_t version = 0;
  Opt<Vec<ExecutionPlan>> execution_plan = Vec<ExecutionPlan>{};
  Opt<Vec<Buffer>> constant_buffer = Vec<Buffer>{};
  Opt<Vec<InlineData>> backend_delegate_data = Vec<InlineData>{};
  Opt<Vec<DataSegment>> segments = Vec<DataSegment>{};
  Opt<SubsegmentOffsets> constant_segment = SubsegmentOffsets{0, Vec<uint64_t>{0}};
  Opt<Vec<SubsegmentOffsets>> mutable_data_segments;
  Opt<Vec<NamedData>> named_data;
};

// A whole .pte: the program table plus the bytes after it. segment_bytes[i]
// is written at segment_base_offset + program.segments[i].offset (it may be
// shorter or longer than segments[i].size, for mutations).
struct File {
  Program program;
  Vec<Vec<uint8_t>> segment_bytes;
  // Write the eh00 extended header. The writer adds it exactly when there is
  // segment data; nullopt follows the writer.
  Opt<bool> extended_header;
  uint64_t segment_alignment = 128;
};

// The .ptd (current FlatTensor layout).
struct TensorLayout {
  int8_t scalar_type = kFloat;
  Opt<Vec<int32_t>> sizes = Vec<int32_t>{};
  Opt<Vec<uint8_t>> dim_order = Vec<uint8_t>{};
};
struct PtdNamedData {
  Opt<std::string> key = std::string();
  uint32_t segment_index = 0;
  Opt<TensorLayout> tensor_layout;
};
struct PtdFile {
  uint32_t version = 0;
  Opt<Vec<DataSegment>> segments = Vec<DataSegment>{};
  Opt<Vec<PtdNamedData>> named_data = Vec<PtdNamedData>{};
  Vec<Vec<uint8_t>> segment_bytes;
  uint64_t segment_alignment = 16;
};

// The .ptd before 2025-06 (docs/formats/pte.md §1.4): the same FT01 identifier and
// FH01 header around another root table.
struct OldTensorMetadata {
  Opt<std::string> fully_qualified_name = std::string();
  int8_t scalar_type = kFloat;
  Opt<Vec<int32_t>> sizes = Vec<int32_t>{};
  Opt<Vec<uint8_t>> dim_order = Vec<uint8_t>{};
  int32_t segment_index = 0;
  uint64_t offset = 0;  // within the segment
};
struct OldPtdFile {
  uint32_t version = 0;
  uint32_t tensor_alignment = 16;
  Opt<Vec<OldTensorMetadata>> tensors = Vec<OldTensorMetadata>{};
  Opt<Vec<DataSegment>> segments = Vec<DataSegment>{};
  Vec<Vec<uint8_t>> segment_bytes;
  uint64_t segment_alignment = 16;
};

}  // namespace accelcheck::pte::model
