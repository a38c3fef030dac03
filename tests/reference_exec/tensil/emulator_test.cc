// The emulator's parts: small programs assembled here (their counts; the
// outputs of the hand-computed programs are golden cases, golden/tensil/),
// random MatMul / LoadWeights programs against a plain integer model of the
// processing unit (the fast paths: skipped zero lanes, vector lane loops,
// LoadWeights as one shift), and with the corpus the driver's float encoding.
// The real programs' outputs (ResNet-20 in five strategies, XOR, MNIST) are
// golden cases too.
#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "reference_exec/tensil/run_model.h"
#include "tests/validators/tensil/fixture.h"
#include "validators/tensil/instruction.h"

namespace accelcheck::tensil {
namespace {

namespace fs = std::filesystem;

LoadedModel Tiny(const std::vector<std::string>& program, const std::vector<int16_t>& consts) {
  LoadedModel m;
  m.model.arch = Architecture{.array_size = 2,
                              .dram0_depth = 256,
                              .dram1_depth = 256,
                              .local_depth = 256,
                              .accumulator_depth = 256,
                              .stride0_depth = 2,
                              .stride1_depth = 2};
  m.model.consts = {{"tiny.tdata", 0, consts.size() / 2}};
  m.model.inputs = {{"x", 0, 1}};
  m.model.outputs = {{"y", 1, 1}};
  m.layout = *LayoutOf(m.model.arch);
  const auto bytes = fixture::AssembleFor(fixture::TinyArch(), program);
  m.program = InputBuffer::Copy(bytes);
  std::vector<uint8_t> tdata;
  for (int16_t v : consts) {
    tdata.push_back(static_cast<uint8_t>(v));
    tdata.push_back(static_cast<uint8_t>(static_cast<uint16_t>(v) >> 8));
  }
  m.constants = InputBuffer::Copy(tdata);
  return m;
}

// The dense layer of golden/tensil/dense_relu_raw: one MatMul of a 2x2
// array, eight instructions.
TEST(TensilEmulator, DenseReluCountsMacsAndInstructions) {
  const LoadedModel m = Tiny(fixture::BaseProgram(), {256, -512, 512, 256, -256, 128});
  Machine machine = PrepareMachine(m);
  const auto out = RunModel(machine, m, {{256, 128}});
  ASSERT_EQ(out.outputs.size(), 1u);
  EXPECT_EQ(out.stats.macs, 4u);
  EXPECT_EQ(out.stats.instructions, 8u);
}

std::vector<uint8_t> AssembleLines(const Architecture& arch,
                                   const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  AssembleError error;
  const auto bytes = Assemble(text, *LayoutOf(arch), &error);
  if (!bytes) throw std::runtime_error("line " + std::to_string(error.line) + ": " + error.message);
  return *bytes;
}

// A run whose deadline has expired stops before its first instruction and
// reads no output; the progress counts the program's instructions.
TEST(TensilEmulator, StopsAtTheDeadline) {
  const LoadedModel m = Tiny({"DataMove dram0->local local=0 dram0=0 size=0"}, {0, 0});
  Machine machine = PrepareMachine(m);
  RunControl control{Deadline(1), nullptr};
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const ModelOutputs stopped = RunModel(machine, m, {}, control);
  EXPECT_TRUE(stopped.stats.out_of_time);
  EXPECT_EQ(stopped.stats.instructions, 0u);
  EXPECT_TRUE(stopped.outputs.empty());

  uint64_t total = 0;
  control = {Deadline(0), [&](uint64_t, uint64_t all) { total = all; }};
  const ModelOutputs done = RunModel(machine, m, {}, control);
  EXPECT_FALSE(done.stats.out_of_time);
  EXPECT_EQ(total, 1u);
  EXPECT_EQ(done.outputs.size(), 1u);
}

// FLOAT32 lanes are never skipped: 0 * w + -0 is +0, and 0 * inf is NaN.
TEST(TensilEmulator, FloatMatMulComputesZeroInputs) {
  const Architecture arch{.data_type = DataType::kFloat32,
                          .array_size = 2,
                          .dram0_depth = 16,
                          .dram1_depth = 16,
                          .local_depth = 16,
                          .accumulator_depth = 16};
  const auto bits = [](float v) { return std::bit_cast<Scalar>(v); };
  Machine machine(arch);
  machine.WriteDram0(0, std::vector<Scalar>{bits(-0.0f), bits(-0.0f),    // bias
                                            bits(1.0f), bits(INFINITY),  // W row 1
                                            bits(1.0f), bits(1.0f),      // W row 2
                                            0, 0});                      // x
  machine.Run(AssembleLines(arch, {"DataMove dram0->local local=0 dram0=0 size=3",
                                   "LoadWeights local=0 size=2", "MatMul local=3 acc=0 size=0",
                                   "DataMove acc->local local=4 acc=0 size=0",
                                   "DataMove local->dram0 local=4 dram0=8 size=0"}),
              *LayoutOf(arch));
  const std::vector<Scalar> out = machine.ReadDram0(8, 1);
  EXPECT_EQ(out[0], bits(0.0f));
  EXPECT_TRUE(std::isnan(std::bit_cast<float>(out[1])));
}

// A DRAM word holds `width` bits: wider values keep their low bits.
TEST(TensilEmulator, WriteDram0KeepsTheTypesWidth) {
  Machine fp16(Architecture{.data_type = DataType::kFp16bp8, .array_size = 4});
  fp16.WriteDram0(3, std::vector<Scalar>{0x18000, -0x8001, 0x7fff, -1});
  EXPECT_EQ(fp16.ReadDram0(3, 1), (std::vector<Scalar>{-32768, 32767, 32767, -1}));
  Machine fp18(Architecture{.data_type = DataType::kFp18bp10, .array_size = 2});
  fp18.WriteDram0(0, std::vector<Scalar>{0x20000, 0x1ffff});
  EXPECT_EQ(fp18.ReadDram0(0, 1), (std::vector<Scalar>{-131072, 131071}));
  Machine fp32(Architecture{.data_type = DataType::kFp32bp16, .array_size = 2});
  fp32.WriteDram0(0, std::vector<Scalar>{INT32_MIN, INT32_MAX});
  EXPECT_EQ(fp32.ReadDram0(0, 1), (std::vector<Scalar>{INT32_MIN, INT32_MAX}));
}

// Pages 0 and 4 share a slot of the recently used pages, 1 and 5 another:
// each row keeps its value whatever was touched since.
TEST(TensilEmulator, MemoryRowsKeepTheirValuesAcrossPages) {
  Memory memory(6 * Memory::kPageRows, 3);
  const uint64_t rows[] = {0, 1023, 1024, 4 * 1024, 4 * 1024 + 5, 5 * 1024 + 1023, 2048, 1};
  for (uint64_t i = 0; i < std::size(rows); ++i) {
    EXPECT_EQ(memory.Row(rows[i])[2], 0) << rows[i];
    memory.Row(rows[i])[2] = static_cast<Scalar>(i + 1);
  }
  for (uint64_t i = std::size(rows); i-- > 0;)
    EXPECT_EQ(memory.Row(rows[i])[2], static_cast<Scalar>(i + 1)) << rows[i];
  EXPECT_EQ(memory.Row(2)[2], 0);
}

// --- random MatMul programs against a plain integer model --------------------

// docs/formats/tensil.md §5.2, spelled out: floor division, ties to even, saturation.
struct PlainFixed {
  int64_t min, max, one;

