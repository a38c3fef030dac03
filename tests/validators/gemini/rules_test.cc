// One test per rule: the valid example with one change, asserting the rule
// id and the JSON pointer of the diagnostic.
#include <algorithm>
#include <fstream>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "conformance/gemini/cases.h"
#include "tests/support/describe.h"
#include "tests/support/temp.h"
#include "tests/validators/gemini/fixture.h"
#include "validators/core/core_rules.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/gemini_format.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini {
namespace {

using testing::ExampleFrontend;
using testing::ExampleIr;
using testing::json;

std::string FrontendPath() {
  static const std::string path = [] {
    const std::string p = test::ProcessTempPath("gemini_rules_test_frontend.json").string();
    std::ofstream(p) << ExampleFrontend().dump();
    return p;
  }();
  return path;
}

DiagnosticSink ValidateText(const std::string& text, bool with_frontend = true,
                            bool strict = false) {
  DiagnosticSink sink(Profile{strict, false, 0}, "example.json");
  const InputBuffer input = InputBuffer::Copy(AsBytes(text));
  ValidateContext context;
  if (with_frontend) context.companions.push_back(FrontendPath());
  GeminiFormat().Validate(input, context, sink);
  return sink;
}

using ::accelcheck::test::Describe;

// Without its frontend the example reports only that the checks needing it
// did not run (I-F9), a note in both profiles.
TEST(GeminiRules, TheExampleConforms) {
  const DiagnosticSink sink = ValidateText(ExampleIr().dump(3), true, /*strict=*/true);
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
  const DiagnosticSink alone = ValidateText(ExampleIr().dump(3), false, /*strict=*/true);
  ASSERT_EQ(alone.diagnostics().size(), 1u) << Describe(alone);
  EXPECT_EQ(alone.diagnostics()[0].rule, &rules::kFrontendUnchecked);
  EXPECT_EQ(alone.diagnostics()[0].severity, Severity::kNote);
  EXPECT_EQ(alone.error_count() + alone.warning_count(), 0u);
}

// Every rule of the table has a negative case in the conformance suite
// (docs/ARCHITECTURE.md "Rules"); a new rule without one fails here.
TEST(GeminiRules, EveryRuleHasAConformanceCase) {
  std::string missing;
  for (const Rule* rule : AllRules()) {
    const bool covered =
        std::any_of(MutationCases().begin(), MutationCases().end(),
                    [&](const conformance::MutationCase& m) { return m.rule == rule; });
    if (!covered) missing += " " + std::string(rule->id);
  }
  EXPECT_TRUE(missing.empty()) << "rules without a conformance case:" << missing;
}

TEST(GeminiRules, TheFormatDetectsTheExample) {
  const std::string text = ExampleIr().dump(3);
  EXPECT_TRUE(GeminiFormat().Detect(AsBytes(text)));
  const std::string other = R"({"name": "not an IR"})";
  EXPECT_FALSE(GeminiFormat().Detect(AsBytes(other)));
}

struct Case {
  const Rule* rule;
  std::function<void(json&)> mutate;
  std::string path;  // the diagnostic's JSON pointer starts with this
};

json& Conv(json& ir) { return ir["0"][0]; }
json& Pool(json& ir) { return ir["0"][1]; }

void Expect(const Case& c, const std::string& text, bool with_frontend = true) {
  SCOPED_TRACE(std::string(c.rule->id));
  const DiagnosticSink sink = ValidateText(text, with_frontend);
  bool found = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == c.rule && d.location.path.rfind(c.path, 0) == 0) {
      found = true;
      EXPECT_TRUE(d.location.offset.has_value()) << d.message;
    }
  }
  EXPECT_TRUE(found) << "expected " << c.rule->id << " at " << c.path << ", got:\n"
                     << Describe(sink);
}

void ExpectMutation(const Case& c, bool with_frontend = true) {
  json ir = ExampleIr();
  c.mutate(ir);
  Expect(c, ir.dump(3), with_frontend);
}

// Nothing but the rule under test, in the strict profile: the mutation
// breaks that invariant alone (without the frontend, beside the note that
// the checks needing it did not run).
void ExpectOnly(const Case& c, bool with_frontend) {
  SCOPED_TRACE(std::string(c.rule->id));
  json ir = ExampleIr();
  c.mutate(ir);
  const DiagnosticSink sink = ValidateText(ir.dump(3), with_frontend, /*strict=*/true);
  ASSERT_FALSE(sink.diagnostics().empty()) << "expected " << c.rule->id;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (!with_frontend && d.rule == &rules::kFrontendUnchecked) continue;
    EXPECT_EQ(d.rule, c.rule) << Describe(sink);
    EXPECT_EQ(d.location.path.rfind(c.path, 0), 0u) << Describe(sink);
  }
}

TEST(GeminiRules, Decoding) {
  Expect({&rules::kJsonSyntax, nullptr, "/0/"}, ExampleIr().dump(3).substr(0, 9000));
  Expect({&rules::kJsonSyntax, nullptr, ""}, ExampleIr().dump() + " x");
  std::string duplicate = ExampleIr().dump();
  duplicate.replace(duplicate.find("\"buffersize\":4096"), 17,
                    "\"buffersize\":4096,\"buffersize\":4096");
  Expect({&rules::kJsonDuplicateKey, nullptr, "/buffersize"}, duplicate);
  ExpectMutation(
      {&rules::kJsonNumberRange, [](json& ir) { ir["buffersize"] = 4096.5; }, "/buffersize"});
  std::string huge = ExampleIr().dump();
  huge.replace(huge.find("\"xlen\":1"), 8, "\"xlen\":99999999999999999999");
  Expect({&rules::kJsonNumberRange, nullptr, "/xlen"}, huge);
  ExpectMutation({&rules::kSchemaType, [](json& ir) { Conv(ir)["time"] = "100"; }, "/0/0/time"});
  ExpectMutation({&rules::kSchemaType,
                  [](json& ir) {
                    Conv(ir)["ifmap"][0]["lower"] = json::array({0, 0, 0});
                  },
                  "/0/0/ifmap/0/lower"});
  ExpectMutation(
      {&rules::kSchemaMissingKey, [](json& ir) { Conv(ir).erase("ofmap_size"); }, "/0/0"});
  ExpectMutation(
      {&rules::kSchemaUnknownKey, [](json& ir) { Conv(ir)["colour"] = 1; }, "/0/0/colour"});
  ExpectMutation({&rules::kSchemaEnum, [](json& ir) { Conv(ir)["buffer"][0]["type"] = "bias"; },
                  "/0/0/buffer/0/type"});
}

