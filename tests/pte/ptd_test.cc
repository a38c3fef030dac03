// .ptd rules and EXTERNAL tensors against a companion .ptd: a valid file
// from SerializePtd, one change each.
#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>

#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
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

DiagnosticSink ValidateBytes(const std::vector<uint8_t>& bytes, const ValidateContext& context = {}) {
  DiagnosticSink sink(Profile{}, "test");
  PteFormat().Validate(InputBuffer::Copy(bytes), context, sink);
  return sink;
}

std::string Describe(const DiagnosticSink& sink) {
  std::string out;
  for (const Diagnostic& d : sink.diagnostics()) {
    out += std::string(d.rule->id) + " " + d.location.path + ": " + d.message + "\n";
  }
  return out;
}

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
      {&rules::kPtdFlatbufferOffset, none, [](V& b) { b[16] += 8; b[24] -= 8; }, "header.flatbuffer_offset"},
      {&rules::kPtdTrailingBytes, none, [](V& b) { b.resize(b.size() + 8); }, ""},
      {&rules::kPtdVerify, none, [](V& b) { Put32(b, b[0] | b[1] << 8, 0x7fffffff); }, ""},
      {&rules::kPtdFieldMissing, [](F& f) { f.named_data.reset(); }, nullptr, "named_data"},
      {&rules::kPtdKey, [](F& f) { (*f.named_data)[0].key = ""; }, nullptr, "named_data[0].key"},
      {&rules::kPtdSegmentIndex, [](F& f) { (*f.named_data)[0].segment_index = 5; }, nullptr, "named_data[0].segment_index"},
      {&rules::kPtdSegmentBounds, [](F& f) { (*f.segments)[0].size = 1000; }, nullptr, "segments[0]"},
      {&rules::kPtdLayout, [](F& f) { (*f.named_data)[0].tensor_layout->dim_order = std::vector<uint8_t>{0, 0}; }, nullptr, "named_data[0].tensor_layout"},
      {&rules::kPtdLayoutSize, [](F& f) { (*f.named_data)[0].tensor_layout->sizes = std::vector<int32_t>{4, 4}; }, nullptr, "named_data[0].tensor_layout"},
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
  const auto path = std::filesystem::path(testing::TempDir()) / name;
  const std::vector<uint8_t> bytes = SerializePtd(BasePtd());
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
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
  const auto path = std::filesystem::path(testing::TempDir()) / "other.ptd";
  const std::vector<uint8_t> bytes = SerializePtd(other);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
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
