#include "conformance/pte/recipes.h"

#include <cstring>
#include <map>
#include <stdexcept>

#include "conformance/pte/serialize.h"
#include "validators/core/checked.h"
#include "validators/core/json_exception.h"
#include "validators/core/text.h"

namespace accelcheck::pte {

using namespace model;

namespace {

// Planned tensors and constants are 16-byte aligned (docs/formats/pte.md §1.2;
// exir/tensor.py ALIGNMENT).
constexpr uint64_t kTensorAlignment = 16;

[[noreturn]] void Fail(const std::string& what) { throw std::invalid_argument(what); }

void PadTo(std::vector<uint8_t>& bytes, uint64_t size) {
  if (bytes.size() < size) bytes.resize(size, 0);
}

}  // namespace

std::optional<uint64_t> ScalarTypeSize(int8_t scalar_type) {
  switch (scalar_type) {
    case 0:
    case 1:
    case 11:
    case 12:
    case 13:
    case 16:
    case 17:
    case 23:
    case 24:
    case 25:
    case 26:
      return 1;
    case 2:
    case 5:
    case 15:
    case 22:
    case 27:
      return 2;
    case 3:
    case 6:
    case 14:
    case 28:
      return 4;
    case 4:
    case 7:
    case 29:
      return 8;
    default:
      return std::nullopt;
  }
}

// ---------------------------------------------------------------------------
// PlanRecipe

PlanRecipe::PlanRecipe(ProgramRecipe* program, std::string name) : program_(program) {
  plan_.name = std::move(name);
  plan_.chains = Vec<Chain>{Chain{}};
  plan_.non_const_buffer_sizes = Vec<int64_t>{0, 0};
}

int PlanRecipe::value_count() const { return static_cast<int>(plan_.values->size()); }

int PlanRecipe::instruction_count() const {
  return static_cast<int>((*plan_.chains)[0].instructions->size());
}

int PlanRecipe::AddValue(EValue value) {
  plan_.values->push_back(std::move(value));
  return value_count() - 1;
}

int PlanRecipe::AddInstruction(Instruction instruction) {
  (*plan_.chains)[0].instructions->push_back(std::move(instruction));
  return instruction_count() - 1;
}

void PlanRecipe::CheckValue(int value, const char* what) const {
  if (value < 0 || value >= value_count())
    Fail(Str(what, " names value ", value, " but the plan has ", value_count()));
}

uint64_t PlanRecipe::TensorBytes(int8_t dtype, const Sizes& sizes) const {
  const std::optional<uint64_t> element = ScalarTypeSize(dtype);
  if (!element) Fail(Str("scalar type ", int{dtype}, " is not declared by the schema"));
  if (sizes.size() > 16)
    Fail(Str("a tensor of rank ", sizes.size(), " exceeds the 16 dimensions the runtime allows"));
  uint64_t n = *element;
  for (int32_t s : sizes) {
    if (s < 0) Fail(Str("tensor size ", s, " is negative"));
    const std::optional<uint64_t> product = CheckedMul(n, static_cast<uint64_t>(s));
    if (!product || *product > (uint64_t{1} << 40)) Fail("tensor is too large for a recipe");
    n = *product;
  }
  return n;
}

namespace {

Tensor MakeTensor(int8_t dtype, const std::vector<int32_t>& sizes, int8_t dynamism) {
  Tensor t;
  t.scalar_type = dtype;
  t.sizes = sizes;
  Vec<uint8_t> dim_order;
  for (size_t i = 0; i < sizes.size(); ++i) dim_order.push_back(static_cast<uint8_t>(i));
  t.dim_order = std::move(dim_order);
  t.shape_dynamism = dynamism;
  return t;
}

}  // namespace

int PlanRecipe::AddPlannedTensor(int8_t dtype, Sizes sizes, int8_t dynamism) {
  const uint64_t nbytes = TensorBytes(dtype, sizes);
  Tensor t = MakeTensor(dtype, sizes, dynamism);
  const uint64_t offset = AlignUp(planned_end_, kTensorAlignment);
  t.allocation = Allocation{1, static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)};
  planned_end_ = offset + nbytes;
  (*plan_.non_const_buffer_sizes)[1] =
      static_cast<int64_t>(AlignUp(planned_end_, kTensorAlignment));
  return AddValue(EValue::Of(std::move(t)));
}

