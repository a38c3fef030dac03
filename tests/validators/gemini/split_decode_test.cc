// A large scheduler IR is decoded in two halves at once (DecodeIr): split at
// any offset, the decode gives the tables and diagnostics of one reader, on
// valid documents and on documents whose halves share a top-level key, hold
// layers only the second half names, or break in the second half.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "conformance/gemini/generate.h"
#include "validators/core/text.h"
#include "validators/gemini/decode.h"

namespace accelcheck::gemini {
namespace {

std::string Schedule() {
  GenerateOptions o;
  o.layers = 3;
  o.mesh_x = 2;
  o.mesh_y = 2;
  o.height = 8;
  o.width = 4;
  o.channels = 4;
  std::ostringstream ir, frontend;
  EXPECT_FALSE(GenerateIr(o, ir, frontend));
  return ir.str();
}

std::string Names(const Ir& ir, const std::vector<Destination>& destinations) {
  std::string out;
  for (const Destination& d : destinations) {
    out += Str(d.core_id, ":", d.workload_id, ":", ir.LayerName(d.layer), " ");
  }
  return out;
}

// Everything the decode gave, layer ids included (one reader numbers layers
// in the order it meets them).
std::string Fingerprint(const Ir& ir, const DiagnosticSink& sink, bool finished) {
  std::string out =
      Str(finished, " ", ir.buffersize, " ", ir.top_batch_cut, " ", ir.xlen, " ", ir.ylen, "\n");
  for (const Diagnostic& d : sink.diagnostics()) {
    out += Str(d.rule->id, " ", d.location.offset.value_or(0), " ", d.location.path, " ", d.message,
               "\n");
  }
  for (size_t i = 0; i < ir.layers.size(); ++i) out += Str("layer ", i, " ", ir.layers[i], "\n");
  for (const Core& core : ir.cores) {
    out += Str("core ", core.id, "\n");
    for (const Workload& w : core.workloads) {
      out += Str(" w ", w.id, " ", w.layer, " ", RangeText(w.range), " tiles ", w.tiles.size(),
                 " offset ", w.offset, "\n");
      for (const Ofmap& f : w.ofmaps)
        out += Str("  ofmap ", f.transfer_id, " ", Names(ir, f.destinations), "\n");
      for (const BufferEntry& e : w.buffer) {
        out += Str("  entry ", e.layer, " ", e.tensor_id, " sources");
        for (const Source& s : e.sources) out += Str(" ", s.layer, "/", s.transfer_id);
        out += "\n";
      }
      for (const Wl0Entry& e : w.wl0) out += Str("  wl0 ", e.layer, " ", e.address, "\n");
    }
  }
  for (const DramIn& in : ir.dram_in) out += Str("in ", in.transfer_id, " ", in.layer, "\n");
  for (const DramOut& o : ir.dram_out) {
    out += Str("out ", o.transfer_id, " ", Names(ir, o.destinations), "\n");
  }
  return out;
}

std::string OneReader(const std::string& text) {
  DiagnosticSink sink(Profile{}, "ir.json");
  Ir ir;
  const bool finished = DecodeIr(AsBytes(text), Limits{}, sink, &ir);
  return Fingerprint(ir, sink, finished);
}

std::string TwoReaders(const std::string& text, uint64_t split, bool* taken = nullptr) {
  DiagnosticSink sink(Profile{}, "ir.json");
  Ir ir;
  const bool finished = DecodeIrInTwo(AsBytes(text), split, Limits{}, sink, &ir, nullptr, taken);
  return Fingerprint(ir, sink, finished);
}

// Every core list boundary of the text.
std::vector<uint64_t> Boundaries(const std::string& text) {
  std::vector<uint64_t> found;
  for (auto at = CoreListBoundary(AsBytes(text), 0); at;
       at = CoreListBoundary(AsBytes(text), *at + 1)) {
    found.push_back(*at);
  }
  return found;
}

TEST(SplitDecode, EveryCoreListBoundaryGivesTheOneReaderResult) {
  const std::string text = Schedule();
  const std::string expected = OneReader(text);
  const std::vector<uint64_t> boundaries = Boundaries(text);
  ASSERT_EQ(boundaries.size(), 4u);  // each core list follows the DRAM lists or another
  for (uint64_t split : boundaries) {
    bool taken = false;
    EXPECT_EQ(TwoReaders(text, split, &taken), expected) << "split at " << split;
    EXPECT_TRUE(taken) << "split at " << split;
  }
}

// An offset that is no member boundary of the root object: the second
// reader's work is dropped.
RC_GTEST_PROP(SplitDecode, AnyOffsetGivesTheOneReaderResult, ()) {
  static const std::string text = Schedule();
  static const std::string expected = OneReader(text);
  const auto split = *rc::gen::inRange<uint64_t>(0, text.size() + 2);
  RC_ASSERT(TwoReaders(text, split) == expected);
}

// Changes of the text after the last core list's start, each given to one
// reader and to two readers split at every boundary.
void ExpectSameResults(const std::string& text, bool taken_at_last) {
  const std::string expected = OneReader(text);
  const std::vector<uint64_t> boundaries = Boundaries(text);
  ASSERT_FALSE(boundaries.empty());
  for (uint64_t split : boundaries) {
    bool taken = false;
    EXPECT_EQ(TwoReaders(text, split, &taken), expected) << "split at " << split;
    if (split == boundaries.back()) {
      EXPECT_EQ(taken, taken_at_last) << "split at " << split;
    }
  }
}

std::string BeforeClosingBrace(std::string text, const std::string& members) {
  text.insert(text.rfind('}'), members);
  return text;
}

std::string AfterOpeningBrace(const std::string& text, const std::string& members) {
  return text.substr(0, 1) + members + text.substr(1);
}

TEST(SplitDecode, KeysInBothHalvesAreReadAsOneReaderWould) {
  const std::string text = Schedule();
  // A core list at the end again, and a parameter and an unknown key at the
  // start again: the later occurrence is the duplicate, skipped, so the
  // halves are read by one reader.
  ExpectSameResults(BeforeClosingBrace(text, R"(,"0":[{"workload_id":7}])"), false);
  ExpectSameResults(AfterOpeningBrace(text, R"("buffersize":1,)"), false);
  ExpectSameResults(AfterOpeningBrace(BeforeClosingBrace(text, R"(,"note":1)"), R"("note":0,)"),
                    false);
  // Both occurrences in the second half: it reports the duplicate itself.
  ExpectSameResults(BeforeClosingBrace(text, R"(,"buffersize":1)"), true);
}

TEST(SplitDecode, TheSecondHalfsProblemsAndLayersJoinInOrder) {
  const std::string text = Schedule();
  const uint64_t last = Boundaries(text).back();
  // A layer only the last core names, a value of the wrong type, and an
  // unknown key, all after the last boundary.
  std::string changed = text;
  const size_t name = changed.find("\"layer_name\":\"", last);
  ASSERT_NE(name, std::string::npos);
  changed.insert(name + 14, "fresh_");
  const size_t time = changed.find("\"time\":", last);
  ASSERT_NE(time, std::string::npos);
  changed.insert(time + 7, "\"late\",\"x\":");
  ExpectSameResults(BeforeClosingBrace(changed, R"(,"extra":true)"), true);
  // The text cut inside the last core list: a syntax error in the second half.
  ExpectSameResults(text.substr(0, text.size() - 40), true);
}

// A document the gemini fuzzer made, whose root object closes early (after
// "0out"), so that its last core list lies past the document's end.
TEST(SplitDecode, ACoreListPastTheRootObjectsEndIsReadAsOneReaderWould) {
  const std::filesystem::path path = std::filesystem::path(ACCELCHECK_SOURCE_DIR) / "fuzz" /
                                     "regressions" / "gemini" / "core_list_past_the_root";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  ExpectSameResults(text, false);
}

}  // namespace
}  // namespace accelcheck::gemini
