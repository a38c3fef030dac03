#include "validators/gemini/frontend.h"

#include <algorithm>

#include "validators/core/text.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/rules.h"

namespace accelcheck::gemini {

namespace {

// Unknown keys are the writer's own business (docs/formats/gemini.md §1); a
// repeated key keeps the last value, as Python's json module does.
const JsonSchemaRules kFrontendRules{&rules::kJsonSyntax,
                                     &rules::kFrontendType,
                                     &rules::kJsonNumberRange,
                                     &rules::kFrontendMissingKey,
                                     nullptr,
                                     nullptr};

enum Key : uint8_t {
  kOperation,
  kLayerIndex,
  kName,
  kInputShape,
  kOutputShape,
  kKernelSize,
  kPoolSize,
  kStride,
  kPadding,
  kCeilMode,
  kPreviousLayer,
  kNextLayer,
};
constexpr JsonKeys<12> kLayerKeys = {"operation",    "layer_index", "name",           "input_shape",
                                     "output_shape", "kernel_size", "pool_size",      "stride",
                                     "padding",      "ceil_mode",   "previous_layer", "next_layer"};

// I-F1: every layer has these; convolutions and pools also their window.
constexpr uint64_t kRequired = KeyBits(
    {kOperation, kLayerIndex, kName, kInputShape, kOutputShape, kPreviousLayer, kNextLayer});
constexpr uint64_t kConvKeys = KeyBits({kKernelSize, kStride, kPadding});
constexpr uint64_t kPoolKeys = KeyBits({kPoolSize, kStride, kPadding});

Op OpOf(std::string_view operation) {
  if (operation == "conv2d") return Op::kConv2d;
  if (operation == "dense") return Op::kDense;
  if (operation == "max_pool2d") return Op::kMaxPool;
  if (operation == "avg_pool2d") return Op::kAvgPool;
  if (operation == "element_wise_add") return Op::kAdd;
  if (operation == "quantize" || operation == "dequantize") return Op::kQuantize;
  return Op::kOther;
}

std::optional<std::array<int64_t, 4>> Four(const Dims& dims) {
  if (dims.size() != 4) return std::nullopt;
  return std::array<int64_t, 4>{dims[0], dims[1], dims[2], dims[3]};
}

class FrontendDecoder : public JsonDecoder {
 public:
  FrontendDecoder(ByteView text, const Limits& limits, DiagnosticSink& sink, Frontend* frontend)
      : JsonDecoder(text, limits, sink, kFrontendRules), frontend_(*frontend) {}

  void Layers();

 private:
  void Layer(FrontendLayer* layer);
  void Shapes(std::vector<Dims>* shapes, std::string_view what);
  void Names(std::vector<std::string>* names);
  void CeilMode(bool* ceil_mode);
  void RequireWindow(const FrontendLayer& layer, uint64_t seen);

