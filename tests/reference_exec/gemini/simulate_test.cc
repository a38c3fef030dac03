// The schedule simulator: hand-computed timing on the example, a deadlock
// with its cycle, and the real files (no deadlock, deterministic, bounds).
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "conformance/gemini/mutate.h"
#include "reference_exec/gemini/load.h"
#include "reference_exec/gemini/simulate.h"
#include "tests/validators/gemini/fixture.h"
#include "validators/gemini/decode.h"

namespace accelcheck::gemini {
namespace {

namespace fs = std::filesystem;
using testing::ExampleIr;
using testing::json;

using testing::Decode;

// Loads t0 (128 B) and t1 (832 B) share the 16 B/cycle channel: 0..8 and
// 8..60. The conv runs 60..160, the pool 160..210, and its 32 B store 210..212.
TEST(GeminiSimulate, ExampleTimingByHand) {
  const Ir ir = Decode(ExampleIr());
  const Simulation sim = Simulate(ir, SimulateOptions{16, 1});
  ASSERT_FALSE(sim.deadlock);
  ASSERT_EQ(sim.cores.size(), 1u);
  ASSERT_EQ(sim.cores[0].workloads.size(), 2u);
  EXPECT_EQ(sim.cores[0].workloads[0].start, 60u);
  EXPECT_EQ(sim.cores[0].workloads[0].end, 160u);
  EXPECT_EQ(sim.cores[0].workloads[1].start, 160u);
  EXPECT_EQ(sim.cores[0].workloads[1].end, 210u);
  EXPECT_EQ(sim.total_cycles, 212u);
  EXPECT_EQ(sim.dram_bytes, 128u + 832u + 32u);
  EXPECT_EQ(sim.cores[0].peak_l2, 832 + 128 + 128);
  // Half the bandwidth doubles the load time of the weight.
  const Simulation slow = Simulate(ir, SimulateOptions{8, 1});
  EXPECT_EQ(slow.cores[0].workloads[0].start, 120u);
}

TEST(GeminiSimulate, ReportsTheWaitForCycle) {
  json doc = ExampleIr();
  // The conv also waits for the pool's output: neither can start.
  doc["0"][0]["ifmap"][0]["transfer_id"] = json::array({0, 3});
  const Ir ir = Decode(doc);
  const Simulation sim = Simulate(ir, SimulateOptions{});
  ASSERT_TRUE(sim.deadlock);
  const std::vector<std::pair<int64_t, int64_t>> expected = {{0, 0}, {0, 1}};
  EXPECT_EQ(*sim.deadlock, expected);
  EXPECT_NE(SimulationJson(ir, sim, SimulateOptions{})["deadlock"], nullptr);
}

TEST(GeminiSimulate, StopsAtTheDeadline) {
  const Ir ir = Decode(ExampleIr());
  RunControl control{Deadline(1), nullptr};
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(Simulate(ir, SimulateOptions{}, control).out_of_time);
  uint64_t done = 0;
  control = {Deadline(0), [&](uint64_t d, uint64_t total) {
               done = d;
               EXPECT_EQ(total, 2u);
             }};
  const Simulation sim = Simulate(ir, SimulateOptions{}, control);
  EXPECT_FALSE(sim.out_of_time);
  EXPECT_EQ(done, 2u);
}

TEST(GeminiSimulate, BandwidthFromTheFileName) {
  EXPECT_EQ(BandwidthFromName("/x/int8_resnet50.onnx.sim_b4_c1_bw16_stschedule.json"), 16.0);
  EXPECT_EQ(BandwidthFromName("/x_bw8_/plain.json"), std::nullopt);
  EXPECT_EQ(BandwidthFromName("net_bw64_x.json"), 64.0);
}

TEST(GeminiSimulate, SvgNamesEveryCoreAndTheDram) {
  const Ir ir = Decode(ExampleIr());
  const std::string svg = SimulationSvg(ir, Simulate(ir, SimulateOptions{}));
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("core 0"), std::string::npos);
  EXPECT_NE(svg.find("DRAM"), std::string::npos);
  EXPECT_NE(svg.find("workload 1 Pool_1: 160..210"), std::string::npos);
}

// simulate --allow-invalid runs whatever decodes: every IR the conformance
// cases break is simulated and drawn without a crash, and a cycle, when the
// cores stop, names the core each stopped one is waiting at.
TEST(GeminiSimulate, EveryBrokenIrThatDecodesIsSimulatedAndDrawn) {
  const conformance::Provider& provider = GeminiConformance();
  size_t simulated = 0;
  for (const conformance::Base& base : provider.Bases()) {
    for (const conformance::MutationCase& c : provider.Cases()) {
      const auto mutated = c.apply(base, 0, "case");
      const auto* files = std::get_if<conformance::Mutated>(&mutated);
      if (files == nullptr) continue;
      SCOPED_TRACE(std::string(c.rule->id) + " on " + base.name);
      const std::vector<uint8_t>& bytes = files->files.front().bytes;
      DiagnosticSink sink(Profile{}, "case");
      Ir ir;
      if (!DecodeIr(ByteView(bytes.data(), bytes.size()), Limits{}, sink, &ir)) continue;
      const Simulation sim = Simulate(ir, SimulateOptions{});
      const std::string svg = SimulationSvg(ir, sim);
      EXPECT_EQ(svg.rfind("<svg", 0), 0u);
      EXPECT_EQ(svg.find("<g id=\"deadlock\">") != std::string::npos, sim.deadlock.has_value());
      ++simulated;
    }
  }
  EXPECT_GT(simulated, 20u);
}

// Every real schedule runs to the end; no core is busier than the makespan,
// each core runs its workloads back to back at the earliest, and the same
// input gives the same timeline.
TEST(GeminiSimulate, RealFilesRunToTheEnd) {
  const fs::path dir = fs::path(ACCELCHECK_CORPUS_DIR) / "gemini" / "scheduler_ir";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no Gemini corpus at " << dir;
  for (const auto& entry : fs::directory_iterator(dir)) {
    SCOPED_TRACE(entry.path().filename().string());
    DiagnosticSink sink(Profile{}, entry.path().string());
    const auto loaded = LoadValidIr(entry.path().string(), "", Limits{}, sink);
    ASSERT_TRUE(loaded);
    const Simulation sim = Simulate(loaded->ir, SimulateOptions{16, 1});
    EXPECT_FALSE(sim.deadlock);
    ASSERT_EQ(sim.cores.size(), 1u);
    const CoreTimeline& core = sim.cores[0];
    EXPECT_EQ(core.workloads.size(), loaded->ir.cores[0].workloads.size());
    EXPECT_LE(core.busy, sim.total_cycles);
    EXPECT_LE(core.peak_l2, loaded->ir.buffersize);
    for (size_t i = 1; i < core.workloads.size(); ++i)
      EXPECT_GE(core.workloads[i].start, core.workloads[i - 1].end);
    const Simulation again = Simulate(loaded->ir, SimulateOptions{16, 1});
    EXPECT_EQ(again.total_cycles, sim.total_cycles);
  }
}

}  // namespace
}  // namespace accelcheck::gemini
