// The Edge TPU executor's parts against hand-computed bytes, the builder's
// bases, single-rule mutations and the real files: the linker (§6.1), the
// DMA-hint replay (§6.2) and the output re-layout with its inverse (§6.3,
// §6.4) of docs/formats/edgetpu.md.
#include <cstdint>
#include <random>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "conformance/edgetpu/bases.h"
#include "conformance/edgetpu/mutate.h"
#include "conformance/edgetpu/serialize.h"
#include "reference_exec/edgetpu/dma_replay.h"
#include "reference_exec/edgetpu/link.h"
#include "reference_exec/edgetpu/load.h"
#include "reference_exec/edgetpu/relayout.h"
#include "tests/conformance/edgetpu/package_facts.h"
#include "validators/core/limits.h"
#include "validators/core/text.h"
#include "validators/edgetpu/edgetpu_format.h"
#include "validators/edgetpu/rules.h"

namespace accelcheck::edgetpu {
namespace {

// Every package of `bytes` decoded, validated or not, handed to `check`.
void ForEachDecoded(const std::vector<uint8_t>& bytes,
                    const std::function<void(const PackageView&)>& check) {
  const InputBuffer input = InputBuffer::Copy(bytes);
  DiagnosticSink sink(Profile{}, "test");
  ForEachPackage(
      input.bytes(), ValidateContext{}, sink,
      [&](const PackageBytes& p) {
        return DecodePackage(p.bytes, p.file_offset, p.path, ValidateContext{}, sink);
      },
      [&](const EdgetpuOp*, const PackageView& view) { check(view); });
}

std::vector<uint8_t> Mutated(const std::vector<uint8_t>& valid, const Rule& rule) {
  auto mutated = MutateEdgetpu(valid, rule, 1);
  const auto* bytes = std::get_if<ByteMutation>(&mutated);
  EXPECT_NE(bytes, nullptr) << rule.id;
  return bytes == nullptr ? std::vector<uint8_t>{} : bytes->bytes;
}

uint32_t ReadBits(const std::vector<uint8_t>& chunk, uint64_t bit) {
  uint32_t value = 0;
  for (uint64_t i = 0; i < 32; ++i)
    value |= uint32_t((chunk[(bit + i) / 8] >> ((bit + i) % 8)) & 1u) << i;
  return value;
}

// §6.1's example, computed by hand.
TEST(EdgetpuLink, WriteBitsByHand) {
  for (const uint8_t fill : {uint8_t{0x00}, uint8_t{0xff}}) {
    std::vector<uint8_t> chunk(48, fill);
    WriteBits(chunk, 70, 0x12345678);
    WriteBits(chunk, 198, 0x0000000c);
    const std::vector<uint8_t> low = fill == 0 ? std::vector<uint8_t>{0x00, 0x9e, 0x15, 0x8d, 0x04}
                                               : std::vector<uint8_t>{0x3f, 0x9e, 0x15, 0x8d, 0xc4};
    const std::vector<uint8_t> high = fill == 0
                                          ? std::vector<uint8_t>{0x00, 0x03, 0x00, 0x00, 0x00}
                                          : std::vector<uint8_t>{0x3f, 0x03, 0x00, 0x00, 0xc0};
    EXPECT_EQ(std::vector<uint8_t>(chunk.begin() + 8, chunk.begin() + 13), low);
    EXPECT_EQ(std::vector<uint8_t>(chunk.begin() + 24, chunk.begin() + 29), high);
    for (size_t i = 0; i < chunk.size(); ++i) {
      if ((i >= 8 && i < 13) || (i >= 24 && i < 29)) continue;
      EXPECT_EQ(chunk[i], fill) << "byte " << i;
    }
  }
}

// Every patch of every base reads back as its half of its buffer's address,
// and every byte outside the windows keeps its value.
TEST(EdgetpuLink, BasesLinkEveryWindow) {
  for (const NamedBase& base : ExampleBases()) {
    ForEachDecoded(Serialize(base.file), [&](const PackageView& view) {
      for (const ExecutableView& exe : view.executables) {
        const Addresses addresses = DefaultAddresses(*exe.executable);
        LinkError error;
        const auto chunks = Link(*exe.executable, addresses, &error);
        ASSERT_TRUE(chunks) << base.name << ": " << error.message;
        const auto* streams = exe.executable->instruction_bitstreams();
        ASSERT_EQ(chunks->size(), streams->size());
        for (size_t c = 0; c < chunks->size(); ++c) {
          const auto& original = *streams->Get(static_cast<uint32_t>(c))->bitstream();
          const LinkedChunk& linked = (*chunks)[c];
          std::vector<bool> patched(linked.bytes.size() * 8, false);
          EXPECT_FALSE(linked.patches.empty()) << base.name;
          for (const AppliedPatch& p : linked.patches) {
            EXPECT_EQ(ReadBits(linked.bytes, p.bit),
                      p.upper ? uint32_t(p.address >> 32) : uint32_t(p.address));
            EXPECT_GE(p.address, 0x8'0000'0000u);
            for (uint64_t b = p.bit; b < p.bit + 32; ++b) patched[b] = true;
          }
          for (size_t bit = 0; bit < patched.size(); ++bit) {
            if (patched[bit]) continue;
            ASSERT_EQ((linked.bytes[bit / 8] >> (bit % 8)) & 1,
                      (original[bit / 8] >> (bit % 8)) & 1)
                << base.name << " chunk " << c << " bit " << bit;
          }
        }
      }
    });
  }
}

TEST(EdgetpuLink, AddressesAreSetByName) {
  const NamedBase base = ExampleBases()[0];  // standalone: input "input", output "conv1"
  ForEachDecoded(Serialize(base.file), [&](const PackageView& view) {
    Addresses addresses = DefaultAddresses(*view.executables[0].executable);
    EXPECT_EQ(SetAddress("input:input=0xC12345678", addresses), std::nullopt);
    EXPECT_EQ(addresses.inputs["input"][0], 0xC12345678u);
    EXPECT_EQ(SetAddress("output:conv1:0=4096", addresses), std::nullopt);
    EXPECT_EQ(addresses.outputs["conv1"][0], 4096u);
    EXPECT_EQ(SetAddress("parameters=0x10", addresses), std::nullopt);
    EXPECT_EQ(addresses.parameters, 0x10u);
    EXPECT_NE(SetAddress("input:nothing=1", addresses), std::nullopt);
    EXPECT_NE(SetAddress("input:input:1=1", addresses), std::nullopt);  // batch_size 1
    EXPECT_NE(SetAddress("scratch=0xZZ", addresses), std::nullopt);
    EXPECT_NE(SetAddress("weights=1", addresses), std::nullopt);
  });
}

// A window outside its chunk is refused with the validator's rule, before
// anything is written.
TEST(EdgetpuLink, RefusesAPatchOutsideItsChunk) {
  const std::vector<uint8_t> bytes = Mutated(Serialize(ExampleBases()[0].file), rules::kLinkBounds);
  bool linked_any = false;
  ForEachDecoded(bytes, [&](const PackageView& view) {
    for (const ExecutableView& exe : view.executables) {
      LinkError error;
      if (Link(*exe.executable, DefaultAddresses(*exe.executable), &error)) continue;
      linked_any = true;
      EXPECT_EQ(error.rule, "edgetpu.link.bounds");
      EXPECT_NE(error.message.find("does not lie inside"), std::string::npos) << error.message;
    }
  });
  EXPECT_TRUE(linked_any) << "the mutation left every window inside its chunk";
}

// The bases' hints move every byte as they should.
TEST(EdgetpuReplay, BasesAreComplete) {
  for (const NamedBase& base : ExampleBases()) {
    ForEachDecoded(Serialize(base.file), [&](const PackageView& view) {
      for (const ExecutableView& exe : view.executables) {
        const DmaReplay replay = ReplayHints(*exe.executable);
        EXPECT_TRUE(replay.findings.empty()) << base.name << ": " << replay.findings[0];
        for (uint32_t sends : replay.chunk_sends) EXPECT_GE(sends, 1u) << base.name;
        for (const BufferUse& use : replay.buffers) {
          EXPECT_TRUE(use.gaps.empty()) << base.name << " " << use.name;
          EXPECT_GE(use.moved, use.size) << base.name << " " << use.name;
        }
      }
    });
  }
}

// §6.2 for the standalone base by hand: chunk 0, the input's 256 bytes, the
// 640 bytes of parameters, the output's 576 bytes, interrupt 0.
TEST(EdgetpuReplay, StandaloneByHand) {
  ForEachDecoded(Serialize(ExampleBases()[0].file), [&](const PackageView& view) {
    const DmaReplay replay = ReplayHints(*view.executables[0].executable);
    const nlohmann::ordered_json json = ReplayJson(replay);
    std::vector<std::string> kinds;
    for (const auto& t : json["transfers"]) kinds.push_back(t["kind"]);
    EXPECT_EQ(kinds, (std::vector<std::string>{"instruction chunk", "input", "parameter", "output",
                                               "interrupt"}));
    EXPECT_EQ(json["transfers"][1]["end"], 8 * 8 * 4);
    EXPECT_EQ(json["transfers"][2]["end"], 640);
    EXPECT_EQ(json["transfers"][3]["end"], 6 * 6 * 16);
    EXPECT_EQ(json["fully_deterministic"], true);
    EXPECT_TRUE(json["findings"].empty());
  });
}

// Hints that leave output bytes unmoved are reported with the bytes.
TEST(EdgetpuReplay, ReportsGaps) {
  const std::vector<uint8_t> bytes =
      Mutated(Serialize(ExampleBases()[0].file), rules::kHintsCoverage);
  size_t findings = 0;
  ForEachDecoded(bytes, [&](const PackageView& view) {
    for (const ExecutableView& exe : view.executables)
      findings += ReplayHints(*exe.executable).findings.size();
  });
  EXPECT_GE(findings, 1u);
}

TEST(EdgetpuRelayout, SignFlipBothWays) {
  std::vector<uint8_t> int8 = {0x00, 0x7f, 0x80, 0xff};
  FlipSignBits(int8, 1);
  EXPECT_EQ(int8, (std::vector<uint8_t>{0x80, 0xff, 0x00, 0x7f}));
  std::vector<uint8_t> int16 = {0x34, 0x12, 0x00, 0x80};
  FlipSignBits(int16, 2);
  EXPECT_EQ(int16, (std::vector<uint8_t>{0x34, 0x92, 0x00, 0x00}));
}

// For every output layer: the inverse brings back every user tensor, the
// re-layout of the inverse's buffer gives it back, and the runtime's copy
// reads what the maps say.
void CheckRoundTrips(const std::string& what, const PackageView& view, std::mt19937& random) {
  const ExecutableView* main = MainExecutableOf(view);
  ASSERT_NE(main, nullptr) << what;
  for (const bool output : {false, true}) {
    const auto* layers =
        output ? main->executable->output_layers() : main->executable->input_layers();
    for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
      std::string error;
      const auto geometry = LayerGeometry::Of(*layers->Get(i), output, &error);
      ASSERT_TRUE(geometry) << what << ": " << error;
      std::vector<uint8_t> user(geometry->user_bytes());
      for (uint8_t& b : user) b = static_cast<uint8_t>(random());
      const std::vector<uint8_t> device = geometry->ToDevice(user);
      ASSERT_EQ(device.size(), geometry->device_bytes());
      EXPECT_EQ(geometry->ToUser(device, RelayoutMethod::kElementMap), user) << what;
      if (output) {
        EXPECT_EQ(geometry->ToUser(device, RelayoutMethod::kRuntimeCopy), user) << what;
      }
    }
  }
}

TEST(EdgetpuRelayout, BasesRoundTrip) {
  std::mt19937 random(7);
  for (const NamedBase& base : ExampleBases()) {
    ForEachDecoded(Serialize(base.file),
                   [&](const PackageView& view) { CheckRoundTrips(base.name, view, random); });
  }
}

TEST(EdgetpuRelayout, RealFilesRoundTrip) {
  const auto files = testutil::CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "no corpus at " << ACCELCHECK_CORPUS_DIR << "; skipped";
  std::mt19937 random(11);
  size_t packages = 0;
  for (const auto& path : files) {
    if (testutil::IsLegacy(path)) continue;
    ForEachDecoded(testutil::Slurp(path), [&](const PackageView& view) {
      ++packages;
      CheckRoundTrips(path.filename().string(), view, random);
    });
  }
  EXPECT_GE(packages, 14u);
}

// A map that sends two elements to one device element is refused.
TEST(EdgetpuRelayout, RefusesANonInjectiveMap) {
  const std::vector<uint8_t> bytes =
      Mutated(Serialize(ExampleBases()[2].file), rules::kLayoutInjective);
  bool refused = false;
  ForEachDecoded(bytes, [&](const PackageView& view) {
    const ExecutableView* main = MainExecutableOf(view);
    for (const dwn::Layer* layer : *main->executable->output_layers()) {
      std::string error;
      if (!LayerGeometry::Of(*layer, true, &error)) {
        refused = true;
        EXPECT_NE(error.find("injective"), std::string::npos) << error;
      }
    }
  });
  EXPECT_TRUE(refused);
}

// A one-byte input whose device buffer is INT32_MAX executions of INT32_MAX
// bytes (§6.3): the inverse would allocate about 2^62 bytes, so it is
// refused against the limit before anything is allocated; the tensor is
// converted at a limit of its size and refused one byte below it.
TEST(EdgetpuRelayout, ConversionsKeepToMaxTensorBytes) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto name = fbb.CreateString("tiny");
  dwn::LayerBuilder layer(fbb);
  layer.add_name(name);
  layer.add_size_bytes(INT32_MAX);
  layer.add_y_dim(1);
  layer.add_x_dim(1);
  layer.add_z_dim(1);
  layer.add_data_type(dwn::DataType::FIXED_POINT8);
  layer.add_execution_count_per_inference(INT32_MAX);
  fbb.Finish(layer.Finish());
  std::string error;
  const auto geometry =
      LayerGeometry::Of(*flatbuffers::GetRoot<dwn::Layer>(fbb.GetBufferPointer()), false, &error);
  ASSERT_TRUE(geometry) << error;
  const uint64_t device = uint64_t{INT32_MAX} * INT32_MAX;
  const auto refused = ConversionOverLimit(*geometry, true, Limits{}.max_tensor_bytes);
  ASSERT_TRUE(refused);
  EXPECT_EQ(*refused, Str("the device buffer would hold ", device,
                          " bytes, more than --max-tensor-bytes 268435456"));
  EXPECT_FALSE(ConversionOverLimit(*geometry, true, device));
  EXPECT_FALSE(ConversionOverLimit(*geometry, false, INT32_MAX));
  EXPECT_EQ(ConversionOverLimit(*geometry, false, INT32_MAX - 1),
            Str("the tensor would hold ", INT32_MAX, " bytes, more than --max-tensor-bytes ",
                INT32_MAX - 1));
}

// Random tensors of random layers: the inverse is exact.
RC_GTEST_PROP(EdgetpuRelayout, RoundTripsRandomTensors, (uint32_t seed)) {
  std::mt19937 random(seed);
  const NamedBase base = ExampleBases()[random() % ExampleBases().size()];
  ForEachDecoded(Serialize(base.file), [&](const PackageView& view) {
    const ExecutableView* main = MainExecutableOf(view);
    for (const dwn::Layer* layer : *main->executable->output_layers()) {
      std::string error;
      const auto geometry = LayerGeometry::Of(*layer, true, &error);
      RC_ASSERT(geometry.has_value());
      std::vector<uint8_t> user(geometry->user_bytes());
      for (uint8_t& b : user) b = static_cast<uint8_t>(random());
      RC_ASSERT(geometry->ToUser(geometry->ToDevice(user), RelayoutMethod::kElementMap) == user);
    }
  });
}

}  // namespace
}  // namespace accelcheck::edgetpu
