// Inputs of every format that break rules, written into a test's directory,
// for the tests of what a run's options and reports make of findings.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/gemini/cases.h"
#include "conformance/tensil/bundle.h"
#include "tests/support/small_program.h"
#include "tests/tools/tool_runner.h"

namespace accelcheck::testing {

inline std::vector<uint8_t> TextBytes(const std::string& text) {
  return {text.begin(), text.end()};
}

// `accelcheck mutate INPUT --rule RULE -o OUT extra...`, expected to write OUT.
inline std::string Mutated(const std::string& input, const std::string& rule,
                           const std::string& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"mutate", input, "--rule", rule, "-o", out};
  args.insert(args.end(), extra.begin(), extra.end());
  const ToolRun run = RunTool(args);
  EXPECT_EQ(run.exit_code, 0) << rule << ": " << run.err;
  return out;
}

// A .pte with a value of no KernelTypes member (pte.value.type),
// written as `name` (which may name a subdirectory) from a valid program
// kept beside the directory's other files.
inline std::string BrokenProgram(const TempDir& dir, const std::string& name) {
  const std::string valid = dir.Write("source.pte.valid", test::SmallProgram());
  const std::filesystem::path out = dir.path() / name;
  std::filesystem::create_directories(out.parent_path());
  return Mutated(valid, "pte.value.type", out.string());
}

struct BrokenSchedule {
  std::string ir;  // breaks gemini.buffer.overlap
  std::string frontend;
};

inline BrokenSchedule BrokenGemini(const TempDir& dir) {
  const std::string ir = dir.Write("gemini/ir.json", TextBytes(gemini::CaseBaseIr()));
  const std::string frontend =
      dir.Write("gemini/ir.frontend.json", TextBytes(gemini::CaseBaseFrontend()));
  return {Mutated(ir, "gemini.buffer.overlap", (dir.path() / "gemini/bad.json").string(),
                  {"--frontend", frontend}),
          frontend};
}

// A Tensil model whose program (its .tprog, a member of the diagnostics)
// addresses past the local memory, with three errors in the manifest.
inline std::string BrokenTensil(const TempDir& dir) {
  tensil::conformance::Bundle bundle = tensil::conformance::TinyBundle();
  bundle.model["inputs"][0]["name"] = "";
  bundle.program.push_back("MatMul local=255 acc=2 size=3");
  std::filesystem::create_directories(dir.path() / "tensil");
  std::string error;
  const auto written = tensil::conformance::WriteBundle(bundle, dir.path() / "tensil", "m", &error);
  EXPECT_TRUE(written) << error;
  return written ? written->tmodel : "";
}

}  // namespace accelcheck::testing
