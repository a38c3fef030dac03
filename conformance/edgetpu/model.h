// An in-memory Edge TPU model that can express every file the validator
// reads, valid or not: the TensorFlow Lite model, the FlexBuffer map of each
// Edge TPU operator's custom options, and the DWN1 package with its
// executables (docs/formats/edgetpu.md §1, §2). Every field of a table is
// optional, so that "absent" differs from "written with its default value"
// (real executables leave `type` out for STAND_ALONE but write
// keypair_version = 0 in the package); enums and union tags are raw integers,
// so that a mutation can write values the schema does not name. The builder,
// the reader, the bases and the mutations all start here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace accelcheck::edgetpu::model {

template <typename T>
using Opt = std::optional<T>;
template <typename T>
using Vec = std::vector<T>;

// A nested flatbuffer (the multi-executable, an executable): its model, or
// its bytes as they are, for one that does not decode (or is not meant to).
template <typename T>
using Nested = std::variant<T, Vec<uint8_t>>;

// Enum values of the package schema (docs/formats/edgetpu.md §1.3 to §1.5).
enum : int16_t { kOutputActivation = 0, kInputActivation = 1, kParameter = 2, kScratch = 3 };
enum : int16_t { kLower32 = 0, kUpper32 = 1 };
enum : int16_t { kInfeed = 0, kOutfeed = 1 };
enum : int16_t { kStandAlone = 0, kParameterCaching = 1, kExecutionOnly = 2 };
enum : int16_t {
  kFixedPoint8 = 0,
  kFixedPoint16 = 1,
  kSignedFixedPoint32 = 2,
  kBfloat = 3,
  kHalf = 4,
  kSingle = 5,
  kSignedFixedPoint8 = 8,
  kSignedFixedPoint16 = 9
};
// AnyHint and AnyLayer union tags (0 is NONE).
enum : uint8_t {
  kHintNone = 0,
  kHintDma = 1,
  kHintInstruction = 2,
  kHintInterrupt = 3,
  kHintFence = 4
};
enum : uint8_t { kLayerNone = 0, kLayerOutput = 1, kLayerInput = 2 };

struct Meta {
  Opt<int16_t> desc;  // Description
  Opt<int32_t> batch;
  Opt<std::string> name;
  Opt<int16_t> position;  // Position
  bool operator==(const Meta&) const = default;
};

struct FieldOffset {
  Opt<Meta> meta;
  Opt<int32_t> offset_bit;
  bool operator==(const FieldOffset&) const = default;
};

struct InstructionBitstream {
  Opt<Vec<uint8_t>> bitstream;
  Opt<Vec<FieldOffset>> field_offsets;
  bool operator==(const InstructionBitstream&) const = default;
};

struct DmaDescriptorHint {
  Opt<Meta> meta;
  Opt<int32_t> offset_in_bytes;
  Opt<int32_t> size_in_bytes;
  bool operator==(const DmaDescriptorHint&) const = default;
};
struct InstructionHint {
  Opt<int32_t> instruction_chunk_index;
  bool operator==(const InstructionHint&) const = default;
};
struct InterruptHint {
  Opt<int16_t> type;  // InterruptType
  bool operator==(const InterruptHint&) const = default;
};
struct FenceHint {
  bool operator==(const FenceHint&) const = default;
};

// The alternative index equals the AnyHint tag; monostate means no value.
using HintPayload =
    std::variant<std::monostate, DmaDescriptorHint, InstructionHint, InterruptHint, FenceHint>;

struct DmaHint {
  uint8_t type = kHintNone;  // written as is (when not 0), so it may disagree with `hint`
  HintPayload hint;
  Opt<int16_t> direction;  // Direction

  template <typename T>
  static DmaHint Of(T payload, Opt<int16_t> direction) {
    DmaHint h;
    h.hint = std::move(payload);
    h.type = static_cast<uint8_t>(h.hint.index());
    h.direction = direction;
    return h;
  }
  bool operator==(const DmaHint&) const = default;
};

struct DmaHints {
  Opt<Vec<DmaHint>> hints;
  Opt<bool> fully_deterministic;
  bool operator==(const DmaHints&) const = default;
};