int PlanRecipe::AddUnplannedTensor(int8_t dtype, Sizes sizes, int8_t dynamism) {
  TensorBytes(dtype, sizes);
  return AddValue(EValue::Of(MakeTensor(dtype, sizes, dynamism)));
}

int PlanRecipe::AddConstantTensor(int8_t dtype, Sizes sizes, Bytes bytes, ConstantPlace where) {
  PadTo(bytes, TensorBytes(dtype, sizes));
  Tensor t = MakeTensor(dtype, sizes, 0);
  t.data_buffer_idx = program_->AddConstant(std::move(bytes), where);
  return AddValue(EValue::Of(std::move(t)));
}

int PlanRecipe::AddMutableTensor(int8_t dtype, Sizes sizes, Bytes initial) {
  PadTo(initial, TensorBytes(dtype, sizes));
  const int value = AddPlannedTensor(dtype, sizes);
  std::get<Tensor>((*plan_.values)[static_cast<size_t>(value)].val).data_buffer_idx =
      program_->AddMutable(std::move(initial));
  return value;
}

int PlanRecipe::AddExternalTensor(int8_t dtype, Sizes sizes, std::string key, Bytes bytes) {
  if (key.empty()) Fail("an external tensor needs a key");
  PadTo(bytes, TensorBytes(dtype, sizes));
  Tensor t = MakeTensor(dtype, sizes, 0);
  program_->AddExternal({key, TensorLayout{dtype, t.sizes, t.dim_order}, std::move(bytes)});
  // Location EXTERNAL (1) without allocation_info: a constant resolved by
  // name from the named-data map (docs/formats/pte.md §2.5).
  t.extra = ExtraTensorInfo{0, std::move(key), 1};
  return AddValue(EValue::Of(std::move(t)));
}

int PlanRecipe::AddNull() { return AddValue(EValue::Of(Null{})); }
int PlanRecipe::AddInt(int64_t value) { return AddValue(EValue::Of(Int{value})); }
int PlanRecipe::AddBool(bool value) { return AddValue(EValue::Of(Bool{value})); }
int PlanRecipe::AddDouble(double value) { return AddValue(EValue::Of(Double{value})); }
int PlanRecipe::AddString(std::string value) {
  return AddValue(EValue::Of(String{std::move(value)}));
}

int PlanRecipe::AddIntList(const std::vector<int64_t>& items) {
  Vec<int64_t> boxed;
  for (int64_t item : items) boxed.push_back(AddInt(item));
  return AddValue(EValue::Of(IntList{std::move(boxed)}));
}

int PlanRecipe::AddDoubleList(std::vector<double> items) {
  return AddValue(EValue::Of(DoubleList{std::move(items)}));
}

int PlanRecipe::AddBoolList(const std::vector<bool>& items) {
  Vec<uint8_t> bytes(items.begin(), items.end());
  return AddValue(EValue::Of(BoolList{std::move(bytes)}));
}

namespace {

bool IsTensor(const EValue& v) { return std::holds_alternative<Tensor>(v.val); }

}  // namespace

int PlanRecipe::AddTensorList(std::vector<int32_t> tensors) {
  for (int32_t t : tensors) {
    CheckValue(t, "a TensorList item");
    if (!IsTensor((*plan_.values)[static_cast<size_t>(t)]))
      Fail(Str("TensorList item ", t, " is not a tensor"));
  }
  return AddValue(EValue::Of(TensorList{std::move(tensors)}));
}

int PlanRecipe::AddOptionalTensorList(std::vector<int32_t> tensors) {
  for (int32_t t : tensors) {
    if (t == -1) continue;
    CheckValue(t, "an OptionalTensorList item");
    const EValue& v = (*plan_.values)[static_cast<size_t>(t)];
    if (!IsTensor(v) && !std::holds_alternative<Null>(v.val)) {
      Fail(Str("OptionalTensorList item ", t, " is neither a tensor nor Null"));
    }
  }
  return AddValue(EValue::Of(OptionalTensorList{std::move(tensors)}));
}

void PlanRecipe::AddInput(int value) {
  CheckValue(value, "an input");
  plan_.inputs->push_back(value);
}

