// One small function per rule of validators/edgetpu/rules.def: each takes a
// valid model or package (read back into the model with ReadFile) and
// breaks exactly that rule. Most mutations change one field of the Edge TPU
// operator, its custom options, the package or one executable; where the
// defect is a layout no model expresses (a root offset, an identifier, two
// executables on the same bytes), the serialized bytes are patched.
#include "conformance/edgetpu/mutate.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>

#include <flatbuffers/flexbuffers.h>

#include "conformance/edgetpu/bases.h"
#include "conformance/edgetpu/read.h"
#include "conformance/edgetpu/serialize.h"
#include "validators/core/flatbuffer.h"
#include "validators/core/format.h"
#include "validators/core/limits.h"
#include "validators/core/text.h"
#include "validators/edgetpu/edgetpu_format.h"
#include "validators/edgetpu/rules.h"
#include "validators/edgetpu/schema/executable_generated.h"

namespace accelcheck::edgetpu {

namespace {

using namespace model;
using Bytes = std::vector<uint8_t>;
using conformance::Base;
using conformance::Declined;
using conformance::Mutated;
using conformance::MutationCase;
using conformance::NamedFile;
using conformance::OrDeclined;
using conformance::Provider;

// What one mutation works on: the decoded file, the serializer's options,
// then (for layout rules) a patch applied to the serialized bytes.
struct Ctx {
  File file;
  SerializeOptions options;
  uint64_t seed = 0;
  std::string error;
  std::string path;  // where the validator should report the broken rule
  std::function<bool(Bytes&, Ctx&)> patch;
};

bool Decline(Ctx& c, std::string why) {
  c.error = std::move(why);
  return false;
}

// The Edge TPU operator a mutation works on, and the package it carries.
struct Target {
  TfliteModel* tflite = nullptr;
  Operator* op = nullptr;
  OperatorCode* code = nullptr;
  size_t code_index = 0;
  FlexMap* options = nullptr;
  std::string op_path;  // "subgraphs[0].operators[1]"
  Package* package = nullptr;
  std::string package_path;  // op_path + ".custom_options[\"4\"]", or "" for a bare package
};

bool IsEdgetpuCode(const OperatorCode& code) {
  return code.custom_code && *code.custom_code == "edgetpu-custom-op";
}

FlexEntry* Entry(FlexMap& map, std::string_view key) {
  for (FlexEntry& e : map.entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

// Puts `entry` where its key sorts, replacing one of the same key.
void SetEntry(FlexMap& map, FlexEntry entry) {
  if (FlexEntry* existing = Entry(map, entry.key)) {
    *existing = std::move(entry);
    return;
  }
  const auto at = std::find_if(map.entries.begin(), map.entries.end(),
                               [&](const FlexEntry& e) { return e.key > entry.key; });
  map.entries.insert(at, std::move(entry));
}

std::optional<Target> FindTarget(Ctx& c) {
  Target t;
  if (auto* package = std::get_if<Package>(&c.file)) {
    t.package = package;
    return t;
  }
  t.tflite = &std::get<TfliteModel>(c.file);
  if (!t.tflite->operator_codes || !t.tflite->subgraphs) return std::nullopt;
  for (size_t g = 0; g < t.tflite->subgraphs->size(); ++g) {
    SubGraph& graph = (*t.tflite->subgraphs)[g];
    for (size_t i = 0; graph.operators && i < graph.operators->size(); ++i) {
      Operator& op = (*graph.operators)[i];
      const size_t k = op.opcode_index.value_or(0);
      if (k >= t.tflite->operator_codes->size() || !IsEdgetpuCode((*t.tflite->operator_codes)[k]))
        continue;
      t.op = &op;
      t.code = &(*t.tflite->operator_codes)[k];
      t.code_index = k;
      t.op_path = Str("subgraphs[", g, "].operators[", i, "]");
      t.options = op.custom_options ? std::get_if<FlexMap>(&*op.custom_options) : nullptr;
      if (t.options == nullptr) return t;
      if (FlexEntry* e = Entry(*t.options, "4")) {
        if (auto* p = std::get_if<FlexPackage>(&e->value)) {
          t.package = &p->package;
          t.package_path = t.op_path + ".custom_options[\"4\"]";
        }
      }
      return t;
    }
  }
  return std::nullopt;
}

// The three kinds of target a mutation needs: the operator, its options, the package.
bool WithOp(Ctx& c, const std::function<bool(Target&)>& mutate) {
  auto t = FindTarget(c);
  if (!t || t->op == nullptr) return Decline(c, "no Edge TPU operator in a TFLite model");
  return mutate(*t);
}
bool WithOptions(Ctx& c, const std::function<bool(Target&)>& mutate) {
  return WithOp(c, [&](Target& t) {
    if (t.options == nullptr) return Decline(c, "the operator's custom options are not a map");
    return mutate(t);
  });
}
bool WithPackage(Ctx& c, const std::function<bool(Target&)>& mutate) {
  auto t = FindTarget(c);
  if (!t || t->package == nullptr) return Decline(c, "no package in model form");
  return mutate(*t);
}

// The executables of the package in model form, with their paths.
struct Exe {
  Executable* exe;
  std::string path;
};
std::vector<Exe> Executables(Target& t) {
  std::vector<Exe> out;
  if (!t.package->multi_executable) return out;
  auto* multi = std::get_if<MultiExecutable>(&*t.package->multi_executable);
  if (multi == nullptr || !multi->executables) return out;
  for (size_t i = 0; i < multi->executables->size(); ++i) {
    if (auto* exe = std::get_if<Executable>(&(*multi->executables)[i]))
      out.push_back({exe, JoinPath(t.package_path, Str("executables[", i, "]"))});
  }
  return out;
}

int16_t TypeOf(const Executable& exe) { return exe.type.value_or(kStandAlone); }

// The executable of `type` (any type when nullopt), or nothing.
std::optional<Exe> ExeOfType(Target& t, std::optional<int16_t> type) {
  for (const Exe& e : Executables(t)) {
    if (!type || TypeOf(*e.exe) == *type) return e;
  }
  return std::nullopt;
}

// The executable that runs (STAND_ALONE, or EXECUTION_ONLY of a pair).
std::optional<Exe> MainExe(Target& t) {
  for (const Exe& e : Executables(t)) {
    if (TypeOf(*e.exe) == kExecutionOnly) return e;
  }
  return ExeOfType(t, kStandAlone);
}

bool WithExe(Ctx& c, std::optional<int16_t> type,
             const std::function<bool(Target&, Exe&)>& mutate) {
  return WithPackage(c, [&](Target& t) {
    auto e = type ? ExeOfType(t, type) : MainExe(t);
    if (!e) return Decline(c, "the package has no executable of the kind this rule needs");
    return mutate(t, *e);
  });
}

// ---------------------------------------------------------------------------
// Byte patches: where the package and the custom options are in the file.

std::optional<size_t> FindBytes(const Bytes& haystack, const Bytes& needle) {
  if (needle.empty() || needle.size() > haystack.size()) return std::nullopt;
  const auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end());
  if (it == haystack.end()) return std::nullopt;
  return static_cast<size_t>(it - haystack.begin());
}

void PutU32(Bytes& bytes, size_t at, uint32_t value) {
  for (int k = 0; k < 4; ++k) bytes[at + k] = static_cast<uint8_t>(value >> (8 * k));
}

// Patches the package's own bytes inside the file (found by its serialized
// form, which the file holds unchanged).
bool PatchPackage(Ctx& c, const Package& package,
                  const std::function<bool(Bytes& file, size_t start, size_t size)>& patch) {
  const Bytes alone = SerializePackage(package, c.options.layout);
  c.patch = [alone, patch](Bytes& file, Ctx&) {
    const auto start = FindBytes(file, alone);
    return start && patch(file, *start, alone.size());
  };
  return true;
}

// ---------------------------------------------------------------------------
// A. The TFLite model and its Edge TPU operators

bool TfliteVerify(Ctx& c) {
  if (!std::holds_alternative<TfliteModel>(c.file)) return Decline(c, "a bare package");
  c.path = "";
  c.patch = [](Bytes& file, Ctx&) {
    PutU32(file, 0, static_cast<uint32_t>(file.size() + 64));  // the root past the end
    return true;
  };
  return true;
}

bool NoEdgetpuOp(Ctx& c) {
  return WithOp(c, [&](Target& t) {
    t.code->custom_code = "vendor-custom-op";
    c.path = "";
    return true;
  });
}

bool OpcodeIndex(Ctx& c) {
  return WithOp(c, [&](Target& t) {
    SubGraph& graph = (*t.tflite->subgraphs)[0];
    Operator extra;
    extra.opcode_index = static_cast<uint32_t>(t.tflite->operator_codes->size());
    extra.inputs = Vec<int32_t>{};
    extra.outputs = Vec<int32_t>{};
    graph.operators->push_back(extra);
    c.path = Str("subgraphs[0].operators[", graph.operators->size() - 1, "].opcode_index");
    return true;
  });
}

bool BuiltinCode(Ctx& c) {
  return WithOp(c, [&](Target& t) {
    t.code->deprecated_builtin_code = 0;
    t.code->builtin_code = 1;
    c.path = Str("operator_codes[", t.code_index, "]");
    return true;
  });
}

bool TensorIndex(Ctx& c) {
  return WithOp(c, [&](Target& t) {
    if (!t.op->inputs || t.op->inputs->empty()) return Decline(c, "the operator has no input");
    const auto& tensors = (*t.tflite->subgraphs)[0].tensors;
    (*t.op->inputs)[0] = static_cast<int32_t>(tensors ? tensors->size() : 0);
    c.path = t.op_path + ".inputs[0]";
    return true;
  });
}

bool CustomOptionsMissing(Ctx& c) {
  return WithOp(c, [&](Target& t) {
    t.op->custom_options = std::nullopt;
    c.path = t.op_path;
    return true;
  });
}

bool CustomOptionsFormat(Ctx& c) {
  return WithOp(c, [&](Target& t) {
    t.op->custom_options_format = 1;
    c.path = t.op_path + ".custom_options_format";
    return true;
  });
}

bool LargeCustomOptions(Ctx& c) {
  return WithOp(c, [&](Target& t) {
    t.op->custom_options = std::nullopt;
    t.op->large_custom_options_offset = 2;
    t.op->large_custom_options_size = uint64_t{1} << 40;
    c.path = t.op_path + ".large_custom_options_offset";
    return true;
  });
}

// The custom options: a FlexBuffer map holding the package

bool FlexMalformed(Ctx& c) {
  return WithOptions(c, [&](Target& t) {
    const Bytes alone = SerializeFlexMap(*t.options, c.options.layout);
    c.path = t.op_path + ".custom_options";
    c.patch = [alone](Bytes& file, Ctx&) {
      const auto start = FindBytes(file, alone);
      if (!start) return false;
      file[*start + alone.size() - 1] = 3;  // a root width of 3 bytes
      return true;
    };
    return true;
  });
}

bool FlexRootMap(Ctx& c) {
  return WithOp(c, [&](Target& t) {
    flexbuffers::Builder b;
    b.Int(4);
    b.Finish();
    t.op->custom_options = CustomOptions(b.GetBuffer());
    c.path = t.op_path + ".custom_options";
    return true;
  });
}

bool FlexKeysSorted(Ctx& c) {
  return WithOptions(c, [&](Target& t) {
    auto& entries = t.options->entries;
    const auto five = std::find_if(entries.begin(), entries.end(),
                                   [](const FlexEntry& e) { return e.key == "5"; });
    if (five == entries.end() || five == entries.begin())
      return Decline(c, "no key \"5\" after another to move");
    std::iter_swap(five, five - 1);
    c.path = t.op_path + ".custom_options";
    return true;
  });
}

bool PackageMissing(Ctx& c) {
  return WithOptions(c, [&](Target& t) {
    auto& entries = t.options->entries;
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [](const FlexEntry& e) { return e.key == "4"; }),
                  entries.end());
    c.path = t.op_path + ".custom_options";
    return true;
  });
}

bool PackageType(Ctx& c) {
  return WithOptions(c, [&](Target& t) {
    FlexEntry* e = Entry(*t.options, "4");
    auto* package = e ? std::get_if<FlexPackage>(&e->value) : nullptr;
    if (package == nullptr) return Decline(c, "no package under \"4\"");
    package->blob = true;
    c.path = t.op_path + ".custom_options[\"4\"]";
    return true;
  });
}

bool FlexVersion(Ctx& c) {
  return WithOptions(c, [&](Target& t) {
    SetEntry(*t.options, {"1", FlexInt{1}});
    c.path = t.op_path + ".custom_options[\"1\"]";
    return true;
  });
}

bool FlexChips(Ctx& c) {
  return WithOptions(c, [&](Target& t) {
    SetEntry(*t.options, {"6", FlexVector{}});
    c.path = t.op_path + ".custom_options[\"6\"]";
    return true;
  });
}

bool MultiplePackages(Ctx& c) {
  return WithOptions(c, [&](Target& t) {
    SetEntry(*t.options, {"6", FlexVector{{int64_t{18}, int64_t{18}}}});
    SetEntry(*t.options, {"7", FlexVector{{std::string("second package")}}});
    c.path = t.op_path + ".custom_options[\"7\"]";
    return true;
  });
}

bool DeprecatedKey(Ctx& c) {
  return WithOptions(c, [&](Target& t) {
    SetEntry(*t.options, {"3", FlexString{{'o', 'l', 'd'}}});
    c.path = t.op_path + ".custom_options[\"3\"]";
    return true;
  });
}

bool PreferenceType(Ctx& c) {
  return WithOptions(c, [&](Target& t) {
    SetEntry(*t.options, {"5", FlexString{{'f', 'a', 's', 't'}}});
    c.path = t.op_path + ".custom_options[\"5\"]";
    return true;
  });
}

// §5.3: bare executables under "3" and "4", as 2019 compilers wrote them.
bool LegacyPackage(Ctx& c) {
  return WithOptions(c, [&](Target& t) {
    if (t.package == nullptr) return Decline(c, "no package under \"4\"");
    const auto main = MainExe(t);
    if (!main) return Decline(c, "no executable in model form");
    const Bytes executable = SerializeExecutable(*main->exe);
    SetEntry(*t.options, {"3", FlexString{executable}});
    SetEntry(*t.options, {"4", FlexString{executable}});
    c.path = t.op_path + ".custom_options[\"4\"]";
    return true;
  });
}

// The operator's tensors against the main executable's layers (§2.7)

// The tensor of the operator's i-th input (or output), with its path.
struct OpTensor {
  Tensor* tensor;
  std::string path;  // "subgraphs[0].tensors[3]"
};

std::optional<OpTensor> TensorOf(Target& t, bool output, size_t i) {
  const Opt<Vec<int32_t>>& list = output ? t.op->outputs : t.op->inputs;
  auto& tensors = (*t.tflite->subgraphs)[0].tensors;
  if (!list || i >= list->size() || !tensors) return std::nullopt;
  const int32_t k = (*list)[i];
  if (k < 0 || static_cast<size_t>(k) >= tensors->size()) return std::nullopt;
  return OpTensor{&(*tensors)[k], Str("subgraphs[0].tensors[", k, "]")};
}

bool WithTensor(Ctx& c, bool output, size_t i, const std::function<bool(OpTensor&)>& mutate) {
  return WithOp(c, [&](Target& t) {
    auto tensor = TensorOf(t, output, i);
    if (!tensor) return Decline(c, Str("the operator has no ", output ? "output " : "input ", i));
    return mutate(*tensor);
  });
}

bool IoInputCount(Ctx& c) {
  return WithOp(c, [&](Target& t) {
    if (!t.op->inputs || t.op->inputs->empty()) return Decline(c, "the operator has no input");
    t.op->inputs->pop_back();  // the remaining inputs still pair with their layers
    c.path = t.op_path + ".inputs";
    return true;
  });
}

// An INT32 tensor pairs only with SIGNED_FIXED_POINT32, a UINT8 one with no
// signed layer (§1.5).
bool IoInputType(Ctx& c) {
  return WithTensor(c, false, 0, [&](OpTensor& at) {
    at.tensor->type = at.tensor->type.value_or(kFloat32) == kUint8 ? kInt8 : kUint8;
    c.path = at.path + ".type";
    return true;
  });
}

bool IoOutputType(Ctx& c) {
  return WithTensor(c, true, 0, [&](OpTensor& at) {
    at.tensor->type = at.tensor->type.value_or(kFloat32) == kInt32 ? kInt8 : kInt32;
    c.path = at.path + ".type";
    return true;
  });
}

// One more element in the last dimension: neither one batch element nor
// several.
bool IoByteSize(Ctx& c) {
  return WithTensor(c, false, 0, [&](OpTensor& at) {
    if (!at.tensor->shape || at.tensor->shape->size() < 2)
      return Decline(c, "the input has no dimension after its batch");
    ++at.tensor->shape->back();
    c.path = at.path + ".shape";
    return true;
  });
}

// The second input becomes a batch of two, the first stays one.
bool IoBatch(Ctx& c) {
  return WithTensor(c, false, 1, [&](OpTensor& at) {
    if (!at.tensor->shape || at.tensor->shape->empty() || (*at.tensor->shape)[0] != 1)
      return Decline(c, "the second input has no batch dimension of 1");
    (*at.tensor->shape)[0] = 2;
    c.path = at.path + ".shape";
    return true;
  });
}

bool IoOutputCount(Ctx& c) {
  return WithOp(c, [&](Target& t) {
    if (!t.op->outputs || t.op->outputs->empty()) return Decline(c, "the operator has no output");
    t.op->outputs->pop_back();
    c.path = t.op_path + ".outputs";
    return true;
  });
}

// The last regular output moved after the variable ones: names, links and
// hints stay as they are, only the order breaks. The regular outputs before
// it keep their node outputs, and it pairs with none (EDG-15).
bool IoVariableOutput(Ctx& c) {
  if (!std::holds_alternative<TfliteModel>(c.file))
    return Decline(c, "a bare package has no operator");
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    auto& layers = e.exe->output_layers;
    const auto variable = [](const Layer& l) {
      return l.name && l.name->ends_with("_variable_output");
    };
    if (!layers || layers->empty() || !variable(layers->back()))
      return Decline(c, "no variable output after a regular one");
    const auto last_regular = std::find_if_not(layers->rbegin(), layers->rend(), variable);
    if (last_regular == layers->rend()) return Decline(c, "no regular output");
    const auto from = last_regular.base() - 1;
    c.path = Str(e.path, ".output_layers[", from - layers->begin(), "].name");
    std::rotate(from, from + 1, layers->end());
    return true;
  });
}

