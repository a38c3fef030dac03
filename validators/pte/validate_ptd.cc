// .ptd named-data files: FH01 header, the old FT01 layout, verification and
// the named-data rules (docs/formats/pte.md §1.4, §4 PTE-64).
#include "validators/pte/validate_ptd.h"

#include <algorithm>
#include <bitset>
#include <vector>

#include "validators/core/checked.h"
#include "validators/core/flatbuffer.h"
#include "validators/core/text.h"
#include "validators/pte/verify.h"

namespace accelcheck::pte {

namespace {

namespace ft = flat_tensor_flatbuffer;

constexpr uint64_t kPtdHeaderLength = 40;  // flat_tensor_header.h
constexpr uint64_t kWriterFlatbufferOffset = 48;

struct PtdContext {
  ByteView file;
  const PtdHeader& header;
  const ft::FlatTensor& root;
  DiagnosticSink& sink;
  uint64_t OffsetOf(const void* p) const {
    return static_cast<uint64_t>(static_cast<const uint8_t*>(p) - file.data());
  }
};

// PTE-64: the regions of the header are in order and inside the file.
bool CheckRegions(const PtdHeader& h, uint64_t file_size, DiagnosticSink& sink) {
  const auto fb_end = CheckedAdd(h.flatbuffer_offset, h.flatbuffer_size);
  const auto data_end = CheckedAdd(h.segment_base_offset, h.segment_data_size);
  std::string problem;
  if (h.flatbuffer_offset < 8 + h.length) {
    problem = Str("flatbuffer_offset ", Hex(h.flatbuffer_offset),
                  " lies inside the header ending at ", Hex(8 + h.length));
  } else if (!fb_end || *fb_end > h.segment_base_offset) {
    problem =
        Str("flatbuffer_offset ", Hex(h.flatbuffer_offset), " + flatbuffer_size ",
            Hex(h.flatbuffer_size), " exceeds segment_base_offset ", Hex(h.segment_base_offset));
  } else if (!data_end || *data_end > file_size) {
    problem = Str("segment_base_offset ", Hex(h.segment_base_offset), " + segment_data_size ",
                  Hex(h.segment_data_size), " exceeds file size ", Hex(file_size));
  }
  if (problem.empty()) return true;
  sink.Report(rules::kPtdHeader, LocationAt(16, "header"), std::move(problem));
  return false;
}

// PTE-64: keys are present, non-empty and unique.
void CheckKeys(const PtdContext& ctx) {
  const auto* named = ctx.root.named_data();
  std::vector<std::pair<std::string_view, uint32_t>> keys;
  keys.reserve(named->size());
  for (uint32_t i = 0; i < named->size(); ++i) {
    const auto* entry = named->Get(i);
    if (entry->key() == nullptr || entry->key()->size() == 0) {
      ctx.sink.Report(rules::kPtdKey,
                      LocationAt(ctx.OffsetOf(entry), Str("named_data[", i, "].key")),
                      entry->key() ? "the key is empty" : "the key is missing");
    } else {
      keys.emplace_back(entry->key()->string_view(), i);
    }
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t k = 1; k < keys.size(); ++k) {
    if (keys[k].first != keys[k - 1].first) continue;
    ctx.sink.Report(
        rules::kPtdKey,
        LocationAt(ctx.OffsetOf(named->Get(keys[k].second)),
                   Str("named_data[", keys[k].second, "].key")),
        Str("key ", Quoted(keys[k].first), " repeats named_data[", keys[k - 1].second, "]"));
  }
}

// PTE-64: each segment lies inside segment_data_size.
void CheckSegments(const PtdContext& ctx) {
  const auto* segments = ctx.root.segments();
  for (uint32_t i = 0; i < segments->size(); ++i) {
    const auto* s = segments->Get(i);
    const auto end = CheckedAdd(s->offset(), s->size());
    if (end && *end <= ctx.header.segment_data_size) continue;
    ctx.sink.Report(rules::kPtdSegmentBounds, LocationAt(ctx.OffsetOf(s), Str("segments[", i, "]")),
                    Str("segment offset ", Hex(s->offset()), " + size ", Hex(s->size()),
                        " (from the segment base) exceeds segment_data_size ",
                        Hex(ctx.header.segment_data_size)));
  }
}

// PTE-64 validateTensorLayout: dtype, sizes and dim_order of one layout.
bool CheckLayout(const PtdContext& ctx, const ft::TensorLayout& layout, const std::string& path) {
  std::string problem;
  const auto type = static_cast<int8_t>(layout.scalar_type());
  const auto* sizes = layout.sizes();
  const auto* order = layout.dim_order();
  if (!IsDeclaredScalarType(type)) {
    problem = Str("scalar_type ", static_cast<int>(type), " is not a declared ScalarType");
  } else if (sizes == nullptr || order == nullptr) {
    problem = sizes ? "dim_order is missing" : "sizes is missing";
  } else if (sizes->size() != order->size()) {
    problem = Str("dim_order has ", order->size(), " entries, sizes has ", sizes->size());
  } else {
    std::bitset<256> seen;
    for (uint32_t d = 0; d < sizes->size() && problem.empty(); ++d) {
      if (sizes->Get(d) < 0)
        problem = Str("size ", sizes->Get(d), " of dimension ", d, " is negative");
      const uint8_t dim = order->Get(d);
      if (dim >= order->size() || seen[dim]) {
        problem = Str("dim_order is not a permutation of [0, ", order->size(), ")");
      } else {
        seen.set(dim);
      }
    }
  }
  if (problem.empty()) return true;
  ctx.sink.Report(rules::kPtdLayout, LocationAt(ctx.OffsetOf(&layout), path), std::move(problem));
  return false;
}

uint64_t LayoutNbytes(const ft::TensorLayout& layout, bool* overflow) {
  uint64_t nbytes = ElementSize(static_cast<int8_t>(layout.scalar_type()));
  for (const int32_t size : *layout.sizes()) {
    const auto product = CheckedMul(nbytes, static_cast<uint64_t>(size));
    if (!product) {
      *overflow = true;
      return 0;
    }
    nbytes = *product;
  }
  return nbytes;
}

// PTE-64: segment indices, and layouts that fit their segment.
void CheckNamedData(const PtdContext& ctx) {
  const auto* named = ctx.root.named_data();
  const auto* segments = ctx.root.segments();
  for (uint32_t i = 0; i < named->size(); ++i) {
    const auto* entry = named->Get(i);
    const std::string path = Str("named_data[", i, "]");
    const uint32_t index = entry->segment_index();
    const ft::DataSegment* segment = nullptr;
    if (index >= segments->size()) {
      ctx.sink.Report(
          rules::kPtdSegmentIndex, LocationAt(ctx.OffsetOf(entry), Str(path, ".segment_index")),
          Str("segment_index ", index, " names no segment (", segments->size(), " segments)"));
    } else {
      segment = segments->Get(index);
    }
    const auto* layout = entry->tensor_layout();
    if (layout == nullptr || !CheckLayout(ctx, *layout, Str(path, ".tensor_layout"))) continue;
    bool overflow = false;
    const uint64_t nbytes = LayoutNbytes(*layout, &overflow);
    if (segment != nullptr && (overflow || nbytes > segment->size())) {
      ctx.sink.Report(rules::kPtdLayoutSize,
                      LocationAt(ctx.OffsetOf(layout), Str(path, ".tensor_layout")),
                      overflow ? std::string("the layout's byte size overflows 64 bits")
                               : Str("the layout needs ", Hex(nbytes), " bytes but segment ", index,
                                     " holds ", Hex(segment->size())));
    }
  }
}

}  // namespace

std::optional<PtdHeader> DecodePtdHeader(ByteView file, DiagnosticSink& sink) {
  if (!HasBytesAt(file, 8, "FH01")) {
    sink.Report(rules::kPtdHeader, LocationAt(8, "header"),
                "bytes 8..11 are not the FH01 header magic");
    return std::nullopt;
  }
  if (file.size() < 8 + kPtdHeaderLength) {
    sink.Report(rules::kPtdHeader, LocationAt(0, "header"),
                Str("file size ", Hex(file.size()), " is below the FH01 header end ",
                    Hex(8 + kPtdHeaderLength)));
    return std::nullopt;
  }
  PtdHeader h;
  h.length = *ReadLE<uint32_t>(file, 12);
  h.flatbuffer_offset = *ReadLE<uint64_t>(file, 16);
  h.flatbuffer_size = *ReadLE<uint64_t>(file, 24);
  h.segment_base_offset = *ReadLE<uint64_t>(file, 32);
  h.segment_data_size = *ReadLE<uint64_t>(file, 40);
  if (h.length < kPtdHeaderLength) {
    sink.Report(rules::kPtdHeader, LocationAt(12, "header.length"),
                Str("header length ", Hex(h.length), " is below 0x28"));
    return std::nullopt;
  }
  if (!CheckRegions(h, file.size(), sink)) return std::nullopt;
  if (h.flatbuffer_offset != kWriterFlatbufferOffset) {
    sink.Report(rules::kPtdFlatbufferOffset, LocationAt(16, "header.flatbuffer_offset"),
                Str("flatbuffer_offset is ", Hex(h.flatbuffer_offset), ", writers produce 0x30"));
  }
  const uint64_t end = h.segment_base_offset + h.segment_data_size;
  if (end != file.size()) {
    sink.Report(rules::kPtdTrailingBytes, LocationAt(end, ""),
                Str("the data ends at ", Hex(end), " but the file size is ", Hex(file.size())));
  }
  return h;
}

bool IsOldPtdLayout(ByteView flatbuffer) {
  const auto root_offset = ReadLE<uint32_t>(flatbuffer, 0);
  if (!root_offset) return false;
  const auto root = RawTable::At(flatbuffer, *root_offset);
  return root && root->Field(3).has_value();
}

const flat_tensor_flatbuffer::FlatTensor* ValidatePtd(ByteView file, const Limits& limits,
                                                      DiagnosticSink& sink) {
  const auto header = DecodePtdHeader(file, sink);
  if (!header) return nullptr;
  const ByteView flatbuffer = file.first(header->flatbuffer_end());
  if (IsOldPtdLayout(flatbuffer)) {
    sink.Report(rules::kPtdOldLayout, LocationAt(*ReadLE<uint32_t>(file, 0), ""),
                "the root table has a field 3: this is the FlatTensor layout before 2025-06 "
                "(tensor_alignment, tensors, segments), which shares the FT01 identifier");
    return nullptr;
  }
  if (!VerifyFlatTensor(flatbuffer, limits, sink)) return nullptr;
  const auto* root = ft::GetFlatTensor(flatbuffer.data());
  bool complete = true;
  for (const auto& [field, name] :
       {std::pair<const void*, const char*>{root->segments(), "segments"},
        {root->named_data(), "named_data"}}) {
    if (field != nullptr) continue;
    sink.Report(rules::kPtdFieldMissing, LocationAt(*ReadLE<uint32_t>(file, 0), name),
                Str("the FlatTensor has no ", name, " vector"));
    complete = false;
  }
  if (!complete) return nullptr;
  const PtdContext ctx{file, *header, *root, sink};
  CheckKeys(ctx);
  CheckSegments(ctx);
  CheckNamedData(ctx);
  return root;
}

NamedLayouts LayoutsOf(const flat_tensor_flatbuffer::FlatTensor& root) {
  NamedLayouts layouts;
  if (root.named_data() == nullptr) return layouts;
  for (const auto* entry : *root.named_data()) {
    if (entry->key() != nullptr)
      layouts.emplace(entry->key()->string_view(), entry->tensor_layout());
  }
  return layouts;
}

}  // namespace accelcheck::pte
