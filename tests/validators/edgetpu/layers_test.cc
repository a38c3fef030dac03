// The layer rules (G). Each rule's negative case takes a real corpus file,
// changes field values in place in a copy of its bytes (fields found
// through the generated accessors on the decoded package) and checks that
// exactly that rule fires. The re-layout facts of layout.h are checked on
// the real outputs.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/describe.h"
#include "validators/core/format.h"
#include "validators/core/text.h"
#include "validators/edgetpu/custom_options.h"
#include "validators/edgetpu/edgetpu_format.h"
#include "validators/edgetpu/layout.h"
#include "validators/edgetpu/package.h"
#include "validators/edgetpu/tflite.h"

namespace accelcheck::edgetpu {
namespace {

namespace fs = std::filesystem;
using ::accelcheck::test::Describe;
using Ids = std::set<std::string>;

// ---------------------------------------------------------------------------
// Real files, decoded as the validator decodes them.

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR) / "edgetpu"; }

std::vector<fs::path> CorpusFiles() {
  std::vector<fs::path> files;
  if (!fs::is_directory(CorpusDir())) return files;
  for (const auto& entry : fs::directory_iterator(CorpusDir())) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".tflite" && name.find("LEGACY") == std::string::npos)
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Real {
  fs::path path;
  InputBuffer input;
  PackageView view;
};

std::unique_ptr<Real> Open(const fs::path& path) {
  auto real = std::make_unique<Real>();
  real->path = path;
  std::string error;
  auto input = ReadFileLimited(path.string(), 1ull << 32, &error);
  if (!input) return nullptr;
  real->input = std::move(*input);
  const ByteView file = real->input.bytes();
  DiagnosticSink sink({}, path.string());
  if (!VerifyModel(file, Limits{}, sink)) return nullptr;
  const auto ops = FindEdgetpuOps(file, *tfl::GetModel(file.data()), sink);
  if (ops.size() != 1) return nullptr;
  const auto package = ReadCustomOptions(ops[0], sink);
  if (!package) return nullptr;
  auto view = DecodePackage(package->bytes, package->file_offset, package->path, Limits{}, sink);
  if (!view) return nullptr;
  real->view = std::move(*view);
  return real;
}

// The executable with the layers: the only one, or the EXECUTION_ONLY one.
const ExecutableView& Main(const Real& real) {
  for (const ExecutableView& exe : real.view.executables) {
    if (exe.executable->output_layers() != nullptr && exe.executable->output_layers()->size() > 0)
      return exe;
  }
  return real.view.executables.at(0);
}

const dwn::OutputLayout& LayoutOf(const dwn::Layer& layer) {
  return *layer.any_layer_as_OutputLayer()->layout();
}

// An output layer of a real file that a test can change.
struct Found {
  std::unique_ptr<Real> real;
  const ExecutableView* exe = nullptr;
  const dwn::Layer* layer = nullptr;
  LayerDims dims;
  std::optional<CopyPlan> plan;  // for outputs with a layout
};

using OutputTest = std::function<bool(const Found&)>;

// The first output of the corpus, in file order, that `test` accepts.
Found FindOutput(const OutputTest& test) {
  for (const fs::path& path : CorpusFiles()) {
    auto real = Open(path);
    if (!real) continue;
    const ExecutableView& exe = Main(*real);
    for (const dwn::Layer* layer : *exe.executable->output_layers()) {
      Found found;
      found.exe = &exe;
      found.layer = layer;
      const auto dims = LayerDims::Of(*layer);
      if (!dims || layer->any_layer_as_OutputLayer() == nullptr) continue;
      found.dims = *dims;
      if (layer->any_layer_as_OutputLayer()->layout() != nullptr) {
        const LayoutMaps maps(LayoutOf(*layer));
        found.plan = PlanLayoutCopy(*dims, &maps);
      }
      if (!test(found)) continue;
      found.real = std::move(real);
      return found;
    }
  }
  return Found{};
}

