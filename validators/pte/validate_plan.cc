// Execution plans: required fields, inputs and outputs, planned buffers,
// operators and delegates (docs/formats/pte.md §4 C, PTE-15, PTE-29 to PTE-38).
#include <algorithm>
#include <vector>

#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/pte/validate.h"

namespace accelcheck::pte {

namespace {

constexpr uint64_t kOperatorNameBuffer = 100;  // method.cpp operator_name[100]

uint32_t ValueCount(const fb::ExecutionPlan& plan) {
  return plan.values() ? plan.values()->size() : 0;
}

// PTE-15: every plan has a name.
void CheckName(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p) {
  if (plan.name() == nullptr || plan.name()->size() == 0) {
    ctx.Report(rules::kPlanName, &plan, Str(PlanPath(p), ".name"),
               plan.name() ? "the plan name is empty" : "the plan has no name");
  }
}

// PTE-29: the fields Method::init and MethodMeta dereference.
void CheckRequiredFields(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p) {
  const struct {
    const void* field;
    std::string_view name;
  } fields[] = {
      {plan.values(), "values"},
      {plan.inputs(), "inputs"},
      {plan.outputs(), "outputs"},
      {plan.chains(), "chains"},
      {plan.operators(), "operators"},
      {plan.delegates(), "delegates"},
      {plan.non_const_buffer_sizes(), "non_const_buffer_sizes"},
  };
  for (const auto& f : fields) {
    if (f.field != nullptr) continue;
    ctx.Report(rules::kPlanFieldMissing, &plan, Str(PlanPath(p), ".", f.name),
               Str("plan ", PlanPath(p), " has no ", f.name, " vector"));
  }
}

// PTE-29: container_meta_type is only read by get_output_flattening_encoding.
void CheckContainerMeta(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p) {
  const auto* meta = plan.container_meta_type();
  if (meta == nullptr) {
    ctx.Report(rules::kPlanContainerMeta, &plan, Str(PlanPath(p), ".container_meta_type"),
               "container_meta_type is missing");
  } else if (meta->encoded_inp_str() == nullptr || meta->encoded_out_str() == nullptr) {
    ctx.Report(rules::kPlanContainerMeta, meta, Str(PlanPath(p), ".container_meta_type"),
               Str(meta->encoded_inp_str() ? "encoded_out_str" : "encoded_inp_str", " is missing"));
  }
}

// PTE-30: Method::init needs at least one chain.
void CheckChains(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p) {
  if (plan.chains() != nullptr && plan.chains()->size() == 0) {
    ctx.Report(rules::kPlanNoChains, plan.chains(), Str(PlanPath(p), ".chains"),
               "the plan has an empty chains vector");
  }
}

bool IsListType(fb::KernelTypes type) {
  return type >= fb::KernelTypes::IntList && type <= fb::KernelTypes::OptionalTensorList;
}

// PTE-31 to PTE-33: plan inputs and outputs.
void CheckIo(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
             const PlanFacts& facts, const flatbuffers::Vector<int32_t>* io, std::string_view name,
             bool is_input) {
  if (io == nullptr) return;
  const uint32_t n = ValueCount(plan);
  std::vector<uint8_t> seen(is_input ? n : 0, 0);
  for (uint32_t i = 0; i < io->size(); ++i) {
    const int32_t index = io->Get(i);
    const auto path = [&] { return Str(PlanPath(p), ".", name, "[", i, "]"); };
    if (index < 0 || static_cast<uint32_t>(index) >= n) {
      ctx.Report(rules::kPlanIoIndex, io->data() + i, path(),
                 Str(name, " index ", index, " is outside values [0, ", n, ")"));
      continue;
    }
    const fb::KernelTypes type = facts.TypeOf(static_cast<uint32_t>(index));
    if (IsListType(type)) {
      ctx.Report(rules::kPlanIoType, io->data() + i, path(),
                 Str(name, " value ", index, " is a ", fb::EnumNameKernelTypes(type),
                     ", not a Null, Int, Double, Bool, String or Tensor"));
    }
    if (is_input) {
      if (seen[index]) {
        ctx.Report(rules::kPlanInputDuplicate, io->data() + i, path(),
                   Str("value ", index, " appears twice in inputs"));
      }
      seen[index] = 1;
    }
  }
}

// PTE-34, PTE-35: planned buffer sizes and devices.
void CheckBuffers(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p) {
  const auto* sizes = plan.non_const_buffer_sizes();
  if (sizes == nullptr) return;
  for (uint32_t i = 0; i < sizes->size(); ++i) {
    if (sizes->Get(i) < 0) {
      ctx.Report(rules::kPlanBufferSize, sizes->data() + i,
                 Str(PlanPath(p), ".non_const_buffer_sizes[", i, "]"),
                 Str("planned buffer ", i, " has negative size ", sizes->Get(i)));
    }
  }
  if (sizes->size() > 0 && sizes->Get(0) != 0) {
    ctx.Report(rules::kPlanBufferReserved, sizes->data(),
               Str(PlanPath(p), ".non_const_buffer_sizes[0]"),
               Str("the reserved entry 0 is ", sizes->Get(0), ", expected 0"));
  }
  const auto* devices = plan.non_const_buffer_device();
  if (devices == nullptr) return;
  std::vector<uint8_t> seen(sizes->size(), 0);
  for (uint32_t i = 0; i < devices->size(); ++i) {
    const auto* d = devices->Get(i);
    const auto path = [&] { return Str(PlanPath(p), ".non_const_buffer_device[", i, "]"); };
    const int32_t idx = d->buffer_idx();
    if (idx < 1 || static_cast<uint32_t>(idx) >= sizes->size()) {
      ctx.Report(rules::kPlanBufferDevice, d, path(),
                 Str("buffer_idx ", idx, " names no planned buffer [1, ", sizes->size(), ")"));
    } else if (seen[idx]++) {
      ctx.Report(rules::kPlanBufferDevice, d, path(),
                 Str("buffer_idx ", idx, " already has a device entry"));
    }
    if (static_cast<int8_t>(d->device_type()) < 0 || static_cast<int8_t>(d->device_type()) > 1) {
      ctx.Report(
          rules::kPlanBufferDevice, d, path(),
          Str("device_type ", static_cast<int>(d->device_type()), " is not CPU (0) or CUDA (1)"));
    }
  }
}

// Which operators and delegates the plan's instructions use (PTE-36, PTE-38).
void MarkUses(const fb::ExecutionPlan& plan, std::vector<uint8_t>& ops,
              std::vector<uint8_t>& delegates) {
  if (plan.chains() == nullptr) return;
  for (const auto* chain : *plan.chains()) {
    if (chain->instructions() == nullptr) continue;
    for (const auto* instruction : *chain->instructions()) {
      if (const auto* k = instruction->instr_args_as_KernelCall()) {
        if (k->op_index() >= 0 && static_cast<size_t>(k->op_index()) < ops.size()) {
          ops[k->op_index()] = 1;
        }
      } else if (const auto* d = instruction->instr_args_as_DelegateCall()) {
        if (d->delegate_index() >= 0 &&
            static_cast<size_t>(d->delegate_index()) < delegates.size()) {
          delegates[d->delegate_index()] = 1;
        }
      }
    }
  }
}

// PTE-36: operator names resolve in the kernel registry.
void CheckOperators(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                    const std::vector<uint8_t>& used) {
  const auto* ops = plan.operators();
  if (ops == nullptr) return;
  std::vector<std::pair<std::string_view, uint32_t>> names;  // "name\0overload"
  std::vector<std::string> joined(ops->size());
  for (uint32_t i = 0; i < ops->size(); ++i) {
    const auto* op = ops->Get(i);
    const auto path = [&] { return Str(PlanPath(p), ".operators[", i, "]"); };
    const size_t overload = op->overload() ? op->overload()->size() : 0;
    if (op->name() == nullptr || op->name()->size() == 0) {
      ctx.Report(rules::kOperatorName, op, Str(path(), ".name"),
                 op->name() ? "the operator name is empty" : "the operator has no name");
    } else {
      const uint64_t needed = op->name()->size() + (overload ? 1 + overload : 0) + 1;
      if (needed > kOperatorNameBuffer) {
        ctx.Report(rules::kOperatorNameLength, op, path(),
                   Str("name ", Quoted(op->name()->string_view()), " with overload needs ", needed,
                       " bytes, more than the runtime's ", kOperatorNameBuffer));
      }
      joined[i] = Str(op->name()->string_view(), '\0',
                      op->overload() ? op->overload()->string_view() : std::string_view());
      names.emplace_back(joined[i], i);
    }
    if (!used[i]) {
      ctx.Report(rules::kOperatorUnused, op, path(),
                 Str("no KernelCall uses operator ", i,
                     op->name() ? Str(" ", Quoted(op->name()->string_view())) : std::string()));
    }
  }
  std::stable_sort(names.begin(), names.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t k = 1; k < names.size(); ++k) {
    if (names[k].first != names[k - 1].first) continue;
    ctx.Report(rules::kOperatorDuplicate, ops->Get(names[k].second),
               Str(PlanPath(p), ".operators[", names[k].second, "]"),
               Str("operator ", names[k].second, " repeats operator ", names[k - 1].second, " ",
                   Quoted(ops->Get(names[k].second)->name()->string_view())));
  }
}

// The delegate payload bytes inside the file, when they can be located.
ByteView DelegatePayload(const ProgramContext& ctx, const fb::BackendDelegateDataReference& ref) {
  if (ref.location() == fb::DataLocation::INLINE) {
    const auto* data = ctx.program.backend_delegate_data();
    if (data == nullptr || ref.index() >= data->size()) return {};
    const auto* bytes = data->Get(ref.index())->data();
    return bytes ? ByteView(bytes->Data(), bytes->size()) : ByteView();
  }
  const auto* segments = ctx.program.segments();
  if (segments == nullptr || ref.index() >= segments->size() || !ctx.header.extended) return {};
  const auto* s = segments->Get(ref.index());
  const auto begin = CheckedAdd(ctx.header.segment_base_offset, s->offset());
  if (!begin || !RangeWithin(*begin, s->size(), ctx.region.bytes.size())) return {};
  return ctx.region.bytes.subspan(*begin, s->size());
}

// docs/formats/pte.md §1.3: XNNHeader regions lie in the payload, the flatbuffer first.
void CheckXnnpackHeader(const ProgramContext& ctx, const fb::BackendDelegate& delegate,
                        const std::string& path) {
  if (delegate.processed() == nullptr) return;
  const ByteView payload = DelegatePayload(ctx, *delegate.processed());
  if (!HasBytesAt(payload, 4, "XH00")) return;
  const auto header_length = ReadLE<uint16_t>(payload, 8);
  const auto fb_offset = ReadLE<uint32_t>(payload, 10);
  const auto fb_size = ReadLE<uint32_t>(payload, 14);
  const auto constant_offset = ReadLE<uint32_t>(payload, 18);
  const auto constant_size = ReadLE<uint64_t>(payload, 22);
  if (!header_length || !constant_size) {
    ctx.Report(rules::kDelegateXnnpackHeader, payload.data(), path,
               Str("XH00 payload of ", Hex(payload.size()), " bytes is shorter than its header"));
    return;
  }
  const uint64_t fb_end = uint64_t{*fb_offset} + *fb_size;
  const auto constant_end = CheckedAdd(*constant_offset, *constant_size);
  if (*fb_offset < *header_length || fb_end > payload.size()) {
    ctx.Report(rules::kDelegateXnnpackHeader, payload.data(), path,
               Str("XNNPACK flatbuffer [", Hex(*fb_offset), ", ", Hex(fb_end),
                   ") lies outside [header length ", Hex(*header_length), ", payload size ",
                   Hex(payload.size()), ")"));
  } else if (!constant_end || *constant_end > payload.size()) {
    ctx.Report(rules::kDelegateXnnpackHeader, payload.data(), path,
               Str("XNNPACK constant data at ", Hex(*constant_offset), " + ", Hex(*constant_size),
                   " exceeds payload size ", Hex(payload.size())));
  } else if (*constant_size > 0 && *constant_offset < fb_end) {
    ctx.Report(rules::kDelegateXnnpackHeader, payload.data(), path,
               Str("XNNPACK constant data at ", Hex(*constant_offset),
                   " starts inside the flatbuffer ending at ", Hex(fb_end)));
  }
}

// PTE-26, PTE-37: the processed-data reference of one delegate.
void CheckProcessed(const ProgramContext& ctx, const fb::BackendDelegate& delegate,
                    const std::string& path) {
  const auto* ref = delegate.processed();
  if (ref == nullptr) {
    ctx.Report(rules::kDelegateProcessed, &delegate, Str(path, ".processed"),
               "the delegate has no processed reference");
    return;
  }
  const auto* data = ctx.program.backend_delegate_data();
  const auto* segments = ctx.program.segments();
  const uint32_t index = ref->index();
  switch (ref->location()) {
    case fb::DataLocation::INLINE:
      if (data == nullptr || index >= data->size()) {
        ctx.Report(rules::kDelegateDataIndex, ref, Str(path, ".processed.index"),
                   Str("INLINE index ", index, " names no backend_delegate_data entry (",
                       data ? data->size() : 0, " entries)"));
      }
      break;
    case fb::DataLocation::SEGMENT:
      if (segments == nullptr || index >= segments->size()) {
        ctx.Report(rules::kDelegateSegmentIndex, ref, Str(path, ".processed.index"),
                   Str("SEGMENT index ", index, " names no segment (",
                       segments ? segments->size() : 0, " segments)"));
      }
      break;
    default:
      ctx.Report(rules::kDelegateLocation, ref, Str(path, ".processed.location"),
                 Str("location ", static_cast<int>(ref->location()),
                     " is neither INLINE (0) nor SEGMENT (1)"));
  }
}

// PTE-37, PTE-38: backend delegates.
void CheckDelegates(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                    const std::vector<uint8_t>& used) {
  const auto* delegates = plan.delegates();
  if (delegates == nullptr) return;
  for (uint32_t i = 0; i < delegates->size(); ++i) {
    const auto* delegate = delegates->Get(i);
    const std::string path = Str(PlanPath(p), ".delegates[", i, "]");
    if (delegate->id() == nullptr || delegate->id()->size() == 0) {
      ctx.Report(rules::kDelegateId, delegate, Str(path, ".id"),
                 delegate->id() ? "the backend id is empty" : "the delegate has no backend id");
    }
    CheckProcessed(ctx, *delegate, path);
    if (const auto* specs = delegate->compile_specs()) {
      for (uint32_t k = 0; k < specs->size(); ++k) {
        const auto* spec = specs->Get(k);
        if (spec->key() != nullptr && spec->value() != nullptr) continue;
        ctx.Report(rules::kDelegateCompileSpec, spec, Str(path, ".compile_specs[", k, "]"),
                   Str("compile spec ", k, " has no ", spec->key() ? "value" : "key"));
      }
    }
    if (!used[i]) {
      ctx.Report(rules::kDelegateUnused, delegate, path, Str("no DelegateCall uses delegate ", i));
    }
    CheckXnnpackHeader(ctx, *delegate, Str(path, ".processed"));
  }
}

}  // namespace

void ValidatePlanNames(const ProgramContext& ctx) {
  const auto* plans = ctx.program.execution_plan();
  if (plans == nullptr) return;
  std::vector<std::pair<std::string_view, uint32_t>> names;
  names.reserve(plans->size());
  for (uint32_t p = 0; p < plans->size(); ++p) {
    const auto* name = plans->Get(p)->name();
    if (name != nullptr && name->size() > 0) names.emplace_back(name->string_view(), p);
  }
  std::stable_sort(names.begin(), names.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t k = 1; k < names.size(); ++k) {
    if (names[k].first != names[k - 1].first) continue;
    ctx.Report(
        rules::kPlanNameDuplicate, plans->Get(names[k].second),
        Str(PlanPath(names[k].second), ".name"),
        Str("plan name ", Quoted(names[k].first), " repeats ", PlanPath(names[k - 1].second)));
  }
}

void ValidatePlan(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                  const PlanFacts& facts) {
  CheckName(ctx, plan, p);
  CheckRequiredFields(ctx, plan, p);
  CheckContainerMeta(ctx, plan, p);
  CheckChains(ctx, plan, p);
  CheckIo(ctx, plan, p, facts, plan.inputs(), "inputs", true);
  CheckIo(ctx, plan, p, facts, plan.outputs(), "outputs", false);
  CheckBuffers(ctx, plan, p);
  std::vector<uint8_t> ops(plan.operators() ? plan.operators()->size() : 0, 0);
  std::vector<uint8_t> delegates(plan.delegates() ? plan.delegates()->size() : 0, 0);
  MarkUses(plan, ops, delegates);
  CheckOperators(ctx, plan, p, ops);
  CheckDelegates(ctx, plan, p, delegates);
}

}  // namespace accelcheck::pte
