// Chains and instructions: indices checked at load time, jump targets and
// conditions, Move/Free targets, writes to constants (docs/formats/pte.md §4 F,
// PTE-52, PTE-54 to PTE-62).
#include <vector>

#include "validators/core/text.h"
#include "validators/pte/validate.h"

namespace accelcheck::pte {

namespace {

using fb::InstructionArguments;
using fb::KernelTypes;

struct InstructionRef {
  const ProgramContext& ctx;
  const fb::ExecutionPlan& plan;
  const PlanFacts& facts;
  const fb::Instruction& instruction;
  uint32_t p;
  uint32_t c;
  uint32_t j;
  uint32_t n_values;

  std::string Path(std::string_view field = {}) const {
    return Str(PlanPath(p), ".chains[", c, "].instructions[", j, "]", field.empty() ? "" : ".",
               field);
  }
  void Report(const Rule& rule, const void* at, std::string_view field, std::string message) const {
    ctx.Report(rule, at ? at : &instruction, Path(field), std::move(message));
  }
  bool InRange(int32_t index) const {
    return index >= 0 && static_cast<uint32_t>(index) < n_values;
  }
  KernelTypes TypeAt(int32_t index) const { return facts.TypeOf(static_cast<uint32_t>(index)); }
  bool IsConstant(int32_t index) const {
    return InRange(index) && facts.IsConstantTensor(static_cast<uint32_t>(index));
  }
};

// PTE-52: a constant points into read-only program memory. `field` names the
// argument; it is built only when there is something to report.
template <typename Field>
void CheckNotConstant(const InstructionRef& r, int32_t index, const void* at, Field field,
                      std::string_view how) {
  if (!r.IsConstant(index)) return;
  r.Report(rules::kTensorConstantWritten, at, field(),
           Str("constant tensor value ", index, " is ", how));
}

// PTE-52 with the calling convention (docs/formats/pte.md §7): the last argument is
// the return value, the out tensor or a TensorList of the outs.
void CheckKernelReturn(const InstructionRef& r, const flatbuffers::Vector<int32_t>& args) {
  if (args.size() == 0) return;
  const uint32_t last = args.size() - 1;
  const int32_t ret = args.Get(last);
  if (!r.InRange(ret)) return;
  const auto field = [last] { return Str("instr_args.args[", last, "]"); };
  if (r.TypeAt(ret) == KernelTypes::Tensor) {
    CheckNotConstant(r, ret, args.data() + last, field, "the output of a KernelCall");
    return;
  }
  if (r.TypeAt(ret) != KernelTypes::TensorList) return;
  const auto* list = r.plan.values()->Get(static_cast<uint32_t>(ret))->val_as_TensorList();
  if (list == nullptr || list->items() == nullptr) return;
  for (const int32_t item : *list->items()) {
    CheckNotConstant(r, item, args.data() + last, field, "an output of a KernelCall");
  }
}

// PTE-55, PTE-56: argument indices are checked by Method::init.
bool CheckArgs(const InstructionRef& r, const flatbuffers::Vector<int32_t>* args,
               std::string_view call) {
  if (args == nullptr) {
    r.Report(rules::kKernelArgsMissing, r.instruction.instr_args(), "instr_args.args",
             Str("the ", call, " has no args vector"));
    return false;
  }
  bool ok = true;
  for (uint32_t k = 0; k < args->size(); ++k) {
    if (r.InRange(args->Get(k))) continue;
    r.Report(rules::kKernelArgIndex, args->data() + k, Str("instr_args.args[", k, "]"),
             Str("argument ", args->Get(k), " is outside values [0, ", r.n_values, ")"));
    ok = false;
  }
  return ok;
}

void CheckKernelCall(const InstructionRef& r, const fb::KernelCall& call) {
  const uint32_t ops = r.plan.operators() ? r.plan.operators()->size() : 0;
  if (call.op_index() < 0 || static_cast<uint32_t>(call.op_index()) >= ops) {
    r.Report(rules::kKernelOpIndex, &call, "instr_args.op_index",
             Str("op_index ", call.op_index(), " names no operator (", ops, " operators)"));
  }
  if (CheckArgs(r, call.args(), "KernelCall")) CheckKernelReturn(r, *call.args());
}

void CheckDelegateCall(const InstructionRef& r, const fb::DelegateCall& call) {
  const uint32_t delegates = r.plan.delegates() ? r.plan.delegates()->size() : 0;
  if (call.delegate_index() < 0 || static_cast<uint32_t>(call.delegate_index()) >= delegates) {
    r.Report(rules::kDelegateCallIndex, &call, "instr_args.delegate_index",
             Str("delegate_index ", call.delegate_index(), " names no delegate (", delegates,
                 " delegates)"));
  }
  CheckArgs(r, call.args(), "DelegateCall");
}

// PTE-58: both ends in range; (strict) same value type.
void CheckMoveCall(const InstructionRef& r, const fb::MoveCall& call) {
  bool ok = true;
  for (const auto& [index, field] : {std::pair{call.move_from(), "instr_args.move_from"},
                                     std::pair{call.move_to(), "instr_args.move_to"}}) {
    if (r.InRange(index)) continue;
    r.Report(rules::kMoveIndex, &call, field,
             Str("index ", index, " is outside values [0, ", r.n_values, ")"));
    ok = false;
  }
  if (!ok) return;
  const KernelTypes from = r.TypeAt(call.move_from());
  const KernelTypes to = r.TypeAt(call.move_to());
  if (from != to) {
    r.Report(rules::kMoveType, &call, "instr_args",
             Str("moves a ", fb::EnumNameKernelTypes(from), " value ", call.move_from(), " into a ",
                 fb::EnumNameKernelTypes(to), " value ", call.move_to()));
  }
  CheckNotConstant(
      r, call.move_to(), &call, [] { return std::string("instr_args.move_to"); },
      "the target of a MoveCall");
}

// PTE-57: the condition is a Bool or a BOOL tensor; the destination is in
// [0, len(instructions)] (len means "jump to the end").
void CheckJumpFalse(const InstructionRef& r, const fb::JumpFalseCall& call, uint32_t length) {
  const int32_t cond = call.cond_value_index();
  if (!r.InRange(cond)) {
    r.Report(rules::kJumpCondIndex, &call, "instr_args.cond_value_index",
             Str("cond_value_index ", cond, " is outside values [0, ", r.n_values, ")"));
  } else {
    const fb::Tensor* tensor = TensorAt(r.plan, cond);
    const bool ok = r.TypeAt(cond) == KernelTypes::Bool ||
                    (tensor != nullptr && tensor->scalar_type() == fb::ScalarType::BOOL);
    if (!ok) {
      r.Report(rules::kJumpCondType, &call, "instr_args.cond_value_index",
               Str("condition value ", cond, " is neither a Bool nor a BOOL tensor"));
    }
  }
  const int32_t destination = call.destination_instruction();
  if (destination < 0 || static_cast<uint32_t>(destination) > length) {
    r.Report(rules::kJumpDestination, &call, "instr_args.destination_instruction",
             Str("destination ", destination, " is outside [0, ", length, "]"));
  }
}

// PTE-59: FreeCall releases a (DYNAMIC_UNBOUND) tensor.
void CheckFreeCall(const InstructionRef& r, const fb::FreeCall& call) {
  const int32_t index = call.value_index();
  if (!r.InRange(index)) {
    r.Report(rules::kFreeIndex, &call, "instr_args.value_index",
             Str("value_index ", index, " is outside values [0, ", r.n_values, ")"));
    return;
  }
  const fb::Tensor* tensor = TensorAt(r.plan, index);
  if (tensor == nullptr) {
    r.Report(rules::kFreeNotTensor, &call, "instr_args.value_index",
             Str("value ", index, " is not a Tensor"));
  } else if (tensor->shape_dynamism() != fb::TensorShapeDynamism::DYNAMIC_UNBOUND) {
    r.Report(rules::kFreeNotUnbound, &call, "instr_args.value_index",
             Str("tensor value ", index, " is not DYNAMIC_UNBOUND"));
  }
}

// PTE-54 and the per-type checks.
void CheckInstruction(const InstructionRef& r, uint32_t length) {
  const auto type = r.instruction.instr_args_type();
  if (type == InstructionArguments::NONE || type > InstructionArguments::MAX ||
      r.instruction.instr_args() == nullptr) {
    r.Report(rules::kInstructionType, nullptr, "instr_args",
             type == InstructionArguments::NONE || type > InstructionArguments::MAX
                 ? Str("instr_args_type ", static_cast<int>(type),
                       " is not an InstructionArguments member (1..5)")
                 : Str("the ", fb::EnumNameInstructionArguments(type), " has no arguments table"));
    return;
  }
  switch (type) {
    case InstructionArguments::KernelCall:
      CheckKernelCall(r, *r.instruction.instr_args_as_KernelCall());
      break;
    case InstructionArguments::DelegateCall:
      CheckDelegateCall(r, *r.instruction.instr_args_as_DelegateCall());
      break;
    case InstructionArguments::MoveCall:
      CheckMoveCall(r, *r.instruction.instr_args_as_MoveCall());
      break;
    case InstructionArguments::JumpFalseCall:
      CheckJumpFalse(r, *r.instruction.instr_args_as_JumpFalseCall(), length);
      break;
    case InstructionArguments::FreeCall:
      CheckFreeCall(r, *r.instruction.instr_args_as_FreeCall());
      break;
    default:
      break;
  }
}

// Values some instruction of the chain writes (return values, Move targets,
// delegate arguments), for PTE-62.
std::vector<uint8_t> WrittenValues(const fb::Chain& chain, uint32_t n) {
  std::vector<uint8_t> written(n, 0);
  const auto mark = [&](int32_t index) {
    if (index >= 0 && static_cast<uint32_t>(index) < n) written[index] = 1;
  };
  for (const auto* instruction : *chain.instructions()) {
    if (const auto* k = instruction->instr_args_as_KernelCall()) {
      if (k->args() && k->args()->size() > 0) mark(k->args()->Get(k->args()->size() - 1));
    } else if (const auto* d = instruction->instr_args_as_DelegateCall()) {
      if (d->args()) {
        for (const int32_t a : *d->args()) mark(a);
      }
    } else if (const auto* m = instruction->instr_args_as_MoveCall()) {
      mark(m->move_to());
    }
  }
  return written;
}

// PTE-62: a backward jump on a Bool that is false and never written loops.
void CheckConstantLoops(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                        uint32_t c, const fb::Chain& chain, uint32_t n) {
  const auto* instructions = chain.instructions();
  std::vector<uint8_t> written;
  for (uint32_t j = 0; j < instructions->size(); ++j) {
    const auto* jump = instructions->Get(j)->instr_args_as_JumpFalseCall();
    if (jump == nullptr || jump->destination_instruction() < 0 ||
        static_cast<uint32_t>(jump->destination_instruction()) > j) {
      continue;
    }
    const int32_t cond = jump->cond_value_index();
    if (cond < 0 || static_cast<uint32_t>(cond) >= n) continue;
    const auto* value = plan.values()->Get(static_cast<uint32_t>(cond));
    const auto* flag = value->val_as_Bool();
    if (flag == nullptr || flag->bool_val()) continue;
    if (written.empty()) written = WrittenValues(chain, n);
    if (written[cond]) continue;
    ctx.Report(rules::kJumpConstantLoop, jump,
               Str(PlanPath(p), ".chains[", c, "].instructions[", j, "]"),
               Str("jumps back to ", jump->destination_instruction(), " on Bool value ", cond,
                   ", which is false and never written"));
  }
}

// PTE-60: chain inputs, outputs and stack traces.
void CheckChain(const ProgramContext& ctx, const fb::Chain& chain, uint32_t p, uint32_t c,
                uint32_t n) {
  const auto path = [&](std::string_view field) {
    return Str(PlanPath(p), ".chains[", c, "].", field);
  };
  for (const auto& [io, name] :
       {std::pair{chain.inputs(), "inputs"}, std::pair{chain.outputs(), "outputs"}}) {
    if (io == nullptr) continue;
    for (uint32_t k = 0; k < io->size(); ++k) {
      const int32_t index = io->Get(k);
      if (index >= 0 && static_cast<uint32_t>(index) < n) continue;
      ctx.Report(rules::kChainIoIndex, io->data() + k, path(Str(name, "[", k, "]")),
                 Str(name, " index ", index, " is outside values [0, ", n, ")"));
    }
  }
  const uint32_t length = chain.instructions() ? chain.instructions()->size() : 0;
  if (chain.stacktrace() != nullptr && chain.stacktrace()->size() != length) {
    ctx.Report(rules::kChainStacktrace, chain.stacktrace(), path("stacktrace"),
               Str("stacktrace has ", chain.stacktrace()->size(), " entries for ", length,
                   " instructions"));
  }
}

}  // namespace

void ValidateInstructions(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                          const PlanFacts& facts) {
  const auto* chains = plan.chains();
  if (chains == nullptr) return;
  const uint32_t n = plan.values() ? plan.values()->size() : 0;
  for (uint32_t c = 0; c < chains->size(); ++c) {
    const fb::Chain& chain = *chains->Get(c);
    CheckChain(ctx, chain, p, c, n);
    const auto* instructions = chain.instructions();
    if (instructions == nullptr) {
      ctx.Report(rules::kPlanFieldMissing, &chain,
                 Str(PlanPath(p), ".chains[", c, "].instructions"),
                 Str("chain ", c, " has no instructions vector"));
      continue;
    }
    for (uint32_t j = 0; j < instructions->size(); ++j) {
      CheckInstruction(InstructionRef{ctx, plan, facts, *instructions->Get(j), p, c, j, n},
                       instructions->size());
    }
    CheckConstantLoops(ctx, plan, p, c, chain, n);
  }
}

}  // namespace accelcheck::pte