bool Multi(const Found& f) { return f.dims.y * f.dims.x > 1 && f.plan; }

// ---------------------------------------------------------------------------
// File offsets of fields, and changes to a copy of the file.

const flatbuffers::Table* AsTable(const void* table) {
  return reinterpret_cast<const flatbuffers::Table*>(table);
}

uint64_t FileOffset(const ExecutableView& exe, const void* p) {
  return exe.buffer.region.file_offset + exe.buffer.region.OffsetOf(p);
}

// Where the value of field `vt` of `table` is (the field must be stored).
uint64_t FieldAt(const ExecutableView& exe, const void* table, flatbuffers::voffset_t vt) {
  const flatbuffers::voffset_t field = AsTable(table)->GetOptionalFieldOffset(vt);
  EXPECT_NE(field, 0) << "field " << vt << " is not stored";
  return FileOffset(exe, static_cast<const uint8_t*>(table) + field);
}

// Where the vtable entry of field `vt` of `table` is; nothing when the
// vtable ends before it.
std::optional<uint64_t> SlotAt(const ExecutableView& exe, const void* table,
                               flatbuffers::voffset_t vt) {
  const auto* t = static_cast<const uint8_t*>(table);
  const uint8_t* vtable = t - flatbuffers::ReadScalar<flatbuffers::soffset_t>(t);
  if (vt >= flatbuffers::ReadScalar<flatbuffers::voffset_t>(vtable)) return std::nullopt;
  return FileOffset(exe, vtable + vt);
}

template <typename T>
uint64_t ElementAt(const ExecutableView& exe, const flatbuffers::Vector<T>* vector, uint32_t i) {
  return FileOffset(exe, vector->Data() + sizeof(T) * i);
}

struct Patched {
  std::vector<uint8_t> bytes;

  explicit Patched(const Real& real)
      : bytes(real.input.data(), real.input.data() + real.input.size()) {}

  template <typename T>
  void Set(uint64_t offset, T value) {
    ASSERT_LE(offset + sizeof(T), bytes.size());
    std::memcpy(bytes.data() + offset, &value, sizeof(T));
  }
  int32_t I32(uint64_t offset) const {
    int32_t value;
    std::memcpy(&value, bytes.data() + offset, sizeof(value));
    return value;
  }
};

DiagnosticSink Validate(const Real& real, const std::vector<uint8_t>& bytes, Profile profile = {}) {
  DiagnosticSink sink(profile, real.path.string());
  ValidateContext context;
  context.path = real.path.string();
  EdgetpuFormat().Validate(InputBuffer::Copy(ByteView(bytes.data(), bytes.size())), context, sink);
  return sink;
}

Ids RuleIds(const DiagnosticSink& sink) {
  Ids ids;
  for (const Diagnostic& d : sink.diagnostics()) ids.insert(std::string(d.rule->id));
  return ids;
}

#define SKIP_WITHOUT_CORPUS() \
  if (CorpusFiles().empty())  \
  GTEST_SKIP() << "no corpus at " << CorpusDir() << "; real-file checks skipped"

#define SKIP_UNLESS_FOUND(found) \
  if (!(found).real) GTEST_SKIP() << "no corpus output fits this case"

// Checks that the patched file gives exactly `ids` besides what the real
// file gives already (keras_lstm's documented note), and returns the sink.
DiagnosticSink ExpectOnly(const Found& found, const Patched& patched, Ids ids) {
  const std::vector<uint8_t> original(found.real->input.data(),
                                      found.real->input.data() + found.real->input.size());
  for (const std::string& id : RuleIds(Validate(*found.real, original))) ids.insert(id);
  DiagnosticSink sink = Validate(*found.real, patched.bytes);
  EXPECT_EQ(RuleIds(sink), ids) << found.real->path.filename() << "\n" << Describe(sink);
  return sink;
}

