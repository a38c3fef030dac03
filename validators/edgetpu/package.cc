// EDG-17 to EDG-27, EDG-92 and EDG-93, in the order of the runtime's
// PackageRegistry (docs/formats/edgetpu.md §3): identifier, Package,
// runtime version, virtual chip, MultiExecutable, each Executable.
#include "validators/edgetpu/package.h"

#include <algorithm>

#include "validators/core/text.h"
#include "validators/edgetpu/rules.h"

namespace accelcheck::edgetpu {

namespace {

using flatbuffers::Verifier;
using Locator = FlatbufferLocator;

// A union's type field lies inside the buffer: VerifyTableStart checks the
// vtable, not where its fields point, and the type is read to pick the member.
bool UnionTypeInside(const Locator& loc, const void* table, flatbuffers::voffset_t vt) {
  Verifier v = loc.Fresh();
  const auto* t = reinterpret_cast<const flatbuffers::Table*>(table);
  return t->VerifyTableStart(v) && t->VerifyField<uint8_t>(v, vt, 1);
}

void LocateMeta(Locator& loc, const dwn::Meta* meta, const std::string& path) {
  bool ok = false;
  if (!loc.Start(meta)) return (void)loc.Leaf(meta, path);
  loc.VectorField<char>(meta, dwn::Meta::VT_NAME, JoinPath(path, "name"), &ok);
  if (ok) loc.Leaf(meta, path);
}

void LocateFieldOffset(Locator& loc, const dwn::FieldOffset* field, const std::string& path) {
  if (!loc.Start(field)) return (void)loc.Leaf(field, path);
  if (!loc.SubTable<dwn::Meta>(
          field, dwn::FieldOffset::VT_META, JoinPath(path, "meta"),
          [&](const dwn::Meta* m, const std::string& p) { LocateMeta(loc, m, p); }))
    return;
  loc.Leaf(field, path);
}

void LocateBitstream(Locator& loc, const dwn::InstructionBitstream* chunk,
                     const std::string& path) {
  using B = dwn::InstructionBitstream;
  if (!loc.Start(chunk)) return (void)loc.Leaf(chunk, path);
  if (!loc.ScalarVector<uint8_t>(chunk, B::VT_BITSTREAM, JoinPath(path, "bitstream")) ||
      !loc.TableVector<dwn::FieldOffset>(
          chunk, B::VT_FIELD_OFFSETS, JoinPath(path, "field_offsets"),
          [&](const dwn::FieldOffset* f, const std::string& p) { LocateFieldOffset(loc, f, p); }))
    return;
  loc.Leaf(chunk, path);
}

void LocateHint(Locator& loc, const dwn::DmaHint* hint, const std::string& path) {
  if (!loc.Start(hint) || !UnionTypeInside(loc, hint, dwn::DmaHint::VT_ANY_HINT_TYPE) ||
      !loc.OffsetField(hint, dwn::DmaHint::VT_ANY_HINT) || hint->any_hint() == nullptr)
    return (void)loc.Leaf(hint, path);
  if (const auto* descriptor = hint->any_hint_as_DmaDescriptorHint()) {
    if (!loc.Start(descriptor)) return (void)loc.Leaf(descriptor, JoinPath(path, "any_hint"));
    if (!loc.SubTable<dwn::Meta>(
            descriptor, dwn::DmaDescriptorHint::VT_META, JoinPath(path, "any_hint.meta"),
            [&](const dwn::Meta* m, const std::string& p) { LocateMeta(loc, m, p); }))
      return;
  }
  loc.Leaf(hint->any_hint(), JoinPath(path, "any_hint"));
}

void LocateOutputLayer(Locator& loc, const dwn::OutputLayer* output, const std::string& path) {
  using O = dwn::OutputLayer;
  if (!loc.Start(output)) return (void)loc.Leaf(output, path);
  if (!loc.SubTable<dwn::OutputLayout>(output, O::VT_LAYOUT, JoinPath(path, "layout"),
                                       loc.LeafOf<dwn::OutputLayout>()) ||
      !loc.SubTable<dwn::OutputShapeInfo>(output, O::VT_SHAPE_INFO, JoinPath(path, "shape_info"),
                                          loc.LeafOf<dwn::OutputShapeInfo>()))
    return;
  loc.Leaf(output, path);
}

void LocateLayer(Locator& loc, const dwn::Layer* layer, const std::string& path) {
  using L = dwn::Layer;
  bool ok = false;
  if (!loc.Start(layer)) return (void)loc.Leaf(layer, path);
  loc.VectorField<char>(layer, L::VT_NAME, JoinPath(path, "name"), &ok);
  if (!ok ||
      !loc.SubTable<dwn::NumericsConstants>(layer, L::VT_NUMERICS, JoinPath(path, "numerics"),
                                            loc.LeafOf<dwn::NumericsConstants>()) ||
      !loc.SubTable<dwn::TensorShape>(layer, L::VT_SHAPE, JoinPath(path, "shape"),
                                      loc.LeafOf<dwn::TensorShape>()) ||
      !UnionTypeInside(loc, layer, L::VT_ANY_LAYER_TYPE) ||
      !loc.OffsetField(layer, L::VT_ANY_LAYER))
    return (void)loc.Leaf(layer, path);
  if (const auto* output = layer->any_layer_as_OutputLayer()) {
    if (!loc.Whole(output)) return LocateOutputLayer(loc, output, JoinPath(path, "any_layer"));
  }
  loc.Leaf(layer, path);
}

void LocateExecutable(Locator& loc, const dwn::Executable* exe) {
  using E = dwn::Executable;
  bool ok = false;
  if (!loc.Start(exe)) return (void)loc.Leaf(exe, "");
  const auto layers = [&](const dwn::Layer* l, const std::string& p) { LocateLayer(loc, l, p); };
  loc.VectorField<char>(exe, E::VT_NAME, "name", &ok);
  if (!ok || !loc.ScalarVector<uint8_t>(exe, E::VT_SERIALIZED_MODEL, "serialized_model") ||
      !loc.TableVector<dwn::InstructionBitstream>(
          exe, E::VT_INSTRUCTION_BITSTREAMS, "instruction_bitstreams",
          [&](const dwn::InstructionBitstream* b, const std::string& p) {
            LocateBitstream(loc, b, p);
          }) ||
      !loc.ScalarVector<uint8_t>(exe, E::VT_PARAMETERS, "parameters") ||
      !loc.SubTable<dwn::DmaHints>(
          exe, E::VT_DMA_HINTS, "dma_hints",
          [&](const dwn::DmaHints* h, const std::string& p) {
            if (!loc.Start(h)) return (void)loc.Leaf(h, p);
            if (!loc.TableVector<dwn::DmaHint>(
                    h, dwn::DmaHints::VT_HINTS, JoinPath(p, "hints"),
                    [&](const dwn::DmaHint* d, const std::string& q) { LocateHint(loc, d, q); }))
              return;
            loc.Leaf(h, p);
          }) ||
      !loc.TableVector<dwn::Layer>(exe, E::VT_INPUT_LAYERS, "input_layers", layers) ||
      !loc.TableVector<dwn::Layer>(exe, E::VT_OUTPUT_LAYERS, "output_layers", layers))
    return;
  loc.VectorField<char>(exe, E::VT_CHIP, "chip", &ok);
  if (ok) loc.Leaf(exe, "");
}

void LocatePackage(Locator& loc, const dwn::Package* package) {
  using P = dwn::Package;
  bool ok = false;
  if (!loc.Start(package)) return (void)loc.Leaf(package, "");
  if (!loc.ScalarVector<uint8_t>(package, P::VT_SERIALIZED_MULTI_EXECUTABLE,
                                 "serialized_multi_executable") ||
      !loc.ScalarVector<uint8_t>(package, P::VT_SIGNATURE, "signature") ||
      !loc.TableVector<dwn::SerializedPackage>(package, P::VT_MULTI_CHIP_PACKAGE,
                                               "multi_chip_package",
                                               loc.LeafOf<dwn::SerializedPackage>()))
    return;
  loc.VectorField<char>(package, P::VT_COMPILER_VERSION, "compiler_version", &ok);
  if (!ok) return;
  loc.VectorField<char>(package, P::VT_MODEL_IDENTIFIER, "model_identifier", &ok);
  if (ok) loc.Leaf(package, "");
}

void LocateMulti(Locator& loc, const dwn::MultiExecutable* multi) {
  if (!loc.Start(multi)) return (void)loc.Leaf(multi, "");
  if (!loc.ScalarVector<flatbuffers::Offset<flatbuffers::String>>(
          multi, dwn::MultiExecutable::VT_SERIALIZED_EXECUTABLES, "serialized_executables"))
    return;
  loc.Leaf(multi, "");
}

// The part of `outer` that `inner` (a vector's data inside it) covers, as a
// nested buffer with the object path `path`.
NestedBuffer NestedIn(const NestedBuffer& outer, const uint8_t* data, uint64_t size,
                      std::string path) {
  const uint64_t inner = outer.region.OffsetOf(data);
  return NestedBuffer(ByteView(data, size), outer.region.file_offset + inner, std::move(path));
}

// EDG-17: the runtime only warns, then verifies the package without the
// identifier.
void CheckIdentifier(const NestedBuffer& buffer, DiagnosticSink& sink) {
  if (HasBytesAt(buffer.region.bytes, 4, "DWN1")) return;
  const ByteView bytes = buffer.region.bytes;
  sink.Report(
      rules::kPackageIdentifier, buffer.region.At(4, 4, ""),
      bytes.size() < 8
          ? Str("the package is ", bytes.size(), " bytes, too short for an identifier")
          : Str("bytes 4..7 of the package are ",
                Quoted(std::string_view(reinterpret_cast<const char*>(bytes.data() + 4), 4)),
                ", not the identifier DWN1"));
}

// EDG-19 to EDG-21: the version gate comes first, so that a future format
// change is refused by an older runtime before anything else is read. The
// runtime is the newest one unless --edgetpu-runtime names an older (§1).
void CheckRuntimeAndChip(const NestedBuffer& buffer, const dwn::Package& package, uint64_t runtime,
                         DiagnosticSink& sink) {
  const int32_t version = package.min_runtime_version();
  const Location at = buffer.region.AtObject(&package, "min_runtime_version");
  if (version > 0 && static_cast<uint64_t>(version) > runtime) {
    sink.Report(rules::kRuntimeTooNew, at,
                Str("the package requires runtime version ", version, ", newer than ",
                    runtime == kCurrentRuntimeVersion
                        ? Str("the newest runtime (", runtime, ")")
                        : Str("the target runtime ", runtime, " (--edgetpu-runtime)"),
                    "; recompile with edgetpu_compiler -m ", runtime));
  } else if (version < kMinValidRuntimeVersion) {
    sink.Report(rules::kRuntimeTooOld, at,
                Str("min_runtime_version is ", version, ", below the oldest valid version ",
                    kMinValidRuntimeVersion, " (the runtime warns and loads it)"));
  }
  const Location chip = buffer.region.AtObject(&package, "virtual_chip_id");
  if (package.virtual_chip_id() == -1) {
    sink.Report(rules::kMultiChip, chip,
                "virtual_chip_id is -1: a multi-chip package, which the runtime refuses");
  } else if (package.virtual_chip_id() != 0) {
    sink.Report(rules::kVirtualChip, chip,
                Str("virtual_chip_id is ", package.virtual_chip_id(),
                    ", not 0 (a package for a single chip)"));
  }
  if (package.multi_chip_package() != nullptr && package.multi_chip_package()->size() != 0) {
    sink.Report(rules::kVirtualChip, buffer.region.AtObject(&package, "multi_chip_package"),
                Str("multi_chip_package holds ", package.multi_chip_package()->size(),
                    " packages, which only multi-chip compiles write"));
  }
}

// EDG-25, EDG-26: what the runtime ignores but a signed or foreign package
// would rely on.
void CheckSignatureAndCompiler(const NestedBuffer& buffer, const dwn::Package& package,
                               DiagnosticSink& sink) {
  if (package.signature() != nullptr && package.signature()->size() != 0) {
    sink.Report(rules::kSignature, buffer.region.AtObject(&package, "signature"),
                Str("the package carries a ", package.signature()->size(),
                    "-byte signature, which no public runtime verifies"));
  } else if (package.keypair_version() != 0) {
    sink.Report(
        rules::kSignature, buffer.region.AtObject(&package, "keypair_version"),
        Str("keypair_version is ", package.keypair_version(), " but there is no signature"));
  }
  const auto* compiler = package.compiler_version();
  if (compiler == nullptr || compiler->string_view().rfind("cl/", 0) != 0) {
    sink.Report(rules::kCompilerVersion, buffer.region.AtObject(&package, "compiler_version"),
                compiler == nullptr
                    ? std::string("the package names no compiler_version")
                    : Str("compiler_version ", Quoted(compiler->str()),
                          " does not have the form cl/N of every Edge TPU compiler"));
  }
}

bool VerifyPackageBuffer(const NestedBuffer& buffer, const Limits& limits, DiagnosticSink& sink) {
  const FlatbufferVerification verification(buffer.region, limits, sink, rules::kPackageVerify,
                                            "the package");
  const uint8_t* data = buffer.region.bytes.data();
  return verification.Run(
      [](Verifier& v) { return v.VerifyBuffer<dwn::Package>(nullptr); },
      [&](Locator& loc) { LocatePackage(loc, flatbuffers::GetRoot<dwn::Package>(data)); });
}

bool VerifyMultiBuffer(const NestedBuffer& buffer, const Limits& limits, DiagnosticSink& sink) {
  const FlatbufferVerification verification(buffer.region, limits, sink, rules::kMultiVerify,
                                            "the MultiExecutable");
  const uint8_t* data = buffer.region.bytes.data();
  return verification.Run(
      [](Verifier& v) { return v.VerifyBuffer<dwn::MultiExecutable>(nullptr); },
      [&](Locator& loc) { LocateMulti(loc, flatbuffers::GetRoot<dwn::MultiExecutable>(data)); });
}

bool VerifyExecutableBuffer(const NestedBuffer& buffer, const Limits& limits,
                            DiagnosticSink& sink) {
  const FlatbufferVerification verification(buffer.region, limits, sink, rules::kExecutableVerify,
                                            "the executable");
  const uint8_t* data = buffer.region.bytes.data();
  return verification.Run(
      [](Verifier& v) { return v.VerifyBuffer<dwn::Executable>(nullptr); },
      [&](Locator& loc) { LocateExecutable(loc, flatbuffers::GetRoot<dwn::Executable>(data)); });
}

// EDG-92, EDG-93: each executable is read in place inside the package, so
// its start must allow its 8-byte scalars, and no two may share bytes.
void CheckExecutablePlacement(const PackageView& view, DiagnosticSink& sink) {
  const auto* strings = view.multi->serialized_executables();
  struct Extent {
    uint64_t start, end;
    uint32_t index;
  };
  std::vector<Extent> extents;
  const FlatbufferRegion& multi = view.multi_buffer.region;
  for (uint32_t i = 0; i < strings->size(); ++i) {
    const flatbuffers::String* s = strings->Get(i);
    // Offsets in the package, as the runtime's aligned copy of it sees them.
    const uint64_t start =
        multi.file_offset + multi.OffsetOf(s->data()) - view.buffer.region.file_offset;
    if (start % 8 != 0) {
      sink.Report(rules::kExecutableAlign,
                  view.multi_buffer.region.At(view.multi_buffer.region.OffsetOf(s->data()),
                                              s->size(), Str("serialized_executables[", i, "]")),
                  Str("executable ", i, " starts at package offset ", Hex(start),
                      ", not a multiple of 8, so its 8-byte fields cannot be read in place"));
    }
    extents.push_back({start, start + s->size(), i});
  }
  std::sort(extents.begin(), extents.end(),
            [](const Extent& a, const Extent& b) { return a.start < b.start; });
  for (size_t k = 1; k < extents.size(); ++k) {
    if (extents[k].start >= extents[k - 1].end || extents[k].start == extents[k].end) continue;
    const uint32_t i = extents[k].index;
    sink.Report(rules::kExecutableOverlap,
                view.multi_buffer.region.At(
                    view.multi_buffer.region.OffsetOf(strings->Get(i)->data()),
                    extents[k].end - extents[k].start, Str("serialized_executables[", i, "]")),
                Str("executable ", i, " shares bytes [", Hex(extents[k].start), ", ",
                    Hex(std::min(extents[k].end, extents[k - 1].end)),
                    ") of the package with executable ", extents[k - 1].index));
  }
}

}  // namespace

NestedBuffer::NestedBuffer(ByteView bytes, uint64_t file_offset, std::string path,
                           const InputBuffer* file) {
  if (reinterpret_cast<uintptr_t>(bytes.data()) % 8 != 0) {
    const bool in_file = file != nullptr && bytes.data() >= file->data() &&
                         bytes.data() + bytes.size() <= file->data() + file->size();
    storage = in_file
                  ? file->CopyOf(static_cast<uint64_t>(bytes.data() - file->data()), bytes.size())
                  : InputBuffer::Copy(bytes);
    bytes = storage.bytes();
  }
  region = FlatbufferRegion{bytes, file_offset, std::move(path)};
}

std::optional<PackageView> DecodePackage(ByteView bytes, uint64_t file_offset, std::string path,
                                         const ValidateContext& context, DiagnosticSink& sink,
                                         const InputBuffer* file) {
  const Limits& limits = context.limits;
  PackageView view;
  view.buffer = NestedBuffer(bytes, file_offset, path, file);
  CheckIdentifier(view.buffer, sink);
  if (!VerifyPackageBuffer(view.buffer, limits, sink)) return std::nullopt;
  view.package = flatbuffers::GetRoot<dwn::Package>(view.buffer.region.bytes.data());
  CheckRuntimeAndChip(view.buffer, *view.package, context.targets.edgetpu_runtime, sink);
  CheckSignatureAndCompiler(view.buffer, *view.package, sink);

  const auto* multi = view.package->serialized_multi_executable();
  if (multi == nullptr || multi->size() == 0) {
    sink.Report(rules::kNoExecutables,
                view.buffer.region.AtObject(view.package, "serialized_multi_executable"),
                multi == nullptr
                    ? "the package has no serialized_multi_executable"
                    : "serialized_multi_executable is empty: no executables to register");
    return std::nullopt;
  }
  view.multi_buffer = NestedIn(view.buffer, multi->data(), multi->size(),
                               JoinPath(path, "serialized_multi_executable"));
  if (!VerifyMultiBuffer(view.multi_buffer, limits, sink)) return std::nullopt;
  view.multi = flatbuffers::GetRoot<dwn::MultiExecutable>(view.multi_buffer.region.bytes.data());
  const auto* strings = view.multi->serialized_executables();
  if (strings == nullptr || strings->size() == 0) {
    sink.Report(rules::kNoExecutables,
                view.multi_buffer.region.AtObject(view.multi, "serialized_executables"),
                "the MultiExecutable lists no executables");
    return std::nullopt;
  }
  view.executable_count = strings->size();
  CheckExecutablePlacement(view, sink);
  for (uint32_t i = 0; i < strings->size(); ++i) {
    const flatbuffers::String* s = strings->Get(i);
    ExecutableView exe{i,
                       NestedIn(view.multi_buffer, reinterpret_cast<const uint8_t*>(s->data()),
                                s->size(), JoinPath(path, Str("executables[", i, "]"))),
                       nullptr};
    if (!VerifyExecutableBuffer(exe.buffer, limits, sink)) continue;
    exe.executable = flatbuffers::GetRoot<dwn::Executable>(exe.buffer.region.bytes.data());
    view.executables.push_back(std::move(exe));
  }
  return view;
}

}  // namespace accelcheck::edgetpu
