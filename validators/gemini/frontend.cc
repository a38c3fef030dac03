#include "validators/gemini/frontend.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "validators/core/text.h"

namespace accelcheck::gemini {

namespace {

Op OpOf(const std::string& operation) {
  if (operation == "conv2d") return Op::kConv2d;
  if (operation == "dense") return Op::kDense;
  if (operation == "max_pool2d") return Op::kMaxPool;
  if (operation == "avg_pool2d") return Op::kAvgPool;
  if (operation == "element_wise_add") return Op::kAdd;
  if (operation == "quantize" || operation == "dequantize") return Op::kQuantize;
  return Op::kOther;
}

template <size_t N>
bool ReadInts(const nlohmann::json& value, std::array<int64_t, N>* out) {
  if (!value.is_array() || value.size() != N) return false;
  for (size_t i = 0; i < N; ++i) {
    if (!value[i].is_number_integer()) return false;
    (*out)[i] = value[i].get<int64_t>();
  }
  return true;
}

}  // namespace

bool IsPeOp(Op op) { return op == Op::kConv2d || op == Op::kDense; }

std::optional<Frontend> ParseFrontend(ByteView text, std::string* error) {
  const auto doc =
      nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    *error = "the frontend IR is not a JSON object";
    return std::nullopt;
  }
  Frontend frontend;
  for (const auto& [name, layer] : doc.items()) {
    if (!layer.is_object()) continue;
    FrontendLayer out;
    out.name = name;
    if (layer.contains("operation") && layer["operation"].is_string())
      out.operation = layer["operation"].get<std::string>();
    out.op = OpOf(out.operation);
    if (layer.contains("layer_index") && layer["layer_index"].is_number_integer())
      out.index = layer["layer_index"].get<int64_t>();
    if (layer.contains("input_shape") && layer["input_shape"].is_array()) {
      for (const auto& shape : layer["input_shape"]) {
        std::array<int64_t, 4> dims{};
        if (ReadInts(shape, &dims)) out.input_shapes.push_back(dims);
      }
    }
    if (layer.contains("output_shape") && layer["output_shape"].is_array() &&
        !layer["output_shape"].empty()) {
      ReadInts(layer["output_shape"][0], &out.output_shape);
    }
    if (layer.contains("kernel_size")) ReadInts(layer["kernel_size"], &out.kernel);
    if (layer.contains("pool_size")) ReadInts(layer["pool_size"], &out.kernel);
    if (layer.contains("stride")) ReadInts(layer["stride"], &out.stride);
    if (layer.contains("padding")) ReadInts(layer["padding"], &out.padding);
    if (layer.contains("previous_layer") && layer["previous_layer"].is_array()) {
      for (const auto& p : layer["previous_layer"]) {
        if (p.is_string()) out.previous.push_back(p.get<std::string>());
      }
    }
    // Geometry outside these bounds describes no real layer; keeping it
    // bounded keeps the receptive-field arithmetic exact.
    const auto bounded = [](const auto& values, int64_t low) {
      return std::all_of(values.begin(), values.end(),
                         [low](int64_t v) { return v >= low && v <= (1 << 20); });
    };
    if (!bounded(out.kernel, 1) || !bounded(out.stride, 1) || !bounded(out.padding, 0) ||
        !bounded(out.output_shape, 0) ||
        !std::all_of(out.input_shapes.begin(), out.input_shapes.end(),
                     [&](const auto& s) { return bounded(s, 0); })) {
      *error =
          Str("layer ", Quoted(name), " has a kernel, stride, padding or shape outside [0, 2^20]");
      return std::nullopt;
    }
    frontend.layers.emplace(name, std::move(out));
  }
  if (frontend.layers.empty()) {
    *error = "the frontend IR defines no layer";
    return std::nullopt;
  }
  return frontend;
}

}  // namespace accelcheck::gemini
