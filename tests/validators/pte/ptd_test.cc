// .ptd rules and EXTERNAL tensors against a companion .ptd: a valid file
// from SerializePtd, one change each.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>

#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "tests/support/describe.h"
#include "tests/support/temp.h"
#include "validators/pte/pte_format.h"
#include "validators/pte/rules.h"

namespace accelcheck::pte {
namespace {

model::PtdFile BasePtd() {
  model::PtdFile f;
  f.segments = std::vector<model::DataSegment>{{0, 16}};
  f.segment_bytes = {std::vector<uint8_t>(16, 0)};
  model::TensorLayout layout;
  layout.sizes = std::vector<int32_t>{2, 2};
  layout.dim_order = std::vector<uint8_t>{0, 1};
  f.named_data = std::vector<model::PtdNamedData>{{std::string("a"), 0, layout}};
  return f;
}

DiagnosticSink ValidateBytes(const std::vector<uint8_t>& bytes,
                             const ValidateContext& context = {}) {
  DiagnosticSink sink(Profile{}, "test");
  PteFormat().Validate(InputBuffer::Copy(bytes), context, sink);
  return sink;
}

using ::accelcheck::test::Describe;

bool Reports(const DiagnosticSink& sink, const Rule& rule, const std::string& path) {
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == &rule && d.location.path == path && d.location.offset) return true;
  }
  return false;
}

TEST(PtdRules, BaseIsClean) {
  const DiagnosticSink sink = ValidateBytes(SerializePtd(BasePtd()));
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
}

struct PtdCase {
  const Rule* rule;
  std::function<void(model::PtdFile&)> edit;
  std::function<void(std::vector<uint8_t>&)> bytes;
  std::string path;
};

void PrintTo(const PtdCase& c, std::ostream* out) { *out << c.rule->id; }

class PtdRuleCase : public testing::TestWithParam<PtdCase> {};

TEST_P(PtdRuleCase, OneChangeGivesTheRuleAtItsObject) {
  const PtdCase& c = GetParam();
  model::PtdFile file = BasePtd();
  c.edit(file);
  std::vector<uint8_t> bytes = SerializePtd(file);
  if (c.bytes) c.bytes(bytes);
  const DiagnosticSink sink = ValidateBytes(bytes);
  EXPECT_TRUE(Reports(sink, *c.rule, c.path)) << c.rule->id << " at \"" << c.path << "\"\n"
                                              << Describe(sink);
}

void Put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + k] = static_cast<uint8_t>(v >> (8 * k));
}

std::vector<PtdCase> PtdCases() {
  using F = model::PtdFile;
  using V = std::vector<uint8_t>;
  const auto none = [](F&) {};
  return {
      {&rules::kPtdHeader, none, [](V& b) { b[8] = 'X'; }, "header"},
      {&rules::kPtdFlatbufferOffset, none,
       [](V& b) {
         b[16] += 8;
         b[24] -= 8;
       },
       "header.flatbuffer_offset"},
      {&rules::kPtdTrailingBytes, none, [](V& b) { b.resize(b.size() + 8); }, ""},
      {&rules::kPtdVerify, none, [](V& b) { Put32(b, b[0] | b[1] << 8, 0x7fffffff); }, ""},
      {&rules::kPtdFieldMissing, [](F& f) { f.named_data.reset(); }, nullptr, "named_data"},
      {&rules::kPtdKey, [](F& f) { (*f.named_data)[0].key = ""; }, nullptr, "named_data[0].key"},
      {&rules::kPtdSegmentIndex, [](F& f) { (*f.named_data)[0].segment_index = 5; }, nullptr,
       "named_data[0].segment_index"},
      {&rules::kPtdSegmentBounds, [](F& f) { (*f.segments)[0].size = 1000; }, nullptr,
       "segments[0]"},
      {&rules::kPtdLayout,
       [](F& f) {
         (*f.named_data)[0].tensor_layout->dim_order = std::vector<uint8_t>{0, 0};
       },
       nullptr, "named_data[0].tensor_layout"},
      {&rules::kPtdLayoutSize,
       [](F& f) {
         (*f.named_data)[0].tensor_layout->sizes = std::vector<int32_t>{4, 4};
       },
       nullptr, "named_data[0].tensor_layout"},
  };
}

