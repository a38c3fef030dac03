// Properties of the Edge TPU builder, mutator and validator together, over
// random valid packages (PackageFromSpec): any number of inputs and outputs
// of every data type with a TFLite type, tiled and padded output layouts,
// input halos, variable outputs, a PARAMETER_CACHING + EXECUTION_ONLY pair
// or one STAND_ALONE executable, scratch, several bitstream chunks, repeated
// patches, the custom options' key sets of real files, the package at any
// even offset (docs/formats/edgetpu.md §2.3, §2.4, §5.2, §6.3).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "conformance/edgetpu/bases.h"
#include "conformance/edgetpu/mutate.h"
#include "conformance/edgetpu/serialize.h"
#include "conformance/suite.h"
#include "tests/support/describe.h"
#include "validators/core/format.h"
#include "validators/edgetpu/edgetpu_format.h"

namespace accelcheck::edgetpu {
namespace {

using namespace model;
using ::accelcheck::test::Describe;
using Bytes = std::vector<uint8_t>;

// --- random valid files ------------------------------------------------------

// Every DataType the custom op pairs with a TFLite type (§1.5).
const std::vector<int16_t> kDataTypes = {
    kFixedPoint8, kFixedPoint16,      kSignedFixedPoint32, kHalf,
    kSingle,      kSignedFixedPoint8, kSignedFixedPoint16};

bool OneIn(int n) { return *rc::gen::inRange(0, n) == 0; }

// The device's zero point: within the type's range for the quantized types
// (offset binary for the signed ones, EDG-16), 0 for the others.
int32_t GenZeroPoint(int16_t data_type) {
  switch (data_type) {
    case kFixedPoint8:
    case kSignedFixedPoint8:
      return *rc::gen::inRange(0, 256);
    case kFixedPoint16:
    case kSignedFixedPoint16:
      return *rc::gen::inRange(0, 65536);
    default:
      return 0;
  }
}

LayerSpec GenLayer(std::string name, bool output) {
  LayerSpec s;
  s.name = std::move(name);
  // A third are vectors (1, 1, N), as classifier outputs are.
  const bool vector = OneIn(3);
  s.y = vector ? 1 : *rc::gen::inRange(1, 9);
  s.x = vector ? 1 : *rc::gen::inRange(1, 9);
  s.z = *rc::gen::inRange(1, 41);
  s.data_type = *rc::gen::elementOf(kDataTypes);
  s.zero_point = GenZeroPoint(s.data_type);
  s.scale = static_cast<float>(*rc::gen::inRange(1, 1025)) / 1024;  // exact in float
  s.pieces = *rc::gen::inRange(1, 4);
  if (output) {
    s.y_tiles = *rc::gen::inRange(1, 5);
    s.x_tiles = *rc::gen::inRange(1, 5);
    s.pad_z = *rc::gen::arbitrary<bool>();
    s.with_shape = *rc::gen::arbitrary<bool>();
  } else {
    s.round_size = *rc::gen::arbitrary<bool>();
    s.halo = *rc::gen::element(0, 0, 8, 64);
  }
  return s;
}

PackageSpec GenSpec() {
  PackageSpec spec;
  for (int i = 0, n = *rc::gen::inRange(1, 4); i < n; ++i)
    spec.inputs.push_back(GenLayer("input_" + std::to_string(i), false));
  for (int i = 0, n = *rc::gen::inRange(1, 4); i < n; ++i)
    spec.outputs.push_back(GenLayer("output_" + std::to_string(i), true));
  // A state written back into an input, after the regular outputs (EDG-15).
  if (OneIn(4)) {
    const LayerSpec& input = spec.inputs[*rc::gen::inRange<size_t>(0, spec.inputs.size())];
    LayerSpec state = GenLayer(input.name + "_variable_output", true);
    state.y = input.y;
    state.x = input.x;
    state.z = input.z;
    state.data_type = input.data_type;
    state.zero_point = input.zero_point;
    state.scale = input.scale;
    spec.outputs.push_back(std::move(state));
  }
  spec.cached = !OneIn(4);
  spec.parameter_bytes = 64 * *rc::gen::inRange<uint32_t>(spec.cached ? 1 : 0, 65);
  if (spec.cached && OneIn(3)) spec.main_parameter_bytes = 64 * *rc::gen::inRange<uint32_t>(1, 9);
  spec.parameter_pieces = *rc::gen::inRange(1, 4);
  if (OneIn(3)) spec.scratch_bytes = 64 * *rc::gen::inRange(1, 65);
  spec.chunks = *rc::gen::inRange(1, 4);
  spec.patch_pairs = *rc::gen::inRange(1, 3);
  spec.pc_scratch = *rc::gen::arbitrary<bool>();
  spec.token = *rc::gen::arbitrary<uint64_t>() | 1;
  spec.min_runtime_version = *rc::gen::inRange(10, 15);
  spec.seed = *rc::gen::arbitrary<uint32_t>();
  return spec;
}

// The custom options of real files' key sets (§2.3): {1,4,5,6,7} of
// compiler 16.0, {1,4,5} of 2020, {1,2,4} and {1,2,4,5} of 2019.
FlexMap GenOptions(const Package& package) {
  FlexMap map = CompilerOptions(package);
  const bool with_chips = !OneIn(3);
  const bool with_preference = !OneIn(4);
  const int64_t preference = *rc::gen::element<int64_t>(-1, 1);
  const int64_t chip = *rc::gen::element<int64_t>(17, 18, 21);
  std::erase_if(map.entries, [&](const FlexEntry& e) {
    return (!with_chips && (e.key == "6" || e.key == "7")) || (!with_preference && e.key == "5");
  });
  for (FlexEntry& e : map.entries) {
    if (e.key == "5") e.value = FlexInt{preference};
    if (e.key == "6") e.value = FlexVector{{chip}};
  }
  if (OneIn(4))
    map.entries.insert(map.entries.begin() + 1, {"2", FlexString{{'b', 'e', 'a', 'g', 'l', 'e'}}});
  return map;
}

// A CPU DEQUANTIZE operator on the Edge TPU operator's first output, as in
// the tiled_layout base; its code comes first or last, so that the Edge TPU
// operator is found by its opcode_index either way (§2.2).
void AddCpuOperator(TfliteModel& m, bool code_first) {
  OperatorCode code;
  code.deprecated_builtin_code = static_cast<int8_t>(kBuiltinDequantize);
  code.builtin_code = kBuiltinDequantize;
  SubGraph& g = m.subgraphs->front();
  Operator& edgetpu = g.operators->front();
  uint32_t index = 1;
  if (code_first) {
    m.operator_codes->insert(m.operator_codes->begin(), code);
    edgetpu.opcode_index = 1;
    index = 0;
  } else {
    m.operator_codes->push_back(code);
  }
  const int32_t source = edgetpu.outputs->front();
  Tensor out;
  out.shape = (*g.tensors)[source].shape;
  out.type = kFloat32;
  out.name = (*g.tensors)[source].name.value_or("") + "_float";
  g.tensors->push_back(out);
  const auto result = static_cast<int32_t>(g.tensors->size() - 1);
  Operator op;
  if (index != 0) op.opcode_index = index;
  op.inputs = Vec<int32_t>{source};
  op.outputs = Vec<int32_t>{result};
  g.operators->push_back(op);
  std::replace(g.outputs->begin(), g.outputs->end(), source, result);
}

struct RandomFile {
  Package package;
  File file;  // the package itself, or a model around it
  SerializeOptions options;
};

// A sixth are bare packages; the models put the package at any even
// offset modulo 16 (real ones are 2-, 4- and 8-aligned, §2.4) or where the
// writer leaves it.
rc::Gen<RandomFile> GenFile() {
  return rc::gen::exec([] {
    RandomFile f;
    f.package = PackageFromSpec(GenSpec());
    if (OneIn(6)) {
      f.file = f.package;
      return f;
    }
    TfliteModel m = WrapPackage(f.package, GenOptions(f.package));
    if (OneIn(3)) AddCpuOperator(m, *rc::gen::arbitrary<bool>());
    if (!OneIn(4)) f.options.package_offset_mod16 = 2 * *rc::gen::inRange<uint32_t>(0, 8);
    f.file = std::move(m);
    return f;
  });
}

Bytes Write(const RandomFile& f) {
  try {
    return Serialize(f.file, f.options);
  } catch (const std::invalid_argument&) {
    // A package of 64 KiB or more cannot start 2 modulo 4 (serialize.h).
    SerializeOptions options = f.options;
    options.package_offset_mod16 = (*options.package_offset_mod16 + 2) % 16;
    return Serialize(f.file, options);
  }
}

DiagnosticSink Validate(const Bytes& bytes, bool strict) {
  DiagnosticSink sink(Profile{.strict = strict}, "random.tflite");
  EdgetpuFormat().Validate(InputBuffer::Copy(bytes), ValidateContext{}, sink);
  return sink;
}

// --- (a) valid ---------------------------------------------------------------

// Every file built from a spec validates without a single diagnostic, as
// the bases do, in the default profile and under --strict.
RC_GTEST_PROP(EdgetpuProperties, BuiltFilesAreValid, ()) {
  const Bytes bytes = Write(*GenFile());
  for (const bool strict : {false, true}) {
    const DiagnosticSink sink = Validate(bytes, strict);
    RC_LOG() << (strict ? "--strict" : "default") << ":\n" << Describe(sink);
    RC_ASSERT(sink.diagnostics().empty());
  }
}

// --- (b) one mutation, one rule ------------------------------------------------

// What the conformance suite asks of a case (negative_cases_test.cc): under
// --strict the rule at the mutation's path, and no other error but the
// case's `also`. Empty when it holds, else what went wrong.
std::string CheckExactly(const conformance::MutationCase& mutation, const ByteMutation& result) {
  const DiagnosticSink sink = Validate(result.bytes, true);
  bool reported = false;
  std::string wrong;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == mutation.rule && conformance::PathMatches(d.location.path, result.path))
      reported = true;
    const bool allowed =
        d.rule == mutation.rule ||
        std::find(mutation.also.begin(), mutation.also.end(), d.rule) != mutation.also.end();
    if (!allowed && d.severity == Severity::kError)
      wrong += "also " + std::string(d.rule->id) + "\n";
  }
  if (!reported) wrong += "not reported at \"" + result.path + "\"\n";
  return wrong.empty() ? "" : wrong + Describe(sink);
}

