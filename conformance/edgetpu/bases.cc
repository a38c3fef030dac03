#include "conformance/edgetpu/bases.h"

#include <algorithm>
#include <utility>

namespace accelcheck::edgetpu {

using namespace model;

namespace {

// The compiler leaves out fields at their default value (zero, INFEED,
// LOWER_32BIT, FIXED_POINT8, STAND_ALONE); the bases do the same, so that they
// look like its output (docs/formats/edgetpu.md §5.2).
template <typename T>
Opt<T> UnlessZero(T value) {
  if (value == T{}) return std::nullopt;
  return value;
}

// Deterministic filler for bitstreams and parameters (xorshift32).
Vec<uint8_t> Filler(size_t size, uint32_t seed) {
  Vec<uint8_t> out(size);
  uint32_t x = seed | 1;
  for (uint8_t& byte : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    byte = static_cast<uint8_t>(x >> 24);
  }
  return out;
}

Meta MakeMeta(int16_t desc, std::string name, int16_t position) {
  Meta m;
  m.desc = UnlessZero(desc);
  m.name = std::move(name);
  m.position = UnlessZero(position);
  return m;
}

// An address the linker patches: a layer's (by name) or the parameters' or
// scratch's (name "", as real files write it, EDG-50).
struct Target {
  int16_t desc;
  std::string name;
};

// A bitstream of 128-bit bundles with a lower and an upper half patch for
// each target. Each patch window is the 32 bits from bit 70 of its own
// bundle, cleared, as the compiler leaves its placeholders (EDG-53); the
// other bits are filler.
InstructionBitstream MakeChunk(size_t bundles, uint32_t seed, const std::vector<Target>& targets) {
  InstructionBitstream chunk;
  Vec<uint8_t> bits = Filler(bundles * 16, seed);
  Vec<FieldOffset> offsets;
  size_t bundle = 1;
  for (const Target& target : targets) {
    for (int16_t position : {kLower32, kUpper32}) {
      const int32_t offset_bit = static_cast<int32_t>(bundle * 128 + 70);
      for (int32_t bit = offset_bit; bit < offset_bit + 32; ++bit)
        bits[bit / 8] &= static_cast<uint8_t>(~(1u << (bit % 8)));
      FieldOffset f;
      f.meta = MakeMeta(target.desc, target.name, position);
      f.offset_bit = offset_bit;
      offsets.push_back(std::move(f));
      bundle += 2;
    }
  }
  chunk.bitstream = std::move(bits);
  chunk.field_offsets = std::move(offsets);
  return chunk;
}

DmaHint InstructionChunk(int32_t index) {
  InstructionHint h;
  h.instruction_chunk_index = UnlessZero(index);
  return DmaHint::Of(h, std::nullopt);
}

DmaHint Transfer(int16_t desc, std::string name, int32_t offset, int32_t size, int16_t direction) {
  DmaDescriptorHint h;
  h.meta = MakeMeta(desc, std::move(name), kLower32);
  h.offset_in_bytes = UnlessZero(offset);
  h.size_in_bytes = size;
  return DmaHint::Of(h, UnlessZero(direction));
}

DmaHint Fence() { return DmaHint::Of(FenceHint{}, std::nullopt); }

// Every fully deterministic stream ends with SCALAR_CORE_INT_0 going out (EDG-68).
DmaHint Interrupt0() { return DmaHint::Of(InterruptHint{}, kOutfeed); }

DmaHints Hints(Vec<DmaHint> hints) {
  DmaHints h;
  h.hints = std::move(hints);
  h.fully_deterministic = true;
  return h;
}

struct Quant {
  int32_t zero_point = 0;  // the device's: the TFLite one + 2^(bits-1) for signed types
  float scale = 1;
};

int32_t Bytes(int32_t y, int32_t x, int32_t z, int16_t data_type) {
  return y * x * z * ElementSize(data_type).value_or(1);
}

Layer BaseLayer(std::string name, int32_t y, int32_t x, int32_t z, int16_t data_type, Quant q) {
  Layer l;
  l.name = std::move(name);
  l.size_bytes = Bytes(y, x, z, data_type);
  l.y_dim = y;
  l.x_dim = x;
  l.z_dim = z;
  NumericsConstants n;
  n.zero_point = q.zero_point;
  n.dequantization_factor = q.scale;
  l.numerics = n;
  l.data_type = UnlessZero(data_type);
  return l;
}

Layer InputLayerOf(std::string name, int32_t y, int32_t x, int32_t z, int16_t data_type, Quant q) {
  Layer l = BaseLayer(std::move(name), y, x, z, data_type, q);
  l.any_layer_type = kLayerInput;
  l.any_layer = InputLayer{};
  return l;
}

// The TFLite shape of a layer: [1, y, x, z] without the leading 1s of y and x
// (a (1, 1, N) layer is a [1, N] tensor, as in real files).
Vec<int32_t> TensorDims(const Layer& l) {
  const int32_t y = l.y_dim.value_or(1);
  const int32_t x = l.x_dim.value_or(1);
  const int32_t z = l.z_dim.value_or(1);
  if (y == 1 && x == 1) return {1, z};
  if (y == 1) return {1, x, z};
  return {1, y, x, z};
}

// Layer.shape: the inclusive range of every dimension of the tensor.
TensorShape ShapeOf(const Layer& l) {
  TensorShape s;
  s.dimension = Vec<Range>{};
  for (int32_t d : TensorDims(l)) s.dimension->push_back(Range{0, d - 1});
  return s;
}

Layer OutputLayerOf(std::string name, int32_t y, int32_t x, int32_t z, int16_t data_type, Quant q,
                    OutputLayout layout) {
  Layer l = BaseLayer(std::move(name), y, x, z, data_type, q);
  OutputLayer out;
  out.layout = std::move(layout);
  l.any_layer_type = kLayerOutput;
  l.any_layer = std::move(out);
  l.shape = ShapeOf(l);
  return l;
}

// One tile holding the tensor in YXZ order, without padding: element
// (y, x, z) at (y * x_dim + x) * z_dim + z (docs/formats/edgetpu.md §6.3).
OutputLayout SingleTile(int32_t y_dim, int32_t x_dim, int32_t z_dim) {
  OutputLayout l;
  l.y_coordinate_to_linear_tile_id_map = Vec<int32_t>(y_dim, 0);
  l.x_coordinate_to_linear_tile_id_map = Vec<int32_t>(x_dim, 0);
  l.linearized_tile_byte_offset = Vec<int32_t>{0};
  l.x_coordinate_to_local_byte_offset = Vec<int32_t>{};
  for (int32_t x = 0; x < x_dim; ++x) l.x_coordinate_to_local_byte_offset->push_back(x * z_dim);
  l.y_coordinate_to_local_y_offset = Vec<int32_t>{};
  for (int32_t y = 0; y < y_dim; ++y) l.y_coordinate_to_local_y_offset->push_back(y);
  l.x_coordinate_to_local_y_row_size = Vec<int32_t>(x_dim, x_dim * z_dim);
  return l;
}

// The schema's example: a 4x5x32 tensor over 2x2 tiles, rows 0-1 / 2-3 and
// columns 0-2 / 3-4, each tile a dense block of its own rows.
OutputLayout SchemaExampleLayout() {
  OutputLayout l;
  l.y_coordinate_to_linear_tile_id_map = Vec<int32_t>{0, 0, 2, 2};
  l.x_coordinate_to_linear_tile_id_map = Vec<int32_t>{0, 0, 0, 1, 1};
  l.linearized_tile_byte_offset = Vec<int32_t>{0, 192, 320, 512};
  l.x_coordinate_to_local_byte_offset = Vec<int32_t>{0, 32, 64, 0, 32};
  l.y_coordinate_to_local_y_offset = Vec<int32_t>{0, 1, 0, 1};
  l.x_coordinate_to_local_y_row_size = Vec<int32_t>{96, 96, 96, 64, 64};
  return l;
}

Executable Skeleton(std::string name, Opt<int16_t> type, Opt<uint64_t> token) {
  Executable e;
  e.name = std::move(name);
  e.batch_size = 1;
  e.chip = "beagle";
  e.type = type;
  e.parameter_caching_token = token;
  return e;
}

Executable MainOf(Opt<int16_t> type, Opt<uint64_t> token, int32_t narrow_bytes) {
  Executable e = Skeleton("model", type, token);
  e.serialized_model = Vec<uint8_t>{};
  e.used_narrow_memory_bytes_per_tile = narrow_bytes;
  e.input_layers = Vec<Layer>{};
  e.output_layers = Vec<Layer>{};
  return e;
}

// The PC executable of a pair: it streams the parameters once and has no
// layers (EDG-35); `with_scratch` adds the scratch patches the 2019
// compilers wrote.
Executable ParameterCaching(uint64_t token, size_t parameter_bytes, uint32_t seed,
                            bool with_scratch) {
  Executable e = Skeleton("Unknown", kParameterCaching, token);
  std::vector<Target> targets = {{kParameter, ""}};
  if (with_scratch) targets.push_back({kScratch, ""});
  e.instruction_bitstreams = Vec<InstructionBitstream>{MakeChunk(8, seed, targets)};
  e.parameters = Filler(parameter_bytes, seed + 1);
  const int32_t size = static_cast<int32_t>(parameter_bytes);
  e.dma_hints =
      Hints({InstructionChunk(0), Transfer(kParameter, "", 0, size, kInfeed), Interrupt0()});
  return e;
}

Package PackageOf(Vec<Executable> executables, int32_t min_runtime_version) {
  Package p;
  p.min_runtime_version = min_runtime_version;
  MultiExecutable multi;
  multi.executables = Vec<Nested<Executable>>{};
  for (Executable& e : executables)
    multi.executables->emplace_back(std::in_place_type<Executable>, std::move(e));
  p.multi_executable = std::move(multi);
  p.signature = Vec<uint8_t>{};
  p.keypair_version = 0;
  p.compiler_version = "cl/";
  p.virtual_chip_id = 0;
  p.model_identifier = "";
  return p;
}

int32_t SizeOf(const Layer& l) { return *l.size_bytes; }

// Hints that move each input in and each output out whole, in layer order.
Vec<DmaHint> InputTransfers(const Executable& e) {
  Vec<DmaHint> out;
  for (const Layer& l : *e.input_layers)
    out.push_back(Transfer(kInputActivation, *l.name, 0, SizeOf(l), kInfeed));
  return out;
}
Vec<DmaHint> OutputTransfers(const Executable& e) {
  Vec<DmaHint> out;
  for (const Layer& l : *e.output_layers)
    out.push_back(Transfer(kOutputActivation, *l.name, 0, SizeOf(l), kOutfeed));
  return out;
}

// Patch targets for the main executable: parameters, scratch, then every
// input and output layer.
std::vector<Target> LayerTargets(const Executable& e) {
  std::vector<Target> targets;
  for (const Layer& l : *e.input_layers) targets.push_back({kInputActivation, *l.name});
  for (const Layer& l : *e.output_layers) targets.push_back({kOutputActivation, *l.name});
  return targets;
}

std::vector<Target> Concat(std::vector<Target> a, const std::vector<Target>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Vec<DmaHint> Concat(Vec<DmaHint> a, const Vec<DmaHint>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<Target> kParameterAndScratch = {{kParameter, ""}, {kScratch, ""}};

// Like the compiler's output for one convolution (testconv1 among the real
// files, docs/formats/edgetpu.md §5.1): a STAND_ALONE executable with its
// parameters, its `type` left out.
Package Standalone() {
  Executable e = MainOf(std::nullopt, std::nullopt, 1424);
  e.input_layers->push_back(InputLayerOf("input", 8, 8, 4, kFixedPoint8, {128, 0.0078125f}));
  e.output_layers->push_back(
      OutputLayerOf("conv1", 6, 6, 16, kFixedPoint8, {113, 0.03125f}, SingleTile(6, 6, 16)));
  e.parameters = Filler(640, 11);
  e.instruction_bitstreams =
      Vec<InstructionBitstream>{MakeChunk(32, 12, Concat(LayerTargets(e), kParameterAndScratch))};
  Vec<DmaHint> hints = {InstructionChunk(0)};
  hints = Concat(hints, InputTransfers(e));
  hints.push_back(Transfer(kParameter, "", 0, 640, kInfeed));
  hints = Concat(hints, OutputTransfers(e));
  hints.push_back(Interrupt0());
  e.dma_hints = Hints(hints);
  return PackageOf({std::move(e)}, 13);
}

// An EO + PC pair, [EO, PC] as the compiler orders them: the EO executable
// with empty parameters (its PARAMETER patches stay, EDG-52) and the given
// hints between the instruction chunk and the final interrupt.
Package Pair(Executable eo, uint64_t token, size_t parameter_bytes, uint32_t seed,
             bool pc_scratch) {
  eo.type = kExecutionOnly;
  eo.parameter_caching_token = token;
  Executable pc = ParameterCaching(token, parameter_bytes, seed, pc_scratch);
  return PackageOf({std::move(eo), std::move(pc)}, 14);
}

Executable SimpleEo(uint32_t seed) {
  Executable e = MainOf(kExecutionOnly, std::nullopt, 832);
  e.input_layers->push_back(InputLayerOf("dense_input", 1, 1, 64, kFixedPoint8, {127, 0.0078125f}));
  e.output_layers->push_back(OutputLayerOf("dense_output", 1, 1, 32, kFixedPoint8, {129, 0.015625f},
                                           SingleTile(1, 1, 32)));
  e.parameters = Vec<uint8_t>{};
  e.instruction_bitstreams =
      Vec<InstructionBitstream>{MakeChunk(16, seed, Concat(kParameterAndScratch, LayerTargets(e)))};
  e.dma_hints = Hints(Concat(Concat({InstructionChunk(0)}, InputTransfers(e)), OutputTransfers(e)));
  e.dma_hints->hints->push_back(Interrupt0());
  return e;
}

// A pair with a 1-D output, its PC executable patching scratch as well
// (like the 2019 compilers' output).
Package Cached1d() { return Pair(SimpleEo(21), 0x3c1d5e0a91b2c4d7, 1024, 22, true); }

Package TiledLayout() {
  Executable e = MainOf(kExecutionOnly, std::nullopt, 2048);
  e.input_layers->push_back(InputLayerOf("image", 4, 5, 8, kSignedFixedPoint8, {125, 0.05f}));
  e.output_layers->push_back(
      OutputLayerOf("features", 4, 5, 32, kFixedPoint16, {0, 0.001f}, SchemaExampleLayout()));
  e.output_layers->push_back(
      OutputLayerOf("logits", 1, 1, 16, kSignedFixedPoint8, {133, 0.1f}, SingleTile(1, 1, 16)));
  e.parameters = Vec<uint8_t>{};
  e.instruction_bitstreams =
      Vec<InstructionBitstream>{MakeChunk(24, 31, Concat(kParameterAndScratch, LayerTargets(e)))};
  e.dma_hints = Hints(Concat(Concat({InstructionChunk(0)}, InputTransfers(e)), OutputTransfers(e)));
  e.dma_hints->hints->push_back(Interrupt0());
  return Pair(std::move(e), 0x7a0be2c4f1d39586, 2048, 32, false);
}

// Like deeplab slim among the real files (docs/formats/edgetpu.md §5.2): the
// EO executable spills to scratch and reads it back between fences, over two
// bitstream chunks, the second one patching the output.
Package ScratchFences() {
  constexpr int32_t kScratchBytes = 4096;
  Executable e = MainOf(kExecutionOnly, std::nullopt, 4864);
  e.scratch_size_bytes = kScratchBytes;
  e.input_layers->push_back(InputLayerOf("frame", 8, 8, 8, kFixedPoint8, {128, 0.0078125f}));
  e.output_layers->push_back(
      OutputLayerOf("mask", 4, 4, 8, kFixedPoint8, {82, 0.25f}, SingleTile(4, 4, 8)));
  e.parameters = Vec<uint8_t>{};
  std::vector<Target> first = kParameterAndScratch;
  first.push_back({kInputActivation, "frame"});
  e.instruction_bitstreams = Vec<InstructionBitstream>{
      MakeChunk(24, 41, first), MakeChunk(16, 42, {{kOutputActivation, "mask"}})};
  constexpr int32_t kHalf = kScratchBytes / 2;
  Vec<DmaHint> hints = {InstructionChunk(0)};
  hints = Concat(hints, InputTransfers(e));
  hints.push_back(Transfer(kScratch, "", 0, kScratchBytes, kOutfeed));
  hints.push_back(Fence());
  hints.push_back(Transfer(kScratch, "", 0, kHalf, kInfeed));
  hints.push_back(InstructionChunk(1));
  hints.push_back(Fence());
  hints.push_back(Transfer(kScratch, "", kHalf, kHalf, kInfeed));
  hints = Concat(hints, OutputTransfers(e));
  hints.push_back(Interrupt0());
  e.dma_hints = Hints(hints);
  return Pair(std::move(e), 0x1f4e2d9a0c7b3856, 1536, 43, false);
}

// Like an LSTM compiled with its state as a variable tensor: the EO
// executable keeps some parameters of its own (EDG-89), reads the state as
// an input and writes it back through `state_variable_output` (EDG-15).
Package LstmVariable() {
  Executable e = MainOf(kExecutionOnly, std::nullopt, 4876);
  const Quant state{127, 0.0078125f};
  e.input_layers->push_back(InputLayerOf("x", 1, 4, 8, kFixedPoint8, {0, 0.00390625f}));
  e.input_layers->push_back(InputLayerOf("state", 1, 1, 16, kSignedFixedPoint8, state));
  e.output_layers->push_back(
      OutputLayerOf("y", 1, 1, 8, kFixedPoint8, {0, 0.00390625f}, SingleTile(1, 1, 8)));
  e.output_layers->push_back(OutputLayerOf("state_variable_output", 1, 1, 16, kSignedFixedPoint8,
                                           state, SingleTile(1, 1, 16)));
  e.parameters = Filler(128, 51);
  e.instruction_bitstreams =
      Vec<InstructionBitstream>{MakeChunk(32, 52, Concat(kParameterAndScratch, LayerTargets(e)))};
  Vec<DmaHint> hints = {InstructionChunk(0), Transfer(kParameter, "", 0, 128, kInfeed)};
  hints = Concat(Concat(hints, InputTransfers(e)), OutputTransfers(e));
  hints.push_back(Interrupt0());
  e.dma_hints = Hints(hints);
  return Pair(std::move(e), 0x6b93f0e1a2c45d87, 512, 53, false);
}

FlexMap StandaloneOptions(Package package) {
  FlexMap options = CompilerOptions(std::move(package));
  // As testconv1 asks: preference 1 and chip 17 (docs/formats/edgetpu.md §5.1).
  for (FlexEntry& entry : options.entries) {
    if (entry.key == "5") entry.value = FlexInt{1};
    if (entry.key == "6") entry.value = FlexVector{{int64_t{17}}};
  }
  return options;
}

// A CPU DEQUANTIZE operator after the Edge TPU one, on its output `name`.
void DequantizeAfter(TfliteModel& m, const std::string& name) {
  OperatorCode code;
  code.deprecated_builtin_code = static_cast<int8_t>(kBuiltinDequantize);
  code.builtin_code = kBuiltinDequantize;
  m.operator_codes->push_back(code);
  SubGraph& g = m.subgraphs->front();
  int32_t source = 0;
  while ((*g.tensors)[source].name != name) ++source;
  Tensor out;
  out.shape = (*g.tensors)[source].shape;
  out.type = kFloat32;
  out.name = name + "_float";
  g.tensors->push_back(out);
  const int32_t result = static_cast<int32_t>(g.tensors->size() - 1);
  Operator op;
  op.opcode_index = 1;
  op.inputs = Vec<int32_t>{source};
  op.outputs = Vec<int32_t>{result};
  g.operators->push_back(op);
  for (int32_t& output : *g.outputs) {
    if (output == source) output = result;
  }
}

// --- Packages from a spec (PackageFromSpec) ---

// [0, size) as `pieces` ranges one after the other (fewer when size is
// smaller), each (offset, end).
std::vector<std::pair<int64_t, int64_t>> Split(int64_t size, int64_t pieces) {
  std::vector<std::pair<int64_t, int64_t>> out;
  const int64_t n = std::clamp<int64_t>(pieces, 1, std::max<int64_t>(size, 1));
  for (int64_t k = 0; k < n; ++k) out.emplace_back(k * size / n, (k + 1) * size / n);
  return out;
}

// The elements per (y, x) position of an output: z, or z padded to a
// multiple of 4 bytes (real outputs pad 17 to 20, 1 to 4, §6.3).
int32_t PaddedZ(const LayerSpec& s) {
  const int32_t element = ElementSize(s.data_type).value_or(1);
  if (!s.pad_z) return s.z;
  return (s.z * element + 3) / 4 * 4 / element;
}

// Where each of `tiles` runs of `n` positions starts, and n at the end.
std::vector<int32_t> RunStarts(int32_t n, int32_t tiles) {
  std::vector<int32_t> starts;
  for (int32_t t = 0; t <= tiles; ++t)
    starts.push_back(static_cast<int32_t>(int64_t{t} * n / tiles));
  return starts;
}

// A layout of y_tiles x x_tiles tiles, tile ids row-major, each tile a dense
// block of its own rows with `zp` elements per position (§6.3). The runtime
// derives its z stride from the first two positions (along x, or along y
// when x_dim is 1), so those stay in one tile: a tile spans at least two of
// them. `elements` gets the buffer's length.
OutputLayout TiledLayout(const LayerSpec& s, int32_t zp, int64_t* elements) {
  const int32_t tx = std::clamp(s.x_tiles, 1, std::max(1, s.x / 2));
  const int32_t ty = std::clamp(s.y_tiles, 1, s.x == 1 ? std::max(1, s.y / 2) : s.y);
  const std::vector<int32_t> ys = RunStarts(s.y, ty), xs = RunStarts(s.x, tx);
  OutputLayout l;
  l.y_coordinate_to_linear_tile_id_map = Vec<int32_t>(s.y);
  l.y_coordinate_to_local_y_offset = Vec<int32_t>(s.y);
  l.x_coordinate_to_linear_tile_id_map = Vec<int32_t>(s.x);
  l.x_coordinate_to_local_byte_offset = Vec<int32_t>(s.x);
  l.x_coordinate_to_local_y_row_size = Vec<int32_t>(s.x);
  l.linearized_tile_byte_offset = Vec<int32_t>{};
  int64_t offset = 0;
  for (int32_t a = 0; a < ty; ++a) {
    for (int32_t b = 0; b < tx; ++b) {
      l.linearized_tile_byte_offset->push_back(static_cast<int32_t>(offset));
      offset += int64_t{ys[a + 1] - ys[a]} * (xs[b + 1] - xs[b]) * zp;
    }
    for (int32_t y = ys[a]; y < ys[a + 1]; ++y) {
      (*l.y_coordinate_to_linear_tile_id_map)[y] = a * tx;
      (*l.y_coordinate_to_local_y_offset)[y] = y - ys[a];
    }
  }
  for (int32_t b = 0; b < tx; ++b) {
    for (int32_t x = xs[b]; x < xs[b + 1]; ++x) {
      (*l.x_coordinate_to_linear_tile_id_map)[x] = b;
      (*l.x_coordinate_to_local_byte_offset)[x] = (x - xs[b]) * zp;
      (*l.x_coordinate_to_local_y_row_size)[x] = (xs[b + 1] - xs[b]) * zp;
    }
  }
  *elements = offset;
  return l;
}

Layer SpecLayer(const LayerSpec& s, bool output) {
  const Quant q{s.zero_point, s.scale};
  if (!output) {
    Layer l = InputLayerOf(s.name, s.y, s.x, s.z, s.data_type, q);
    if (s.round_size) l.size_bytes = (*l.size_bytes + 7) / 8 * 8;
    return l;
  }
  int64_t elements = 0;
  OutputLayout layout = TiledLayout(s, PaddedZ(s), &elements);
  Layer l = OutputLayerOf(s.name, s.y, s.x, s.z, s.data_type, q, std::move(layout));
  l.size_bytes = static_cast<int32_t>(elements * ElementSize(s.data_type).value_or(1));
  if (!s.with_shape) l.shape = std::nullopt;
  return l;
}

// The descriptors moving one layer whole, in `s.pieces` pieces; an input's
// pieces start `s.halo` bytes early (EDG-68 allows input halos).
void AddLayerTransfers(const LayerSpec& s, const Layer& l, int16_t desc, Vec<DmaHint>& hints) {
  const int16_t direction = desc == kInputActivation ? kInfeed : kOutfeed;
  for (auto [offset, end] : Split(*l.size_bytes, s.pieces)) {
    if (desc == kInputActivation) offset = std::max<int64_t>(0, offset - s.halo);
    hints.push_back(Transfer(desc, *l.name, static_cast<int32_t>(offset),
                             static_cast<int32_t>(end - offset), direction));
  }
}

// The bases' order (§5.2): chunk 0, parameters, inputs, scratch out and
// back in between fences, the other chunks each followed by a fence, the
// outputs, interrupt 0.
Vec<DmaHint> SpecHints(const PackageSpec& spec, const Executable& e, uint32_t parameter_bytes,
                       int32_t chunks) {
  Vec<DmaHint> hints = {InstructionChunk(0)};
  if (parameter_bytes > 0) {
    for (auto [offset, end] : Split(parameter_bytes, spec.parameter_pieces)) {
      hints.push_back(Transfer(kParameter, "", static_cast<int32_t>(offset),
                               static_cast<int32_t>(end - offset), kInfeed));
    }
  }
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    AddLayerTransfers(spec.inputs[i], (*e.input_layers)[i], kInputActivation, hints);
  if (spec.scratch_bytes > 0) {
    hints.push_back(Transfer(kScratch, "", 0, spec.scratch_bytes, kOutfeed));
    hints.push_back(Fence());
    hints.push_back(Transfer(kScratch, "", 0, spec.scratch_bytes, kInfeed));
  }
  for (int32_t c = 1; c < chunks; ++c) {
    hints.push_back(InstructionChunk(c));
    hints.push_back(Fence());
  }
  for (size_t i = 0; i < spec.outputs.size(); ++i)
    AddLayerTransfers(spec.outputs[i], (*e.output_layers)[i], kOutputActivation, hints);
  hints.push_back(Interrupt0());
  return hints;
}

// Every address of `targets` patched `pairs` times, the patches dealt over
// `chunks` chunks in turn.
Vec<InstructionBitstream> SpecChunks(const std::vector<Target>& targets, int32_t pairs,
                                     int32_t chunks, uint32_t seed) {
  std::vector<std::vector<Target>> dealt(static_cast<size_t>(chunks));
  size_t k = 0;
  for (int32_t r = 0; r < pairs; ++r) {
    for (const Target& t : targets) dealt[k++ % dealt.size()].push_back(t);
  }
  Vec<InstructionBitstream> out;
  for (size_t c = 0; c < dealt.size(); ++c) {
    // MakeChunk puts the patches of n targets in bundles 1, 3, ..., 4n - 1.
    out.push_back(MakeChunk(4 * dealt[c].size() + 4, seed + static_cast<uint32_t>(c), dealt[c]));
  }
  return out;
}

Executable SpecMain(const PackageSpec& spec) {
  const Opt<int16_t> type = spec.cached ? Opt<int16_t>(kExecutionOnly) : std::nullopt;
  Executable e = MainOf(type, UnlessZero(spec.token), 4096);
  for (const LayerSpec& s : spec.inputs) e.input_layers->push_back(SpecLayer(s, false));
  for (const LayerSpec& s : spec.outputs) e.output_layers->push_back(SpecLayer(s, true));
  const uint32_t parameter_bytes = spec.cached ? spec.main_parameter_bytes : spec.parameter_bytes;
  e.parameters = Filler(parameter_bytes, spec.seed + 1);
  if (spec.scratch_bytes > 0) e.scratch_size_bytes = spec.scratch_bytes;
  const int32_t chunks = std::max(spec.chunks, 1);
  e.instruction_bitstreams = SpecChunks(Concat(kParameterAndScratch, LayerTargets(e)),
                                        std::max(spec.patch_pairs, 1), chunks, spec.seed + 2);
  e.dma_hints = Hints(SpecHints(spec, e, parameter_bytes, chunks));
  return e;
}

}  // namespace

std::optional<int> ElementSize(int16_t data_type) {
  switch (data_type) {
    case kFixedPoint8:
    case kSignedFixedPoint8:
      return 1;
    case kFixedPoint16:
    case kBfloat:
    case kHalf:
    case kSignedFixedPoint16:
      return 2;
    case kSignedFixedPoint32:
    case kSingle:
      return 4;
    default:
      return std::nullopt;
  }
}

std::optional<int8_t> TfliteType(int16_t data_type) {
  switch (data_type) {
    case kFixedPoint8:
      return kUint8;
    case kSignedFixedPoint8:
      return kInt8;
    case kFixedPoint16:
    case kSignedFixedPoint16:
      return kInt16;
    case kSignedFixedPoint32:
      return kInt32;
    case kSingle:
      return kFloat32;
    case kHalf:
      return kFloat16;
    default:
      return std::nullopt;
  }
}

FlexMap CompilerOptions(Package package) {
  FlexMap map;
  map.entries.push_back({"1", FlexInt{0}});
  map.entries.push_back({"4", FlexPackage{std::move(package), false}});
  map.entries.push_back({"5", FlexInt{-1}});
  map.entries.push_back({"6", FlexVector{{int64_t{18}}}});
  map.entries.push_back({"7", FlexVector{}});
  return map;
}

const Executable* MainExecutable(const Package& package) {
  if (!package.multi_executable) return nullptr;
  const auto* multi = std::get_if<MultiExecutable>(&*package.multi_executable);
  if (!multi || !multi->executables) return nullptr;
  const int16_t wanted = multi->executables->size() == 2 ? kExecutionOnly : kStandAlone;
  for (const Nested<Executable>& nested : *multi->executables) {
    const auto* e = std::get_if<Executable>(&nested);
    if (e && e->type.value_or(kStandAlone) == wanted) return e;
  }
  return nullptr;
}

TfliteModel WrapPackage(const Package& package, FlexMap options) {
  constexpr std::string_view kVariableSuffix = "_variable_output";
  SubGraph g;
  g.tensors = Vec<Tensor>{};
  g.inputs = Vec<int32_t>{};
  g.outputs = Vec<int32_t>{};
  Operator op;
  op.inputs = Vec<int32_t>{};
  op.outputs = Vec<int32_t>{};
  auto add_tensor = [&](const Layer& l, bool variable) {
    Tensor t;
    const int16_t data_type = l.data_type.value_or(kFixedPoint8);
    t.shape = TensorDims(l);
    t.type = TfliteType(data_type).value_or(kUint8);
    t.name = l.name;
    const NumericsConstants n = l.numerics.value_or(NumericsConstants{});
    // The device works in offset binary for signed types (EDG-16).
    int64_t offset = 0;
    if (data_type == kSignedFixedPoint8) offset = 128;
    if (data_type == kSignedFixedPoint16) offset = 32768;
    Quantization q;
    q.scale = Vec<float>{n.dequantization_factor.value_or(0)};
    q.zero_point = Vec<int64_t>{n.zero_point.value_or(0) - offset};
    t.quantization = q;
    if (variable) t.is_variable = true;
    g.tensors->push_back(t);
    return static_cast<int32_t>(g.tensors->size() - 1);
  };
  if (const Executable* e = MainExecutable(package)) {
    auto written_back = [&](const std::string& name) {
      for (const Layer& out : e->output_layers.value_or(Vec<Layer>{})) {
        if (out.name == name + std::string(kVariableSuffix)) return true;
      }
      return false;
    };
    for (const Layer& l : e->input_layers.value_or(Vec<Layer>{})) {
      const bool variable = written_back(l.name.value_or(""));
      const int32_t index = add_tensor(l, variable);
      op.inputs->push_back(index);
      if (!variable) g.inputs->push_back(index);
    }
    for (const Layer& l : e->output_layers.value_or(Vec<Layer>{})) {
      const std::string name = l.name.value_or("");
      if (name.size() > kVariableSuffix.size() && name.ends_with(kVariableSuffix)) continue;
      const int32_t index = add_tensor(l, false);
      op.outputs->push_back(index);
      g.outputs->push_back(index);
    }
  }
  op.custom_options = std::move(options);
  g.operators = Vec<Operator>{std::move(op)};

  OperatorCode code;
  code.deprecated_builtin_code = static_cast<int8_t>(kBuiltinCustom);
  code.custom_code = "edgetpu-custom-op";
  code.builtin_code = kBuiltinCustom;
  TfliteModel m;
  m.version = 3;
  m.operator_codes = Vec<OperatorCode>{code};
  m.subgraphs = Vec<SubGraph>{std::move(g)};
  m.description = "accelcheck conformance base";
  m.buffers = Vec<Buffer>{Buffer{}};
  return m;
}

std::vector<NamedBase> ExampleBases() {
  std::vector<NamedBase> bases;
  Package standalone = Standalone();
  bases.push_back({"standalone", WrapPackage(standalone, StandaloneOptions(standalone))});
  Package cached = Cached1d();
  bases.push_back({"cached_1d", WrapPackage(cached, CompilerOptions(cached))});
  Package tiled = TiledLayout();
  TfliteModel tiled_model = WrapPackage(tiled, CompilerOptions(tiled));
  DequantizeAfter(tiled_model, "logits");
  bases.push_back({"tiled_layout", std::move(tiled_model)});
  Package scratch = ScratchFences();
  bases.push_back({"scratch_fences", WrapPackage(scratch, CompilerOptions(scratch))});
  Package lstm = LstmVariable();
  bases.push_back({"lstm_variable", WrapPackage(lstm, CompilerOptions(lstm))});
  bases.push_back({"bare_package", Pair(SimpleEo(61), 0x52a8c1e7d04f96b3, 768, 62, false)});
  return bases;
}

Package PackageFromSpec(const PackageSpec& spec) {
  Executable main = SpecMain(spec);
  Package p = spec.cached ? Pair(std::move(main), spec.token, spec.parameter_bytes, spec.seed + 3,
                                 spec.pc_scratch)
                          : PackageOf({std::move(main)}, spec.min_runtime_version);
  p.min_runtime_version = spec.min_runtime_version;
  return p;
}

}  // namespace accelcheck::edgetpu