bool IoName(Ctx& c) {
  return WithTensor(c, false, 0, [&](OpTensor& at) {
    at.tensor->name = at.tensor->name.value_or("") + "_renamed";
    c.path = at.path + ".name";
    return true;
  });
}

bool IoQuantization(Ctx& c) {
  return WithTensor(c, false, 0, [&](OpTensor& at) {
    auto& q = at.tensor->quantization;
    if (!q || !q->scale || q->scale->empty()) return Decline(c, "the input has no scale");
    (*q->scale)[0] *= 2;
    c.path = at.path + ".quantization";
    return true;
  });
}

// ---------------------------------------------------------------------------
// B. The package

// A bare package is one by its identifier (§2): only a model's package can
// lose it.
bool PackageIdentifier(Ctx& c) {
  if (!std::holds_alternative<TfliteModel>(c.file)) return Decline(c, "a bare package");
  return WithPackage(c, [&](Target& t) {
    c.path = t.package_path;
    return PatchPackage(c, *t.package, [](Bytes& file, size_t start, size_t) {
      std::memcpy(file.data() + start + 4, "DWN0", 4);
      return true;
    });
  });
}

bool PackageVerify(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    c.path = t.package_path;
    return PatchPackage(c, *t.package, [](Bytes& file, size_t start, size_t size) {
      PutU32(file, start, static_cast<uint32_t>(size + 16));  // the root past the end
      return true;
    });
  });
}