// A random case on a random file; cases that find no place in the file
// decline, and RapidCheck gives up if they decline ten times as often as
// they apply.
RC_GTEST_PROP(EdgetpuProperties, OneMutationOneRule, (uint8_t mutation_seed)) {
  const Bytes bytes = Write(*GenFile());
  const auto& cases = EdgetpuConformance().Cases();
  const conformance::MutationCase& mutation = cases[*rc::gen::inRange<size_t>(0, cases.size())];
  const auto mutated = MutateEdgetpu(bytes, *mutation.rule, mutation_seed);
  const auto* result = std::get_if<ByteMutation>(&mutated);
  const bool applies = result != nullptr;
  RC_PRE(applies);
  RC_TAG(std::string(mutation.rule->id));
  const std::string wrong = CheckExactly(mutation, *result);
  RC_LOG() << mutation.rule->id << " at " << result->path << "\n" << wrong;
  RC_ASSERT(wrong.empty());
}

// The property above may only pass because its cases decline: every case
// applies to one of a few random files (the same ones in every run) and
// there breaks exactly its rule.
TEST(EdgetpuProperties, EveryCaseAppliesToARandomFile) {
  std::vector<Bytes> files;
  for (uint64_t seed = 1; seed <= 24; ++seed)
    files.push_back(Write(GenFile()(rc::Random(seed), 50).value()));
  for (const conformance::MutationCase& mutation : EdgetpuConformance().Cases()) {
    bool applied = false;
    for (size_t k = 0; k < files.size() && !applied; ++k) {
      const auto mutated = MutateEdgetpu(files[k], *mutation.rule, k);
      const auto* result = std::get_if<ByteMutation>(&mutated);
      if (result == nullptr) continue;
      applied = true;
      EXPECT_EQ(CheckExactly(mutation, *result), "") << mutation.rule->id << " on file " << k;
    }
    EXPECT_TRUE(applied) << "no random file takes " << mutation.rule->id;
  }
}