void PlanRecipe::AddOutput(int value) {
  CheckValue(value, "an output");
  plan_.outputs->push_back(value);
}

int PlanRecipe::AddOperator(std::string name, std::string overload) {
  if (name.empty()) Fail("an operator needs a name");
  if (name.size() + 1 + overload.size() >= 100)
    Fail(Str("operator name ", Quoted(name), " is too long"));
  plan_.operators->push_back(Operator{std::move(name), std::move(overload)});
  return static_cast<int>(plan_.operators->size()) - 1;
}

int PlanRecipe::AddDelegate(std::string backend_id, Bytes processed, DelegatePlace where,
                            std::vector<std::pair<std::string, std::string>> compile_specs) {
  if (backend_id.empty()) Fail("a delegate needs a backend id");
  BackendDelegate d;
  d.id = std::move(backend_id);
  d.processed = DataReference{static_cast<int8_t>(where == DelegatePlace::kInline ? 0 : 1), 0};
  for (auto& [key, value] : compile_specs) {
    d.compile_specs->push_back(CompileSpec{key, Vec<uint8_t>(value.begin(), value.end())});
  }
  plan_.delegates->push_back(std::move(d));
  delegate_blobs_.push_back(program_->delegate_blobs_.size());
  program_->delegate_blobs_.push_back({std::move(processed), where});
  return static_cast<int>(plan_.delegates->size()) - 1;
}

int PlanRecipe::KernelCall(int op, std::vector<int32_t> args, std::optional<int32_t> ret) {
  if (op < 0 || static_cast<size_t>(op) >= plan_.operators->size())
    Fail(Str("KernelCall names operator ", op));
  if (args.empty() && !ret) Fail("a KernelCall needs at least its out argument");
  for (int32_t a : args) CheckValue(a, "a KernelCall argument");
  const int32_t r = ret.value_or(args.empty() ? 0 : args.back());
  CheckValue(r, "a KernelCall return");
  args.push_back(r);
  return AddInstruction(Instruction::Of(model::KernelCall{op, std::move(args)}));
}

int PlanRecipe::PrimCall(int op, std::vector<int32_t> args) {
  if (op < 0 || static_cast<size_t>(op) >= plan_.operators->size())
    Fail(Str("KernelCall names operator ", op));
  if (args.empty()) Fail("a scalar op call needs at least the value it writes");
  for (int32_t a : args) CheckValue(a, "a KernelCall argument");
  return AddInstruction(Instruction::Of(model::KernelCall{op, std::move(args)}));
}

int PlanRecipe::DelegateCall(int delegate, std::vector<int32_t> args) {
  if (delegate < 0 || static_cast<size_t>(delegate) >= plan_.delegates->size()) {
    Fail(Str("DelegateCall names delegate ", delegate));
  }
  for (int32_t a : args) CheckValue(a, "a DelegateCall argument");
  return AddInstruction(Instruction::Of(model::DelegateCall{delegate, std::move(args)}));
}

int PlanRecipe::Move(int from, int to) {
  CheckValue(from, "a MoveCall source");
  CheckValue(to, "a MoveCall target");
  if ((*plan_.values)[static_cast<size_t>(from)].type !=
      (*plan_.values)[static_cast<size_t>(to)].type) {
    Fail(Str("MoveCall from value ", from, " to value ", to, " changes the value type"));
  }
  return AddInstruction(Instruction::Of(MoveCall{from, to}));
}

int PlanRecipe::JumpFalse(int cond, int destination) {
  CheckValue(cond, "a JumpFalseCall condition");
  const EValue& c = (*plan_.values)[static_cast<size_t>(cond)];
  const bool is_bool = std::holds_alternative<Bool>(c.val) ||
                       (IsTensor(c) && std::get<Tensor>(c.val).scalar_type == kBool);
  if (!is_bool) Fail(Str("JumpFalseCall condition ", cond, " is neither a Bool nor a BOOL tensor"));
  if (destination < 0) Fail(Str("JumpFalseCall destination ", destination, " is negative"));
  // Backward jumps on a constant false condition never terminate
  // (docs/formats/pte.md §4 PTE-62); a recipe only jumps forward or on a tensor.
  if (destination <= instruction_count() && std::holds_alternative<Bool>(c.val) &&
      !std::get<Bool>(c.val).value) {
    Fail("a backward JumpFalseCall on a constant false condition never terminates");
  }
  return AddInstruction(Instruction::Of(JumpFalseCall{cond, destination}));
}

