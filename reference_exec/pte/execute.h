// Running a method of a validated .pte (docs/formats/pte.md "Reference
// executor"): in separate memory, in planned memory, or in both side by side
// as an aliasing oracle that names the first instruction where they differ.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference_exec/pte/failure.h"
#include "reference_exec/pte/method.h"
#include "reference_exec/pte/program.h"
#include "reference_exec/run_control.h"

namespace accelcheck::pte::exec {

enum class Memory : uint8_t { kSeparate, kPlanned, kBoth };

// "separate", "planned", "both": the names the run command and golden cases use.
std::string_view MemoryName(Memory memory);
std::optional<Memory> ParseMemory(std::string_view name);

struct RunOptions {
  Memory memory = Memory::kBoth;
  Limits limits;
};

// Why a run stopped before its end.
struct Failure {
  Outcome outcome;
  const Rule* limit = nullptr;  // the core.limit.* rule, for kLimit
  std::string message;
  std::string mode;  // "separate" or "planned"
};

// A planned tensor whose bytes overlap the differing one's.
struct Overlap {
  uint32_t value;
  uint32_t memory_id;
  uint64_t offset, end;
  std::string written_by;  // the instruction that last wrote it, or ""
};

// The first place where planned memory gave other bytes than separate memory.
struct Difference {
  std::string instruction;  // "chain 0 instruction 2 (aten::mul.out)"
  bool after = false;       // the instruction wrote the value (else it was about to read it)
  uint32_t value = 0;
  uint32_t memory_id = 0;
  uint64_t offset = 0, end = 0;  // the value's planned bytes
  std::string written_by;        // the instruction that wrote the value in planned memory
  std::vector<Overlap> overlaps;
  std::string message;
};

struct RunResult {
  std::vector<HostValue> outputs;  // empty unless the run completed
  uint64_t instructions = 0;       // executed (per mode)
  bool out_of_time = false;
  std::optional<Failure> failure;
  std::optional<Difference> difference;  // kBoth only
};

// Runs `plan` on `inputs` (one per plan input, §3.5). Never throws: every
// way a run ends early is in the result.
RunResult Run(const LoadedProgram& program, const fb::ExecutionPlan& plan,
              const std::vector<HostTensor>& inputs, const RunOptions& options,
              const RunControl& control = {});

}  // namespace accelcheck::pte::exec
