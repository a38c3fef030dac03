// A small valid Tensil model (N = 2, 8-bit addresses, 1-bit strides) written
// to a temporary directory, for tests that change one thing and validate.
#pragma once

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/tensil/bundle.h"
#include "tests/support/describe.h"
#include "tests/support/temp.h"
#include "validators/core/format.h"
#include "validators/tensil/arch.h"
#include "validators/tensil/disasm.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck::tensil::fixture {

// The conformance suite's tiny valid bundle (conformance/tensil/bundle.cc):
// one dense layer with ReLU, x (DRAM0 0) -> y (DRAM0 1).
inline nlohmann::json TinyArch() { return conformance::TinyBundle().model["arch"]; }
inline std::vector<std::string> BaseProgram() { return conformance::TinyBundle().program; }

struct Case {
  nlohmann::json model = conformance::TinyBundle().model;
  std::vector<std::string> program = BaseProgram();
  std::vector<uint8_t> tdata = conformance::TinyBundle().tdata;
  // Raw program bytes appended after assembly (for encodings the syntax
  // expresses only as .bytes, and for truncation).
  std::vector<uint8_t> trailing;
  bool fix_prog_size = true;  // set prog.size to the program's length
  std::vector<std::string> companions;

  nlohmann::json& arch() { return model["arch"]; }
};

// A fresh directory inside the process's temporary directory.
inline std::filesystem::path TempDir() {
  static int counter = 0;
  const auto dir = test::ProcessTempPath("tensil_" + std::to_string(counter++));
  std::filesystem::create_directories(dir);
  return dir;
}

inline void WriteFile(const std::filesystem::path& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
}

inline std::vector<uint8_t> AssembleFor(const nlohmann::json& arch_json,
                                        const std::vector<std::string>& lines) {
  Architecture arch;
  arch.array_size = arch_json.value("array_size", 2);
  arch.local_depth = arch_json.value("local_depth", 256);
  arch.accumulator_depth = arch_json.value("accumulator_depth", 256);
  arch.dram0_depth = arch_json.value("dram0_depth", 256);
  arch.dram1_depth = arch_json.value("dram1_depth", 256);
  arch.stride0_depth = arch_json.value("stride0_depth", 2);
  arch.stride1_depth = arch_json.value("stride1_depth", 2);
  arch.simd_registers_depth = arch_json.value("simd_registers_depth", 1);
  arch.number_of_threads = std::min<uint64_t>(arch_json.value("number_of_threads", 1), 2);
  // An architecture without a layout (the case under test) gets the tiny one.
  const auto layout = LayoutOf(arch) ? LayoutOf(arch)
                                     : LayoutOf(Architecture{.array_size = 2,
                                                             .local_depth = 256,
                                                             .accumulator_depth = 256,
                                                             .stride0_depth = 2,
                                                             .stride1_depth = 2});
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  AssembleError error;
  const auto bytes = layout ? Assemble(text, *layout, &error) : std::nullopt;
  if (!bytes) throw std::runtime_error("line " + std::to_string(error.line) + ": " + error.message);
  return *bytes;
}

struct Result {
  DiagnosticSink sink;
};

inline Result ValidateCase(Case c, Profile profile = {}) {
  const auto dir = TempDir();
  std::vector<uint8_t> program = AssembleFor(c.arch(), c.program);
  program.insert(program.end(), c.trailing.begin(), c.trailing.end());
  if (c.fix_prog_size && c.model.contains("prog") && c.model["prog"].contains("size")) {
    c.model["prog"]["size"] = program.size();
  }
  WriteFile(dir / "tiny.tprog", std::string(program.begin(), program.end()));
  WriteFile(dir / "tiny.tdata", std::string(c.tdata.begin(), c.tdata.end()));
  const std::string text = c.model.dump();
  WriteFile(dir / "tiny.tmodel", text);
  Result result{DiagnosticSink(profile, "tiny.tmodel")};
  ValidateContext context;
  context.path = (dir / "tiny.tmodel").string();
  context.companions = c.companions;
  TensilFormat().Validate(InputBuffer::Copy(AsBytes(text)), context, result.sink);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return result;
}

using ::accelcheck::test::Describe;

}  // namespace accelcheck::tensil::fixture
