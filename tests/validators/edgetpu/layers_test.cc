// The layer (G) and output layout (H) rules on real files, beside their
// mutation cases on the builder's bases (conformance/edgetpu/mutate.cc):
// each case takes a corpus file, changes field values in place in a copy of
// its bytes (fields found through the generated accessors on the decoded
// package) and checks that exactly that rule fires, with the consequences
// it names. What no in-place change reaches (shape_info, which no real file
// has) is checked on executables built here; so are the re-layout facts of
// layout.h, on the schema's worked example.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
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
#include "validators/edgetpu/validate.h"

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
  auto view =
      DecodePackage(package->bytes, package->file_offset, package->path, ValidateContext{}, sink);
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
  // The hints of the two layers now write one output twice over (a note),
  // and the renamed layer no longer has its tensor's name (a warning).
  const DiagnosticSink sink =
      ExpectOnly(f, p, {"edgetpu.layer.duplicate_name", "edgetpu.hints.order", "edgetpu.io.name"});
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

// EDG-76: the runtime sizes the layer's buffers from the shape, so a count
// other than y·x·z contradicts the layer's dimensions.
TEST(EdgetpuLayers, ShapeCountOtherThanTheDimensionsIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = OutputWithShape();
  SKIP_UNLESS_FOUND(f);
  const auto* dims = f.layer->shape()->dimension();
  Patched p(*f.real);
  // The batch range [0, 0] becomes [0, 1]: twice the elements.
  p.Set<int32_t>(ElementAt(*f.exe, dims, 0) + 4, dims->Get(0)->end() + 1);
  const DiagnosticSink sink = ExpectOnly(f, p, {"edgetpu.layer.shape_convention"});
  EXPECT_EQ(sink.error_count(), 1u);
}

TEST(EdgetpuLayers, ShapeStartingAboveZeroIsAWarning) {
  SKIP_WITHOUT_CORPUS();
  Found f = OutputWithShape();
  SKIP_UNLESS_FOUND(f);
  const auto* dims = f.layer->shape()->dimension();
  Patched p(*f.real);
  p.Set<int32_t>(ElementAt(*f.exe, dims, 0), dims->Get(0)->start() + 1);
  p.Set<int32_t>(ElementAt(*f.exe, dims, 0) + 4, dims->Get(0)->end() + 1);
  const DiagnosticSink sink = ExpectOnly(f, p, {"edgetpu.layer.shape_start"});
  EXPECT_EQ(sink.error_count(), 0u);
}

// execution_count_per_inference is never stored in real files; the case
// points its vtable entry at y_dim's value (above 1 for this output, 1 for
// the 1-D outputs that may share the vtable).
TEST(EdgetpuLayers, SeveralExecutionsOnTheRunByRunCopyAreAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found& found) {
    return found.plan && found.plan->path == CopyPath::kRuns && found.dims.y > 1 &&
           SlotAt(*found.exe, found.layer, dwn::Layer::VT_EXECUTION_COUNT_PER_INFERENCE);
  });
  SKIP_UNLESS_FOUND(f);
  Patched p(*f.real);
  p.Set<uint16_t>(*SlotAt(*f.exe, f.layer, dwn::Layer::VT_EXECUTION_COUNT_PER_INFERENCE),
                  AsTable(f.layer)->GetOptionalFieldOffset(dwn::Layer::VT_Y_DIM));
  // The hints move the first execution only (EDG-68, a warning), and the
  // TFLite tensor holds one execution's bytes (EDG-14).
  const DiagnosticSink sink = ExpectOnly(
      f, p, {"edgetpu.layer.execution_count", "edgetpu.hints.coverage", "edgetpu.io.byte_size"});
  const Diagnostic* d = Find(sink, "edgetpu.layer.execution_count");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->rule->category, Category::kUnsupported);
}

// ---------------------------------------------------------------------------
// H. Output layout, one real file changed per case.

Found PaddedStridedOutput() {
  // A padded z of more than 3 bytes: the runtime strides by the layout's
  // padding (posenet's 23·31·17 -> 20, say).
  return FindOutput([](const Found& found) {
    return Multi(found) && found.plan->path == CopyPath::kStrided && found.dims.z_bytes() > 3 &&
           found.dims.x > 2 && found.dims.y > 1 && found.plan->runs[0].count >= 3;
  });
}

