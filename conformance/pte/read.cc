#include "conformance/pte/read.h"

#include <algorithm>

#include <flatbuffers/flatbuffers.h>

#include "conformance/flatbuffer_read.h"

#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/pte/schema/flat_tensor_generated.h"
#include "validators/pte/schema/program_generated.h"

namespace accelcheck::pte {
namespace {

namespace fb = executorch_flatbuffer;
namespace ft = flat_tensor_flatbuffer;
using namespace model;

// docs/formats/pte.md §1.1: the eh00 extended header after the identifier.
constexpr uint64_t kHeaderOffset = 8;
constexpr uint64_t kMinimumHeaderLength = 24;
constexpr uint64_t kFullHeaderLength = 32;

struct ExtendedHeader {
  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
};

std::optional<ExtendedHeader> ReadExtendedHeader(ByteView bytes) {
  if (!HasBytesAt(bytes, kHeaderOffset, "eh00")) return std::nullopt;
  auto length = ReadLE<uint32_t>(bytes, 12);
  if (!length || *length < kMinimumHeaderLength) return std::nullopt;
  ExtendedHeader header;
  header.program_size = ReadLE<uint64_t>(bytes, 16).value_or(0);
  header.segment_base_offset = ReadLE<uint64_t>(bytes, 24).value_or(0);
  if (*length >= kFullHeaderLength)
    header.segment_data_size = ReadLE<uint64_t>(bytes, 32).value_or(0);
  return header;
}

using conformance::ReadScalars;
using conformance::ReadString;
using conformance::ReadTables;

Tensor ReadTensor(const fb::Tensor* t) {
  Tensor out;
  out.scalar_type = static_cast<int8_t>(t->scalar_type());
  out.storage_offset = t->storage_offset();
  out.sizes = ReadScalars(t->sizes());
  out.dim_order = ReadScalars(t->dim_order());
  out.requires_grad = t->requires_grad();
  out.data_buffer_idx = t->data_buffer_idx();
  if (const auto* a = t->allocation_info()) {
    out.allocation = Allocation{a->memory_id(), a->memory_offset_low(), a->memory_offset_high()};
  }
  out.layout = t->layout();
  out.shape_dynamism = static_cast<int8_t>(t->shape_dynamism());
  if (const auto* e = t->extra_tensor_info()) {
    ExtraTensorInfo extra;
    extra.mutable_data_segments_idx = e->mutable_data_segments_idx();
    extra.fully_qualified_name = ReadString(e->fully_qualified_name());
    extra.location = static_cast<int8_t>(e->location());
    extra.device_type = static_cast<int8_t>(e->device_type());
    extra.device_index = e->device_index();
    out.extra = std::move(extra);
  }
  return out;
}

// The union tag is kept as written; the payload is decoded only for tags the
// schema declares (an unknown tag has no payload type to read it as).
EValue ReadValue(const fb::EValue* v) {
  EValue out;
  out.type = static_cast<uint8_t>(v->val_type());
  const void* p = v->val();
  if (p == nullptr) return out;
  switch (static_cast<fb::KernelTypes>(out.type)) {
    case fb::KernelTypes::Null:
      out.val = Null{};
      break;
    case fb::KernelTypes::Int:
      out.val = Int{static_cast<const fb::Int*>(p)->int_val()};
      break;
    case fb::KernelTypes::Bool:
      out.val = Bool{static_cast<const fb::Bool*>(p)->bool_val()};
      break;
    case fb::KernelTypes::Double:
      out.val = Double{static_cast<const fb::Double*>(p)->double_val()};
      break;
    case fb::KernelTypes::Tensor:
      out.val = ReadTensor(static_cast<const fb::Tensor*>(p));
      break;
    case fb::KernelTypes::String:
      out.val = String{ReadString(static_cast<const fb::String*>(p)->string_val())};
      break;
    case fb::KernelTypes::IntList:
      out.val = IntList{ReadScalars(static_cast<const fb::IntList*>(p)->items())};
      break;
    case fb::KernelTypes::DoubleList:
      out.val = DoubleList{ReadScalars(static_cast<const fb::DoubleList*>(p)->items())};
      break;
    case fb::KernelTypes::BoolList:
      out.val = BoolList{ReadScalars(static_cast<const fb::BoolList*>(p)->items())};
      break;
    case fb::KernelTypes::TensorList:
      out.val = TensorList{ReadScalars(static_cast<const fb::TensorList*>(p)->items())};
      break;
    case fb::KernelTypes::OptionalTensorList:
      out.val =
          OptionalTensorList{ReadScalars(static_cast<const fb::OptionalTensorList*>(p)->items())};
      break;
    default:
      break;
  }
  return out;
}

Instruction ReadInstruction(const fb::Instruction* i) {
  Instruction out;
  out.type = static_cast<uint8_t>(i->instr_args_type());
  const void* p = i->instr_args();
  if (p == nullptr) return out;
  switch (static_cast<fb::InstructionArguments>(out.type)) {
    case fb::InstructionArguments::KernelCall: {
      const auto* k = static_cast<const fb::KernelCall*>(p);
      out.args = KernelCall{k->op_index(), ReadScalars(k->args())};
      break;
    }
    case fb::InstructionArguments::DelegateCall: {
      const auto* d = static_cast<const fb::DelegateCall*>(p);
      out.args = DelegateCall{d->delegate_index(), ReadScalars(d->args())};
      break;
    }
    case fb::InstructionArguments::MoveCall: {
      const auto* m = static_cast<const fb::MoveCall*>(p);
      out.args = MoveCall{m->move_from(), m->move_to()};
      break;
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const auto* j = static_cast<const fb::JumpFalseCall*>(p);
      out.args = JumpFalseCall{j->cond_value_index(), j->destination_instruction()};
      break;
    }
    case fb::InstructionArguments::FreeCall:
      out.args = FreeCall{static_cast<const fb::FreeCall*>(p)->value_index()};
      break;
    default:
      break;
  }
  return out;
}

Chain ReadChain(const fb::Chain* c) {
  Chain out;
  out.inputs = ReadScalars(c->inputs());
  out.outputs = ReadScalars(c->outputs());
  out.instructions = ReadTables(c->instructions(), ReadInstruction);
  out.stacktrace = ReadTables(c->stacktrace(), [](const fb::FrameList* l) {
    return FrameList{ReadTables(l->items(), [](const fb::Frame* f) {
      return Frame{ReadString(f->filename()), f->lineno(), ReadString(f->name()),
                   ReadString(f->context())};
    })};
  });
  return out;
}

BackendDelegate ReadDelegate(const fb::BackendDelegate* d) {
  BackendDelegate out;
  out.id = ReadString(d->id());
  out.processed = std::nullopt;
  if (const auto* r = d->processed()) {
    out.processed = DataReference{static_cast<int8_t>(r->location()), r->index()};
  }
  out.compile_specs = ReadTables(d->compile_specs(), [](const fb::CompileSpec* s) {
    return CompileSpec{ReadString(s->key()), ReadScalars(s->value())};
  });
  return out;
}

ExecutionPlan ReadPlan(const fb::ExecutionPlan* p) {
  ExecutionPlan out;
  out.name = ReadString(p->name());
  out.container_meta_type = std::nullopt;
  if (const auto* m = p->container_meta_type()) {
    out.container_meta_type =
        ContainerMetadata{ReadString(m->encoded_inp_str()), ReadString(m->encoded_out_str())};
  }
  out.values = ReadTables(p->values(), ReadValue);
  out.inputs = ReadScalars(p->inputs());
  out.outputs = ReadScalars(p->outputs());
  out.chains = ReadTables(p->chains(), ReadChain);
  out.operators = ReadTables(p->operators(), [](const fb::Operator* o) {
    return Operator{ReadString(o->name()), ReadString(o->overload())};
  });
  out.delegates = ReadTables(p->delegates(), ReadDelegate);
  out.non_const_buffer_sizes = ReadScalars(p->non_const_buffer_sizes());
  out.non_const_buffer_device =
      ReadTables(p->non_const_buffer_device(), [](const fb::NonConstBufferDevice* d) {
        return NonConstBufferDevice{d->buffer_idx(), static_cast<int8_t>(d->device_type()),
                                    d->device_index()};
      });
  return out;
}

SubsegmentOffsets ReadSubsegment(const fb::SubsegmentOffsets* s) {
  return SubsegmentOffsets{s->segment_index(), ReadScalars(s->offsets())};
}

Program ReadProgram(const fb::Program* p) {
  Program out;
  out.version = p->version();
  out.execution_plan = ReadTables(p->execution_plan(), ReadPlan);
  out.constant_buffer = ReadTables(
      p->constant_buffer(), [](const fb::Buffer* b) { return Buffer{ReadScalars(b->storage())}; });
  out.backend_delegate_data = ReadTables(
      p->backend_delegate_data(),
      [](const fb::BackendDelegateInlineData* d) { return InlineData{ReadScalars(d->data())}; });
  out.segments = ReadTables(p->segments(), [](const fb::DataSegment* s) {
    return DataSegment{s->offset(), s->size()};
  });
  out.constant_segment = std::nullopt;
  if (const auto* c = p->constant_segment()) out.constant_segment = ReadSubsegment(c);
  out.mutable_data_segments = ReadTables(p->mutable_data_segments(), ReadSubsegment);
  out.named_data = ReadTables(p->named_data(), [](const fb::NamedData* n) {
    return NamedData{ReadString(n->key()), n->segment_index()};
  });
  return out;
}

// Each segment's bytes as far as the file holds them: a segment that runs
// past the end keeps the bytes that exist, so that a round trip of a broken
// file stays as broken as it was.
Vec<Vec<uint8_t>> ReadSegmentBytes(ByteView bytes, const Opt<Vec<DataSegment>>& segments,
                                   uint64_t base) {
  Vec<Vec<uint8_t>> out;
  if (!segments) return out;
  for (const DataSegment& s : *segments) {
    Vec<uint8_t> data;
    if (base <= bytes.size() && s.offset <= bytes.size() - base) {
      const uint64_t start = base + s.offset;
      const uint64_t length = std::min<uint64_t>(s.size, bytes.size() - start);
      data.assign(bytes.begin() + static_cast<ptrdiff_t>(start),
                  bytes.begin() + static_cast<ptrdiff_t>(start + length));
    }
    out.push_back(std::move(data));
  }
  return out;
}

// docs/formats/pte.md §1.4: the FH01 header after the identifier.
struct PtdRegions {
  uint64_t flatbuffer_end = 0;
  uint64_t segment_base_offset = 0;
};

std::optional<PtdRegions> ReadPtdHeader(ByteView bytes, std::string* error) {
  constexpr uint64_t kPtdHeaderLength = 40;
  if (!HasBytesAt(bytes, 4, ft::FlatTensorIdentifier()) || !HasBytesAt(bytes, 8, "FH01")) {
    if (error) *error = "not an ExecuTorch named-data file: bytes 4..11 are not \"FT01FH01\"";
    return std::nullopt;
  }
  const auto length = ReadLE<uint32_t>(bytes, 12);
  const auto flatbuffer_offset = ReadLE<uint64_t>(bytes, 16);
  const auto flatbuffer_size = ReadLE<uint64_t>(bytes, 24);
  const auto base = ReadLE<uint64_t>(bytes, 32);
  if (!length || *length < kPtdHeaderLength || !flatbuffer_offset || !flatbuffer_size || !base) {
    if (error) *error = "the FH01 header is shorter than 0x28 bytes";
    return std::nullopt;
  }
  const auto end = CheckedAdd(*flatbuffer_offset, *flatbuffer_size);
  if (!end || *end > bytes.size() || *end > *base) {
    if (error) {
      *error = Str("flatbuffer_offset ", Hex(*flatbuffer_offset), " + flatbuffer_size ",
                   Hex(*flatbuffer_size), " exceeds segment_base_offset ", Hex(*base),
                   " or file size ", Hex(bytes.size()));
    }
    return std::nullopt;
  }
  return PtdRegions{*end, *base};
}

// The old layout has a field 3 in its root table (segments), which the
// current FlatTensor does not declare; read as the current layout, its
// scalar field 1 would be taken for a vector offset.
bool HasOldPtdRoot(const InputBuffer& flatbuffer) {
  const auto root_offset = ReadLE<uint32_t>(flatbuffer.bytes(), 0);
  if (!root_offset || *root_offset >= flatbuffer.size()) return false;
  const auto* root = reinterpret_cast<const flatbuffers::Table*>(flatbuffer.data() + *root_offset);
  flatbuffers::Verifier verifier(flatbuffer.data(), flatbuffer.size());
  return root->VerifyTableStart(verifier) &&
         root->GetOptionalFieldOffset(flatbuffers::FieldIndexToOffset(3)) != 0;
}

PtdNamedData ReadNamedData(const ft::NamedData* n) {
  PtdNamedData out;
  out.key = ReadString(n->key());
  out.segment_index = n->segment_index();
  if (const auto* layout = n->tensor_layout()) {
    out.tensor_layout =
        TensorLayout{static_cast<int8_t>(layout->scalar_type()), ReadScalars(layout->sizes()),
                     ReadScalars(layout->dim_order())};
  }
  return out;
}

}  // namespace

std::optional<model::PtdFile> ReadPtdFile(ByteView bytes, std::string* error) {
  const std::optional<PtdRegions> regions = ReadPtdHeader(bytes, error);
  if (!regions) return std::nullopt;
  // Like the program, the flatbuffer is read from byte 0 and verified on an
  // aligned copy.
  const InputBuffer flatbuffer = InputBuffer::Copy(bytes.first(regions->flatbuffer_end));
  if (HasOldPtdRoot(flatbuffer)) {
    if (error)
      *error =
          "the .ptd uses the FlatTensor layout before 2025-06, which this reader does not decode";
    return std::nullopt;
  }
  flatbuffers::Verifier verifier(flatbuffer.data(), flatbuffer.size());
  if (!ft::VerifyFlatTensorBuffer(verifier)) {
    if (error) *error = "the named-data flatbuffer fails verification";
    return std::nullopt;
  }
  const ft::FlatTensor* root = ft::GetFlatTensor(flatbuffer.data());
  PtdFile file;
  file.version = root->version();
  file.segments = ReadTables(root->segments(), [](const ft::DataSegment* s) {
    return DataSegment{s->offset(), s->size()};
  });
  file.named_data = ReadTables(root->named_data(), ReadNamedData);
  file.segment_bytes = ReadSegmentBytes(bytes, file.segments, regions->segment_base_offset);
  return file;
}

std::optional<model::File> ReadFile(ByteView bytes, std::string* error) {
  if (bytes.size() < kHeaderOffset || !HasBytesAt(bytes, 4, fb::ProgramIdentifier())) {
    if (error) *error = "not an ExecuTorch program: bytes 4..7 are not \"ET12\"";
    return std::nullopt;
  }
  const std::optional<ExtendedHeader> header = ReadExtendedHeader(bytes);
  uint64_t program_size = bytes.size();
  if (header && header->program_size != 0) {
    if (header->program_size > bytes.size()) {
      if (error)
        *error = Str("program_size ", Hex(header->program_size), " exceeds file size ",
                     Hex(bytes.size()));
      return std::nullopt;
    }
    program_size = header->program_size;
  }
  // The flatbuffers accessors read scalars in place, so verify and read an
  // aligned copy of the program bytes.
  const InputBuffer program_bytes = InputBuffer::Copy(bytes.first(program_size));
  flatbuffers::Verifier verifier(program_bytes.data(), program_bytes.size());
  if (!fb::VerifyProgramBuffer(verifier)) {
    if (error) *error = "the program flatbuffer fails verification";
    return std::nullopt;
  }
  File file;
  file.program = ReadProgram(fb::GetProgram(program_bytes.data()));
  file.extended_header = header.has_value();
  file.segment_bytes =
      ReadSegmentBytes(bytes, file.program.segments, header ? header->segment_base_offset : 0);
  return file;
}

}  // namespace accelcheck::pte