TEST(GeminiRules, DepthLimit) {
  std::string deep(100, '[');
  deep = "{\"-1\":" + deep;
  const DiagnosticSink sink = ValidateText(deep, false);
  EXPECT_TRUE(std::any_of(sink.diagnostics().begin(), sink.diagnostics().end(),
                          [](const Diagnostic& d) { return d.rule->id == "core.limit.max-depth"; }))
      << Describe(sink);
}

// The frontend IR is read with the same depth bound: the document, a layer
// and max_depth - 2 lists pass; one more list is the limit, reported as a
// limit located in the frontend file.
DiagnosticSink ValidateWithFrontend(const std::string& frontend_text) {
  const auto path = test::ProcessTempPath("nested_frontend.json");
  std::ofstream(path) << frontend_text;
  DiagnosticSink sink(Profile{}, "example.json");
  const std::string text = ExampleIr().dump();
  ValidateContext context;
  context.companions.push_back(path.string());
  GeminiFormat().Validate(InputBuffer::Copy(AsBytes(text)), context, sink);
  return sink;
}

std::string NestedFrontend(uint64_t lists) {
  return "{\"conv\": {\"stride\": " + std::string(lists, '[') + std::string(lists, ']') + "}}";
}

TEST(GeminiRules, FrontendNestingAtTheDepthLimitIsRead) {
  const DiagnosticSink sink = ValidateWithFrontend(NestedFrontend(Limits{}.max_depth - 2));
  EXPECT_FALSE(sink.Has(core_rules::kLimitDepth)) << Describe(sink);
  EXPECT_FALSE(sink.Has(core_rules::kIoRead)) << Describe(sink);
}

TEST(GeminiRules, FrontendDepthLimit) {
  const DiagnosticSink sink = ValidateWithFrontend(NestedFrontend(Limits{}.max_depth - 1));
  ASSERT_TRUE(sink.Has(core_rules::kLimitDepth)) << Describe(sink);
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule != &core_rules::kLimitDepth) continue;
    EXPECT_EQ(d.location.member, test::ProcessTempPath("nested_frontend.json").string());
    EXPECT_EQ(d.location.path.rfind("/conv/stride", 0), 0u) << d.location.path;
  }
}

// A frontend that is not JSON cannot be used, and the report says where:
// in the frontend file, not in the scheduler IR that names it.
TEST(GeminiRules, FrontendSyntaxIsReportedInTheFrontend) {
  const auto path = test::ProcessTempPath("broken_frontend.json");
  std::ofstream(path) << "{\"conv\": {\"stride\": [1, }}";
  DiagnosticSink sink(Profile{}, "example.json");
  ValidateContext context;
  context.companions = {path.string()};
  EXPECT_FALSE(LoadFrontend(context, sink));
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
  EXPECT_EQ(sink.diagnostics()[0].rule, &rules::kJsonSyntax);
  EXPECT_EQ(sink.diagnostics()[0].location.offset, 24u);  // the '}' where a value belongs
  EXPECT_EQ(sink.diagnostics()[0].location.member, path.string());
}

// A frontend that cannot be read is an I/O error: no verdict.
TEST(GeminiRules, AnUnreadableFrontendIsAReadError) {
  DiagnosticSink sink(Profile{}, "example.json");
  ValidateContext context;
  context.companions = {test::ProcessTempPath("no_such_frontend.json").string()};
  EXPECT_FALSE(LoadFrontend(context, sink));
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
  EXPECT_EQ(sink.diagnostics()[0].rule, &core_rules::kIoRead);
}

TEST(GeminiRules, TopLevelAndStructure) {
  ExpectMutation({&rules::kTopKeys, [](json& ir) { ir["cores"] = 1; }, "/cores"});
  ExpectMutation({&rules::kTopKeys, [](json& ir) { ir.erase("top_batch_cut"); }, ""});
  ExpectMutation({&rules::kTopCoreRange,
                  [](json& ir) {
                    ir["1"] = ir["0"];
                    ir.erase("0");
                  },
                  "/1"});
  ExpectMutation({&rules::kTopParams, [](json& ir) { ir["top_batch_cut"] = 0; }, "/top_batch_cut"});
  ExpectMutation(
      {&rules::kWorkloadBufferKey, [](json& ir) { Pool(ir).erase("wl0_buffer"); }, "/0/1"});
  ExpectMutation(
      {&rules::kWorkloadBufferKey, [](json& ir) { Pool(ir)["wl1_buffer"] = nullptr; }, "/0/1"});
  ExpectMutation({&rules::kWorkloadWl1Dialect,
                  [](json& ir) {
                    Pool(ir)["wl1_buffer"] = nullptr;
                    Pool(ir).erase("wl0_buffer");
                  },
                  "/0/1/wl1_buffer"});
  ExpectMutation({&rules::kRangeOrder,
                  [](json& ir) { Conv(ir)["ifmap"][0]["lower"] = testing::Range4(0, 9, 0, 0); },
                  "/0/0/ifmap/0"});
  ExpectMutation({&rules::kWorkloadWeight, [](json& ir) { Conv(ir).erase("weight"); }, "/0/0"});
  ExpectMutation({&rules::kFrontendLayer, [](json& ir) { Pool(ir)["layer_name"] = "Pool_9"; },
                  "/0/1/layer_name"});
  ExpectMutation({&rules::kFrontendLayerType, [](json& ir) { Pool(ir)["layer_type"] = "pe"; },
                  "/0/1/layer_type"});
  ExpectMutation(
      {&rules::kWorkloadOrder, [](json& ir) { Pool(ir)["workload_id"] = 0; }, "/0/1/workload_id"});
  ExpectMutation(
      {&rules::kWorkloadContiguous, [](json& ir) { Pool(ir)["workload_id"] = 5; }, "/0"});
}

