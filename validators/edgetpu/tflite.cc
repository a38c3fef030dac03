// EDG-1 to EDG-3 and EDG-11: the model verified, then every operator's code
// looked up as the interpreter looks it up, and each Edge TPU operator's
// custom options located.
#include "validators/edgetpu/tflite.h"

#include <set>

#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/edgetpu/rules.h"

namespace accelcheck::edgetpu {

namespace {

using flatbuffers::Verifier;
using Locator = FlatbufferLocator;

void LocateTensor(Locator& loc, const tfl::Tensor* tensor, const std::string& path) {
  if (!loc.Start(tensor)) {
    loc.Leaf(tensor, path);
    return;
  }
  using T = tfl::Tensor;
  bool ok = false;
  loc.VectorField<char>(tensor, T::VT_NAME, JoinPath(path, "name"), &ok);
  if (!ok || !loc.ScalarVector<int32_t>(tensor, T::VT_SHAPE, JoinPath(path, "shape")) ||
      !loc.SubTable<tfl::QuantizationParameters>(tensor, T::VT_QUANTIZATION,
                                                 JoinPath(path, "quantization"),
                                                 loc.LeafOf<tfl::QuantizationParameters>())) {
    return;
  }
  loc.Leaf(tensor, path);
}

void LocateOperator(Locator& loc, const tfl::Operator* op, const std::string& path) {
  if (!loc.Start(op)) {
    loc.Leaf(op, path);
    return;
  }
  using O = tfl::Operator;
  if (!loc.ScalarVector<int32_t>(op, O::VT_INPUTS, JoinPath(path, "inputs")) ||
      !loc.ScalarVector<int32_t>(op, O::VT_OUTPUTS, JoinPath(path, "outputs")) ||
      !loc.SubTable<tfl::Opaque>(op, O::VT_BUILTIN_OPTIONS, JoinPath(path, "builtin_options"),
                                 loc.LeafOf<tfl::Opaque>()) ||
      !loc.ScalarVector<uint8_t>(op, O::VT_CUSTOM_OPTIONS, JoinPath(path, "custom_options")) ||
      !loc.ScalarVector<uint8_t>(op, O::VT_MUTATING_VARIABLE_INPUTS,
                                 JoinPath(path, "mutating_variable_inputs")) ||
      !loc.ScalarVector<int32_t>(op, O::VT_INTERMEDIATES, JoinPath(path, "intermediates"))) {
    return;
  }
  loc.Leaf(op, path);
}

void LocateSubGraph(Locator& loc, const tfl::SubGraph* graph, const std::string& path) {
  if (!loc.Start(graph)) {
    loc.Leaf(graph, path);
    return;
  }
  using G = tfl::SubGraph;
  bool ok = false;
  if (!loc.TableVector<tfl::Tensor>(
          graph, G::VT_TENSORS, JoinPath(path, "tensors"),
          [&](const tfl::Tensor* t, const std::string& p) { LocateTensor(loc, t, p); }) ||
      !loc.ScalarVector<int32_t>(graph, G::VT_INPUTS, JoinPath(path, "inputs")) ||
      !loc.ScalarVector<int32_t>(graph, G::VT_OUTPUTS, JoinPath(path, "outputs")) ||
      !loc.TableVector<tfl::Operator>(
          graph, G::VT_OPERATORS, JoinPath(path, "operators"),
          [&](const tfl::Operator* o, const std::string& p) { LocateOperator(loc, o, p); })) {
    return;
  }
  loc.VectorField<char>(graph, G::VT_NAME, JoinPath(path, "name"), &ok);
  if (ok) loc.Leaf(graph, path);
}

void LocateModel(Locator& loc, const tfl::Model* model) {
  using M = tfl::Model;
  if (!loc.Start(model)) {
    loc.Leaf(model, "");
    return;
  }
  bool ok = false;
  if (!loc.TableVector<tfl::OperatorCode>(model, M::VT_OPERATOR_CODES, "operator_codes",
                                          loc.LeafOf<tfl::OperatorCode>()) ||
      !loc.TableVector<tfl::SubGraph>(
          model, M::VT_SUBGRAPHS, "subgraphs",
          [&](const tfl::SubGraph* g, const std::string& p) { LocateSubGraph(loc, g, p); }) ||
      !loc.TableVector<tfl::Buffer>(model, M::VT_BUFFERS, "buffers", loc.LeafOf<tfl::Buffer>())) {
    return;
  }
  loc.VectorField<char>(model, M::VT_DESCRIPTION, "description", &ok);
  if (ok) loc.Leaf(model, "");
}

// The indices of operator_codes that name the Edge TPU operator, reporting
// a code that carries the name but is not a custom operator (EDG-2).
std::set<uint32_t> EdgetpuCodes(const FlatbufferRegion& file, const tfl::Model& model,
                                DiagnosticSink& sink) {
  std::set<uint32_t> codes;
  const auto* operator_codes = model.operator_codes();
  for (uint32_t k = 0; operator_codes != nullptr && k < operator_codes->size(); ++k) {
    const tfl::OperatorCode* code = operator_codes->Get(k);
    if (code->custom_code() == nullptr || code->custom_code()->string_view() != kCustomOpName)
      continue;
    codes.insert(k);
    // Files from before builtin_code existed keep CUSTOM in the deprecated byte
    // only; the interpreter takes the larger of the two (§2).
    const int32_t builtin =
        std::max<int32_t>(code->deprecated_builtin_code(), code->builtin_code());
    if (builtin != kBuiltinCustom) {
      sink.Report(rules::kBuiltinCode, file.AtObject(code, Str("operator_codes[", k, "]")),
                  Str("the code named ", kCustomOpName, " has builtin code ", builtin,
                      " (deprecated_builtin_code ", code->deprecated_builtin_code(),
                      ", builtin_code ", code->builtin_code(), "), not CUSTOM (32)"));
    }
  }
  return codes;
}

// EDG-11: the runtime matches the operator's inputs and outputs one to one
// with the executable's layers, an omitted (-1) input included.
void CheckTensorIndices(const FlatbufferRegion& file, const EdgetpuOp& op, DiagnosticSink& sink) {
  const uint32_t tensors = op.graph->tensors() == nullptr ? 0 : op.graph->tensors()->size();
  for (const auto& [list, name] :
       {std::pair{op.op->inputs(), "inputs"}, std::pair{op.op->outputs(), "outputs"}}) {
    for (uint32_t i = 0; list != nullptr && i < list->size(); ++i) {
      const int32_t t = list->Get(i);
      if (t >= 0 && static_cast<uint32_t>(t) < tensors) continue;
      sink.Report(rules::kTensorIndex,
                  file.At(file.OffsetOf(list->Data()) + 4 * uint64_t{i}, 4,
                          Str(op.path, ".", name, "[", i, "]")),
                  t < 0 ? Str(name, "[", i, "] is ", t,
                              ", an omitted tensor, which the runtime still counts as a layer")
                        : Str(name, "[", i, "] is tensor ", t, " but the subgraph has ", tensors,
                              " tensors"));
    }
  }
}

// EDG-3: the package lives in custom_options, or (a model over 2 GiB) in
// the bytes large_custom_options_offset and _size name, which the
// interpreter reads only when custom_options is absent and the offset is
// past 1.
void LocateCustomOptions(const FlatbufferRegion& file, EdgetpuOp& op, DiagnosticSink& sink) {
  const tfl::Operator& o = *op.op;
  if (o.custom_options_format() != 0) {
    sink.Report(rules::kCustomOptionsFormat,
                file.AtObject(&o, JoinPath(op.path, "custom_options_format")),
                Str("custom_options_format is ", o.custom_options_format(),
                    ", not 0 (FLEXBUFFERS), the only format the runtime reads"));
  }
  if (const auto* options = o.custom_options(); options != nullptr && options->size() != 0) {
    op.options_offset = file.OffsetOf(options->Data());
    op.custom_options = file.bytes.subspan(op.options_offset, options->size());
    op.options_path = JoinPath(op.path, "custom_options");
    return;
  }
  const uint64_t offset = o.large_custom_options_offset();
  const uint64_t size = o.large_custom_options_size();
  if (o.custom_options() == nullptr && offset > 1) {
    if (size == 0 || !RangeWithin(offset, size, file.bytes.size())) {
      sink.Report(rules::kLargeCustomOptions,
                  file.AtObject(&o, JoinPath(op.path, "large_custom_options_offset")),
                  Str("large custom options of ", size, " bytes at ", Hex(offset),
                      " do not lie inside the ", file.bytes.size(), "-byte file"));
      return;
    }
    op.options_offset = offset;
    op.custom_options = file.bytes.subspan(offset, size);
    op.options_path = JoinPath(op.path, "large_custom_options");
    return;
  }
  sink.Report(rules::kCustomOptionsMissing, file.AtObject(&o, op.path),
              o.custom_options() == nullptr
                  ? std::string("the operator has no custom_options, where its package lives")
                  : std::string("the operator's custom_options are empty"));
}

// The Verifier does not align [long] elements (ElementsAligned): a tensor's
// zero points, the schema's one such vector, must start at a multiple of 8,
// or reading them is undefined behaviour (docs/formats/edgetpu.md EDG-1).
bool ZeroPointsAligned(ByteView file, const tfl::Model& model, DiagnosticSink& sink) {
  bool aligned = true;
  const auto* graphs = model.subgraphs();
  for (uint32_t g = 0; graphs != nullptr && g < graphs->size(); ++g) {
    const auto* tensors = graphs->Get(g)->tensors();
    for (uint32_t t = 0; tensors != nullptr && t < tensors->size(); ++t) {
      const tfl::QuantizationParameters* q = tensors->Get(t)->quantization();
      if (q == nullptr || ElementsAligned(q->zero_point())) continue;
      const auto offset = static_cast<uint64_t>(q->zero_point()->Data() - file.data());
      const std::string path = Str("subgraphs[", g, "].tensors[", t, "].quantization.zero_point");
      sink.Report(rules::kTfliteVerify,
                  Location{offset, uint64_t{q->zero_point()->size()} * sizeof(int64_t), path},
                  Str("the 8-byte elements of ", path, " start at ", Hex(offset),
                      ", which is not a multiple of 8"));
      aligned = false;
    }
  }
  return aligned;
}

}  // namespace

bool VerifyModel(ByteView file, const Limits& limits, DiagnosticSink& sink) {
  if (!HasBytesAt(file, 4, "TFL3")) {
    const uint64_t length = std::min<uint64_t>(file.size(), 8);
    sink.Report(rules::kTfliteVerify, Location{0, length, ""},
                file.size() < 8
                    ? Str("the file is ", file.size(),
                          " bytes, shorter than a flatbuffer's root offset and identifier")
                    : std::string("bytes 4..7 are not the identifier TFL3"));
    return false;
  }
  const FlatbufferRegion region{file, 0, ""};
  const FlatbufferVerification verification(region, limits, sink, rules::kTfliteVerify,
                                            "the TensorFlow Lite model");
  return verification.Run([](Verifier& v) { return tfl::VerifyModelBuffer(v); },
                          [&](Locator& loc) { LocateModel(loc, tfl::GetModel(file.data())); }) &&
         ZeroPointsAligned(file, *tfl::GetModel(file.data()), sink);
}

std::vector<EdgetpuOp> FindEdgetpuOps(ByteView file, const tfl::Model& model,
                                      DiagnosticSink& sink) {
  const FlatbufferRegion region{file, 0, ""};
  const std::set<uint32_t> codes = EdgetpuCodes(region, model, sink);
  const uint32_t code_count =
      model.operator_codes() == nullptr ? 0 : model.operator_codes()->size();
  std::vector<EdgetpuOp> ops;
  const auto* graphs = model.subgraphs();
  for (uint32_t g = 0; graphs != nullptr && g < graphs->size(); ++g) {
    const tfl::SubGraph* graph = graphs->Get(g);
    const auto* operators = graph->operators();
    for (uint32_t i = 0; operators != nullptr && i < operators->size(); ++i) {
      const tfl::Operator* o = operators->Get(i);
      const std::string path = Str("subgraphs[", g, "].operators[", i, "]");
      // An absent opcode_index reads as 0, as in the interpreter.
      if (o->opcode_index() >= code_count) {
        sink.Report(rules::kOpcodeIndex, region.AtObject(o, JoinPath(path, "opcode_index")),
                    Str("opcode_index ", o->opcode_index(),
                        " names no operator code (the model has ", code_count, ")"));
        continue;
      }
      if (codes.count(o->opcode_index()) == 0) continue;
      EdgetpuOp op{g, i, path, graph, o, {}, 0, ""};
      CheckTensorIndices(region, op, sink);
      LocateCustomOptions(region, op, sink);
      ops.push_back(std::move(op));
    }
  }
  return ops;
}

}  // namespace accelcheck::edgetpu
