#include "conformance/neff/bases.h"

namespace accelcheck::neff::conformance {
namespace {

// An n x n identity matrix of int8, like the real constants (§2.14).
std::vector<uint8_t> Int8Identity(uint64_t n) {
  std::vector<uint8_t> data(n * n, 0);
  for (uint64_t i = 0; i < n; ++i) data[i * n + i] = 1;
  return data;
}

}  // namespace

Spec StreamSpec() {
  Spec spec = Trn1Spec();
  spec.name = "stream.neff";
  spec.inputs = {{"a_vec", "float32", {1024}}, {"b_vec", "float32", {1024}}};
  spec.outputs = {{"out", "float32", {1024}}};
  spec.queues = {{"qSPIO0", Engine::kSp, "in"}, {"qPoolIO0", Engine::kPool, "in"}};
  // Each half: 64 rows of 8 float32, one row per partition.
  constexpr uint64_t kRows = 64, kElements = 8, kHalf = kRows * kElements * 4;
  const auto load = [&](const char* input, uint64_t half, uint64_t byte) {
    return Block{"qSPIO0",
                 {MoveRows(input, half * kHalf, "float32", "SB", SbAddress(half * kRows, byte),
                           "float32", kRows, kElements)}};
  };
  const auto store = [&](uint64_t half) {
    return Block{"qPoolIO0",
                 {MoveRows("SB", SbAddress(half * kRows, 128), "float32", "out", half * kHalf,
                           "float32", kRows, kElements)}};
  };
  spec.blocks = {load("a_vec", 0, 0),
                 load("b_vec", 0, 64),
                 load("a_vec", 1, 0),
                 load("b_vec", 1, 64),
                 store(0),
                 store(1)};
  return spec;
}

Spec Lnc2Spec() {
  Spec spec = Trn2Spec();
  spec.name = "lnc2.neff";
  spec.dialect = Dialect::kGnu;
  spec.hash_order = HashOrder::kPlain;
  spec.directory_entries = true;
  constexpr uint64_t n = 16;  // 16 x 16 tiles, a row per partition
  spec.inputs = {{"X", "float16", {n, n}}, {"W", "float16", {n, n}}};
  spec.outputs = {{"Y", "float16", {n, n}}};
  spec.constants = {{"ident", "int8", {n, n, 1, 1}, Int8Identity(n)}};
  spec.virtuals = {{"spill", 2 * n * n * 2, 0}};
  spec.queues = {{"qSPIO0", Engine::kSp, "in"},
                 {"qSPSpillReload0", Engine::kSp, "data"},
                 {"qPoolSpillReload0", Engine::kPool, "data"},
                 {"qActSpillReload0", Engine::kAct, "data"},
                 {"qPoolIO0", Engine::kPool, "in"}};
  spec.activation_sets = {"exp_and_others"};
  const auto sb = [](uint64_t byte) { return SbAddress(0, byte); };
  spec.blocks = {
      {"qSPIO0", {MoveRows("X", 0, "float16", "SB", sb(0), "float16", n, n)}},
      {"qSPIO0", {MoveRows("ident", 0, "int8", "SB", sb(32), "float16", n, n)}},
      {"qSPIO0", {MoveRows("W", 0, "float16", "SB", sb(64), "float16", n, n)}},
      {"qPoolSpillReload0", {MoveRows("SB", sb(96), "float16", "spill", 0, "float16", n, n)}},
      {"qSPSpillReload0", {MoveRows("spill", 0, "float16", "SB", sb(128), "float16", n, n)}},
      {"qSPSpillReload0", {TransposeToSb("spill", 0, sb(160), n, "float16")}},
      {"qActSpillReload0",
       {MoveRows("SB", sb(192), "float16", "spill", n * n * 2, "float16", n, n)}},
      {"qPoolIO0", {MoveRows("SB", sb(256), "float32", "Y", 0, "float16", n, n)}},
  };
  return spec;
}

Spec PlainSpec() {
  Spec spec = Trn1Spec();
  spec.name = "plain.neff";
  spec.compression = Compression::kNone;
  spec.inputs = {{"x", "float32", {256}}};
  spec.outputs = {{"y", "float32", {256}}};
  spec.queues = {{"qSPIO0", Engine::kSp, "in"}, {"qPoolIO0", Engine::kPool, "in"}};
  constexpr uint64_t kRows = 32, kElements = 8, kHalfRows = kRows / 2;
  spec.blocks = {
      {"qSPIO0", {MoveRows("x", 0, "float32", "SB", SbAddress(0, 0), "float32", kRows, kElements)}},
      {"qPoolIO0",
       {MoveRows("SB", SbAddress(0, 0), "float32", "y", 0, "float32", kHalfRows, kElements),
        MoveRows("SB", SbAddress(kHalfRows, 0), "float32", "y", kHalfRows * kElements * 4,
                 "float32", kHalfRows, kElements)}},
  };
  return spec;
}

Spec WriteupSpec() {
  Spec spec = Trn1Spec();
  spec.name = "writeup.neff";
  spec.dialect = Dialect::kGnu;
  spec.directory_entries = true;
  spec.hash_order = HashOrder::kPlain;
  spec.writeup_names = true;
  spec.inputs = {{"x", "float16", {64}}};
  spec.outputs = {{"y", "float16", {64}}};
  spec.queues = {{"qSPIO0", Engine::kSp, "in"}, {"qPoolIO0", Engine::kPool, "in"}};
  constexpr uint64_t kRows = 8, kElements = 8;
  Descriptor load = MoveRows("x", 0, "float16", "SB", SbAddress(4, 0), "float16", kRows, kElements);
  Descriptor store =
      MoveRows("SB", SbAddress(4, 0), "float16", "y", 0, "float16", kRows, kElements);
  // Two real descriptors leave num_tiling_dimensions out (§6).
  load.num_tiling_dimensions.reset();
  store.num_tiling_dimensions.reset();
  spec.blocks = {{"qSPIO0", {load}}, {"qPoolIO0", {store}}};
  return spec;
}

Spec PaxSpec() {
  Spec spec = StreamSpec();
  spec.name = "pax.neff";
  spec.dialect = Dialect::kPax;
  spec.stamp = {.mtime = 1733202382, .owner = ""};
  spec.hash_order = HashOrder::kPlain;
  return spec;
}

std::vector<NamedBase> Bases() {
  std::vector<NamedBase> bases;
  for (auto [name, spec] : {std::pair{"stream", StreamSpec()},
                            {"lnc2", Lnc2Spec()},
                            {"plain", PlainSpec()},
                            {"writeup", WriteupSpec()},
                            {"pax", PaxSpec()}}) {
    Neff neff = Build(spec);
    bases.push_back({name, std::move(spec), std::move(neff)});
  }
  return bases;
}

}  // namespace accelcheck::neff::conformance
