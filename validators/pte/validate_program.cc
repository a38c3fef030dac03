// Program-level tables: plans, constants, segments, delegate data, named and
// mutable data (docs/formats/pte.md §4 B, PTE-14 to PTE-28, PTE-63).
#include <algorithm>
#include <numeric>
#include <vector>

#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/pte/validate.h"

namespace accelcheck::pte {

namespace {

constexpr uint64_t kTensorAlignment = 16;  // exir/tensor.py ALIGNMENT

using Segments = flatbuffers::Vector<flatbuffers::Offset<fb::DataSegment>>;

uint32_t SegmentCount(const fb::Program& program) {
  return program.segments() ? program.segments()->size() : 0;
}

// PTE-14: a program without plans has nothing to run.
void CheckHasPlans(const ProgramContext& ctx) {
  const auto* plans = ctx.program.execution_plan();
  if (plans == nullptr || plans->size() == 0) {
    ctx.Report(rules::kNoPlans, plans ? static_cast<const void*>(plans) : &ctx.program,
               "execution_plan", plans ? "execution_plan is empty" : "execution_plan is missing");
  }
}

// PTE-16: EXECUTORCH_SCHEMA_VERSION is 0 and the runtime never reads it.
void CheckVersion(const ProgramContext& ctx) {
  if (ctx.program.version() != 0) {
    ctx.Report(rules::kProgramVersion, &ctx.program, "version",
               Str("Program.version is ", ctx.program.version(), ", expected 0"));
  }
}

const flatbuffers::Vector<uint64_t>* ConstantOffsets(const fb::Program& program) {
  return program.constant_segment() ? program.constant_segment()->offsets() : nullptr;
}

// PTE-17: one constant store; the inline constant_buffer is deprecated.
void CheckConstantStores(const ProgramContext& ctx) {
  const auto* buffers = ctx.program.constant_buffer();
  const auto* offsets = ConstantOffsets(ctx.program);
  if (buffers == nullptr || buffers->size() == 0) return;
  if (offsets != nullptr && offsets->size() > 0) {
    ctx.Report(rules::kConstantTwoStores, buffers, "constant_buffer",
               Str("constant_buffer has ", buffers->size(), " entries and constant_segment has ",
                   offsets->size(), " offsets"));
    return;
  }
  ctx.Report(
      rules::kConstantDeprecatedBuffer, buffers, "constant_buffer",
      Str("constant_buffer holds ", buffers->size(), " entries in the deprecated inline store"));
}

// PTE-19: constant_buffer[0] is the reserved empty entry.
void CheckConstantBufferPlaceholder(const ProgramContext& ctx) {
  const auto* buffers = ctx.program.constant_buffer();
  if (buffers == nullptr || buffers->size() == 0) return;
  const auto* storage = buffers->Get(0)->storage();
  if (storage != nullptr && storage->size() > 0) {
    ctx.Report(rules::kConstantPlaceholderBuffer, buffers->Get(0), "constant_buffer[0].storage",
               Str("the reserved constant_buffer[0] holds ", Hex(storage->size()),
                   " bytes, expected none"));
  }
}

// PTE-23 (force_align 16): non-empty inline storage starts 16-aligned.
void CheckConstantBufferAlignment(const ProgramContext& ctx) {
  const auto* buffers = ctx.program.constant_buffer();
  if (buffers == nullptr) return;
  for (uint32_t i = 0; i < buffers->size(); ++i) {
    const auto* storage = buffers->Get(i)->storage();
    if (storage == nullptr || storage->size() == 0) continue;
    const uint64_t at = ctx.OffsetOf(storage->Data());
    if (at % kTensorAlignment != 0) {
      ctx.Report(rules::kConstantBufferAlign, storage->Data(),
                 Str("constant_buffer[", i, "].storage"),
                 Str("storage of ", Hex(storage->size()), " bytes starts at file offset ", Hex(at),
                     ", not a multiple of 0x10"));
    }
  }
}

// PTE-18, PTE-20, PTE-21: the constant segment's offsets.
void CheckConstantSegment(const ProgramContext& ctx) {
  const auto* constant = ctx.program.constant_segment();
  const auto* offsets = ConstantOffsets(ctx.program);
  if (offsets == nullptr || offsets->size() == 0) return;
  if (offsets->Get(0) != 0) {
    ctx.Report(
        rules::kConstantPlaceholderOffset, offsets->data(), "constant_segment.offsets[0]",
        Str("the reserved constant_segment.offsets[0] is ", Hex(offsets->Get(0)), ", expected 0"));
  }
  const uint32_t index = constant->segment_index();
  const fb::DataSegment* segment = nullptr;
  if (index >= SegmentCount(ctx.program)) {
    ctx.Report(rules::kConstantSegmentIndex, constant, "constant_segment.segment_index",
               Str("constant_segment.segment_index ", index, " names no segment (",
                   SegmentCount(ctx.program), " segments)"));
  } else {
    segment = ctx.program.segments()->Get(index);
  }
  for (uint32_t i = 0; i < offsets->size(); ++i) {
    const uint64_t offset = offsets->Get(i);
    const auto path = [&] { return Str("constant_segment.offsets[", i, "]"); };
    if (segment != nullptr && offset > segment->size()) {
      ctx.Report(rules::kConstantOffsetBounds, offsets->data() + i, path(),
                 Str("constant offset ", Hex(offset), " (from the start of segment ", index,
                     ") lies past its end, at ", Hex(segment->size())));
    }
    if (i > 0 && offset < offsets->Get(i - 1)) {
      ctx.Report(rules::kConstantOffsetOrder, offsets->data() + i, path(),
                 Str("constant offset ", Hex(offset), " is below the previous offset ",
                     Hex(offsets->Get(i - 1))));
    }
    if (offset % kTensorAlignment != 0) {
      ctx.Report(rules::kConstantOffsetAlign, offsets->data() + i, path(),
                 Str("constant offset ", Hex(offset), " is not a multiple of 0x10"));
    }
  }
}

// PTE-24: each segment on its own.
void CheckSegment(const ProgramContext& ctx, const fb::DataSegment& s, uint32_t i) {
  const auto path = [&] { return Str("segments[", i, "]"); };
  const auto end = CheckedAdd(s.offset(), s.size());
  if (!end) {
    ctx.Report(
        rules::kSegmentOverflow, &s, path(),
        Str("segment offset ", Hex(s.offset()), " + size ", Hex(s.size()), " overflows 64 bits"));
    return;
  }
  if (s.offset() % kSegmentAlignment != 0) {
    ctx.Report(rules::kSegmentAlign, &s, path(),
               Str("segment offset ", Hex(s.offset()),
                   " (from the segment base) is not a multiple of 0x10"));
  }
  const PteHeader& h = ctx.header;
  if (h.extended && h.segment_data_size_known && *end > h.segment_data_size) {
    ctx.Report(
        rules::kSegmentDataSize, &s, path(),
        Str("segment offset ", Hex(s.offset()), " + size ", Hex(s.size()), " = ", Hex(*end),
            " (from the segment base) exceeds segment_data_size ", Hex(h.segment_data_size)));
  }
  const auto file_end = CheckedAdd(h.segment_base_offset, *end);
  if (!file_end || *file_end > h.file_size) {
    ctx.Report(
        rules::kSegmentBounds, &s, path(),
        Str("segment_base_offset ", Hex(h.segment_base_offset), " + offset ", Hex(s.offset()),
            " + size ", Hex(s.size()), " exceeds file size ", Hex(h.file_size)));
  }
}

// PTE-24: sorted by offset; non-empty segments do not overlap.
void CheckSegmentOrder(const ProgramContext& ctx, const Segments& segments) {
  for (uint32_t i = 1; i < segments.size(); ++i) {
    if (segments.Get(i)->offset() < segments.Get(i - 1)->offset()) {
      ctx.Report(
          rules::kSegmentOrder, segments.Get(i), Str("segments[", i, "]"),
          Str("segment offset ", Hex(segments.Get(i)->offset()), " is below the offset of segment ",
              i - 1, ", ", Hex(segments.Get(i - 1)->offset()), " (both from the segment base)"));
    }
  }
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < segments.size(); ++i) {
    const auto* s = segments.Get(i);
    if (s->size() > 0 && CheckedAdd(s->offset(), s->size())) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return segments.Get(a)->offset() < segments.Get(b)->offset();
  });
  uint32_t widest = 0;  // the segment with the largest end so far
  uint64_t widest_end = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const auto* s = segments.Get(order[k]);
    if (k > 0 && s->offset() < widest_end) {
      ctx.Report(rules::kSegmentOverlap, s, Str("segments[", order[k], "]"),
                 Str("segment ", order[k], " [", Hex(s->offset()), ", ",
                     Hex(s->offset() + s->size()), ") overlaps segment ", widest, " ending at ",
                     Hex(widest_end), " (offsets from the segment base)"));
    }
    if (k == 0 || s->offset() + s->size() > widest_end) {
      widest = order[k];
      widest_end = s->offset() + s->size();
    }
  }
}