// --- (c) truncation --------------------------------------------------------------

// The bytes at the end of `bytes` that no object covers: the writer pads
// the first object it writes, which lands last, to its alignment. Without
// them the prefix is the same file, so no truncation is reported; found as
// the prefixes from the end that validate without an error.
size_t TrailingPadding(const Bytes& bytes) {
  size_t n = bytes.size();
  while (n > 0 && bytes[n - 1] == 0 &&
         Validate(Bytes(bytes.begin(), bytes.begin() + n - 1), false).error_count() == 0)
    --n;
  return bytes.size() - n;
}

// Prefix lengths of a file of `size` bytes to try: every one of a small
// file; else a random sample, with the ends and the bytes around each
// 4096-byte page of the package (where the nested buffers start and end,
// §5.2) counted from `package_at`.
std::vector<size_t> Cuts(size_t size, size_t package_at) {
  constexpr size_t kEvery = 512;
  std::vector<size_t> cuts;
  if (size <= kEvery) {
    for (size_t n = 0; n < size; ++n) cuts.push_back(n);
    return cuts;
  }
  cuts = *rc::gen::container<std::vector<size_t>>(64, rc::gen::inRange<size_t>(0, size));
  for (size_t n : {size_t{0}, size_t{4}, size_t{8}, size - 1}) cuts.push_back(n);
  for (size_t page = package_at; page < size; page += 4096) {
    for (size_t n : {page - 1, page, page + 1}) {
      if (n < size) cuts.push_back(n);
    }
  }
  return cuts;
}