// The OutputLayer is given the vtable of an input's empty InputLayer, so
// that it stores no field: vtables are shared between tables of one shape
// (the OutputLayer's with a TensorShape's), so its own cannot be changed.
TEST(EdgetpuLayout, MultiDimensionalOutputWithoutLayoutIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput(Multi);
  SKIP_UNLESS_FOUND(f);
  const auto* empty = reinterpret_cast<const uint8_t*>(
      f.exe->executable->input_layers()->Get(0)->any_layer_as_InputLayer());
  ASSERT_NE(empty, nullptr);
  const uint8_t* empty_vtable = empty - flatbuffers::ReadScalar<flatbuffers::soffset_t>(empty);
  const uint64_t output = FileOffset(*f.exe, f.layer->any_layer_as_OutputLayer());
  Patched p(*f.real);
  p.Set<int32_t>(output,
                 static_cast<int32_t>(static_cast<int64_t>(output) -
                                      static_cast<int64_t>(FileOffset(*f.exe, empty_vtable))));
  ExpectOnly(f, p, {"edgetpu.layout.missing"});
}

TEST(EdgetpuLayout, MapOfTheWrongLengthIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found& found) { return Multi(found) && found.dims.y > 1; });
  SKIP_UNLESS_FOUND(f);
  Patched p(*f.real);
  const auto* map = LayoutOf(*f.layer).y_coordinate_to_linear_tile_id_map();
  p.Set<uint32_t>(FileOffset(*f.exe, map), map->size() - 1);
  ExpectOnly(f, p, {"edgetpu.layout.lengths"});
}

TEST(EdgetpuLayout, TileIdOutsideTheTileOffsetsIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput(Multi);
  SKIP_UNLESS_FOUND(f);
  const dwn::OutputLayout& layout = LayoutOf(*f.layer);
  Patched p(*f.real);
  const auto* map = layout.x_coordinate_to_linear_tile_id_map();
  p.Set<int32_t>(ElementAt(*f.exe, map, map->size() - 1),
                 static_cast<int32_t>(layout.linearized_tile_byte_offset()->size()));
  ExpectOnly(f, p, {"edgetpu.layout.tile_index"});
}

TEST(EdgetpuLayout, NegativeMapValueIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput(Multi);
  SKIP_UNLESS_FOUND(f);
  Patched p(*f.real);
  p.Set<int32_t>(ElementAt(*f.exe, LayoutOf(*f.layer).x_coordinate_to_local_byte_offset(), 0), -1);
  ExpectOnly(f, p, {"edgetpu.layout.bounds"});
}

// size_bytes cut to the unpadded y·x·z bytes, which EDG-75 accepts, leaves
// the padded layout's last elements outside the buffer.
TEST(EdgetpuLayout, ElementBeyondSizeBytesIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found& found) {
    return Multi(found) && found.plan->padded_z_bytes > found.dims.z_bytes();
  });
  SKIP_UNLESS_FOUND(f);
  Patched p(*f.real);
  p.Set<int32_t>(FieldAt(*f.exe, f.layer, dwn::Layer::VT_SIZE_BYTES),
                 static_cast<int32_t>(f.dims.y * f.dims.x * f.dims.z_bytes()));
  // EDG-85: the output's DMA hints end beyond it too.
  ExpectOnly(f, p, {"edgetpu.layout.bounds", "edgetpu.hints.output_bounds"});
}

// Every position's z stride becomes z_dim - 1, consistently, so that only
// the overlap of neighbouring z is wrong.
TEST(EdgetpuLayout, ZStrideBelowZDimIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = PaddedStridedOutput();
  SKIP_UNLESS_FOUND(f);
  const auto* x_local = LayoutOf(*f.layer).x_coordinate_to_local_byte_offset();
  const int64_t padded = f.plan->padded_z_bytes / f.dims.element_size;
  Patched p(*f.real);
  for (const XRun& run : f.plan->runs) {
    const int32_t base = x_local->Get(run.first);
    for (uint32_t x = run.first; x < run.first + run.count; ++x) {
      const int64_t steps = (x_local->Get(x) - base) / padded;
      p.Set<int32_t>(ElementAt(*f.exe, x_local, x),
                     static_cast<int32_t>(base + steps * (f.dims.z - 1)));
    }
  }
  ExpectOnly(f, p, {"edgetpu.layout.z_padding"});
}

