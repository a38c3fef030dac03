// libFuzzer target for Tensil programs (.tprog).
//
// The first kHeaderBytes bytes choose the architecture: one of a few built-in
// ones, with fields optionally taken from the bytes; the rest is the program.
// An all-zero header is the conformance suite's tiny architecture, so that
// the suite's programs, prefixed with zeros, are seeds (tensil_seeds.sh).
//
// Oracles besides the sanitizers: every diagnostic names a rule of the tables
// and none is internal; disassembly assembles back to the same bytes, for any
// program; and a program that validates runs on the emulator without a fault
// (instruction count capped, and small memories, to bound the time).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_oracles.h"
#include "reference_exec/tensil/emulator.h"
#include "validators/core/format.h"
#include "validators/tensil/arch.h"
#include "validators/tensil/disasm.h"
#include "validators/tensil/manifest.h"
#include "validators/tensil/tensil_format.h"
#include "validators/tensil/validate.h"

namespace {

using namespace accelcheck;
using namespace accelcheck::tensil;

constexpr size_t kHeaderBytes = 4;
constexpr uint64_t kMaxEmulatedInstructions = 64;

// Small enough that any valid instruction runs in well under a millisecond.
const Architecture kArchitectures[] = {
    // conformance/tensil/bundle.cc TinyBundle
    {.data_type = DataType::kFp16bp8,
     .array_size = 2,
     .dram0_depth = 256,
     .dram1_depth = 256,
     .local_depth = 256,
     .accumulator_depth = 256,
     .simd_registers_depth = 1,
     .stride0_depth = 2,
     .stride1_depth = 2,
     .number_of_threads = 1,
     .thread_queue_depth = 8},
    {.data_type = DataType::kFp8bp4,
     .array_size = 4,
     .dram0_depth = 1024,
     .dram1_depth = 64,
     .local_depth = 512,
     .accumulator_depth = 128,
     .simd_registers_depth = 4,
     .stride0_depth = 8,
     .stride1_depth = 4,
     .number_of_threads = 2,
     .thread_queue_depth = 4},
    {.data_type = DataType::kFp18bp10,
     .array_size = 8,
     .dram0_depth = 300,
     .dram1_depth = 5000,
     .local_depth = 1000,
     .accumulator_depth = 64,
     .simd_registers_depth = 2,
     .stride0_depth = 1,
     .stride1_depth = 16,
     .number_of_threads = 1,
     .thread_queue_depth = 8},
    {.data_type = DataType::kFp32bp16,
     .array_size = 3,
     .dram0_depth = 65536,
     .dram1_depth = 2,
     .local_depth = 64,
     .accumulator_depth = 1024,
     .simd_registers_depth = 16,
     .stride0_depth = 4,
     .stride1_depth = 2,
     .number_of_threads = 2,
     .thread_queue_depth = 16},
    {.data_type = DataType::kFloat32,
     .array_size = 2,
     .dram0_depth = 128,
     .dram1_depth = 128,
     .local_depth = 128,
     .accumulator_depth = 128,
     .simd_registers_depth = 3,
     .stride0_depth = 2,
     .stride1_depth = 8,
     .number_of_threads = 1,
     .thread_queue_depth = 8},
};
constexpr size_t kArchitectureCount = sizeof(kArchitectures) / sizeof(kArchitectures[0]);

// Header byte 0: bits 0..2 the built-in architecture, bit 3 takes
// array_size from byte 1, bit 4 the local and accumulator depths from byte 2,
// bit 5 the SIMD registers and stride depths from byte 3.
Architecture ArchitectureFrom(const uint8_t* header) {
  Architecture arch = kArchitectures[(header[0] & 7) % kArchitectureCount];
  if (header[0] & 0x08) arch.array_size = 2 + header[1] % 15;
  if (header[0] & 0x10) {
    arch.local_depth = 2 + (header[2] & 0xf) * 37;
    arch.accumulator_depth = 2 + (header[2] >> 4) * 29;
  }
  if (header[0] & 0x20) {
    arch.simd_registers_depth = header[3] % 17;
    arch.stride0_depth = 1 + (header[3] >> 5);
    arch.stride1_depth = 1 + ((header[3] >> 3) & 3) * 5;
  }
  return arch;
}

// The assembly form round-trips any bytes (validators/tensil/disasm.h).
void CheckRoundTrip(ByteView program, const Layout& layout) {
  const std::string text = Disassemble(program, layout);
  AssembleError error;
  const auto bytes = Assemble(text, layout, &error);
  if (!bytes || bytes->size() != program.size()) __builtin_trap();
  for (size_t i = 0; i < program.size(); ++i) {
    if ((*bytes)[i] != program[i]) __builtin_trap();
  }
}

// A model with no inputs or constants: the dataflow pass then reports reads
// of memory nothing wrote, which is what a fuzzed program mostly does.
Model BareModel(const Architecture& arch) {
  Model model;
  model.name = "fuzz";
  model.prog_file = "fuzz.tprog";
  model.arch = arch;
  return model;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeaderBytes) return 0;
  const Architecture arch = ArchitectureFrom(data);
  const auto layout = LayoutOf(arch);
  if (!layout) return 0;
  const size_t whole =
      (size - kHeaderBytes) / layout->instruction_bytes * layout->instruction_bytes;
  const ByteView program(data + kHeaderBytes, whole);
  CheckRoundTrip(program, *layout);

  DiagnosticSink sink(Profile{}, "fuzz-input");
  const Deadline unlimited(0);  // libFuzzer's -timeout bounds the time
  CheckInstructions(Program{program, ""}, arch, *layout, unlimited, sink);
  fuzz::CheckDiagnostics(tensil::TensilFormat(), sink);
  if (sink.blocking_count() != 0) return 0;
  CheckDataflow(Program{program, ""}, BareModel(arch), *layout, unlimited, sink);
  fuzz::CheckDiagnostics(tensil::TensilFormat(), sink);

  const size_t emulated =
      std::min<uint64_t>(whole / layout->instruction_bytes, kMaxEmulatedInstructions);
  Machine machine(arch);
  const RunStats stats =
      machine.Run(program.subspan(0, emulated * layout->instruction_bytes), *layout);
  if (stats.instructions != emulated) __builtin_trap();
  return 0;
}