// A scalar of the package set to `value`, reported at `field`.
template <typename T>
bool SetPackageField(Ctx& c, Opt<T> Package::*member, T value, std::string_view field) {
  return WithPackage(c, [&](Target& t) {
    t.package->*member = value;
    c.path = JoinPath(t.package_path, field);
    return true;
  });
}

bool RuntimeTooNew(Ctx& c) {
  return SetPackageField(c, &Package::min_runtime_version, 15, "min_runtime_version");
}
bool RuntimeTooOld(Ctx& c) {
  return SetPackageField(c, &Package::min_runtime_version, 9, "min_runtime_version");
}
bool MultiChip(Ctx& c) {
  return SetPackageField(c, &Package::virtual_chip_id, -1, "virtual_chip_id");
}
bool VirtualChip(Ctx& c) {
  return SetPackageField(c, &Package::virtual_chip_id, 1, "virtual_chip_id");
}
bool Signature(Ctx& c) {
  return SetPackageField(c, &Package::signature, Vec<uint8_t>{1, 2, 3, 4}, "signature");
}
bool CompilerVersion(Ctx& c) {
  return SetPackageField(c, &Package::compiler_version, std::string("1.0"), "compiler_version");
}

bool NoExecutables(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    t.package->multi_executable = std::nullopt;
    c.path = JoinPath(t.package_path, "serialized_multi_executable");
    return true;
  });
}

bool MultiVerify(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    t.package->multi_executable = Nested<MultiExecutable>(Vec<uint8_t>(16, 0xff));
    c.path = JoinPath(t.package_path, "serialized_multi_executable");
    return true;
  });
}

// ---------------------------------------------------------------------------
// C. The executables

bool ExecutableVerify(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    auto* multi = std::get_if<MultiExecutable>(&*t.package->multi_executable);
    if (multi == nullptr || !multi->executables || multi->executables->empty())
      return Decline(c, "no executables in model form");
    // A whole page, as the compiler writes executables (EDG-87).
    (*multi->executables)[0] = Nested<Executable>(Vec<uint8_t>(4096, 0xff));
    c.path = JoinPath(t.package_path, "executables[0]");
    return true;
  });
}

bool ExecutableAlign(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    // Every executable 4 bytes past a 4096-byte boundary: its parameters
    // (4096-aligned inside it) move with it.
    c.options.layout.executable_offset = 4;
    c.path = JoinPath(t.package_path, "serialized_multi_executable.serialized_executables");
    return true;
  });
}

// Points serialized_executables[1] at executable 0's string.
bool ExecutableOverlap(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    if (Executables(t).size() < 2) return Decline(c, "fewer than two executables");
    c.path = JoinPath(t.package_path, "serialized_multi_executable.serialized_executables");
    return PatchPackage(c, *t.package, [](Bytes& file, size_t start, size_t size) {
      const Bytes aligned(file.begin() + static_cast<std::ptrdiff_t>(start),
                          file.begin() + static_cast<std::ptrdiff_t>(start + size));
      const auto* package = flatbuffers::GetRoot<platforms::darwinn::Package>(aligned.data());
      const auto* multi_bytes = package->serialized_multi_executable();
      const auto* multi =
          flatbuffers::GetRoot<platforms::darwinn::MultiExecutable>(multi_bytes->data());
      const auto* strings = multi->serialized_executables();
      const auto at = [&](const void* p) {
        return static_cast<size_t>(static_cast<const uint8_t*>(p) - aligned.data());
      };
      const size_t slot1 = at(strings->Data()) + 4;
      const size_t string0 = at(strings->Get(0));
      if (string0 <= slot1) return false;
      PutU32(file, start + slot1, static_cast<uint32_t>(string0 - slot1));
      return true;
    });
  });
}

// A field of the executable of `type` (the main one when nullopt) changed by `set`.
bool ChangeExe(Ctx& c, std::optional<int16_t> type, std::string_view field,
               const std::function<void(Executable&)>& set) {
  return WithExe(c, type, [&](Target&, Exe& e) {
    set(*e.exe);
    c.path = JoinPath(e.path, field);
    return true;
  });
}

bool ExecutableName(Ctx& c) {
  return ChangeExe(c, std::nullopt, "name", [](Executable& e) { e.name = std::nullopt; });
}
// The PC executable patches no activation, so a batch of 0 breaks no link.
bool BatchSize(Ctx& c) {
  return ChangeExe(c, kParameterCaching, "batch_size", [](Executable& e) { e.batch_size = 0; });
}
bool DuplicateType(Ctx& c) {
  return ChangeExe(c, kParameterCaching, "type", [](Executable& e) { e.type = kExecutionOnly; });
}
bool Combination(Ctx& c) {
  return WithExe(c, kParameterCaching, [&](Target& t, Exe& e) {
    e.exe->type = kStandAlone;
    c.path = JoinPath(t.package_path, "serialized_multi_executable.serialized_executables");
    return true;
  });
}
bool SingleType(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    const auto all = Executables(t);
    if (all.size() != 1) return Decline(c, "the package has more than one executable");
    all[0].exe->type = kExecutionOnly;
    c.path = JoinPath(all[0].path, "type");
    return true;
  });
}
bool TypeValue(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    const auto all = Executables(t);
    if (all.size() != 1) return Decline(c, "the package has more than one executable");
    all[0].exe->type = 7;
    c.path = JoinPath(all[0].path, "type");
    return true;
  });
}
bool PcToken(Ctx& c) {
  return ChangeExe(c, kParameterCaching, "parameter_caching_token",
                   [](Executable& e) { e.parameter_caching_token = 0; });
}
bool TokenMismatch(Ctx& c) {
  return ChangeExe(c, kExecutionOnly, "parameter_caching_token", [](Executable& e) {
    e.parameter_caching_token = e.parameter_caching_token.value_or(0) + 1;
  });
}
bool PcLayers(Ctx& c) {
  return WithExe(c, kParameterCaching, [&](Target& t, Exe& pc) {
    const auto main = MainExe(t);
    if (!main || !main->exe->input_layers || main->exe->input_layers->empty())
      return Decline(c, "no input layer to copy");
    pc.exe->input_layers = Vec<Layer>{(*main->exe->input_layers)[0]};
    c.path = JoinPath(pc.path, "input_layers");
    return true;
  });
}
bool Chip(Ctx& c) {
  return ChangeExe(c, std::nullopt, "chip", [](Executable& e) { e.chip = "jago"; });
}
bool ExecutableVersion(Ctx& c) {
  return ChangeExe(c, std::nullopt, "version", [](Executable& e) { e.version = 1; });
}
bool Dram(Ctx& c) {
  return ChangeExe(c, std::nullopt, "use_tpu_dram_for_parameters",
                   [](Executable& e) { e.use_tpu_dram_for_parameters = true; });
}
bool ScratchSize(Ctx& c) {
  return ChangeExe(c, kParameterCaching, "scratch_size_bytes",
                   [](Executable& e) { e.scratch_size_bytes = -4096; });
}
bool Cycles(Ctx& c) {
  return ChangeExe(c, std::nullopt, "estimated_cycles",
                   [](Executable& e) { e.estimated_cycles = -1; });
}

// ---------------------------------------------------------------------------
// D. Bitstreams and field offsets

struct Chunk {
  InstructionBitstream* chunk;
  std::string path;
};