  explicit PlainFixed(DataType type) {
    const DataTypeInfo& info = InfoOf(type);
    min = -(int64_t{1} << (info.width - 1));
    max = (int64_t{1} << (info.width - 1)) - 1;
    one = int64_t{1} << info.fraction;
  }
  int64_t Mac(int64_t x, int64_t y, int64_t z) const {
    const int64_t m = x * y + z * one;
    int64_t q = m / one, r = m % one;
    if (r < 0) {
      q -= 1;
      r += one;
    }
    if (2 * r > one || (2 * r == one && q % 2 != 0)) q += 1;
    return std::clamp(q, min, max);
  }
};

// The processing unit's local memory, accumulators and weights (§5.3, §5.4),
// one push and one MAC at a time.
struct PlainUnit {
  PlainFixed fixed;
  uint64_t n;
  std::vector<std::vector<int64_t>> local, acc, weights;

  void LoadWeights(bool zeroes, uint64_t address, uint64_t stride, uint64_t size) {
    for (uint64_t i = size + 1; i-- > 0;) {
      weights.pop_back();
      weights.insert(weights.begin(),
                     zeroes ? std::vector<int64_t>(n, 0) : local[address + (i << stride)]);
    }
  }
  void MatMul(uint8_t flags, uint64_t a0, uint64_t s0, uint64_t a1, uint64_t s1, uint64_t size) {
    for (uint64_t i = 0; i <= size; ++i) {
      const std::vector<int64_t> x =
          (flags & kMatMulZeroes) ? std::vector<int64_t>(n, 0) : local[a0 + (i << s0)];
      std::vector<int64_t>& out = acc[a1 + (i << s1)];
      for (uint64_t k = 0; k < n; ++k) {
        int64_t y = weights[0][k];
        for (uint64_t j = 0; j < n; ++j) y = fixed.Mac(x[j], weights[j + 1][k], y);
        out[k] = (flags & kMatMulAccumulate) ? std::clamp(out[k] + y, fixed.min, fixed.max) : y;
      }
    }
  }
};

constexpr uint64_t kRows = 64;  // local and accumulator depth

// Rows of random values where zeros are common, whole zero rows included,
// so that both skips (zero inputs, zero weight rows) and the computed lanes
// are exercised; the extremes of the type drive the saturation.
std::vector<std::vector<int64_t>> RandomRows(const PlainFixed& fixed, uint64_t n,
                                             std::mt19937_64& random) {
  std::vector<std::vector<int64_t>> rows(kRows, std::vector<int64_t>(n, 0));
  for (auto& row : rows) {
    if (random() % 4 == 0) continue;
    for (int64_t& v : row) {
      switch (random() % 6) {
        case 0:
        case 1:
          v = 0;
          break;
        case 2:
          v = (random() % 2) ? fixed.min : fixed.max;
          break;
        case 3:
          v = static_cast<int64_t>(random() % (8 * fixed.one)) - 4 * fixed.one;
          break;
        default:
          v = fixed.min +
              static_cast<int64_t>(random() % static_cast<uint64_t>(fixed.max - fixed.min + 1));
      }
    }
  }
  return rows;
}

// Up to `size` + 1 rows from `address` by 2^stride within kRows.
struct Rows {
  uint64_t address, stride, size;
};
Rows RandomRowsWithin(uint64_t max_size, std::mt19937_64& random) {
  const uint64_t stride = random() % 4;
  const uint64_t size = random() % (std::min(max_size, (kRows - 1) >> stride) + 1);
  return {random() % (kRows - (size << stride)), stride, size};
}

RC_GTEST_PROP(TensilEmulator, MatMulAndLoadWeightsEqualThePlainIntegerModel, ()) {
  const DataType type = *rc::gen::element(DataType::kFp8bp4, DataType::kFp16bp8,
                                          DataType::kFp18bp10, DataType::kFp32bp16);
  // Small, odd and the shipped sizes, so that vector loops run with and
  // without remainders.
  const uint64_t n = *rc::gen::element<uint64_t>(2, 3, 4, 5, 7, 8, 9, 16, 17, 32, 33);
  std::mt19937_64 random(*rc::gen::arbitrary<uint64_t>());
  const Architecture arch{.data_type = type,
                          .array_size = n,
                          .dram0_depth = 2 * kRows,
                          .dram1_depth = 2,
                          .local_depth = kRows,
                          .accumulator_depth = kRows,
                          .stride0_depth = 4,
                          .stride1_depth = 4};
  const Layout layout = *LayoutOf(arch);
  PlainUnit plain{PlainFixed(type),
                  n,
                  RandomRows(PlainFixed(type), n, random),
                  {},
                  std::vector<std::vector<int64_t>>(n + 1, std::vector<int64_t>(n, 0))};
  plain.acc = plain.local;

  Machine machine(arch);
  for (uint64_t r = 0; r < kRows; ++r) {
    machine.WriteDram0(r, std::vector<Scalar>(plain.local[r].begin(), plain.local[r].end()));
  }
  std::vector<uint8_t> program =
      AssembleLines(arch, {"DataMove dram0->local local=0 dram0=0 size=63",
                           "DataMove local->acc local=0 acc=0 size=63"});
  const auto emit = [&](uint8_t opcode, uint8_t flags, uint64_t operand0, uint64_t operand1,
                        uint64_t operand2) {
    const Instruction in{operand0, operand1, operand2, static_cast<uint8_t>(opcode << 4 | flags)};
    Encode(in, layout, &program);
  };
  const int steps = *rc::gen::inRange(1, 12);
  for (int step = 0; step < steps; ++step) {
    if (random() % 2 == 0) {
      // Partial and full loads, and one row past N (RTL Validator: size <= N + 1).
      const Rows rows = RandomRowsWithin(n + 1, random);
      const bool zeroes = random() % 4 == 0;
      emit(kLoadWeights, zeroes ? kLoadWeightsZeroes : 0,
           PackOperand(rows.address, layout.op0_address_bits, rows.stride, layout.stride0_bits, 0),
           rows.size, 0);
      plain.LoadWeights(zeroes, rows.address, rows.stride, rows.size);
    } else {
      const Rows x = RandomRowsWithin(kRows, random);
      const uint64_t s1 = random() % 4;
      const uint64_t size = std::min(x.size, (kRows - 1) >> s1);
      const uint64_t a1 = random() % (kRows - (size << s1));
      const uint8_t flags = static_cast<uint8_t>(random() % 4);
      emit(kMatMul, flags,
           PackOperand(x.address, layout.op0_address_bits, x.stride, layout.stride0_bits, 0),
           PackOperand(a1, layout.op1_address_bits, s1, layout.stride1_bits, 0), size);
      plain.MatMul(flags, x.address, x.stride, a1, s1, size);
    }
  }
  const std::vector<uint8_t> read_back =
      AssembleLines(arch, {"DataMove acc->local local=0 acc=0 size=63",
                           "DataMove local->dram0 local=0 dram0=64 size=63"});
  program.insert(program.end(), read_back.begin(), read_back.end());
  machine.Run(program, layout);

  const std::vector<Scalar> out = machine.ReadDram0(kRows, kRows);
  for (uint64_t r = 0; r < kRows; ++r) {
    for (uint64_t k = 0; k < n; ++k) RC_ASSERT(out[r * n + k] == plain.acc[r][k]);
  }
}

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR) / "tensil"; }