// The model with `package` (any bytes) as the Edge TPU operator's "4".
Bytes WithPackageBytes(TfliteModel m, const Bytes& package) {
  for (Operator& op : *m.subgraphs->front().operators) {
    auto* map = op.custom_options ? std::get_if<FlexMap>(&*op.custom_options) : nullptr;
    if (map == nullptr) continue;
    for (FlexEntry& e : map->entries) {
      if (e.key == "4") e.value = FlexString{package};
    }
  }
  return Serialize(m);
}

// Every prefix of a file is an error (but for the zero padding at its end,
// shorter than the 8-byte alignment of any object), and so is every prefix
// of its package, alone as a bare DWN1 file and in place of the package in
// the model.
RC_GTEST_PROP(EdgetpuProperties, TruncationIsReported, ()) {
  const RandomFile f = *GenFile();
  const Bytes bytes = Write(f);
  const size_t padding = TrailingPadding(bytes);
  RC_LOG() << padding << " bytes of padding at the end\n";
  RC_ASSERT(padding < 8u);
  const Bytes package = SerializePackage(f.package, f.options.layout);
  const auto at = std::search(bytes.begin(), bytes.end(), package.begin(), package.end());
  RC_ASSERT(at != bytes.end());
  for (const size_t n : Cuts(bytes.size() - padding, static_cast<size_t>(at - bytes.begin()))) {
    RC_LOG() << "file prefix of " << n << " bytes\n";
    RC_ASSERT(Validate(Bytes(bytes.begin(), bytes.begin() + n), false).error_count() > 0u);
  }
  const auto* model = std::get_if<TfliteModel>(&f.file);
  RC_ASSERT(TrailingPadding(package) == 0u);
  for (const size_t n : Cuts(package.size(), 0)) {
    const Bytes prefix(package.begin(), package.begin() + n);
    RC_LOG() << "package prefix of " << n << " bytes\n";
    RC_ASSERT(Validate(prefix, false).error_count() > 0u);
    if (model != nullptr && OneIn(8)) {
      const DiagnosticSink sink = Validate(WithPackageBytes(*model, prefix), false);
      RC_LOG() << " in the model:\n" << Describe(sink);
      RC_ASSERT(sink.error_count() > 0u);
    }
  }
}

// The prefixes of `bytes` that validate without an error, the padding at
// its end aside.
size_t CleanPrefixes(const Bytes& bytes) {
  const size_t padding = TrailingPadding(bytes);
  EXPECT_LT(padding, 8u);
  size_t clean = 0;
  for (size_t n = 0; n + padding < bytes.size(); ++n) {
    if (Validate(Bytes(bytes.begin(), bytes.begin() + n), false).error_count() == 0) ++clean;
  }
  return clean;
}

// Every prefix, not a sample, of every base and of every base's package as
// a bare file.
TEST(EdgetpuProperties, EveryPrefixOfABaseIsReported) {
  for (const NamedBase& base : ExampleBases()) {
    EXPECT_EQ(CleanPrefixes(Serialize(base.file)), 0u) << base.name;
    const auto* model = std::get_if<TfliteModel>(&base.file);
    if (model == nullptr) continue;
    const auto& map =
        std::get<FlexMap>(*model->subgraphs->front().operators->front().custom_options);
    for (const FlexEntry& e : map.entries) {
      const auto* package = std::get_if<FlexPackage>(&e.value);
      if (package == nullptr) continue;
      EXPECT_EQ(CleanPrefixes(SerializePackage(package->package)), 0u) << base.name;
    }
  }
}

TEST(EdgetpuProperties, RandomFilesDiffer) {
  EXPECT_NE(Write(GenFile()(rc::Random(1), 50).value()),
            Write(GenFile()(rc::Random(2), 50).value()));
}

}  // namespace
}  // namespace accelcheck::edgetpu