std::optional<Chunk> FirstChunk(Exe& e) {
  if (!e.exe->instruction_bitstreams || e.exe->instruction_bitstreams->empty()) return std::nullopt;
  auto& chunk = (*e.exe->instruction_bitstreams)[0];
  if (!chunk.bitstream || chunk.bitstream->empty()) return std::nullopt;
  if (!chunk.field_offsets) chunk.field_offsets = Vec<FieldOffset>{};
  return Chunk{&chunk, JoinPath(e.path, "instruction_bitstreams[0]")};
}

// Appends `field` to the first chunk of the main executable; the path names it.
bool AppendField(Ctx& c, FieldOffset field, std::string_view inner) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    auto chunk = FirstChunk(e);
    if (!chunk) return Decline(c, "no bitstream chunk");
    chunk->chunk->field_offsets->push_back(std::move(field));
    c.path = Str(chunk->path, ".field_offsets[", chunk->chunk->field_offsets->size() - 1, "]",
                 inner.empty() ? "" : ".", inner);
    return true;
  });
}

Meta MetaOf(int16_t desc, int32_t batch, std::string name, int16_t position) {
  return Meta{desc, batch, std::move(name), position};
}

bool BitstreamMissing(Ctx& c) {
  return ChangeExe(c, kParameterCaching, "instruction_bitstreams",
                   [](Executable& e) { e.instruction_bitstreams = std::nullopt; });
}
bool BitstreamEmpty(Ctx& c) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    auto chunk = FirstChunk(e);
    if (!chunk) return Decline(c, "no bitstream chunk");
    chunk->chunk->bitstream = Vec<uint8_t>{};
    c.path = chunk->path + ".bitstream";
    return true;
  });
}
bool LinkMeta(Ctx& c) { return AppendField(c, FieldOffset{std::nullopt, 70}, "meta"); }
bool LinkDesc(Ctx& c) {
  return AppendField(c, FieldOffset{MetaOf(7, 0, "", kLower32), 70}, "meta.desc");
}
bool LinkPosition(Ctx& c) {
  return AppendField(c, FieldOffset{MetaOf(kParameter, 0, "", 2), 70}, "meta.position");
}
bool LinkBounds(Ctx& c) {
  return AppendField(c, FieldOffset{MetaOf(kParameter, 0, "", kLower32), 1 << 30}, "offset_bit");
}
bool LinkName(Ctx& c) {
  return AppendField(c, FieldOffset{MetaOf(kInputActivation, 0, "no such layer", kLower32), 70},
                     "meta.name");
}
bool LinkBatch(Ctx& c) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    if (!e.exe->input_layers || e.exe->input_layers->empty() || !(*e.exe->input_layers)[0].name)
      return Decline(c, "no named input layer");
    const std::string name = *(*e.exe->input_layers)[0].name;
    const int32_t batches = e.exe->batch_size.value_or(0);
    auto chunk = FirstChunk(e);
    if (!chunk) return Decline(c, "no bitstream chunk");
    chunk->chunk->field_offsets->push_back(
        FieldOffset{MetaOf(kInputActivation, batches, name, kLower32), 70});
    c.path = Str(chunk->path, ".field_offsets[", chunk->chunk->field_offsets->size() - 1,
                 "].meta.batch");
    return true;
  });
}
bool LinkScratchBatch(Ctx& c) {
  return AppendField(c, FieldOffset{MetaOf(kScratch, 1, "", kLower32), 70}, "meta.batch");
}

// The first field offset of the main executable's first chunk with `desc`.
bool ChangeField(Ctx& c, int16_t desc, std::string_view inner,
                 const std::function<void(FieldOffset&)>& set) {
  return WithPackage(c, [&](Target& t) {
    for (Exe& e : Executables(t)) {
      auto chunk = FirstChunk(e);
      if (!chunk) continue;
      auto& fields = *chunk->chunk->field_offsets;
      for (size_t i = 0; i < fields.size(); ++i) {
        if (!fields[i].meta || fields[i].meta->desc.value_or(0) != desc) continue;
        set(fields[i]);
        c.path = Str(chunk->path, ".field_offsets[", i, "]", inner.empty() ? "" : ".", inner);
        return true;
      }
    }
    return Decline(c, "no field offset of that kind");
  });
}

bool LinkUnexpectedName(Ctx& c) {
  return ChangeField(c, kParameter, "meta.name",
                     [](FieldOffset& f) { f.meta->name = std::string("weights"); });
}

// A third patch of one address's lower half, in 16 new zero bytes at the
// end of the chunk so that it overlaps nothing.
bool LinkPairs(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    for (Exe& e : Executables(t)) {
      auto chunk = FirstChunk(e);
      if (!chunk || chunk->chunk->field_offsets->empty()) continue;
      FieldOffset extra = chunk->chunk->field_offsets->front();
      if (!extra.meta) continue;
      auto& bits = *chunk->chunk->bitstream;
      extra.offset_bit = static_cast<int32_t>(bits.size() * 8 + 70);
      extra.meta->position = kLower32;
      bits.resize(bits.size() + 16, 0);
      chunk->chunk->field_offsets->push_back(extra);
      c.path = JoinPath(e.path, "instruction_bitstreams");
      return true;
    }
    return Decline(c, "no field offset to repeat");
  });
}

// Both halves of one address patched twice at the same bits: each second
// patch overwrites the first.
bool LinkOverlap(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    for (Exe& e : Executables(t)) {
      auto chunk = FirstChunk(e);
      if (!chunk || chunk->chunk->field_offsets->size() < 2) continue;
      auto& fields = *chunk->chunk->field_offsets;
      const size_t first_copy = fields.size();
      const Vec<FieldOffset> copy = fields;
      fields.insert(fields.end(), copy.begin(), copy.end());
      c.path = Str(chunk->path, ".field_offsets[", first_copy, "]");
      return true;
    }
    return Decline(c, "no chunk with field offsets");
  });
}

bool BitstreamConvention(Ctx& c) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    auto chunk = FirstChunk(e);
    if (!chunk) return Decline(c, "no bitstream chunk");
    chunk->chunk->bitstream->push_back(0);
    c.path = chunk->path + ".bitstream";
    return true;
  });
}

// ---------------------------------------------------------------------------
// E. Parameters

// An executable's hints, when it has a hints vector.
Vec<DmaHint>* HintsOf(Exe& e) {
  if (!e.exe->dma_hints || !e.exe->dma_hints->hints) return nullptr;
  return &*e.exe->dma_hints->hints;
}

// The first executable with parameters.
bool WithParameters(Ctx& c, const std::function<bool(Target&, Exe&)>& mutate) {
  return WithPackage(c, [&](Target& t) {
    for (Exe& e : Executables(t)) {
      if (e.exe->parameters && !e.exe->parameters->empty()) return mutate(t, e);
    }
    return Decline(c, "no executable with parameters");
  });
}

bool ParametersAlign(Ctx& c) {
  return WithParameters(c, [&](Target&, Exe& e) {
    c.options.layout.parameters_offset = 4;
    c.path = JoinPath(e.path, "parameters");
    return true;
  });
}
bool ParametersPageAlign(Ctx& c) {
  return WithParameters(c, [&](Target&, Exe& e) {
    c.options.layout.parameters_offset = 8;
    c.path = JoinPath(e.path, "parameters");
    return true;
  });
}
// One byte more, streamed by the last parameter descriptor.
bool ParametersLength(Ctx& c) {
  return WithParameters(c, [&](Target&, Exe& e) {
    const auto end = static_cast<int32_t>(e.exe->parameters->size());
    Vec<DmaHint>* hints = HintsOf(e);
    for (auto it = hints ? hints->rbegin() : Vec<DmaHint>::reverse_iterator();
         hints && it != hints->rend(); ++it) {
      auto* d = std::get_if<DmaDescriptorHint>(&it->hint);
      if (d == nullptr || !d->meta || d->meta->desc.value_or(0) != kParameter ||
          d->offset_in_bytes.value_or(0) + d->size_in_bytes.value_or(0) != end)
        continue;
      d->size_in_bytes = *d->size_in_bytes + 1;
      e.exe->parameters->push_back(0);
      c.path = JoinPath(e.path, "parameters");
      return true;
    }
    return Decline(c, "no descriptor streams the parameters' last byte");
  });
}

// ---------------------------------------------------------------------------
// F. DMA hints

// Appends `hint` to the main executable's hints; the path names it.
bool AppendHint(Ctx& c, const std::function<std::optional<DmaHint>(Exe&)>& make) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    Vec<DmaHint>* hints = HintsOf(e);
    if (hints == nullptr) return Decline(c, "the executable has no hints");
    auto hint = make(e);
    if (!hint) return Decline(c, "the executable has nothing this hint needs");
    hints->push_back(std::move(*hint));
    c.path = Str(e.path, ".dma_hints.hints[", hints->size() - 1, "]");
    return true;
  });
}

DmaHint Descriptor(int16_t desc, int32_t batch, std::string name, int32_t offset, int32_t size,
                   int16_t direction) {
  return DmaHint::Of(
      DmaDescriptorHint{MetaOf(desc, batch, std::move(name), kLower32), offset, size}, direction);
}