// y 1 is moved onto y 0's row of the same tile: every (1, x) starts where
// (0, x) does, while the runtime's copy still follows the map.
TEST(EdgetpuLayout, TwoPositionsStartingAtOneIndexAreAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found& found) {
    if (!Multi(found) || found.plan->path != CopyPath::kStrided || found.dims.y < 2) return false;
    const auto* y_tile = LayoutOf(*found.layer).y_coordinate_to_linear_tile_id_map();
    return y_tile->Get(0) == y_tile->Get(1);
  });
  SKIP_UNLESS_FOUND(f);
  const auto* y_local = LayoutOf(*f.layer).y_coordinate_to_local_y_offset();
  Patched p(*f.real);
  p.Set<int32_t>(ElementAt(*f.exe, y_local, 1), y_local->Get(0));
  const DiagnosticSink sink = ExpectOnly(f, p, {"edgetpu.layout.injective"});
  EXPECT_EQ(sink.error_count(), 1u);
}

// The third x of the first run moves one element on: the runtime's copy,
// which strides from the run's first x, reads it from the old place.
TEST(EdgetpuLayout, ElementTheRuntimeCopiesFromElsewhereIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = PaddedStridedOutput();
  SKIP_UNLESS_FOUND(f);
  const auto* x_local = LayoutOf(*f.layer).x_coordinate_to_local_byte_offset();
  const uint32_t x = f.plan->runs[0].first + 2;
  Patched p(*f.real);
  p.Set<int32_t>(ElementAt(*f.exe, x_local, x), x_local->Get(x) + 1);
  const DiagnosticSink sink = ExpectOnly(f, p, {"edgetpu.layout.runtime_stride"});
  const Diagnostic* d = Find(sink, "edgetpu.layout.runtime_stride");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find(Str("(0, ", x, ", 0)")), std::string::npos) << d->message;
}

// A z of one byte padded to 2 instead of 4: the layout is sound, but the
// runtime strides by 4 for one-byte z whatever the padding (§6.3).
TEST(EdgetpuLayout, OneByteZPaddedToTwoIsCopiedAtStrideFour) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found& found) {
    return Multi(found) && found.dims.z_bytes() == 1 && found.dims.x > 1 &&
           found.plan->padded_z_bytes == 4 && found.plan->runs[0].count >= 2;
  });
  SKIP_UNLESS_FOUND(f);
  const auto* x_local = LayoutOf(*f.layer).x_coordinate_to_local_byte_offset();
  Patched p(*f.real);
  for (uint32_t x = 0; x < x_local->size(); ++x)
    p.Set<int32_t>(ElementAt(*f.exe, x_local, x), x_local->Get(x) / 2);
  const DiagnosticSink sink = ExpectOnly(f, p, {"edgetpu.layout.runtime_stride"});
  const Diagnostic* d = Find(sink, "edgetpu.layout.runtime_stride");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->message.find("stride of 4 bytes"), std::string::npos) << d->message;
}

// A vector output whose first element is not at byte 0: the runtime copies
// the buffer's first z bytes.
TEST(EdgetpuLayout, VectorNotStartingAtByteZeroIsAnError) {
  SKIP_WITHOUT_CORPUS();
  Found f = FindOutput([](const Found& found) {
    return found.plan && found.plan->path == CopyPath::kVector &&
           found.dims.size_bytes > found.dims.z_bytes();
  });
  SKIP_UNLESS_FOUND(f);
  const dwn::OutputLayout& layout = LayoutOf(*f.layer);
  const auto tile = static_cast<uint32_t>(layout.y_coordinate_to_linear_tile_id_map()->Get(0) +
                                          layout.x_coordinate_to_linear_tile_id_map()->Get(0));
  Patched p(*f.real);
  const uint64_t at = ElementAt(*f.exe, layout.linearized_tile_byte_offset(), tile);
  p.Set<int32_t>(at, p.I32(at) + 1);
  ExpectOnly(f, p, {"edgetpu.layout.runtime_stride"});
}

// ---------------------------------------------------------------------------
// Executables built here: the schema's worked example (§6.3) and shape_info.

struct Built {
  flatbuffers::FlatBufferBuilder builder;
  PackageView view;
};