// I-S2: one batch of 1 cannot be cut into 2 groups.
TEST(GeminiRules, BatchCut) {
  ExpectOnly({&rules::kTopBatchCut, [](json& ir) { ir["top_batch_cut"] = 2; }, "/top_batch_cut"},
             false);
}

// I-W4 from the IR alone: the conv's tiles read rows [0,2] (padding 1 above)
// for rows [0,1] and [1,3] (padding 1 below) for [2,3], one 3x3 window at
// stride 1. The frontend check covers known layers, so these run without it.
TEST(GeminiRules, TileWindowWithoutTheFrontend) {
  // The second tile starts a row later: its window moves by 3 rows for 2.
  ExpectOnly({&rules::kTileWindow,
              [](json& ir) {
                Conv(ir)["tile_info"]["tile_num_1"]["ifmap_lower"] = testing::Range4(0, 0, 2, 0);
              },
              "/0/0/tile_info/tile_num_1"},
             false);
  // One row more at the bottom: a stride 1 window of 4 rows for tile 1 and of
  // 3 for tile 0.
  ExpectOnly(
      {&rules::kTileWindow,
       [](json& ir) {
         Conv(ir)["tile_info"]["tile_num_1"]["tile_padding_tblr"] = json::array({0, 2, 1, 1});
       },
       "/0/0/tile_info/tile_num_1"},
      false);
  // Padding above rows that do not start at 0.
  ExpectOnly(
      {&rules::kTileWindow,
       [](json& ir) {
         Conv(ir)["tile_info"]["tile_num_1"]["tile_padding_tblr"] = json::array({1, 1, 1, 1});
       },
       "/0/0/tile_info/tile_num_1"},
      false);
  // Pool channels 2..7 for ofmap channels 0..7.
  ExpectOnly({&rules::kTileWindow,
              [](json& ir) {
                Pool(ir)["tile_info"]["tile_num_0"]["ifmap_lower"] = testing::Range4(0, 2, 0, 0);
              },
              "/0/1/tile_info/tile_num_0"},
             false);
  // The frontend's receptive-field rule reports the same change instead.
  const DiagnosticSink sink = [] {
    json ir = ExampleIr();
    Conv(ir)["tile_info"]["tile_num_1"]["ifmap_lower"] = testing::Range4(0, 0, 2, 0);
    return ValidateText(ir.dump(), true);
  }();
  EXPECT_TRUE(sink.Has(rules::kTileReceptiveField)) << Describe(sink);
  EXPECT_FALSE(sink.Has(rules::kTileWindow)) << Describe(sink);
}

// The tiles' text with tile_num_1 written before tile_num_0, as writers that
// sort keys as strings do from tile_num_10 on.
std::string TilesSwapped(const std::string& compact) {
  const size_t first = compact.find("\"tile_num_0\":{");
  const size_t first_end = compact.find('}', first) + 1;
  const size_t second = compact.find("\"tile_num_1\":{", first_end);
  const size_t second_end = compact.find('}', second) + 1;
  return compact.substr(0, first) + compact.substr(second, second_end - second) + "," +
         compact.substr(first, first_end - first) + compact.substr(second_end);
}

TEST(GeminiRules, TilesAreOrderedByNumberWhateverTheKeyOrder) {
  const std::string swapped = TilesSwapped(ExampleIr().dump());
  ASSERT_LT(swapped.find("tile_num_1"), swapped.find("tile_num_0"));
  const DiagnosticSink sink = ValidateText(swapped, true, /*strict=*/true);
  EXPECT_TRUE(sink.diagnostics().empty()) << Describe(sink);
  const Ir ir = testing::DecodeText(swapped);
  ASSERT_EQ(ir.cores.at(0).workloads.at(0).tiles.size(), 2u);
  EXPECT_EQ(ir.cores[0].workloads[0].tiles[0].ofmap.lo[2], 0);
  EXPECT_EQ(ir.cores[0].workloads[0].tiles[1].ofmap.lo[2], 2);
}

TEST(GeminiRules, ARepeatedTileKeyIsReportedWhereItRepeats) {
  const std::string swapped = TilesSwapped(ExampleIr().dump());
  const size_t zero = swapped.find("\"tile_num_0\":{");
  const std::string tile0 = swapped.substr(zero, swapped.find('}', zero) + 1 - zero);
  std::string repeated = swapped;
  repeated.insert(swapped.find('}', zero) + 1, "," + tile0);
  const DiagnosticSink sink = ValidateText(repeated);
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.rule, &rules::kJsonDuplicateKey);
  EXPECT_EQ(d.location.path, "/0/0/tile_info/tile_num_0");
  EXPECT_EQ(d.location.offset, repeated.find("\"tile_num_0\"", zero + 1));
}

