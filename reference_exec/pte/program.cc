#include "reference_exec/pte/program.h"

#include <filesystem>

#include "validators/core/compressed.h"
#include "validators/core/core_rules.h"
#include "validators/core/flatbuffer.h"
#include "validators/core/format.h"
#include "validators/pte/decode_header.h"
#include "validators/pte/pte_format.h"
#include "validators/pte/rules.h"
#include "validators/pte/validate_ptd.h"

namespace accelcheck::pte::exec {

namespace {

namespace ft = flat_tensor_flatbuffer;

// The rules whose errors an aliasing oracle may run past: they speak of
// where planned tensors live and when they are written, never of what the
// interpreter relies on to follow indices.
bool IsMemoryPlanRule(std::string_view id) {
  return id == rules::kMemoryLiveOverlap.id || id == rules::kDataflowReadBeforeWrite.id;
}

bool Runnable(const DiagnosticSink& sink, bool allow_memory_plan_errors) {
  if (sink.failed()) return false;
  if (sink.blocking_count() == 0) return true;
  if (!allow_memory_plan_errors) return false;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity == Severity::kError && !IsMemoryPlanRule(d.rule->id)) return false;
  }
  return true;
}

// The current layout: named_data[k] -> segments[segment_index] (§1.4).
void AddCurrentLayout(ByteView file, const PtdHeader& header, const ft::FlatTensor& root,
                      NamedData& out) {
  for (const auto* entry : *root.named_data()) {
    if (entry->key() == nullptr || entry->segment_index() >= root.segments()->size()) continue;
    const auto* segment = root.segments()->Get(entry->segment_index());
    const uint64_t begin = header.segment_base_offset + segment->offset();
    if (!RangeWithin(begin, segment->size(), file.size())) continue;
    out.Add(entry->key()->str(), file.subspan(begin, segment->size()));
  }
}

// The pre-2025-06 layout, read field by field with bounds checks (it has no
// generated accessors): tensors[k] {fully_qualified_name(0), ..., segment_index(4),
// offset(5)}, segments[s] {offset, size} (§1.4). A tensor's bytes run from its
// offset to the next tensor's offset in the same segment, or the segment's end.
void AddOldLayout(ByteView file, const PtdHeader& header, NamedData& out) {
  const ByteView flatbuffer = file.first(header.flatbuffer_end());
  const auto root_offset = ReadLE<uint32_t>(flatbuffer, 0);
  const auto root = root_offset ? RawTable::At(flatbuffer, *root_offset) : std::nullopt;
  if (!root) return;
  const auto tensors = root->Vector(2, 4);
  const auto segments = root->Vector(3, 4);
  if (!tensors || !segments) return;
  struct Entry {
    std::string key;
    uint32_t segment;
    uint64_t offset;
  };
  std::vector<Entry> entries;
  for (uint32_t k = 0; k < tensors->first; ++k) {
    const auto t = root->TableAt(tensors->second, k);
    if (!t) return;
    const auto name = t->String(0);
    if (!name) continue;
    entries.push_back({std::string(*name), t->Scalar<uint32_t>(4), t->Scalar<uint64_t>(5)});
  }
  for (const Entry& e : entries) {
    if (e.segment >= segments->first) continue;
    const auto s = root->TableAt(segments->second, e.segment);
    if (!s) continue;
    const uint64_t seg_offset = s->Scalar<uint64_t>(0);
    const uint64_t seg_size = s->Scalar<uint64_t>(1);
    if (e.offset > seg_size) continue;
    uint64_t end = seg_size;
    for (const Entry& other : entries) {
      if (other.segment == e.segment && other.offset > e.offset) end = std::min(end, other.offset);
    }
    const uint64_t begin = header.segment_base_offset + seg_offset + e.offset;
    if (seg_offset > file.size() || !RangeWithin(begin, end - e.offset, file.size())) continue;
    out.Add(e.key, file.subspan(begin, end - e.offset));
  }
}

void AddPtd(ByteView file, const Limits& limits, NamedData& out) {
  DiagnosticSink scratch(Profile{}, "");
  const auto header = DecodePtdHeader(file, scratch);
  if (!header) return;
  if (IsOldPtdLayout(file.first(header->flatbuffer_end()))) {
    AddOldLayout(file, *header, out);
    return;
  }
  if (const auto* root = ValidatePtd(file, limits, scratch))
    AddCurrentLayout(file, *header, *root, out);
}

// The program's own named_data blobs, each a whole segment.
void AddProgramNamedData(const LoadedProgram& loaded, uint64_t segment_base, NamedData& out) {
  const fb::Program& program = loaded.program();
  if (program.named_data() == nullptr || program.segments() == nullptr) return;
  for (const auto* entry : *program.named_data()) {
    if (entry->key() == nullptr || entry->segment_index() >= program.segments()->size()) continue;
    const auto* segment = program.segments()->Get(entry->segment_index());
    const uint64_t begin = segment_base + segment->offset();
    if (!RangeWithin(begin, segment->size(), loaded.file().size())) continue;
    if (!out.Find(entry->key()->string_view()))
      out.Add(entry->key()->str(), loaded.file().subspan(begin, segment->size()));
  }
}

