// The frontend IR rules (docs/formats/gemini.md §5, I-F2..I-F8), on a frontend
// that decoded without a type or key problem (I-F1).
#include <algorithm>
#include <map>
#include <vector>

#include "validators/core/phases.h"
#include "validators/core/text.h"
#include "validators/gemini/frontend.h"
#include "validators/gemini/rules.h"

namespace accelcheck::gemini {

namespace {

struct FrontendContext {
  const Frontend& frontend;
  DiagnosticSink& sink;
  std::vector<const FrontendLayer*> layers;  // in the order of the file
};

constexpr int64_t kMaxGeometry = int64_t{1} << 20;

std::string ShapeText(const Dims& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += Str(i ? "," : "", dims[i]);
  return text + "]";
}

template <size_t N>
std::string ShapeText(const std::array<int64_t, N>& values) {
  return ShapeText(Dims(values.begin(), values.end()));
}

bool IsWindowed(Op op) { return op == Op::kConv2d || op == Op::kMaxPool || op == Op::kAvgPool; }

// I-F4: the names a layer may read besides layers: the network's inputs
// ("input1") and constants ("constant_497", "GlobalAveragePool_123_1_constant1").
bool IsNumbered(std::string_view name, std::string_view prefix) {
  return name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix &&
         std::all_of(name.begin() + static_cast<ptrdiff_t>(prefix.size()), name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}
bool IsNetworkInput(std::string_view name) { return IsNumbered(name, "input"); }
bool IsConstant(std::string_view name) { return name.find("constant") != std::string_view::npos; }
bool IsNetworkOutput(std::string_view name) { return IsNumbered(name, "output"); }

bool Lists(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// I-F2: the geometry stays in a range every real layer fits, which keeps the
// receptive-field arithmetic of I-W4 exact.
void CheckRange(const FrontendContext& ctx, const FrontendLayer& layer) {
  const auto report = [&](std::string_view key, std::string what) {
    ctx.sink.Report(rules::kFrontendRange, ctx.frontend.At(layer, key),
                    Str("layer ", Quoted(layer.name), ": ", what));
  };
  const auto within = [](const auto& values, int64_t low) {
    return std::all_of(values.begin(), values.end(),
                       [low](int64_t v) { return v >= low && v <= kMaxGeometry; });
  };
  if (IsWindowed(layer.op)) {
    const std::string_view kernel_key = layer.op == Op::kConv2d ? "/kernel_size" : "/pool_size";
    if (!within(layer.kernel, 1))
      report(kernel_key, Str("kernel ", ShapeText(layer.kernel), " lies outside 1..2^20"));
    if (!within(layer.stride, 1))
      report("/stride", Str("stride ", ShapeText(layer.stride), " lies outside 1..2^20"));
    if (!within(layer.padding, 0))
      report("/padding", Str("padding ", ShapeText(layer.padding), " lies outside 0..2^20"));
  }
  for (const auto& [key, shapes] :
       {std::pair{"/input_shape/", &layer.inputs}, std::pair{"/output_shape/", &layer.outputs}}) {
    for (size_t j = 0; j < shapes->size(); ++j) {
      if (!within((*shapes)[j], 1))
        report(Str(key, j),
               Str("shape ", ShapeText((*shapes)[j]), " has a dimension outside 1..2^20"));
    }
  }
}

void CheckRanges(const FrontendContext& ctx) {
  for (const FrontendLayer* layer : ctx.layers) CheckRange(ctx, *layer);
}

// I-F3: a layer's name is its key.
void CheckNames(const FrontendContext& ctx) {
  for (const FrontendLayer* layer : ctx.layers) {
    if (layer->name_field == layer->name) continue;
    ctx.sink.Report(rules::kFrontendName, ctx.frontend.At(*layer, "/name"),
                    Str("layer ", Quoted(layer->name), " is named ", Quoted(layer->name_field)));
  }
}

// I-F3: layer_index numbers the layers 0..n-1.
void CheckIndices(const FrontendContext& ctx) {
  const int64_t count = static_cast<int64_t>(ctx.layers.size());
  std::map<int64_t, const FrontendLayer*> seen;
  for (const FrontendLayer* layer : ctx.layers) {
    std::string problem;
    if (layer->index < 0 || layer->index >= count) {
      problem = Str("lies outside 0..", count - 1);
    } else if (const auto [it, added] = seen.emplace(layer->index, layer); !added) {
      problem = Str("is also the index of layer ", Quoted(it->second->name));
    }
    if (problem.empty()) continue;
    ctx.sink.Report(
        rules::kFrontendLayerIndex, ctx.frontend.At(*layer, "/layer_index"),
        Str("layer_index ", layer->index, " of layer ", Quoted(layer->name), " ", problem));
  }
}

// I-F4: what previous_layer and next_layer name exists.
void CheckReferences(const FrontendContext& ctx) {
  for (const FrontendLayer* layer : ctx.layers) {
    for (size_t j = 0; j < layer->previous.size(); ++j) {
      const std::string& name = layer->previous[j];
      if (ctx.frontend.Find(name) || IsNetworkInput(name) || IsConstant(name)) continue;
      ctx.sink.Report(rules::kFrontendReference,
                      ctx.frontend.At(*layer, Str("/previous_layer/", j)),
                      Str("layer ", Quoted(layer->name), " reads ", Quoted(name),
                          ", which is no layer, network input (inputN) or constant"));
    }
    for (size_t j = 0; j < layer->next.size(); ++j) {
      const std::string& name = layer->next[j];
      if (ctx.frontend.Find(name) || IsNetworkOutput(name)) continue;
      ctx.sink.Report(rules::kFrontendReference, ctx.frontend.At(*layer, Str("/next_layer/", j)),
                      Str("layer ", Quoted(layer->name), " feeds ", Quoted(name),
                          ", which is no layer or network output (outputN)"));
    }
  }
}

// I-F4: A lists B as next exactly when B lists A as previous.
void CheckLinks(const FrontendContext& ctx) {
  for (const FrontendLayer* layer : ctx.layers) {
    for (size_t j = 0; j < layer->previous.size(); ++j) {
      const FrontendLayer* from = ctx.frontend.Find(layer->previous[j]);
      if (from == nullptr || Lists(from->next, layer->name)) continue;
      ctx.sink.Report(rules::kFrontendLink, ctx.frontend.At(*layer, Str("/previous_layer/", j)),
                      Str("layer ", Quoted(layer->name), " reads ", Quoted(from->name),
                          ", whose next_layer does not list it"));
    }
    for (size_t j = 0; j < layer->next.size(); ++j) {
      const FrontendLayer* to = ctx.frontend.Find(layer->next[j]);
      if (to == nullptr || Lists(to->previous, layer->name)) continue;
      ctx.sink.Report(rules::kFrontendLink, ctx.frontend.At(*layer, Str("/next_layer/", j)),
                      Str("layer ", Quoted(layer->name), " feeds ", Quoted(to->name),
                          ", whose previous_layer does not list it"));
    }
  }
}

// I-F5: layer_index is a topological order.
void CheckOrder(const FrontendContext& ctx) {
  for (const FrontendLayer* layer : ctx.layers) {
    for (size_t j = 0; j < layer->previous.size(); ++j) {
      const FrontendLayer* from = ctx.frontend.Find(layer->previous[j]);
      if (from == nullptr || from->index < layer->index) continue;
      ctx.sink.Report(rules::kFrontendOrder, ctx.frontend.At(*layer, Str("/previous_layer/", j)),
                      Str("layer ", Quoted(layer->name), " (layer_index ", layer->index, ") reads ",
                          Quoted(from->name), " (layer_index ", from->index,
                          "), which does not come before it"));
    }
  }
}

// I-F6: input_shape[j] is the output of previous_layer[j].
void CheckInputShapes(const FrontendContext& ctx) {
  for (const FrontendLayer* layer : ctx.layers) {
    if (layer->inputs.size() != layer->previous.size()) {
      ctx.sink.Report(rules::kFrontendInputShape, ctx.frontend.At(*layer, "/input_shape"),
                      Str("layer ", Quoted(layer->name), " has ", layer->inputs.size(),
                          " input shapes for ", layer->previous.size(), " previous layers"));
      continue;
    }
    for (size_t j = 0; j < layer->inputs.size(); ++j) {
      const FrontendLayer* from = ctx.frontend.Find(layer->previous[j]);
      if (from == nullptr || from->outputs[0] == layer->inputs[j]) continue;
      ctx.sink.Report(rules::kFrontendInputShape, ctx.frontend.At(*layer, Str("/input_shape/", j)),
                      Str("layer ", Quoted(layer->name), " reads ", Quoted(from->name), " as ",
                          ShapeText(layer->inputs[j]), " but its output_shape is ",
                          ShapeText(from->outputs[0])));
    }
  }
}

// I-F7, one function per operation: each names the first disagreement it
// finds as the value at `*key` and what it expected.
struct Mismatch {
  std::string key;  // "/input_shape/1"
  std::string what;
};
using Shape4 = std::array<int64_t, 4>;

// The shapes an operation reads: its inputs and first output, each of 4
// integers, or the first one that is not.
std::optional<Mismatch> Fours(const FrontendLayer& layer, size_t inputs, std::vector<Shape4>* in,
                              Shape4* out) {
  if (layer.inputs.size() < inputs) {
    return Mismatch{"/input_shape", Str(layer.operation, " reads ", inputs, " operands, found ",
                                        layer.inputs.size())};
  }
  for (size_t j = 0; j < inputs; ++j) {
    if (layer.inputs[j].size() != 4)
      return Mismatch{Str("/input_shape/", j), "expected a shape of 4 integers (NCHW)"};
    in->push_back({layer.inputs[j][0], layer.inputs[j][1], layer.inputs[j][2], layer.inputs[j][3]});
  }
  if (layer.outputs[0].size() != 4)
    return Mismatch{"/output_shape/0", "expected a shape of 4 integers (NCHW)"};
  *out = layer.output_shape;
  return std::nullopt;
}

// conv2d: [N, C, H, W] * [K, C, R, S] -> [N, K, H', W'].
std::optional<Mismatch> ConvMismatch(const FrontendLayer& layer) {
  std::vector<Shape4> in;
  Shape4 out{};
  if (auto m = Fours(layer, 2, &in, &out)) return m;
  const Shape4 weight = {out[1], in[0][1], layer.kernel[0], layer.kernel[1]};
  if (in[1] != weight)
    return Mismatch{"/input_shape/1",
                    Str("expected the weight [K, C, R, S] = ", ShapeText(weight))};
  if (out[0] != in[0][0])
    return Mismatch{"/output_shape/0", Str("expected the input's batch ", in[0][0])};
  return std::nullopt;
}

// dense: [N, C, 1, 1] * [K, C, 1, 1] -> [N, K, 1, 1].
std::optional<Mismatch> DenseMismatch(const FrontendLayer& layer) {
  std::vector<Shape4> in;
  Shape4 out{};
  if (auto m = Fours(layer, 2, &in, &out)) return m;
  if (in[0][2] != 1 || in[0][3] != 1) return Mismatch{"/input_shape/0", "expected [N, C, 1, 1]"};
  const Shape4 weight = {out[1], in[0][1], 1, 1};
  if (in[1] != weight)
    return Mismatch{"/input_shape/1",
                    Str("expected the weight [K, C, 1, 1] = ", ShapeText(weight))};
  const Shape4 expected = {in[0][0], out[1], 1, 1};
  if (out != expected)
    return Mismatch{"/output_shape/0", Str("expected [N, K, 1, 1] = ", ShapeText(expected))};
  return std::nullopt;
}

// Pools keep batch and channels.
std::optional<Mismatch> PoolMismatch(const FrontendLayer& layer) {
  std::vector<Shape4> in;
  Shape4 out{};
  if (auto m = Fours(layer, 1, &in, &out)) return m;
  if (out[0] != in[0][0] || out[1] != in[0][1]) {
    return Mismatch{"/output_shape/0",
                    Str("expected the input's batch and channels ", in[0][0], ", ", in[0][1])};
  }
  return std::nullopt;
}

// Element-wise operations (add, quantize) read every operand at the shape they write.
std::optional<Mismatch> ElementwiseMismatch(const FrontendLayer& layer) {
  std::vector<Shape4> in;
  Shape4 out{};
  if (auto m = Fours(layer, layer.inputs.size(), &in, &out)) return m;
  for (size_t j = 0; j < in.size(); ++j) {
    if (in[j] != out)
      return Mismatch{Str("/input_shape/", j), Str("expected the output shape ", ShapeText(out))};
  }
  return std::nullopt;
}

std::optional<Mismatch> OperandMismatch(const FrontendLayer& layer) {
  switch (layer.op) {
    case Op::kConv2d:
      return ConvMismatch(layer);
    case Op::kDense:
      return DenseMismatch(layer);
    case Op::kMaxPool:
    case Op::kAvgPool:
      return PoolMismatch(layer);
    case Op::kAdd:
    case Op::kQuantize:
      return ElementwiseMismatch(layer);
    case Op::kOther:
      break;
  }
  return std::nullopt;
}

void CheckOperands(const FrontendContext& ctx) {
  for (const FrontendLayer* layer : ctx.layers) {
    const std::optional<Mismatch> m = OperandMismatch(*layer);
    if (!m) continue;
    ctx.sink.Report(rules::kFrontendOperands, ctx.frontend.At(*layer, m->key),
                    Str(layer->operation, " layer ", Quoted(layer->name), ": ", m->what));
  }
}

// I-F8: the output rows (d = 0) or columns (d = 1) of a window of `kernel`
// moved by `stride` over `input` padded by `before` and `after`; ceil_mode
// counts a last partial step, unless it would start in the padding after
// the input. Nothing when no window fits.
std::optional<int64_t> OutputSize(int64_t input, int64_t before, int64_t after, int64_t kernel,
                                  int64_t stride, bool ceil_mode) {
  const int64_t span = input + before + after - kernel;
  if (span < 0) return std::nullopt;
  int64_t size = span / stride + 1;
  if (ceil_mode && span % stride != 0 && size * stride < input + before) ++size;
  return size;
}

void CheckOutputSize(const FrontendContext& ctx, const FrontendLayer& layer) {
  const Shape4& in = layer.input_shapes[0];
  const Shape4& out = layer.output_shape;
  for (int d = 0; d < 2; ++d) {
    const int64_t before = layer.padding[d], after = layer.padding[d + 2];
    const std::optional<int64_t> size =
        OutputSize(in[2 + d], before, after, layer.kernel[d], layer.stride[d], layer.ceil_mode);
    if (size == out[2 + d]) continue;
    const std::string_view axis = d == 0 ? "height" : "width";
    ctx.sink.Report(
        rules::kFrontendOutputSize, ctx.frontend.At(layer, "/output_shape/0"),
        Str(layer.operation, " layer ", Quoted(layer.name), ": output ", axis, " ", out[2 + d],
            ", expected ", size ? Str(*size) : std::string("a window to fit"), " (input ",
            in[2 + d], ", padding ", before, " + ", after, ", kernel ", layer.kernel[d],
            ", stride ", layer.stride[d], layer.ceil_mode ? ", ceil_mode" : "", ")"));
    return;
  }
}

void CheckOutputSizes(const FrontendContext& ctx) {
  for (const FrontendLayer* layer : ctx.layers) {
    if (IsWindowed(layer->op)) CheckOutputSize(ctx, *layer);
  }
}

}  // namespace

void ValidateFrontend(const Frontend& frontend, const ValidateContext& context,
                      DiagnosticSink& sink) {
  FrontendContext ctx{frontend, sink, {}};
  for (const auto& [name, layer] : frontend.layers) ctx.layers.push_back(&layer);
  std::sort(ctx.layers.begin(), ctx.layers.end(),
            [](const FrontendLayer* a, const FrontendLayer* b) { return a->offset < b->offset; });
  // Each group relies on the earlier ones: bounded values, then names that
  // resolve to one layer each, then a graph whose shapes chain, then the
  // operations' own shapes (docs/ARCHITECTURE.md "Phases").
  static constexpr void (*kBounds[])(const FrontendContext&) = {CheckRanges};
  static constexpr void (*kNames[])(const FrontendContext&) = {CheckNames, CheckIndices,
                                                               CheckReferences};
  static constexpr void (*kGraph[])(const FrontendContext&) = {CheckLinks, CheckOrder,
                                                               CheckInputShapes};
  static constexpr void (*kOperands[])(const FrontendContext&) = {CheckOperands};
  static constexpr void (*kWindows[])(const FrontendContext&) = {CheckOutputSizes};
  static constexpr PassGroup<FrontendContext> kGroups[] = {kBounds, kNames, kGraph, kOperands,
                                                           kWindows};
  RunPassGroups<FrontendContext>(kGroups, ctx, context, sink);
}

}  // namespace accelcheck::gemini