struct OutputLayout {
  Opt<Vec<int32_t>> y_coordinate_to_linear_tile_id_map;
  Opt<Vec<int32_t>> x_coordinate_to_linear_tile_id_map;
  Opt<Vec<int32_t>> linearized_tile_byte_offset;
  Opt<Vec<int32_t>> x_coordinate_to_local_byte_offset;
  Opt<Vec<int32_t>> y_coordinate_to_local_y_offset;
  Opt<Vec<int32_t>> x_coordinate_to_local_y_row_size;
  bool operator==(const OutputLayout&) const = default;
};

struct Range {
  int32_t start = 0;
  int32_t end = 0;  // inclusive
  bool operator==(const Range&) const = default;
};

struct TensorShape {
  Opt<Vec<Range>> dimension;
  bool operator==(const TensorShape&) const = default;
};

struct TensorLayout {
  Opt<TensorShape> shape;
  Opt<Vec<int32_t>> stride;
  bool operator==(const TensorLayout&) const = default;
};

struct OutputShapeInfo {
  Opt<Vec<TensorLayout>> slice_layout;
  Opt<Vec<int32_t>> slice_offset;
  bool operator==(const OutputShapeInfo&) const = default;
};

struct NumericsConstants {
  Opt<int32_t> zero_point;
  Opt<float> dequantization_factor;
  bool operator==(const NumericsConstants&) const = default;
};

struct OutputLayer {
  Opt<OutputLayout> layout;
  Opt<int16_t> data_type;  // deprecated in favour of Layer.data_type
  Opt<OutputShapeInfo> shape_info;
  bool operator==(const OutputLayer&) const = default;
};
struct InputLayer {
  bool operator==(const InputLayer&) const = default;
};

// The alternative index equals the AnyLayer tag.
using LayerPayload = std::variant<std::monostate, OutputLayer, InputLayer>;

struct Layer {
  Opt<std::string> name;
  Opt<int32_t> size_bytes;
  Opt<int32_t> y_dim;
  Opt<int32_t> x_dim;
  Opt<int32_t> z_dim;
  Opt<NumericsConstants> numerics;
  Opt<int16_t> data_type;               // DataType
  uint8_t any_layer_type = kLayerNone;  // written as is (when not 0)
  LayerPayload any_layer;
  Opt<int32_t> execution_count_per_inference;
  Opt<bool> cache_on_dram;
  Opt<TensorShape> shape;
  bool operator==(const Layer&) const = default;
};

struct Executable {
  Opt<int32_t> version;
  Opt<std::string> name;
  Opt<Vec<uint8_t>> serialized_model;
  Opt<int32_t> batch_size;
  Opt<int32_t> scratch_size_bytes;
  Opt<Vec<InstructionBitstream>> instruction_bitstreams;
  Opt<Vec<uint8_t>> parameters;
  Opt<DmaHints> dma_hints;
  Opt<Vec<Layer>> input_layers;
  Opt<Vec<Layer>> output_layers;
  Opt<std::string> chip;
  Opt<int32_t> estimated_cycles;
  Opt<int32_t> used_narrow_memory_bytes_per_tile;
  Opt<int16_t> type;  // ExecutableType; absent means STAND_ALONE
  Opt<uint64_t> parameter_caching_token;
  Opt<bool> use_tpu_dram_for_parameters;
  Opt<int64_t> estimated_cycles_64bit;
  bool operator==(const Executable&) const = default;
};

struct MultiExecutable {
  Opt<Vec<Nested<Executable>>> executables;  // serialized_executables
  bool operator==(const MultiExecutable&) const = default;
};

struct SerializedPackage {
  Opt<Vec<uint8_t>> serialized_package;  // a nested Package, as bytes
  bool operator==(const SerializedPackage&) const = default;
};

struct Package {
  Opt<int32_t> min_runtime_version;
  Opt<Nested<MultiExecutable>> multi_executable;  // serialized_multi_executable
  Opt<Vec<uint8_t>> signature;
  Opt<int32_t> keypair_version;
  Opt<std::string> compiler_version;
  Opt<int32_t> virtual_chip_id;
  Opt<Vec<SerializedPackage>> multi_chip_package;
  Opt<std::string> model_identifier;
  bool operator==(const Package&) const = default;
};

