// JSON views of .pte and .ptd files with the byte offset of each table. The
// old FT01 layout is read with RawTable, never with generated accessors.
// Enums and unions are written as validators/core/inspect_json.h says.
#include "validators/pte/inspect.h"

#include "validators/core/flatbuffer.h"
#include "validators/core/inspect_json.h"
#include "validators/pte/decode_header.h"
#include "validators/pte/validate.h"
#include "validators/pte/validate_ptd.h"
#include "validators/pte/verify.h"

namespace accelcheck::pte {

namespace {

using nlohmann::json;
namespace ft = flat_tensor_flatbuffer;

using inspect::PutEnum;
using inspect::PutUnionType;

class Writer {
 public:
  explicit Writer(ByteView file) : file_(file) {}

  json Object(const void* table) const {
    return json{
        {"@offset", static_cast<uint64_t>(static_cast<const uint8_t*>(table) - file_.data())}};
  }

  template <typename T>
  static json List(const flatbuffers::Vector<T>* vec) {
    if (vec == nullptr) return nullptr;
    if (!ElementsAligned(vec)) return "misaligned 8-byte elements (pte.flatbuffer.verify)";
    json out = json::array();
    for (const auto item : *vec) out.push_back(item);
    return out;
  }
  static json Text(const flatbuffers::String* s) {
    return s ? json(std::string(s->string_view())) : json(nullptr);
  }

  json Tensor(const fb::Tensor& t) const {
    json out = Object(&t);
    PutEnum(out, "scalar_type", t.scalar_type(), fb::EnumNameScalarType);
    out["storage_offset"] = t.storage_offset();
    out["sizes"] = List(t.sizes());
    out["dim_order"] = List(t.dim_order());
    out["requires_grad"] = t.requires_grad();
    out["data_buffer_idx"] = t.data_buffer_idx();
    out["layout"] = t.layout();
    PutEnum(out, "shape_dynamism", t.shape_dynamism(), fb::EnumNameTensorShapeDynamism);
    if (const auto* a = t.allocation_info()) {
      json alloc = Object(a);
      alloc["memory_id"] = a->memory_id();
      alloc["memory_offset_low"] = a->memory_offset_low();
      alloc["memory_offset_high"] = a->memory_offset_high();
      out["allocation_info"] = alloc;
    }
    if (const auto* e = t.extra_tensor_info()) {
      json extra = Object(e);
      extra["mutable_data_segments_idx"] = e->mutable_data_segments_idx();
      extra["fully_qualified_name"] = Text(e->fully_qualified_name());
      PutEnum(extra, "location", e->location(), fb::EnumNameTensorDataLocation);
      PutEnum(extra, "device_type", e->device_type(), fb::EnumNameDeviceType);
      extra["device_index"] = e->device_index();
      out["extra_tensor_info"] = extra;
    }
    return out;
  }

  json Value(const fb::EValue& v) const {
    json out = Object(&v);
    const auto type = v.val_type();
    PutUnionType(out, type, fb::EnumNameKernelTypes);
    if (v.val() == nullptr) return out;
    switch (type) {
      case fb::KernelTypes::Int:
        out["val"] = v.val_as_Int()->int_val();
        break;
      case fb::KernelTypes::Bool:
        out["val"] = v.val_as_Bool()->bool_val();
        break;
      case fb::KernelTypes::Double:
        out["val"] = v.val_as_Double()->double_val();
        break;
      case fb::KernelTypes::String:
        out["val"] = Text(v.val_as_String()->string_val());
        break;
      case fb::KernelTypes::Tensor:
        out["val"] = Tensor(*v.val_as_Tensor());
        break;
      case fb::KernelTypes::IntList:
        out["val"] = List(v.val_as_IntList()->items());
        break;
      case fb::KernelTypes::DoubleList:
        out["val"] = List(v.val_as_DoubleList()->items());
        break;
      case fb::KernelTypes::BoolList:
        out["val"] = List(v.val_as_BoolList()->items());
        break;
      case fb::KernelTypes::TensorList:
        out["val"] = List(v.val_as_TensorList()->items());
        break;
      case fb::KernelTypes::OptionalTensorList:
        out["val"] = List(v.val_as_OptionalTensorList()->items());
        break;
      default:
        break;
    }
    return out;
  }

  json Instruction(const fb::Instruction& i) const {
    json out = Object(&i);
    PutUnionType(out, i.instr_args_type(), fb::EnumNameInstructionArguments);
    if (const auto* k = i.instr_args_as_KernelCall()) {
      out["op_index"] = k->op_index();
      out["args"] = List(k->args());
    } else if (const auto* d = i.instr_args_as_DelegateCall()) {
      out["delegate_index"] = d->delegate_index();
      out["args"] = List(d->args());
    } else if (const auto* m = i.instr_args_as_MoveCall()) {
      out["move_from"] = m->move_from();
      out["move_to"] = m->move_to();
    } else if (const auto* j = i.instr_args_as_JumpFalseCall()) {
      out["cond_value_index"] = j->cond_value_index();
      out["destination_instruction"] = j->destination_instruction();
    } else if (const auto* f = i.instr_args_as_FreeCall()) {
      out["value_index"] = f->value_index();
    }
    return out;
  }