// The first diagnostic of `rule`.
const Diagnostic* Find(const DiagnosticSink& sink, std::string_view rule) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule->id == rule) return &d;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------
// The real files: what layout.h derives from them is what §5.1 says.

TEST(EdgetpuLayersReal, EveryOutputPadsZToFourBytesAndTheRuntimeAgrees) {
  SKIP_WITHOUT_CORPUS();
  std::map<CopyPath, int> paths;
  int outputs = 0;
  for (const fs::path& path : CorpusFiles()) {
    const auto real = Open(path);
    ASSERT_TRUE(real) << path;
    const ExecutableView& exe = Main(*real);
    for (const dwn::Layer* layer : *exe.executable->output_layers()) {
      ++outputs;
      const auto dims = LayerDims::Of(*layer);
      ASSERT_TRUE(dims) << path.filename();
      ASSERT_NE(layer->any_layer_as_OutputLayer()->layout(), nullptr) << path.filename();
      const LayoutMaps maps(LayoutOf(*layer));
      const CopyPlan plan = PlanLayoutCopy(*dims, &maps);
      ++paths[plan.path];
      if (plan.path == CopyPath::kVector) {
        EXPECT_EQ(maps.Index(0, 0), 0) << path.filename();
        continue;
      }
      // §5.1: z padded to a multiple of 4 bytes per position.
      EXPECT_EQ(plan.padded_z_bytes, (dims->z_bytes() + 3) / 4 * 4) << path.filename();
      for (uint32_t y = 0; y < dims->y; ++y) {
        for (uint32_t x = 0; x < dims->x; ++x) {
          ASSERT_EQ(CopySourceByte(plan, *dims, &maps, y, x),
                    Wide{maps.Index(y, x)} * dims->element_size)
              << path.filename() << " (" << y << ", " << x << ")";
        }
      }
    }
  }
  EXPECT_EQ(outputs, 28);  // docs/formats/edgetpu.md EDG-95
  // The real files exercise the vector, strided and run-by-run copies.
  EXPECT_GT(paths[CopyPath::kVector], 0);
  EXPECT_GT(paths[CopyPath::kStrided], 0);
  EXPECT_GT(paths[CopyPath::kRuns], 0);
}

// ---------------------------------------------------------------------------
// G. Layers, one real file changed per case.

TEST(EdgetpuLayers, LayerWithoutNameIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found&) { return true; });
  SKIP_UNLESS_FOUND(f);
  Patched p(*f.real);
  const auto slot = SlotAt(*f.exe, f.layer, dwn::Layer::VT_NAME);
  ASSERT_TRUE(slot);
  p.Set<uint16_t>(*slot, 0);  // the name is no longer stored
  // The field offsets and DMA hints that named the layer now name none
  // (EDG-47, EDG-62).
  const DiagnosticSink sink =
      ExpectOnly(f, p, {"edgetpu.layer.name", "edgetpu.link.name", "edgetpu.hints.layer"});
  EXPECT_GT(sink.error_count(), 0u);
}

