// Facts the .pte passes share: object paths, ScalarType sizes, data sources.
#include "validators/core/text.h"
#include "validators/pte/validate.h"

namespace accelcheck::pte {

std::string PlanPath(uint32_t plan) { return Str("execution_plan[", plan, "]"); }

std::string ValuePath(uint32_t plan, uint32_t value) {
  return Str("execution_plan[", plan, "].values[", value, "]");
}

bool IsDeclaredScalarType(int8_t type) {
  // spec/pte.md §2.1: 8-10 and 18-21 are commented out in scalar_type.fbs.
  return (type >= 0 && type <= 7) || (type >= 11 && type <= 17) || (type >= 22 && type <= 29);
}

uint64_t ElementSize(int8_t type) {
  static constexpr uint8_t kSizes[30] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4,
                                         2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 4, 8};
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

PlanFacts GatherPlanFacts(const fb::ExecutionPlan& plan) {
  PlanFacts facts;
  const auto* values = plan.values();
  if (values == nullptr) return facts;
  facts.values.resize(values->size());
  for (uint32_t i = 0; i < values->size(); ++i) facts.values[i].type = values->Get(i)->val_type();
  return facts;
}

}  // namespace accelcheck::pte
