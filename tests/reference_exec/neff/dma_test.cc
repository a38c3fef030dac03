// The DMA executor: every real file runs to completion within bounds, with
// order-dependent bytes exactly where docs/formats/neff.md §7.2 finds them;
// accesses outside a variable or into a reservation, and operations without
// documented arithmetic, are refused naming the block and descriptor; a
// random copy through the state buffer equals the copy done directly.
#include <map>
#include <numeric>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "conformance/neff/builder.h"
#include "conformance/neff/model.h"
#include "reference_exec/neff/dma.h"
#include "tests/support/corpus.h"
#include "validators/neff/neff_format.h"

namespace accelcheck::neff::exec {
namespace {

namespace nc = neff::conformance;
constexpr uint64_t kPartition = uint64_t{1} << 18;

// Each input variable of `loaded` filled with a byte pattern.
std::map<std::string, std::vector<uint8_t>> PatternInputs(const Loaded& loaded) {
  std::map<std::string, std::vector<uint8_t>> inputs;
  for (const Buffer* b : loaded.OfType(VarType::kInput)) {
    std::vector<uint8_t> bytes(b->size);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i % 251);
    inputs[b->name] = std::move(bytes);
  }
  return inputs;
}

Loaded LoadBytes(const std::vector<uint8_t>& file) {
  std::string error;
  std::optional<Loaded> loaded = Load(InputBuffer::Copy(file), ValidateContext{}, &error);
  EXPECT_TRUE(loaded) << error;
  return loaded ? std::move(*loaded) : Loaded{};
}

TEST(NeffDma, EveryRealFileRunsWithinBounds) {
  const auto files = test::CorpusFiles("neff", ".neff");
  if (files.empty()) GTEST_SKIP() << "the corpus is absent: " << test::CorpusDir("neff");
  // §7.2: the files whose engines touch no byte another engine touches.
  const std::set<std::string> order_free = {
      "trn1_stream_256k_fd1k.neff", "trn2_stream_256k_fd1k_lnc2.neff",
      "trn2_conv2d_1_float16_smaller.neff", "trn2_transpose_1024.neff"};
  for (const auto& path : files) {
    const Loaded loaded = LoadBytes(test::ReadBytes(path));
    std::string error;
    const std::optional<Result> result = exec::Run(loaded, PatternInputs(loaded), &error);
    ASSERT_TRUE(result) << path << ": " << error;
    EXPECT_GT(result->blocks, 0u) << path;
    EXPECT_EQ(result->order_dependent == 0, order_free.count(path.filename().string()) == 1)
        << path << ": " << result->order_dependent << " order-dependent bytes";
    for (const auto& [name, unwritten] : result->unwritten) {
      EXPECT_EQ(unwritten, 0u) << path << ": output " << name;
    }
  }
}

// A Trn1 or Trn2 NEFF with input x of `bytes` bytes and output y of the
// same size, and SP blocks `blocks`.
nc::Spec CopySpec(uint64_t bytes, std::vector<nc::Block> blocks, bool trn2 = false) {
  nc::Spec spec = trn2 ? nc::Trn2Spec() : nc::Trn1Spec();
  spec.inputs = {{"x", "uint8", {bytes}}};
  spec.outputs = {{"y", "uint8", {bytes}}};
  spec.queues = {{"qSPIO0", nc::Engine::kSp, "in"}};
  spec.blocks = std::move(blocks);
  return spec;
}

nc::Descriptor Copy(nc::Side from, nc::Side to) {
  nc::Descriptor d;
  d.from = std::move(from);
  d.to = std::move(to);
  return d;
}

std::string RunError(const nc::Spec& spec) {
  const Loaded loaded = LoadBytes(nc::Write(nc::Build(spec)));
  std::string error;
  EXPECT_FALSE(exec::Run(loaded, PatternInputs(loaded), &error));
  return error;
}

TEST(NeffDma, AnAccessOutsideItsVariableIsRefused) {
  const std::string error = RunError(CopySpec(
      64, {{"qSPIO0", {Copy({"x", 32, {64}, {1}, "uint8"}, {"y", 0, {64}, {1}, "uint8"})}}}));
  EXPECT_NE(error.find("sp block 0 of queue \"qSPIO0\", descriptor 0"), std::string::npos) << error;
  EXPECT_NE(error.find("outside the variable's 64 bytes"), std::string::npos) << error;
}

TEST(NeffDma, AnAccessIntoTheReservationIsRefused) {
  // §2.9: bytes 229368 to 229375 of every cayman partition are the runtime's.
  const std::string error = RunError(CopySpec(
      16, {{"qSPIO0", {Copy({"x", 0, {16}, {1}, "uint8"}, {"SB", 229360, {16}, {1}, "uint8"})}}},
      true));
  EXPECT_NE(error.find("reach the runtime's reservation (evtaccel)"), std::string::npos) << error;
}

TEST(NeffDma, OperationsWithoutDocumentedArithmeticAreRefused) {
  nc::Descriptor add = Copy({"x", 0, {16}, {1}, "float32"}, {"y", 0, {16}, {1}, "float32"});
  add.op = "add";
  const std::string error = RunError(CopySpec(16, {{"qSPIO0", {add}}}));
  EXPECT_NE(error.find("op add has no documented arithmetic"), std::string::npos) << error;
}

// A random copy of rows of x through the state buffer into y equals the
// same rows copied directly (§2.13, §7.3).
RC_GTEST_PROP(NeffDma, ACopyThroughTheStateBufferIsADirectCopy, ()) {
  const uint64_t row = *rc::gen::inRange<uint64_t>(1, 65);
  const uint64_t rows = *rc::gen::inRange<uint64_t>(1, 9);
  const uint64_t gap = *rc::gen::inRange<uint64_t>(0, 5);
  const uint64_t partition = *rc::gen::inRange<uint64_t>(0, 128 - rows + 1);
  const uint64_t byte = *rc::gen::inRange<uint64_t>(0, 1024);
  const uint64_t stride = row + gap;
  const uint64_t size = stride * rows;
  const uint64_t sb = partition * kPartition + byte;
  const auto step = static_cast<int64_t>(stride);
  nc::Spec spec = CopySpec(size, {{"qSPIO0",
                                   {Copy({"x", 0, {row, rows}, {1, step}, "uint8"},
                                         {"SB", sb, {row, rows}, {1, kPartition}, "uint8"})}},
                                  {"qSPIO0",
                                   {Copy({"SB", sb, {row, rows}, {1, kPartition}, "uint8"},
                                         {"y", 0, {row, rows}, {1, step}, "uint8"})}}});
  const Loaded loaded = LoadBytes(nc::Write(nc::Build(spec)));
  std::vector<uint8_t> x(size);
  for (uint64_t i = 0; i < size; ++i) x[i] = *rc::gen::arbitrary<uint8_t>();
  std::string error;
  const std::optional<Result> result = exec::Run(loaded, {{"x", x}}, &error);
  RC_ASSERT(result.has_value());
  std::vector<uint8_t> direct(size, 0);
  for (uint64_t r = 0; r < rows; ++r) {
    std::copy_n(x.begin() + static_cast<int64_t>(r * stride), row,
                direct.begin() + static_cast<int64_t>(r * stride));
  }
  RC_ASSERT(result->outputs.at("y") == direct);
  RC_ASSERT(result->unwritten.at("y") == gap * rows);
  RC_ASSERT(result->order_dependent == 0u);
}

}  // namespace
}  // namespace accelcheck::neff::exec