// An output is renamed to an earlier output's name, no longer than its
// own: its name string, and every Meta name (field offsets, DMA hints) that
// named it, get the shorter name in place, so that nothing but the
// duplicate changes.
TEST(EdgetpuLayers, DuplicateOutputNamesAreAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found& found) {
    const auto* layers = found.exe->executable->output_layers();
    for (uint32_t i = 0; i < layers->size() && layers->Get(i) != found.layer; ++i) {
      if (layers->Get(i)->name()->size() <= found.layer->name()->size()) return true;
    }
    return false;
  });
  SKIP_UNLESS_FOUND(f);
  const auto* layers = f.exe->executable->output_layers();
  uint32_t index = 0, earlier = 0;
  while (layers->Get(index) != f.layer) ++index;
  while (layers->Get(earlier)->name()->size() > f.layer->name()->size()) ++earlier;
  const std::string old_name = f.layer->name()->str();
  const std::string new_name = layers->Get(earlier)->name()->str();
  Patched p(*f.real);
  const auto rename = [&](const flatbuffers::String* name) {
    if (name == nullptr || name->str() != old_name) return;
    const uint64_t at = FileOffset(*f.exe, name);
    p.Set<uint32_t>(at, static_cast<uint32_t>(new_name.size()));
    for (size_t i = 0; i < new_name.size(); ++i) p.Set<char>(at + 4 + i, new_name[i]);
    p.Set<uint8_t>(at + 4 + new_name.size(), 0);  // the terminating NUL the verifier wants
  };
  rename(f.layer->name());
  for (const auto* chunk : *f.exe->executable->instruction_bitstreams()) {
    for (const auto* field : *chunk->field_offsets()) rename(field->meta()->name());
  }
  for (const auto* hint : *f.exe->executable->dma_hints()->hints()) {
    if (const auto* d = hint->any_hint_as_DmaDescriptorHint()) rename(d->meta()->name());
  }
  // The hints of the two layers now write one output twice over (a note).
  const DiagnosticSink sink =
      ExpectOnly(f, p, {"edgetpu.layer.duplicate_name", "edgetpu.hints.grammar"});
  const Diagnostic* d = Find(sink, "edgetpu.layer.duplicate_name");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::kError);
  EXPECT_NE(d->location.path.find(Str(".output_layers[", index, "].name")), std::string::npos)
      << d->location.path;
}

TEST(EdgetpuLayers, OutputLayerHoldingAnInputLayerIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found&) { return true; });
  SKIP_UNLESS_FOUND(f);
  Patched p(*f.real);
  p.Set<uint8_t>(FieldAt(*f.exe, f.layer, dwn::Layer::VT_ANY_LAYER_TYPE),
                 static_cast<uint8_t>(dwn::AnyLayer::InputLayer));
  ExpectOnly(f, p, {"edgetpu.layer.output_kind"});
}

TEST(EdgetpuLayers, InputLayerHoldingAnOutputLayerIsAWarning) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found&) { return true; });
  SKIP_UNLESS_FOUND(f);
  const dwn::Layer* input = f.exe->executable->input_layers()->Get(0);
  Patched p(*f.real);
  // An empty InputLayer table verifies as an OutputLayer without fields.
  p.Set<uint8_t>(FieldAt(*f.exe, input, dwn::Layer::VT_ANY_LAYER_TYPE),
                 static_cast<uint8_t>(dwn::AnyLayer::OutputLayer));
  const DiagnosticSink sink = ExpectOnly(f, p, {"edgetpu.layer.input_kind"});
  EXPECT_EQ(sink.error_count(), 0u);
  Profile strict;
  strict.strict = true;
  EXPECT_GT(Validate(*f.real, p.bytes, strict).error_count(), 0u);
}

TEST(EdgetpuLayers, UndeclaredDataTypeIsAnError) {
  SKIP_WITHOUT_CORPUS();
  // A stored data_type: the signed outputs (FIXED_POINT8, 0, is the default).
  Found f = FindOutput([](const Found& found) {
    return AsTable(found.layer)->GetOptionalFieldOffset(dwn::Layer::VT_DATA_TYPE) != 0;
  });
  SKIP_UNLESS_FOUND(f);
  Patched p(*f.real);
  p.Set<int16_t>(FieldAt(*f.exe, f.layer, dwn::Layer::VT_DATA_TYPE), 7);
  ExpectOnly(f, p, {"edgetpu.layer.data_type"});
}

TEST(EdgetpuLayers, LayerWithoutNumericsIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found&) { return true; });
  SKIP_UNLESS_FOUND(f);
  Patched p(*f.real);
  const auto slot = SlotAt(*f.exe, f.layer, dwn::Layer::VT_NUMERICS);
  ASSERT_TRUE(slot);
  p.Set<uint16_t>(*slot, 0);
  ExpectOnly(f, p, {"edgetpu.layer.numerics"});
}