// PTE-28: mutable_data_segments entries.
void CheckMutableSegments(const ProgramContext& ctx, std::vector<uint8_t>& referenced) {
  const auto* mutables = ctx.program.mutable_data_segments();
  if (mutables == nullptr || mutables->size() == 0) return;
  if (!ctx.header.extended) {
    ctx.Report(rules::kMutableNoHeader, mutables, "mutable_data_segments",
               Str("mutable_data_segments has ", mutables->size(),
                   " entries but the file has no extended header"));
  }
  if (mutables->size() > 1) {
    ctx.Report(rules::kMutableMultiple, mutables, "mutable_data_segments",
               Str("mutable_data_segments has ", mutables->size(),
                   " entries; the runtime reads only entry 0"));
  }
  const uint32_t count = SegmentCount(ctx.program);
  for (uint32_t k = 0; k < mutables->size(); ++k) {
    const auto* m = mutables->Get(k);
    const uint32_t index = m->segment_index();
    const auto path = [&](std::string_view field) {
      return Str("mutable_data_segments[", k, "]", field);
    };
    const fb::DataSegment* segment = nullptr;
    if (index >= count) {
      ctx.Report(rules::kMutableSegmentIndex, m, path(".segment_index"),
                 Str("segment_index ", index, " names no segment (", count, " segments)"));
    } else if (referenced[index] & 2) {
      ctx.Report(
          rules::kMutableSegmentShared, m, path(".segment_index"),
          Str("segment ", index, " is already used by an earlier mutable_data_segments entry"));
    } else {
      referenced[index] |= 2;
      segment = ctx.program.segments()->Get(index);
    }
    const auto* offsets = m->offsets();
    if (offsets == nullptr) continue;
    if (offsets->size() > 0 && offsets->Get(0) != 0) {
      ctx.Report(rules::kMutablePlaceholder, offsets->data(), path(".offsets[0]"),
                 Str("the reserved offsets[0] is ", Hex(offsets->Get(0)), ", expected 0"));
    }
    for (uint32_t i = 0; segment != nullptr && i < offsets->size(); ++i) {
      if (offsets->Get(i) > segment->size()) {
        ctx.Report(rules::kMutableOffsetBounds, offsets->data() + i, path(Str(".offsets[", i, "]")),
                   Str("mutable offset ", Hex(offsets->Get(i)), " lies past the end of segment ",
                       index, " of size ", Hex(segment->size())));
      }
    }
  }
}

