// A: the Edge TPU operator's tensors against the main executable's layers
// (EDG-11 to EDG-16, docs/formats/edgetpu.md §2.7): counts, types and byte
// sizes as the custom op checks them when the interpreter prepares the node,
// then the names and quantization every compiler writes.
#include <algorithm>
#include <optional>

#include "validators/core/text.h"
#include "validators/edgetpu/layout.h"
#include "validators/edgetpu/rules.h"
#include "validators/edgetpu/validate.h"

namespace accelcheck::edgetpu {

namespace {

using Type = dwn::ExecutableType;

// An output layer the runtime copies back into an input, not a node output
// (EDG-15); the runtime matches the suffix alone.
constexpr std::string_view kVariableSuffix = "_variable_output";

// TFLite TensorType values (schema.fbs) the custom op knows.
constexpr int8_t kFloat32 = 0;
constexpr int8_t kFloat16 = 1;
constexpr int8_t kInt32 = 2;
constexpr int8_t kUint8 = 3;
constexpr int8_t kInt16 = 7;
constexpr int8_t kInt8 = 9;

std::string TfliteTypeText(int8_t type) {
  switch (type) {
    case kFloat32:
      return "FLOAT32";
    case kFloat16:
      return "FLOAT16";
    case kInt32:
      return "INT32";
    case kUint8:
      return "UINT8";
    case kInt16:
      return "INT16";
    case kInt8:
      return "INT8";
  }
  return Str("type ", int{type});
}

std::string DataTypeText(dwn::DataType type) {
  const char* name = dwn::EnumNameDataType(type);
  return *name != '\0' ? std::string(name) : Str("data_type ", static_cast<int>(type));
}

// The TFLite type §1.5 pairs with a DataType; nothing for BFLOAT, which the
// custom op refuses (EDG-12).
std::optional<int8_t> RequiredType(dwn::DataType type) {
  switch (type) {
    case dwn::DataType::FIXED_POINT8:
      return kUint8;
    case dwn::DataType::FIXED_POINT16:
    case dwn::DataType::SIGNED_FIXED_POINT16:
      return kInt16;
    case dwn::DataType::SIGNED_FIXED_POINT32:
      return kInt32;
    case dwn::DataType::HALF:
      return kFloat16;
    case dwn::DataType::SINGLE:
      return kFloat32;
    case dwn::DataType::SIGNED_FIXED_POINT8:
      return kInt8;
    case dwn::DataType::BFLOAT:
      break;
  }
  return std::nullopt;
}

// The element size the custom op multiplies by: the tensor's type's, not
// the layer's (they differ for the classifier outputs of §6.4).
int64_t TfliteTypeSize(int8_t type) {
  switch (type) {
    case kInt16:
    case kFloat16:
      return 2;
    case kInt32:
    case kFloat32:
      return 4;
    default:
      return 1;
  }
}

// The executable the runtime runs (EDG-31): the only one, the
// EXECUTION_ONLY of a pair or the STAND_ALONE of three; nothing when the
// set is not one the registry takes (EDG-29, EDG-30 report that).
const ExecutableView* MainExecutable(const PackageView& view) {
  if (view.executables.size() != view.executable_count) return nullptr;
  const auto find = [&](Type type) -> const ExecutableView* {
    for (const ExecutableView& exe : view.executables) {
      if (exe.executable->type() == type) return &exe;
    }
    return nullptr;
  };
  switch (view.executables.size()) {
    case 1:
      return &view.executables[0];
    case 2:
      return find(Type::PARAMETER_CACHING) != nullptr ? find(Type::EXECUTION_ONLY) : nullptr;
    case 3:
      return find(Type::PARAMETER_CACHING) != nullptr && find(Type::EXECUTION_ONLY) != nullptr
                 ? find(Type::STAND_ALONE)
                 : nullptr;
    default:
      return nullptr;
  }
}

bool IsVariableOutput(const dwn::Layer& layer) {
  return layer.name() != nullptr && layer.name()->string_view().ends_with(kVariableSuffix);
}

struct Io {
  const FlatbufferRegion& file;
  const EdgetpuOp& op;
  const ExecutableView& exe;
  DiagnosticSink& sink;
};

// One operator input or output with the layer the runtime pairs it with.
struct Pair {
  const tfl::Tensor& tensor;
  std::string tensor_path;  // "subgraphs[0].tensors[3]"
  std::string slot;         // "subgraphs[0].operators[2].inputs[1]"
  const dwn::Layer& layer;
  std::string layer_path;  // "input_layers[1]"
  bool output;
};

// The tensor's index when `list[i]` names one of the subgraph (EDG-11 reports
// the others).
std::optional<uint32_t> TensorAt(const Io& io, const flatbuffers::Vector<int32_t>* list,
                                 uint32_t i) {
  const auto* tensors = io.op.graph->tensors();
  if (list == nullptr || i >= list->size() || tensors == nullptr) return std::nullopt;
  const int32_t t = list->Get(i);
  if (t < 0 || static_cast<uint32_t>(t) >= tensors->size()) return std::nullopt;
  return static_cast<uint32_t>(t);
}

std::optional<Pair> PairAt(const Io& io, const flatbuffers::Vector<int32_t>* list, uint32_t i,
                           const dwn::Layer& layer, bool output) {
  const auto t = TensorAt(io, list, i);
  if (!t) return std::nullopt;
  const std::string field = output ? "outputs" : "inputs";
  return Pair{*io.op.graph->tensors()->Get(*t),
              Str("subgraphs[", io.op.subgraph, "].tensors[", *t, "]"),
              Str(io.op.path, ".", field, "[", i, "]"),
              layer,
              Str(output ? "output_layers[" : "input_layers[", i, "]"),
              output};
}

// "executables[1].input_layers[0]" for messages.
std::string LayerText(const Io& io, const Pair& p) {
  return Str("executables[", io.exe.index, "].", p.layer_path);
}

void ReportTensor(const Io& io, const Rule& rule, const Pair& p, const void* object,
                  std::string_view field, std::string message) {
  io.sink.Report(rule, io.file.AtObject(object, Str(p.tensor_path, ".", field)),
                 std::move(message));
}

std::string ShapeText(const tfl::Tensor& tensor) {
  std::string out = "[";
  const auto* shape = tensor.shape();
  for (uint32_t d = 0; shape != nullptr && d < shape->size(); ++d)
    out += Str(d == 0 ? "" : ", ", shape->Get(d));
  return out + "]";
}

// EDG-12, EDG-13: false when the tensor's type does not pair with the layer's.
bool CheckType(const Io& io, const Pair& p) {
  const dwn::DataType data_type = p.layer.data_type();
  if (!DataTypeSize(data_type)) return false;  // EDG-72 reports it
  const int8_t type = p.tensor.type();
  const auto required = RequiredType(data_type);
  if (required && type == *required) return true;
  // A 1-D SINGLE or FIXED_POINT16 output may feed a UINT8 tensor, which the
  // runtime requantizes or clamps (§6.4).
  const bool classifier =
      p.output && type == kUint8 && p.layer.y_dim() == 1 && p.layer.x_dim() == 1 &&
      (data_type == dwn::DataType::SINGLE || data_type == dwn::DataType::FIXED_POINT16);
  if (classifier) return true;
  const Rule& rule = p.output ? rules::kIoOutputType : rules::kIoInputType;
  ReportTensor(io, rule, p, &p.tensor, "type",
               required
                   ? Str(p.slot, " is ", TfliteTypeText(type), " but ", LayerText(io, p), " is ",
                         DataTypeText(data_type), ", which needs ", TfliteTypeText(*required))
                   : Str(p.slot, " is ", TfliteTypeText(type), " but ", LayerText(io, p),
                         " is BFLOAT, which the custom op refuses for every tensor type"));
  return false;
}

// A product of sizes read from the file, or nothing past 2^100 bytes: no
// buffer is that large, and more such factors would not fit a Wide.
std::optional<Wide> BytesProduct(std::optional<Wide> bytes, Wide factor) {
  constexpr Wide kMaxBytes = Wide{1} << 100;
  Wide product = 0;
  if (!bytes || __builtin_mul_overflow(*bytes, factor, &product) || product > kMaxBytes ||
      product < -kMaxBytes) {
    return std::nullopt;
  }
  return product;
}

// Two sizes that are known and equal.
bool SameBytes(std::optional<Wide> a, std::optional<Wide> b) { return a && b && *a == *b; }

// The tensor's bytes: its shape's elements times its type's size; nothing
// when that passes 2^100.
std::optional<Wide> TensorBytes(const tfl::Tensor& tensor) {
  const auto* shape = tensor.shape();
  if (shape != nullptr && std::find(shape->begin(), shape->end(), 0) != shape->end()) return 0;
  std::optional<Wide> bytes = TfliteTypeSize(tensor.type());
  for (uint32_t d = 0; shape != nullptr && d < shape->size(); ++d) {
    bytes = BytesProduct(bytes, shape->Get(d));
  }
  return bytes;
}

// The bytes of one batch element: y·x·z·execution_count elements of the
// tensor's type (§2.7); nothing when the layer's dimensions do not hold
// (EDG-72, EDG-74 report them).
std::optional<Wide> SingleBytes(const Pair& p) {
  const auto dims = LayerDims::Of(p.layer);
  if (!dims) return std::nullopt;
  return Wide{dims->y} * dims->x * dims->z * dims->executions * TfliteTypeSize(p.tensor.type());
}

// The first dimension when the tensor holds that many batch elements, else 1
// (the runtime's reading of a batch, §2.7).
int64_t BatchOf(const tfl::Tensor& tensor, Wide single) {
  const auto* shape = tensor.shape();
  if (shape != nullptr && shape->size() >= 1 &&
      SameBytes(BytesProduct(shape->Get(0), single), TensorBytes(tensor))) {
    return shape->Get(0);
  }
  return 1;
}

std::string SizeText(const Pair& p, Wide single) {
  const auto dims = *LayerDims::Of(p.layer);
  const std::optional<Wide> bytes = TensorBytes(p.tensor);
  return Str(p.slot, " has shape ", ShapeText(p.tensor), " of ", TfliteTypeText(p.tensor.type()),
             " (", bytes ? WideText(*bytes) : std::string("more than 2^100"),
             " bytes) but one batch element of ", p.layer_path, " takes ", dims.y, "·", dims.x, "·",
             dims.z, "·", dims.executions, " elements (", WideText(single), " bytes)");
}

// EDG-16, observed: names.
void CheckName(const Io& io, const Pair& p) {
  if (p.layer.name() == nullptr) return;  // EDG-69 reports it
  const std::string_view layer = p.layer.name()->string_view();
  if (p.tensor.name() != nullptr && p.tensor.name()->string_view() == layer) return;
  ReportTensor(io, rules::kIoName, p, &p.tensor, "name",
               Str(p.slot, " is tensor ",
                   p.tensor.name() == nullptr ? std::string("without a name")
                                              : Quoted(p.tensor.name()->str()),
                   " but its layer ", LayerText(io, p), " is named ", Quoted(layer),
                   "; the compiler names layers after their tensors"));
}

// EDG-16, observed: the layer's numerics are the tensor's quantization, the
// signed types' zero point in the device's offset binary (§6.4). A tensor
// without a scale (a float tensor) has nothing to compare.
void CheckQuantization(const Io& io, const Pair& p) {
  const dwn::NumericsConstants* numerics = p.layer.numerics();
  const tfl::QuantizationParameters* q = p.tensor.quantization();
  if (numerics == nullptr || q == nullptr || q->scale() == nullptr || q->scale()->size() == 0)
    return;
  const float scale = q->scale()->Get(0);
  if (numerics->dequantization_factor() != scale) {
    ReportTensor(io, rules::kIoQuantization, p, q, "quantization.scale",
                 Str(p.slot, " has scale ", scale, " but ", LayerText(io, p),
                     " has dequantization_factor ", numerics->dequantization_factor()));
    return;
  }
  const auto* zero_points = q->zero_point();
  // Misaligned [long] elements failed verification (VerifyModel).
  if (zero_points == nullptr || zero_points->size() == 0) return;
  int64_t offset = 0;
  if (p.layer.data_type() == dwn::DataType::SIGNED_FIXED_POINT8) offset = 128;
  if (p.layer.data_type() == dwn::DataType::SIGNED_FIXED_POINT16) offset = 32768;
  const int64_t want = zero_points->Get(0) + offset;
  if (numerics->zero_point() == want) return;
  ReportTensor(io, rules::kIoQuantization, p, q, "quantization.zero_point",
               Str(p.slot, " has zero point ", zero_points->Get(0), " but ", LayerText(io, p),
                   " has zero_point ", numerics->zero_point(),
                   offset == 0 ? std::string(", not the same")
                               : Str(", not that plus ", offset, " (offset binary)")));
}

// An operator input or output paired with its layer after the checks every
// pair gets (EDG-12, EDG-13, EDG-16), with the bytes of one batch element;
// nothing when no size can be compared.
struct SizedPair {
  Pair pair;
  Wide single;
};
std::optional<SizedPair> CheckPair(const Io& io, const flatbuffers::Vector<int32_t>* list,
                                   uint32_t i, const dwn::Layer& layer, bool output) {
  auto p = PairAt(io, list, i, layer, output);
  if (!p) return std::nullopt;
  CheckName(io, *p);
  CheckQuantization(io, *p);
  if (!CheckType(io, *p)) return std::nullopt;
  const auto single = SingleBytes(*p);
  if (!single) return std::nullopt;
  return SizedPair{std::move(*p), *single};
}

// EDG-11, EDG-12, EDG-14, EDG-16 for the inputs; the inputs' batch (1 when
// there is none to read).
int64_t CheckInputs(const Io& io) {
  const auto* inputs = io.op.op->inputs();
  const auto* layers = io.exe.executable->input_layers();
  const uint32_t n_inputs = inputs == nullptr ? 0 : inputs->size();
  const uint32_t n_layers = layers == nullptr ? 0 : layers->size();
  if (n_inputs != n_layers) {
    io.sink.Report(rules::kIoInputCount,
                   io.file.AtObject(inputs != nullptr ? static_cast<const void*>(inputs) : io.op.op,
                                    Str(io.op.path, ".inputs")),
                   Str("the operator has ", n_inputs, " inputs but executables[", io.exe.index,
                       "], the one the runtime runs, has ", n_layers, " input layers"));
  }
  std::optional<int64_t> batches;
  for (uint32_t i = 0; i < std::min(n_inputs, n_layers); ++i) {
    const auto sized = CheckPair(io, inputs, i, *layers->Get(i), false);
    if (!sized) continue;
    const Pair* p = &sized->pair;
    const Wide* single = &sized->single;
    const int64_t batch = BatchOf(p->tensor, *single);
    if (!batches) {
      batches = batch;
    } else if (batch != *batches) {
      ReportTensor(io, rules::kIoBatch, *p, &p->tensor, "shape",
                   Str(p->slot, " has shape ", ShapeText(p->tensor), ", a batch of ", batch,
                       ", but the operator's first input has a batch of ", *batches));
      continue;
    }
    if (SameBytes(BytesProduct(batch, *single), TensorBytes(p->tensor))) continue;
    ReportTensor(io, rules::kIoByteSize, *p, &p->tensor, "shape", SizeText(*p, *single));
  }
  return batches.value_or(1);
}

// EDG-15: each variable output writes back into an input layer and comes
// after the regular outputs, whose node outputs the runtime indexes by the
// layer's index.
void CheckVariableOutput(const Io& io, uint32_t i, uint32_t last_regular) {
  const dwn::Layer& layer = *io.exe.executable->output_layers()->Get(i);
  const std::string_view name = layer.name()->string_view();
  const std::string_view input = name.substr(0, name.size() - kVariableSuffix.size());
  bool found = false;
  const auto* inputs = io.exe.executable->input_layers();
  for (uint32_t k = 0; inputs != nullptr && k < inputs->size(); ++k) {
    const auto* other = inputs->Get(k)->name();
    found = found || (other != nullptr && other->string_view() == input);
  }
  const std::string path = Str("output_layers[", i, "].name");
  if (!found) {
    ReportAt(io.sink, rules::kIoVariableOutput, io.exe, &layer, path,
             Str("output layer ", Quoted(name), " writes back into input layer ", Quoted(input),
                 ", which executables[", io.exe.index, "] does not have"));
  } else if (i < last_regular) {
    ReportAt(io.sink, rules::kIoVariableOutput, io.exe, &layer, path,
             Str("variable output ", Quoted(name), " is output_layers[", i,
                 "], before the regular output_layers[", last_regular,
                 "], which the runtime then pairs with node output ", last_regular));
  }
}

// EDG-13 to EDG-16 for the outputs, given the inputs' batch.
void CheckOutputs(const Io& io, int64_t batches) {
  const auto* outputs = io.op.op->outputs();
  const auto* layers = io.exe.executable->output_layers();
  const uint32_t n_outputs = outputs == nullptr ? 0 : outputs->size();
  const uint32_t n_layers = layers == nullptr ? 0 : layers->size();
  uint32_t regular = 0;
  uint32_t last_regular = 0;
  for (uint32_t i = 0; i < n_layers; ++i) {
    if (IsVariableOutput(*layers->Get(i))) continue;
    ++regular;
    last_regular = i;
  }
  if (regular != n_outputs) {
    io.sink.Report(
        rules::kIoOutputCount,
        io.file.AtObject(outputs != nullptr ? static_cast<const void*>(outputs) : io.op.op,
                         Str(io.op.path, ".outputs")),
        Str("the operator has ", n_outputs, " outputs but executables[", io.exe.index, "] has ",
            regular, " regular output layers (and ", n_layers - regular, " variable ones)",
            regular > n_outputs ? ": the runtime refuses it (more outputs than the node)"
                                : ": the node's last outputs are never written"));
  }
  for (uint32_t i = 0; i < n_layers; ++i) {
    if (IsVariableOutput(*layers->Get(i))) {
      CheckVariableOutput(io, i, last_regular);
      continue;
    }
    const auto sized = CheckPair(io, outputs, i, *layers->Get(i), true);
    if (!sized) continue;
    const Pair* p = &sized->pair;
    const Wide* single = &sized->single;
    // The runtime resizes an output whose first dimension is a batch to the
    // inputs' batch; any other output must be one batch element (§2.7).
    const auto* shape = p->tensor.shape();
    const bool batched = shape != nullptr && shape->size() >= 1 &&
                         SameBytes(BytesProduct(shape->Get(0), *single), TensorBytes(p->tensor));
    if (batched || (batches == 1 && SameBytes(*single, TensorBytes(p->tensor)))) continue;
    ReportTensor(io, rules::kIoByteSize, *p, &p->tensor, "shape",
                 batches == 1 ? SizeText(*p, *single)
                              : Str(SizeText(*p, *single),
                                    ", and it has no first dimension the "
                                    "runtime can resize to the inputs' batch of ",
                                    batches));
  }
}

}  // namespace

void ValidateOperatorIo(const FlatbufferRegion& file, const EdgetpuOp& op, const PackageView& view,
                        DiagnosticSink& sink) {
  const ExecutableView* exe = MainExecutable(view);
  if (exe == nullptr || op.graph == nullptr || op.op == nullptr) return;
  const Io io{file, op, *exe, sink};
  CheckOutputs(io, CheckInputs(io));
}

}  // namespace accelcheck::edgetpu
