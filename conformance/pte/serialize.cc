#include "conformance/pte/serialize.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "conformance/pte/schema/flat_tensor_v0_generated.h"
#include "validators/core/checked.h"
#include "validators/pte/schema/flat_tensor_generated.h"
#include "validators/pte/schema/program_generated.h"

namespace accelcheck::pte {

namespace {

namespace fb = ::executorch_flatbuffer;
namespace ft = ::flat_tensor_flatbuffer;
namespace ft0 = ::flat_tensor_v0_flatbuffer;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

// Absent optional fields are written as a zero offset, which the generated
// builders skip, so "absent" and "empty" stay distinct in the bytes.
Offset<flatbuffers::String> WriteString(FlatBufferBuilder& b, const model::Opt<std::string>& s) {
  return s ? b.CreateString(*s) : 0;
}

template <typename T>
Offset<flatbuffers::Vector<T>> WriteVector(FlatBufferBuilder& b,
                                           const model::Opt<model::Vec<T>>& v) {
  return v ? b.CreateVector(*v) : 0;
}

// Buffer.storage and BackendDelegateInlineData.data are (force_align: 16).
Offset<flatbuffers::Vector<uint8_t>> WriteAlignedBytes(FlatBufferBuilder& b,
                                                       const model::Opt<model::Vec<uint8_t>>& v) {
  if (!v) return 0;
  b.ForceVectorAlignment(v->size(), sizeof(uint8_t), 16);
  return b.CreateVector(*v);
}

// Writes a vector of tables, one Offset per element from `write`.
template <typename Table, typename Item, typename WriteItem>
Offset<flatbuffers::Vector<Offset<Table>>> WriteTables(FlatBufferBuilder& b,
                                                       const model::Opt<model::Vec<Item>>& items,
                                                       WriteItem write) {
  if (!items) return 0;
  std::vector<Offset<Table>> offsets;
  offsets.reserve(items->size());
  for (const Item& item : *items) offsets.push_back(write(b, item));
  return b.CreateVector(offsets);
}

Offset<fb::Tensor> WriteTensor(FlatBufferBuilder& b, const model::Tensor& t) {
  auto sizes = WriteVector(b, t.sizes);
  auto dim_order = WriteVector(b, t.dim_order);
  Offset<fb::AllocationDetails> allocation = 0;
  if (t.allocation) {
    allocation = fb::CreateAllocationDetails(b, t.allocation->memory_id, t.allocation->offset_low,
                                             t.allocation->offset_high);
  }
  Offset<fb::ExtraTensorInfo> extra = 0;
  if (t.extra) {
    extra = fb::CreateExtraTensorInfo(
        b, t.extra->mutable_data_segments_idx, WriteString(b, t.extra->fully_qualified_name),
        static_cast<fb::TensorDataLocation>(t.extra->location),
        static_cast<fb::DeviceType>(t.extra->device_type), t.extra->device_index);
  }
  return fb::CreateTensor(b, static_cast<fb::ScalarType>(t.scalar_type), t.storage_offset, sizes,
                          dim_order, t.requires_grad, t.data_buffer_idx, allocation, t.layout,
                          static_cast<fb::TensorShapeDynamism>(t.shape_dynamism), extra);
}

// The union payload of an EValue; the tag is written separately, as given.
struct ValueWriter {
  FlatBufferBuilder& b;
  Offset<void> operator()(const std::monostate&) const { return 0; }
  Offset<void> operator()(const model::Null&) const { return fb::CreateNull(b).Union(); }
  Offset<void> operator()(const model::Int& v) const { return fb::CreateInt(b, v.value).Union(); }
  Offset<void> operator()(const model::Bool& v) const { return fb::CreateBool(b, v.value).Union(); }
  Offset<void> operator()(const model::Double& v) const {
    return fb::CreateDouble(b, v.value).Union();
  }
  Offset<void> operator()(const model::Tensor& v) const { return WriteTensor(b, v).Union(); }
  Offset<void> operator()(const model::String& v) const {
    return fb::CreateString(b, WriteString(b, v.value)).Union();
  }
  Offset<void> operator()(const model::IntList& v) const {
    return fb::CreateIntList(b, WriteVector(b, v.items)).Union();
  }
  Offset<void> operator()(const model::DoubleList& v) const {
    return fb::CreateDoubleList(b, WriteVector(b, v.items)).Union();
  }
  Offset<void> operator()(const model::BoolList& v) const {
    // [bool] is stored as bytes; the model keeps raw bytes so that values
    // other than 0 and 1 can be written.
    Offset<flatbuffers::Vector<uint8_t>> items = WriteVector(b, v.items);
    return fb::CreateBoolList(b, Offset<flatbuffers::Vector<uint8_t>>(items.o)).Union();
  }
  Offset<void> operator()(const model::TensorList& v) const {
    return fb::CreateTensorList(b, WriteVector(b, v.items)).Union();
  }
  Offset<void> operator()(const model::OptionalTensorList& v) const {
    return fb::CreateOptionalTensorList(b, WriteVector(b, v.items)).Union();
  }
};

Offset<fb::EValue> WriteValue(FlatBufferBuilder& b, const model::EValue& v) {
  Offset<void> payload = std::visit(ValueWriter{b}, v.val);
  return fb::CreateEValue(b, static_cast<fb::KernelTypes>(v.type), payload);
}

struct InstructionWriter {
  FlatBufferBuilder& b;
  Offset<void> operator()(const std::monostate&) const { return 0; }
  Offset<void> operator()(const model::KernelCall& k) const {
    return fb::CreateKernelCall(b, k.op_index, WriteVector(b, k.args)).Union();
  }
  Offset<void> operator()(const model::DelegateCall& d) const {
    return fb::CreateDelegateCall(b, d.delegate_index, WriteVector(b, d.args)).Union();
  }
  Offset<void> operator()(const model::MoveCall& m) const {
    return fb::CreateMoveCall(b, m.move_from, m.move_to).Union();
  }
  Offset<void> operator()(const model::JumpFalseCall& j) const {
    return fb::CreateJumpFalseCall(b, j.cond_value_index, j.destination_instruction).Union();
  }
  Offset<void> operator()(const model::FreeCall& f) const {
    return fb::CreateFreeCall(b, f.value_index).Union();
  }
};

Offset<fb::Instruction> WriteInstruction(FlatBufferBuilder& b, const model::Instruction& i) {
  Offset<void> payload = std::visit(InstructionWriter{b}, i.args);
  return fb::CreateInstruction(b, static_cast<fb::InstructionArguments>(i.type), payload);
}

Offset<fb::Frame> WriteFrame(FlatBufferBuilder& b, const model::Frame& f) {
  return fb::CreateFrame(b, WriteString(b, f.filename), f.lineno, WriteString(b, f.name),
                         WriteString(b, f.context));
}

Offset<fb::FrameList> WriteFrameList(FlatBufferBuilder& b, const model::FrameList& f) {
  return fb::CreateFrameList(b, WriteTables<fb::Frame>(b, f.items, WriteFrame));
}

Offset<fb::Chain> WriteChain(FlatBufferBuilder& b, const model::Chain& c) {
  auto inputs = WriteVector(b, c.inputs);
  auto outputs = WriteVector(b, c.outputs);
  auto instructions = WriteTables<fb::Instruction>(b, c.instructions, WriteInstruction);
  auto stacktrace = WriteTables<fb::FrameList>(b, c.stacktrace, WriteFrameList);
  return fb::CreateChain(b, inputs, outputs, instructions, stacktrace);
}

Offset<fb::Operator> WriteOperator(FlatBufferBuilder& b, const model::Operator& o) {
  return fb::CreateOperator(b, WriteString(b, o.name), WriteString(b, o.overload));
}

Offset<fb::CompileSpec> WriteCompileSpec(FlatBufferBuilder& b, const model::CompileSpec& c) {
  return fb::CreateCompileSpec(b, WriteString(b, c.key), WriteVector(b, c.value));
}

Offset<fb::BackendDelegate> WriteDelegate(FlatBufferBuilder& b, const model::BackendDelegate& d) {
  auto id = WriteString(b, d.id);
  Offset<fb::BackendDelegateDataReference> processed = 0;
  if (d.processed) {
    processed = fb::CreateBackendDelegateDataReference(
        b, static_cast<fb::DataLocation>(d.processed->location), d.processed->index);
  }
  auto specs = WriteTables<fb::CompileSpec>(b, d.compile_specs, WriteCompileSpec);
  return fb::CreateBackendDelegate(b, id, processed, specs);
}

Offset<fb::NonConstBufferDevice> WriteBufferDevice(FlatBufferBuilder& b,
                                                   const model::NonConstBufferDevice& d) {
  return fb::CreateNonConstBufferDevice(b, d.buffer_idx, static_cast<fb::DeviceType>(d.device_type),
                                        d.device_index);
}

Offset<fb::ExecutionPlan> WritePlan(FlatBufferBuilder& b, const model::ExecutionPlan& p) {
  auto name = WriteString(b, p.name);
  Offset<fb::ContainerMetadata> meta = 0;
  if (p.container_meta_type) {
    meta = fb::CreateContainerMetadata(b, WriteString(b, p.container_meta_type->encoded_inp_str),
                                       WriteString(b, p.container_meta_type->encoded_out_str));
  }
  auto values = WriteTables<fb::EValue>(b, p.values, WriteValue);
  auto inputs = WriteVector(b, p.inputs);
  auto outputs = WriteVector(b, p.outputs);
  auto chains = WriteTables<fb::Chain>(b, p.chains, WriteChain);
  auto operators = WriteTables<fb::Operator>(b, p.operators, WriteOperator);
  auto delegates = WriteTables<fb::BackendDelegate>(b, p.delegates, WriteDelegate);
  auto buffer_sizes = WriteVector(b, p.non_const_buffer_sizes);
  auto buffer_device =
      WriteTables<fb::NonConstBufferDevice>(b, p.non_const_buffer_device, WriteBufferDevice);
  return fb::CreateExecutionPlan(b, name, meta, values, inputs, outputs, chains, operators,
                                 delegates, buffer_sizes, buffer_device);
}

Offset<fb::SubsegmentOffsets> WriteSubsegment(FlatBufferBuilder& b,
                                              const model::SubsegmentOffsets& s) {
  return fb::CreateSubsegmentOffsets(b, s.segment_index, WriteVector(b, s.offsets));
}

Offset<fb::Program> WriteProgram(FlatBufferBuilder& b, const model::Program& p) {
  auto plans = WriteTables<fb::ExecutionPlan>(b, p.execution_plan, WritePlan);
  auto constant_buffer = WriteTables<fb::Buffer>(
      b, p.constant_buffer, [](FlatBufferBuilder& fbb, const model::Buffer& buf) {
        return fb::CreateBuffer(fbb, WriteAlignedBytes(fbb, buf.storage));
      });
  auto delegate_data = WriteTables<fb::BackendDelegateInlineData>(
      b, p.backend_delegate_data, [](FlatBufferBuilder& fbb, const model::InlineData& d) {
        return fb::CreateBackendDelegateInlineData(fbb, WriteAlignedBytes(fbb, d.data));
      });
  auto segments = WriteTables<fb::DataSegment>(
      b, p.segments, [](FlatBufferBuilder& fbb, const model::DataSegment& s) {
        return fb::CreateDataSegment(fbb, s.offset, s.size);
      });
  Offset<fb::SubsegmentOffsets> constant_segment = 0;
  if (p.constant_segment) constant_segment = WriteSubsegment(b, *p.constant_segment);
  auto mutable_segments =
      WriteTables<fb::SubsegmentOffsets>(b, p.mutable_data_segments, WriteSubsegment);
  auto named_data = WriteTables<fb::NamedData>(
      b, p.named_data, [](FlatBufferBuilder& fbb, const model::NamedData& n) {
        return fb::CreateNamedData(fbb, WriteString(fbb, n.key), n.segment_index);
      });
  return fb::CreateProgram(b, p.version, plans, constant_buffer, delegate_data, segments,
                           constant_segment, mutable_segments, named_data);
}

void PutLE(std::vector<uint8_t>& out, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

// Inserts `header` after the first 8 bytes (root offset + identifier) and
// moves the root offset past it. Every other flatbuffer offset is relative,
// so the shift is safe as long as it keeps the alignment the body needs.
std::vector<uint8_t> InsertHeader(const uint8_t* flatbuffer, size_t size,
                                  const std::vector<uint8_t>& header) {
  std::vector<uint8_t> out;
  out.reserve(size + header.size());
  uint32_t root = 0;
  std::memcpy(&root, flatbuffer, 4);  // little-endian hosts only, like flatbuffers itself
  PutLE(out, root + header.size(), 4);
  out.insert(out.end(), flatbuffer + 4, flatbuffer + 8);
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), flatbuffer + 8, flatbuffer + size);
  return out;
}

// The end of the segment data: the furthest byte any segment's bytes reach.
uint64_t SegmentDataEnd(const model::Vec<model::DataSegment>* segments,
                        const model::Vec<model::Vec<uint8_t>>& bytes) {
  uint64_t end = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint64_t offset = segments && i < segments->size() ? (*segments)[i].offset : 0;
    end = std::max<uint64_t>(end, offset + bytes[i].size());
  }
  return end;
}

