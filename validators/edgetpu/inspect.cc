// The JSON view of an Edge TPU model: each Edge TPU operator, its custom
// options' keys, the package and every executable with its layers, hints
// and field offsets, each with its file offset. Payloads (bitstreams,
// parameters, serialized models) are summarised by offset and length, never
// dumped. Only what verified is walked.
#include "validators/edgetpu/inspect.h"

#include "validators/core/flexbuffer.h"
#include "validators/core/inspect_json.h"
#include "validators/edgetpu/custom_options.h"
#include "validators/edgetpu/package.h"

namespace accelcheck::edgetpu {

namespace {

using inspect::PutEnum;
using inspect::PutUnionType;
using nlohmann::json;

json Text(const flatbuffers::String* s) { return s == nullptr ? json(nullptr) : json(s->str()); }

// Where `object` of a nested buffer is in the file.
json At(const FlatbufferRegion& region, const void* object) {
  return json{{"@offset", region.file_offset + region.OffsetOf(object)}};
}

// A payload: where its bytes are, and how many.
template <typename T>
json Payload(const FlatbufferRegion& region, const flatbuffers::Vector<T>* vector) {
  if (vector == nullptr) return nullptr;
  json out = json::object();
  out["@offset"] = region.file_offset + region.OffsetOf(vector->Data());
  out["length"] = vector->size() * sizeof(T);
  return out;
}

template <typename T>
json List(const flatbuffers::Vector<T>* vector) {
  if (vector == nullptr) return nullptr;
  json out = json::array();
  for (const auto item : *vector) out.push_back(item);
  return out;
}

json Meta(const FlatbufferRegion& region, const dwn::Meta* meta) {
  if (meta == nullptr) return nullptr;
  json out = At(region, meta);
  PutEnum(out, "desc", meta->desc(), dwn::EnumNameDescription);
  out["batch"] = meta->batch();
  out["name"] = Text(meta->name());
  PutEnum(out, "position", meta->position(), dwn::EnumNamePosition);
  return out;
}

json Bitstreams(const FlatbufferRegion& region, const dwn::Executable& exe) {
  const auto* chunks = exe.instruction_bitstreams();
  if (chunks == nullptr) return nullptr;
  json out = json::array();
  for (const dwn::InstructionBitstream* chunk : *chunks) {
    json item = At(region, chunk);
    item["bitstream"] = Payload(region, chunk->bitstream());
    json fields = json::array();
    for (uint32_t i = 0; chunk->field_offsets() != nullptr && i < chunk->field_offsets()->size();
         ++i) {
      const dwn::FieldOffset* field = chunk->field_offsets()->Get(i);
      json f = At(region, field);
      f["offset_bit"] = field->offset_bit();
      f["meta"] = Meta(region, field->meta());
      fields.push_back(std::move(f));
    }
    item["field_offsets"] = std::move(fields);
    out.push_back(std::move(item));
  }
  return out;
}

json Hint(const FlatbufferRegion& region, const dwn::DmaHint& hint) {
  json out = At(region, &hint);
  PutUnionType(out, hint.any_hint_type(), dwn::EnumNameAnyHint);
  PutEnum(out, "direction", hint.direction(), dwn::EnumNameDirection);
  if (const auto* d = hint.any_hint_as_DmaDescriptorHint()) {
    out["meta"] = Meta(region, d->meta());
    out["offset_in_bytes"] = d->offset_in_bytes();
    out["size_in_bytes"] = d->size_in_bytes();
  } else if (const auto* i = hint.any_hint_as_InstructionHint()) {
    out["instruction_chunk_index"] = i->instruction_chunk_index();
  } else if (const auto* interrupt = hint.any_hint_as_InterruptHint()) {
    PutEnum(out, "interrupt", interrupt->type(), dwn::EnumNameInterruptType);
  }
  return out;
}

json Hints(const FlatbufferRegion& region, const dwn::DmaHints* hints) {
  if (hints == nullptr) return nullptr;
  json out = At(region, hints);
  out["fully_deterministic"] = hints->fully_deterministic();
  json list = json::array();
  for (uint32_t i = 0; hints->hints() != nullptr && i < hints->hints()->size(); ++i)
    list.push_back(Hint(region, *hints->hints()->Get(i)));
  out["hints"] = std::move(list);
  return out;
}

json Layout(const FlatbufferRegion& region, const dwn::OutputLayout* layout) {
  if (layout == nullptr) return nullptr;
  // The maps have a few entries per row and column: their lengths say what
  // validate checks, the values are for the executor.
  json out = At(region, layout);
  out["y_coordinate_to_linear_tile_id_map"] = List(layout->y_coordinate_to_linear_tile_id_map());
  out["x_coordinate_to_linear_tile_id_map"] = List(layout->x_coordinate_to_linear_tile_id_map());
  out["linearized_tile_byte_offset"] = List(layout->linearized_tile_byte_offset());
  out["x_coordinate_to_local_byte_offset"] = List(layout->x_coordinate_to_local_byte_offset());
  out["y_coordinate_to_local_y_offset"] = List(layout->y_coordinate_to_local_y_offset());
  out["x_coordinate_to_local_y_row_size"] = List(layout->x_coordinate_to_local_y_row_size());
  return out;
}

json Layer(const FlatbufferRegion& region, const dwn::Layer& layer) {
  json out = At(region, &layer);
  out["name"] = Text(layer.name());
  out["size_bytes"] = layer.size_bytes();
  out["y_dim"] = layer.y_dim();
  out["x_dim"] = layer.x_dim();
  out["z_dim"] = layer.z_dim();
  if (const auto* n = layer.numerics()) {
    out["numerics"] = {{"zero_point", n->zero_point()},
                       {"dequantization_factor", n->dequantization_factor()}};
  }
  PutEnum(out, "data_type", layer.data_type(), dwn::EnumNameDataType);
  json kind;
  PutUnionType(kind, layer.any_layer_type(), dwn::EnumNameAnyLayer);
  if (const auto* output = layer.any_layer_as_OutputLayer()) {
    kind["layout"] = Layout(region, output->layout());
    kind["shape_info"] =
        output->shape_info() == nullptr ? json(nullptr) : At(region, output->shape_info());
  }
  out["any_layer"] = std::move(kind);
  out["execution_count_per_inference"] = layer.execution_count_per_inference();
  out["cache_on_dram"] = layer.cache_on_dram();
  if (const auto* shape = layer.shape(); shape != nullptr && shape->dimension() != nullptr) {
    json dims = json::array();
    for (const dwn::Range* r : *shape->dimension()) dims.push_back({r->start(), r->end()});
    out["shape"] = std::move(dims);
  }
  return out;
}

json Layers(const FlatbufferRegion& region,
            const flatbuffers::Vector<flatbuffers::Offset<dwn::Layer>>* layers) {
  if (layers == nullptr) return nullptr;
  json out = json::array();
  for (const dwn::Layer* layer : *layers) out.push_back(Layer(region, *layer));
  return out;
}

json Executable(const ExecutableView& view) {
  const FlatbufferRegion& region = view.buffer.region;
  const dwn::Executable& exe = *view.executable;
  json out = {{"index", view.index},
              {"@offset", region.file_offset},
              {"length", region.bytes.size()},
              {"version", exe.version()},
              {"name", Text(exe.name())}};
  PutEnum(out, "type", exe.type(), dwn::EnumNameExecutableType);
  out["batch_size"] = exe.batch_size();
  out["scratch_size_bytes"] = exe.scratch_size_bytes();
  out["chip"] = Text(exe.chip());
  out["parameter_caching_token"] = exe.parameter_caching_token();
  out["use_tpu_dram_for_parameters"] = exe.use_tpu_dram_for_parameters();
  out["estimated_cycles"] = exe.estimated_cycles();
  out["estimated_cycles_64bit"] = exe.estimated_cycles_64bit();
  out["used_narrow_memory_bytes_per_tile"] = exe.used_narrow_memory_bytes_per_tile();
  out["serialized_model"] = Payload(region, exe.serialized_model());
  out["parameters"] = Payload(region, exe.parameters());
  out["instruction_bitstreams"] = Bitstreams(region, exe);
  out["dma_hints"] = Hints(region, exe.dma_hints());
  out["input_layers"] = Layers(region, exe.input_layers());
  out["output_layers"] = Layers(region, exe.output_layers());
  return out;
}

json Package(const PackageView& view) {
  const dwn::Package& p = *view.package;
  json out = {
      {"@offset", view.buffer.region.file_offset},
      {"length", view.buffer.region.bytes.size()},
      {"min_runtime_version", p.min_runtime_version()},
      {"compiler_version", Text(p.compiler_version())},
      {"virtual_chip_id", p.virtual_chip_id()},
      {"model_identifier", Text(p.model_identifier())},
      {"keypair_version", p.keypair_version()},
      {"signature", Payload(view.buffer.region, p.signature())},
      {"serialized_multi_executable", Payload(view.buffer.region, p.serialized_multi_executable())},
      {"executable_count", view.executable_count}};
  out["executables"] = json::array();
  for (const ExecutableView& exe : view.executables) out["executables"].push_back(Executable(exe));
  return out;
}

// The map's keys as the file holds them, each with its value's type.
json Keys(const EdgetpuOp& op) {
  flex::Problem why;
  const auto root = flex::Root(op.custom_options, &why);
  const auto map = root ? root->AsMap(&why) : std::nullopt;
  if (!map) return nullptr;
  json keys = json::array();
  for (uint64_t i = 0; i < map->size(); ++i) {
    keys.push_back(
        {{"key", std::string(map->key(i))}, {"type", flex::TypeName(map->value(i).type())}});
  }
  return keys;
}

}  // namespace

nlohmann::json InspectModel(ByteView file, const ValidateContext& context, DiagnosticSink& sink) {
  if (!VerifyModel(file, context.limits, sink)) return nullptr;
  const tfl::Model& model = *tfl::GetModel(file.data());
  json out = {{"format", "edgetpu"}, {"tflite_version", model.version()}};
  out["edgetpu_ops"] = json::array();
  for (const EdgetpuOp& op : FindEdgetpuOps(file, model, sink)) {
    json item = {{"path", op.path}, {"subgraph", op.subgraph}, {"operator", op.index}};
    if (!op.custom_options.empty()) {
      item["custom_options"] = {
          {"@offset", op.options_offset}, {"length", op.custom_options.size()}, {"keys", Keys(op)}};
    }
    if (const auto bytes = ReadCustomOptions(op, sink)) {
      const auto view = DecodePackage(bytes->bytes, bytes->file_offset, bytes->path, context, sink);
      item["package"] = view ? Package(*view) : json(nullptr);
    }
    out["edgetpu_ops"].push_back(std::move(item));
  }
  return out;
}

nlohmann::json InspectPackage(ByteView package, const ValidateContext& context,
                              DiagnosticSink& sink) {
  const auto view = DecodePackage(package, 0, "", context, sink);
  if (!view) return nullptr;
  return json{{"format", "edgetpu"}, {"package", Package(*view)}};
}

}  // namespace accelcheck::edgetpu