TEST(EdgetpuLayers, ZeroDimensionIsAnErrorAndTheLayoutIsNotJudged) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput(Multi);
  SKIP_UNLESS_FOUND(f);
  Patched p(*f.real);
  p.Set<int32_t>(FieldAt(*f.exe, f.layer, dwn::Layer::VT_Z_DIM), 0);
  const DiagnosticSink sink = ExpectOnly(f, p, {"edgetpu.layer.dims"});
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_NE(sink.diagnostics()[0].location.path.find(".z_dim"), std::string::npos);
}

TEST(EdgetpuLayers, SizeBytesBelowTheElementsIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found&) { return true; });
  SKIP_UNLESS_FOUND(f);
  const dwn::Layer* input = f.exe->executable->input_layers()->Get(0);
  const auto dims = LayerDims::Of(*input);
  ASSERT_TRUE(dims);
  Patched p(*f.real);
  p.Set<int32_t>(FieldAt(*f.exe, input, dwn::Layer::VT_SIZE_BYTES),
                 static_cast<int32_t>(dims->y * dims->x * dims->z_bytes() - 1));
  // The input's DMA hint now reads past size_bytes (EDG-61, a warning).
  ExpectOnly(f, p, {"edgetpu.layer.size_bytes", "edgetpu.hints.input_overread"});
}

Found OutputWithShape() {
  return FindOutput([](const Found& found) {
    return found.layer->shape() != nullptr && found.layer->shape()->dimension()->size() >= 2;
  });
}

TEST(EdgetpuLayers, ShapeRangeEndingBeforeItStartsIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = OutputWithShape();
  SKIP_UNLESS_FOUND(f);
  const auto* dims = f.layer->shape()->dimension();
  Patched p(*f.real);
  // Range is {start, end}: start goes past end.
  p.Set<int32_t>(ElementAt(*f.exe, dims, 1), dims->Get(1)->end() + 1);
  ExpectOnly(f, p, {"edgetpu.layer.shape"});
}

TEST(EdgetpuLayers, ShapeWithoutDimensionsIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = OutputWithShape();
  SKIP_UNLESS_FOUND(f);
  Patched p(*f.real);
  p.Set<uint32_t>(FileOffset(*f.exe, f.layer->shape()->dimension()), 0);  // the length
  ExpectOnly(f, p, {"edgetpu.layer.shape"});
}

TEST(EdgetpuLayers, ShapeCountOtherThanTheDimensionsIsAWarning) {
  SKIP_WITHOUT_CORPUS();
  Found f = OutputWithShape();
  SKIP_UNLESS_FOUND(f);
  const auto* dims = f.layer->shape()->dimension();
  Patched p(*f.real);
  // The batch range [0, 0] becomes [0, 1]: twice the elements.
  p.Set<int32_t>(ElementAt(*f.exe, dims, 0) + 4, dims->Get(0)->end() + 1);
  const DiagnosticSink sink = ExpectOnly(f, p, {"edgetpu.layer.shape_convention"});
  EXPECT_EQ(sink.error_count(), 0u);
}

TEST(EdgetpuLayers, ShapeStartingAboveZeroIsAWarning) {
  SKIP_WITHOUT_CORPUS();
  Found f = OutputWithShape();
  SKIP_UNLESS_FOUND(f);
  const auto* dims = f.layer->shape()->dimension();
  Patched p(*f.real);
  p.Set<int32_t>(ElementAt(*f.exe, dims, 0), dims->Get(0)->start() + 1);
  p.Set<int32_t>(ElementAt(*f.exe, dims, 0) + 4, dims->Get(0)->end() + 1);
  const DiagnosticSink sink = ExpectOnly(f, p, {"edgetpu.layer.shape_convention"});
  EXPECT_EQ(sink.error_count(), 0u);
}

// execution_count_per_inference is never stored in real files; the case
// points its vtable entry at y_dim's value (above 1 for this output, 1 for
// the 1-D outputs that may share the vtable).

}  // namespace
}  // namespace accelcheck::edgetpu