struct OutputSpec {
  int32_t y = 4, x = 5, z = 32;
  dwn::DataType type = dwn::DataType::FIXED_POINT8;
  int32_t size_bytes = 640;
  int32_t executions = 1;
  bool layout = true;
  // The worked example's maps: 2 x 2 tiles, tiles 0 and 2 holding x 0..2.
  std::vector<int32_t> y_tile{0, 0, 2, 2}, x_tile{0, 0, 0, 1, 1}, tile_offset{0, 192, 320, 512},
      x_local{0, 32, 64, 0, 32}, y_local{0, 1, 0, 1}, row_size{96, 96, 96, 64, 64};
  std::optional<std::vector<dwn::Range>> shape;
  struct Slice {
    std::vector<dwn::Range> shape;
    std::vector<int32_t> stride;
  };
  std::optional<std::vector<Slice>> slices;
  std::vector<int32_t> slice_offsets;
};

std::unique_ptr<Built> Build(const OutputSpec& spec) {
  auto built = std::make_unique<Built>();
  flatbuffers::FlatBufferBuilder& b = built->builder;
  flatbuffers::Offset<dwn::OutputLayout> layout;
  if (spec.layout) {
    layout = dwn::CreateOutputLayout(b, b.CreateVector(spec.y_tile), b.CreateVector(spec.x_tile),
                                     b.CreateVector(spec.tile_offset), b.CreateVector(spec.x_local),
                                     b.CreateVector(spec.y_local), b.CreateVector(spec.row_size));
  }
  flatbuffers::Offset<dwn::OutputShapeInfo> shape_info;
  if (spec.slices) {
    std::vector<flatbuffers::Offset<dwn::TensorLayout>> slices;
    for (const auto& slice : *spec.slices) {
      slices.push_back(dwn::CreateTensorLayout(
          b, dwn::CreateTensorShape(b, b.CreateVectorOfStructs(slice.shape)),
          b.CreateVector(slice.stride)));
    }
    shape_info =
        dwn::CreateOutputShapeInfo(b, b.CreateVector(slices), b.CreateVector(spec.slice_offsets));
  }
  flatbuffers::Offset<dwn::TensorShape> shape;
  if (spec.shape) shape = dwn::CreateTensorShape(b, b.CreateVectorOfStructs(*spec.shape));
  const auto output = dwn::CreateOutputLayer(b, layout, dwn::DataType::FIXED_POINT8, shape_info);
  const auto layer =
      dwn::CreateLayer(b, b.CreateString("out"), spec.size_bytes, spec.y, spec.x, spec.z,
                       dwn::CreateNumericsConstants(b, 0, 1.0f), spec.type,
                       dwn::AnyLayer::OutputLayer, output.Union(), spec.executions, false, shape);
  const auto input = dwn::CreateLayer(
      b, b.CreateString("in"), 8, 1, 1, 8, dwn::CreateNumericsConstants(b, 0, 1.0f),
      dwn::DataType::FIXED_POINT8, dwn::AnyLayer::InputLayer, dwn::CreateInputLayer(b).Union());
  dwn::ExecutableBuilder exe(b);
  exe.add_input_layers(b.CreateVector(std::vector{input}));
  exe.add_output_layers(b.CreateVector(std::vector{layer}));
  b.Finish(exe.Finish());
  const ByteView bytes(b.GetBufferPointer(), b.GetSize());
  ExecutableView view;
  view.buffer = NestedBuffer(bytes, 0, "executables[0]");
  view.executable = flatbuffers::GetRoot<dwn::Executable>(view.buffer.region.bytes.data());
  built->view.executables.push_back(std::move(view));
  built->view.executable_count = 1;
  return built;
}

DiagnosticSink CheckBuilt(const OutputSpec& spec, Profile profile = {}) {
  const auto built = Build(spec);
  DiagnosticSink sink(profile, "built");
  ValidateLayers(built->view, sink);
  EXPECT_TRUE(ValidateLayouts(built->view, Deadline(0), sink));
  return sink;
}

void ExpectBuilt(const OutputSpec& spec, const Ids& ids) {
  const DiagnosticSink sink = CheckBuilt(spec);
  EXPECT_EQ(RuleIds(sink), ids) << Describe(sink);
}