TEST(GeminiRules, Tiles) {
  ExpectMutation({&rules::kTileKeys,
                  [](json& ir) {
                    Conv(ir)["tile_info"]["tile_num_2"] = Conv(ir)["tile_info"]["tile_num_1"];
                    Conv(ir)["tile_info"].erase("tile_num_1");
                  },
                  "/0/0/tile_info"});
  ExpectMutation({&rules::kTilePartition,
                  [](json& ir) {
                    Conv(ir)["tile_info"]["tile_num_1"]["ofmap_lower"] =
                        testing::Range4(0, 0, 1, 0);
                  },
                  "/0/0/tile_info/tile_num_1"});
  ExpectMutation({&rules::kTileReceptiveField,
                  [](json& ir) {
                    Conv(ir)["tile_info"]["tile_num_1"]["ifmap_lower"] =
                        testing::Range4(0, 0, 2, 0);
                  },
                  "/0/0/tile_info/tile_num_1"});
  ExpectMutation(
      {&rules::kTilePadding,
       [](json& ir) {
         Conv(ir)["tile_info"]["tile_num_0"]["tile_padding_tblr"] = json::array({0, 0, 1, 1});
       },
       "/0/0/tile_info/tile_num_0"});
  ExpectMutation({&rules::kTileMiniTile,
                  [](json& ir) {
                    Conv(ir)["tile_info"]["tile_num_0"]["act_mini_tile"] =
                        testing::Range4(1, 1, 5, 6);
                  },
                  "/0/0/tile_info/tile_num_0"});
  ExpectMutation({&rules::kTileMiniTile,
                  [](json& ir) { Conv(ir)["tile_info"]["tile_num_0"]["loop_order"] = "KNHH"; },
                  "/0/0/tile_info/tile_num_0"});
  ExpectMutation({&rules::kWorkloadShape,
                  [](json& ir) {
                    // A pool workload reaching row 2 of a 2-row output.
                    Pool(ir)["workload"][1] = testing::Range4(0, 7, 2, 1);
                  },
                  "/0/1/workload"});
  ExpectMutation({&rules::kWorkloadTime, [](json& ir) { Pool(ir)["time"] = -1; }, "/0/1/time"});
}

TEST(GeminiRules, Sizes) {
  ExpectMutation(
      {&rules::kSizeLayout, [](json& ir) { Conv(ir)["ifmap"][0]["align"] = 4; }, "/0/0/ifmap/0"});
  ExpectMutation({&rules::kSizeFmap, [](json& ir) { Conv(ir)["ifmap"][0]["size"] = 136; },
                  "/0/0/ifmap/0/size"});
  ExpectMutation({&rules::kSizeWeight, [](json& ir) { Conv(ir)["weight"]["size"] = 576; },
                  "/0/0/weight/size"});
  ExpectMutation(
      {&rules::kSizeOfmap, [](json& ir) { Pool(ir)["ofmap_size"] = 40; }, "/0/1/ofmap/0/size"});
  ExpectMutation({&rules::kSizeExtent,
                  [](json& ir) { Pool(ir)["ofmap"][0]["upper"] = testing::Range4(0, 7, 1, 0); },
                  "/0/1/ofmap/0"});
}

TEST(GeminiRules, Transfers) {
  ExpectMutation({&rules::kTransferUnique, [](json& ir) { ir["-1"]["out"][1]["transfer_id"] = 0; },
                  "/-1/out/1/transfer_id"});
  ExpectMutation({&rules::kTransferDramIn,
                  [](json& ir) { ir["-1"]["in"][0]["upper"] = testing::Range4(0, 7, 1, 0); },
                  "/-1/in/0"});
  ExpectMutation(
      {&rules::kTransferDramIn, [](json& ir) { ir["-1"]["in"] = json::array(); }, "/0/1/ofmap/0"});
  ExpectMutation({&rules::kTransferRelated,
                  [](json& ir) { ir["-1"]["in"][0]["related_ofmap"] = json::array({0}); },
                  "/-1/in/0/related_ofmap"});
  ExpectMutation({&rules::kTransferCoverage,
                  [](json& ir) {
                    ir["-1"]["in"][0]["related_ofmap"] = json::array({0});
                    ir["-1"]["out"][0]["related_ifmap"] = json::array({3});
                  },
                  "/-1/out/0"});
  ExpectMutation({&rules::kTransferProduced,
                  [](json& ir) { Pool(ir)["ifmap"][0]["transfer_id"] = json::array({7}); },
                  "/0/1/ifmap/0/transfer_id"});
  ExpectMutation({&rules::kTransferDestination,
                  [](json& ir) { ir["-1"]["out"][0]["destination"][0]["workload_id"] = 4; },
                  "/-1/out/0/destination/0"});
  ExpectMutation(
      {&rules::kTransferDelivery,
       [](json& ir) {
         ir["-1"]["out"][0]["destination"].push_back(
             {{"core_id", 0}, {"layer_name", "Pool_1"}, {"type", "core"}, {"workload_id", 1}});
       },
       "/-1/out/0/destination/1"});
  // Workload 0 holds its own output tensor (from its snapshot on) but does not read it.
  ExpectMutation({&rules::kTransferUnreadDestination,
                  [](json& ir) {
                    Conv(ir)["ofmap"][0]["destination"].push_back(
                        {{"core_id", 0}, {"type", "core"}, {"workload_id", 0}});
                  },
                  "/0/0/ofmap/0/destination/1"});
  ExpectMutation({&rules::kTransferConsumerListed,
                  [](json& ir) { Conv(ir)["ofmap"][0]["destination"][0]["workload_id"] = 0; },
                  "/0/1/ifmap/0/transfer_id"});
}

TEST(GeminiRules, Causality) {
  json ir = ExampleIr();
  // The conv's output is also sent to the conv itself, which has run.
  Conv(ir)["ofmap"][0]["destination"].push_back(
      {{"core_id", 0}, {"type", "core"}, {"workload_id", 0}});
  const DiagnosticSink sink = ValidateText(ir.dump());
  EXPECT_TRUE(sink.Has(rules::kTransferCausality)) << Describe(sink);
  EXPECT_EQ(sink.error_count(), 0u) << Describe(sink);  // a warning by default
}

