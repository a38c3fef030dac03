// One execution of a plan (docs/formats/pte.md §3.3-§3.5): its values and
// tensors, the memory their bytes live in, and the interpreter that runs its
// chains one instruction at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "reference_exec/pte/program.h"
#include "reference_exec/pte/tensor.h"

namespace accelcheck::pte::exec {

// Where tensors get their bytes.
enum class MemoryMode : uint8_t {
  kSeparate,  // every tensor its own buffer: aliasing in the plan cannot show
  kPlanned,   // planned tensors at memory_id/offset inside one arena per buffer
};
const char* MemoryModeName(MemoryMode mode);

// An instruction of the plan: chain and index within it.
struct Position {
  uint32_t chain = 0;
  uint32_t instruction = 0;
  bool operator==(const Position&) const = default;
};

class Method {
 public:
  // Builds the values and allocates the tensors; throws RunFailure (limit,
  // unsupported) when the memory cannot be had.
  Method(const LoadedProgram& program, const fb::ExecutionPlan& plan, MemoryMode mode,
         const Limits& limits);
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;

  size_t input_count() const;
  size_t output_count() const;
  // The type and, for a tensor, dtype and shape an input takes (for messages).
  std::string DescribeInput(size_t i) const;
  // Sets input i (§3.5): the dtype must match; a STATIC tensor takes exactly its
  // shape, a DYNAMIC_BOUND one any shape of its rank within its numel. A
  // scalar input takes a 0-d array equal to the traced value. Throws RunFailure.
  void SetInput(size_t i, const HostTensor& input);

  bool done() const;
  // Runs the next instruction; throws RunFailure.
  void Step();
  uint64_t executed() const { return executed_; }
  uint64_t instruction_total() const { return total_instructions_; }
  Position position() const { return pc_; }
  // "chain 0 instruction 3 (aten::add.out)"
  std::string Describe(Position at) const;

  HostValue Output(size_t i) const;

  // For the aliasing oracle: the tensors an instruction names (its
  // arguments, or a JumpFalse condition), their bytes now, and where the
  // last kernel that wrote each one ran.
  std::vector<uint32_t> TensorValuesOf(Position at) const;
  // The tensors an instruction writes: a KernelCall's return value, or the
  // tensors of its TensorList (§7).
  std::vector<uint32_t> WrittenTensorValuesOf(Position at) const;
  const Tensor* TensorOf(uint32_t value) const;
  std::span<const uint8_t> BytesOf(uint32_t value) const;
  const std::vector<Tensor>& tensors() const { return tensors_; }
  struct Write {
    bool written = false;
    Position at;
  };
  const Write& LastWrite(uint32_t tensor) const { return writes_[tensor]; }
  // Whether value's bytes hold something yet: an input, initial data, or a
  // kernel's result (not freed since). Other bytes are garbage by design.
  bool Defined(uint32_t value) const;

 private:
  struct Buffer {
    std::unique_ptr<uint8_t, void (*)(void*)> bytes{nullptr, nullptr};
    uint64_t size = 0;
  };
  void BuildValues();
  void Allocate();
  uint8_t* NewBuffer(uint64_t size, uint64_t* budget, uint64_t limit, const Rule& rule,
                     const char* flag, const std::string& what);
  void LoadInitialData(Tensor& t, const fb::Tensor& serialized);
  const fb::Instruction* InstructionAt(Position at) const;
  std::string OperatorName(int32_t op_index) const;
  void RunKernel(const fb::KernelCall& call);
  void RunJumpFalse(const fb::JumpFalseCall& call);
  void Advance();
  void SkipFinishedChains();

  const LoadedProgram& program_;
  const fb::ExecutionPlan& plan_;
  MemoryMode mode_;
  Limits limits_;
  std::vector<Value> values_;
  std::vector<Tensor> tensors_;
  std::vector<Write> writes_;
  std::vector<bool> defined_;  // by tensor
  std::vector<Buffer> buffers_;
  std::vector<uint8_t*> arenas_;  // by memory_id (0 unused)
  uint64_t tensor_bytes_ = 0;
  uint64_t arena_bytes_ = 0;
  Position pc_;
  uint64_t executed_ = 0;
  uint64_t total_instructions_ = 0;
};

}  // namespace accelcheck::pte::exec