TEST(EdgetpuLayoutBuilt, WorkedExampleIndicesAndCopy) {
  for (const auto type : {dwn::DataType::FIXED_POINT8, dwn::DataType::FIXED_POINT16}) {
    OutputSpec spec;
    spec.type = type;
    spec.size_bytes = 640 * (type == dwn::DataType::FIXED_POINT8 ? 1 : 2);
    const auto built = Build(spec);
    const dwn::Layer& layer = *built->view.executables[0].executable->output_layers()->Get(0);
    const LayoutMaps maps(LayoutOf(layer));
    // docs/formats/edgetpu.md §6.3, from the schema's comment.
    EXPECT_EQ(maps.Index(0, 3, 0), 192);
    EXPECT_EQ(maps.Index(1, 4, 5), 293);
    EXPECT_EQ(maps.Index(3, 2, 31), 511);
    EXPECT_EQ(maps.Index(2, 4, 0), 544);
    const auto dims = LayerDims::Of(layer);
    ASSERT_TRUE(dims);
    const CopyPlan plan = PlanLayoutCopy(*dims, &maps);
    EXPECT_EQ(plan.path, CopyPath::kRuns);  // path 4: zp = z bytes, two x runs
    EXPECT_EQ(plan.padded_z_bytes, dims->z_bytes());
    ASSERT_EQ(plan.runs.size(), 2u);
    EXPECT_EQ(plan.runs[1].first, 3u);
    for (uint32_t y = 0; y < 4; ++y) {
      for (uint32_t x = 0; x < 5; ++x) {
        EXPECT_EQ(CopySourceByte(plan, *dims, &maps, y, x),
                  Wide{maps.Index(y, x)} * dims->element_size);
      }
    }
    ExpectBuilt(spec, {});
  }
}

TEST(EdgetpuLayoutBuilt, WorkedExampleWithTwoExecutionsAborts) {
  OutputSpec spec;
  spec.executions = 2;
  ExpectBuilt(spec, {"edgetpu.layer.execution_count"});
}

TEST(EdgetpuLayoutBuilt, OneTileWithoutPaddingIsCopiedInOnePiece) {
  OutputSpec spec;
  spec.y = 2;
  spec.x = 3;
  spec.z = 4;
  spec.size_bytes = 24;
  spec.y_tile = {0, 0};
  spec.x_tile = {0, 0, 0};
  spec.tile_offset = {0};
  spec.x_local = {0, 4, 8};
  spec.y_local = {0, 1};
  spec.row_size = {12, 12, 12};
  const auto built = Build(spec);
  const dwn::Layer& layer = *built->view.executables[0].executable->output_layers()->Get(0);
  const LayoutMaps maps(LayoutOf(layer));
  EXPECT_EQ(PlanLayoutCopy(*LayerDims::Of(layer), &maps).path, CopyPath::kContiguous);
  ExpectBuilt(spec, {});
  // Rows of 16 elements: the one-piece copy reads y 1 from element 12.
  spec.row_size = {16, 16, 16};
  spec.size_bytes = 32;
  ExpectBuilt(spec, {"edgetpu.layout.runtime_stride"});
}

// A 1100·1100 output of 4 elements padded to 8 per position: more
// positions than are sorted, so the injectivity check marks its bitmap.
OutputSpec ManyPositions() {
  OutputSpec spec;
  spec.y = spec.x = 1100;
  spec.z = 4;
  spec.size_bytes = 1100 * 1100 * 8;
  spec.y_tile.assign(1100, 0);
  spec.x_tile.assign(1100, 0);
  spec.tile_offset = {0};
  spec.y_local.resize(1100);
  spec.x_local.resize(1100);
  for (int32_t i = 0; i < 1100; ++i) {
    spec.y_local[static_cast<size_t>(i)] = i;
    spec.x_local[static_cast<size_t>(i)] = 8 * i;
  }
  spec.row_size.assign(1100, 8800);
  return spec;
}

TEST(EdgetpuLayoutBuilt, InjectivityOverManyPositions) {
  OutputSpec spec = ManyPositions();
  ExpectBuilt(spec, {});
  spec.y_local[1099] = 1098;  // y 1099 onto y 1098
  ExpectBuilt(spec, {"edgetpu.layout.injective"});
}

