// The frontend IR (docs/formats/gemini.md §1): per-layer operation, shapes, kernel,
// stride and padding, read with the core JSON decoder.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"

namespace accelcheck::gemini {

enum class Op : uint8_t { kConv2d, kDense, kMaxPool, kAvgPool, kAdd, kQuantize, kOther };

struct FrontendLayer {
  std::string name;
  int64_t index = 0;  // layer_index: the network's topological order
  std::string operation;
  Op op = Op::kOther;
  std::vector<std::array<int64_t, 4>> input_shapes;
  std::array<int64_t, 4> output_shape{};
  std::array<int64_t, 2> kernel{1, 1};  // R, S
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 4> padding{};  // ONNX order: top, left, bottom, right
  std::vector<std::string> previous;
};

struct Frontend {
  std::map<std::string, FrontendLayer, std::less<>> layers;
  const FrontendLayer* Find(std::string_view name) const {
    const auto it = layers.find(name);
    return it == layers.end() ? nullptr : &it->second;
  }
};

// The frontend IR in `text`, or nothing when it is not a frontend IR document
// (the reasons go to `sink`: JSON syntax, a layer whose geometry is out of
// range, no layer at all; nesting beyond --max-depth is core.limit.max-depth).
// The frontend's writer adds keys freely: only the keys the checks use are
// read, and a value of another shape is left at its default.
std::optional<Frontend> ParseFrontend(ByteView text, const Limits& limits, DiagnosticSink& sink);

// True for a JSON object whose first bytes hold a layer's "operation" or
// "layer_index" and that is not a scheduler IR: how a frontend IR is told
// from other companions.
bool LooksLikeFrontend(ByteView text);

// pe operations run on the PE array; the rest on the vector processor (I-S5).
bool IsPeOp(Op op);

}  // namespace accelcheck::gemini