int PlanRecipe::Free(int value) {
  CheckValue(value, "a FreeCall target");
  if (!IsTensor((*plan_.values)[static_cast<size_t>(value)]))
    Fail(Str("FreeCall target ", value, " is not a tensor"));
  return AddInstruction(Instruction::Of(FreeCall{value}));
}

// ---------------------------------------------------------------------------
// ProgramRecipe

PlanRecipe& ProgramRecipe::AddPlan(std::string name) {
  for (const PlanRecipe& p : plans_) {
    if (*p.plan_.name == name) Fail(Str("two plans are named ", Quoted(name)));
  }
  if (name.empty()) Fail("a plan needs a name");
  plans_.push_back(PlanRecipe(this, std::move(name)));
  return plans_.back();
}

void ProgramRecipe::AddNamedData(std::string key, std::vector<uint8_t> bytes) {
  if (key.empty()) Fail("named data needs a key");
  for (const auto& [k, b] : named_data_) {
    if (k == key) Fail(Str("two named data entries have the key ", Quoted(key)));
  }
  named_data_.emplace_back(std::move(key), std::move(bytes));
}

uint32_t ProgramRecipe::AddConstant(std::vector<uint8_t> bytes, ConstantPlace where) {
  if (constant_place_ && *constant_place_ != where) {
    Fail("constants of one program live in one store: the constant segment or constant_buffer");
  }
  constant_place_ = where;
  constants_.push_back(std::move(bytes));
  return static_cast<uint32_t>(constants_.size());
}

void ProgramRecipe::AddExternal(External external) {
  for (const External& e : externals_) {
    if (e.key == external.key)
      Fail(Str("two external tensors have the key ", Quoted(external.key)));
  }
  externals_.push_back(std::move(external));
}

uint32_t ProgramRecipe::AddMutable(std::vector<uint8_t> bytes) {
  mutables_.push_back(std::move(bytes));
  return static_cast<uint32_t>(mutables_.size());
}

namespace {

// Concatenates blobs at 16-byte aligned offsets after the reserved offset 0
// (docs/formats/pte.md §4 PTE-18, PTE-21).
std::pair<Vec<uint8_t>, Vec<uint64_t>> PackSubsegment(
    const std::vector<std::vector<uint8_t>>& blobs) {
  Vec<uint8_t> bytes;
  Vec<uint64_t> offsets{0};
  for (const auto& blob : blobs) {
    const uint64_t offset = AlignUp(bytes.size(), kTensorAlignment);
    bytes.resize(offset, 0);
    offsets.push_back(offset);
    bytes.insert(bytes.end(), blob.begin(), blob.end());
  }
  return {std::move(bytes), std::move(offsets)};
}

}  // namespace

