#include "reference_exec/pte/method.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "reference_exec/pte/broadcast.h"
#include "reference_exec/pte/kernels.h"
#include "validators/core/core_rules.h"
#include "validators/core/text.h"
#include "validators/pte/validate.h"

namespace accelcheck::pte::exec {

namespace {

using fb::KernelTypes;

// A value the validator checked (PTE-37 to PTE-51): present, of a known type.
const fb::EValue& SerializedValue(const fb::ExecutionPlan& plan, uint32_t v) {
  return *plan.values()->Get(v);
}

uint64_t PlannedOffset(const fb::AllocationDetails& a) {
  return uint64_t{a.memory_offset_low()} | (uint64_t{a.memory_offset_high()} << 32);
}

std::string ValueText(uint32_t v) { return Str("value ", v); }

}  // namespace

const char* MemoryModeName(MemoryMode mode) {
  return mode == MemoryMode::kSeparate ? "separate" : "planned";
}

Method::Method(const LoadedProgram& program, const fb::ExecutionPlan& plan, MemoryMode mode,
               const Limits& limits)
    : program_(program), plan_(plan), mode_(mode), limits_(limits) {
  BuildValues();
  defined_.assign(tensors_.size(), false);
  Allocate();
  for (const auto* chain : *plan_.chains()) total_instructions_ += chain->instructions()->size();
  writes_.resize(tensors_.size());
  SkipFinishedChains();  // empty chains (and constant methods) have nothing to run
}

// Values as parse_values makes them (§3.3); tensors get their shape now and
// their bytes in Allocate.
void Method::BuildValues() {
  const auto* values = plan_.values();
  values_.resize(values->size());
  for (uint32_t v = 0; v < values->size(); ++v) {
    const fb::EValue& e = *values->Get(v);
    Value& value = values_[v];
    value.type = e.val_type();
    switch (e.val_type()) {
      case KernelTypes::Int:
        value.int_value = e.val_as_Int()->int_val();
        break;
      case KernelTypes::Bool:
        value.bool_value = e.val_as_Bool()->bool_val();
        break;
      case KernelTypes::Double:
        value.double_value = e.val_as_Double()->double_val();
        break;
      case KernelTypes::Tensor: {
        const fb::Tensor& s = *e.val_as_Tensor();
        Tensor t;
        t.scalar_type = static_cast<int8_t>(s.scalar_type());
        t.element_size = std::max<uint64_t>(ElementSize(static_cast<int8_t>(s.scalar_type())), 1);
        for (const int32_t size : *s.sizes()) t.sizes.push_back(size);
        if (s.dim_order() != nullptr)
          t.dim_order.assign(s.dim_order()->begin(), s.dim_order()->end());
        t.capacity_numel = t.numel();
        t.dynamism = s.shape_dynamism();
        t.value = v;
        if (const auto* a = s.allocation_info()) {
          t.planned = true;
          t.memory_id = a->memory_id();
          t.memory_offset = PlannedOffset(*a);
        }
        value.tensor = static_cast<uint32_t>(tensors_.size());
        tensors_.push_back(std::move(t));
        break;
      }
      default:
        break;
    }
  }
}

uint8_t* Method::NewBuffer(uint64_t size, uint64_t* budget, uint64_t limit, const Rule& rule,
                           const char* flag, const std::string& what) {
  if (size > limit || *budget > limit - size)
    LimitHit(rule, Str(what, " needs ", size, " bytes, which with the ", *budget,
                       " already held exceeds --", flag, " ", limit));
  *budget += size;
  // calloc: pages of a large arena that no tensor touches are never committed.
  void* bytes = std::calloc(std::max<uint64_t>(size, 1), 1);
  if (bytes == nullptr) LimitHit(rule, Str(what, ": ", size, " bytes could not be allocated"));
  Buffer buffer;
  buffer.bytes = std::unique_ptr<uint8_t, void (*)(void*)>(static_cast<uint8_t*>(bytes), std::free);
  buffer.size = size;
  buffers_.push_back(std::move(buffer));
  return buffers_.back().bytes.get();
}

// Separate mode: a buffer per tensor. Planned mode: planned tensors inside
// one arena per memory_id, sized by the furthest byte a tensor uses (never
// more than non_const_buffer_sizes, which the validator checked, PTE-51c).
void Method::Allocate() {
  if (mode_ == MemoryMode::kPlanned) {
    std::vector<uint64_t> extent;
    for (const Tensor& t : tensors_) {
      if (!t.planned || t.capacity_bytes() == 0) continue;
      if (extent.size() <= t.memory_id) extent.resize(t.memory_id + 1, 0);
      extent[t.memory_id] = std::max(extent[t.memory_id], t.memory_offset + t.capacity_bytes());
    }
    arenas_.assign(extent.size(), nullptr);
    for (uint32_t id = 1; id < extent.size(); ++id) {
      if (extent[id] == 0) continue;
      arenas_[id] =
          NewBuffer(extent[id], &arena_bytes_, limits_.max_arena_bytes,
                    core_rules::kLimitArenaBytes, "max-arena-bytes", Str("planned buffer ", id));
    }
  }
  const auto* values = plan_.values();
  for (Tensor& t : tensors_) {
    const fb::Tensor& s = *values->Get(t.value)->val_as_Tensor();
    if (t.capacity_bytes() != 0) {
      if (mode_ == MemoryMode::kPlanned && t.planned) {
        t.data = arenas_[t.memory_id] + t.memory_offset;
      } else {
        t.data = NewBuffer(t.capacity_bytes(), &tensor_bytes_, limits_.max_tensor_bytes,
                           core_rules::kLimitTensorBytes, "max-tensor-bytes", ValueText(t.value));
      }
    }
    LoadInitialData(t, s);
  }
}

// Constants, initial values of mutable tensors and EXTERNAL data (§2.5).
void Method::LoadInitialData(Tensor& t, const fb::Tensor& s) {
  const DataSource source =
      SourceOf(s.extra_tensor_info(), s.allocation_info() != nullptr, s.data_buffer_idx());
  std::optional<ByteView> initial;
  switch (source) {
    case DataSource::kConstant:
      initial = program_.Constant(s.data_buffer_idx());
      break;
    case DataSource::kMutable:
      initial = program_.MutableInitial(s.data_buffer_idx());
      break;
    case DataSource::kExternal: {
      const auto* name = s.extra_tensor_info()->fully_qualified_name();
      initial = name != nullptr ? program_.named_data().Find(name->string_view()) : std::nullopt;
      if (!initial || initial->size() < t.capacity_bytes())
        Invalid(Str(ValueText(t.value), " is EXTERNAL data \"", name ? name->str() : "",
                    "\", which no named-data file (--data) holds with its ", t.capacity_bytes(),
                    " bytes"));
      break;
    }
    default:
      return;
  }
  if (!initial || t.data == nullptr) return;
  defined_[values_[t.value].tensor] = true;
  std::memcpy(t.data, initial->data(), std::min<uint64_t>(initial->size(), t.capacity_bytes()));
}

size_t Method::input_count() const { return plan_.inputs()->size(); }
size_t Method::output_count() const { return plan_.outputs()->size(); }

std::string Method::DescribeInput(size_t i) const {
  const uint32_t v = static_cast<uint32_t>(plan_.inputs()->Get(static_cast<uint32_t>(i)));
  const Value& value = values_[v];
  if (value.type != KernelTypes::Tensor) return fb::EnumNameKernelTypes(value.type);
  const Tensor& t = tensors_[value.tensor];
  return Str(DTypeName(t.scalar_type), " ", ShapeText(t.sizes),
             t.dynamism == fb::TensorShapeDynamism::STATIC ? "" : " (dynamic, bound)");
}

void Method::SetInput(size_t i, const HostTensor& input) {
  const uint32_t v = static_cast<uint32_t>(plan_.inputs()->Get(static_cast<uint32_t>(i)));
  Value& value = values_[v];
  const std::string what = Str("input ", i, " (value ", v, ")");
  if (value.type != KernelTypes::Tensor) {
    // Scalars must equal the traced value (§3.5).
    if (!input.sizes.empty() || input.bytes.empty())
      Invalid(Str(what, " is ", fb::EnumNameKernelTypes(value.type), ", given a tensor"));
    const DType given = CheckedDType(input.scalar_type, what);
    const double x = LoadAs<double>(given, input.bytes.data(), 0);
    const double traced = value.type == KernelTypes::Int    ? static_cast<double>(value.int_value)
                          : value.type == KernelTypes::Bool ? (value.bool_value ? 1 : 0)
                                                            : value.double_value;
    if (value.type != KernelTypes::Int && value.type != KernelTypes::Bool &&
        value.type != KernelTypes::Double)
      Unsupported(Str(what, " is ", fb::EnumNameKernelTypes(value.type),
                      ", which is not set from an array"));
    if (x != traced)
      Invalid(
          Str(what, " was traced as ", traced, "; the runtime takes only that value, given ", x));
    return;
  }
  Tensor& t = tensors_[value.tensor];
  if (input.scalar_type != t.scalar_type)
    Invalid(Str(what, " is ", DTypeName(t.scalar_type), ", given ", DTypeName(input.scalar_type)));
  uint64_t numel = 1;
  for (int64_t s : input.sizes) numel *= static_cast<uint64_t>(s);
  const bool same = input.sizes == t.sizes;
  const bool bounded = t.dynamism != fb::TensorShapeDynamism::STATIC &&
                       input.sizes.size() == t.sizes.size() && numel <= t.capacity_numel;
  if (!same && !bounded)
    Invalid(Str(what, " has shape ", ShapeText(t.sizes),
                t.dynamism == fb::TensorShapeDynamism::STATIC ? "" : " (a bound)", ", given ",
                ShapeText(input.sizes)));
  if (input.bytes.size() != numel * t.element_size)
    Invalid(Str(what, ": ", input.bytes.size(), " bytes for ", numel, " elements"));
  t.sizes = input.sizes;
  defined_[value.tensor] = true;
  if (t.data == nullptr) return;
  if (t.contiguous()) {
    std::memcpy(t.data, input.bytes.data(), input.bytes.size());
  } else {
    const DType d = t.dtype();
    StridedCopy(t.sizes, input.bytes.data(), d, ContiguousStrides(t.sizes), t.data, d,
                DimOrderStrides(t.sizes, t.dim_order));
  }
}

bool Method::done() const { return pc_.chain >= plan_.chains()->size(); }

const fb::Instruction* Method::InstructionAt(Position at) const {
  const auto* chains = plan_.chains();
  if (at.chain >= chains->size()) return nullptr;
  const auto* instructions = chains->Get(at.chain)->instructions();
  if (at.instruction >= instructions->size()) return nullptr;
  return instructions->Get(at.instruction);
}

std::string Method::OperatorName(int32_t op_index) const {
  const fb::Operator& op = *plan_.operators()->Get(static_cast<uint32_t>(op_index));
  std::string name = op.name() != nullptr ? op.name()->str() : "";
  if (op.overload() != nullptr && op.overload()->size() != 0) {
    name.push_back('.');
    name.append(op.overload()->string_view());
  }
  return name;
}

std::string Method::Describe(Position at) const {
  std::string text = Str("chain ", at.chain, " instruction ", at.instruction);
  const fb::Instruction* ins = InstructionAt(at);
  if (ins == nullptr) return text;
  switch (ins->instr_args_type()) {
    case fb::InstructionArguments::KernelCall:
      return Str(text, " (", OperatorName(ins->instr_args_as_KernelCall()->op_index()), ")");
    case fb::InstructionArguments::DelegateCall:
      return text + " (DelegateCall)";
    case fb::InstructionArguments::MoveCall:
      return text + " (MoveCall)";
    case fb::InstructionArguments::JumpFalseCall:
      return text + " (JumpFalseCall)";
    case fb::InstructionArguments::FreeCall:
      return text + " (FreeCall)";
    default:
      return text;
  }
}

// Chains run in order, instructions in order within a chain; a jump past
// the end ends the chain (§3.4).
void Method::Advance() {
  ++pc_.instruction;
  SkipFinishedChains();
}

void Method::SkipFinishedChains() {
  const auto* chains = plan_.chains();
  while (pc_.chain < chains->size() &&
         pc_.instruction >= chains->Get(pc_.chain)->instructions()->size()) {
    ++pc_.chain;
    pc_.instruction = 0;
  }
}

void Method::RunKernel(const fb::KernelCall& call) {
  const std::string name = OperatorName(call.op_index());
  const Kernel kernel = FindKernel(name);
  if (kernel == nullptr) {
    Unsupported(
        Str("operator ", name,
            " has no kernel here (docs/formats/pte.md \"Reference executor\""
            " lists the operators run; custom namespaces and backends' operators are not)"));
  }
  const auto* args = call.args();
  const std::span<const int32_t> span(args->data(), args->size());
  KernelArgs kernel_args(name, span, values_, tensors_, plan_, limits_.max_tensor_bytes);
  kernel(kernel_args);
  // Out variants return their out tensor (or a TensorList of them) last (§7).
  if (span.empty()) return;
  const Value& ret = values_[static_cast<size_t>(span.back())];
  if (ret.type == KernelTypes::Tensor) {
    writes_[ret.tensor] = {true, pc_};
    defined_[ret.tensor] = true;
  } else if (ret.type == KernelTypes::TensorList) {
    const auto* items =
        SerializedValue(plan_, static_cast<uint32_t>(span.back())).val_as_TensorList()->items();
    for (const int32_t item : *items) {
      const Value& element = values_[static_cast<size_t>(item)];
      if (element.type != KernelTypes::Tensor) continue;
      writes_[element.tensor] = {true, pc_};
      defined_[element.tensor] = true;
    }
  }
}

// The condition is a Bool or a Bool tensor, true when every element is (§3.4).
void Method::RunJumpFalse(const fb::JumpFalseCall& call) {
  const Value& cond = values_[static_cast<size_t>(call.cond_value_index())];
  bool truth = false;
  if (cond.type == KernelTypes::Bool) {
    truth = cond.bool_value;
  } else if (cond.type == KernelTypes::Tensor &&
             tensors_[cond.tensor].scalar_type == static_cast<int8_t>(DType::kBool)) {
    const Tensor& t = tensors_[cond.tensor];
    if (t.data == nullptr && t.nbytes() != 0)
      Invalid(Str("the JumpFalse condition value ", call.cond_value_index(), " holds no data"));
    truth = true;
    for (uint64_t i = 0; i < t.numel(); ++i) truth = truth && t.data[i] != 0;
  } else {
    Invalid(Str("the JumpFalse condition value ", call.cond_value_index(),
                " is neither a Bool nor a BOOL tensor"));
  }
  if (truth) {
    Advance();
    return;
  }
  // A destination past the end (or negative, read as unsigned) ends the chain.
  pc_.instruction = static_cast<uint32_t>(call.destination_instruction());
  SkipFinishedChains();
}

void Method::Step() {
  const fb::Instruction* ins = InstructionAt(pc_);
  if (ins == nullptr) {
    SkipFinishedChains();
    return;
  }
  if (executed_ >= limits_.max_instructions)
    LimitHit(core_rules::kLimitInstructions, Str("the run reached --max-instructions ",
                                                 limits_.max_instructions, " at ", Describe(pc_)));
  ++executed_;
  switch (ins->instr_args_type()) {
    case fb::InstructionArguments::KernelCall:
      RunKernel(*ins->instr_args_as_KernelCall());
      Advance();
      return;
    case fb::InstructionArguments::DelegateCall: {
      const auto index = ins->instr_args_as_DelegateCall()->delegate_index();
      const auto* delegate = plan_.delegates()->Get(static_cast<uint32_t>(index));
      Unsupported(Str("delegate ", delegate->id() != nullptr ? delegate->id()->str() : "(no id)",
                      " (delegates[", index, "], called at ", Describe(pc_),
                      ") is a backend's compiled payload, which this executor does not run"));
    }
    case fb::InstructionArguments::MoveCall: {
      const auto* move = ins->instr_args_as_MoveCall();
      values_[static_cast<size_t>(move->move_to())] =
          values_[static_cast<size_t>(move->move_from())];
      Advance();
      return;
    }
    case fb::InstructionArguments::JumpFalseCall:
      RunJumpFalse(*ins->instr_args_as_JumpFalseCall());
      return;
    case fb::InstructionArguments::FreeCall: {
      const Value& v = values_[static_cast<size_t>(ins->instr_args_as_FreeCall()->value_index())];
      if (v.type != KernelTypes::Tensor)
        Invalid(Str("FreeCall at ", Describe(pc_), " names a value that is not a Tensor"));
      tensors_[v.tensor].data = nullptr;
      defined_[v.tensor] = false;
      Advance();
      return;
    }
    default:
      Invalid(Str(Describe(pc_), " has an unknown instruction type"));
  }
}

HostValue Method::Output(size_t i) const {
  const uint32_t v = static_cast<uint32_t>(plan_.outputs()->Get(static_cast<uint32_t>(i)));
  const Value& value = values_[v];
  HostValue out;
  out.type = value.type;
  switch (value.type) {
    case KernelTypes::Int:
      out.int_value = value.int_value;
      break;
    case KernelTypes::Bool:
      out.bool_value = value.bool_value;
      break;
    case KernelTypes::Double:
      out.double_value = value.double_value;
      break;
    case KernelTypes::String: {
      const auto* s = SerializedValue(plan_, v).val_as_String()->string_val();
      out.string_value = s != nullptr ? s->str() : "";
      break;
    }
    case KernelTypes::Tensor: {
      const Tensor& t = tensors_[value.tensor];
      out.tensor.scalar_type = t.scalar_type;
      out.tensor.sizes = t.sizes;
      out.tensor.bytes.assign(t.nbytes(), 0);
      if (t.data == nullptr || t.nbytes() == 0) break;
      if (t.contiguous() || !IsSupported(t.scalar_type)) {
        std::memcpy(out.tensor.bytes.data(), t.data, t.nbytes());
      } else {
        StridedCopy(t.sizes, t.data, t.dtype(), DimOrderStrides(t.sizes, t.dim_order),
                    out.tensor.bytes.data(), t.dtype(), ContiguousStrides(t.sizes));
      }
      break;
    }
    default:
      break;
  }
  return out;
}

std::vector<uint32_t> Method::TensorValuesOf(Position at) const {
  std::vector<uint32_t> out;
  const fb::Instruction* ins = InstructionAt(at);
  if (ins == nullptr) return out;
  auto add = [&](int32_t v) {
    if (v >= 0 && static_cast<size_t>(v) < values_.size() &&
        values_[static_cast<size_t>(v)].type == KernelTypes::Tensor)
      out.push_back(static_cast<uint32_t>(v));
  };
  if (const auto* call = ins->instr_args_as_KernelCall()) {
    for (const int32_t v : *call->args()) add(v);
  } else if (const auto* jump = ins->instr_args_as_JumpFalseCall()) {
    add(jump->cond_value_index());
  }
  return out;
}

std::vector<uint32_t> Method::WrittenTensorValuesOf(Position at) const {
  std::vector<uint32_t> out;
  const fb::Instruction* ins = InstructionAt(at);
  const auto* call = ins != nullptr ? ins->instr_args_as_KernelCall() : nullptr;
  if (call == nullptr || call->args()->size() == 0) return out;
  const int32_t ret = call->args()->Get(call->args()->size() - 1);
  const Value& value = values_[static_cast<size_t>(ret)];
  if (value.type == KernelTypes::Tensor) {
    out.push_back(static_cast<uint32_t>(ret));
  } else if (value.type == KernelTypes::TensorList) {
    for (const int32_t item :
         *SerializedValue(plan_, static_cast<uint32_t>(ret)).val_as_TensorList()->items()) {
      if (values_[static_cast<size_t>(item)].type == KernelTypes::Tensor)
        out.push_back(static_cast<uint32_t>(item));
    }
  }
  return out;
}

bool Method::Defined(uint32_t value) const {
  return value < values_.size() && values_[value].type == KernelTypes::Tensor &&
         defined_[values_[value].tensor];
}

const Tensor* Method::TensorOf(uint32_t value) const {
  if (value >= values_.size() || values_[value].type != KernelTypes::Tensor) return nullptr;
  return &tensors_[values_[value].tensor];
}

std::span<const uint8_t> Method::BytesOf(uint32_t value) const {
  const Tensor* t = TensorOf(value);
  if (t == nullptr || t->data == nullptr) return {};
  return {t->data, t->nbytes()};
}

}  // namespace accelcheck::pte::exec
