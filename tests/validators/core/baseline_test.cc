#include "validators/core/baseline.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace accelcheck {
namespace {

const Rule kBounds{"pte.segment.bounds", Severity::kError, Severity::kError,
                   Category::kInvalid,   "bounds",         "test"};
const Rule kOverlap{"pte.segment.overlap", Severity::kError, Severity::kError,
                    Category::kInvalid,    "overlap",        "test"};

Location At(uint64_t offset, std::string path, std::string member = "") {
  Location location;
  location.offset = offset;
  location.path = std::move(path);
  location.member = std::move(member);
  return location;
}

std::string FingerprintOf(const Rule& rule, const std::string& file, const Location& location,
                          const std::string& message) {
  return BaselineEntryFor(rule, file, location, message).fingerprint;
}

TEST(BaselineTest, MessagesLoseTheirNumbers) {
  EXPECT_EQ(NormalisedMessage("offset 0x1f0 + size 0x40 exceeds segment 2 size 0x200"),
            "offset # + size # exceeds segment # size #");
  EXPECT_EQ(NormalisedMessage("tensor 12 at 0xAB; 0x is not a number"),
            "tensor # at #; #x is not a number");
  EXPECT_EQ(NormalisedMessage("no numbers"), "no numbers");
}

// An edit elsewhere in the file moves the bytes: the fingerprint stays. The
// rule, the file, the object and the words of the message tell findings apart.
TEST(BaselineTest, FingerprintsIgnoreOffsetsAndNumbers) {
  const std::string base =
      FingerprintOf(kBounds, "models/a.pte", At(0x1f0, "segments[2]"), "offset 0x1f0 is past");
  EXPECT_EQ(base.size(), 16u);
  EXPECT_EQ(base, FingerprintOf(kBounds, "models/a.pte", At(0x2f0, "segments[2]"),
                                "offset 0x2f0 is past"));
  EXPECT_NE(base, FingerprintOf(kOverlap, "models/a.pte", At(0x1f0, "segments[2]"),
                                "offset 0x1f0 is past"));
  EXPECT_NE(base, FingerprintOf(kBounds, "models/b.pte", At(0x1f0, "segments[2]"),
                                "offset 0x1f0 is past"));
  EXPECT_NE(base, FingerprintOf(kBounds, "models/a.pte", At(0x1f0, "segments[3]"),
                                "offset 0x1f0 is past"));
  EXPECT_NE(base, FingerprintOf(kBounds, "models/a.pte", At(0x1f0, "segments[2]"),
                                "offset 0x1f0 is before"));
}

// A member is known by its file name, however the command line named it.
TEST(BaselineTest, AMemberIsKnownByItsFileName) {
  EXPECT_EQ(FingerprintOf(kBounds, "s.json", At(4, "/0", "/tmp/x/s.frontend.json"), "m"),
            FingerprintOf(kBounds, "s.json", At(4, "/0", "other/s.frontend.json"), "m"));
  EXPECT_NE(FingerprintOf(kBounds, "s.json", At(4, "/0", "s.frontend.json"), "m"),
            FingerprintOf(kBounds, "s.json", At(4, "/0"), "m"));
}

TEST(BaselineTest, WrittenDocumentReadsBackSortedAndReviewable) {
  Baseline recorded = Baseline::Recording();
  EXPECT_TRUE(recorded.Accept(BaselineEntryFor(kOverlap, "b.pte", At(1, "x"), "second")));
  EXPECT_TRUE(recorded.Accept(BaselineEntryFor(kBounds, "a.pte", At(1, "x"), "first")));
  EXPECT_TRUE(recorded.Accept(BaselineEntryFor(kBounds, "a.pte", At(1, "x"), "first")));
  const nlohmann::json document = nlohmann::json::parse(recorded.ToJson());
  EXPECT_EQ(document["kind"], "accelcheck-baseline");
  EXPECT_EQ(document["version"], 1);
  ASSERT_EQ(document["findings"].size(), 3u);
  EXPECT_EQ(document["findings"][0]["file"], "a.pte");
  EXPECT_EQ(document["findings"][0]["rule"], "pte.segment.bounds");
  EXPECT_EQ(document["findings"][0]["path"], "x");
  EXPECT_EQ(document["findings"][0]["message"], "first");
  EXPECT_EQ(document["findings"][2]["file"], "b.pte");

  std::string error;
  std::optional<Baseline> read = Baseline::Parse(recorded.ToJson(), &error);
  ASSERT_TRUE(read) << error;
  EXPECT_TRUE(read->Accept(BaselineEntryFor(kBounds, "a.pte", At(9, "x"), "first")));
  EXPECT_TRUE(read->Accept(BaselineEntryFor(kBounds, "a.pte", At(9, "x"), "first")));
  EXPECT_FALSE(read->Accept(BaselineEntryFor(kBounds, "a.pte", At(9, "x"), "first")))
      << "held twice, accepted twice";
  EXPECT_TRUE(read->Accept(BaselineEntryFor(kOverlap, "b.pte", At(1, "x"), "second")));
  EXPECT_FALSE(read->Accept(BaselineEntryFor(kOverlap, "c.pte", At(1, "x"), "second")));
}

TEST(BaselineTest, WhatIsNotABaselineIsRefusedWithTheReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"{", "not JSON"},
      {"[]", "not an accelcheck baseline"},
      {R"({"version": 1, "findings": []})", "not an accelcheck baseline"},
      {R"({"kind": "accelcheck-baseline", "version": 2, "findings": []})",
       "baseline version 2 is not"},
      {R"({"kind": "accelcheck-baseline", "version": 1})", "\"findings\" is not an array"},
      {R"({"kind": "accelcheck-baseline", "version": 1, "findings": [{"fingerprint": 7}]})",
       "findings[0] has no \"fingerprint\" string"},
  };
  for (const auto& [text, reason] : cases) {
    std::string error;
    EXPECT_FALSE(Baseline::Parse(text, &error)) << text;
    EXPECT_NE(error.find(reason), std::string::npos) << text << ": " << error;
  }
  std::string error;
  EXPECT_TRUE(
      Baseline::Parse(R"({"kind": "accelcheck-baseline", "version": 1, "findings": []})", &error));
}

}  // namespace
}  // namespace accelcheck