File ProgramRecipe::Build() const {
  if (plans_.empty()) Fail("a program needs at least one plan");
  File file;
  Program& program = file.program;

  // Segment 0: the constant segment, present (possibly empty) as the writer
  // emits it, unless the constants live in the deprecated constant_buffer.
  if (constant_place_ == ConstantPlace::kInlineBuffer) {
    program.constant_segment = std::nullopt;
    program.constant_buffer->push_back(Buffer{Vec<uint8_t>{}});
    for (const auto& c : constants_) program.constant_buffer->push_back(Buffer{c});
  } else {
    auto [bytes, offsets] = PackSubsegment(constants_);
    file.segment_bytes.push_back(std::move(bytes));
    program.constant_segment = SubsegmentOffsets{0, std::move(offsets)};
  }
  if (!mutables_.empty()) {
    auto [bytes, offsets] = PackSubsegment(mutables_);
    program.mutable_data_segments = Vec<SubsegmentOffsets>{
        SubsegmentOffsets{static_cast<uint32_t>(file.segment_bytes.size()), std::move(offsets)}};
    file.segment_bytes.push_back(std::move(bytes));
  }
  // Delegate payloads: INLINE ones in backend_delegate_data, SEGMENT ones in
  // their own segment each.
  std::vector<uint32_t> blob_index;
  for (const Blob& blob : delegate_blobs_) {
    if (blob.place == DelegatePlace::kInline) {
      blob_index.push_back(static_cast<uint32_t>(program.backend_delegate_data->size()));
      program.backend_delegate_data->push_back(InlineData{blob.bytes});
    } else {
      blob_index.push_back(static_cast<uint32_t>(file.segment_bytes.size()));
      file.segment_bytes.push_back(blob.bytes);
    }
  }
  if (!named_data_.empty()) {
    program.named_data = Vec<NamedData>{};
    for (const auto& [key, bytes] : named_data_) {
      program.named_data->push_back(
          NamedData{key, static_cast<uint32_t>(file.segment_bytes.size())});
      file.segment_bytes.push_back(bytes);
    }
  }
  for (const PlanRecipe& p : plans_) {
    ExecutionPlan plan = p.plan_;
    for (size_t d = 0; d < plan.delegates->size(); ++d) {
      (*plan.delegates)[d].processed->index = blob_index[p.delegate_blobs_[d]];
    }
    program.execution_plan->push_back(std::move(plan));
  }
  if (constant_place_ == ConstantPlace::kInlineBuffer && file.segment_bytes.empty()) {
    program.segments = Vec<DataSegment>{};
  } else {
    LayoutSegments(file);
  }
  return file;
}

std::optional<PtdFile> ProgramRecipe::BuildPtd() const {
  if (externals_.empty()) return std::nullopt;
  PtdFile ptd;
  uint64_t end = 0;
  for (const External& e : externals_) {
    // Tensor data is 16-byte aligned in the .ptd like in the program.
    const uint64_t offset = AlignUp(end, kTensorAlignment);
    ptd.named_data->push_back(
        PtdNamedData{e.key, static_cast<uint32_t>(ptd.segments->size()), e.layout});
    ptd.segments->push_back(DataSegment{offset, e.bytes.size()});
    ptd.segment_bytes.push_back(e.bytes);
    end = offset + e.bytes.size();
  }
  return ptd;
}

// ---------------------------------------------------------------------------
// JSON recipes

