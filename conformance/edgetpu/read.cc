#include "conformance/edgetpu/read.h"

#include <flatbuffers/flatbuffers.h>

#include "conformance/flatbuffer_read.h"

#include "conformance/edgetpu/flex_map.h"
#include "validators/edgetpu/schema/executable_generated.h"
#include "validators/edgetpu/schema/tflite_generated.h"

namespace accelcheck::edgetpu {
namespace {

namespace pd = ::platforms::darwinn;
namespace tfl = ::accelcheck::tflite;
using namespace model;

// A scalar field as the file has it: nothing when the vtable leaves it out,
// its value (the default included) when present.
template <typename T, typename Table>
Opt<T> Field(const Table* table, flatbuffers::voffset_t field) {
  const auto* t = reinterpret_cast<const flatbuffers::Table*>(table);
  if (!t->CheckField(field)) return std::nullopt;
  return t->GetField<T>(field, T{});
}

template <typename Table>
Opt<bool> BoolField(const Table* table, flatbuffers::voffset_t field) {
  Opt<uint8_t> value = Field<uint8_t>(table, field);
  if (!value) return std::nullopt;
  return *value != 0;
}

using conformance::ReadScalars;
using conformance::ReadString;
using conformance::ReadTables;

ByteView BytesOf(const flatbuffers::Vector<uint8_t>* v) { return {v->data(), v->size()}; }

// --- The package (docs/formats/edgetpu.md §1) ---

Meta ReadMeta(const pd::Meta* m) {
  Meta out;
  out.desc = Field<int16_t>(m, pd::Meta::VT_DESC);
  out.batch = Field<int32_t>(m, pd::Meta::VT_BATCH);
  out.name = ReadString(m->name());
  out.position = Field<int16_t>(m, pd::Meta::VT_POSITION);
  return out;
}

Opt<Meta> ReadOptMeta(const pd::Meta* m) {
  if (m == nullptr) return std::nullopt;
  return ReadMeta(m);
}

InstructionBitstream ReadBitstream(const pd::InstructionBitstream* s) {
  InstructionBitstream out;
  out.bitstream = ReadScalars(s->bitstream());
  out.field_offsets = ReadTables(s->field_offsets(), [](const pd::FieldOffset* f) {
    FieldOffset field;
    field.meta = ReadOptMeta(f->meta());
    field.offset_bit = Field<int32_t>(f, pd::FieldOffset::VT_OFFSET_BIT);
    return field;
  });
  return out;
}

// The union tag is kept as written; the payload is read only for the tags
// the schema declares (the Verifier passes an unknown tag unread).
DmaHint ReadHint(const pd::DmaHint* h) {
  DmaHint out;
  out.type = static_cast<uint8_t>(h->any_hint_type());
  out.direction = Field<int16_t>(h, pd::DmaHint::VT_DIRECTION);
  const void* p = h->any_hint();
  if (p == nullptr) return out;
  switch (out.type) {
    case kHintDma: {
      const auto* d = static_cast<const pd::DmaDescriptorHint*>(p);
      DmaDescriptorHint hint;
      hint.meta = ReadOptMeta(d->meta());
      hint.offset_in_bytes = Field<int32_t>(d, pd::DmaDescriptorHint::VT_OFFSET_IN_BYTES);
      hint.size_in_bytes = Field<int32_t>(d, pd::DmaDescriptorHint::VT_SIZE_IN_BYTES);
      out.hint = hint;
      break;
    }
    case kHintInstruction:
      out.hint = InstructionHint{Field<int32_t>(static_cast<const pd::InstructionHint*>(p),
                                                pd::InstructionHint::VT_INSTRUCTION_CHUNK_INDEX)};
      break;
    case kHintInterrupt:
      out.hint = InterruptHint{
          Field<int16_t>(static_cast<const pd::InterruptHint*>(p), pd::InterruptHint::VT_TYPE)};
      break;
    case kHintFence:
      out.hint = FenceHint{};
      break;
    default:
      break;
  }
  return out;
}

Opt<TensorShape> ReadShape(const pd::TensorShape* s) {
  if (s == nullptr) return std::nullopt;
  TensorShape out;
  if (const auto* dims = s->dimension()) {
    out.dimension = Vec<Range>{};
    for (const pd::Range* r : *dims) out.dimension->push_back(Range{r->start(), r->end()});
  }
  return out;
}

OutputLayer ReadOutputLayer(const pd::OutputLayer* l) {
  OutputLayer out;
  if (const pd::OutputLayout* layout = l->layout()) {
    OutputLayout o;
    o.y_coordinate_to_linear_tile_id_map =
        ReadScalars(layout->y_coordinate_to_linear_tile_id_map());
    o.x_coordinate_to_linear_tile_id_map =
        ReadScalars(layout->x_coordinate_to_linear_tile_id_map());
    o.linearized_tile_byte_offset = ReadScalars(layout->linearized_tile_byte_offset());
    o.x_coordinate_to_local_byte_offset = ReadScalars(layout->x_coordinate_to_local_byte_offset());
    o.y_coordinate_to_local_y_offset = ReadScalars(layout->y_coordinate_to_local_y_offset());
    o.x_coordinate_to_local_y_row_size = ReadScalars(layout->x_coordinate_to_local_y_row_size());
    out.layout = std::move(o);
  }
  out.data_type = Field<int16_t>(l, pd::OutputLayer::VT_DATA_TYPE);
  if (const pd::OutputShapeInfo* info = l->shape_info()) {
    OutputShapeInfo s;
    s.slice_layout = ReadTables(info->slice_layout(), [](const pd::TensorLayout* t) {
      return TensorLayout{ReadShape(t->shape()), ReadScalars(t->stride())};
    });
    s.slice_offset = ReadScalars(info->slice_offset());
    out.shape_info = std::move(s);
  }
  return out;
}

Layer ReadLayer(const pd::Layer* l) {
  using L = pd::Layer;
  Layer out;
  out.name = ReadString(l->name());
  out.size_bytes = Field<int32_t>(l, L::VT_SIZE_BYTES);
  out.y_dim = Field<int32_t>(l, L::VT_Y_DIM);
  out.x_dim = Field<int32_t>(l, L::VT_X_DIM);
  out.z_dim = Field<int32_t>(l, L::VT_Z_DIM);
  if (const pd::NumericsConstants* n = l->numerics()) {
    out.numerics =
        NumericsConstants{Field<int32_t>(n, pd::NumericsConstants::VT_ZERO_POINT),
                          Field<float>(n, pd::NumericsConstants::VT_DEQUANTIZATION_FACTOR)};
  }
  out.data_type = Field<int16_t>(l, L::VT_DATA_TYPE);
  out.any_layer_type = static_cast<uint8_t>(l->any_layer_type());
  if (const void* p = l->any_layer()) {
    if (out.any_layer_type == kLayerOutput) {
      out.any_layer = ReadOutputLayer(static_cast<const pd::OutputLayer*>(p));
    } else if (out.any_layer_type == kLayerInput) {
      out.any_layer = InputLayer{};
    }
  }
  out.execution_count_per_inference = Field<int32_t>(l, L::VT_EXECUTION_COUNT_PER_INFERENCE);
  out.cache_on_dram = BoolField(l, L::VT_CACHE_ON_DRAM);
  out.shape = ReadShape(l->shape());
  return out;
}

Executable ReadExecutable(const pd::Executable* e) {
  using E = pd::Executable;
  Executable out;
  out.version = Field<int32_t>(e, E::VT_VERSION);
  out.name = ReadString(e->name());
  out.serialized_model = ReadScalars(e->serialized_model());
  out.batch_size = Field<int32_t>(e, E::VT_BATCH_SIZE);
  out.scratch_size_bytes = Field<int32_t>(e, E::VT_SCRATCH_SIZE_BYTES);
  out.instruction_bitstreams = ReadTables(e->instruction_bitstreams(), ReadBitstream);
  out.parameters = ReadScalars(e->parameters());
  if (const pd::DmaHints* h = e->dma_hints()) {
    DmaHints hints;
    hints.hints = ReadTables(h->hints(), ReadHint);
    hints.fully_deterministic = BoolField(h, pd::DmaHints::VT_FULLY_DETERMINISTIC);
    out.dma_hints = std::move(hints);
  }
  out.input_layers = ReadTables(e->input_layers(), ReadLayer);
  out.output_layers = ReadTables(e->output_layers(), ReadLayer);
  out.chip = ReadString(e->chip());
  out.estimated_cycles = Field<int32_t>(e, E::VT_ESTIMATED_CYCLES);
  out.used_narrow_memory_bytes_per_tile =
      Field<int32_t>(e, E::VT_USED_NARROW_MEMORY_BYTES_PER_TILE);
  out.type = Field<int16_t>(e, E::VT_TYPE);
  out.parameter_caching_token = Field<uint64_t>(e, E::VT_PARAMETER_CACHING_TOKEN);
  out.use_tpu_dram_for_parameters = BoolField(e, E::VT_USE_TPU_DRAM_FOR_PARAMETERS);
  out.estimated_cycles_64bit = Field<int64_t>(e, E::VT_ESTIMATED_CYCLES_64BIT);
  return out;
}

// A nested buffer, verified on an aligned copy of its own as the runtime
// does (docs/formats/edgetpu.md §2.5), without identifier; its bytes
// when it does not verify.
Nested<Executable> ReadNestedExecutable(ByteView bytes) {
  const InputBuffer copy = InputBuffer::Copy(bytes);
  flatbuffers::Verifier verifier(copy.data(), copy.size());
  if (!verifier.VerifyBuffer<pd::Executable>(nullptr))
    return Vec<uint8_t>(bytes.begin(), bytes.end());
  return ReadExecutable(flatbuffers::GetRoot<pd::Executable>(copy.data()));
}

Nested<MultiExecutable> ReadNestedMulti(ByteView bytes) {
  const InputBuffer copy = InputBuffer::Copy(bytes);
  flatbuffers::Verifier verifier(copy.data(), copy.size());
  if (!verifier.VerifyBuffer<pd::MultiExecutable>(nullptr))
    return Vec<uint8_t>(bytes.begin(), bytes.end());
  const auto* multi = flatbuffers::GetRoot<pd::MultiExecutable>(copy.data());
  MultiExecutable out;
  if (const auto* strings = multi->serialized_executables()) {
    out.executables = Vec<Nested<Executable>>{};
    for (const flatbuffers::String* s : *strings) {
      out.executables->push_back(
          ReadNestedExecutable({reinterpret_cast<const uint8_t*>(s->data()), s->size()}));
    }
  }
  return out;
}

Package ReadPackageTable(const pd::Package* p) {
  using P = pd::Package;
  Package out;
  out.min_runtime_version = Field<int32_t>(p, P::VT_MIN_RUNTIME_VERSION);
  if (const auto* multi = p->serialized_multi_executable()) {
    out.multi_executable = ReadNestedMulti(BytesOf(multi));
  }
  out.signature = ReadScalars(p->signature());
  out.keypair_version = Field<int32_t>(p, P::VT_KEYPAIR_VERSION);
  out.compiler_version = ReadString(p->compiler_version());
  out.virtual_chip_id = Field<int32_t>(p, P::VT_VIRTUAL_CHIP_ID);
  out.multi_chip_package = ReadTables(p->multi_chip_package(), [](const pd::SerializedPackage* s) {
    return SerializedPackage{ReadScalars(s->serialized_package())};
  });
  out.model_identifier = ReadString(p->model_identifier());
  return out;
}

// --- The TensorFlow Lite model (docs/formats/edgetpu.md §2.1, §2.2) ---

// "4" holds the package (docs/formats/edgetpu.md §2.3): a STRING or
// BLOB whose bytes read as one becomes a FlexPackage.
void ReadPackages(FlexMap& map) {
  for (FlexEntry& entry : map.entries) {
    if (entry.key != "4") continue;
    const Vec<uint8_t>* bytes = nullptr;
    bool blob = false;
    if (const auto* s = std::get_if<FlexString>(&entry.value)) bytes = &s->bytes;
    if (const auto* b = std::get_if<FlexBlob>(&entry.value)) {
      bytes = &b->bytes;
      blob = true;
    }
    if (bytes == nullptr) continue;
    std::optional<Package> package = ReadPackage(*bytes, nullptr);
    if (package) entry.value = FlexPackage{std::move(*package), blob};
  }
}

CustomOptions ReadCustomOptions(ByteView bytes, bool edgetpu) {
  if (edgetpu) {
    if (std::optional<FlexMap> map = ReadFlexMap(bytes)) {
      ReadPackages(*map);
      return std::move(*map);
    }
  }
  return Vec<uint8_t>(bytes.begin(), bytes.end());
}

Tensor ReadTensor(const tfl::Tensor* t) {
  using T = tfl::Tensor;
  Tensor out;
  out.shape = ReadScalars(t->shape());
  out.type = Field<int8_t>(t, T::VT_TYPE);
  out.buffer = Field<uint32_t>(t, T::VT_BUFFER);
  out.name = ReadString(t->name());
  if (const tfl::QuantizationParameters* q = t->quantization()) {
    Quantization quantization;
    quantization.scale = ReadScalars(q->scale());
    quantization.zero_point = ReadScalars(q->zero_point());
    quantization.quantized_dimension =
        Field<int32_t>(q, tfl::QuantizationParameters::VT_QUANTIZED_DIMENSION);
    out.quantization = std::move(quantization);
  }
  out.is_variable = BoolField(t, T::VT_IS_VARIABLE);
  return out;
}

Operator ReadOperator(const tfl::Operator* o, const std::vector<bool>& edgetpu_codes) {
  using O = tfl::Operator;
  Operator out;
  out.opcode_index = Field<uint32_t>(o, O::VT_OPCODE_INDEX);
  out.inputs = ReadScalars(o->inputs());
  out.outputs = ReadScalars(o->outputs());
  // An absent opcode_index is 0, as the interpreter reads it.
  const uint32_t code = o->opcode_index();
  const bool edgetpu = code < edgetpu_codes.size() && edgetpu_codes[code];
  if (const auto* options = o->custom_options())
    out.custom_options = ReadCustomOptions(BytesOf(options), edgetpu);
  out.custom_options_format = Field<int8_t>(o, O::VT_CUSTOM_OPTIONS_FORMAT);
  out.large_custom_options_offset = Field<uint64_t>(o, O::VT_LARGE_CUSTOM_OPTIONS_OFFSET);
  out.large_custom_options_size = Field<uint64_t>(o, O::VT_LARGE_CUSTOM_OPTIONS_SIZE);
  return out;
}

TfliteModel ReadModel(const tfl::Model* m) {
  TfliteModel out;
  out.version = Field<uint32_t>(m, tfl::Model::VT_VERSION);
  std::vector<bool> edgetpu_codes;
  out.operator_codes = ReadTables(m->operator_codes(), [&](const tfl::OperatorCode* c) {
    OperatorCode code;
    code.deprecated_builtin_code = Field<int8_t>(c, tfl::OperatorCode::VT_DEPRECATED_BUILTIN_CODE);
    code.custom_code = ReadString(c->custom_code());
    code.version = Field<int32_t>(c, tfl::OperatorCode::VT_VERSION);
    code.builtin_code = Field<int32_t>(c, tfl::OperatorCode::VT_BUILTIN_CODE);
    edgetpu_codes.push_back(code.custom_code == "edgetpu-custom-op");
    return code;
  });
  out.subgraphs = ReadTables(m->subgraphs(), [&](const tfl::SubGraph* g) {
    SubGraph graph;
    graph.tensors = ReadTables(g->tensors(), ReadTensor);
    graph.inputs = ReadScalars(g->inputs());
    graph.outputs = ReadScalars(g->outputs());
    graph.operators = ReadTables(
        g->operators(), [&](const tfl::Operator* o) { return ReadOperator(o, edgetpu_codes); });
    graph.name = ReadString(g->name());
    return graph;
  });
  out.description = ReadString(m->description());
  out.buffers =
      ReadTables(m->buffers(), [](const tfl::Buffer* b) { return Buffer{ReadScalars(b->data())}; });
  return out;
}

}  // namespace

std::optional<model::Package> ReadPackage(ByteView bytes, std::string* error) {
  // The accessors read scalars in place: verify and read an aligned copy.
  const InputBuffer copy = InputBuffer::Copy(bytes);
  flatbuffers::Verifier verifier(copy.data(), copy.size());
  if (!verifier.VerifyBuffer<pd::Package>(pd::PackageIdentifier())) {
    if (error) *error = "the bytes are not a DWN1 package that verifies";
    return std::nullopt;
  }
  return ReadPackageTable(flatbuffers::GetRoot<pd::Package>(copy.data()));
}

std::optional<model::TfliteModel> ReadTflite(ByteView bytes, std::string* error) {
  const InputBuffer copy = InputBuffer::Copy(bytes);
  flatbuffers::Verifier verifier(copy.data(), copy.size());
  if (!tfl::VerifyModelBuffer(verifier)) {
    if (error) *error = "the bytes are not a TFL3 model that verifies";
    return std::nullopt;
  }
  return ReadModel(tfl::GetModel(copy.data()));
}

std::optional<model::File> ReadFile(ByteView bytes, std::string* error) {
  if (HasBytesAt(bytes, 4, pd::PackageIdentifier())) {
    std::optional<Package> package = ReadPackage(bytes, error);
    if (!package) return std::nullopt;
    return model::File{std::move(*package)};
  }
  if (HasBytesAt(bytes, 4, tfl::ModelIdentifier())) {
    std::optional<TfliteModel> tflite = ReadTflite(bytes, error);
    if (!tflite) return std::nullopt;
    return model::File{std::move(*tflite)};
  }
  if (error)
    *error = "neither a TensorFlow Lite model nor a package: bytes 4..8 are not TFL3 or DWN1";
  return std::nullopt;
}

}  // namespace accelcheck::edgetpu
