// Tensors: dtype, shape, dim_order, sizes, dynamism and where the data comes
// from (docs/formats/pte.md §4 E, PTE-44 to PTE-51, PTE-51d against a companion .ptd).
#include <bitset>

#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/pte/validate.h"

namespace accelcheck::pte {

namespace {

constexpr uint32_t kTensorDimensionLimit = 16;  // runtime/core/exec_aten kTensorDimensionLimit
constexpr uint64_t kMemoryAlignment = 16;

// Everything a tensor check needs to report, and the fields several checks
// read, looked up once.
struct TensorRef {
  const ProgramContext& ctx;
  const fb::ExecutionPlan& plan;
  const fb::Tensor& tensor;
  uint32_t p;
  uint32_t i;
  const flatbuffers::Vector<int64_t>* buffer_sizes;  // the plan's non_const_buffer_sizes
  const flatbuffers::Vector<int32_t>* sizes = tensor.sizes();
  const fb::AllocationDetails* allocation = tensor.allocation_info();
  const fb::ExtraTensorInfo* extra = tensor.extra_tensor_info();
  int8_t scalar_type = static_cast<int8_t>(tensor.scalar_type());
  uint32_t data_buffer_idx = tensor.data_buffer_idx();

  std::string Path(std::string_view field) const { return Str(ValuePath(p, i), ".val.", field); }
  void Report(const Rule& rule, const void* at, std::string_view field, std::string message) const {
    ctx.Report(rule, at ? at : &tensor, Path(field), std::move(message));
  }
};

// PTE-44: only the declared ScalarType values.
void CheckScalarType(const TensorRef& t) {
  const int8_t type = t.scalar_type;
  if (!IsDeclaredScalarType(type)) {
    t.Report(rules::kTensorScalarType, nullptr, "scalar_type",
             Str("scalar_type ", static_cast<int>(type), " is not a declared ScalarType"));
  }
}

// PTE-45: the runtime rejects other storage offsets with NotSupported.
void CheckStorageOffset(const TensorRef& t) {
  if (t.tensor.storage_offset() != 0) {
    t.Report(rules::kTensorStorageOffset, nullptr, "storage_offset",
             Str("storage_offset is ", t.tensor.storage_offset(), ", expected 0"));
  }
}

// PTE-46: sizes present, rank within the limit, no negative size.
bool CheckSizes(const TensorRef& t) {
  const auto* sizes = t.sizes;
  if (sizes == nullptr) {
    t.Report(rules::kTensorSizesMissing, nullptr, "sizes", "the tensor has no sizes vector");
    return false;
  }
  if (sizes->size() > kTensorDimensionLimit) {
    t.Report(rules::kTensorRank, sizes, "sizes",
             Str("rank ", sizes->size(), " exceeds kTensorDimensionLimit ", kTensorDimensionLimit));
  }
  bool ok = true;
  for (uint32_t d = 0; d < sizes->size(); ++d) {
    if (sizes->Get(d) >= 0) continue;
    t.Report(rules::kTensorSizeNegative, sizes->data() + d, Str("sizes[", d, "]"),
             Str("size ", sizes->Get(d), " of dimension ", d, " is negative"));
    ok = false;
  }
  return ok;
}

// PTE-47: dim_order is a permutation of [0, rank).
void CheckDimOrder(const TensorRef& t) {
  const auto* sizes = t.sizes;
  const auto* order = t.tensor.dim_order();
  if (order == nullptr) {
    t.Report(rules::kTensorDimOrder, nullptr, "dim_order", "the tensor has no dim_order vector");
    return;
  }
  if (sizes == nullptr) return;
  if (order->size() != sizes->size()) {
    t.Report(rules::kTensorDimOrder, order, "dim_order",
             Str("dim_order has ", order->size(), " entries, sizes has ", sizes->size()));
    return;
  }
  std::bitset<256> seen;
  for (uint32_t d = 0; d < order->size(); ++d) {
    const uint8_t dim = order->Get(d);
    if (dim >= order->size() || seen[dim]) {
      t.Report(rules::kTensorDimOrder, order->data() + d, Str("dim_order[", d, "]"),
               Str("dim_order entry ", static_cast<int>(dim),
                   dim >= order->size() ? Str(" is not below the rank ", order->size())
                                        : std::string(" repeats")));
      return;
    }
    seen.set(dim);
  }
}

// PTE-48: numel and nbytes fit in 64 bits (the runtime multiplies unchecked).
// Sets `nbytes` when the type has an element size.
void CheckNumel(const TensorRef& t, std::optional<uint64_t>& nbytes) {
  const auto* sizes = t.sizes;
  const uint64_t element = ElementSize(t.scalar_type);
  uint64_t numel = 1;
  for (const int32_t size : *sizes) {
    const auto product = CheckedMulSigned(static_cast<int64_t>(numel), size);
    if (!product) {
      t.Report(rules::kTensorNumelOverflow, sizes, "sizes",
               "the product of sizes overflows a signed 64-bit numel");
      return;
    }
    numel = static_cast<uint64_t>(*product);
  }
  if (element == 0) return;
  const auto product = CheckedMul(numel, element);
  if (!product || *product > static_cast<uint64_t>(INT64_MAX)) {
    t.Report(rules::kTensorNumelOverflow, sizes, "sizes",
             Str("numel ", numel, " * element size ", element, " overflows 64 bits"));
    return;
  }
  nbytes = product;
}

// PTE-49, PTE-50: dynamism and layout enums.
void CheckDynamismAndLayout(const TensorRef& t) {
  const auto dynamism = static_cast<int8_t>(t.tensor.shape_dynamism());
  if (dynamism < 0 || dynamism > 2) {
    t.Report(rules::kTensorDynamism, nullptr, "shape_dynamism",
             Str("shape_dynamism ", static_cast<int>(dynamism),
                 " is not STATIC, DYNAMIC_BOUND or "
                 "DYNAMIC_UNBOUND"));
  } else if (dynamism == static_cast<int8_t>(fb::TensorShapeDynamism::DYNAMIC_UNBOUND)) {
    t.Report(rules::kTensorDynamicUnbound, nullptr, "shape_dynamism",
             "the tensor is DYNAMIC_UNBOUND, which the portable runtime does not support");
  }
  if (const int8_t layout = t.tensor.layout(); layout != 0) {
    t.Report(rules::kTensorLayout, nullptr, "layout",
             Str("layout is ", static_cast<int>(layout), ", expected 0 (Strided)"));
  }
}

// PTE-51e, PTE-51f: extra_tensor_info enums and the ignored mutable index.
void CheckExtraInfo(const TensorRef& t) {
  const auto* extra = t.extra;
  if (extra == nullptr) return;
  const auto location = static_cast<int8_t>(extra->location());
  const auto device = static_cast<int8_t>(extra->device_type());
  if (location < 0 || location > 1) {
    t.Report(rules::kTensorLocation, extra, "extra_tensor_info.location",
             Str("location ", static_cast<int>(location), " is not SEGMENT (0) or EXTERNAL (1)"));
  }
  if (device < 0 || device > 1) {
    t.Report(rules::kTensorLocation, extra, "extra_tensor_info.device_type",
             Str("device_type ", static_cast<int>(device), " is not CPU (0) or CUDA (1)"));
  }
  if (extra->mutable_data_segments_idx() != 0) {
    t.Report(rules::kTensorMutableSegmentsIdx, extra, "extra_tensor_info.mutable_data_segments_idx",
             Str("mutable_data_segments_idx is ", extra->mutable_data_segments_idx(),
                 "; the runtime always reads entry 0"));
  }
}

// PTE-51a, PTE-22: a constant in the constant segment.
void CheckSegmentConstant(const TensorRef& t, std::optional<uint64_t> nbytes) {
  const auto& program = t.ctx.program;
  const auto* offsets = program.constant_segment()->offsets();
  const uint32_t idx = t.data_buffer_idx;
  if (idx >= offsets->size()) {
    t.Report(rules::kTensorConstantIndex, nullptr, "data_buffer_idx",
             Str("data_buffer_idx ", idx, " names no constant (", offsets->size(),
                 " constant_segment offsets)"));
    return;
  }
  const auto* segments = program.segments();
  const uint32_t s = program.constant_segment()->segment_index();
  if (!nbytes || segments == nullptr || s >= segments->size()) return;
  const uint64_t offset = offsets->Get(idx);
  const uint64_t size = segments->Get(s)->size();
  const auto end = CheckedAdd(offset, *nbytes);
  if (!end || *end > size) {
    t.Report(rules::kConstantTensorBounds, nullptr, "data_buffer_idx",
             Str("constant ", idx, " at offset ", Hex(offset), " + nbytes ", Hex(*nbytes),
                 " (from the start of segment ", s, ") exceeds its size ", Hex(size)));
  } else if (!t.ctx.constant_limits.empty() && *end > t.ctx.constant_limits[idx]) {
    t.Report(rules::kConstantTensorOverlap, nullptr, "data_buffer_idx",
             Str("constant ", idx, " at offset ", Hex(offset), " + nbytes ", Hex(*nbytes),
                 " runs into the next constant at ", Hex(t.ctx.constant_limits[idx]),
                 " (offsets from the start of its segment)"));
  }
}

// PTE-51a, PTE-23: a constant in the deprecated constant_buffer.
void CheckBufferConstant(const TensorRef& t, std::optional<uint64_t> nbytes) {
  const auto* buffers = t.ctx.program.constant_buffer();
  const uint32_t idx = t.data_buffer_idx;
  if (buffers == nullptr || idx >= buffers->size()) {
    t.Report(rules::kTensorConstantIndex, nullptr, "data_buffer_idx",
             Str("data_buffer_idx ", idx, " names no constant (", buffers ? buffers->size() : 0,
                 " constant_buffer entries)"));
    return;
  }
  const auto* storage = buffers->Get(idx)->storage();
  const uint64_t have = storage ? storage->size() : 0;
  if (nbytes && *nbytes > have) {
    t.Report(rules::kConstantBufferSize, nullptr, "data_buffer_idx",
             Str("constant ", idx, " needs nbytes ", Hex(*nbytes), " but constant_buffer[", idx,
                 "] holds ", Hex(have)));
  }
}

void CheckConstant(const TensorRef& t, std::optional<uint64_t> nbytes) {
  const auto* segment = t.ctx.program.constant_segment();
  if (segment != nullptr && segment->offsets() != nullptr && segment->offsets()->size() > 0) {
    CheckSegmentConstant(t, nbytes);
  } else {
    CheckBufferConstant(t, nbytes);
  }
}

// PTE-51b: the initial value of a mutable tensor in mutable_data_segments[0].
void CheckMutable(const TensorRef& t, std::optional<uint64_t> nbytes) {
  const auto& program = t.ctx.program;
  const auto* mutables = program.mutable_data_segments();
  const uint32_t idx = t.data_buffer_idx;
  const auto* offsets = mutables && mutables->size() > 0 ? mutables->Get(0)->offsets() : nullptr;
  if (offsets == nullptr || idx >= offsets->size()) {
    t.Report(rules::kTensorMutableIndex, nullptr, "data_buffer_idx",
             Str("data_buffer_idx ", idx, " names no offset of mutable_data_segments[0] (",
                 offsets ? offsets->size() : 0, " offsets)"));
    return;
  }
  const uint32_t s = mutables->Get(0)->segment_index();
  const auto* segments = program.segments();
  if (!nbytes || segments == nullptr || s >= segments->size()) return;
  const uint64_t offset = offsets->Get(idx);
  const uint64_t size = segments->Get(s)->size();
  const auto end = CheckedAdd(offset, *nbytes);
  if (!end || *end > size) {
    t.Report(rules::kTensorMutableBounds, nullptr, "data_buffer_idx",
             Str("initial value ", idx, " at offset ", Hex(offset), " + nbytes ", Hex(*nbytes),
                 " (from the start of mutable segment ", s, ") exceeds its size ", Hex(size)));
  }
}

// PTE-51c: planned memory lies inside a declared planned buffer.
void CheckPlanned(const TensorRef& t, std::optional<uint64_t> nbytes) {
  const auto* info = t.allocation;
  const auto* sizes = t.buffer_sizes;
  const uint32_t id = info->memory_id();
  const uint32_t buffers = sizes ? sizes->size() : 0;
  const uint64_t offset =
      uint64_t{info->memory_offset_low()} | (uint64_t{info->memory_offset_high()} << 32);
  if (id < 1 || id >= buffers) {
    t.Report(rules::kTensorMemoryId, info, "allocation_info.memory_id",
             Str("memory_id ", id, " names no planned buffer [1, ", buffers, ")"));
  } else if (nbytes && sizes->Get(id) >= 0) {
    const uint64_t size = static_cast<uint64_t>(sizes->Get(id));
    const auto end = CheckedAdd(offset, *nbytes);
    if (!end || *end > size) {
      t.Report(rules::kTensorMemoryBounds, info, "allocation_info",
               Str("offset ", Hex(offset), " + nbytes ", Hex(*nbytes), " exceeds planned buffer ",
                   id, " size ", Hex(size)));
    }
  }
  if (offset % kMemoryAlignment != 0) {
    t.Report(rules::kTensorMemoryAlign, info, "allocation_info",
             Str("memory offset ", Hex(offset), " is not a multiple of 0x10"));
  }
}

bool SameLayout(const fb::Tensor& tensor, const flat_tensor_flatbuffer::TensorLayout& layout) {
  const auto equal = [](const auto* a, const auto* b) {
    if (a == nullptr || b == nullptr) return a == b;
    if (a->size() != b->size()) return false;
    for (uint32_t k = 0; k < a->size(); ++k) {
      if (a->Get(k) != b->Get(k)) return false;
    }
    return true;
  };
  return tensor.scalar_type() == layout.scalar_type() && equal(tensor.sizes(), layout.sizes()) &&
         equal(tensor.dim_order(), layout.dim_order());
}

// PTE-51d: EXTERNAL tensors are named, and match the companion .ptd.
void CheckExternal(const TensorRef& t) {
  const auto* name = t.extra->fully_qualified_name();
  if (name == nullptr || name->size() == 0) {
    t.Report(rules::kTensorExternalName, t.extra, "extra_tensor_info.fully_qualified_name",
             "the EXTERNAL tensor has no fully_qualified_name");
    return;
  }
  if (t.ctx.companion == nullptr) return;
  const auto found = t.ctx.companion->find(name->string_view());
  if (found == t.ctx.companion->end()) {
    t.Report(rules::kExternalKeyMissing, name, "extra_tensor_info.fully_qualified_name",
             Str("key ", Quoted(name->string_view()), " is not in the named-data file"));
  } else if (found->second != nullptr && !SameLayout(t.tensor, *found->second)) {
    t.Report(rules::kExternalLayout, name, "extra_tensor_info.fully_qualified_name",
             Str("dtype, sizes or dim_order differ from the layout of key ",
                 Quoted(name->string_view()), " in the named-data file"));
  }
}

void CheckDataSource(const TensorRef& t, DataSource source, std::optional<uint64_t> nbytes) {
  switch (source) {
    case DataSource::kConstant:
      CheckConstant(t, nbytes);
      break;
    case DataSource::kMutable:
      CheckMutable(t, nbytes);
      break;
    case DataSource::kExternal:
      CheckExternal(t);
      break;
    case DataSource::kPlanned:
    case DataSource::kRuntime:
      break;
  }
  if (t.allocation != nullptr) CheckPlanned(t, nbytes);
}

// The planned bytes of the tensor, for the memory plan pass; zero-byte
// tensors hold none, so they never overlap.
void RecordPlanned(const TensorRef& t, std::optional<uint64_t> nbytes, PlanFacts& facts) {
  const auto* info = t.allocation;
  if (info == nullptr || !nbytes || *nbytes == 0) return;
  const uint64_t offset =
      uint64_t{info->memory_offset_low()} | (uint64_t{info->memory_offset_high()} << 32);
  const auto end = CheckedAdd(offset, *nbytes);
  if (!end) return;  // pte.tensor.memory_bounds
  facts.planned.push_back(PlannedRange{offset, *end, info->memory_id(), t.i});
}

void CheckTensor(const TensorRef& t, PlanFacts& facts) {
  CheckScalarType(t);
  CheckStorageOffset(t);
  const bool sizes_ok = CheckSizes(t);
  CheckDimOrder(t);
  std::optional<uint64_t> nbytes;
  if (sizes_ok) CheckNumel(t, nbytes);
  CheckDynamismAndLayout(t);
  CheckExtraInfo(t);
  const DataSource source = SourceOf(t.extra, t.allocation != nullptr, t.data_buffer_idx);
  facts.values[t.i].source = source;
  CheckDataSource(t, source, nbytes);
  RecordPlanned(t, nbytes, facts);
}

}  // namespace

std::vector<uint64_t> ConstantLimits(const fb::Program& program) {
  const auto* constant = program.constant_segment();
  const auto* offsets = constant ? constant->offsets() : nullptr;
  const auto* segments = program.segments();
  if (offsets == nullptr || segments == nullptr || constant->segment_index() >= segments->size()) {
    return {};
  }
  const uint32_t n = offsets->size();
  for (uint32_t k = 1; k < n; ++k) {
    if (offsets->Get(k) < offsets->Get(k - 1)) return {};
  }
  std::vector<uint64_t> limits(n);
  uint64_t next = segments->Get(constant->segment_index())->size();
  for (uint32_t k = n; k-- > 0;) {
    limits[k] = next;
    if (k > 0 && offsets->Get(k - 1) < offsets->Get(k)) next = offsets->Get(k);
  }
  return limits;
}

void ValidateTensors(const ProgramContext& ctx, const fb::ExecutionPlan& plan, uint32_t p,
                     PlanFacts& facts) {
  const auto* values = plan.values();
  if (values == nullptr) return;
  const auto* buffer_sizes = plan.non_const_buffer_sizes();
  facts.planned.reserve(values->size());  // an upper bound; untouched capacity costs nothing
  for (uint32_t i = 0; i < values->size(); ++i) {
    if (facts.TypeOf(i) != fb::KernelTypes::Tensor) continue;
    const auto* tensor = static_cast<const fb::Tensor*>(values->Get(i)->val());
    if (tensor == nullptr) continue;
    CheckTensor(TensorRef{ctx, plan, *tensor, p, i, buffer_sizes}, facts);
  }
}

}  // namespace accelcheck::pte
