// accelcheck run and validate on Edge TPU files, end to end: linking with
// default and given addresses, the DMA-hint replay, re-layout and its
// inverse written as .npy, the refusals; the target runtime and the note on
// cache tokens shared by files validated together.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/edgetpu/bases.h"
#include "conformance/edgetpu/serialize.h"
#include "tests/tools/tool_runner.h"
#include "validators/core/npy.h"

namespace accelcheck::edgetpu {
namespace {

using nlohmann::json;
using testing::RunTool;
using testing::TempDir;

std::vector<uint8_t> Base(const std::string& name) {
  for (const NamedBase& base : ExampleBases()) {
    if (base.name == name) return Serialize(base.file);
  }
  ADD_FAILURE() << "no base " << name;
  return {};
}

npy::Array ArrayAt(const std::string& path) {
  const std::string bytes = testing::ReadWhole(path);
  std::string error;
  const auto array =
      npy::Read(ByteView(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), &error);
  EXPECT_TRUE(array) << path << ": " << error;
  return array.value_or(npy::Array{});
}

TEST(EdgetpuRunCli, LinksWithDefaultAndGivenAddresses) {
  const TempDir dir("edgetpu_run_link");
  const std::string model = dir.Write("m_edgetpu.tflite", Base("standalone"));
  const auto run = RunTool({"run", model, "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json out = json::parse(run.out);
  EXPECT_EQ(out["mode"], "link");
  const json& exe = out["packages"][0]["executables"][0];
  EXPECT_EQ(exe["executable"], "stand_alone");
  bool input_seen = false;
  for (const json& patch : exe["chunks"][0]["patches"]) {
    if (patch.value("name", "") != "input") continue;
    input_seen = true;
    EXPECT_EQ(patch["desc"], "BASE_ADDRESS_INPUT_ACTIVATION");
  }
  EXPECT_TRUE(input_seen) << run.out;

  const std::string linked = (dir.path() / "linked").string();
  const auto given =
      RunTool({"run", model, "--address", "input:input=0xC12345678", "--output-dir", linked, "-q"});
  ASSERT_EQ(given.exit_code, 0) << given.err;
  const json patches = json::parse(given.out)["packages"][0]["executables"][0]["chunks"][0];
  for (const json& patch : patches["patches"]) {
    if (patch.value("name", "") != "input") continue;
    EXPECT_EQ(patch["address"], "0xc12345678");
    EXPECT_EQ(patch["value"], patch["position"] == "UPPER_32BIT" ? "0xc" : "0x12345678");
  }
  EXPECT_EQ(testing::ReadWhole(patches["file"].get<std::string>()).size(), patches["bytes"]);

  EXPECT_EQ(RunTool({"run", model, "--mode", "dma", "--address", "scratch=0", "-q"}).exit_code, 2);
  const auto bad = RunTool({"run", model, "--address", "input:nothing=1", "-q"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("no input \"nothing\""), std::string::npos) << bad.err;
}

TEST(EdgetpuRunCli, ReplaysTheHints) {
  const TempDir dir("edgetpu_run_dma");
  const std::string model = dir.Write("m_edgetpu.tflite", Base("scratch_fences"));
  const auto run = RunTool({"run", model, "--mode", "dma", "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json out = json::parse(run.out);
  for (const json& exe : out["packages"][0]["executables"]) {
    EXPECT_TRUE(exe["findings"].empty()) << exe.dump();
    EXPECT_FALSE(exe["transfers"].empty());
  }
}

TEST(EdgetpuRunCli, RelayoutAndInverse) {
  const TempDir dir("edgetpu_run_relayout");
  const std::string model = dir.Write("m_edgetpu.tflite", Base("tiled_layout"));
  // The schema's example (docs/formats/edgetpu.md §6.3): device element k
  // holds k, so the tensor holds index(y, x, z).
  std::vector<double> elements(640);
  for (size_t k = 0; k < elements.size(); ++k) elements[k] = double(k);
  const std::string device =
      dir.Write("device.npy", npy::Write(elements, {640}, {npy::Kind::kUnsigned, 2, false}));
  const std::string out = (dir.path() / "out").string();
  const auto run = RunTool({"run", model, "--mode", "relayout", "--input", "features=" + device,
                            "--output-dir", out, "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const npy::Array tensor = ArrayAt(out + "/features.npy");
  EXPECT_EQ(tensor.shape, (std::vector<uint64_t>{4, 5, 32}));
  EXPECT_EQ(tensor.dtype.Name(), "uint16");
  EXPECT_EQ(tensor.values[(0 * 5 + 3) * 32 + 0], 192);
  EXPECT_EQ(tensor.values[(1 * 5 + 4) * 32 + 5], 293);
  EXPECT_EQ(tensor.values[(2 * 5 + 4) * 32 + 0], 544);

  const auto runtime =
      RunTool({"run", model, "--mode", "relayout", "--method", "runtime", "--input",
               "features=" + device, "--output-dir", out + "/runtime", "-q"});
  ASSERT_EQ(runtime.exit_code, 0) << runtime.err;
  EXPECT_EQ(ArrayAt(out + "/runtime/features.npy").values, tensor.values);

  const auto back =
      RunTool({"run", model, "--mode", "inverse", "--input", "features=" + out + "/features.npy",
               "--output-dir", out + "/back", "-q"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  const npy::Array bytes = ArrayAt(out + "/back/features.npy");
  EXPECT_EQ(bytes.data, ArrayAt(device).data);

  const auto unknown = RunTool({"run", model, "--mode", "relayout", "--input", "nothing=" + device,
                                "--output-dir", out, "-q"});
  EXPECT_EQ(unknown.exit_code, 2);
  const auto wrong_size = RunTool({"run", model, "--mode", "relayout", "--input",
                                   "logits=" + device, "--output-dir", out, "-q"});
  EXPECT_EQ(wrong_size.exit_code, 2) << wrong_size.err;
  EXPECT_NE(wrong_size.err.find("holds 1280 bytes"), std::string::npos) << wrong_size.err;
  const auto no_dir = RunTool({"run", model, "--mode", "inverse", "-q"});
  EXPECT_EQ(no_dir.exit_code, 2);
}

// The tensor and the device buffer of tiled_layout's output are both 1280
// bytes: each conversion runs at --max-tensor-bytes 1280 and is refused as
// a limit (exit 3) one byte below, before anything is written.
TEST(EdgetpuRunCli, ConversionsKeepToMaxTensorBytes) {
  const TempDir dir("edgetpu_run_limit");
  const std::string model = dir.Write("m_edgetpu.tflite", Base("tiled_layout"));
  const std::string device = dir.Write("device.bin", std::vector<uint8_t>(1280, 7));
  const std::string out = (dir.path() / "out").string();
  const auto relayout = [&](const std::string& limit) {
    return RunTool({"run", model, "--mode", "relayout", "--input", "features=" + device,
                    "--output-dir", out, "--max-tensor-bytes", limit, "-q"});
  };
  ASSERT_EQ(relayout("1280").exit_code, 0);
  const std::string tensor = out + "/features.npy";
  const auto inverse = [&](const std::string& limit) {
    return RunTool({"run", model, "--mode", "inverse", "--input", "features=" + tensor,
                    "--output-dir", out + "/back", "--max-tensor-bytes", limit, "-q"});
  };
  EXPECT_EQ(inverse("1280").exit_code, 0);

  std::filesystem::remove_all(out + "/back");
  const auto refused_inverse = inverse("1279");
  EXPECT_EQ(refused_inverse.exit_code, 3);
  EXPECT_NE(refused_inverse.err.find("layer \"features\": the device buffer would hold 1280 "
                                     "bytes, more than --max-tensor-bytes 1279"),
            std::string::npos)
      << refused_inverse.err;
  EXPECT_FALSE(std::filesystem::exists(out + "/back/features.npy"));
  const auto refused_relayout = relayout("1279");
  EXPECT_EQ(refused_relayout.exit_code, 3);
  EXPECT_NE(refused_relayout.err.find("the tensor would hold 1280 bytes"), std::string::npos)
      << refused_relayout.err;
}

TEST(EdgetpuRunCli, RefusesAnInvalidModel) {
  const TempDir dir("edgetpu_run_invalid");
  std::vector<uint8_t> bytes = Base("standalone");
  bytes.resize(bytes.size() / 2);
  const std::string model = dir.Write("m_edgetpu.tflite", bytes);
  const auto run = RunTool({"run", model, "-q"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("does not validate; nothing run"), std::string::npos) << run.err;
}

// min_runtime_version 14 (the pair bases) against an older target.
TEST(EdgetpuValidateCli, TargetRuntime) {
  const TempDir dir("edgetpu_target");
  const std::string model = dir.Write("m_edgetpu.tflite", Base("cached_1d"));
  EXPECT_EQ(RunTool({"validate", model, "-q"}).exit_code, 0);
  const auto old = RunTool({"validate", model, "--edgetpu-runtime", "13"});
  EXPECT_EQ(old.exit_code, 1);
  EXPECT_NE(old.out.find("edgetpu.package.runtime_too_new"), std::string::npos) << old.out;
  EXPECT_NE(old.out.find("recompile with edgetpu_compiler -m 13"), std::string::npos) << old.out;
  EXPECT_EQ(RunTool({"validate", model, "--edgetpu-runtime", "14", "-q"}).exit_code, 0);
  EXPECT_EQ(RunTool({"validate", model, "--edgetpu-runtime", "15", "-q"}).exit_code, 0);
  const auto bad = RunTool({"validate", model, "--edgetpu-runtime", "9"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--edgetpu-runtime: expected a number from 10"), std::string::npos)
      << bad.err;
}

// Two files with one token get a note each; a file alone, or with a file of
// another token, gets none.
TEST(EdgetpuValidateCli, SharedCacheTokens) {
  const TempDir dir("edgetpu_tokens");
  const std::string a = dir.Write("a_edgetpu.tflite", Base("cached_1d"));
  const std::string b = dir.Write("b_edgetpu.tflite", Base("cached_1d"));
  const std::string c = dir.Write("c_edgetpu.tflite", Base("tiled_layout"));
  const auto shared = RunTool({"validate", a, b, c, "--output", "json"});
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  const json report = json::parse(shared.out);
  std::map<std::string, int> notes;
  for (const json& file : report["files"]) {
    for (const json& d : file["diagnostics"]) {
      if (d["rule"] != "core.inputs.shared_value") continue;
      ++notes[file["path"]];
      EXPECT_EQ(d["severity"], "note");
      EXPECT_EQ(d["path"].get<std::string>().find("parameter_caching_token") != std::string::npos,
                true);
    }
  }
  EXPECT_EQ(notes[a], 1) << shared.out;
  EXPECT_EQ(notes[b], 1) << shared.out;
  EXPECT_EQ(notes.count(c), 0u) << shared.out;
  const auto alone = RunTool({"validate", a, c, "--output", "json"});
  EXPECT_EQ(alone.out.find("core.inputs.shared_value"), std::string::npos) << alone.out;
  const auto disabled = RunTool({"validate", a, b, "--disable", "core.inputs.shared_value"});
  EXPECT_EQ(disabled.out.find("shared_value"), std::string::npos) << disabled.out;
}

}  // namespace
}  // namespace accelcheck::edgetpu