  Frontend& frontend_;
  JsonKeyOrder order_;
};

// A non-empty list of shapes, each a non-empty list of integers.
void FrontendDecoder::Shapes(std::vector<Dims>* shapes, std::string_view what) {
  const Location list = Here();
  const bool read = Elements("a list of shapes", [&](size_t) {
    RecordOffset(frontend_.offsets);
    const Location at = Here();
    Dims dims;
    if (IntList(&dims) && dims.empty())
      sink_.Report(rules::kFrontendType, at, Str("a shape of ", what, " holds no dimension"));
    shapes->push_back(std::move(dims));
  });
  if (read && shapes->empty())
    sink_.Report(rules::kFrontendType, list, Str(what, " lists no shape"));
}

// A list of layer names.
void FrontendDecoder::Names(std::vector<std::string>* names) {
  Elements("a list of layer names", [&](size_t) {
    RecordOffset(frontend_.offsets);
    std::string_view name;
    names->emplace_back(String(&name) ? name : std::string_view());
  });
}

// 0/1 or false/true: the real files write both.
void FrontendDecoder::CeilMode(bool* ceil_mode) {
  const JsonKind kind = reader_.Peek();
  if (kind == JsonKind::kTrue || kind == JsonKind::kFalse) {
    Bool(ceil_mode);
    return;
  }
  if (kind != JsonKind::kNumber) {
    ExpectKind(JsonKind::kNumber, "0, 1 or a boolean");
    return;
  }
  int64_t value = 0;
  if (Int(&value)) *ceil_mode = value != 0;
}

// I-F1: a convolution or pool gives its window.
void FrontendDecoder::RequireWindow(const FrontendLayer& layer, uint64_t seen) {
  const bool conv = layer.op == Op::kConv2d;
  const bool pool = layer.op == Op::kMaxPool || layer.op == Op::kAvgPool;
  if (!conv && !pool) return;
  RequireKeys(kLayerKeys, seen, conv ? kConvKeys : kPoolKeys, layer.offset,
              Str(layer.operation, " layer ", Quoted(layer.name)));
}

void FrontendDecoder::Layer(FrontendLayer* layer) {
  const uint64_t seen = Fields(kLayerKeys, order_, [&](int field) {
    RecordOffset(frontend_.offsets);
    std::string_view text;
    switch (field) {
      case kOperation:
        if (String(&text)) layer->operation = std::string(text);
        break;
      case kLayerIndex:
        Int(&layer->index);
        break;
      case kName:
        if (String(&text)) layer->name_field = std::string(text);
        break;
      case kInputShape:
        Shapes(&layer->inputs, "input_shape");
        break;
      case kOutputShape:
        Shapes(&layer->outputs, "output_shape");
        break;
      case kKernelSize:
      case kPoolSize:
        IntArray(&layer->kernel);
        break;
      case kStride:
        IntArray(&layer->stride);
        break;
      case kPadding:
        IntArray(&layer->padding);
        break;
      case kCeilMode:
        CeilMode(&layer->ceil_mode);
        break;
      case kPreviousLayer:
        Names(&layer->previous);
        break;
      case kNextLayer:
        Names(&layer->next);
        break;
    }
  });
  layer->op = OpOf(layer->operation);
  RequireKeys(kLayerKeys, seen, kRequired, layer->offset, Str("layer ", Quoted(layer->name)));
  RequireWindow(*layer, seen);
  for (const Dims& dims : layer->inputs) {
    if (const auto shape = Four(dims)) layer->input_shapes.push_back(*shape);
  }
  if (!layer->outputs.empty())
    layer->output_shape = Four(layer->outputs[0]).value_or(std::array<int64_t, 4>{});
}

void FrontendDecoder::Layers() {
  if (!ExpectObject("an object of layers")) return;
  reader_.BeginObject();
  std::string_view key;
  uint64_t key_offset = 0;
  while (reader_.NextKey(&key, &key_offset)) {
    FrontendLayer layer;
    layer.name = std::string(key);
    RecordOffset(frontend_.offsets);
    layer.offset = reader_.offset();
    if (!ExpectObject("a layer object")) continue;
    Layer(&layer);
    frontend_.layers.insert_or_assign(layer.name, std::move(layer));
  }
}

// True when the object that opens `head` holds first a key whose value is
// an object: { "name" : { ...
bool FirstValueIsObject(std::string_view head) {
  constexpr std::string_view kSpace = " \t\r\n";
  constexpr size_t npos = std::string_view::npos;
  const size_t key = head.find_first_not_of(kSpace, head.find('{') + 1);
  if (key == npos || head[key] != '"') return false;
  size_t end = key + 1;
  while (end < head.size() && head[end] != '"') end += head[end] == '\\' ? 2 : 1;
  if (end >= head.size()) return false;
  const size_t colon = head.find_first_not_of(kSpace, end + 1);
  if (colon == npos || head[colon] != ':') return false;
  const size_t value = head.find_first_not_of(kSpace, colon + 1);
  return value != npos && head[value] == '{';
}

}  // namespace

std::string LayerPointer(std::string_view name) { return "/" + PointerToken(name); }

Location Frontend::At(const FrontendLayer& layer, std::string_view rest) const {
  return offsets.At(Str(LayerPointer(layer.name), rest));
}

bool IsPeOp(Op op) { return op == Op::kConv2d || op == Op::kDense; }

bool LooksLikeFrontend(ByteView text) {
  const std::optional<std::string_view> head = JsonObjectHead(text);
  if (!head || LooksLikeIr(text)) return false;
  const bool layer_keys = head->find("\"operation\"") != std::string_view::npos ||
                          head->find("\"layer_index\"") != std::string_view::npos;
  return layer_keys && FirstValueIsObject(*head);
}

bool DecodeFrontend(ByteView text, const Limits& limits, DiagnosticSink& sink, Frontend* frontend) {
  FrontendDecoder decoder(text, limits, sink, frontend);
  decoder.Layers();
  return decoder.Finish();
}

std::optional<Frontend> ParseFrontend(ByteView text, const ValidateContext& context,
                                      DiagnosticSink& sink) {
  const uint64_t before = sink.blocking_count();
  Frontend frontend;
  if (!DecodeFrontend(text, context.limits, sink, &frontend)) return std::nullopt;
  if (frontend.layers.empty() && sink.blocking_count() == before) {
    sink.Report(rules::kFrontendType, Location{0, std::nullopt, ""},
                "the frontend IR defines no layer");
  }
  // Key and type problems leave default values behind: no rules on them.
  if (sink.blocking_count() == before) ValidateFrontend(frontend, context, sink);
  if (sink.blocking_count() != before) return std::nullopt;
  return frontend;
}

}  // namespace accelcheck::gemini
