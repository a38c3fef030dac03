// A payload of 128 KiB or more inflates on a second thread while it is
// hashed (validators/neff/container.cc), and engines of a megabyte or more
// are checked side by side (validate_dma.cc): the file validates as a small
// one does, a stale hash is still reported before the gzip stream's error,
// and engines that name one member are checked one after the other.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/neff/builder.h"
#include "conformance/neff/model.h"
#include "tests/support/describe.h"
#include "validators/neff/neff_format.h"
#include "validators/neff/rules.h"

namespace accelcheck::neff {
namespace {

namespace nc = conformance;

// A Trn1 copy with a 2 MiB int8 constant of noise, which gzip cannot shrink.
std::vector<uint8_t> LargeFile() {
  nc::Spec spec = nc::Trn1Spec();
  spec.inputs = {{"x", "float32", {16}}};
  spec.outputs = {{"y", "float32", {16}}};
  std::vector<uint8_t> noise(uint64_t{2} << 20);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (uint8_t& b : noise) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    b = static_cast<uint8_t>(state >> 56);
  }
  spec.constants = {{"noise", "int8", {noise.size()}, std::move(noise)}};
  spec.queues = {{"qSPIO0", nc::Engine::kSp, "in"}};
  spec.blocks = {{"qSPIO0", {nc::MoveRows("x", 0, "float32", "y", 0, "float32", 1, 16)}}};
  return nc::Write(nc::Build(spec));
}

DiagnosticSink Validate(const std::vector<uint8_t>& bytes) {
  DiagnosticSink sink(Profile{.strict = true}, "large.neff");
  NeffFormat().Validate(InputBuffer::Copy(bytes), ValidateContext{}, sink);
  return sink;
}

TEST(NeffLargePayload, ValidatesWithTheHashOrderAlone) {
  const std::vector<uint8_t> file = LargeFile();
  ASSERT_GT(file.size(), (uint64_t{2} << 20));
  const DiagnosticSink sink = Validate(file);
  ASSERT_EQ(sink.diagnostics().size(), 1u) << test::Describe(sink);
  EXPECT_EQ(sink.diagnostics()[0].rule, &rules::kHashOrder);
}

TEST(NeffLargePayload, AStaleHashComesBeforeTheStreamsError) {
  std::vector<uint8_t> file = LargeFile();
  // The gzip trailer's CRC-32 sits 8 bytes before the member's end; the
  // payload is padded with zeros after it, so find the last nonzero byte.
  uint64_t end = file.size();
  while (end > 1024 && file[end - 1] == 0) --end;
  file[end - 8] ^= 0xFF;
  const DiagnosticSink sink = Validate(file);
  ASSERT_GE(sink.diagnostics().size(), 2u) << test::Describe(sink);
  EXPECT_EQ(sink.diagnostics()[0].rule, &rules::kHashMismatch) << test::Describe(sink);
  EXPECT_EQ(sink.diagnostics()[1].rule, &rules::kGzip) << test::Describe(sink);
}

// Two engines of 4000 blocks each, more than a megabyte of engine JSON.
nc::Neff TwoLargeEngines() {
  nc::Spec spec = nc::Trn1Spec();
  spec.inputs = {{"x", "float32", {16}}};
  spec.outputs = {{"y", "float32", {16}}};
  spec.queues = {{"qSPIO0", nc::Engine::kSp, "in"}, {"qPoolIO0", nc::Engine::kPool, "in"}};
  for (const char* queue : {"qSPIO0", "qPoolIO0"}) {
    for (int i = 0; i < 4000; ++i) {
      spec.blocks.push_back({queue, {nc::MoveRows("x", 0, "float32", "y", 0, "float32", 1, 16)}});
    }
  }
  return nc::Build(spec);
}

TEST(NeffLargeEngines, ValidateWithTheHashOrderAlone) {
  const std::vector<uint8_t> file = nc::Write(TwoLargeEngines());
  const DiagnosticSink sink = Validate(file);
  ASSERT_EQ(sink.diagnostics().size(), 1u) << test::Describe(sink);
  EXPECT_EQ(sink.diagnostics()[0].rule, &rules::kHashOrder);
}

// Pool's and Activation's def.json entries name SP's JSON: the three
// engines read it and two report into its one sink, in engine order, the
// same on every run.
TEST(NeffLargeEngines, EnginesNamingOneMemberShareItInTurn) {
  nc::Neff neff = TwoLargeEngines();
  nc::Json& def = *nc::JsonOf(neff, "sg00/def.json");
  def["pool"] = def["sp"];
  def["act"] = def["sp"];
  const std::vector<uint8_t> file = nc::Write(neff);
  const DiagnosticSink first = Validate(file);
  uint64_t owner = 0;
  for (const Diagnostic& d : first.diagnostics()) owner += d.rule == &rules::kBlockOwner;
  // Each of SP's 4000 blocks is on a queue neither Pool nor Activation owns.
  EXPECT_EQ(owner, 8000u) << test::Describe(first);
  EXPECT_EQ(test::Describe(Validate(file)), test::Describe(first));
}

}  // namespace
}  // namespace accelcheck::neff
