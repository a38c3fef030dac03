// The DMA executor: every real file runs to completion within bounds, with
// order-dependent bytes exactly where docs/formats/neff.md §7.2 finds them;
// accesses outside a variable or into a reservation, a side past
// --max-tensor-bytes, a run past its deadline, and arithmetic whose result
// no source defines, are refused naming the block and descriptor;
// integer arithmetic is exact; a random copy through the state buffer
// equals the copy done directly.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <numeric>
#include <thread>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "conformance/neff/builder.h"
#include "conformance/neff/model.h"
#include "reference_exec/neff/dma.h"
#include "tests/support/corpus.h"
#include "validators/core/text.h"
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
  const std::set<std::string> order_free = {"trn1_stream_256k_fd1k.neff",
                                            "trn1_pax_stream_256k_fd1k.neff",
                                            "trn2_stream_256k_fd1k_lnc2.neff",
                                            "trn2_conv2d_1_float16_smaller.neff",
                                            "trn2_conv2d_2_float32_smaller_transpose_steps.neff",
                                            "trn2_transpose_1024.neff"};
  for (const auto& path : files) {
    if (path.filename() == "nkipy__matmul_small.neff") continue;  // below
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

// §2.7: a kernel whose transfers the DGE generates during the run holds no
// descriptor to run; the executor says so rather than give outputs nothing
// wrote.
TEST(NeffDma, ARealFileOfGeneratedTransfersIsRefused) {
  const std::filesystem::path path = test::CorpusDir("neff") / "nkipy__matmul_small.neff";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "the corpus is absent: " << path;
  std::string error;
  Refusal refusal = Refusal::kLimit;
  EXPECT_FALSE(Load(InputBuffer::Copy(test::ReadBytes(path)), ValidateContext{}, &error, &refusal));
  EXPECT_EQ(refusal, Refusal::kUnsupported);
  EXPECT_NE(error.find("sg00 moves data through queue sets of type dynamic (qPoolDynamic, "
                       "qSPDynamicHW)"),
            std::string::npos)
      << error;
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

// The refusal of a run of `spec`, which must be of `kind`.
std::string RunError(const nc::Spec& spec, Refusal kind = Refusal::kUnsupported) {
  const Loaded loaded = LoadBytes(nc::Write(nc::Build(spec)));
  std::string error;
  Refusal refusal = Refusal::kLimit;
  EXPECT_FALSE(exec::Run(loaded, PatternInputs(loaded), &error, {}, &refusal));
  EXPECT_EQ(refusal, kind) << error;
  return error;
}

TEST(NeffDma, AnAccessOutsideItsVariableIsRefused) {
  const std::string error = RunError(
      CopySpec(64,
               {{"qSPIO0", {Copy({"x", 32, {64}, {1}, "uint8"}, {"y", 0, {64}, {1}, "uint8"})}}}),
      Refusal::kOutside);
  EXPECT_NE(error.find("sp block 0 of queue \"qSPIO0\", descriptor 0"), std::string::npos) << error;
  EXPECT_NE(error.find("outside the variable's 64 bytes"), std::string::npos) << error;
}

TEST(NeffDma, AnAccessIntoTheReservationIsRefused) {
  // §2.9: bytes 229368 to 229375 of every cayman partition are the runtime's.
  const std::string error = RunError(
      CopySpec(
          16,
          {{"qSPIO0", {Copy({"x", 0, {16}, {1}, "uint8"}, {"SB", 229360, {16}, {1}, "uint8"})}}},
          true),
      Refusal::kReservation);
  EXPECT_NE(error.find("reach the runtime's reservation (evtaccel)"), std::string::npos) << error;
}

// A side with a dimension of size 0 (NEFF-36's warning) visits no byte.
TEST(NeffDma, AnEmptyDimensionMovesNothing) {
  const Loaded loaded = LoadBytes(nc::Write(nc::Build(CopySpec(
      16, {{"qSPIO0",
            {Copy({"x", 0, {16, 0}, {1, 16}, "uint8"}, {"y", 0, {16, 0}, {1, 16}, "uint8"})}}}))));
  std::string error;
  const std::optional<Result> result = exec::Run(loaded, PatternInputs(loaded), &error);
  ASSERT_TRUE(result) << error;
  EXPECT_EQ(result->unwritten.at("y"), 16u);
  EXPECT_EQ(result->descriptors, 1u);
}

// The variables' bytes count against --max-tensor-bytes before anything is
// allocated: x and y of 64 bytes each hold 128.
TEST(NeffDma, LoadKeepsToMaxTensorBytes) {
  const std::vector<uint8_t> file = nc::Write(nc::Build(CopySpec(
      64, {{"qSPIO0", {Copy({"x", 0, {64}, {1}, "uint8"}, {"y", 0, {64}, {1}, "uint8"})}}})));
  ValidateContext context;
  context.limits.max_tensor_bytes = 128;
  std::string error;
  Refusal refusal = Refusal::kOutside;
  EXPECT_TRUE(Load(InputBuffer::Copy(file), context, &error, &refusal)) << error;
  context.limits.max_tensor_bytes = 127;
  EXPECT_FALSE(Load(InputBuffer::Copy(file), context, &error, &refusal));
  EXPECT_EQ(refusal, Refusal::kLimit);
  EXPECT_NE(error.find("would hold 128 bytes"), std::string::npos) << error;
}

// A side visits the product of its sizes, which its variable does not bound:
// with a step of 0 the 16 bytes of x are read four times, 64 bytes in all,
// and a source side is held before it is written (docs/formats/neff.md §7.1).
TEST(NeffDma, ASideKeepsToMaxTensorBytesBeforeItIsWalked) {
  Loaded loaded = LoadBytes(nc::Write(nc::Build(CopySpec(
      64,
      {{"qSPIO0", {Copy({"x", 0, {16, 4}, {1, 0}, "uint8"}, {"y", 0, {64}, {1}, "uint8"})}}}))));
  EXPECT_EQ(loaded.max_side_bytes, ValidateContext{}.limits.max_tensor_bytes);
  std::string error;
  loaded.max_side_bytes = 64;
  const std::optional<Result> result = exec::Run(loaded, PatternInputs(loaded), &error);
  ASSERT_TRUE(result) << error;
  EXPECT_EQ(result->outputs.at("y")[16], 0);  // x[0] again
  EXPECT_EQ(result->outputs.at("y")[63], 15);
  loaded.max_side_bytes = 63;
  Refusal refusal = Refusal::kOutside;
  EXPECT_FALSE(exec::Run(loaded, PatternInputs(loaded), &error, {}, &refusal));
  EXPECT_EQ(refusal, Refusal::kLimit);
  EXPECT_NE(error.find("descriptor 0: a side visits 64 bytes, more than --max-tensor-bytes 63"),
            std::string::npos)
      << error;
}

// 2^40 visits of 16 bytes, and a product past 2^64, are refused at once.
TEST(NeffDma, ASideOfTrillionsOfBytesIsRefusedAsALimit) {
  const std::string huge =
      RunError(CopySpec(16, {{"qSPIO0",
                              {Copy({"x", 0, {16, uint64_t{1} << 40}, {1, 0}, "uint8"},
                                    {"y", 0, {16}, {1}, "uint8"})}}}),
               Refusal::kLimit);
  EXPECT_NE(huge.find("a side visits 17592186044416 bytes"), std::string::npos) << huge;
  const std::string past = RunError(
      CopySpec(16, {{"qSPIO0",
                     {Copy({"x", 0, {16, uint64_t{1} << 62, uint64_t{1} << 62}, {1, 0, 0}, "uint8"},
                           {"y", 0, {16}, {1}, "uint8"})}}}),
      Refusal::kLimit);
  EXPECT_NE(past.find("a side visits more than 2^64 bytes"), std::string::npos) << past;
}

// The deadline is checked before each descriptor: one already past runs
// none of them.
TEST(NeffDma, ARunPastItsDeadlineIsRefusedAsALimit) {
  const Loaded loaded = LoadBytes(nc::Write(nc::Build(CopySpec(
      16, {{"qSPIO0", {Copy({"x", 0, {16}, {1}, "uint8"}, {"y", 0, {16}, {1}, "uint8"})}}}))));
  std::string error;
  ASSERT_TRUE(exec::Run(loaded, PatternInputs(loaded), &error, {.deadline = Deadline(60000)}))
      << error;
  const Deadline past(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  Refusal refusal = Refusal::kOutside;
  EXPECT_FALSE(exec::Run(loaded, PatternInputs(loaded), &error, {.deadline = past}, &refusal));
  EXPECT_EQ(refusal, Refusal::kLimit);
  EXPECT_NE(error.find("the time budget ran out after 0 descriptors"), std::string::npos) << error;
}

nc::Descriptor Arithmetic(std::string op, std::vector<nc::Side> sources, nc::Side to) {
  nc::Descriptor d;
  d.op = std::move(op);
  d.from_arr = std::move(sources);
  d.to = std::move(to);
  return d;
}

// Why the run of one SP block holding `desc` is refused.
std::string RunErrorOf(nc::Descriptor desc) {
  return RunError(CopySpec(16, {{"qSPIO0", {std::move(desc)}}}));
}

TEST(NeffDma, AnIntegerResultThatIsNoElementOfItsDtypeIsRefused) {
  // §7.4: no source gives integer rounding. x holds 0, 1, 2, ...; half of
  // 1 is no uint8.
  nc::Descriptor half =
      Arithmetic("fma", {{"x", 0, {16}, {1}, "uint8"}}, {"y", 0, {16}, {1}, "uint8"});
  half.scale = 0.5;
  half.scale_dtype = "float32";
  const std::string error = RunErrorOf(half);
  EXPECT_NE(error.find("element 1: 0.5 is not a uint8; no source gives integer rounding, "
                       "saturation or wrapping"),
            std::string::npos)
      << error;
}

TEST(NeffDma, ArithmeticOnEncodingsNoSourceGivesIsRefused) {
  const std::string error = RunErrorOf(
      Arithmetic("max", {{"x", 0, {16}, {1}, "float8e4"}}, {"y", 0, {16}, {1}, "uint8"}));
  EXPECT_NE(error.find("max reads float8e4, whose encoding no source gives"), std::string::npos)
      << error;
}

TEST(NeffDma, AConstantThatIsNoElementOfItsDtypeIsRefused) {
  nc::Descriptor max =
      Arithmetic("max", {{"x", 0, {16}, {1}, "uint8"}}, {"y", 0, {16}, {1}, "uint8"});
  max.constant = 0.5;
  max.constant_dtype = "int32";
  const std::string error = RunErrorOf(max);
  EXPECT_NE(error.find("constant 0.5 is not a int32"), std::string::npos) << error;
}

TEST(NeffDma, ACopyOfSeveralSourcesIsRefused) {
  const std::string error =
      RunErrorOf(Arithmetic("copy", {{"x", 0, {16}, {1}, "uint8"}, {"x", 0, {16}, {1}, "uint8"}},
                            {"y", 0, {16}, {1}, "uint8"}));
  EXPECT_NE(error.find("a copy of several sources (from_arr) has no documented meaning"),
            std::string::npos)
      << error;
}

// add, min and max of random int16 sources into int32 are exact: each
// element equals the sum, least or greatest computed directly, min and max
// starting with their constant when one is given (§7.4).
RC_GTEST_PROP(NeffDma, IntegerArithmeticIsExact, ()) {
  const std::string op = *rc::gen::element<std::string>("add", "min", "max");
  const size_t count = *rc::gen::inRange<size_t>(1, 5);
  const uint64_t n = *rc::gen::inRange<uint64_t>(1, 33);
  const bool has_constant = op != "add" && *rc::gen::arbitrary<bool>();
  const int32_t constant = *rc::gen::inRange<int32_t>(-40000, 40000);
  nc::Spec spec = nc::Trn1Spec();
  std::vector<nc::Side> sources;
  std::vector<std::vector<int16_t>> values(count, std::vector<int16_t>(n));
  for (size_t k = 0; k < count; ++k) {
    const std::string name = Str("s", k);
    std::vector<uint8_t> data(2 * n);
    for (uint64_t i = 0; i < n; ++i) {
      values[k][i] = *rc::gen::arbitrary<int16_t>();
      const auto bits = static_cast<uint16_t>(values[k][i]);
      data[2 * i] = static_cast<uint8_t>(bits);
      data[2 * i + 1] = static_cast<uint8_t>(bits >> 8);
    }
    spec.constants.push_back({name, "int16", {n}, std::move(data)});
    sources.push_back({name, 0, {2 * n}, {1}, "int16"});
  }
  spec.outputs = {{"y", "int32", {n}}};
  spec.queues = {{"qSPIO0", nc::Engine::kSp, "in"}};
  nc::Descriptor d = Arithmetic(op, std::move(sources), {"y", 0, {4 * n}, {1}, "int32"});
  if (has_constant) {
    d.constant = constant;
    d.constant_dtype = "int32";
  }
  spec.blocks = {{"qSPIO0", {d}}};
  const Loaded loaded = LoadBytes(nc::Write(nc::Build(spec)));
  std::string error;
  const std::optional<Result> result = exec::Run(loaded, {}, &error);
  RC_ASSERT(result.has_value());
  const std::vector<uint8_t>& y = result->outputs.at("y");
  for (uint64_t i = 0; i < n; ++i) {
    int64_t want = op == "add" ? 0 : has_constant ? constant : values[0][i];
    for (size_t k = 0; k < count; ++k) {
      const int64_t v = values[k][i];
      want = op == "add" ? want + v : op == "min" ? std::min(want, v) : std::max(want, v);
    }
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) bits |= uint32_t{y[4 * i + b]} << (8 * b);
    RC_ASSERT(static_cast<int32_t>(bits) == want);
  }
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
