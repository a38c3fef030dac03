// The bases keep the invariants of docs/formats/edgetpu.md §4 that make a
// file valid under --strict, checked here on the model until the validator
// checks them on the bytes: patches on cleared windows of their bitstream,
// hints that move every byte once, layouts that map every element into the
// output, sizes and quantization that agree with the TensorFlow Lite tensors.
#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "conformance/edgetpu/bases.h"
#include "conformance/edgetpu/serialize.h"
#include "tests/support/describe.h"
#include "validators/core/format.h"
#include "validators/edgetpu/edgetpu_format.h"

namespace accelcheck::edgetpu {
namespace {

using namespace model;

using Interval = std::pair<int64_t, int64_t>;  // [first, end)

// The intervals tile [0, size) exactly: sorted, each starting where the
// last ended.
void ExpectTiles(std::vector<Interval> parts, int64_t size, const std::string& what) {
  std::sort(parts.begin(), parts.end());
  int64_t end = 0;
  for (const Interval& p : parts) {
    EXPECT_EQ(p.first, end) << what;
    end = p.second;
  }
  EXPECT_EQ(end, size) << what;
}

const Layer* FindLayer(const Opt<Vec<Layer>>& layers, const std::string& name) {
  if (!layers) return nullptr;
  for (const Layer& l : *layers) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

int64_t ElementBytes(const Layer& l) { return *ElementSize(l.data_type.value_or(kFixedPoint8)); }

// EDG-41 to EDG-53: every patch window inside its bitstream, at bit 70 of a
// 128-bit bundle, cleared, named after a layer (INPUT/OUTPUT) or "" (the
// others), and a lower and upper half for every target.
void CheckPatches(const Executable& e, const std::string& name) {
  ASSERT_TRUE(e.instruction_bitstreams && !e.instruction_bitstreams->empty()) << name;
  std::map<std::pair<int16_t, std::string>, int> halves;
  for (const InstructionBitstream& chunk : *e.instruction_bitstreams) {
    const Vec<uint8_t>& bits = *chunk.bitstream;
    EXPECT_EQ(bits.size() % 16, 0u) << name;
    std::set<int32_t> bundles;
    for (const FieldOffset& f : *chunk.field_offsets) {
      const int32_t bit = *f.offset_bit;
      EXPECT_EQ(bit % 128, 70) << name;
      ASSERT_LE(static_cast<size_t>(bit) + 32, bits.size() * 8) << name;
      for (int32_t b = bit; b < bit + 32; ++b) EXPECT_EQ((bits[b / 8] >> (b % 8)) & 1, 0) << name;
      EXPECT_TRUE(bundles.insert(bit / 128).second) << name << ": two windows in one bundle";
      const Meta& m = *f.meta;
      const int16_t desc = m.desc.value_or(kOutputActivation);
      if (desc == kInputActivation) {
        EXPECT_TRUE(FindLayer(e.input_layers, *m.name)) << name << " " << *m.name;
      } else if (desc == kOutputActivation) {
        EXPECT_TRUE(FindLayer(e.output_layers, *m.name)) << name << " " << *m.name;
      } else {
        EXPECT_EQ(m.name, "") << name;
      }
      halves[{desc, *m.name}] += m.position.value_or(kLower32) == kLower32 ? 1 : 100;
    }
  }
  for (const auto& [target, count] : halves) EXPECT_EQ(count, 101) << name << " " << target.second;
}

// EDG-57 to EDG-68: the grammar the compiler follows, every input and
// output byte moved once, the parameters streamed once, scratch in bounds.
void CheckHints(const Executable& e, const std::string& name) {
  ASSERT_TRUE(e.dma_hints && e.dma_hints->hints) << name;
  EXPECT_EQ(e.dma_hints->fully_deterministic, true) << name;
  const Vec<DmaHint>& hints = *e.dma_hints->hints;
  ASSERT_FALSE(hints.empty()) << name;
  std::map<std::string, std::vector<Interval>> inputs, outputs;
  std::vector<Interval> parameters;
  std::vector<int32_t> chunks;
  for (const DmaHint& h : hints) {
    const int16_t direction = h.direction.value_or(kInfeed);
    ASSERT_EQ(h.type, h.hint.index()) << name;
    if (const auto* i = std::get_if<InstructionHint>(&h.hint)) {
      chunks.push_back(i->instruction_chunk_index.value_or(0));
      EXPECT_EQ(direction, kInfeed) << name;
    } else if (std::holds_alternative<FenceHint>(h.hint)) {
      EXPECT_EQ(direction, kInfeed) << name;
    } else if (const auto* d = std::get_if<DmaDescriptorHint>(&h.hint)) {
      const int16_t desc = d->meta->desc.value_or(kOutputActivation);
      const int64_t first = d->offset_in_bytes.value_or(0);
      const Interval part{first, first + *d->size_in_bytes};
      EXPECT_GT(*d->size_in_bytes, 0) << name;
      if (desc == kInputActivation) {
        EXPECT_EQ(direction, kInfeed) << name;
        inputs[*d->meta->name].push_back(part);
      } else if (desc == kOutputActivation) {
        EXPECT_EQ(direction, kOutfeed) << name;
        outputs[*d->meta->name].push_back(part);
      } else if (desc == kParameter) {
        EXPECT_EQ(direction, kInfeed) << name;
        parameters.push_back(part);
      } else {
        EXPECT_LE(part.second, e.scratch_size_bytes.value_or(0)) << name;
      }
    } else {
      ASSERT_TRUE(std::holds_alternative<InterruptHint>(h.hint)) << name;
      EXPECT_EQ(&h, &hints.back()) << name;
      EXPECT_EQ(direction, kOutfeed) << name;
      EXPECT_EQ(std::get<InterruptHint>(h.hint).type.value_or(0), 0) << name;
    }
  }
  EXPECT_TRUE(std::holds_alternative<InterruptHint>(hints.back().hint)) << name;
  EXPECT_TRUE(std::holds_alternative<InstructionHint>(hints.front().hint)) << name;
  std::vector<int32_t> expected_chunks(e.instruction_bitstreams->size());
  for (size_t i = 0; i < expected_chunks.size(); ++i) expected_chunks[i] = static_cast<int32_t>(i);
  EXPECT_EQ(chunks, expected_chunks) << name;
  for (const Layer& l : e.input_layers.value_or(Vec<Layer>{}))
    ExpectTiles(inputs[*l.name], *l.size_bytes, name + " input " + *l.name);
  for (const Layer& l : e.output_layers.value_or(Vec<Layer>{}))
    ExpectTiles(outputs[*l.name], *l.size_bytes, name + " output " + *l.name);
  EXPECT_EQ(inputs.size(), e.input_layers.value_or(Vec<Layer>{}).size()) << name;
  EXPECT_EQ(outputs.size(), e.output_layers.value_or(Vec<Layer>{}).size()) << name;
  ExpectTiles(parameters, static_cast<int64_t>(e.parameters->size()), name + " parameters");
  EXPECT_EQ(e.parameters->size() % 64, 0u) << name;
}

// EDG-69 to EDG-85: sizes, numerics, shapes, and every element of an output
// at its own place inside the output buffer.
void CheckLayer(const Layer& l, bool output, const std::string& name) {
  const int64_t y = *l.y_dim, x = *l.x_dim, z = *l.z_dim;
  ASSERT_TRUE(l.numerics && l.numerics->dequantization_factor) << name;
  EXPECT_EQ(*l.size_bytes, y * x * z * ElementBytes(l)) << name;
  EXPECT_EQ(*l.size_bytes % 8, 0) << name;
  EXPECT_EQ(l.any_layer_type, output ? kLayerOutput : kLayerInput) << name;
  if (l.shape) {
    int64_t elements = 1;
    for (const Range& r : *l.shape->dimension) elements *= r.end - r.start + 1;
    EXPECT_EQ(elements, y * x * z) << name;
  }
  if (!output) return;
  const OutputLayout& o = *std::get<OutputLayer>(l.any_layer).layout;
  ASSERT_EQ(o.y_coordinate_to_linear_tile_id_map->size(), static_cast<size_t>(y)) << name;
  ASSERT_EQ(o.y_coordinate_to_local_y_offset->size(), static_cast<size_t>(y)) << name;
  ASSERT_EQ(o.x_coordinate_to_linear_tile_id_map->size(), static_cast<size_t>(x)) << name;
  ASSERT_EQ(o.x_coordinate_to_local_byte_offset->size(), static_cast<size_t>(x)) << name;
  ASSERT_EQ(o.x_coordinate_to_local_y_row_size->size(), static_cast<size_t>(x)) << name;
  auto index = [&](int64_t yy, int64_t xx, int64_t zz) {
    const size_t tile = static_cast<size_t>((*o.y_coordinate_to_linear_tile_id_map)[yy] +
                                            (*o.x_coordinate_to_linear_tile_id_map)[xx]);
    EXPECT_LT(tile, o.linearized_tile_byte_offset->size()) << name;
    return int64_t{(*o.linearized_tile_byte_offset)[tile]} +
           int64_t{(*o.y_coordinate_to_local_y_offset)[yy]} *
               (*o.x_coordinate_to_local_y_row_size)[xx] +
           (*o.x_coordinate_to_local_byte_offset)[xx] + zz;
  };
  std::set<int64_t> seen;
  for (int64_t yy = 0; yy < y; ++yy) {
    for (int64_t xx = 0; xx < x; ++xx) {
      for (int64_t zz = 0; zz < z; ++zz) {
        const int64_t i = index(yy, xx, zz);
        EXPECT_GE(i, 0) << name;
        EXPECT_LE((i + 1) * ElementBytes(l), *l.size_bytes) << name;
        EXPECT_TRUE(seen.insert(i).second) << name << " (" << yy << "," << xx << "," << zz << ")";
      }
    }
  }
  if (x > 1) {
    EXPECT_GE(index(0, 1, 0) - index(0, 0, 0), z) << name;
  }
}

// EDG-11 to EDG-16: the Edge TPU operator's tensors against the main
// executable's layers.
void CheckTensors(const TfliteModel& m, const Executable& e, const std::string& name) {
  const SubGraph& g = (*m.subgraphs)[0];
  const Operator* op = nullptr;
  for (const Operator& o : *g.operators) {
    if (std::holds_alternative<FlexMap>(*o.custom_options)) op = &o;
  }
  ASSERT_TRUE(op) << name;
  auto check = [&](int32_t tensor, const Layer& l) {
    const Tensor& t = (*g.tensors)[tensor];
    EXPECT_EQ(t.name, l.name) << name;
    EXPECT_EQ(t.type, TfliteType(l.data_type.value_or(kFixedPoint8))) << name;
    int64_t elements = 1;
    for (int32_t d : *t.shape) elements *= d;
    EXPECT_EQ(elements, int64_t{*l.y_dim} * *l.x_dim * *l.z_dim) << name;
    EXPECT_EQ(t.quantization->scale, Vec<float>{*l.numerics->dequantization_factor}) << name;
    const int16_t type = l.data_type.value_or(kFixedPoint8);
    const int64_t offset = type == kSignedFixedPoint8    ? 128
                           : type == kSignedFixedPoint16 ? 32768
                                                         : 0;
    EXPECT_EQ(t.quantization->zero_point, Vec<int64_t>{*l.numerics->zero_point - offset}) << name;
  };
  const Vec<Layer>& inputs = *e.input_layers;
  ASSERT_EQ(op->inputs->size(), inputs.size()) << name;
  for (size_t i = 0; i < inputs.size(); ++i) check((*op->inputs)[i], inputs[i]);
  size_t regular = 0;
  for (const Layer& l : *e.output_layers) {
    const std::string& layer = *l.name;
    const std::string suffix = "_variable_output";
    if (layer.ends_with(suffix)) {
      const Layer* input = FindLayer(e.input_layers, layer.substr(0, layer.size() - suffix.size()));
      ASSERT_TRUE(input) << name;
      EXPECT_EQ(l.size_bytes, input->size_bytes) << name;
      continue;
    }
    ASSERT_LT(regular, op->outputs->size()) << name;
    check((*op->outputs)[regular++], l);
  }
  EXPECT_EQ(regular, op->outputs->size()) << name;
}

const Package& PackageOf(const File& file) {
  if (const auto* p = std::get_if<Package>(&file)) return *p;
  const SubGraph& g = (*std::get<TfliteModel>(file).subgraphs)[0];
  for (const Operator& o : *g.operators) {
    if (const auto* map = std::get_if<FlexMap>(&*o.custom_options)) {
      for (const FlexEntry& entry : map->entries) {
        if (const auto* p = std::get_if<FlexPackage>(&entry.value)) return p->package;
      }
    }
  }
  throw std::logic_error("no package");
}

TEST(EdgetpuBases, KeepTheInvariants) {
  const std::vector<NamedBase> bases = ExampleBases();
  ASSERT_EQ(bases.size(), 6u);
  std::set<uint64_t> tokens;
  for (const NamedBase& base : bases) {
    const Package& package = PackageOf(base.file);
    EXPECT_EQ(package.min_runtime_version.value_or(0) >= 10, true) << base.name;
    EXPECT_LE(package.min_runtime_version.value_or(0), 14) << base.name;
    const auto& executables = *std::get<MultiExecutable>(*package.multi_executable).executables;
    std::set<uint64_t> package_tokens;
    for (const Nested<Executable>& nested : executables) {
      const Executable& e = std::get<Executable>(nested);
      const std::string name = base.name + "/" + *e.name;
      EXPECT_EQ(e.batch_size, 1) << name;
      EXPECT_EQ(e.chip, "beagle") << name;
      CheckPatches(e, name);
      CheckHints(e, name);
      for (const Layer& l : e.input_layers.value_or(Vec<Layer>{})) CheckLayer(l, false, name);
      for (const Layer& l : e.output_layers.value_or(Vec<Layer>{})) CheckLayer(l, true, name);
      if (e.type == kParameterCaching) {
        EXPECT_FALSE(e.input_layers || e.output_layers) << name;
        EXPECT_FALSE(e.parameters->empty()) << name;
      }
      if (executables.size() == 2) {
        EXPECT_NE(e.parameter_caching_token.value_or(0), 0u) << name;
        package_tokens.insert(e.parameter_caching_token.value_or(0));
      } else {
        EXPECT_FALSE(e.type.has_value()) << name;
      }
    }
    if (executables.size() == 2) {
      EXPECT_EQ(package_tokens.size(), 1u) << base.name;
      EXPECT_TRUE(tokens.insert(*package_tokens.begin()).second) << base.name << ": token reused";
    }
    const Executable* main = MainExecutable(package);
    ASSERT_TRUE(main) << base.name;
    if (const auto* m = std::get_if<TfliteModel>(&base.file)) CheckTensors(*m, *main, base.name);
    // Small enough to mutate and fuzz quickly.
    EXPECT_LE(Serialize(base.file).size(), 48u * 1024) << base.name;
  }
}

TEST(EdgetpuBases, SchemaExampleLayout) {
  const std::vector<NamedBase> bases = ExampleBases();
  const Executable* main = MainExecutable(PackageOf(bases[2].file));
  ASSERT_TRUE(main);
  const Layer& features = (*main->output_layers)[0];
  const OutputLayout& o = *std::get<OutputLayer>(features.any_layer).layout;
  auto index = [&](int y, int x, int z) {
    const int tile =
        (*o.y_coordinate_to_linear_tile_id_map)[y] + (*o.x_coordinate_to_linear_tile_id_map)[x];
    return (*o.linearized_tile_byte_offset)[tile] +
           (*o.y_coordinate_to_local_y_offset)[y] * (*o.x_coordinate_to_local_y_row_size)[x] +
           (*o.x_coordinate_to_local_byte_offset)[x] + z;
  };
  // Values worked out by hand from the schema's description of the tiles.
  EXPECT_EQ(index(0, 3, 0), 192);
  EXPECT_EQ(index(1, 4, 5), 293);
  EXPECT_EQ(index(3, 2, 31), 511);
  EXPECT_EQ(index(2, 4, 0), 544);
  EXPECT_EQ(features.data_type, kFixedPoint16);
  EXPECT_EQ(features.size_bytes, 4 * 5 * 32 * 2);
}

std::set<std::string> Findings(const std::vector<uint8_t>& bytes, bool strict) {
  Profile profile;
  profile.strict = strict;
  DiagnosticSink sink(profile, "base.tflite");
  ValidateContext context;
  context.path = "base.tflite";
  EdgetpuFormat().Validate(InputBuffer::Copy(bytes), context, sink);
  std::set<std::string> found;
  for (const Diagnostic& d : sink.diagnostics()) found.insert(std::string(d.rule->id));
  return found;
}

// What the validator checks so far finds nothing in any base, even under
// --strict.
TEST(EdgetpuBases, ValidateClean) {
  for (const NamedBase& base : ExampleBases()) {
    const std::vector<uint8_t> bytes = Serialize(base.file);
    ASSERT_TRUE(EdgetpuFormat().Detect(bytes)) << base.name;
    EXPECT_EQ(Findings(bytes, false), std::set<std::string>{}) << base.name;
    EXPECT_EQ(Findings(bytes, true), std::set<std::string>{}) << base.name << " --strict";
  }
}

// And a change the builder makes in one place shows as its rule: the bases
// are clean because the validator finds nothing, not because it reads nothing.
TEST(EdgetpuBases, OneChangeOneFinding) {
  const std::vector<NamedBase> bases = ExampleBases();
  auto options = [](File& file) -> FlexMap& {
    return std::get<FlexMap>(
        *(*std::get<TfliteModel>(file).subgraphs)[0].operators->front().custom_options);
  };
  auto executable = [&](File& file) -> Executable& {
    Package& p = std::get<FlexPackage>(options(file).entries[1].value).package;
    return std::get<Executable>(
        std::get<MultiExecutable>(*p.multi_executable).executables->front());
  };
  using Rules = std::set<std::string>;

  File blob = bases[0].file;
  std::get<FlexPackage>(options(blob).entries[1].value).blob = true;
  EXPECT_EQ(Findings(Serialize(blob), false), Rules{"edgetpu.flex.package_type"});

  File unsorted = bases[1].file;
  std::swap(options(unsorted).entries[0], options(unsorted).entries[2]);
  EXPECT_TRUE(Findings(Serialize(unsorted), false).contains("edgetpu.flex.keys_sorted"));

  File moved = bases[1].file;
  auto& field = executable(moved).instruction_bitstreams->front().field_offsets->front();
  *field.offset_bit += 1;
  EXPECT_EQ(Findings(Serialize(moved), true), Rules{"edgetpu.bitstream.convention"});

  SerializeOptions layout;
  layout.layout.parameters_offset = 64;
  EXPECT_EQ(Findings(Serialize(bases[0].file, layout), true),
            Rules{"edgetpu.parameters.page_align"});
}

}  // namespace
}  // namespace accelcheck::edgetpu