  template <typename T, typename F>
  json Tables(const flatbuffers::Vector<flatbuffers::Offset<T>>* vec, F each) const {
    if (vec == nullptr) return nullptr;
    json out = json::array();
    for (const T* item : *vec) out.push_back(each(*item));
    return out;
  }

  json Plan(const fb::ExecutionPlan& p) const {
    json out = Object(&p);
    out["name"] = Text(p.name());
    if (const auto* meta = p.container_meta_type()) {
      json m = Object(meta);
      m["encoded_inp_str"] = Text(meta->encoded_inp_str());
      m["encoded_out_str"] = Text(meta->encoded_out_str());
      out["container_meta_type"] = m;
    }
    out["values"] = Tables(p.values(), [&](const fb::EValue& v) { return Value(v); });
    out["inputs"] = List(p.inputs());
    out["outputs"] = List(p.outputs());
    out["chains"] = Tables(p.chains(), [&](const fb::Chain& c) {
      json chain = Object(&c);
      chain["inputs"] = List(c.inputs());
      chain["outputs"] = List(c.outputs());
      chain["instructions"] =
          Tables(c.instructions(), [&](const fb::Instruction& i) { return Instruction(i); });
      chain["stacktrace_length"] = c.stacktrace() ? json(c.stacktrace()->size()) : json(nullptr);
      return chain;
    });
    out["operators"] = Tables(p.operators(), [&](const fb::Operator& op) {
      json o = Object(&op);
      o["name"] = Text(op.name());
      o["overload"] = Text(op.overload());
      return o;
    });
    out["delegates"] = Tables(p.delegates(), [&](const fb::BackendDelegate& d) {
      json o = Object(&d);
      o["id"] = Text(d.id());
      if (const auto* ref = d.processed()) {
        json processed = {{"index", ref->index()}};
        PutEnum(processed, "location", ref->location(), fb::EnumNameDataLocation);
        o["processed"] = processed;
      }
      o["compile_specs"] = Tables(d.compile_specs(), [&](const fb::CompileSpec& s) {
        json spec = Object(&s);
        spec["key"] = Text(s.key());
        spec["value_size"] = s.value() ? json(s.value()->size()) : json(nullptr);
        return spec;
      });
      return o;
    });
    out["non_const_buffer_sizes"] = List(p.non_const_buffer_sizes());
    return out;
  }

  json Subsegment(const fb::SubsegmentOffsets& s) const {
    json out = Object(&s);
    out["segment_index"] = s.segment_index();
    out["offsets"] = List(s.offsets());
    return out;
  }

  json Program(const fb::Program& program) const {
    json out = Object(&program);
    out["version"] = program.version();
    out["execution_plan"] =
        Tables(program.execution_plan(), [&](const fb::ExecutionPlan& p) { return Plan(p); });
    out["constant_buffer"] = Tables(program.constant_buffer(), [&](const fb::Buffer& b) {
      json o = Object(&b);
      o["size"] = b.storage() ? json(b.storage()->size()) : json(nullptr);
      return o;
    });
    out["backend_delegate_data"] =
        Tables(program.backend_delegate_data(), [&](const fb::BackendDelegateInlineData& d) {
          json o = Object(&d);
          o["size"] = d.data() ? json(d.data()->size()) : json(nullptr);
          return o;
        });
    out["segments"] = Tables(program.segments(), [&](const fb::DataSegment& s) {
      json o = Object(&s);
      o["offset"] = s.offset();
      o["size"] = s.size();
      return o;
    });
    if (program.constant_segment())
      out["constant_segment"] = Subsegment(*program.constant_segment());
    out["mutable_data_segments"] =
        Tables(program.mutable_data_segments(),
               [&](const fb::SubsegmentOffsets& s) { return Subsegment(s); });
    out["named_data"] = Tables(program.named_data(), [&](const fb::NamedData& n) {
      json o = Object(&n);
      o["key"] = Text(n.key());
      o["segment_index"] = n.segment_index();
      return o;
    });
    return out;
  }

