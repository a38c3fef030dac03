#include "validators/gemini/frontend.h"

#include <algorithm>

#include "validators/core/json_decoder.h"
#include "validators/core/text.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/rules.h"

namespace accelcheck::gemini {

namespace {

// Unknown keys are the writer's own business; a repeated key keeps the last
// value, as Python's json module does.
const JsonSchemaRules kFrontendRules{&rules::kJsonSyntax,
                                     &rules::kSchemaType,
                                     &rules::kJsonNumberRange,
                                     &rules::kSchemaMissingKey,
                                     nullptr,
                                     nullptr};

constexpr JsonKeys<9> kLayerKeys = {"operation",    "layer_index", "input_shape",
                                    "output_shape", "kernel_size", "pool_size",
                                    "stride",       "padding",     "previous_layer"};

Op OpOf(std::string_view operation) {
  if (operation == "conv2d") return Op::kConv2d;
  if (operation == "dense") return Op::kDense;
  if (operation == "max_pool2d") return Op::kMaxPool;
  if (operation == "avg_pool2d") return Op::kAvgPool;
  if (operation == "element_wise_add") return Op::kAdd;
  if (operation == "quantize" || operation == "dequantize") return Op::kQuantize;
  return Op::kOther;
}

// Geometry outside these bounds describes no real layer; keeping it bounded
// keeps the receptive-field arithmetic exact.
bool Bounded(const FrontendLayer& layer) {
  const auto within = [](const auto& values, int64_t low) {
    return std::all_of(values.begin(), values.end(),
                       [low](int64_t v) { return v >= low && v <= (1 << 20); });
  };
  return within(layer.kernel, 1) && within(layer.stride, 1) && within(layer.padding, 0) &&
         within(layer.output_shape, 0) &&
         std::all_of(layer.input_shapes.begin(), layer.input_shapes.end(),
                     [&](const auto& s) { return within(s, 0); });
}

class FrontendDecoder : public JsonDecoder {
 public:
  FrontendDecoder(ByteView text, const Limits& limits, DiagnosticSink& sink)
      : JsonDecoder(text, limits, sink, kFrontendRules) {}

  void Layers(Frontend* frontend);

 private:
  void Layer(FrontendLayer* layer);
  // N integers, or (any other value, skipped) nothing.
  template <size_t N>
  std::optional<std::array<int64_t, N>> Ints();
  // A string, or (any other value, skipped) nothing.
  std::optional<std::string> OptionalString() {
    std::string_view value;
    if (reader_.Peek() == JsonKind::kString && reader_.ReadString(&value))
      return std::string(value);
    if (!reader_.failed()) reader_.Skip();
    return std::nullopt;
  }
  // A list of values of which `one` reads each; other values are skipped.
  template <typename F>
  void ListOf(F&& one);

  JsonKeyOrder order_;
};

template <size_t N>
std::optional<std::array<int64_t, N>> FrontendDecoder::Ints() {
  std::array<int64_t, N> values{};
  if (reader_.Peek() != JsonKind::kArray) {
    reader_.Skip();
    return std::nullopt;
  }
  if (reader_.TryReadInts(values.data(), N)) return values;
  size_t count = 0;
  bool integers = true;
  reader_.BeginArray();
  while (reader_.NextElement()) {
    JsonNumber number;
    bool integer = false;
    if (reader_.Peek() == JsonKind::kNumber) {
      integer = reader_.ReadNumber(&number) && number.integral && number.fits;
    } else {
      reader_.Skip();
    }
    integers = integers && integer;
    if (integer && count < N) values[count] = number.integer;
    ++count;
  }
  if (!integers || count != N) return std::nullopt;
  return values;
}

template <typename F>
void FrontendDecoder::ListOf(F&& one) {
  if (reader_.Peek() != JsonKind::kArray) {
    reader_.Skip();
    return;
  }
  reader_.BeginArray();
  for (size_t i = 0; reader_.NextElement(); ++i) one(i);
}

void FrontendDecoder::Layer(FrontendLayer* layer) {
  Fields(kLayerKeys, order_, [&](int field) {
    switch (field) {
      case 0: {
        if (const auto operation = OptionalString()) layer->operation = *operation;
        break;
      }
      case 1:
        if (!reader_.TryReadInt(&layer->index)) reader_.Skip();
        break;
      case 2:
        ListOf([&](size_t) {
          if (auto shape = Ints<4>()) layer->input_shapes.push_back(*shape);
        });
        break;
      case 3:
        ListOf([&](size_t i) {
          const auto shape = Ints<4>();
          if (i == 0 && shape) layer->output_shape = *shape;
        });
        break;
      case 4:
      case 5:
        if (auto kernel = Ints<2>()) layer->kernel = *kernel;
        break;
      case 6:
        if (auto stride = Ints<2>()) layer->stride = *stride;
        break;
      case 7:
        if (auto padding = Ints<4>()) layer->padding = *padding;
        break;
      case 8:
        ListOf([&](size_t) {
          if (const auto previous = OptionalString()) layer->previous.push_back(*previous);
        });
        break;
    }
  });
  layer->op = OpOf(layer->operation);
}

void FrontendDecoder::Layers(Frontend* frontend) {
  if (!ExpectObject("an object of layers")) return;
  reader_.BeginObject();
  std::string_view key;
  uint64_t key_offset = 0;
  while (reader_.NextKey(&key, &key_offset)) {
    if (reader_.Peek() != JsonKind::kObject) {
      reader_.Skip();  // not a layer
      continue;
    }
    FrontendLayer layer;
    layer.name = std::string(key);
    const Location at = Here();
    Layer(&layer);
    if (!Bounded(layer)) {
      sink_.Report(rules::kSchemaType, at,
                   Str("layer ", Quoted(layer.name),
                       " has a kernel, stride, padding or shape outside [0, 2^20]"));
    }
    frontend->layers.insert_or_assign(layer.name, std::move(layer));
  }
}

}  // namespace

bool IsPeOp(Op op) { return op == Op::kConv2d || op == Op::kDense; }

bool LooksLikeFrontend(ByteView text) {
  const std::optional<std::string_view> head = JsonObjectHead(text);
  if (!head || LooksLikeIr(text)) return false;
  return head->find("\"operation\"") != std::string_view::npos ||
         head->find("\"layer_index\"") != std::string_view::npos;
}

std::optional<Frontend> ParseFrontend(ByteView text, const Limits& limits, DiagnosticSink& sink) {
  Frontend frontend;
  FrontendDecoder decoder(text, limits, sink);
  const uint64_t before = sink.blocking_count();
  decoder.Layers(&frontend);
  if (!decoder.Finish() || sink.blocking_count() != before) return std::nullopt;
  if (frontend.layers.empty()) {
    sink.Report(rules::kSchemaType, Location{0, std::nullopt, ""},
                "the frontend IR defines no layer");
    return std::nullopt;
  }
  return frontend;
}

}  // namespace accelcheck::gemini