std::optional<LoadedProgram> Finish(InputBuffer file, std::vector<InputBuffer> data,
                                    const LoadOptions& options, DiagnosticSink& sink) {
  if (!Runnable(sink, options.allow_memory_plan_errors)) return std::nullopt;
  DiagnosticSink scratch(Profile{}, "");
  const auto header = DecodeHeader(file.bytes(), scratch);
  if (!header) return std::nullopt;
  const uint64_t base = header->extended ? header->segment_base_offset : 0;
  LoadedProgram loaded(std::move(file), std::move(data), base);
  return loaded;
}

}  // namespace

std::optional<ByteView> NamedData::Find(std::string_view key) const {
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

LoadedProgram::LoadedProgram(InputBuffer file, std::vector<InputBuffer> data_files,
                             uint64_t segment_base)
    : file_(std::move(file)), data_files_(std::move(data_files)), segment_base_(segment_base) {
  Limits limits;
  for (const InputBuffer& data : data_files_) AddPtd(data.bytes(), limits, named_);
  AddProgramNamedData(*this, segment_base_, named_);
}

const fb::ExecutionPlan* LoadedProgram::FindPlan(std::string_view name) const {
  const auto* plans = program().execution_plan();
  if (plans == nullptr || plans->size() == 0) return nullptr;
  if (name.empty()) return plans->Get(0);
  for (const auto* plan : *plans) {
    if (plan->name() != nullptr && plan->name()->string_view() == name) return plan;
  }
  return nullptr;
}

std::optional<ByteView> LoadedProgram::SegmentBytes(uint32_t segment, uint64_t offset) const {
  const auto* segments = program().segments();
  if (segments == nullptr || segment >= segments->size()) return std::nullopt;
  const auto* s = segments->Get(segment);
  if (offset > s->size()) return std::nullopt;
  const uint64_t begin = segment_base_ + s->offset() + offset;
  if (!RangeWithin(begin, s->size() - offset, file().size())) return std::nullopt;
  return file().subspan(begin, s->size() - offset);
}

std::optional<ByteView> LoadedProgram::Constant(uint32_t index) const {
  const fb::Program& p = program();
  const auto* constants = p.constant_segment();
  if (constants != nullptr && constants->offsets() != nullptr && constants->offsets()->size() > 1) {
    if (index >= constants->offsets()->size()) return std::nullopt;
    return SegmentBytes(constants->segment_index(), constants->offsets()->Get(index));
  }
  if (p.constant_buffer() == nullptr || index >= p.constant_buffer()->size()) return std::nullopt;
  const auto* storage = p.constant_buffer()->Get(index)->storage();
  if (storage == nullptr) return std::nullopt;
  return ByteView(storage->data(), storage->size());
}

std::optional<ByteView> LoadedProgram::MutableInitial(uint32_t index) const {
  const auto* mutables = program().mutable_data_segments();
  if (mutables == nullptr || mutables->size() == 0) return std::nullopt;
  const auto* sub = mutables->Get(0);
  if (sub->offsets() == nullptr || index >= sub->offsets()->size()) return std::nullopt;
  return SegmentBytes(sub->segment_index(), sub->offsets()->Get(index));
}

std::optional<LoadedProgram> LoadProgram(const std::string& path, const LoadOptions& options,
                                         DiagnosticSink& sink) {
  std::optional<InputBuffer> file = ReadModelFile(path, options.limits, sink);
  if (!file) return std::nullopt;
  std::vector<std::string> data_paths = options.data;
  if (data_paths.empty()) {
    std::filesystem::path sibling(path);
    sibling.replace_extension(".ptd");
    std::error_code ec;
    if (sibling.string() != path && std::filesystem::is_regular_file(sibling, ec))
      data_paths.push_back(sibling.string());
  }
  std::vector<InputBuffer> data;
  for (const std::string& data_path : data_paths) {
    std::optional<InputBuffer> buffer = ReadModelFile(data_path, options.limits, sink);
    if (!buffer) return std::nullopt;
    data.push_back(std::move(*buffer));
  }
  ValidateContext context;
  context.limits = options.limits;
  context.path = path;
  context.companions = options.data;
  context.deadline = options.deadline;
  ValidateGuarded(PteFormat(), *file, context, sink);
  return Finish(std::move(*file), std::move(data), options, sink);
}

std::optional<LoadedProgram> LoadProgramBytes(std::vector<uint8_t> program,
                                              std::vector<std::vector<uint8_t>> data,
                                              const LoadOptions& options, DiagnosticSink& sink) {
  InputBuffer file = InputBuffer::Copy(ByteView(program.data(), program.size()));
  std::vector<InputBuffer> buffers;
  for (const auto& d : data) buffers.push_back(InputBuffer::Copy(ByteView(d.data(), d.size())));
  ValidateContext context;
  context.limits = options.limits;
  context.deadline = options.deadline;
  ValidateGuarded(PteFormat(), file, context, sink);
  return Finish(std::move(file), std::move(buffers), options, sink);
}

}  // namespace accelcheck::pte::exec
