// The document level (conformance/neff/model.h): JSON members keep their
// layout through a write and a read, members that are not JSON or do not
// write back the same stay bytes, and the program slots have the layout of
// docs/formats/neff.md §3.
#include "conformance/neff/model.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/neff/bases.h"

namespace accelcheck::neff::conformance {
namespace {

using ByteVector = std::vector<uint8_t>;

std::string TextOf(const ByteVector& bytes) { return std::string(bytes.begin(), bytes.end()); }

Member JsonMember(std::string name, Json json, JsonLayout layout) {
  Member m;
  m.name = std::move(name);
  m.content = std::move(json);
  m.layout = layout;
  return m;
}

TEST(Model, JsonLayoutsAreThoseOfRealFiles) {
  const Json doc = {{"b", 1}, {"a", {1, 2}}, {"e", Json::array()}};
  EXPECT_EQ(TextOf(Bytes(JsonMember("x.json", doc, kCompact))), R"({"b":1,"a":[1,2],"e":[]})");
  EXPECT_EQ(TextOf(Bytes(JsonMember("x.json", doc, {2, false}))),
            "{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2\n  ],\n  \"e\": []\n}");
  EXPECT_EQ(TextOf(Bytes(JsonMember("x.json", {{"k", "v"}}, {4, true}))),
            "{\n    \"k\": \"v\"\n}\n");
}

TEST(Model, EveryBaseReadsBackToItself) {
  for (const NamedBase& base : Bases()) {
    SCOPED_TRACE(base.name);
    std::string error;
    const auto read = Read(Write(base.neff), &error);
    ASSERT_TRUE(read) << error;
    EXPECT_EQ(*read, base.neff);
    // Every JSON member came back as a document, not as bytes.
    for (const Member& m : read->members) {
      if (m.name.ends_with(".json")) {
        EXPECT_TRUE(std::holds_alternative<Json>(m.content)) << m.name;
      }
    }
  }
}

TEST(Model, MembersThatDoNotWriteBackTheSameStayBytes) {
  Neff neff;
  neff.members.push_back({"odd.json", ByteVector{'{', ' ', '}'}});
  neff.members.push_back({"bad.json", ByteVector{'{'}});
  neff.members.push_back(JsonMember("good.json", {{"a", 1}}, {2, true}));
  std::string error;
  auto read = Read(Write(neff), &error);
  ASSERT_TRUE(read) << error;
  EXPECT_EQ(*read, neff);
  EXPECT_EQ(JsonOf(*read, "good.json")->at("a"), 1);
  EXPECT_EQ(JsonOf(*read, "odd.json"), nullptr);
  EXPECT_TRUE(ParseAsJson(*Find(*read, "odd.json")));
  EXPECT_NE(JsonOf(*read, "odd.json"), nullptr);
  EXPECT_FALSE(ParseAsJson(*Find(*read, "bad.json")));
  EXPECT_EQ(Find(*read, "missing.json"), nullptr);
}

TEST(Model, TriggerSlotLayout) {
  const ProgramSlot slot = TriggerSlot("qSPIO0", 0x01020304);
  EXPECT_EQ(slot[0], 0xC1);
  EXPECT_EQ(slot[1], 0x10);
  EXPECT_EQ(std::string(slot.begin() + 0x0C, slot.begin() + 0x12), "qSPIO0");
  for (size_t i = 0x12; i < 0x30; ++i) EXPECT_EQ(slot[i], 0) << i;  // name fill, use_raw_count
  EXPECT_EQ(slot[0x30], 0x04);
  EXPECT_EQ(slot[0x33], 0x01);
  for (size_t i = 0x34; i < 64; ++i) EXPECT_EQ(slot[i], 0) << i;
  // A queue name is cut so that a NUL ends it.
  const ProgramSlot long_queue = TriggerSlot(std::string(40, 'q'), 0);
  EXPECT_EQ(long_queue[0x0C + 31], 0);

  const ByteVector program =
      ProgramBytes({Slot(kOpcodeStart), TriggerSlot("qA", 0), Slot(0x41), TriggerSlot("qB", 7)});
  ASSERT_EQ(program.size(), 4 * 64u);
  EXPECT_EQ(program[0], kOpcodeStart);
  EXPECT_EQ(Triggers(program), (std::vector<Trigger>{{"qA", 0}, {"qB", 7}}));
}

}  // namespace
}  // namespace accelcheck::neff::conformance
