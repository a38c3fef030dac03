// Facts the .pte passes share: object paths, ScalarType sizes, data sources.
#include "validators/core/text.h"
#include "validators/pte/validate.h"
#include "validators/pte/verify.h"

namespace accelcheck::pte {

std::string PlanPath(uint32_t plan) { return Str("execution_plan[", plan, "]"); }

std::string ValuePath(uint32_t plan, uint32_t value) {
  return Str("execution_plan[", plan, "].values[", value, "]");
}

bool IsDeclaredScalarType(int8_t type) {
  // docs/formats/pte.md §2.1: 8-10 and 18-21 are commented out in scalar_type.fbs.
  return (type >= 0 && type <= 7) || (type >= 11 && type <= 17) || (type >= 22 && type <= 29);
}

uint64_t ElementSize(int8_t type) {
  static constexpr uint8_t kSizes[30] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4,
                                         2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1,  1, 2, 4, 8};
  return type >= 0 && type < 30 ? kSizes[type] : 0;
}

DataSource SourceOf(const fb::ExtraTensorInfo* extra, bool planned, uint32_t data_buffer_idx) {
  if (extra != nullptr && extra->location() == fb::TensorDataLocation::EXTERNAL) {
    return DataSource::kExternal;
  }
  if (data_buffer_idx > 0) return planned ? DataSource::kMutable : DataSource::kConstant;
  return planned ? DataSource::kPlanned : DataSource::kRuntime;
}

const fb::Tensor* TensorAt(const fb::ExecutionPlan& plan, int64_t index) {
  const auto* values = plan.values();
  if (values == nullptr || index < 0 || index >= static_cast<int64_t>(values->size())) {
    return nullptr;
  }
  const fb::EValue* value = values->Get(static_cast<uint32_t>(index));
  return value->val_type() == fb::KernelTypes::Tensor ? value->val_as_Tensor() : nullptr;
}

namespace {

// PTE-13: the items of IntList and DoubleList values are 8-byte elements the
// Verifier does not align (see ElementsAligned in verify.h).
template <typename T>
void CheckItemsAligned(const ProgramContext& ctx, const flatbuffers::Vector<T>* items, uint32_t p,
                       uint32_t i) {
  if (ElementsAligned(items)) return;
  ctx.Report(rules::kFlatbufferVerify, items->Data(), Str(ValuePath(p, i), ".val.items"),
             Str("the 8-byte items of value ", i, " start at ", Hex(ctx.OffsetOf(items->Data())),
                 ", which is not a multiple of 8"));
}

}  // namespace

PlanFacts GatherPlanFacts(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p) {
  PlanFacts facts;
  const auto* values = plan.values();
  if (values == nullptr) return facts;
  facts.values.resize(values->size());
  for (uint32_t i = 0; i < values->size(); ++i) {
    const fb::EValue& value = *values->Get(i);
    const fb::KernelTypes type = value.val_type();
    facts.values[i].type = type;
    if (type == fb::KernelTypes::IntList) {
      if (const auto* list = value.val_as_IntList()) CheckItemsAligned(ctx, list->items(), p, i);
    } else if (type == fb::KernelTypes::DoubleList) {
      if (const auto* list = value.val_as_DoubleList()) CheckItemsAligned(ctx, list->items(), p, i);
    }
  }
  return facts;
}

}  // namespace accelcheck::pte