// The first input layer's name and byte size, when there is one.
std::optional<std::pair<std::string, int32_t>> FirstLayer(const Opt<Vec<Layer>>& layers) {
  if (!layers || layers->empty() || !(*layers)[0].name || !(*layers)[0].size_bytes)
    return std::nullopt;
  return std::pair{*(*layers)[0].name, *(*layers)[0].size_bytes};
}

bool HintsMissing(Ctx& c) {
  return ChangeExe(c, std::nullopt, "dma_hints", [](Executable& e) { e.dma_hints = std::nullopt; });
}
bool HintsNotDeterministic(Ctx& c) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    if (!e.exe->dma_hints) return Decline(c, "the executable has no hints");
    e.exe->dma_hints->fully_deterministic = false;
    c.path = JoinPath(e.path, "dma_hints");
    return true;
  });
}
bool HintsType(Ctx& c) {
  return AppendHint(c, [](Exe&) { return DmaHint{}; });
}
bool HintsUnknownType(Ctx& c) {
  return AppendHint(c, [](Exe&) {
    DmaHint hint;
    hint.type = 5;
    return hint;
  });
}
bool HintsMeta(Ctx& c) {
  return AppendHint(c, [](Exe&) {
    return DmaHint::Of(DmaDescriptorHint{std::nullopt, 0, 64}, kInfeed);
  });
}
bool HintsLayer(Ctx& c) {
  return AppendHint(
      c, [](Exe&) { return Descriptor(kInputActivation, 0, "no such layer", 0, 64, kInfeed); });
}
bool HintsBatch(Ctx& c) {
  return AppendHint(c, [](Exe& e) -> std::optional<DmaHint> {
    const auto input = FirstLayer(e.exe->input_layers);
    if (!input) return std::nullopt;
    return Descriptor(kInputActivation, e.exe->batch_size.value_or(1), input->first, 0,
                      input->second, kInfeed);
  });
}
bool HintsInputBounds(Ctx& c) {
  return AppendHint(c, [](Exe& e) -> std::optional<DmaHint> {
    const auto input = FirstLayer(e.exe->input_layers);
    if (!input) return std::nullopt;
    return Descriptor(kInputActivation, 0, input->first, 0, 0, kInfeed);
  });
}
// Eight bytes past the layer, still on its buffer's last page, sent before
// the closing interrupt as the compiler orders hints.
bool HintsInputOverread(Ctx& c) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    Vec<DmaHint>* hints = HintsOf(e);
    const auto input = FirstLayer(e.exe->input_layers);
    if (hints == nullptr || hints->empty() || !input || input->second % 4096 > 4096 - 16)
      return Decline(c, "no input layer that ends short of a page");
    // From 8 bytes before the end, or the start of an input shorter than that.
    const int32_t from = std::max(0, input->second - 8);
    hints->insert(hints->end() - 1, Descriptor(kInputActivation, 0, input->first, from,
                                               input->second + 8 - from, kInfeed));
    c.path = Str(e.path, ".dma_hints.hints[", hints->size() - 2, "]");
    return true;
  });
}
bool HintsOutputBounds(Ctx& c) {
  return AppendHint(c, [](Exe& e) -> std::optional<DmaHint> {
    const auto output = FirstLayer(e.exe->output_layers);
    if (!output) return std::nullopt;
    return Descriptor(kOutputActivation, 0, output->first, output->second, 1, kOutfeed);
  });
}
bool HintsParameterBounds(Ctx& c) {
  return AppendHint(c, [](Exe& e) -> std::optional<DmaHint> {
    if (!e.exe->parameters || e.exe->parameters->empty()) return std::nullopt;
    return Descriptor(kParameter, 0, "", static_cast<int32_t>(e.exe->parameters->size()), 64,
                      kInfeed);
  });
}
bool HintsScratchBounds(Ctx& c) {
  return AppendHint(c, [](Exe& e) -> std::optional<DmaHint> {
    const int32_t scratch = e.exe->scratch_size_bytes.value_or(0);
    if (scratch <= 0) return std::nullopt;
    return Descriptor(kScratch, 0, "", scratch, 64, kInfeed);
  });
}
bool HintsChunkIndex(Ctx& c) {
  return AppendHint(c, [](Exe& e) {
    const size_t chunks = e.exe->instruction_bitstreams ? e.exe->instruction_bitstreams->size() : 0;
    return DmaHint::Of(InstructionHint{static_cast<int32_t>(chunks)}, kInfeed);
  });
}
bool HintsInterruptType(Ctx& c) {
  return AppendHint(c, [](Exe&) { return DmaHint::Of(InterruptHint{int16_t{4}}, kOutfeed); });
}
bool HintsDirection(Ctx& c) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    Vec<DmaHint>* hints = HintsOf(e);
    if (hints == nullptr || hints->empty()) return Decline(c, "the executable has no hints");
    (*hints)[0].direction = kOutfeed;
    c.path = JoinPath(e.path, "dma_hints.hints[0].direction");
    return true;
  });
}
// A fully deterministic stream that ends with InterruptHint 1.
bool HintsGrammar(Ctx& c) {
  return AppendHint(c, [](Exe&) { return DmaHint::Of(InterruptHint{int16_t{1}}, kOutfeed); });
}
// Chunk 0 sent a second time, before the closing interrupt.
bool HintsOrder(Ctx& c) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    Vec<DmaHint>* hints = HintsOf(e);
    if (hints == nullptr || hints->size() < 2) return Decline(c, "too few hints");
    const DmaHint first = hints->front();
    hints->insert(hints->end() - 1, first);
    c.path = JoinPath(e.path, "dma_hints.hints");
    return true;
  });
}
// The last output descriptor one byte short: a byte of the output is never
// received.
bool HintsCoverage(Ctx& c) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    Vec<DmaHint>* hints = HintsOf(e);
    if (hints == nullptr) return Decline(c, "the executable has no hints");
    for (auto it = hints->rbegin(); it != hints->rend(); ++it) {
      auto* d = std::get_if<DmaDescriptorHint>(&it->hint);
      if (d == nullptr || !d->meta || d->meta->desc.value_or(0) != kOutputActivation ||
          d->size_in_bytes.value_or(0) < 2)
        continue;
      d->size_in_bytes = *d->size_in_bytes - 1;
      c.path = JoinPath(e.path, "dma_hints.hints");
      return true;
    }
    return Decline(c, "no output descriptor");
  });
}

// ---------------------------------------------------------------------------
// G. Layers and H. Output layouts (docs/formats/edgetpu.md §1.5, §6.3)

// A layer of the main executable, with its path.
struct LayerAt {
  Exe exe;
  Layer* layer;
  std::string path;  // "...executables[0].output_layers[1]"
};

// The first output (or input) layer of the main executable that `accept`
// takes.
bool WithLayer(Ctx& c, bool output, const std::function<bool(Layer&)>& accept,
               const std::function<bool(LayerAt&)>& mutate) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    Opt<Vec<Layer>>& layers = output ? e.exe->output_layers : e.exe->input_layers;
    for (size_t i = 0; layers && i < layers->size(); ++i) {
      if (!accept((*layers)[i])) continue;
      LayerAt at{e, &(*layers)[i],
                 Str(e.path, output ? ".output_layers[" : ".input_layers[", i, "]")};
      return mutate(at);
    }
    return Decline(c, "the main executable has no layer this rule can break");
  });
}

bool AnyLayer(Layer&) { return true; }

// The DMA descriptors of `exe` whose meta names layer `name` with `desc`
// (INPUT or OUTPUT).
std::vector<DmaDescriptorHint*> DescriptorsOf(Executable& exe, int16_t desc,
                                              const std::string& name) {
  std::vector<DmaDescriptorHint*> out;
  if (!exe.dma_hints || !exe.dma_hints->hints) return out;
  for (DmaHint& hint : *exe.dma_hints->hints) {
    auto* d = std::get_if<DmaDescriptorHint>(&hint.hint);
    if (d != nullptr && d->meta && d->meta->desc.value_or(0) == desc && d->meta->name == name)
      out.push_back(d);
  }
  return out;
}

// The maps of an output's layout, as the element map of §6.3 reads them,
// when all six are there with the layer's dimensions (so in a valid base).
struct LayoutOf {
  OutputLayout* layout = nullptr;
  int32_t y = 0, x = 0, z = 0, element = 0;

  explicit LayoutOf(Layer& l) {
    auto* out = std::get_if<OutputLayer>(&l.any_layer);
    if (out == nullptr || !out->layout || !ElementSize(l.data_type.value_or(0))) return;
    OutputLayout& m = *out->layout;
    y = l.y_dim.value_or(0);
    x = l.x_dim.value_or(0);
    z = l.z_dim.value_or(0);
    element = *ElementSize(l.data_type.value_or(0));
    const auto has = [](const Opt<Vec<int32_t>>& v, int32_t n) {
      return v && static_cast<int64_t>(v->size()) == n;
    };
    if (y < 1 || x < 1 || z < 1 || !has(m.y_coordinate_to_linear_tile_id_map, y) ||
        !has(m.y_coordinate_to_local_y_offset, y) ||
        !has(m.x_coordinate_to_linear_tile_id_map, x) ||
        !has(m.x_coordinate_to_local_byte_offset, x) ||
        !has(m.x_coordinate_to_local_y_row_size, x) || !m.linearized_tile_byte_offset)
      return;
    layout = &m;
  }
  explicit operator bool() const { return layout != nullptr; }
  bool multi() const { return y * x > 1; }