// The custom options of an Edge TPU operator: a FlexBuffer map whose entries
// are kept in the order of the map's key vector (sorted by key in a valid
// file, docs/formats/edgetpu.md §2.3, EDG-91), so that a mutation can unsort them,
// repeat a key or drop one.
struct FlexInt {
  int64_t value = 0;
  bool operator==(const FlexInt&) const = default;
};
struct FlexString {
  Vec<uint8_t> bytes;
  bool operator==(const FlexString&) const = default;
};
struct FlexBlob {
  Vec<uint8_t> bytes;
  bool operator==(const FlexBlob&) const = default;
};
// An untyped vector whose elements are ints or strings ("6" holds ints,
// "7" strings).
using FlexElement = std::variant<int64_t, std::string>;
struct FlexVector {
  Vec<FlexElement> items;
  bool operator==(const FlexVector&) const = default;
};
// The package, serialized in place as a STRING (the runtime reads "4" with
// AsString) or a BLOB.
struct FlexPackage {
  Package package;
  bool blob = false;
  bool operator==(const FlexPackage&) const = default;
};
using FlexValue = std::variant<FlexInt, FlexString, FlexBlob, FlexVector, FlexPackage>;

struct FlexEntry {
  std::string key;
  FlexValue value;
  bool operator==(const FlexEntry&) const = default;
};

struct FlexMap {
  Vec<FlexEntry> entries;
  bool operator==(const FlexMap&) const = default;
};

// Operator.custom_options: a FlexBuffer map (an Edge TPU operator's), or
// bytes as they are (another custom operator's, or a map that does not read).
using CustomOptions = std::variant<Vec<uint8_t>, FlexMap>;

// TensorFlow Lite, as far as docs/formats/edgetpu.md §2.1 reads it. TensorType
// values used by the bases.
enum : int8_t { kFloat32 = 0, kFloat16 = 1, kInt32 = 2, kUint8 = 3, kInt16 = 7, kInt8 = 9 };
// BuiltinOperator CUSTOM, and DEQUANTIZE for a CPU operator beside the Edge TPU one.
inline constexpr int32_t kBuiltinCustom = 32;
inline constexpr int32_t kBuiltinDequantize = 6;

struct Quantization {
  Opt<Vec<float>> scale;
  Opt<Vec<int64_t>> zero_point;
  Opt<int32_t> quantized_dimension;
  bool operator==(const Quantization&) const = default;
};

struct Tensor {
  Opt<Vec<int32_t>> shape;
  Opt<int8_t> type;  // TensorType
  Opt<uint32_t> buffer;
  Opt<std::string> name;
  Opt<Quantization> quantization;
  Opt<bool> is_variable;
  bool operator==(const Tensor&) const = default;
};

struct Operator {
  Opt<uint32_t> opcode_index;  // absent reads as 0
  Opt<Vec<int32_t>> inputs;
  Opt<Vec<int32_t>> outputs;
  Opt<CustomOptions> custom_options;
  Opt<int8_t> custom_options_format;
  Opt<uint64_t> large_custom_options_offset;
  Opt<uint64_t> large_custom_options_size;
  bool operator==(const Operator&) const = default;
};

struct SubGraph {
  Opt<Vec<Tensor>> tensors;
  Opt<Vec<int32_t>> inputs;
  Opt<Vec<int32_t>> outputs;
  Opt<Vec<Operator>> operators;
  Opt<std::string> name;
  bool operator==(const SubGraph&) const = default;
};

struct OperatorCode {
  Opt<int8_t> deprecated_builtin_code;
  Opt<std::string> custom_code;
  Opt<int32_t> version;
  Opt<int32_t> builtin_code;
  bool operator==(const OperatorCode&) const = default;
};

struct Buffer {
  Opt<Vec<uint8_t>> data;
  bool operator==(const Buffer&) const = default;
};

struct TfliteModel {
  Opt<uint32_t> version;
  Opt<Vec<OperatorCode>> operator_codes;
  Opt<Vec<SubGraph>> subgraphs;
  Opt<std::string> description;
  Opt<Vec<Buffer>> buffers;
  bool operator==(const TfliteModel&) const = default;
};

// A whole input: a .tflite model, or a bare DWN1 package file.
using File = std::variant<TfliteModel, Package>;

}  // namespace accelcheck::edgetpu::model