std::string CaseName(const testing::TestParamInfo<PtdCase>& info) {
  std::string name(info.param.rule->id);
  for (char& ch : name) {
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Ptd, PtdRuleCase, testing::ValuesIn(PtdCases()), CaseName);

void PutLE(std::vector<uint8_t>& b, size_t at, uint64_t v, size_t width) {
  for (size_t k = 0; k < width; ++k) b[at + k] = static_cast<uint8_t>(v >> (8 * k));
}

// The vtable slot of field `id`.
flatbuffers::voffset_t Field(flatbuffers::voffset_t id) {
  return static_cast<flatbuffers::voffset_t>(4 + 2 * id);
}

// The FlatTensor layout before 2025-06 (docs/formats/pte.md §1.4), field by field:
// {version, tensor_alignment, tensors: [TensorMetadata{fully_qualified_name,
// scalar_type, sizes, dim_order, segment_index, offset}], segments:
// [DataSegment{offset, size}]}, in an FH01 file with one 16-byte segment.
std::vector<uint8_t> OldLayoutPtd() {
  flatbuffers::FlatBufferBuilder b;
  b.ForceDefaults(true);
  const auto name = b.CreateString("a");
  const auto sizes = b.CreateVector<int32_t>({2, 2});
  const auto dim_order = b.CreateVector<uint8_t>({0, 1});
  auto start = b.StartTable();
  b.AddElement<uint64_t>(Field(5), 0, 0);
  b.AddOffset(Field(0), name);
  b.AddOffset(Field(2), sizes);
  b.AddOffset(Field(3), dim_order);
  b.AddElement<int32_t>(Field(4), 0, 0);
  b.AddElement<int8_t>(Field(1), model::kFloat, 0);
  const flatbuffers::Offset<flatbuffers::Table> tensor(b.EndTable(start));
  start = b.StartTable();
  b.AddElement<uint64_t>(Field(0), 0, 0);
  b.AddElement<uint64_t>(Field(1), 16, 0);
  const flatbuffers::Offset<flatbuffers::Table> segment(b.EndTable(start));
  const auto tensors = b.CreateVector(std::vector{tensor});
  const auto segments = b.CreateVector(std::vector{segment});
  start = b.StartTable();
  b.AddOffset(Field(2), tensors);
  b.AddOffset(Field(3), segments);
  b.AddElement<uint32_t>(Field(0), 0, 0);
  b.AddElement<uint32_t>(Field(1), 16, 0);
  b.Finish(flatbuffers::Offset<flatbuffers::Table>(b.EndTable(start)), "FT01");

  // FH01 at bytes 8..48: the flatbuffer body moves 40 bytes on, and so does
  // the root table its offset at byte 0 names.
  constexpr size_t kHeader = 40;
  const uint8_t* fb = b.GetBufferPointer();
  std::vector<uint8_t> out(fb, fb + 8);
  out.resize(8 + kHeader, 0);
  out.insert(out.end(), fb + 8, fb + b.GetSize());
  const uint64_t base = (out.size() + 15) / 16 * 16;
  PutLE(out, 0, (fb[0] | fb[1] << 8 | fb[2] << 16 | uint32_t{fb[3]} << 24) + kHeader, 4);
  std::memcpy(&out[8], "FH01", 4);
  PutLE(out, 12, kHeader, 4);
  PutLE(out, 16, 8 + kHeader, 8);
  PutLE(out, 24, b.GetSize() - 8, 8);
  PutLE(out, 32, base, 8);
  PutLE(out, 40, 16, 8);
  out.resize(base + 16, 0);
  return out;
}

TEST(PtdRules, OldLayoutIsAWarningByDefaultAndAnErrorWhenStrict) {
  const std::vector<uint8_t> bytes = OldLayoutPtd();
  const DiagnosticSink sink = ValidateBytes(bytes);
  EXPECT_TRUE(Reports(sink, rules::kPtdOldLayout, "")) << Describe(sink);
  EXPECT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
  EXPECT_EQ(sink.error_count(), 0u) << Describe(sink);

  Profile strict;
  strict.strict = true;
  DiagnosticSink strict_sink(strict, "test");
  PteFormat().Validate(InputBuffer::Copy(bytes), ValidateContext{}, strict_sink);
  EXPECT_EQ(strict_sink.error_count(), 1u) << Describe(strict_sink);
}

// A .pte whose value 1 is an EXTERNAL tensor named `key` of `sizes`.
std::vector<uint8_t> ExternalProgram(std::vector<int32_t> sizes) {
  ProgramRecipe r;
  PlanRecipe& p = r.AddPlan("forward");
  const int x = p.AddPlannedTensor(model::kFloat, {2, 2});
  const int e = p.AddUnplannedTensor(model::kFloat, {2, 2});
  const int y = p.AddPlannedTensor(model::kFloat, {2, 2});
  p.AddInput(x);
  p.AddOutput(y);
  p.KernelCall(p.AddOperator("aten::mul", "out"), {x, e, y});
  model::File file = r.Build();
  auto& tensor = std::get<model::Tensor>((*(*file.program.execution_plan)[0].values)[e].val);
  tensor.sizes = std::move(sizes);
  tensor.extra = model::ExtraTensorInfo{0, std::string("a"), 1};
  return Serialize(file);
}

std::string WriteCompanion(const std::string& name) {
  const auto path = test::ProcessTempPath(name);
  const std::vector<uint8_t> bytes = SerializePtd(BasePtd());
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

TEST(PteExternal, MatchingCompanionIsClean) {
  ValidateContext context;
  context.companions.push_back(WriteCompanion("match.ptd"));
  const DiagnosticSink sink = ValidateBytes(ExternalProgram({2, 2}), context);
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
}

TEST(PteExternal, LayoutMismatch) {
  ValidateContext context;
  context.companions.push_back(WriteCompanion("layout.ptd"));
  const DiagnosticSink sink = ValidateBytes(ExternalProgram({4}), context);
  EXPECT_TRUE(Reports(sink, rules::kExternalLayout,
                      "execution_plan[0].values[1].val.extra_tensor_info.fully_qualified_name"))
      << Describe(sink);
}

TEST(PteExternal, KeyMissing) {
  model::PtdFile other = BasePtd();
  (*other.named_data)[0].key = "b";
  const auto path = test::ProcessTempPath("other.ptd");
  const std::vector<uint8_t> bytes = SerializePtd(other);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  ValidateContext context;
  context.companions.push_back(path.string());
  const DiagnosticSink sink = ValidateBytes(ExternalProgram({2, 2}), context);
  EXPECT_TRUE(Reports(sink, rules::kExternalKeyMissing,
                      "execution_plan[0].values[1].val.extra_tensor_info.fully_qualified_name"))
      << Describe(sink);
}

}  // namespace
}  // namespace accelcheck::pte