  Vec<int32_t>& x_local() { return *layout->x_coordinate_to_local_byte_offset; }
  Vec<int32_t>& y_local() { return *layout->y_coordinate_to_local_y_offset; }
  int32_t y_tile(int32_t i) const { return (*layout->y_coordinate_to_linear_tile_id_map)[i]; }
  int32_t x_tile(int32_t i) const { return (*layout->x_coordinate_to_linear_tile_id_map)[i]; }
  int64_t Index(int32_t yi, int32_t xi) const {
    const auto tile = static_cast<size_t>(y_tile(yi) + x_tile(xi));
    return int64_t{layout->linearized_tile_byte_offset->at(tile)} +
           int64_t{(*layout->y_coordinate_to_local_y_offset)[yi]} *
               (*layout->x_coordinate_to_local_y_row_size)[xi] +
           (*layout->x_coordinate_to_local_byte_offset)[xi];
  }
  // The padded z stride the runtime derives, in elements (§6.3 step 2).
  int64_t padded() const { return (x > 1 ? Index(0, 1) : Index(1, 0)) - Index(0, 0); }
  // How many x the first run of one x tile holds.
  int32_t first_run() const {
    int32_t n = 1;
    while (n < x && x_tile(n) == x_tile(0)) ++n;
    return n;
  }
  // The runtime copies each run from its first x's index (paths 3 and 4 of
  // §6.3), not the whole buffer in one piece (path 5).
  bool copied_per_run() const {
    if (!multi()) return false;
    return padded() != z || first_run() < x || y_tile(0) != y_tile(y - 1);
  }
};

bool LayerName(Ctx& c) {
  return WithLayer(c, true, AnyLayer, [&](LayerAt& at) {
    at.layer->name = std::nullopt;
    c.path = at.path + ".name";
    return true;
  });
}

// The bytes of one batch element's output buffer.
int64_t BufferBytes(const Layer& l) {
  return int64_t{l.size_bytes.value_or(0)} * l.execution_count_per_inference.value_or(1);
}

bool RegularOutput(const Layer& l) { return l.name && !l.name->ends_with("_variable_output"); }

// The first later regular output no larger than an earlier one, with it:
// the runtime's name map keeps the earlier of two layers of one name (and
// so does hint_plan.cc), so only its descriptors must cover the later one.
// Variable outputs keep the names that pair them with inputs (EDG-15).
std::optional<std::pair<size_t, size_t>> NamesakePair(const Vec<Layer>& layers) {
  for (size_t later = 1; later < layers.size(); ++later) {
    for (size_t earlier = 0; earlier < later; ++earlier) {
      if (RegularOutput(layers[earlier]) && RegularOutput(layers[later]) &&
          BufferBytes(layers[later]) <= BufferBytes(layers[earlier]))
        return std::pair{earlier, later};
    }
  }
  return std::nullopt;
}

// The tensor of the Edge TPU operator named `name`, among its inputs and
// outputs; null in a bare package or when none has the name.
Tensor* OperatorTensor(Ctx& c, const std::string& name) {
  auto t = FindTarget(c);
  if (!t || t->op == nullptr || !t->tflite->subgraphs) return nullptr;
  for (SubGraph& graph : *t->tflite->subgraphs) {
    if (!graph.operators || !graph.tensors || graph.operators->empty() ||
        t->op < graph.operators->data() ||
        t->op >= graph.operators->data() + graph.operators->size())
      continue;
    for (const auto* list : {&t->op->inputs, &t->op->outputs}) {
      for (const int32_t k : list->value_or(Vec<int32_t>{})) {
        if (k < 0 || static_cast<size_t>(k) >= graph.tensors->size()) continue;
        Tensor& tensor = (*graph.tensors)[static_cast<size_t>(k)];
        if (tensor.name == name) return &tensor;
      }
    }
  }
  return nullptr;
}

// A later output takes an earlier one's name, and so do the field offsets
// that named it, so that only the layers' names collide.
bool LayerDuplicateName(Ctx& c) {
  return WithExe(c, std::nullopt, [&](Target&, Exe& e) {
    auto& layers = e.exe->output_layers;
    const auto pair = layers ? NamesakePair(*layers) : std::nullopt;
    if (!pair) return Decline(c, "no regular output as large as a later one");
    const std::string old_name = *(*layers)[pair->second].name;
    const std::string new_name = *(*layers)[pair->first].name;
    (*layers)[pair->second].name = new_name;
    // The tensor follows its layer, as a compiler would name it (EDG-16).
    if (Tensor* tensor = OperatorTensor(c, old_name)) tensor->name = new_name;
    if (!e.exe->instruction_bitstreams) return Decline(c, "the executable has no bitstream");
    for (InstructionBitstream& chunk : *e.exe->instruction_bitstreams) {
      if (!chunk.field_offsets) continue;
      for (FieldOffset& f : *chunk.field_offsets) {
        if (f.meta && f.meta->desc.value_or(0) == kOutputActivation && f.meta->name == old_name)
          f.meta->name = new_name;
      }
    }
    // Its own descriptors go: under the shared name they would continue the
    // earlier output's, and the earlier output's cover both.
    if (e.exe->dma_hints && e.exe->dma_hints->hints) {
      auto& hints = *e.exe->dma_hints->hints;
      hints.erase(std::remove_if(hints.begin(), hints.end(),
                                 [&](const DmaHint& h) {
                                   const auto* d = std::get_if<DmaDescriptorHint>(&h.hint);
                                   return d != nullptr && d->meta &&
                                          d->meta->desc.value_or(0) == kOutputActivation &&
                                          d->meta->name == old_name;
                                 }),
                  hints.end());
    }
    c.path = Str(e.path, ".output_layers[", pair->second, "].name");
    return true;
  });
}

bool LayerOutputKind(Ctx& c) {
  return WithLayer(c, true, AnyLayer, [&](LayerAt& at) {
    at.layer->any_layer_type = kLayerInput;
    at.layer->any_layer = InputLayer{};
    c.path = at.path + ".any_layer_type";
    return true;
  });
}

bool LayerInputKind(Ctx& c) {
  return WithLayer(c, false, AnyLayer, [&](LayerAt& at) {
    at.layer->any_layer_type = kLayerOutput;
    at.layer->any_layer = OutputLayer{};
    c.path = at.path + ".any_layer_type";
    return true;
  });
}

// A signed layer's zero point is compared with its tensor's offset by its
// type (EDG-16), which an unknown type loses: an unsigned layer is taken.
bool Unsigned(Layer& l) {
  const int16_t type = l.data_type.value_or(kFixedPoint8);
  return type != kSignedFixedPoint8 && type != kSignedFixedPoint16;
}

bool LayerDataType(Ctx& c) {
  return WithLayer(c, true, Unsigned, [&](LayerAt& at) {
    at.layer->data_type = 7;  // between SINGLE (5) and SIGNED_FIXED_POINT8 (8)
    c.path = at.path + ".data_type";
    return true;
  });
}

bool LayerNumerics(Ctx& c) {
  return WithLayer(c, true, AnyLayer, [&](LayerAt& at) {
    at.layer->numerics = std::nullopt;
    c.path = at.path + ".numerics";
    return true;
  });
}

bool LayerDims(Ctx& c) {
  return WithLayer(c, true, AnyLayer, [&](LayerAt& at) {
    at.layer->z_dim = 0;
    c.path = at.path + ".z_dim";
    return true;
  });
}

// One byte short of the input's elements; its DMA descriptors end there too.
bool LayerSizeBytes(Ctx& c) {
  return WithLayer(c, false, AnyLayer, [&](LayerAt& at) {
    Layer& l = *at.layer;
    const auto element = ElementSize(l.data_type.value_or(0));
    if (!element || !l.name) return Decline(c, "the input has no element size or no name");
    const int32_t size =
        l.y_dim.value_or(0) * l.x_dim.value_or(0) * l.z_dim.value_or(0) * *element - 1;
    for (DmaDescriptorHint* d : DescriptorsOf(*at.exe.exe, kInputActivation, *l.name)) {
      const int32_t offset = d->offset_in_bytes.value_or(0);
      if (offset >= size) return Decline(c, "a descriptor starts past the shorter input");
      d->size_in_bytes = std::min(d->size_in_bytes.value_or(0), size - offset);
    }
    l.size_bytes = size;
    c.path = at.path + ".size_bytes";
    return true;
  });
}

bool HasShape(Layer& l) { return l.shape && l.shape->dimension && l.shape->dimension->size() >= 2; }

bool LayerShape(Ctx& c) {
  return WithLayer(c, true, HasShape, [&](LayerAt& at) {
    Range& range = (*at.layer->shape->dimension)[1];
    range.start = range.end + 1;
    c.path = at.path + ".shape.dimension[1]";
    return true;
  });
}