 private:
  ByteView file_;
};

json HeaderJson(const PteHeader& h) {
  json out{{"file_size", h.file_size},
           {"root_offset", h.root_offset},
           {"extended_header", h.extended},
           {"program_size", h.program_size}};
  if (h.extended) {
    out["length"] = h.length;
    out["segment_base_offset"] = h.segment_base_offset;
    out["segment_data_size"] =
        h.segment_data_size_known ? json(h.segment_data_size) : json(nullptr);
  }
  return out;
}

json PtdHeaderJson(const PtdHeader& h) {
  return {{"length", h.length},
          {"flatbuffer_offset", h.flatbuffer_offset},
          {"flatbuffer_size", h.flatbuffer_size},
          {"segment_base_offset", h.segment_base_offset},
          {"segment_data_size", h.segment_data_size}};
}

json RawList32(const RawTable& t, uint16_t id, bool bytes) {
  const auto v = t.Vector(id, bytes ? 1 : 4);
  if (!v) return nullptr;
  json out = json::array();
  for (uint32_t k = 0; k < v->first; ++k) {
    if (bytes) {
      out.push_back(t.buffer()[v->second + k]);
    } else {
      out.push_back(static_cast<int32_t>(*ReadLE<uint32_t>(t.buffer(), v->second + 4 * k)));
    }
  }
  return out;
}

// The pre-2025-06 FlatTensor: {version, tensor_alignment, tensors[TensorMetadata
// {fully_qualified_name, scalar_type, sizes, dim_order, segment_index, offset}],
// segments[DataSegment]} (docs/formats/pte.md §1.4).
json OldFlatTensor(ByteView flatbuffer) {
  const auto root = RawTable::At(flatbuffer, *ReadLE<uint32_t>(flatbuffer, 0));
  json out{{"layout", "FT01 before 2025-06"}};
  if (!root) return out;
  out["@offset"] = root->offset();
  out["version"] = root->Scalar<uint32_t>(0);
  out["tensor_alignment"] = root->Scalar<uint32_t>(1);
  json tensors = json::array();
  if (const auto v = root->Vector(2, 4)) {
    for (uint32_t k = 0; k < v->first; ++k) {
      const auto t = root->TableAt(v->second, k);
      if (!t) break;
      json item{{"@offset", t->offset()}};
      const auto name = t->String(0);
      item["fully_qualified_name"] = name ? json(std::string(*name)) : json(nullptr);
      PutEnum(item, "scalar_type", static_cast<fb::ScalarType>(t->Scalar<int8_t>(1)),
              fb::EnumNameScalarType);
      item["sizes"] = RawList32(*t, 2, false);
      item["dim_order"] = RawList32(*t, 3, true);
      item["segment_index"] = t->Scalar<uint32_t>(4);
      item["offset"] = t->Scalar<uint64_t>(5);
      tensors.push_back(item);
    }
  }
  out["tensors"] = tensors;
  json segments = json::array();
  if (const auto v = root->Vector(3, 4)) {
    for (uint32_t k = 0; k < v->first; ++k) {
      const auto s = root->TableAt(v->second, k);
      if (!s) break;
      segments.push_back({{"@offset", s->offset()},
                          {"offset", s->Scalar<uint64_t>(0)},
                          {"size", s->Scalar<uint64_t>(1)}});
    }
  }
  out["segments"] = segments;
  return out;
}

}  // namespace

json InspectPte(const InputBuffer& input, const ValidateContext& context, DiagnosticSink& sink) {
  const ByteView file = input.bytes();
  const auto header = DecodeHeader(file, sink);
  if (!header || !VerifyProgram(file.first(header->program_size), context.limits, sink)) {
    return nullptr;
  }
  return json{{"format", "pte"},
              {"header", HeaderJson(*header)},
              {"program", Writer(file).Program(*fb::GetProgram(file.data()))}};
}

json InspectPtd(const InputBuffer& input, const ValidateContext& context, DiagnosticSink& sink) {
  const ByteView file = input.bytes();
  const auto header = DecodePtdHeader(file, sink);
  if (!header) return nullptr;
  const ByteView flatbuffer = file.first(header->flatbuffer_end());
  json out{{"format", "ptd"}, {"header", PtdHeaderJson(*header)}};
  if (IsOldPtdLayout(flatbuffer)) {
    out["flat_tensor"] = OldFlatTensor(flatbuffer);
    return out;
  }
  if (!VerifyFlatTensor(flatbuffer, context.limits, sink)) return nullptr;
  const auto* root = ft::GetFlatTensor(flatbuffer.data());
  const Writer w(file);
  json flat = w.Object(root);
  flat["version"] = root->version();
  flat["segments"] = w.Tables(root->segments(), [&](const ft::DataSegment& s) {
    json o = w.Object(&s);
    o["offset"] = s.offset();
    o["size"] = s.size();
    return o;
  });
  flat["named_data"] = w.Tables(root->named_data(), [&](const ft::NamedData& n) {
    json o = w.Object(&n);
    o["key"] = Writer::Text(n.key());
    o["segment_index"] = n.segment_index();
    if (const auto* l = n.tensor_layout()) {
      json layout = {{"sizes", Writer::List(l->sizes())},
                     {"dim_order", Writer::List(l->dim_order())}};
      PutEnum(layout, "scalar_type", l->scalar_type(), fb::EnumNameScalarType);
      o["tensor_layout"] = layout;
    }
    return o;
  });
  out["flat_tensor"] = flat;
  return out;
}

}  // namespace accelcheck::pte
