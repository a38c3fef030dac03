// The state the .pte validation passes share, and the passes themselves.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "validators/core/flatbuffer.h"
#include "validators/core/format.h"
#include "validators/core/sink.h"
#include "validators/pte/decode_header.h"
#include "validators/pte/rules.h"
#include "validators/pte/schema/flat_tensor_generated.h"
#include "validators/pte/schema/program_generated.h"

namespace accelcheck::pte {

namespace fb = executorch_flatbuffer;

// The layouts a companion .ptd declares, by key (docs/formats/pte.md §2.5 EXTERNAL).
using NamedLayouts =
    std::unordered_map<std::string_view, const flat_tensor_flatbuffer::TensorLayout*>;

// One verified .pte: every pointer below stays inside `region`, the program
// as a buffer of its own at file offset 0.
struct ProgramContext {
  FlatbufferRegion region;
  const PteHeader& header;
  const fb::Program& program;
  DiagnosticSink& sink;
  const NamedLayouts* companion = nullptr;  // null: no .ptd to check EXTERNAL tensors against
  // For each constant_segment offset, the next larger offset (or the segment
  // end): how far the constant may extend (PTE-22). Empty when offsets decrease.
  std::vector<uint64_t> constant_limits;

  // The file offset of `object` (a table, vector or element of the program).
  uint64_t OffsetOf(const void* object) const {
    return region.file_offset + region.OffsetOf(object);
  }
  // Reports at `object`; a null object has no offset.
  void Report(const Rule& rule, const void* object, std::string path, std::string message) const {
    sink.Report(rule, region.AtObject(object, path), std::move(message));
  }
};

// "execution_plan[3]": object paths are built only when a diagnostic is reported.
std::string PlanPath(uint32_t plan);
std::string ValuePath(uint32_t plan, uint32_t value);

// Facts about ScalarType (docs/formats/pte.md §2.1).
bool IsDeclaredScalarType(int8_t type);
// Element size in bytes of any type the runtime accepts (0..29 except 30), or 0.
uint64_t ElementSize(int8_t type);

// How a tensor gets its data (docs/formats/pte.md §2.5).
enum class DataSource : uint8_t { kRuntime, kConstant, kMutable, kPlanned, kExternal };
// `planned`: the tensor has allocation_info.
DataSource SourceOf(const fb::ExtraTensorInfo* extra, bool planned, uint32_t data_buffer_idx);

// Value types as KernelTypes, or nothing for a missing entry.
inline fb::KernelTypes TypeOf(const fb::EValue& value) { return value.val_type(); }
const fb::Tensor* TensorAt(const fb::ExecutionPlan& plan, int64_t index);

std::vector<uint64_t> ConstantLimits(const fb::Program& program);

// A planned tensor with bytes: [offset, end) of planned buffer memory_id.
struct PlannedRange {
  uint64_t offset;
  uint64_t end;
  uint32_t memory_id;
  uint32_t value;
};

// What the passes of one plan need to know about values other than the one
// they check, gathered once so that following a reference is an array
// index rather than a walk through flatbuffer offsets and vtables.
struct PlanFacts {
  struct Value {
    fb::KernelTypes type = fb::KernelTypes::NONE;
    DataSource source = DataSource::kRuntime;  // for Tensor values with a payload
  };
  std::vector<Value> values;  // by value index; types from GatherPlanFacts
  // Filled by ValidateTensors, in value order: the tensors with
  // allocation_info and a known, non-zero nbytes.
  std::vector<PlannedRange> planned;

  fb::KernelTypes TypeOf(uint32_t value) const { return values[value].type; }
  bool IsConstantTensor(uint32_t value) const {
    return values[value].type == fb::KernelTypes::Tensor &&
           values[value].source == DataSource::kConstant;
  }
};

// The value types of `plan` (sources and planned ranges come from
// ValidateTensors); reports 8-byte list items the Verifier left misaligned.
PlanFacts GatherPlanFacts(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p);

// The passes, in phase order (docs/ARCHITECTURE.md "Phases").
void ValidateProgramTables(const ProgramContext& ctx);  // B
void ValidatePlanNames(const ProgramContext& ctx);      // C PTE-15
void ValidatePlan(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                  const PlanFacts& facts);  // C
void ValidateValues(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                    const PlanFacts& facts);  // D
void ValidateTensors(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                     PlanFacts& facts);  // E
void ValidateInstructions(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                          const PlanFacts& facts);  // F
void ValidateMemoryPlan(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                        const PlanFacts& facts);  // whole program

}  // namespace accelcheck::pte
