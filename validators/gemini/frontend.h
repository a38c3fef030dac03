// The frontend IR (docs/formats/gemini.md §1, I-F): per-layer operation, shapes,
// kernel, stride, padding and links, read with the core JSON decoder. It is
// validated as a document of its own (a second document kind of the gemini
// format) and as the companion of a scheduler IR, by the same rules.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/format.h"
#include "validators/core/json_decoder.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"

namespace accelcheck::gemini {

enum class Op : uint8_t { kConv2d, kDense, kMaxPool, kAvgPool, kAdd, kQuantize, kOther };

using Dims = std::vector<int64_t>;

struct FrontendLayer {
  std::string name;        // its key in the document
  std::string name_field;  // its "name" value (I-F3)
  uint64_t offset = 0;     // of its object
  int64_t index = 0;       // layer_index: the network's topological order
  std::string operation;
  Op op = Op::kOther;
  // Every shape as written, for the frontend rules (I-F6, I-F7).
  std::vector<Dims> inputs;
  std::vector<Dims> outputs;
  // The shapes of 4 integers: what the scheduler IR checks and the executor
  // read, once the frontend has passed its rules.
  std::vector<std::array<int64_t, 4>> input_shapes;
  std::array<int64_t, 4> output_shape{};
  std::array<int64_t, 2> kernel{1, 1};  // R, S
  std::array<int64_t, 2> stride{1, 1};
  std::array<int64_t, 4> padding{};  // ONNX order: top, left, bottom, right
  bool ceil_mode = false;
  std::vector<std::string> previous;
  std::vector<std::string> next;
};

struct Frontend {
  std::map<std::string, FrontendLayer, std::less<>> layers;
  // Where the values the rules report at were (each layer, its keys and the
  // elements of its shape and name lists), by JSON pointer.
  JsonOffsets offsets;

  const FrontendLayer* Find(std::string_view name) const {
    const auto it = layers.find(name);
    return it == layers.end() ? nullptr : &it->second;
  }
  // The location of `layer`'s value at `rest` ("/stride", "/input_shape/1";
  // "" for the layer itself).
  Location At(const FrontendLayer& layer, std::string_view rest = "") const;
};

// "/" + the layer name as a JSON pointer token.
std::string LayerPointer(std::string_view name);

// Decodes the frontend IR in `text` into `frontend`: type and key problems
// (I-F1) go to `sink`, and decoding goes on. False when the text could not be
// read to the end (a syntax error, or nesting beyond --max-depth). The
// frontend's writer adds keys freely: only the keys the rules use are read.
bool DecodeFrontend(ByteView text, const Limits& limits, DiagnosticSink& sink, Frontend* frontend);

// The frontend rules I-F2..I-F8 on a decoded frontend, phase by phase
// (validate_frontend.cc).
void ValidateFrontend(const Frontend& frontend, const ValidateContext& context,
                      DiagnosticSink& sink);

// Decodes and validates: the frontend when it breaks no rule of default
// severity error, else nothing (the reasons in `sink`).
std::optional<Frontend> ParseFrontend(ByteView text, const ValidateContext& context,
                                      DiagnosticSink& sink);

// True for a JSON object whose first value is an object and whose first
// bytes hold a layer's "operation" or "layer_index", and that is not a
// scheduler IR: how a frontend IR is told from other files and companions.
bool LooksLikeFrontend(ByteView text);

// pe operations run on the PE array; the rest on the vector processor (I-S5).
bool IsPeOp(Op op);

}  // namespace accelcheck::gemini
