// accelcheck golden end to end: a wrong expected output fails the case and
// names it and its first mismatch; case.json is checked strictly; --update
// rewrites regression pins only; a pin needs an independent sibling; cases
// on real files skip without the corpus; JUnit; the exit codes.
#include <fstream>
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/tools/tool_runner.h"
#include "validators/core/npy.h"

namespace accelcheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using testing::ReadWhole;
using testing::RunTool;
using testing::TempDir;

const fs::path kGolden = fs::path(ACCELCHECK_SOURCE_DIR) / "golden";

ordered_json CaseOf(const std::string& id) {
  return ordered_json::parse(ReadWhole(kGolden / id / "case.json"));
}

std::vector<uint8_t> Bytes(const std::string& text) { return {text.begin(), text.end()}; }

struct GoldenDir {
  explicit GoldenDir(const std::string& name = "golden_cli") : dir(name) {}
  TempDir dir;

  void Put(const std::string& id, const ordered_json& doc) const {
    dir.Write(id + "/case.json", Bytes(doc.dump(2)));
  }
  void PutText(const std::string& id, const std::string& text) const {
    dir.Write(id + "/case.json", Bytes(text));
  }
  testing::ToolRun Run(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"golden", dir.path().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunTool(args);
  }
};

TEST(GoldenCli, TheCommittedHandComputedCasesPass) {
  GoldenDir golden;
  golden.Put("tensil/dense_relu_raw", CaseOf("tensil/dense_relu_raw"));
  golden.Put("tensil/simd_arithmetic", CaseOf("tensil/simd_arithmetic"));
  const auto run = golden.Run();
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("PASS tensil/dense_relu_raw"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\n2 passed, 0 failed, 0 skipped\n"), std::string::npos) << run.out;
}

TEST(GoldenCli, AWrongExpectedOutputFailsAndNamesTheCaseAndTheFirstMismatch) {
  GoldenDir golden;
  ordered_json doc = CaseOf("tensil/simd_arithmetic");
  doc["expected"]["y"]["values"]["data"][5] = -32767;  // [2,1]: the saturated difference
  golden.Put("tensil/simd_arithmetic", doc);
  const std::string junit = (golden.dir.path() / "junit.xml").string();
  const auto run = golden.Run({"--junit", junit});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("FAIL tensil/simd_arithmetic: y: 1 of 10 elements differ (exact)"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("  [2,1]: expected -32767, actual -32768"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("0 passed, 1 failed, 0 skipped"), std::string::npos) << run.out;
  const std::string xml = ReadWhole(junit);
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"tensil/simd_arithmetic\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("[2,1]: expected -32767, actual -32768"), std::string::npos) << xml;
}

TEST(GoldenCli, AWrongPinnedNpyFails) {
  GoldenDir golden;
  golden.Put("gemini/generated_mixed_2x2", CaseOf("gemini/generated_mixed_2x2"));
  golden.Put("gemini/generated_mixed_2x2_pin", CaseOf("gemini/generated_mixed_2x2_pin"));
  std::string error;
  const std::string pinned = ReadWhole(kGolden / "gemini/generated_mixed_2x2_pin/workloads.npy");
  auto array = npy::Read(AsBytes(pinned), &error);
  ASSERT_TRUE(array) << error;
  std::vector<uint64_t> bits;
  for (uint64_t i = 0; i < array->count(); ++i) bits.push_back(array->Bits(i));
  bits[3] ^= 1;
  golden.dir.Write("gemini/generated_mixed_2x2_pin/workloads.npy",
                   npy::Write(npy::FromBits(array->dtype, array->shape, bits)));
  const auto run = golden.Run();
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("PASS gemini/generated_mixed_2x2:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("FAIL gemini/generated_mixed_2x2_pin: workloads: 1 of"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("  [3]: expected"), std::string::npos) << run.out;

  // --update rewrites the pin, and then it passes.
  const auto update = golden.Run({"--update"});
  EXPECT_EQ(update.exit_code, 0) << update.out;
  EXPECT_NE(update.out.find("PASS gemini/generated_mixed_2x2_pin: updated the pinned outputs"),
            std::string::npos)
      << update.out;
  EXPECT_NE(update.out.find("PASS gemini/generated_mixed_2x2: 1 outputs exact (not updated: the "
                            "source is other-mode"),
            std::string::npos)
      << update.out;
  EXPECT_EQ(ReadWhole(golden.dir.path() / "gemini/generated_mixed_2x2_pin/workloads.npy"), pinned);
  EXPECT_EQ(golden.Run().exit_code, 0);
}

TEST(GoldenCli, UpdateNeverRewritesAnIndependentCase) {
  GoldenDir golden;
  ordered_json doc = CaseOf("tensil/dense_relu_raw");
  doc["expected"]["y"] = "y.npy";
  golden.Put("tensil/dense_relu_raw", doc);
  const auto wrong = npy::Write({641, 0}, {1, 2}, npy::DType{npy::Kind::kSigned, 4, false});
  golden.dir.Write("tensil/dense_relu_raw/y.npy", wrong);
  const auto run = golden.Run({"--update"});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find("(not updated: the source is hand-computed; only regression-pin cases"),
            std::string::npos)
      << run.out;
  const std::string kept = ReadWhole(golden.dir.path() / "tensil/dense_relu_raw/y.npy");
  EXPECT_EQ(std::vector<uint8_t>(kept.begin(), kept.end()), wrong);
}

TEST(GoldenCli, CaseJsonIsCheckedStrictlyAndErrorsNameTheCase) {
  const ordered_json good = CaseOf("tensil/dense_relu_raw");
  const auto with = [&](const std::function<void(ordered_json&)>& change) {
    ordered_json doc = good;
    change(doc);
    return doc;
  };
  const std::vector<std::pair<ordered_json, std::string>> cases = {
      {with([](ordered_json& d) { d["tolerence"] = "exact"; }), "unknown key \"tolerence\""},
      {with([](ordered_json& d) { d["mode"] = 3; }), "mode is not a string"},
      {with([](ordered_json& d) { d["mode"] = "fast"; }), "is not one of this format's modes"},
      {with([](ordered_json& d) { d["source"] = "guess"; }), "source \"guess\" is not one of"},
      {with([](ordered_json& d) { d.erase("tolerance"); }), "tolerance is missing"},
      {with([](ordered_json& d) {
         d["tolerance"] = {{"rtol", -1}};
       }),
       "tolerance.rtol"},
      {with([](ordered_json& d) { d["model"]["arch"]["array_size"] = "2"; }), "arch.array_size"},
      {with([](ordered_json& d) { d["model"]["extra"] = 1; }), "unknown key \"extra\""},
      {with([](ordered_json& d) { d["expected"]["y"] = "../y.npy"; }), "expected.y"},
      {with([](ordered_json& d) { d["expected"]["y"]["values"]["data"] = {1}; }),
       "values.data has 1 elements but the shape needs 2"},
      {with([](ordered_json& d) {
         d["model"] = {{"corpus", "../etc/passwd"}};
       }),
       "leaves the corpus"},
      {with([](ordered_json& d) { d["reference_mode"] = "real"; }),
       "reference_mode belongs to other-mode cases only"},
      {with([](ordered_json& d) { d["source"] = "regression-pin"; }),
       "independent_sibling is missing"},
      {with([](ordered_json& d) { d["expected"] = ordered_json::object(); }),
       "expected names no output"},
      {ordered_json::array(), "case.json is not an object"},
  };
  for (const auto& [doc, message] : cases) {
    GoldenDir golden;
    golden.Put("tensil/broken_case", doc);
    const auto run = golden.Run();
    EXPECT_EQ(run.exit_code, 3) << message << "\n" << run.out << run.err;
    EXPECT_NE(run.out.find("ERROR tensil/broken_case: "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find(message), std::string::npos) << message << "\n" << run.out;
  }
  GoldenDir text("golden_cli_text");
  text.PutText("tensil/not_json", "{\"description\": ");
  EXPECT_NE(text.Run().out.find("ERROR tensil/not_json: "), std::string::npos);
  GoldenDir empty_dir("golden_cli_empty");
  empty_dir.dir.Write("tensil/no_case/readme.txt", {});
  EXPECT_NE(empty_dir.Run().out.find("ERROR tensil/no_case: "), std::string::npos);
}

// A NEFF recipe's arithmetic descriptor: exactly one of from and from_arr,
// a scale or constant of the right JSON type (golden/README.md "neff").
TEST(GoldenCli, NeffArithmeticRecipesAreCheckedStrictly) {
  const ordered_json good = CaseOf("neff/add_two_sources_float32");
  const auto with = [&](const std::function<void(ordered_json&)>& change) {
    ordered_json doc = good;
    change(doc["model"]["blocks"][0]["desc"][0]);
    return doc;
  };
  const std::vector<std::pair<ordered_json, std::string>> cases = {
      {with([](ordered_json& d) { d["from"] = d["from_arr"][0]; }),
       "exactly one of from and from_arr"},
      {with([](ordered_json& d) { d.erase("from_arr"); }), "exactly one of from and from_arr"},
      {with([](ordered_json& d) { d["from_arr"][1].erase("steps"); }),
       "from_arr needs var, off, sizes, steps and dtype"},
      {with([](ordered_json& d) { d["scale"] = "0.5"; }), "scale is not a number"},
      {with([](ordered_json& d) { d["constant_dtype"] = 32; }), "constant_dtype is not a string"},
  };
  for (const auto& [doc, message] : cases) {
    GoldenDir golden;
    golden.Put("neff/broken_recipe", doc);
    const auto run = golden.Run();
    EXPECT_EQ(run.exit_code, 3) << message << "\n" << run.out << run.err;
    EXPECT_NE(run.out.find(message), std::string::npos) << message << "\n" << run.out;
  }
  GoldenDir golden("golden_cli_neff");
  golden.Put("neff/add_two_sources_float32", good);
  EXPECT_EQ(golden.Run().exit_code, 0);
}

TEST(GoldenCli, APinNeedsAnIndependentSiblingOfTheSameOperator) {
  GoldenDir golden;
  ordered_json pin = CaseOf("tensil/dense_relu_raw");
  pin["source"] = "regression-pin";
  pin["independent_sibling"] = "nowhere";
  golden.Put("tensil/pin", pin);
  auto run = golden.Run();
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.out.find("ERROR tensil/pin: independent_sibling \"nowhere\" is not a valid case"),
            std::string::npos)
      << run.out;
  golden.Put("tensil/simd_arithmetic", CaseOf("tensil/simd_arithmetic"));
  pin["independent_sibling"] = "simd_arithmetic";
  golden.Put("tensil/pin", pin);
  run = golden.Run();
  EXPECT_NE(run.out.find("checks operator \"simd\", not \"matmul-relu\""), std::string::npos)
      << run.out;
}

TEST(GoldenCli, CasesOnRealFilesSkipWithoutTheCorpus) {
  GoldenDir golden;
  golden.Put("tensil/dense_relu_raw", CaseOf("tensil/dense_relu_raw"));
  golden.Put("tensil/xor_2x2_memory256", CaseOf("tensil/xor_2x2_memory256"));
  const std::string absent = (golden.dir.path() / "no_corpus").string();
  const auto run = golden.Run({"--corpus", absent});
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("SKIP tensil/xor_2x2_memory256: needs the corpus, not found at " + absent),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("1 passed, 0 failed, 1 skipped"), std::string::npos) << run.out;
  // Nothing ran: that is not a pass.
  fs::remove_all(golden.dir.path() / "tensil/dense_relu_raw");
  EXPECT_EQ(golden.Run({"--corpus", absent}).exit_code, 1);
}

// A case whose expected arrays a test script writes ({"reference": FILE})
// skips without them, reads them from --reference-dir/<format>/<case>/, and
// fails when they disagree with the executor.
TEST(GoldenCli, ReferenceArraysComeFromTheReferenceDirectory) {
  GoldenDir golden;
  ordered_json doc = CaseOf("pte/matmul_mm_addmm");
  doc["source"] = "numpy";
  doc["expected"] = {{"output_0", {{"reference", "output_0.npy"}}}};
  golden.Put("pte/matmul_reference", doc);
  const auto without = golden.Run();
  EXPECT_EQ(without.exit_code, 1) << without.out;  // nothing ran
  EXPECT_NE(without.out.find("SKIP pte/matmul_reference: needs the arrays of its independent "
                             "implementation: --reference-dir"),
            std::string::npos)
      << without.out;

  TempDir reference("golden_cli_reference");
  const std::string dir = reference.path().string();
  EXPECT_NE(golden.Run({"--reference-dir", dir}).out.find("not found at " + dir),
            std::string::npos);
  const auto write = [&](const std::vector<double>& values) {
    reference.Write("pte/matmul_reference/output_0.npy",
                    npy::Write(values, {2, 2}, {npy::Kind::kFloat, 4, false}));
  };
  write({4.5, -0.5, 9.5, -2});
  const auto pass = golden.Run({"--reference-dir", dir});
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  write({4.5, -0.5, 9.5, 2});
  const auto fail = golden.Run({"--reference-dir", dir});
  EXPECT_EQ(fail.exit_code, 1) << fail.out;
  EXPECT_NE(fail.out.find("  [1,1]: expected 2, actual -2"), std::string::npos) << fail.out;
  fs::remove(reference.path() / "pte/matmul_reference/output_0.npy");
  const auto missing = golden.Run({"--reference-dir", dir});
  EXPECT_EQ(missing.exit_code, 3) << missing.out;
  EXPECT_NE(missing.out.find("ERROR pte/matmul_reference: expected output_0: "), std::string::npos)
      << missing.out;
}

// The .pte runner: a recipe runs in each memory mode; a deliberately
// aliased plan gives other values in planned memory, and `both` has no
// verdict for it; a corpus model may name its method, and only the formats
// that read one accept keys beside "corpus".
TEST(GoldenCli, PteCasesRunTheirModesAndMethods) {
  GoldenDir golden;
  golden.Put("pte/aliased_plan_planned", CaseOf("pte/aliased_plan_planned"));
  ordered_json separate_values = CaseOf("pte/aliased_plan_planned");
  separate_values["mode"] = "separate";
  golden.Put("pte/aliased_plan_separate_values", separate_values);
  ordered_json both = CaseOf("pte/aliased_plan_planned");
  both["mode"] = "both";
  golden.Put("pte/aliased_plan_both", both);
  ordered_json no_share = CaseOf("pte/aliased_plan_planned");
  no_share["model"].erase("share_bytes");
  golden.Put("pte/plan_without_alias", no_share);
  const auto run = golden.Run();
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  EXPECT_NE(run.out.find("PASS pte/aliased_plan_planned"), std::string::npos) << run.out;
  // Separate memory computes the true values, not the aliased ones.
  EXPECT_NE(run.out.find("FAIL pte/aliased_plan_separate_values: output_0: 4 of 4 elements differ"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("ERROR pte/aliased_plan_both: mode both: the memory modes differ: "),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("FAIL pte/plan_without_alias: "), std::string::npos) << run.out;

  GoldenDir keys("golden_cli_keys");
  ordered_json method = CaseOf("pte/matmul_mm_addmm");
  method["model"]["method"] = "backward";
  keys.Put("pte/no_such_method", method);
  ordered_json tensil = CaseOf("tensil/xor_2x2_memory256");
  tensil["model"]["method"] = "forward";
  keys.Put("tensil/corpus_with_method", tensil);
  ordered_json share = CaseOf("pte/aliased_plan_planned");
  share["model"]["share_bytes"][0]["on"] = "alpha";
  keys.Put("pte/share_with_a_scalar", share);
  const auto errors = keys.Run();
  EXPECT_NE(errors.out.find("ERROR pte/no_such_method: mode both: the program has no method "
                            "\"backward\""),
            std::string::npos)
      << errors.out;
  EXPECT_NE(errors.out.find("ERROR tensil/corpus_with_method: "), std::string::npos) << errors.out;
  EXPECT_NE(errors.out.find("a corpus model has no other key"), std::string::npos) << errors.out;
  EXPECT_NE(errors.out.find("share_bytes: \"alpha\" is not a planned tensor"), std::string::npos)
      << errors.out;
}

TEST(GoldenCli, UsageAndUnreadableDirectories) {
  EXPECT_EQ(RunTool({"golden"}).exit_code, 2);
  EXPECT_EQ(RunTool({"golden", kGolden.string(), "--format", "nope"}).exit_code, 2);
  EXPECT_EQ(RunTool({"golden", kGolden.string(), "--bogus"}).exit_code, 2);
  EXPECT_EQ(RunTool({"golden", (kGolden / "no_such_dir").string()}).exit_code, 3);
  GoldenDir golden;
  golden.Put("notaformat/a", CaseOf("tensil/dense_relu_raw"));
  const auto run = golden.Run();
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.out.find("ERROR notaformat: \"notaformat\" is not a format id"), std::string::npos)
      << run.out;
}

}  // namespace
}  // namespace accelcheck
