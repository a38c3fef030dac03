#include "validators/core/json_decoder.h"

#include <gtest/gtest.h>

#include "validators/core/core_rules.h"

namespace accelcheck {
namespace {

Rule TestRule(std::string_view id) {
  return Rule{id, Severity::kError, Severity::kError, Category::kInvalid, id, "test"};
}
const Rule kSyntax = TestRule("test.syntax");
const Rule kType = TestRule("test.type");
const Rule kRange = TestRule("test.range");
const Rule kMissing = TestRule("test.missing");
const Rule kUnknown = TestRule("test.unknown");
const Rule kDuplicate = TestRule("test.duplicate");
const JsonSchemaRules kRules{&kSyntax, &kType, &kRange, &kMissing, &kUnknown, &kDuplicate};
const JsonSchemaRules kLastWins{&kSyntax, &kType, &kRange, &kMissing, &kUnknown, nullptr};
const JsonSchemaRules kOpen{&kSyntax, &kType, &kRange, &kMissing, nullptr, nullptr};

struct Point {
  int64_t x = 0;
  int64_t y = 0;
};

// Decodes {"x": int, "y": int} with both keys required.
Point DecodePoint(std::string_view text, DiagnosticSink& sink,
                  const JsonSchemaRules& rules = kRules, Limits limits = {}) {
  static constexpr JsonKeys<2> kKeys = {"x", "y"};
  JsonDecoder decoder(AsBytes(text), limits, sink, rules);
  JsonKeyOrder order;
  Point p;
  if (decoder.ExpectObject("a point")) {
    const uint64_t at = decoder.reader().offset();
    const uint64_t seen =
        decoder.Fields(kKeys, order, [&](int field) { decoder.Int(field == 0 ? &p.x : &p.y); });
    decoder.RequireKeys(kKeys, seen, KeyBits({0, 1}), at, "the point");
  }
  decoder.Finish();
  return p;
}

TEST(JsonDecoder, ReadsEveryKnownKey) {
  DiagnosticSink sink(Profile{}, "p.json");
  const Point p = DecodePoint(R"({"y": 2, "x": -1})", sink);
  EXPECT_EQ(sink.diagnostics().size(), 0u);
  EXPECT_EQ(p.x, -1);
  EXPECT_EQ(p.y, 2);
}

TEST(JsonDecoder, ReportsEachProblemAtItsByteOffsetAndPointer) {
  DiagnosticSink sink(Profile{}, "p.json");
  DecodePoint(R"({"x": "one", "z": 3, "x": 1.5})", sink);
  ASSERT_EQ(sink.diagnostics().size(), 4u);
  const auto& d = sink.diagnostics();
  EXPECT_EQ(d[0].rule, &kType);
  EXPECT_EQ(d[0].location.offset, 6u);
  EXPECT_EQ(d[0].location.path, "/x");
  EXPECT_EQ(d[1].rule, &kUnknown);
  EXPECT_EQ(d[1].location.offset, 13u);
  EXPECT_EQ(d[2].rule, &kDuplicate);
  EXPECT_EQ(d[2].location.offset, 21u);
  EXPECT_EQ(d[3].rule, &kMissing);
  EXPECT_EQ(d[3].location.offset, 0u);
}

// The first unknown key is held apart from the others; a repeat of either,
// spelled with an escape or not, is a duplicate.
TEST(JsonDecoder, AnUnknownKeyGivenTwiceIsADuplicate) {
  DiagnosticSink sink(Profile{}, "p.json");
  DecodePoint(R"({"x": 1, "#c": 0, "z": 0, "\u0023c": 0, "w": 0, "z": 0, "y": 2})", sink);
  std::vector<const Rule*> rules;
  for (const Diagnostic& d : sink.diagnostics()) rules.push_back(d.rule);
  EXPECT_EQ(rules,
            (std::vector<const Rule*>{&kUnknown, &kUnknown, &kDuplicate, &kUnknown, &kDuplicate}));
  ASSERT_EQ(sink.diagnostics().size(), 5u);
  EXPECT_EQ(sink.diagnostics()[2].location.offset, 26u);
  EXPECT_EQ(sink.diagnostics()[4].location.offset, 48u);
}

TEST(JsonDecoder, WithoutADuplicateRuleTheLastValueWins) {
  DiagnosticSink sink(Profile{}, "p.json");
  const Point p = DecodePoint(R"({"x": 1, "y": 2, "x": 3})", sink, kLastWins);
  EXPECT_EQ(sink.diagnostics().size(), 0u);
  EXPECT_EQ(p.x, 3);
}

TEST(JsonDecoder, WithoutAnUnknownKeyRuleOtherKeysAreSkipped) {
  DiagnosticSink sink(Profile{}, "p.json");
  const Point p = DecodePoint(R"({"x": 1, "label": {"a": [1]}, "label": 2, "y": 2})", sink, kOpen);
  EXPECT_EQ(sink.diagnostics().size(), 0u);
  EXPECT_EQ(p.x, 1);
  EXPECT_EQ(p.y, 2);
}

TEST(JsonDecoder, AFractionOrAHugeIntegerIsOutOfRange) {
  DiagnosticSink sink(Profile{}, "p.json");
  DecodePoint(R"({"x": 0.5, "y": 99999999999999999999})", sink);
  ASSERT_EQ(sink.diagnostics().size(), 2u);
  EXPECT_EQ(sink.diagnostics()[0].rule, &kRange);
  EXPECT_EQ(sink.diagnostics()[0].location.offset, 6u);
  EXPECT_EQ(sink.diagnostics()[0].location.length, 3u);
  EXPECT_EQ(sink.diagnostics()[1].rule, &kRange);
}

TEST(JsonDecoder, RecordedOffsetsLocateValuesAfterDecoding) {
  DiagnosticSink sink(Profile{}, "p.json");
  JsonDecoder decoder(AsBytes(R"({"x": 1,  "y": 22})"), Limits{}, sink, kRules);
  static constexpr JsonKeys<2> kKeys = {"x", "y"};
  JsonKeyOrder order;
  JsonOffsets offsets;
  ASSERT_TRUE(decoder.ExpectObject("a point"));
  decoder.Fields(kKeys, order, [&](int) {
    decoder.RecordOffset(offsets);
    decoder.reader().Skip();
  });
  EXPECT_TRUE(decoder.Finish());
  EXPECT_EQ(offsets.At("/y").offset, 15u);
  EXPECT_EQ(offsets.At("/y").path, "/y");
  EXPECT_FALSE(offsets.At("/z").offset.has_value());
}

TEST(JsonDecoder, SyntaxErrorsAndTheDepthLimitEndDecoding) {
  DiagnosticSink syntax(Profile{}, "p.json");
  DecodePoint(R"({"x": 1,)", syntax);
  ASSERT_EQ(syntax.diagnostics().size(), 1u);
  EXPECT_EQ(syntax.diagnostics()[0].rule, &kSyntax);

  DiagnosticSink deep(Profile{}, "p.json");
  Limits limits;
  limits.max_depth = 2;
  DecodePoint(R"({"x": [[[1]]], "y": 0})", deep, kRules, limits);
  ASSERT_FALSE(deep.diagnostics().empty());
  EXPECT_EQ(deep.diagnostics().back().rule, &core_rules::kLimitDepth);
}

}  // namespace
}  // namespace accelcheck