#define SKIP_WITHOUT_CORPUS() \
  if (!fs::is_directory(CorpusDir())) GTEST_SKIP() << "Tensil corpus not found at " << CorpusDir()

std::vector<std::vector<float>> ReadCsv(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::vector<float>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<float> row;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');)
      row.push_back(std::strtof(field.c_str(), nullptr));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<Scalar> Encode(const Machine& machine, const std::vector<std::vector<float>>& rows,
                           size_t first, size_t count) {
  std::vector<Scalar> out;
  for (size_t r = first; r < first + count; ++r) {
    for (float v : rows[r]) out.push_back(machine.FromFloat(v));
  }
  return out;
}

// The CSV encoding of image 0 is the published cifar_1x32.tdata.
TEST(TensilEmulatorCorpus, FromFloatReproducesThePublishedEncoding) {
  SKIP_WITHOUT_CORPUS();
  const auto images = ReadCsv(CorpusDir() / "vectors/cifar_10x32.csv");
  std::string error;
  const auto tdata =
      ReadFileLimited((CorpusDir() / "vectors/cifar_1x32.tdata").string(), 1 << 20, &error);
  ASSERT_TRUE(tdata);
  Machine machine(Architecture{.array_size = 32});
  EXPECT_EQ(Encode(machine, images, 0, 1024), DecodeScalars(tdata->bytes(), DataType::kFp16bp8));
}

}  // namespace
}  // namespace accelcheck::tensil