TEST(GeminiRules, Buffers) {
  ExpectMutation({&rules::kBufferRegions,
                  [](json& ir) {
                    Conv(ir)["ring_buffer_info"] = json::array({json::array({0, 8192})});
                  },
                  "/0/0/ring_buffer_info"});
  ExpectMutation({&rules::kBufferAddress,
                  [](json& ir) {
                    Conv(ir)["buffer"][2]["address"] = 4096;
                    Pool(ir)["buffer"][0]["address"] = 4096;
                  },
                  "/0/0/buffer/2/address"});
  ExpectMutation({&rules::kBufferAlign,
                  [](json& ir) {
                    Conv(ir)["buffer"][2]["address"] = 1028;
                    Pool(ir)["buffer"][0]["address"] = 1028;
                  },
                  "/0/0/buffer/2"});
  ExpectMutation({&rules::kBufferOverlap, [](json& ir) { Conv(ir)["buffer"][1]["address"] = 824; },
                  "/0/0/buffer/1"});
  ExpectMutation({&rules::kBufferWrap,
                  [](json& ir) {
                    Conv(ir)["buffer"][2]["address"] = 4032;
                    Pool(ir)["buffer"][0]["address"] = 4032;
                  },
                  "/0/0/buffer/2"});
  ExpectMutation({&rules::kBufferCapacity,
                  [](json& ir) {
                    for (json& w : ir["0"])
                      w["ring_buffer_info"] = json::array({json::array({0, 1032})});
                  },
                  "/0/0/buffer"});
  ExpectMutation({&rules::kBufferTensorId,
                  [](json& ir) { Pool(ir)["buffer"][0]["address"] = 2048; }, "/0/1/buffer/0"});
  ExpectMutation({&rules::kBufferNewlyAdded,
                  [](json& ir) { Pool(ir)["buffer"][0]["newly_added"] = true; },
                  "/0/1/buffer/0/newly_added"});
  ExpectMutation({&rules::kBufferCurWlIfmap,
                  [](json& ir) { Conv(ir)["buffer"][1]["cur_wl_ifmap"] = false; }, "/0/0/ifmap/0"});
  ExpectMutation({&rules::kBufferCurWlIfmap,
                  [](json& ir) { Conv(ir)["buffer"][2]["cur_wl_ifmap"] = true; },
                  "/0/0/buffer/2/cur_wl_ifmap"});
  ExpectMutation({&rules::kBufferSources,
                  [](json& ir) {
                    Conv(ir)["buffer"][1]["source"].push_back(Conv(ir)["buffer"][1]["source"][0]);
                  },
                  "/0/0/buffer/1/source/1"});
  ExpectMutation({&rules::kBufferSources,
                  [](json& ir) { Conv(ir)["buffer"][1]["source"][0]["core_id"] = 0; },
                  "/0/0/buffer/1/source/0"});
  ExpectMutation({&rules::kBufferLiveness,
                  [](json& ir) {
                    Conv(ir)["wl0_buffer"][0]["source"] = "DDR";
                    Conv(ir)["wl0_buffer"][0]["tensor_order"] = 3;
                  },
                  "/0/0/weight"});
  ExpectMutation({&rules::kBufferTensorOrder,
                  [](json& ir) { Pool(ir)["buffer"][1]["tensor_order"] = 1; },
                  "/0/1/buffer/1/tensor_order"});
  ExpectMutation({&rules::kBufferTensorOrder,
                  [](json& ir) {
                    for (json& w : ir["0"])
                      w["buffer"][w["buffer"].size() == 3 ? 2 : 0]["tensor_order"] = 7;
                  },
                  "/0/0/buffer/2/tensor_order"});
  ExpectMutation({&rules::kBufferOfmapEntry,
                  [](json& ir) { Pool(ir)["buffer"][1]["layer_name"] = "Conv_0"; },
                  "/0/1/buffer/1/layer_name"});
  ExpectOnly({&rules::kWl0Capacity, [](json& ir) { Conv(ir)["wl0_buffer"][0]["size"] = 840; },
              "/0/0/wl0_buffer/0/size"},
             true);
  ExpectOnly({&rules::kWl0Capacity, [](json& ir) { Conv(ir)["wl0_buffer"][0]["address"] = -8; },
              "/0/0/wl0_buffer/0"},
             true);
  ExpectOnly({&rules::kWl0Capacity, [](json& ir) { Conv(ir)["wl0_buffer"][0]["size"] = 0; },
              "/0/0/wl0_buffer/0"},
             true);
  ExpectMutation({&rules::kWl0Overlap,
                  [](json& ir) {
                    json second = Conv(ir)["wl0_buffer"][0];
                    second["address"] = 800;
                    Conv(ir)["wl0_buffer"].push_back(second);
                  },
                  "/0/0/wl0_buffer/1"});
}

// I-B8: the conv writes transfer 2 into tensor 2, already in its own
// snapshot; the pool reads it from there.
TEST(GeminiRules, ForwardedTensorLifetime) {
  // Held by another tensor in the reader's snapshot than in the producer's.
  ExpectMutation({&rules::kBufferForwardLifetime,
                  [](json& ir) {
                    Pool(ir)["buffer"][0]["tensor_id"] = 4;
                    Pool(ir)["buffer"][0]["newly_added"] = true;
                  },
                  "/0/1/buffer"});
}

TEST(GeminiRules, DeadlockReportsTheCycle) {
  json ir = ExampleIr();
  // Two cores: the pool moves to core 1, and the conv also reads the pool's
  // output, so each waits for the other.
  ir["xlen"] = 2;
  json pool = Pool(ir);
  ir["0"].erase(1);
  pool["workload_id"] = 0;
  pool["buffer"][0]["newly_added"] = true;
  pool["ofmap"][0]["destination"].push_back({{"core_id", 0}, {"type", "core"}, {"workload_id", 0}});
  ir["1"] = json::array({pool});
  ir["-1"]["in"][0]["core_id"] = 1;
  ir["-1"]["in"][0]["workload_id"] = 0;
  Conv(ir)["ofmap"][0]["destination"][0]["core_id"] = 1;
  Conv(ir)["ofmap"][0]["destination"][0]["workload_id"] = 0;
  const json pool_upper = testing::Range4(0, 7, 1, 1);
  Conv(ir)["ifmap"].push_back({{"align", 8},
                               {"bitwidth", 8},
                               {"lower", testing::Zero()},
                               {"upper", pool_upper},
                               {"size", 32},
                               {"transfer_id", json::array({3})}});
  Conv(ir)["buffer"].push_back({{"address", 2048},
                                {"align", 8},
                                {"bitwidth", 8},
                                {"cur_wl_ifmap", true},
                                {"lower", testing::Zero()},
                                {"upper", pool_upper},
                                {"newly_added", true},
                                {"size", 32},
                                {"source", json::array({{{"core_id", 1},
                                                         {"layer_name", "Pool_1"},
                                                         {"lower", testing::Zero()},
                                                         {"upper", pool_upper},
                                                         {"size", 32},
                                                         {"transfer_id", 3},
                                                         {"type", "core"}}})},
                                {"tensor_id", 5},
                                {"tensor_order", 3},
                                {"transfer_id", json::array({3})},
                                {"type", "ifmap"}});
  const DiagnosticSink sink = ValidateText(ir.dump(), false);
  bool found = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule != &rules::kScheduleDeadlock) continue;
    found = true;
    EXPECT_NE(d.message.find("(core 0, workload 0)"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("(core 1, workload 0)"), std::string::npos) << d.message;
  }
  EXPECT_TRUE(found) << Describe(sink);
}

}  // namespace
}  // namespace accelcheck::gemini