namespace {

using nlohmann::json;

int8_t ParseDtype(const json& j) {
  static const std::map<std::string, int8_t> kNames = {
      {"byte", kByte}, {"char", kChar},   {"short", kShort},   {"int", kInt},  {"long", kLong},
      {"half", kHalf}, {"float", kFloat}, {"double", kDouble}, {"bool", kBool}};
  if (j.is_number_integer()) return static_cast<int8_t>(j.get<int>());
  const auto it = kNames.find(j.get<std::string>());
  if (it == kNames.end()) Fail(Str("unknown dtype ", Quoted(j.get<std::string>())));
  return it->second;
}

int8_t ParseDynamism(const json& t) {
  const std::string d = t.value("dynamism", "static");
  if (d == "static") return 0;
  if (d == "dynamic_bound") return 1;
  if (d == "dynamic_unbound") return 2;
  Fail(Str("unknown dynamism ", Quoted(d)));
}

template <typename T>
void AppendLE(std::vector<uint8_t>& out, T value) {
  uint8_t raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  out.insert(out.end(), raw, raw + sizeof(T));
}

// Tensor data from JSON numbers, stored as the dtype's little-endian bytes.
std::vector<uint8_t> EncodeData(int8_t dtype, const json& data) {
  std::vector<uint8_t> out;
  for (const json& x : data) {
    switch (dtype) {
      case kFloat:
        AppendLE(out, x.get<float>());
        break;
      case kDouble:
        AppendLE(out, x.get<double>());
        break;
      case kInt:
        AppendLE(out, x.get<int32_t>());
        break;
      case kLong:
        AppendLE(out, x.get<int64_t>());
        break;
      case kShort:
        AppendLE(out, x.get<int16_t>());
        break;
      case kByte:
      case kChar:
      case kBool:
        AppendLE(out, static_cast<uint8_t>(x.get<int>()));
        break;
      default:
        Fail(Str("tensor data is not supported for dtype ", int{dtype}));
    }
  }
  return out;
}

std::vector<uint8_t> ParsePayload(const json& p) {
  std::vector<uint8_t> out;
  if (p.is_string()) {
    const std::string hex = p.get<std::string>();
    if (hex.size() % 2 != 0) Fail("a hex payload needs an even number of digits");
    for (size_t i = 0; i < hex.size(); i += 2) {
      out.push_back(static_cast<uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
    }
    return out;
  }
  const uint64_t size = p.at("size").get<uint64_t>();
  if (size > (uint64_t{1} << 24)) Fail("a payload in a recipe is limited to 16 MiB");
  out.assign(size, static_cast<uint8_t>(p.value("fill", 0)));
  return out;
}

// The array under `key`, or an empty one (iterating a json temporary trips
// g++ 12's maybe-uninitialized warning inside nlohmann).
const json& Items(const json& j, const char* key) {
  static const json kEmpty = json::array();
  const auto it = j.find(key);
  return it == j.end() ? kEmpty : *it;
}

struct PlanNames {
  std::map<std::string, int> values;
  std::map<std::string, int> delegates;
  std::map<std::string, int> operators;
};

int Lookup(const std::map<std::string, int>& names, const json& ref, const char* what) {
  if (ref.is_number_integer()) return ref.get<int>();
  const auto it = names.find(ref.get<std::string>());
  if (it == names.end()) Fail(Str("unknown ", what, " ", Quoted(ref.get<std::string>())));
  return it->second;
}

std::vector<int32_t> LookupAll(const std::map<std::string, int>& names, const json& refs,
                               bool allow_null) {
  std::vector<int32_t> out;
  for (const json& r : refs) {
    if (allow_null && r.is_null()) {
      out.push_back(-1);
    } else {
      out.push_back(Lookup(names, r, "value"));
    }
  }
  return out;
}

int AddJsonTensor(PlanRecipe& plan, const json& t) {
  const int8_t dtype = ParseDtype(t.at("dtype"));
  const auto sizes = t.at("sizes").get<std::vector<int32_t>>();
  const std::string memory = t.value("memory", "planned");
  const std::vector<uint8_t> data =
      t.contains("data") ? EncodeData(dtype, t.at("data")) : std::vector<uint8_t>{};
  if (memory == "planned") return plan.AddPlannedTensor(dtype, sizes, ParseDynamism(t));
  if (memory == "none") return plan.AddUnplannedTensor(dtype, sizes, ParseDynamism(t));
  if (memory == "mutable") return plan.AddMutableTensor(dtype, sizes, data);
  if (memory == "external")
    return plan.AddExternalTensor(dtype, sizes, t.at("key").get<std::string>(), data);
  if (memory == "constant") {
    const std::string place = t.value("place", "segment");
    if (place != "segment" && place != "inline")
      Fail(Str("unknown constant place ", Quoted(place)));
    return plan.AddConstantTensor(
        dtype, sizes, data,
        place == "segment" ? ConstantPlace::kSegment : ConstantPlace::kInlineBuffer);
  }
  Fail(Str("unknown tensor memory ", Quoted(memory)));
}

int AddJsonValue(PlanRecipe& plan, const PlanNames& names, const json& v) {
  if (v.contains("tensor")) return AddJsonTensor(plan, v.at("tensor"));
  if (v.contains("int")) return plan.AddInt(v.at("int").get<int64_t>());
  if (v.contains("double")) return plan.AddDouble(v.at("double").get<double>());
  if (v.contains("bool")) return plan.AddBool(v.at("bool").get<bool>());
  if (v.contains("string")) return plan.AddString(v.at("string").get<std::string>());
  if (v.contains("int_list")) return plan.AddIntList(v.at("int_list").get<std::vector<int64_t>>());
  if (v.contains("double_list"))
    return plan.AddDoubleList(v.at("double_list").get<std::vector<double>>());
  if (v.contains("bool_list")) return plan.AddBoolList(v.at("bool_list").get<std::vector<bool>>());
  if (v.contains("tensor_list"))
    return plan.AddTensorList(LookupAll(names.values, v.at("tensor_list"), false));
  if (v.contains("optional_tensor_list")) {
    return plan.AddOptionalTensorList(LookupAll(names.values, v.at("optional_tensor_list"), true));
  }
  if (v.contains("null")) return plan.AddNull();
  Fail(Str("value ", v.dump(), " has no known kind"));
}

int OperatorFor(PlanRecipe& plan, PlanNames& names, const std::string& qualified) {
  const auto it = names.operators.find(qualified);
  if (it != names.operators.end()) return it->second;
  const size_t ns = qualified.find("::");
  const size_t dot = qualified.rfind('.');
  const bool has_overload = dot != std::string::npos && (ns == std::string::npos || dot > ns);
  const int op = has_overload
                     ? plan.AddOperator(qualified.substr(0, dot), qualified.substr(dot + 1))
                     : plan.AddOperator(qualified, "");
  names.operators[qualified] = op;
  return op;
}

void AddJsonInstruction(PlanRecipe& plan, PlanNames& names, const json& i) {
  if (i.contains("kernel")) {
    const int op = OperatorFor(plan, names, i.at("kernel").get<std::string>());
    std::vector<int32_t> args = LookupAll(names.values, i.at("args"), false);
    if (i.contains("ret") && i.at("ret").is_null()) {
      plan.PrimCall(op, std::move(args));
    } else {
      std::optional<int32_t> ret;
      if (i.contains("ret")) ret = Lookup(names.values, i.at("ret"), "value");
      plan.KernelCall(op, std::move(args), ret);
    }
  } else if (i.contains("delegate")) {
    plan.DelegateCall(Lookup(names.delegates, i.at("delegate"), "delegate"),
                      LookupAll(names.values, i.at("args"), false));
  } else if (i.contains("move")) {
    const json& m = i.at("move");
    plan.Move(Lookup(names.values, m.at(0), "value"), Lookup(names.values, m.at(1), "value"));
  } else if (i.contains("jump_false")) {
    plan.JumpFalse(Lookup(names.values, i.at("jump_false"), "value"), i.at("to").get<int>());
  } else if (i.contains("free")) {
    plan.Free(Lookup(names.values, i.at("free"), "value"));
  } else {
    Fail(Str("instruction ", i.dump(), " has no known kind"));
  }
}

// Adds the plan and returns the indices of the values it names.
std::map<std::string, int> AddJsonPlan(ProgramRecipe& program, const json& p) {
  PlanRecipe& plan = program.AddPlan(p.value("name", "forward"));
  PlanNames names;
  for (const json& v : Items(p, "values")) {
    const int index = AddJsonValue(plan, names, v);
    if (v.contains("name")) names.values[v.at("name").get<std::string>()] = index;
  }
  for (const json& d : Items(p, "delegates")) {
    std::vector<std::pair<std::string, std::string>> specs;
    if (d.contains("compile_specs")) {
      for (const auto& [key, value] : d.at("compile_specs").items())
        specs.emplace_back(key, value.get<std::string>());
    }
    const std::string place = d.value("place", "inline");
    if (place != "inline" && place != "segment")
      Fail(Str("unknown delegate place ", Quoted(place)));
    const int index = plan.AddDelegate(
        d.at("backend").get<std::string>(), ParsePayload(d.at("payload")),
        place == "inline" ? DelegatePlace::kInline : DelegatePlace::kSegment, std::move(specs));
    names.delegates[d.value("name", d.at("backend").get<std::string>())] = index;
  }
  for (const json& v : Items(p, "inputs")) plan.AddInput(Lookup(names.values, v, "value"));
  for (const json& v : Items(p, "outputs")) plan.AddOutput(Lookup(names.values, v, "value"));
  for (const json& i : Items(p, "instructions")) AddJsonInstruction(plan, names, i);
  return std::move(names.values);
}

}  // namespace

RecipeFiles BuildRecipeFiles(const json& recipe) {
  ProgramRecipe program;
  std::vector<std::map<std::string, int>> value_names;
  try {
    for (const json& p : recipe.at("plans")) value_names.push_back(AddJsonPlan(program, p));
    for (const json& n : Items(recipe, "named_data")) {
      program.AddNamedData(n.at("key").get<std::string>(), ParsePayload(n.at("payload")));
    }
  } catch (const json::exception& e) {
    Fail(Str("bad recipe: ", JsonExceptionText(e.what())));
  }
  return RecipeFiles{program.Build(), program.BuildPtd(), std::move(value_names)};
}

File BuildRecipe(const json& recipe) { return BuildRecipeFiles(recipe).program; }

}  // namespace accelcheck::pte