// A batch of two in the shape: twice the elements of y·x·z.
bool LayerShapeConvention(Ctx& c) {
  return WithLayer(c, true, HasShape, [&](LayerAt& at) {
    Range& batch = (*at.layer->shape->dimension)[0];
    batch.end = batch.start + 1;
    c.path = at.path + ".shape";
    return true;
  });
}
// The batch range moved one on: the same count from another start.
bool LayerShapeStart(Ctx& c) {
  return WithLayer(c, true, HasShape, [&](LayerAt& at) {
    Range& batch = (*at.layer->shape->dimension)[0];
    batch.start += 1;
    batch.end += 1;
    c.path = at.path + ".shape.dimension[0].start";
    return true;
  });
}

// Two executions of an output the runtime copies run by run without z
// padding (path 4 of §6.3); its descriptors move the second one too.
bool LayerExecutionCount(Ctx& c) {
  const auto runs = [](Layer& l) {
    LayoutOf m(l);
    return m && m.multi() && m.padded() == m.z && m.copied_per_run() && l.name && l.size_bytes;
  };
  return WithLayer(c, true, runs, [&](LayerAt& at) {
    const int32_t size = *at.layer->size_bytes;
    for (DmaDescriptorHint* d : DescriptorsOf(*at.exe.exe, kOutputActivation, *at.layer->name)) {
      if (d->offset_in_bytes.value_or(0) != 0 || d->size_in_bytes.value_or(0) != size)
        return Decline(c, "the output is not moved by one descriptor");
      d->size_in_bytes = 2 * size;
    }
    at.layer->execution_count_per_inference = 2;
    // The tensor holds both executions (EDG-14).
    Tensor* tensor = OperatorTensor(c, *at.layer->name);
    if (tensor != nullptr && tensor->shape && !tensor->shape->empty()) tensor->shape->front() *= 2;
    c.path = at.path + ".execution_count_per_inference";
    return true;
  });
}

bool HasMultiLayout(Layer& l) {
  LayoutOf m(l);
  return m && m.multi();
}

bool LayoutMissing(Ctx& c) {
  return WithLayer(c, true, HasMultiLayout, [&](LayerAt& at) {
    std::get<OutputLayer>(at.layer->any_layer).layout = std::nullopt;
    c.path = at.path + ".any_layer.layout";
    return true;
  });
}

bool HasLayout(Layer& l) { return static_cast<bool>(LayoutOf(l)); }

bool LayoutLengths(Ctx& c) {
  return WithLayer(c, true, HasLayout, [&](LayerAt& at) {
    LayoutOf(*at.layer).layout->y_coordinate_to_linear_tile_id_map->pop_back();
    c.path = at.path + ".any_layer.layout.y_coordinate_to_linear_tile_id_map";
    return true;
  });
}

bool LayoutTileIndex(Ctx& c) {
  return WithLayer(c, true, HasLayout, [&](LayerAt& at) {
    OutputLayout& m = *LayoutOf(*at.layer).layout;
    m.x_coordinate_to_linear_tile_id_map->back() =
        static_cast<int32_t>(m.linearized_tile_byte_offset->size());
    c.path = at.path + ".any_layer.layout";
    return true;
  });
}

bool LayoutBounds(Ctx& c) {
  return WithLayer(c, true, HasLayout, [&](LayerAt& at) {
    LayoutOf(*at.layer).x_local()[0] = -1;
    c.path = at.path + ".any_layer.layout.x_coordinate_to_local_byte_offset[0]";
    return true;
  });
}

// Every run's x stride becomes z_dim - 1, so that only the z of
// neighbouring positions overlap and the runtime's copy still follows the
// map (z bytes of 1 or 3 would make the runtime stride by 4).
bool LayoutZPadding(Ctx& c) {
  const auto fits = [](Layer& l) {
    LayoutOf m(l);
    return m && m.x > 1 && m.z > 1 && m.z * m.element != 3 && m.padded() > 0;
  };
  return WithLayer(c, true, fits, [&](LayerAt& at) {
    LayoutOf m(*at.layer);
    const int64_t padded = m.padded();
    int32_t first = 0;
    for (int32_t x = 0; x < m.x; ++x) {
      if (m.x_tile(x) != m.x_tile(first)) first = x;
      const int64_t steps = (m.x_local()[x] - m.x_local()[first]) / padded;
      m.x_local()[x] = static_cast<int32_t>(m.x_local()[first] + steps * (m.z - 1));
    }
    c.path = at.path + ".any_layer.layout";
    return true;
  });
}

// y 1 moves onto y 0's row of the same tile, where the runtime's copy, run
// by run, still follows the map.
bool LayoutInjective(Ctx& c) {
  const auto fits = [](Layer& l) {
    LayoutOf m(l);
    return m && m.copied_per_run() && m.y > 1 && m.y_tile(0) == m.y_tile(1);
  };
  return WithLayer(c, true, fits, [&](LayerAt& at) {
    LayoutOf m(*at.layer);
    m.y_local()[1] = m.y_local()[0];
    c.path = at.path + ".any_layer.layout";
    return true;
  });
}

// The third x of the first run moves one element on; the runtime copies it
// from where the first x and the stride put it.
bool LayoutRuntimeStride(Ctx& c) {
  const auto fits = [](Layer& l) {
    LayoutOf m(l);
    return m && m.first_run() >= 3 && m.x > 3;
  };
  return WithLayer(c, true, fits, [&](LayerAt& at) {
    LayoutOf(*at.layer).x_local()[2] += 1;
    c.path = at.path + ".any_layer.layout";
    return true;
  });
}

bool LayoutShapeInfo(Ctx& c) {
  return WithLayer(c, true, HasLayout, [&](LayerAt& at) {
    OutputShapeInfo info;
    info.slice_layout = Vec<TensorLayout>{};
    info.slice_offset = Vec<int32_t>{};
    std::get<OutputLayer>(at.layer->any_layer).shape_info = std::move(info);
    c.path = at.path + ".any_layer.shape_info.slice_layout";
    return true;
  });
}

// I. Package conventions ------------------------------------------------------

// A Package table too large for the first page pushes the multi-executable
// to the second: its executables keep whole pages of the package.
bool ConventionMultiPage(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    t.package->model_identifier = std::string(4200, 'm');
    c.path = JoinPath(t.package_path, "serialized_multi_executable");
    return true;
  });
}
bool ConventionExecutablePage(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    c.options.layout.executable_tail = 8;
    c.path = JoinPath(t.package_path, "serialized_multi_executable.serialized_executables");
    return true;
  });
}
bool ConventionPairOrder(Ctx& c) {
  return WithExe(c, kParameterCaching, [&](Target& t, Exe&) {
    c.options.layout.last_executable_first = false;
    c.path = JoinPath(t.package_path, "serialized_multi_executable.serialized_executables");
    return true;
  });
}
bool ConventionPackageExtent(Ctx& c) {
  return WithPackage(c, [&](Target& t) {
    c.options.layout.package_tail = 4096;
    c.path = t.package_path;
    return true;
  });
}
// Parameters in the EXECUTION_ONLY executable that no hint streams; the
// hints then no longer move every byte, which they say.
bool ConventionEoParameters(Ctx& c) {
  return WithExe(c, kExecutionOnly, [&](Target&, Exe& e) {
    if (!e.exe->dma_hints) return Decline(c, "the executable has no hints");
    e.exe->parameters = Vec<uint8_t>(64, 0x5a);
    e.exe->dma_hints->fully_deterministic = false;
    c.path = JoinPath(e.path, "parameters");
    return true;
  });
}

// ---------------------------------------------------------------------------

struct Mutation {
  const Rule* rule;
  bool (*apply)(Ctx&);
  std::vector<const Rule*> also = {};
};