namespace accelcheck::gemini {
namespace {

// A reload of the pool's store read by the conv, which runs before the
// store's producer on the same core.
TEST(GeminiRules, DramReloadBeforeItsStore) {
  json ir = ExampleIr();
  ir["-1"]["in"][0]["related_ofmap"] = json::array({9});
  ir["-1"]["out"].push_back(
      {{"transfer_id", 9},
       {"type", "fmap"},
       {"lower", testing::Zero()},
       {"upper", testing::Range4(0, 7, 1, 1)},
       {"size", 32},
       {"related_ifmap", json::array({3})},
       {"destination",
        json::array(
            {{{"core_id", 0}, {"layer_name", "Conv_0"}, {"type", "core"}, {"workload_id", 0}}})}});
  const DiagnosticSink sink = ValidateText(ir.dump(), false);
  bool found = false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == &rules::kTransferDramOrder && d.location.path == "/-1/out/2") found = true;
  }
  EXPECT_TRUE(found) << Describe(sink);
}

// I-D2 on two cores: a0 reads b1's output, and a1's snapshot gains a tensor
// that b0 fills, so b's send after b0 waits for a0 to finish: a0 -> b1 -> a0.
TEST(GeminiRules, SpaceDependencyCycle) {
  const auto workload = [](int id, json ifmap_ids, int ofmap_id, json buffer) {
    return json{
        {"workload_id", id},
        {"ifmap", json::array({{{"transfer_id", ifmap_ids}}})},
        {"ofmap", json::array({{{"transfer_id", ofmap_id}, {"destination", json::array()}}})},
        {"buffer", buffer}};
  };
  const json remote_b0 = json::array(
      {{{"newly_added", true},
        {"source", json::array({{{"core_id", 1}, {"transfer_id", 20}, {"type", "core"}}})}}});
  const json doc = {{"-1", {{"in", json::array()}, {"out", json::array()}}},
                    {"0", json::array({workload(0, json::array({21}), 10, json::array()),
                                       workload(1, json::array(), 11, remote_b0)})},
                    {"1", json::array({workload(0, json::array(), 20, json::array()),
                                       workload(1, json::array(), 21, json::array())})}};
  const std::string text = doc.dump();
  Ir ir;
  DiagnosticSink scratch(Profile{}, "");
  DecodeIr(AsBytes(text), Limits{}, scratch, &ir);
  const IrIndex index(ir);
  EXPECT_FALSE(FindWaitCycle(ir, index, false));
  const auto cycle = FindWaitCycle(ir, index, true);
  ASSERT_TRUE(cycle);
  ASSERT_EQ(cycle->size(), 2u);
  EXPECT_EQ(ir.cores[(*cycle)[0].core].id, 0);
  EXPECT_EQ(ir.cores[(*cycle)[1].core].id, 1);
  EXPECT_EQ((*cycle)[1].index, 1u);
}

}  // namespace
}  // namespace accelcheck::gemini