// PTE-27: named_data keys and segment indices.
void CheckNamedData(const ProgramContext& ctx, std::vector<uint8_t>& referenced) {
  const auto* named = ctx.program.named_data();
  if (named == nullptr) return;
  if (ctx.program.segments() == nullptr) {
    ctx.Report(rules::kNamedDataNoSegments, named, "named_data",
               "named_data is present but segments is missing");
  }
  const uint32_t count = SegmentCount(ctx.program);
  std::vector<std::pair<std::string_view, uint32_t>> keys;
  keys.reserve(named->size());
  for (uint32_t i = 0; i < named->size(); ++i) {
    const auto* entry = named->Get(i);
    if (entry->key() == nullptr || entry->key()->size() == 0) {
      ctx.Report(rules::kNamedDataKey, entry, Str("named_data[", i, "].key"),
                 entry->key() ? "the key is empty" : "the key is missing");
    } else {
      keys.emplace_back(entry->key()->string_view(), i);
    }
    if (entry->segment_index() >= count) {
      ctx.Report(rules::kNamedDataSegmentIndex, entry, Str("named_data[", i, "].segment_index"),
                 Str("segment_index ", entry->segment_index(), " names no segment (", count,
                     " segments)"));
    } else {
      referenced[entry->segment_index()] |= 1;
    }
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t k = 1; k < keys.size(); ++k) {
    if (keys[k].first != keys[k - 1].first) continue;
    ctx.Report(rules::kNamedDataKeyDuplicate, named->Get(keys[k].second),
               Str("named_data[", keys[k].second, "].key"),
               Str("key ", Quoted(keys[k].first), " repeats named_data[", keys[k - 1].second, "]"));
  }
}