bool AnySegmentData(const model::Vec<model::Vec<uint8_t>>& bytes) {
  return std::any_of(bytes.begin(), bytes.end(), [](const auto& b) { return !b.empty(); });
}

// Appends zero padding up to `base`, then each segment's bytes at its offset.
void AppendSegments(std::vector<uint8_t>& out, uint64_t base,
                    const model::Vec<model::DataSegment>* segments,
                    const model::Vec<model::Vec<uint8_t>>& bytes) {
  const uint64_t end = SegmentDataEnd(segments, bytes);
  if (end == 0) return;
  out.resize(base + end, 0);
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint64_t offset = segments && i < segments->size() ? (*segments)[i].offset : 0;
    std::copy(bytes[i].begin(), bytes[i].end(),
              out.begin() + static_cast<std::ptrdiff_t>(base + offset));
  }
}

}  // namespace

void LayoutSegments(model::File& file) {
  model::Vec<model::DataSegment> segments;
  uint64_t end = 0;
  for (const auto& bytes : file.segment_bytes) {
    const uint64_t offset = AlignUp(end, file.segment_alignment);
    segments.push_back({offset, bytes.size()});
    end = offset + bytes.size();
  }
  file.program.segments = std::move(segments);
}

std::vector<uint8_t> Serialize(const model::File& file) {
  FlatBufferBuilder builder(1024);
  builder.Finish(WriteProgram(builder, file.program), fb::ProgramIdentifier());

  const bool header = file.extended_header.value_or(AnySegmentData(file.segment_bytes));
  const model::Vec<model::DataSegment>* segments =
      file.program.segments ? &*file.program.segments : nullptr;
  const uint64_t data_size = SegmentDataEnd(segments, file.segment_bytes);

  // eh00: magic, length 32, program_size, segment_base_offset,
  // segment_data_size (docs/formats/pte.md §1.1). 32 is already a multiple of 16.
  constexpr uint64_t kHeaderLength = 32;
  const uint64_t program_size = builder.GetSize() + (header ? kHeaderLength : 0);
  const uint64_t base = data_size > 0 ? AlignUp(program_size, file.segment_alignment) : 0;
  std::vector<uint8_t> out;
  if (header) {
    std::vector<uint8_t> eh = {'e', 'h', '0', '0'};
    PutLE(eh, kHeaderLength, 4);
    PutLE(eh, program_size, 8);
    PutLE(eh, base, 8);
    PutLE(eh, data_size, 8);
    out = InsertHeader(builder.GetBufferPointer(), builder.GetSize(), eh);
  } else {
    out.assign(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
  }
  AppendSegments(out, base, segments, file.segment_bytes);
  return out;
}

namespace {

// A finished FT01 flatbuffer with the FH01 header and the segments after it:
// magic, length 40, flatbuffer_offset, flatbuffer_size, segment_base_offset,
// segment_data_size (docs/formats/pte.md §1.4). The header fills bytes 8..48, so the
// flatbuffer body continues at 48.
std::vector<uint8_t> WithPtdHeader(const FlatBufferBuilder& builder,
                                   const model::Opt<model::Vec<model::DataSegment>>& segments,
                                   const model::Vec<model::Vec<uint8_t>>& segment_bytes,
                                   uint64_t segment_alignment) {
  constexpr uint64_t kHeaderLength = 40;
  constexpr uint64_t kFlatbufferOffset = 8 + kHeaderLength;
  const uint64_t flatbuffer_size = builder.GetSize() - 8;
  const model::Vec<model::DataSegment>* segs = segments ? &*segments : nullptr;
  const uint64_t data_size = SegmentDataEnd(segs, segment_bytes);
  const uint64_t base = AlignUp(kFlatbufferOffset + flatbuffer_size, segment_alignment);
  std::vector<uint8_t> fh = {'F', 'H', '0', '1'};
  PutLE(fh, kHeaderLength, 4);
  PutLE(fh, kFlatbufferOffset, 8);
  PutLE(fh, flatbuffer_size, 8);
  PutLE(fh, base, 8);
  PutLE(fh, data_size, 8);
  std::vector<uint8_t> out = InsertHeader(builder.GetBufferPointer(), builder.GetSize(), fh);
  out.resize(base, 0);
  AppendSegments(out, base, segs, segment_bytes);
  return out;
}

}  // namespace

std::vector<uint8_t> SerializePtd(const model::PtdFile& file) {
  FlatBufferBuilder builder(1024);
  auto segments = WriteTables<ft::DataSegment>(
      builder, file.segments, [](FlatBufferBuilder& b, const model::DataSegment& s) {
        return ft::CreateDataSegment(b, s.offset, s.size);
      });
  auto named = WriteTables<ft::NamedData>(
      builder, file.named_data, [](FlatBufferBuilder& b, const model::PtdNamedData& n) {
        auto key = WriteString(b, n.key);
        Offset<ft::TensorLayout> layout = 0;
        if (n.tensor_layout) {
          layout = ft::CreateTensorLayout(
              b, static_cast<fb::ScalarType>(n.tensor_layout->scalar_type),
              WriteVector(b, n.tensor_layout->sizes), WriteVector(b, n.tensor_layout->dim_order));
        }
        return ft::CreateNamedData(b, key, n.segment_index, layout);
      });
  builder.Finish(ft::CreateFlatTensor(builder, file.version, segments, named),
                 ft::FlatTensorIdentifier());
  return WithPtdHeader(builder, file.segments, file.segment_bytes, file.segment_alignment);
}

std::vector<uint8_t> SerializeOldPtd(const model::OldPtdFile& file) {
  FlatBufferBuilder builder(1024);
  auto tensors = WriteTables<ft0::TensorMetadata>(
      builder, file.tensors, [](FlatBufferBuilder& b, const model::OldTensorMetadata& t) {
        auto name = WriteString(b, t.fully_qualified_name);
        auto sizes = WriteVector(b, t.sizes);
        auto dim_order = WriteVector(b, t.dim_order);
        return ft0::CreateTensorMetadata(b, name, t.scalar_type, sizes, dim_order, t.segment_index,
                                         t.offset);
      });
  auto segments = WriteTables<ft0::DataSegment>(
      builder, file.segments, [](FlatBufferBuilder& b, const model::DataSegment& s) {
        return ft0::CreateDataSegment(b, s.offset, s.size);
      });
  builder.Finish(
      ft0::CreateFlatTensor(builder, file.version, file.tensor_alignment, tensors, segments),
      ft0::FlatTensorIdentifier());
  return WithPtdHeader(builder, file.segments, file.segment_bytes, file.segment_alignment);
}

}  // namespace accelcheck::pte