namespace accelcheck::gemini {
namespace {

// The frontend IR rules (I-F), on the example's frontend validated as the
// file itself: each change gives its rule at its pointer and nothing else.
DiagnosticSink ValidateFrontendText(const std::string& text) {
  DiagnosticSink sink(Profile{.strict = true}, "frontend.json");
  const InputBuffer input = InputBuffer::Copy(AsBytes(text));
  GeminiFormat().Validate(input, ValidateContext{}, sink);
  return sink;
}

json& ConvLayer(json& fe) { return fe["Conv_0"]; }
json& PoolLayer(json& fe) { return fe["Pool_1"]; }

void ExpectFrontendOnly(const Rule& rule, const std::function<void(json&)>& change,
                        const std::string& path) {
  SCOPED_TRACE(std::string(rule.id) + " at " + path);
  json fe = ExampleFrontend();
  change(fe);
  const DiagnosticSink sink = ValidateFrontendText(fe.dump(2));
  ASSERT_FALSE(sink.diagnostics().empty()) << "expected " << rule.id;
  for (const Diagnostic& d : sink.diagnostics()) {
    EXPECT_EQ(d.rule, &rule) << Describe(sink);
    EXPECT_EQ(d.location.path, path) << Describe(sink);
    EXPECT_TRUE(d.location.offset.has_value()) << Describe(sink);
  }
}

void ExpectFrontendConforms(const std::function<void(json&)>& change) {
  json fe = ExampleFrontend();
  change(fe);
  const DiagnosticSink sink = ValidateFrontendText(fe.dump(2));
  EXPECT_TRUE(sink.diagnostics().empty()) << fe.dump() << "\n" << Describe(sink);
}

TEST(GeminiFrontendRules, TheExampleFrontendIsDetectedAndConforms) {
  const std::string text = ExampleFrontend().dump(3);
  EXPECT_TRUE(GeminiFormat().Detect(AsBytes(text)));
  EXPECT_TRUE(LooksLikeFrontend(AsBytes(text)));
  EXPECT_FALSE(LooksLikeFrontend(AsBytes(ExampleIr().dump(3))));
  // Layer keys alone do not make a frontend: its values are layer objects.
  EXPECT_FALSE(LooksLikeFrontend(AsBytes(std::string(R"({"operation": "conv2d"})"))));
  EXPECT_FALSE(LooksLikeFrontend(AsBytes(std::string(R"({"a\"b": 1, "operation": 2})"))));
  EXPECT_TRUE(LooksLikeFrontend(AsBytes(std::string(R"({"a\"b" : {"operation": 2}})"))));
  ExpectFrontendConforms([](json&) {});
}

TEST(GeminiFrontendRules, TypesAndKeys) {
  using rules::kFrontendMissingKey;
  using rules::kFrontendType;
  ExpectFrontendOnly(
      kFrontendType, [](json& fe) { ConvLayer(fe)["stride"] = "1"; }, "/Conv_0/stride");
  ExpectFrontendOnly(
      kFrontendType,
      [](json& fe) {
        ConvLayer(fe)["padding"] = {1, 1};
      },
      "/Conv_0/padding");
  ExpectFrontendOnly(
      kFrontendType, [](json& fe) { ConvLayer(fe)["input_shape"][1] = "x"; },
      "/Conv_0/input_shape/1");
  ExpectFrontendOnly(
      kFrontendType, [](json& fe) { PoolLayer(fe)["output_shape"] = json::array(); },
      "/Pool_1/output_shape");
  ExpectFrontendOnly(
      kFrontendType, [](json& fe) { PoolLayer(fe)["output_shape"][0] = json::array(); },
      "/Pool_1/output_shape/0");
  ExpectFrontendOnly(
      kFrontendType, [](json& fe) { PoolLayer(fe)["previous_layer"][0] = 0; },
      "/Pool_1/previous_layer/0");
  ExpectFrontendOnly(
      kFrontendType, [](json& fe) { PoolLayer(fe)["ceil_mode"] = "no"; }, "/Pool_1/ceil_mode");
  ExpectFrontendOnly(
      kFrontendType, [](json& fe) { fe["Zz_2"] = 3; }, "/Zz_2");
  ExpectFrontendOnly(
      kFrontendMissingKey, [](json& fe) { ConvLayer(fe).erase("next_layer"); }, "/Conv_0");
  ExpectFrontendOnly(
      kFrontendMissingKey, [](json& fe) { ConvLayer(fe).erase("kernel_size"); }, "/Conv_0");
  ExpectFrontendOnly(
      kFrontendMissingKey, [](json& fe) { PoolLayer(fe).erase("padding"); }, "/Pool_1");
  // The writer's own keys are free, and a pool may say ceil_mode either way.
  ExpectFrontendConforms([](json& fe) {
    ConvLayer(fe)["quant_info"] = {{"output_scale", 0.5}};
    PoolLayer(fe)["ceil_mode"] = false;
  });
  ExpectFrontendConforms([](json& fe) { PoolLayer(fe)["ceil_mode"] = 0; });
  // An empty object is no frontend by content; read as one, it has no layer.
  DiagnosticSink empty(Profile{}, "frontend.json");
  EXPECT_FALSE(ParseFrontend(AsBytes(std::string("{}")), ValidateContext{}, empty));
  EXPECT_TRUE(empty.Has(rules::kFrontendType)) << Describe(empty);
}

TEST(GeminiFrontendRules, Ranges) {
  using rules::kFrontendRange;
  ExpectFrontendOnly(
      kFrontendRange,
      [](json& fe) {
        ConvLayer(fe)["stride"] = {0, 1};
      },
      "/Conv_0/stride");
  ExpectFrontendOnly(
      kFrontendRange,
      [](json& fe) {
        PoolLayer(fe)["padding"] = {0, -1, 0, 0};
      },
      "/Pool_1/padding");
  ExpectFrontendOnly(
      kFrontendRange,
      [](json& fe) {
        ConvLayer(fe)["kernel_size"] = {3, (1 << 20) + 1};
      },
      "/Conv_0/kernel_size");
  ExpectFrontendOnly(
      kFrontendRange, [](json& fe) { PoolLayer(fe)["output_shape"][0][1] = 0; },
      "/Pool_1/output_shape/0");
}

TEST(GeminiFrontendRules, NamesIndicesAndReferences) {
  ExpectFrontendOnly(
      rules::kFrontendName, [](json& fe) { PoolLayer(fe)["name"] = "Pool_2"; }, "/Pool_1/name");
  ExpectFrontendOnly(
      rules::kFrontendLayerIndex, [](json& fe) { PoolLayer(fe)["layer_index"] = 0; },
      "/Pool_1/layer_index");
  ExpectFrontendOnly(
      rules::kFrontendLayerIndex, [](json& fe) { PoolLayer(fe)["layer_index"] = 2; },
      "/Pool_1/layer_index");
  ExpectFrontendOnly(
      rules::kFrontendReference, [](json& fe) { PoolLayer(fe)["next_layer"][0] = "output"; },
      "/Pool_1/next_layer/0");
  ExpectFrontendOnly(
      rules::kFrontendReference, [](json& fe) { ConvLayer(fe)["previous_layer"][0] = "Conv_9"; },
      "/Conv_0/previous_layer/0");
  // Network inputs and outputs are numbered; constants say so in their name.
  ExpectFrontendConforms([](json& fe) {
    ConvLayer(fe)["previous_layer"] = {"input2", "Conv_0_weight_constant1"};
    PoolLayer(fe)["next_layer"] = {"output3"};
  });
}

TEST(GeminiFrontendRules, LinksOrderAndInputShapes) {
  ExpectFrontendOnly(
      rules::kFrontendLink, [](json& fe) { ConvLayer(fe)["next_layer"] = json::array(); },
      "/Pool_1/previous_layer/0");
  ExpectFrontendOnly(
      rules::kFrontendLink, [](json& fe) { PoolLayer(fe)["next_layer"].push_back("Conv_0"); },
      "/Pool_1/next_layer/1");
  ExpectFrontendOnly(
      rules::kFrontendOrder,
      [](json& fe) {
        ConvLayer(fe)["layer_index"] = 1;
        PoolLayer(fe)["layer_index"] = 0;
      },
      "/Pool_1/previous_layer/0");
  ExpectFrontendOnly(
      rules::kFrontendInputShape, [](json& fe) { PoolLayer(fe)["input_shape"][0][3] = 5; },
      "/Pool_1/input_shape/0");
  ExpectFrontendOnly(
      rules::kFrontendInputShape,
      [](json& fe) { PoolLayer(fe)["input_shape"].push_back(testing::Range4(1, 1, 1, 1)); },
      "/Pool_1/input_shape");
}

TEST(GeminiFrontendRules, Operands) {
  using rules::kFrontendOperands;
  ExpectFrontendOnly(
      kFrontendOperands,
      [](json& fe) { ConvLayer(fe)["input_shape"][1] = testing::Range4(8, 8, 3, 2); },
      "/Conv_0/input_shape/1");
  ExpectFrontendOnly(
      kFrontendOperands,
      [](json& fe) {
        ConvLayer(fe)["input_shape"][0] = {1, 8, 4};
      },
      "/Conv_0/input_shape/0");
  ExpectFrontendOnly(
      kFrontendOperands, [](json& fe) { PoolLayer(fe)["output_shape"][0][1] = 4; },
      "/Pool_1/output_shape/0");
}

TEST(GeminiFrontendRules, OutputSizes) {
  using rules::kFrontendOutputSize;
  ExpectFrontendOnly(
      kFrontendOutputSize,
      [](json& fe) { PoolLayer(fe)["output_shape"][0] = testing::Range4(1, 8, 3, 2); },
      "/Pool_1/output_shape/0");
  // Padding is top, left, bottom, right (ONNX): 2 above and none below keep
  // the 4 rows; 1 below would give 5.
  ExpectFrontendConforms([](json& fe) { ConvLayer(fe)["padding"] = {2, 1, 0, 1}; });
  ExpectFrontendOnly(
      kFrontendOutputSize,
      [](json& fe) {
        ConvLayer(fe)["padding"] = {2, 1, 1, 0};
      },
      "/Conv_0/output_shape/0");
  // A 3x3 pool at stride 2 over 4 rows: one row rounding down, two with
  // ceil_mode (the second window starts at row 2, inside the input).
  const auto ceil_pool = [](json& fe, json ceil_mode, int rows) {
    PoolLayer(fe)["pool_size"] = {3, 3};
    PoolLayer(fe)["ceil_mode"] = ceil_mode;
    PoolLayer(fe)["output_shape"][0] = testing::Range4(1, 8, rows, rows);
  };
  ExpectFrontendConforms([&](json& fe) { ceil_pool(fe, 1, 2); });
  ExpectFrontendConforms([&](json& fe) { ceil_pool(fe, true, 2); });
  ExpectFrontendConforms([&](json& fe) { ceil_pool(fe, 0, 1); });
  ExpectFrontendOnly(
      kFrontendOutputSize, [&](json& fe) { ceil_pool(fe, false, 2); }, "/Pool_1/output_shape/0");
  // A window larger than the padded input fits nowhere.
  ExpectFrontendOnly(
      kFrontendOutputSize,
      [](json& fe) {
        PoolLayer(fe)["pool_size"] = {5, 2};
      },
      "/Pool_1/output_shape/0");
}

// Given as --frontend, the same rules run on the frontend and report in it:
// the member is the frontend file and the offset points into its bytes. The
// schedule is then checked without it, and says so.
TEST(GeminiFrontendRules, AsACompanionTheProblemsAreLocatedInTheFrontend) {
  json fe = ExampleFrontend();
  PoolLayer(fe)["output_shape"][0] = testing::Range4(1, 8, 3, 2);
  const std::string text = fe.dump(3);
  const auto path = test::ProcessTempPath("bad_output_size.frontend.json");
  std::ofstream(path) << text;
  DiagnosticSink sink(Profile{}, "example.json");
  ValidateContext context;
  context.companions = {path.string()};
  GeminiFormat().Validate(InputBuffer::Copy(AsBytes(ExampleIr().dump(3))), context, sink);
  ASSERT_TRUE(sink.Has(rules::kFrontendOutputSize)) << Describe(sink);
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule != &rules::kFrontendOutputSize) continue;
    EXPECT_EQ(d.location.member, path.string());
    EXPECT_EQ(d.location.path, "/Pool_1/output_shape/0");
    ASSERT_TRUE(d.location.offset.has_value());
    EXPECT_EQ(text.substr(*d.location.offset, 1), "[") << "the offset of the shape in the frontend";
  }
  EXPECT_TRUE(sink.Has(rules::kFrontendUnchecked)) << Describe(sink);
  EXPECT_EQ(sink.error_count(), 1u) << Describe(sink);
}

// I-F9: one note, in every profile, that changes no exit code.
TEST(GeminiFrontendRules, UncheckedIsANoteThatChangesNoExitCode) {
  for (const Profile& profile : {Profile{}, Profile{.strict = true, .werror = true}}) {
    DiagnosticSink sink(profile, "example.json");
    GeminiFormat().Validate(InputBuffer::Copy(AsBytes(ExampleIr().dump())), ValidateContext{},
                            sink);
    ASSERT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
    const Diagnostic& note = sink.diagnostics()[0];
    EXPECT_EQ(note.rule, &rules::kFrontendUnchecked);
    EXPECT_EQ(note.severity, Severity::kNote);
    EXPECT_NE(note.message.find("--frontend"), std::string::npos) << note.message;
    EXPECT_NE(note.message.find(rules::kTileReceptiveField.id), std::string::npos);
    EXPECT_EQ(ExitCodeFor(sink), ExitCode::kConforms);
  }
  // A schedule that does not decode says nothing of the checks after decoding.
  DiagnosticSink broken(Profile{}, "example.json");
  GeminiFormat().Validate(InputBuffer::Copy(AsBytes(ExampleIr().dump().substr(0, 100))),
                          ValidateContext{}, broken);
  EXPECT_FALSE(broken.Has(rules::kFrontendUnchecked)) << Describe(broken);
}

}  // namespace
}  // namespace accelcheck::gemini
