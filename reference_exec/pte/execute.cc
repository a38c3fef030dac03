#include "reference_exec/pte/execute.h"

#include <algorithm>
#include <memory>
#include <new>

#include "validators/core/text.h"

namespace accelcheck::pte::exec {

namespace {

// Runs f, turning every way it can fail into a Failure of `mode`.
template <typename F>
std::optional<Failure> Guarded(MemoryMode mode, F&& f) {
  try {
    f();
    return std::nullopt;
  } catch (const RunFailure& e) {
    return Failure{e.outcome(), e.limit(), e.what(), MemoryModeName(mode)};
  } catch (const std::bad_alloc&) {
    return Failure{Outcome::kInternal, nullptr, "memory was exhausted", MemoryModeName(mode)};
  } catch (const std::exception& e) {
    return Failure{Outcome::kInternal, nullptr, Str("executor failure: ", e.what()),
                   MemoryModeName(mode)};
  }
}

std::string Range(uint32_t memory_id, uint64_t offset, uint64_t end) {
  return Str("[", Hex(offset), ", ", Hex(end), ") of buffer ", memory_id);
}

// Names the planned tensors whose bytes overlap `value`'s, and who wrote
// them: the explanation of a difference (docs/formats/pte.md "Reference executor").
Difference Explain(const Method& planned, uint32_t value, Position at, bool after) {
  Difference d;
  d.instruction = planned.Describe(at);
  d.after = after;
  d.value = value;
  const Tensor* a = planned.TensorOf(value);
  std::string text = Str("value ", value, after ? " written by " : " read by ", d.instruction,
                         " differs between separate and planned memory");
  if (a == nullptr || !a->planned) {
    d.message = text + " (it is not planned: values computed from it differed first)";
    return d;
  }
  d.memory_id = a->memory_id;
  d.offset = a->memory_offset;
  d.end = a->memory_offset + a->capacity_bytes();
  const Method::Write& own = planned.LastWrite(static_cast<uint32_t>(a - planned.tensors().data()));
  if (own.written) d.written_by = planned.Describe(own.at);
  const auto& tensors = planned.tensors();
  for (uint32_t k = 0; k < tensors.size(); ++k) {
    const Tensor& b = tensors[k];
    if (&b == a || !b.planned || b.memory_id != a->memory_id || b.capacity_bytes() == 0) continue;
    const uint64_t b_end = b.memory_offset + b.capacity_bytes();
    if (b.memory_offset >= d.end || d.offset >= b_end) continue;
    const Method::Write& w = planned.LastWrite(k);
    d.overlaps.push_back(
        {b.value, b.memory_id, b.memory_offset, b_end, w.written ? planned.Describe(w.at) : ""});
  }
  text += Str("; in planned memory its bytes ", Range(d.memory_id, d.offset, d.end));
  if (!d.written_by.empty()) text += Str(" (written by ", d.written_by, ")");
  if (d.overlaps.empty()) {
    text += " overlap no other planned tensor";
  } else {
    text += " overlap";
    for (size_t k = 0; k < d.overlaps.size(); ++k) {
      const Overlap& o = d.overlaps[k];
      text += Str(k ? "," : "", " value ", o.value, " ", Range(o.memory_id, o.offset, o.end));
      text += o.written_by.empty() ? " (not written)" : Str(" (written by ", o.written_by, ")");
    }
  }
  d.message = text;
  return d;
}

bool SameBytes(const Method& x, const Method& y, uint32_t value) {
  const Tensor* a = x.TensorOf(value);
  const Tensor* b = y.TensorOf(value);
  if (a == nullptr || b == nullptr) return true;
  if (a->sizes != b->sizes) return false;
  const auto p = x.BytesOf(value);
  const auto q = y.BytesOf(value);
  return p.size() == q.size() && std::equal(p.begin(), p.end(), q.begin());
}

// The first tensor of `values` whose bytes differ between the two runs,
// among those that hold something (the separate run decides: the out of a
// kernel not yet run holds garbage in both).
std::optional<uint32_t> FirstDifferent(const Method& separate, const Method& planned,
                                       const std::vector<uint32_t>& values) {
  for (const uint32_t v : values) {
    if (separate.Defined(v) && !SameBytes(separate, planned, v)) return v;
  }
  return std::nullopt;
}

bool SameOutput(const HostValue& a, const HostValue& b) {
  return a.type == b.type && a.int_value == b.int_value && a.bool_value == b.bool_value &&
         (a.double_value == b.double_value || (a.double_value != a.double_value)) &&
         a.string_value == b.string_value && a.tensor.sizes == b.tensor.sizes &&
         a.tensor.bytes == b.tensor.bytes;
}

}  // namespace

std::string_view MemoryName(Memory memory) {
  switch (memory) {
    case Memory::kSeparate:
      return "separate";
    case Memory::kPlanned:
      return "planned";
    case Memory::kBoth:
      return "both";
  }
  return "?";
}

std::optional<Memory> ParseMemory(std::string_view name) {
  for (const Memory memory : {Memory::kSeparate, Memory::kPlanned, Memory::kBoth}) {
    if (MemoryName(memory) == name) return memory;
  }
  return std::nullopt;
}

RunResult Run(const LoadedProgram& program, const fb::ExecutionPlan& plan,
              const std::vector<HostTensor>& inputs, const RunOptions& options,
              const RunControl& control) {
  RunResult result;
  std::vector<MemoryMode> modes;
  if (options.memory != Memory::kPlanned) modes.push_back(MemoryMode::kSeparate);
  if (options.memory != Memory::kSeparate) modes.push_back(MemoryMode::kPlanned);
  std::vector<std::unique_ptr<Method>> methods;
  for (const MemoryMode mode : modes) {
    result.failure = Guarded(mode, [&] {
      auto method = std::make_unique<Method>(program, plan, mode, options.limits);
      if (inputs.size() != method->input_count())
        Invalid(Str("the method takes ", method->input_count(), " inputs, ", inputs.size(),
                    " were given"));
      for (size_t i = 0; i < inputs.size(); ++i) method->SetInput(i, inputs[i]);
      methods.push_back(std::move(method));
    });
    if (result.failure) return result;
  }
  const bool both = methods.size() == 2;
  Method& first = *methods[0];
  while (!first.done()) {
    if ((first.executed() & 63) == 0) {
      if (control.deadline.expired()) {
        result.out_of_time = true;
        return result;
      }
      control.Report(first.executed(), first.instruction_total());
    }
    const Position at = first.position();
    std::vector<uint32_t> written;
    if (both) {
      written = first.WrittenTensorValuesOf(at);
      if (const auto v = FirstDifferent(first, *methods[1], first.TensorValuesOf(at))) {
        result.difference = Explain(*methods[1], *v, at, false);
        return result;
      }
    }
    for (size_t k = 0; k < methods.size(); ++k) {
      result.failure = Guarded(modes[k], [&] { methods[k]->Step(); });
      if (result.failure) return result;
    }
    result.instructions = first.executed();
    // Only what the instruction wrote: an in-place result overwrites its
    // input, which nothing reads after (docs/formats/pte.md PTE-66).
    if (both) {
      if (const auto v = FirstDifferent(first, *methods[1], written)) {
        result.difference = Explain(*methods[1], *v, at, true);
        return result;
      }
      if (!(first.position() == methods[1]->position())) {
        Difference d;
        d.instruction = first.Describe(at);
        d.message = Str("after ", d.instruction, " separate memory continues at ",
                        first.Describe(first.position()), " but planned memory at ",
                        methods[1]->Describe(methods[1]->position()));
        result.difference = d;
        return result;
      }
    }
  }
  result.failure = Guarded(modes[0], [&] {
    for (size_t i = 0; i < first.output_count(); ++i) result.outputs.push_back(first.Output(i));
  });
  if (result.failure || !both) return result;
  for (size_t i = 0; i < first.output_count(); ++i) {
    const HostValue other = methods[1]->Output(i);
    if (SameOutput(result.outputs[i], other)) continue;
    Difference d;
    d.instruction = "the end of the method";
    d.message = Str("output ", i, " differs between separate and planned memory");
    result.difference = d;
    result.outputs.clear();
    return result;
  }
  return result;
}

}  // namespace accelcheck::pte::exec