// PTE-26: backend_delegate_data entries exist, are used and aligned.
void CheckDelegateData(const ProgramContext& ctx, const std::vector<uint8_t>& used) {
  const auto* data = ctx.program.backend_delegate_data();
  if (data == nullptr) return;
  for (uint32_t i = 0; i < data->size(); ++i) {
    const auto* entry = data->Get(i);
    const auto path = [&] { return Str("backend_delegate_data[", i, "]"); };
    if (entry->data() == nullptr) {
      ctx.Report(rules::kDelegateDataNull, entry, path(), "the entry has no data vector");
    } else if (entry->data()->size() > 0 && ctx.OffsetOf(entry->data()->Data()) % 16 != 0) {
      ctx.Report(rules::kDelegateDataAlign, entry->data()->Data(), Str(path(), ".data"),
                 Str("data of ", Hex(entry->data()->size()), " bytes starts at file offset ",
                     Hex(ctx.OffsetOf(entry->data()->Data())), ", not a multiple of 0x10"));
    }
    if (!used[i]) {
      ctx.Report(rules::kDelegateDataUnreferenced, entry, path(),
                 Str("no INLINE delegate reference uses backend_delegate_data[", i, "]"));
    }
  }
}

// Marks the segments and inline data the delegates of every plan use.
void MarkDelegateReferences(const fb::Program& program, std::vector<uint8_t>& segments,
                            std::vector<uint8_t>& inline_data) {
  const auto* plans = program.execution_plan();
  if (plans == nullptr) return;
  for (const auto* plan : *plans) {
    if (plan->delegates() == nullptr) continue;
    for (const auto* delegate : *plan->delegates()) {
      const auto* ref = delegate->processed();
      if (ref == nullptr) continue;
      if (ref->location() == fb::DataLocation::SEGMENT && ref->index() < segments.size()) {
        segments[ref->index()] |= 1;
      } else if (ref->location() == fb::DataLocation::INLINE && ref->index() < inline_data.size()) {
        inline_data[ref->index()] = 1;
      }
    }
  }
}

// PTE-25: every segment has a user.
void CheckSegmentsReferenced(const ProgramContext& ctx, const std::vector<uint8_t>& referenced) {
  for (uint32_t i = 0; i < referenced.size(); ++i) {
    if (referenced[i]) continue;
    ctx.Report(rules::kSegmentUnreferenced, ctx.program.segments()->Get(i),
               Str("segments[", i, "]"),
               Str("no constant, mutable, delegate or named-data reference uses segment ", i));
  }
}

}  // namespace

void ValidateProgramTables(const ProgramContext& ctx) {
  CheckHasPlans(ctx);
  CheckVersion(ctx);
  CheckConstantStores(ctx);
  CheckConstantBufferPlaceholder(ctx);
  CheckConstantBufferAlignment(ctx);
  CheckConstantSegment(ctx);

  // Bit 0: some reference; bit 1: a mutable_data_segments entry.
  std::vector<uint8_t> referenced(SegmentCount(ctx.program), 0);
  if (const auto* segments = ctx.program.segments()) {
    for (uint32_t i = 0; i < segments->size(); ++i) CheckSegment(ctx, *segments->Get(i), i);
    CheckSegmentOrder(ctx, *segments);
  }
  const auto* constant = ctx.program.constant_segment();
  if (constant != nullptr && constant->segment_index() < referenced.size()) {
    referenced[constant->segment_index()] |= 1;
  }
  CheckMutableSegments(ctx, referenced);
  CheckNamedData(ctx, referenced);
  const auto* data = ctx.program.backend_delegate_data();
  std::vector<uint8_t> inline_used(data ? data->size() : 0, 0);
  MarkDelegateReferences(ctx.program, referenced, inline_used);
  CheckDelegateData(ctx, inline_used);
  CheckSegmentsReferenced(ctx, referenced);
}

}  // namespace accelcheck::pte
