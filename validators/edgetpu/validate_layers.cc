// G: the input and output layers of every executable (EDG-69 to EDG-76;
// docs/formats/edgetpu.md §1.5), as the runtime's layer information reads
// them. The output layout is H (validate_layout.cc).
#include <map>

#include "validators/core/text.h"
#include "validators/edgetpu/layout.h"
#include "validators/edgetpu/rules.h"
#include "validators/edgetpu/validate.h"

namespace accelcheck::edgetpu {

namespace {

using Layers = flatbuffers::Vector<flatbuffers::Offset<dwn::Layer>>;

// The runtime's rank limit, kNumDimensions in api/tensor_util.cc (EDG-76).
constexpr uint32_t kMaxRank = 5;

// One layer with what its messages need.
struct LayerAt {
  const ExecutableView& exe;
  const dwn::Layer& layer;
  std::string path;  // "output_layers[2]"
  bool output;
};

std::string Field(const LayerAt& at, std::string_view field) { return Str(at.path, ".", field); }

// EDG-69.
void CheckName(const LayerAt& at, DiagnosticSink& sink) {
  if (at.layer.name() != nullptr) return;
  ReportAt(sink, rules::kLayerName, at.exe, &at.layer, Field(at, "name"),
           Str("the ", at.output ? "output" : "input",
               " layer has no name; the runtime builds its layer maps from name()->str()"));
}

// EDG-70: among the inputs and among the outputs; the later layer is named.
void CheckDuplicateNames(const ExecutableView& exe, const Layers* layers, std::string_view field,
                         DiagnosticSink& sink) {
  std::map<std::string_view, uint32_t> first;
  for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
    const dwn::Layer* layer = layers->Get(i);
    if (layer->name() == nullptr) continue;
    const auto [it, inserted] = first.emplace(layer->name()->string_view(), i);
    if (inserted) continue;
    ReportAt(sink, rules::kLayerDuplicateName, exe, layer, Str(field, "[", i, "].name"),
             Str(field, "[", i, "] is named ", Quoted(it->first), " like ", field, "[", it->second,
                 "]: the runtime's name map keeps one of them, so the other's buffers and "
                 "links go astray"));
  }
}

std::string KindText(dwn::AnyLayer kind) {
  switch (kind) {
    case dwn::AnyLayer::NONE:
      return "NONE (0)";
    case dwn::AnyLayer::OutputLayer:
      return "OutputLayer (1)";
    case dwn::AnyLayer::InputLayer:
      return "InputLayer (2)";
  }
  return Str("type ", static_cast<int>(kind));
}

// EDG-71: the union an output's layer information is built from; an input's
// is never read.
void CheckKind(const LayerAt& at, DiagnosticSink& sink) {
  const dwn::AnyLayer want = at.output ? dwn::AnyLayer::OutputLayer : dwn::AnyLayer::InputLayer;
  const dwn::AnyLayer kind = at.layer.any_layer_type();
  if (kind == want && at.layer.any_layer() != nullptr) return;
  const std::string what = kind != want
                               ? Str("any_layer is ", KindText(kind), ", not ", KindText(want))
                               : Str("any_layer is ", KindText(kind), " without a value");
  if (at.output) {
    ReportAt(sink, rules::kLayerOutputKind, at.exe, &at.layer, Field(at, "any_layer_type"),
             Str("the output layer's ", what,
                 ": the runtime aborts building its output information (CHECK)"));
  } else {
    ReportAt(sink, rules::kLayerInputKind, at.exe, &at.layer, Field(at, "any_layer_type"),
             Str("the input layer's ", what, "; the compiler always writes an InputLayer"));
  }
}

// EDG-72.
bool CheckDataType(const LayerAt& at, DiagnosticSink& sink) {
  if (DataTypeSize(at.layer.data_type())) return true;
  ReportAt(sink, rules::kLayerDataType, at.exe, &at.layer, Field(at, "data_type"),
           Str("data_type is ", static_cast<int>(at.layer.data_type()),
               ", no DataType of the schema (0 to 5, 8, 9), so the layer has no element size"));
  return false;
}

// EDG-73.
void CheckNumerics(const LayerAt& at, DiagnosticSink& sink) {
  if (at.layer.numerics() != nullptr) return;
  ReportAt(sink, rules::kLayerNumerics, at.exe, &at.layer, Field(at, "numerics"),
           "the layer has no numerics; the runtime reads zero_point and dequantization_factor "
           "through it unchecked");
}

// EDG-74: one report per field.
bool CheckDims(const LayerAt& at, DiagnosticSink& sink) {
  bool ok = true;
  for (const auto& [name, value] :
       {std::pair<std::string_view, int32_t>{"y_dim", at.layer.y_dim()},
        {"x_dim", at.layer.x_dim()},
        {"z_dim", at.layer.z_dim()},
        {"execution_count_per_inference", at.layer.execution_count_per_inference()}}) {
    if (value >= 1) continue;
    ReportAt(sink, rules::kLayerDims, at.exe, &at.layer, Field(at, name),
             Str(name, " is ", value,
                 "; the runtime sizes the layer's buffers by products of the dimensions and "
                 "the execution count, which must be at least 1"));
    ok = false;
  }
  return ok;
}

// EDG-75, on dimensions and a data type that hold.
void CheckSizeBytes(const LayerAt& at, DiagnosticSink& sink) {
  const dwn::Layer& l = at.layer;
  const int64_t element = *DataTypeSize(l.data_type());
  const Wide need = Wide{l.y_dim()} * l.x_dim() * l.z_dim() * element;
  if (l.size_bytes() >= need) return;
  ReportAt(
      sink, rules::kLayerSizeBytes, at.exe, &l, Field(at, "size_bytes"),
      Str("size_bytes is ", l.size_bytes(), " but ", l.y_dim(), "·", l.x_dim(), "·", l.z_dim(),
          " elements of ", element, element == 1 ? " byte" : " bytes", " take ", WideText(need),
          ": the layer's data overflows its buffer of size_bytes per execution"));
}

// EDG-76: what the runtime needs of a shape (errors), then what the compiler
// always writes (a warning).
void CheckShape(const LayerAt& at, DiagnosticSink& sink) {
  const dwn::TensorShape* shape = at.layer.shape();
  if (shape == nullptr) return;
  const auto* dims = shape->dimension();
  if (dims == nullptr || dims->size() == 0) {
    ReportAt(sink, rules::kLayerShape, at.exe, shape, Field(at, "shape.dimension"),
             "the shape has no dimension; the runtime aborts counting its elements");
    return;
  }
  if (dims->size() > kMaxRank) {
    ReportAt(sink, rules::kLayerShape, at.exe, dims, Field(at, "shape.dimension"),
             Str("the shape has rank ", dims->size(), ", above the runtime's ", kMaxRank));
    return;
  }
  for (uint32_t d = 0; d < dims->size(); ++d) {
    const dwn::Range& range = *dims->Get(d);
    if (range.start() <= range.end()) continue;
    ReportAt(sink, rules::kLayerShape, at.exe, &range, Field(at, Str("shape.dimension[", d, "]")),
             Str("the range runs from ", range.start(), " to ", range.end(),
                 ", ending before it starts: the runtime aborts counting the shape's elements "
                 "(CHECK_GT)"));
    return;
  }
  for (uint32_t d = 0; d < dims->size(); ++d) {
    if (dims->Get(d)->start() == 0) continue;
    ReportAt(
        sink, rules::kLayerShapeStart, at.exe, dims->Get(d),
        Field(at, Str("shape.dimension[", d, "].start")),
        Str("the range starts at ", dims->Get(d)->start(), "; the compiler's shapes start at 0"));
    break;
  }
  const auto elements = ShapeElements(*shape);
  const Wide yxz = Wide{at.layer.y_dim()} * at.layer.x_dim() * at.layer.z_dim();
  if (at.layer.y_dim() < 1 || at.layer.x_dim() < 1 || at.layer.z_dim() < 1 ||
      (elements && Wide{*elements} == yxz)) {
    return;
  }
  ReportAt(sink, rules::kLayerShapeConvention, at.exe, shape, Field(at, "shape"),
           Str("the shape holds ", elements ? Str(*elements) : std::string("more than 2^64"),
               " elements but y·x·z is ", WideText(yxz),
               "; the runtime takes the shape's count as the layer's size"));
}

void CheckLayers(const ExecutableView& exe, const Layers* layers, bool output,
                 DiagnosticSink& sink) {
  const std::string_view field = output ? "output_layers" : "input_layers";
  for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
    const LayerAt at{exe, *layers->Get(i), Str(field, "[", i, "]"), output};
    CheckName(at, sink);
    CheckKind(at, sink);
    const bool typed = CheckDataType(at, sink);
    CheckNumerics(at, sink);
    if (CheckDims(at, sink) && typed) CheckSizeBytes(at, sink);
    CheckShape(at, sink);
  }
  CheckDuplicateNames(exe, layers, field, sink);
}

}  // namespace

void ValidateLayers(const PackageView& view, DiagnosticSink& sink) {
  for (const ExecutableView& exe : view.executables) {
    CheckLayers(exe, exe.executable->input_layers(), false, sink);
    CheckLayers(exe, exe.executable->output_layers(), true, sink);
  }
}

}  // namespace accelcheck::edgetpu
