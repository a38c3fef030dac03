// Values: union tags and payloads, list items and their element types
// (docs/formats/pte.md §4 D, PTE-39 to PTE-43).
#include "validators/core/text.h"
#include "validators/pte/validate.h"

namespace accelcheck::pte {

namespace {

using fb::KernelTypes;

// PTE-39: a known tag with a payload (Null needs none).
bool CheckTag(const ProgramContext& ctx, const fb::EValue& value, KernelTypes type, uint32_t p,
              uint32_t i) {
  if (type == KernelTypes::NONE || type > KernelTypes::MAX) {
    ctx.Report(rules::kValueType, &value, Str(ValuePath(p, i), ".val_type"),
               Str("val_type ", static_cast<int>(type), " is not a KernelTypes member (1..",
                   static_cast<int>(KernelTypes::MAX), ")"));
    return false;
  }
  if (value.val() == nullptr && type != KernelTypes::Null) {
    ctx.Report(rules::kValueNull, &value, Str(ValuePath(p, i), ".val"),
               Str("the ", fb::EnumNameKernelTypes(type), " value has no val table"));
    return false;
  }
  return true;
}

// PTE-41 to PTE-43: one list item refers to a value of the right type, earlier in
// the table (parse_values initialises values in index order).
void CheckItem(const ProgramContext& ctx, const PlanFacts& facts, uint32_t p, uint32_t i,
               KernelTypes list_type, int64_t item, const void* at, uint32_t k) {
  const auto n = static_cast<uint32_t>(facts.values.size());
  const auto path = [&] { return Str(ValuePath(p, i), ".val.items[", k, "]"); };
  if (list_type == KernelTypes::OptionalTensorList && item == -1) return;
  if (item < 0 || item >= n) {
    ctx.Report(rules::kValueListIndex, at, path(),
               Str("item ", item, " is outside values [0, ", n, ")"));
    return;
  }
  const KernelTypes element = facts.TypeOf(static_cast<uint32_t>(item));
  const bool ok = list_type == KernelTypes::IntList ? element == KernelTypes::Int
                  : list_type == KernelTypes::TensorList
                      ? element == KernelTypes::Tensor
                      : element == KernelTypes::Tensor || element == KernelTypes::Null;
  if (!ok) {
    ctx.Report(rules::kValueListElementType, at, path(),
               Str(fb::EnumNameKernelTypes(list_type), " item ", item, " is a ",
                   element <= KernelTypes::MAX ? fb::EnumNameKernelTypes(element) : "unknown type",
                   " value"));
  }
  if (item >= static_cast<int64_t>(i)) {
    const Rule& rule = list_type == KernelTypes::IntList ? rules::kValueIntListForwardRef
                                                         : rules::kValueTensorListForwardRef;
    ctx.Report(rule, at, path(), Str("item ", item, " is not below the list's own index ", i));
  }
}

template <typename List>
void CheckIndexList(const ProgramContext& ctx, const PlanFacts& facts, uint32_t p, uint32_t i,
                    KernelTypes type, const List* list) {
  const auto* items = list->items();
  if (items == nullptr) {
    ctx.Report(rules::kValueListItemsNull, list, Str(ValuePath(p, i), ".val.items"),
               Str("the ", fb::EnumNameKernelTypes(type), " has no items vector"));
    return;
  }
  for (uint32_t k = 0; k < items->size(); ++k) {
    CheckItem(ctx, facts, p, i, type, items->Get(k), items->data() + k, k);
  }
}

template <typename List>
void CheckInlineList(const ProgramContext& ctx, uint32_t p, uint32_t i, KernelTypes type,
                     const List* list) {
  if (list->items() == nullptr) {
    ctx.Report(rules::kValueListItemsNull, list, Str(ValuePath(p, i), ".val.items"),
               Str("the ", fb::EnumNameKernelTypes(type), " has no items vector"));
  }
}

// PTE-40: the payload of each type.
void CheckPayload(const ProgramContext& ctx, const PlanFacts& facts, uint32_t p,
                  const fb::EValue& value, KernelTypes type, uint32_t i) {
  switch (type) {
    case KernelTypes::String:
      if (value.val_as_String()->string_val() == nullptr) {
        ctx.Report(rules::kValueStringNull, value.val(), Str(ValuePath(p, i), ".val.string_val"),
                   "the String value has no string_val");
      }
      break;
    case KernelTypes::IntList:
      CheckIndexList(ctx, facts, p, i, KernelTypes::IntList, value.val_as_IntList());
      break;
    case KernelTypes::TensorList:
      CheckIndexList(ctx, facts, p, i, KernelTypes::TensorList, value.val_as_TensorList());
      break;
    case KernelTypes::OptionalTensorList:
      CheckIndexList(ctx, facts, p, i, KernelTypes::OptionalTensorList,
                     value.val_as_OptionalTensorList());
      break;
    case KernelTypes::DoubleList:
      CheckInlineList(ctx, p, i, KernelTypes::DoubleList, value.val_as_DoubleList());
      break;
    case KernelTypes::BoolList:
      CheckInlineList(ctx, p, i, KernelTypes::BoolList, value.val_as_BoolList());
      break;
    default:
      break;
  }
}

}  // namespace

void ValidateValues(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                    const PlanFacts& facts) {
  const auto* values = plan.values();
  if (values == nullptr) return;
  for (uint32_t i = 0; i < values->size(); ++i) {
    const fb::EValue& value = *values->Get(i);
    const KernelTypes type = facts.TypeOf(i);
    if (CheckTag(ctx, value, type, p, i)) CheckPayload(ctx, facts, p, value, type, i);
  }
}

}  // namespace accelcheck::pte
