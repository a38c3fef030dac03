#include "conformance/edgetpu/serialize.h"

#include <stdexcept>
#include <string>

#include "conformance/edgetpu/flex_map.h"
#include "validators/core/text.h"
#include "validators/edgetpu/schema/executable_generated.h"
#include "validators/edgetpu/schema/tflite_generated.h"

namespace accelcheck::edgetpu {

namespace {

namespace pd = ::platforms::darwinn;
namespace tfl = ::accelcheck::tflite;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;
using model::Opt;
using model::Vec;

// Every builder writes the fields the model has, even at their default
// value (ForceDefaults), and skips the ones it lacks: a scalar by not
// calling its add_ method, a table, vector or string by a zero offset.
struct Builder : FlatBufferBuilder {
  Builder() : FlatBufferBuilder(4096) { ForceDefaults(true); }
};

void CheckAlignment(uint32_t alignment, const char* what) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    throw std::invalid_argument(Str(what, " alignment ", alignment, " is not a power of two"));
}

Offset<flatbuffers::String> WriteString(FlatBufferBuilder& b, const Opt<std::string>& s) {
  return s ? b.CreateString(*s) : 0;
}

template <typename T>
Offset<flatbuffers::Vector<T>> WriteVector(FlatBufferBuilder& b, const Opt<Vec<T>>& v) {
  return v ? b.CreateVector(*v) : 0;
}

// A byte vector whose data starts `offset` bytes past a multiple of
// `alignment` from the end of the buffer (so from its start, the finished
// size being a multiple of the largest alignment used). An empty one too:
// ForceVectorAlignment skips those, while the compiler aligns even an empty
// parameters vector (docs/formats/edgetpu.md §5.2).
Offset<flatbuffers::Vector<uint8_t>> WriteAligned(FlatBufferBuilder& b, const Vec<uint8_t>& bytes,
                                                  uint32_t alignment, uint32_t offset = 0) {
  if (bytes.empty()) {
    b.Align(alignment);
  } else {
    b.ForceVectorAlignment(bytes.size() + offset, 1, alignment);
  }
  return b.CreateVector(bytes);
}

template <typename Table, typename Item, typename WriteItem>
Offset<flatbuffers::Vector<Offset<Table>>> WriteTables(FlatBufferBuilder& b,
                                                       const Opt<Vec<Item>>& items,
                                                       WriteItem write) {
  if (!items) return 0;
  std::vector<Offset<Table>> offsets;
  offsets.reserve(items->size());
  for (const Item& item : *items) offsets.push_back(write(b, item));
  return b.CreateVector(offsets);
}

Offset<pd::Meta> WriteMeta(FlatBufferBuilder& b, const model::Meta& m) {
  auto name = WriteString(b, m.name);
  pd::MetaBuilder t(b);
  t.add_name(name);
  if (m.batch) t.add_batch(*m.batch);
  if (m.position) t.add_position(static_cast<pd::Position>(*m.position));
  if (m.desc) t.add_desc(static_cast<pd::Description>(*m.desc));
  return t.Finish();
}

Offset<pd::Meta> WriteMeta(FlatBufferBuilder& b, const Opt<model::Meta>& m) {
  return m ? WriteMeta(b, *m) : 0;
}

Offset<pd::FieldOffset> WriteFieldOffset(FlatBufferBuilder& b, const model::FieldOffset& f) {
  auto meta = WriteMeta(b, f.meta);
  pd::FieldOffsetBuilder t(b);
  t.add_meta(meta);
  if (f.offset_bit) t.add_offset_bit(*f.offset_bit);
  return t.Finish();
}

Offset<pd::InstructionBitstream> WriteBitstream(FlatBufferBuilder& b,
                                                const model::InstructionBitstream& s) {
  auto bitstream = WriteVector(b, s.bitstream);
  auto field_offsets = WriteTables<pd::FieldOffset>(b, s.field_offsets, WriteFieldOffset);
  return pd::CreateInstructionBitstream(b, bitstream, field_offsets);
}

// The union payload of a hint; the tag is written separately, as given.
struct HintWriter {
  FlatBufferBuilder& b;
  Offset<void> operator()(const std::monostate&) const { return 0; }
  Offset<void> operator()(const model::DmaDescriptorHint& h) const {
    auto meta = WriteMeta(b, h.meta);
    pd::DmaDescriptorHintBuilder t(b);
    t.add_meta(meta);
    if (h.offset_in_bytes) t.add_offset_in_bytes(*h.offset_in_bytes);
    if (h.size_in_bytes) t.add_size_in_bytes(*h.size_in_bytes);
    return t.Finish().Union();
  }
  Offset<void> operator()(const model::InstructionHint& h) const {
    pd::InstructionHintBuilder t(b);
    if (h.instruction_chunk_index) t.add_instruction_chunk_index(*h.instruction_chunk_index);
    return t.Finish().Union();
  }
  Offset<void> operator()(const model::InterruptHint& h) const {
    pd::InterruptHintBuilder t(b);
    if (h.type) t.add_type(static_cast<pd::InterruptType>(*h.type));
    return t.Finish().Union();
  }
  Offset<void> operator()(const model::FenceHint&) const { return pd::CreateFenceHint(b).Union(); }
};

Offset<pd::DmaHint> WriteHint(FlatBufferBuilder& b, const model::DmaHint& h) {
  Offset<void> payload = std::visit(HintWriter{b}, h.hint);
  pd::DmaHintBuilder t(b);
  t.add_any_hint(payload);
  if (h.direction) t.add_direction(static_cast<pd::Direction>(*h.direction));
  if (h.type != model::kHintNone) t.add_any_hint_type(static_cast<pd::AnyHint>(h.type));
  return t.Finish();
}

Offset<pd::DmaHints> WriteHints(FlatBufferBuilder& b, const Opt<model::DmaHints>& h) {
  if (!h) return 0;
  auto hints = WriteTables<pd::DmaHint>(b, h->hints, WriteHint);
  pd::DmaHintsBuilder t(b);
  t.add_hints(hints);
  if (h->fully_deterministic) t.add_fully_deterministic(*h->fully_deterministic);
  return t.Finish();
}

Offset<pd::TensorShape> WriteShape(FlatBufferBuilder& b, const Opt<model::TensorShape>& s) {
  if (!s) return 0;
  Offset<flatbuffers::Vector<const pd::Range*>> dimension = 0;
  if (s->dimension) {
    std::vector<pd::Range> ranges;
    for (const model::Range& r : *s->dimension) ranges.emplace_back(r.start, r.end);
    dimension = b.CreateVectorOfStructs(ranges);
  }
  return pd::CreateTensorShape(b, dimension);
}

Offset<pd::OutputLayout> WriteLayout(FlatBufferBuilder& b, const Opt<model::OutputLayout>& l) {
  if (!l) return 0;
  return pd::CreateOutputLayout(b, WriteVector(b, l->y_coordinate_to_linear_tile_id_map),
                                WriteVector(b, l->x_coordinate_to_linear_tile_id_map),
                                WriteVector(b, l->linearized_tile_byte_offset),
                                WriteVector(b, l->x_coordinate_to_local_byte_offset),
                                WriteVector(b, l->y_coordinate_to_local_y_offset),
                                WriteVector(b, l->x_coordinate_to_local_y_row_size));
}

Offset<pd::TensorLayout> WriteTensorLayout(FlatBufferBuilder& b, const model::TensorLayout& l) {
  return pd::CreateTensorLayout(b, WriteShape(b, l.shape), WriteVector(b, l.stride));
}

Offset<pd::OutputShapeInfo> WriteShapeInfo(FlatBufferBuilder& b,
                                           const Opt<model::OutputShapeInfo>& s) {
  if (!s) return 0;
  auto slices = WriteTables<pd::TensorLayout>(b, s->slice_layout, WriteTensorLayout);
  return pd::CreateOutputShapeInfo(b, slices, WriteVector(b, s->slice_offset));
}

struct LayerWriter {
  FlatBufferBuilder& b;
  Offset<void> operator()(const std::monostate&) const { return 0; }
  Offset<void> operator()(const model::OutputLayer& l) const {
    auto layout = WriteLayout(b, l.layout);
    auto shape_info = WriteShapeInfo(b, l.shape_info);
    pd::OutputLayerBuilder t(b);
    t.add_layout(layout);
    t.add_shape_info(shape_info);
    if (l.data_type) t.add_data_type(static_cast<pd::DataType>(*l.data_type));
    return t.Finish().Union();
  }
  Offset<void> operator()(const model::InputLayer&) const {
    return pd::CreateInputLayer(b).Union();
  }
};

Offset<pd::Layer> WriteLayer(FlatBufferBuilder& b, const model::Layer& l) {
  auto name = WriteString(b, l.name);
  Offset<pd::NumericsConstants> numerics = 0;
  if (l.numerics) {
    pd::NumericsConstantsBuilder n(b);
    if (l.numerics->zero_point) n.add_zero_point(*l.numerics->zero_point);
    if (l.numerics->dequantization_factor)
      n.add_dequantization_factor(*l.numerics->dequantization_factor);
    numerics = n.Finish();
  }
  Offset<void> payload = std::visit(LayerWriter{b}, l.any_layer);
  auto shape = WriteShape(b, l.shape);
  pd::LayerBuilder t(b);
  t.add_name(name);
  if (l.size_bytes) t.add_size_bytes(*l.size_bytes);
  if (l.y_dim) t.add_y_dim(*l.y_dim);
  if (l.x_dim) t.add_x_dim(*l.x_dim);
  if (l.z_dim) t.add_z_dim(*l.z_dim);
  t.add_numerics(numerics);
  t.add_any_layer(payload);
  if (l.execution_count_per_inference)
    t.add_execution_count_per_inference(*l.execution_count_per_inference);
  t.add_shape(shape);
  if (l.data_type) t.add_data_type(static_cast<pd::DataType>(*l.data_type));
  if (l.any_layer_type != model::kLayerNone)
    t.add_any_layer_type(static_cast<pd::AnyLayer>(l.any_layer_type));
  if (l.cache_on_dram) t.add_cache_on_dram(*l.cache_on_dram);
  return t.Finish();
}

std::vector<uint8_t> Finished(const FlatBufferBuilder& b) {
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

template <typename T>
std::vector<uint8_t> NestedBytes(const model::Nested<T>& nested, const PackageLayout& layout,
                                 std::vector<uint8_t> (*write)(const T&, const PackageLayout&)) {
  if (const T* value = std::get_if<T>(&nested)) return write(*value, layout);
  return std::get<Vec<uint8_t>>(nested);
}

void CheckOffset(uint32_t offset, uint32_t alignment, const char* what) {
  if (offset % 4 != 0 || offset >= alignment)
    throw std::invalid_argument(Str("the ", what, " offset ", offset,
                                    " is not a multiple of 4 below its alignment ", alignment));
}

void CheckLayout(const PackageLayout& layout) {
  CheckAlignment(layout.multi_executable_alignment, "serialized_multi_executable");
  CheckAlignment(layout.executable_alignment, "executable");
  CheckAlignment(layout.parameters_alignment, "parameters");
  CheckOffset(layout.executable_offset, layout.executable_alignment, "executable");
  CheckOffset(layout.parameters_offset, layout.parameters_alignment, "parameters");
}

// --- TensorFlow Lite ---

Offset<tfl::Tensor> WriteTensor(FlatBufferBuilder& b, const model::Tensor& t) {
  auto shape = WriteVector(b, t.shape);
  auto name = WriteString(b, t.name);
  Offset<tfl::QuantizationParameters> quantization = 0;
  if (t.quantization) {
    auto scale = WriteVector(b, t.quantization->scale);
    auto zero_point = WriteVector(b, t.quantization->zero_point);
    tfl::QuantizationParametersBuilder q(b);
    q.add_scale(scale);
    q.add_zero_point(zero_point);
    if (t.quantization->quantized_dimension)
      q.add_quantized_dimension(*t.quantization->quantized_dimension);
    quantization = q.Finish();
  }
  tfl::TensorBuilder tb(b);
  tb.add_shape(shape);
  if (t.buffer) tb.add_buffer(*t.buffer);
  tb.add_name(name);
  tb.add_quantization(quantization);
  if (t.type) tb.add_type(*t.type);
  if (t.is_variable) tb.add_is_variable(*t.is_variable);
  return tb.Finish();
}

// The custom options of one operator, placed so that a package in them
// starts at options.package_offset_mod16. The builder writes a byte vector
// with its data 4-aligned; PreAlign(size + d, 16) puts the data at d
// modulo 16 of the finished file (d a multiple of 4), which with the
// package's offset in the map gives its file offset. The map's own layout
// decides the offset modulo 4: writing the package first in the map
// changes it when the natural order cannot reach the target.
Offset<flatbuffers::Vector<uint8_t>> WriteCustomOptions(FlatBufferBuilder& b,
                                                        const model::CustomOptions& options,
                                                        const SerializeOptions& settings) {
  if (const auto* raw = std::get_if<Vec<uint8_t>>(&options)) return b.CreateVector(*raw);
  const model::FlexMap& map = std::get<model::FlexMap>(options);
  auto write_package = [&](const model::Package& p) {
    return SerializePackage(p, settings.layout);
  };
  WrittenFlexMap flex = WriteFlexMap(map, write_package, false);
  if (settings.package_offset_mod16 && flex.package_at) {
    const uint64_t target = *settings.package_offset_mod16 % 16;
    auto data_at = [&] { return (target + 16 - *flex.package_at % 16) % 16; };
    if (data_at() % 4 != 0) flex = WriteFlexMap(map, write_package, true);
    if (data_at() % 4 != 0) {
      throw std::invalid_argument(Str("a package ", *flex.package_at, " bytes into its map cannot",
                                      " start at ", target, " modulo 16 in the file"));
    }
    b.PreAlign(flex.bytes.size() + data_at(), 16);
  }
  return b.CreateVector(flex.bytes);
}

Offset<tfl::Operator> WriteOperator(FlatBufferBuilder& b, const model::Operator& o,
                                    const SerializeOptions& settings) {
  auto inputs = WriteVector(b, o.inputs);
  auto outputs = WriteVector(b, o.outputs);
  Offset<flatbuffers::Vector<uint8_t>> custom_options = 0;
  if (o.custom_options) custom_options = WriteCustomOptions(b, *o.custom_options, settings);
  tfl::OperatorBuilder t(b);
  if (o.large_custom_options_offset)
    t.add_large_custom_options_offset(*o.large_custom_options_offset);
  if (o.large_custom_options_size) t.add_large_custom_options_size(*o.large_custom_options_size);
  if (o.opcode_index) t.add_opcode_index(*o.opcode_index);
  t.add_inputs(inputs);
  t.add_outputs(outputs);
  t.add_custom_options(custom_options);
  if (o.custom_options_format) t.add_custom_options_format(*o.custom_options_format);
  return t.Finish();
}

Offset<tfl::SubGraph> WriteSubGraph(FlatBufferBuilder& b, const model::SubGraph& g,
                                    const SerializeOptions& settings) {
  auto tensors = WriteTables<tfl::Tensor>(b, g.tensors, WriteTensor);
  auto inputs = WriteVector(b, g.inputs);
  auto outputs = WriteVector(b, g.outputs);
  auto operators = WriteTables<tfl::Operator>(
      b, g.operators, [&](FlatBufferBuilder& fbb, const model::Operator& o) {
        return WriteOperator(fbb, o, settings);
      });
  auto name = WriteString(b, g.name);
  return tfl::CreateSubGraph(b, tensors, inputs, outputs, operators, name);
}

Offset<tfl::OperatorCode> WriteOperatorCode(FlatBufferBuilder& b, const model::OperatorCode& c) {
  auto custom_code = WriteString(b, c.custom_code);
  tfl::OperatorCodeBuilder t(b);
  t.add_custom_code(custom_code);
  if (c.version) t.add_version(*c.version);
  if (c.builtin_code) t.add_builtin_code(*c.builtin_code);
  if (c.deprecated_builtin_code) t.add_deprecated_builtin_code(*c.deprecated_builtin_code);
  return t.Finish();
}

Offset<tfl::Buffer> WriteBuffer(FlatBufferBuilder& b, const model::Buffer& buffer) {
  Offset<flatbuffers::Vector<uint8_t>> data = 0;
  if (buffer.data) {
    b.ForceVectorAlignment(buffer.data->size(), 1, 16);  // Buffer.data is (force_align: 16)
    data = b.CreateVector(*buffer.data);
  }
  tfl::BufferBuilder t(b);
  t.add_data(data);
  return t.Finish();
}

}  // namespace

std::vector<uint8_t> SerializeExecutable(const model::Executable& e, const PackageLayout& layout) {
  CheckLayout(layout);
  Builder b;
  // Bulk first: the builder writes back to front, so these land at the end,
  // after the parameters, and the root table stays in the first page, as in
  // real executables.
  auto bitstreams =
      WriteTables<pd::InstructionBitstream>(b, e.instruction_bitstreams, WriteBitstream);
  auto hints = WriteHints(b, e.dma_hints);
  auto inputs = WriteTables<pd::Layer>(b, e.input_layers, WriteLayer);
  auto outputs = WriteTables<pd::Layer>(b, e.output_layers, WriteLayer);
  // The schema asks the producer to align parameters (EDG-54); the
  // compiler uses 4096.
  Offset<flatbuffers::Vector<uint8_t>> parameters = 0;
  if (e.parameters) {
    parameters =
        WriteAligned(b, *e.parameters, layout.parameters_alignment, layout.parameters_offset);
  }
  auto serialized_model = WriteVector(b, e.serialized_model);
  auto name = WriteString(b, e.name);
  auto chip = WriteString(b, e.chip);
  pd::ExecutableBuilder t(b);
  if (e.parameter_caching_token) t.add_parameter_caching_token(*e.parameter_caching_token);
  if (e.estimated_cycles_64bit) t.add_estimated_cycles_64bit(*e.estimated_cycles_64bit);
  if (e.version) t.add_version(*e.version);
  t.add_name(name);
  t.add_serialized_model(serialized_model);
  if (e.batch_size) t.add_batch_size(*e.batch_size);
  if (e.scratch_size_bytes) t.add_scratch_size_bytes(*e.scratch_size_bytes);
  t.add_instruction_bitstreams(bitstreams);
  t.add_parameters(parameters);
  t.add_dma_hints(hints);
  t.add_input_layers(inputs);
  t.add_output_layers(outputs);
  t.add_chip(chip);
  if (e.estimated_cycles) t.add_estimated_cycles(*e.estimated_cycles);
  if (e.used_narrow_memory_bytes_per_tile)
    t.add_used_narrow_memory_bytes_per_tile(*e.used_narrow_memory_bytes_per_tile);
  if (e.type) t.add_type(static_cast<pd::ExecutableType>(*e.type));
  if (e.use_tpu_dram_for_parameters)
    t.add_use_tpu_dram_for_parameters(*e.use_tpu_dram_for_parameters);
  b.Finish(t.Finish());
  return Finished(b);
}

std::vector<uint8_t> SerializeMultiExecutable(const model::MultiExecutable& multi,
                                              const PackageLayout& layout) {
  CheckLayout(layout);
  Builder b;
  Offset<flatbuffers::Vector<Offset<flatbuffers::String>>> executables = 0;
  if (multi.executables) {
    const size_t n = multi.executables->size();
    std::vector<Offset<flatbuffers::String>> strings(n);
    // The first string written lands last in memory.
    for (size_t k = 0; k < n; ++k) {
      const size_t i = layout.last_executable_first ? k : n - 1 - k;
      std::vector<uint8_t> bytes =
          NestedBytes((*multi.executables)[i], layout, &SerializeExecutable);
      bytes.resize(bytes.size() + layout.executable_tail, 0);
      // Pad so that the string's data, followed by its NUL, ends where the
      // alignment needs it to start: the executable starts aligned.
      b.PreAlign(bytes.size() + 1 + layout.executable_offset, layout.executable_alignment);
      strings[i] = b.CreateString(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    executables = b.CreateVector(strings);
  }
  b.Finish(pd::CreateMultiExecutable(b, executables));
  return Finished(b);
}

std::vector<uint8_t> SerializePackage(const model::Package& p, const PackageLayout& layout) {
  CheckLayout(layout);
  Builder b;
  Offset<flatbuffers::Vector<uint8_t>> multi = 0;
  if (p.multi_executable) {
    multi = WriteAligned(b, NestedBytes(*p.multi_executable, layout, &SerializeMultiExecutable),
                         layout.multi_executable_alignment);
  }
  auto multi_chip = WriteTables<pd::SerializedPackage>(
      b, p.multi_chip_package, [](FlatBufferBuilder& fbb, const model::SerializedPackage& s) {
        Offset<flatbuffers::Vector<uint8_t>> bytes = 0;
        if (s.serialized_package) {
          fbb.ForceVectorAlignment(s.serialized_package->size(), 1, 16);
          bytes = fbb.CreateVector(*s.serialized_package);
        }
        return pd::CreateSerializedPackage(fbb, bytes);
      });
  auto model_identifier = WriteString(b, p.model_identifier);
  auto compiler_version = WriteString(b, p.compiler_version);
  auto signature = WriteVector(b, p.signature);
  pd::PackageBuilder t(b);
  t.add_model_identifier(model_identifier);
  t.add_multi_chip_package(multi_chip);
  if (p.virtual_chip_id) t.add_virtual_chip_id(*p.virtual_chip_id);
  t.add_compiler_version(compiler_version);
  if (p.keypair_version) t.add_keypair_version(*p.keypair_version);
  t.add_signature(signature);
  t.add_serialized_multi_executable(multi);
  if (p.min_runtime_version) t.add_min_runtime_version(*p.min_runtime_version);
  b.Finish(t.Finish(), pd::PackageIdentifier());
  std::vector<uint8_t> bytes = Finished(b);
  bytes.resize(bytes.size() + layout.package_tail, 0);
  return bytes;
}

std::vector<uint8_t> SerializeFlexMap(const model::FlexMap& map, const PackageLayout& layout) {
  return WriteFlexMap(
             map, [&](const model::Package& p) { return SerializePackage(p, layout); }, false)
      .bytes;
}

std::vector<uint8_t> Serialize(const model::TfliteModel& m, const SerializeOptions& options) {
  CheckLayout(options.layout);
  Builder b;
  auto operator_codes = WriteTables<tfl::OperatorCode>(b, m.operator_codes, WriteOperatorCode);
  auto subgraphs = WriteTables<tfl::SubGraph>(
      b, m.subgraphs, [&](FlatBufferBuilder& fbb, const model::SubGraph& g) {
        return WriteSubGraph(fbb, g, options);
      });
  auto description = WriteString(b, m.description);
  auto buffers = WriteTables<tfl::Buffer>(b, m.buffers, WriteBuffer);
  tfl::ModelBuilder t(b);
  if (m.version) t.add_version(*m.version);
  t.add_operator_codes(operator_codes);
  t.add_subgraphs(subgraphs);
  t.add_description(description);
  t.add_buffers(buffers);
  b.Finish(t.Finish(), tfl::ModelIdentifier());
  return Finished(b);
}

std::vector<uint8_t> Serialize(const model::File& file, const SerializeOptions& options) {
  if (const auto* tflite = std::get_if<model::TfliteModel>(&file))
    return Serialize(*tflite, options);
  return SerializePackage(std::get<model::Package>(file), options.layout);
}

}  // namespace accelcheck::edgetpu