const std::vector<Mutation>& Mutations() {
  using namespace rules;
  static const std::vector<Mutation> kMutations = {
      {&kTfliteVerify, TfliteVerify},
      {&kNoEdgetpuOp, NoEdgetpuOp},
      {&kOpcodeIndex, OpcodeIndex},
      {&kBuiltinCode, BuiltinCode},
      {&kTensorIndex, TensorIndex},
      {&kCustomOptionsMissing, CustomOptionsMissing},
      {&kCustomOptionsFormat, CustomOptionsFormat},
      {&kLargeCustomOptions, LargeCustomOptions},
      {&kFlexMalformed, FlexMalformed},
      {&kFlexRootMap, FlexRootMap},
      {&kFlexKeysSorted, FlexKeysSorted},
      {&kPackageMissing, PackageMissing},
      {&kPackageType, PackageType},
      {&kFlexVersion, FlexVersion},
      {&kFlexChips, FlexChips},
      {&kMultiplePackages, MultiplePackages},
      {&kDeprecatedKey, DeprecatedKey},
      {&kPreferenceType, PreferenceType},
      {&kLegacyPackage, LegacyPackage},
      {&kIoInputCount, IoInputCount},
      {&kIoInputType, IoInputType},
      {&kIoOutputType, IoOutputType},
      {&kIoByteSize, IoByteSize},
      {&kIoBatch, IoBatch},
      {&kIoOutputCount, IoOutputCount},
      {&kIoVariableOutput, IoVariableOutput},
      {&kIoName, IoName},
      {&kIoQuantization, IoQuantization},
      {&kPackageIdentifier, PackageIdentifier},
      {&kPackageVerify, PackageVerify},
      {&kRuntimeTooNew, RuntimeTooNew},
      {&kRuntimeTooOld, RuntimeTooOld},
      {&kMultiChip, MultiChip},
      {&kVirtualChip, VirtualChip},
      {&kNoExecutables, NoExecutables},
      {&kMultiVerify, MultiVerify},
      {&kSignature, Signature},
      {&kCompilerVersion, CompilerVersion},
      {&kExecutableVerify, ExecutableVerify},
      // Parameters are 4096-aligned inside their executable: they move with it;
      // and what is not 8-aligned is not 4096-aligned either (EDG-87).
      {&kExecutableAlign, ExecutableAlign, {&kParametersAlign, &kConventionExecutablePage}},
      // Two vector entries on one string are the same executable twice.
      {&kExecutableOverlap, ExecutableOverlap, {&kDuplicateType}},
      {&kExecutableName, ExecutableName},
      {&kBatchSize, BatchSize},
      {&kDuplicateType, DuplicateType},
      {&kCombination, Combination},
      {&kSingleType, SingleType},
      // An unknown type is not STAND_ALONE either.
      {&kTypeValue, TypeValue, {&kSingleType}},
      {&kPcToken, PcToken},
      {&kTokenMismatch, TokenMismatch},
      // A PC executable's hints move no layer, so the layer is never moved.
      {&kPcLayers, PcLayers, {&kHintsCoverage}},
      {&kChip, Chip},
      {&kExecutableVersion, ExecutableVersion},
      {&kDram, Dram},
      {&kScratchSize, ScratchSize},
      {&kCycles, Cycles},
      {&kBitstreamMissing, BitstreamMissing},
      {&kBitstreamEmpty, BitstreamEmpty},
      {&kLinkMeta, LinkMeta},
      {&kLinkDesc, LinkDesc},
      {&kLinkPosition, LinkPosition},
      {&kLinkBounds, LinkBounds},
      {&kLinkName, LinkName},
      {&kLinkBatch, LinkBatch},
      {&kLinkScratchBatch, LinkScratchBatch},
      {&kLinkUnexpectedName, LinkUnexpectedName},
      {&kLinkPairs, LinkPairs},
      {&kLinkOverlap, LinkOverlap},
      {&kBitstreamConvention, BitstreamConvention},
      {&kParametersAlign, ParametersAlign},
      {&kParametersPageAlign, ParametersPageAlign},
      {&kParametersLength, ParametersLength},
      // An EXECUTION_ONLY executable's own parameters are then streamed by no
      // hint (EDG-89).
      {&kHintsMissing, HintsMissing, {&kConventionEoParameters}},
      {&kHintsNotDeterministic, HintsNotDeterministic},
      {&kHintsType, HintsType},
      {&kHintsUnknownType, HintsUnknownType},
      {&kHintsMeta, HintsMeta},
      {&kHintsLayer, HintsLayer},
      {&kHintsBatch, HintsBatch},
      {&kHintsInputBounds, HintsInputBounds},
      {&kHintsInputOverread, HintsInputOverread},
      {&kHintsOutputBounds, HintsOutputBounds},
      {&kHintsParameterBounds, HintsParameterBounds},
      {&kHintsScratchBounds, HintsScratchBounds},
      {&kHintsDirection, HintsDirection},
      {&kHintsChunkIndex, HintsChunkIndex},
      {&kHintsInterruptType, HintsInterruptType},
      {&kHintsGrammar, HintsGrammar},
      {&kHintsOrder, HintsOrder},
      {&kHintsCoverage, HintsCoverage},
      // The field offsets and DMA hints that named the layer name none.
      {&kLayerName, LayerName, {&kLinkName, &kHintsLayer}},
      {&kLayerDuplicateName, LayerDuplicateName},
      {&kLayerOutputKind, LayerOutputKind},
      {&kLayerInputKind, LayerInputKind},
      {&kLayerDataType, LayerDataType},
      {&kLayerNumerics, LayerNumerics},
      {&kLayerDims, LayerDims},
      {&kLayerSizeBytes, LayerSizeBytes},
      {&kLayerShape, LayerShape},
      {&kLayerShapeConvention, LayerShapeConvention},
      {&kLayerShapeStart, LayerShapeStart},
      {&kLayerExecutionCount, LayerExecutionCount},
      {&kLayoutMissing, LayoutMissing},
      {&kLayoutLengths, LayoutLengths},
      {&kLayoutTileIndex, LayoutTileIndex},
      {&kLayoutBounds, LayoutBounds},
      {&kLayoutZPadding, LayoutZPadding},
      {&kLayoutInjective, LayoutInjective},
      {&kLayoutRuntimeStride, LayoutRuntimeStride},
      {&kLayoutShapeInfo, LayoutShapeInfo},
      {&kConventionMultiPage, ConventionMultiPage},
      {&kConventionExecutablePage, ConventionExecutablePage},
      {&kConventionPairOrder, ConventionPairOrder},
      {&kConventionPackageExtent, ConventionPackageExtent},
      {&kConventionEoParameters, ConventionEoParameters, {&kHintsNotDeterministic}},
  };
  return kMutations;
}

// No error-severity diagnostic under --strict (warnings of the default
// profile would hide a second broken rule in the result).
bool ValidatesWithoutErrors(ByteView bytes) {
  const InputBuffer input = InputBuffer::Copy(bytes);
  DiagnosticSink sink(Profile{.strict = true}, "mutation-input");
  EdgetpuFormat().Validate(input, ValidateContext{}, sink);
  return sink.error_count() == 0 && !sink.failed();
}

std::string ExtensionOf(const File& file) {
  return std::holds_alternative<Package>(file) ? ".dwn1" : ".tflite";
}

OrDeclined<Mutated> ApplyCase(const Mutation& m, const Base& base, uint64_t seed,
                              const std::string& name) {
  OrDeclined<ByteMutation> mutated = MutateEdgetpu(base.files[0].bytes, *m.rule, seed);
  if (auto* declined = std::get_if<Declined>(&mutated)) return std::move(*declined);
  ByteMutation& bytes = std::get<ByteMutation>(mutated);
  return Mutated{{{name, std::move(bytes.bytes)}}, {}, std::move(bytes.path)};
}

class EdgetpuProvider final : public Provider {
 public:
  std::string_view format() const override { return "edgetpu"; }

  std::vector<Base> Bases() const override {
    std::vector<Base> bases;
    for (const NamedBase& example : ExampleBases()) {
      const std::string file = "valid_" + example.name + ExtensionOf(example.file);
      bases.push_back({"edgetpu.valid." + example.name,
                       example.name + ExtensionOf(example.file),
                       {{file, Serialize(example.file)}},
                       {}});
    }
    return bases;
  }

  const std::vector<MutationCase>& Cases() const override {
    static const std::vector<MutationCase> kCases = [] {
      std::vector<MutationCase> cases;
      for (const Mutation& m : Mutations()) {
        cases.push_back(
            {m.rule, m.also, false, [m](const Base& base, uint64_t seed, const std::string& name) {
               return ApplyCase(m, base, seed, name);
             }});
      }
      return cases;
    }();
    return kCases;
  }

  OrDeclined<Base> ReadBase(const std::string& path,
                            const std::vector<std::string>& companions) const override {
    if (!companions.empty()) return Declined{"an Edge TPU model takes no companion file"};
    std::string error;
    std::optional<InputBuffer> input = ReadFileLimited(path, Limits{}.max_file_size, &error);
    if (!input) return Declined{error};
    Base base;
    base.files.push_back({std::filesystem::path(path).filename().string(),
                          Bytes(input->bytes().begin(), input->bytes().end())});
    return base;
  }

  std::string_view companion_option() const override { return "(none)"; }
};

}  // namespace

OrDeclined<ByteMutation> MutateEdgetpu(ByteView valid, const Rule& rule, uint64_t seed) {
  // Mutations assume every other rule holds, so that the result breaks only
  // the intended one; they decline inputs that already break a rule.
  if (!ValidatesWithoutErrors(valid))
    return Declined{"the input does not validate: mutations start from a valid file"};
  const auto it = std::find_if(Mutations().begin(), Mutations().end(),
                               [&](const Mutation& m) { return m.rule->id == rule.id; });
  if (it == Mutations().end()) return Declined{Str("no mutation breaks ", rule.id)};
  std::string read_error;
  std::optional<File> file = ReadFile(valid, &read_error);
  if (!file) return Declined{"the input does not decode: " + read_error};
  Ctx c;
  c.file = std::move(*file);
  c.seed = seed;
  if (!it->apply(c)) return Declined{Str("cannot break ", rule.id, " in this input: ", c.error)};
  Bytes bytes;
  try {
    bytes = Serialize(c.file, c.options);
  } catch (const std::invalid_argument& e) {
    return Declined{Str("cannot break ", rule.id, " in this input: ", e.what())};
  }
  if (c.patch && !c.patch(bytes, c))
    return Declined{Str("cannot break ", rule.id, " in this input: its layout leaves no room")};
  return ByteMutation{std::move(bytes), c.path};
}

const Provider& EdgetpuConformance() {
  static const EdgetpuProvider kProvider;
  return kProvider;
}

}  // namespace accelcheck::edgetpu