TEST(EdgetpuLayoutBuilt, ExpiredDeadlineStopsThePass) {
  const auto built = Build(ManyPositions());
  const Deadline deadline(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  DiagnosticSink sink({}, "built");
  EXPECT_FALSE(ValidateLayouts(built->view, deadline, sink));
}

OutputSpec WithShapeInfo() {
  OutputSpec spec;
  spec.y = 2;
  spec.x = 3;
  spec.z = 4;
  spec.size_bytes = 24;
  spec.layout = false;
  spec.shape = std::vector<dwn::Range>{{0, 0}, {0, 1}, {0, 2}, {0, 3}};
  // One slice, no padding: the runtime copies the buffer as it is.
  spec.slices = std::vector<OutputSpec::Slice>{{*spec.shape, {24, 12, 4, 1}}};
  spec.slice_offsets = {0};
  return spec;
}

// Two slices of y, the second padded: copied slice by slice.
OutputSpec WithTwoSlices() {
  OutputSpec spec = WithShapeInfo();
  spec.size_bytes = 32;
  spec.slices = std::vector<OutputSpec::Slice>{
      {{{0, 0}, {0, 0}, {0, 2}, {0, 3}}, {12, 12, 4, 1}},
      {{{0, 0}, {1, 1}, {0, 2}, {0, 3}}, {16, 16, 4, 1}},
  };
  spec.slice_offsets = {0, 16};
  return spec;
}

TEST(EdgetpuLayoutBuilt, SoundShapeInfoIsClean) {
  const OutputSpec whole = WithShapeInfo();
  const auto built = Build(whole);
  const dwn::Layer& layer = *built->view.executables[0].executable->output_layers()->Get(0);
  EXPECT_EQ(ShapeInfoPath(layer, *LayerDims::Of(layer)), CopyPath::kWhole);
  ExpectBuilt(whole, {});
  const OutputSpec two = WithTwoSlices();
  const auto built_two = Build(two);
  const dwn::Layer& layer_two = *built_two->view.executables[0].executable->output_layers()->Get(0);
  EXPECT_EQ(ShapeInfoPath(layer_two, *LayerDims::Of(layer_two)), CopyPath::kSlices);
  ExpectBuilt(two, {});
}

TEST(EdgetpuLayoutBuilt, BrokenShapeInfoIsAnError) {
  const Ids shape_info{"edgetpu.layout.shape_info"};
  std::vector<std::pair<std::string, OutputSpec>> cases;
  OutputSpec spec = WithTwoSlices();
  spec.slices->clear();
  cases.emplace_back("no slice", spec);
  spec = WithTwoSlices();
  spec.slice_offsets = {0};
  cases.emplace_back("one offset for two slices", spec);
  spec = WithTwoSlices();
  spec.shape.reset();
  cases.emplace_back("no Layer.shape", spec);
  spec = WithTwoSlices();
  (*spec.slices)[1].shape.pop_back();
  (*spec.slices)[1].stride.pop_back();
  cases.emplace_back("rank 3 against 4", spec);
  spec = WithTwoSlices();
  (*spec.slices)[1].shape[2] = dwn::Range(2, 1);
  cases.emplace_back("start after end", spec);
  spec = WithTwoSlices();
  (*spec.slices)[1].shape[1] = dwn::Range(1, 2);
  cases.emplace_back("outside the layer's shape", spec);
  spec = WithTwoSlices();
  (*spec.slices)[1].stride.pop_back();
  cases.emplace_back("three strides for rank 4", spec);
  spec = WithTwoSlices();
  (*spec.slices)[1].stride[2] = 3;
  cases.emplace_back("stride below the next one times its length", spec);
  spec = WithTwoSlices();
  spec.type = dwn::DataType::FIXED_POINT16;
  spec.size_bytes = 64;
  spec.slice_offsets = {0, 17};
  cases.emplace_back("offset not a multiple of the element size", spec);
  spec = WithTwoSlices();
  spec.slice_offsets = {0, 24};
  cases.emplace_back("slice beyond size_bytes", spec);
  for (const auto& [name, broken] : cases) {
    SCOPED_TRACE(name);
    ExpectBuilt(broken, shape_info);
  }
}

// More executions than one: the runtime ignores the shape_info and
// re-lays out by the maps, which this output does not have.
TEST(EdgetpuLayoutBuilt, ShapeInfoWithSeveralExecutions) {
  OutputSpec spec = WithTwoSlices();
  spec.executions = 2;
  ExpectBuilt(spec, {"edgetpu.layer.execution_count", "edgetpu.layout.missing"});
  // One unpadded slice filling size_bytes is copied whole for any count.
  spec = WithShapeInfo();
  spec.executions = 2;
  ExpectBuilt(spec, {});
}

}  // namespace
}  // namespace accelcheck::edgetpu
