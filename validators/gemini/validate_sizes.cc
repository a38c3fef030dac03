// I-Z: tensor sizes follow the layout, and extents agree across the four
// coordinate frames of docs/formats/gemini.md §2.3.
#include "validators/core/text.h"
#include "validators/gemini/layout.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini {

namespace {

bool CheckLayout(const Context& ctx, int64_t align, int64_t bitwidth, uint64_t offset,
                 const std::string& path) {
  if (ValidLayout(align, bitwidth)) return true;
  ctx.sink.Report(
      rules::kSizeLayout, LocationAt(offset, path),
      Str("align ", align, " with bitwidth ", bitwidth, "; expected (8, 8) or (4, 16)"));
  return false;
}

void CheckFmapSize(const Context& ctx, const Range& r, int64_t align, int64_t bitwidth,
                   int64_t size, uint64_t offset, const std::string& path) {
  const auto expected = FmapBytes(r, align, bitwidth);
  if (expected && *expected == size) return;
  ctx.sink.Report(rules::kSizeFmap, LocationAt(offset, path + "/size"),
                  expected ? Str("size ", Hex(size), " of ", RangeText(r), " is not ",
                                 Hex(*expected), " (align ", align, ", bitwidth ", bitwidth, ")")
                           : Str("the byte size of ", RangeText(r), " overflows"));
}

void CheckWeightSize(const Context& ctx, const Range& r, int64_t size, uint64_t offset,
                     const std::string& path) {
  const auto expected = WeightBytes(r);
  if (expected && *expected == size) return;
  ctx.sink.Report(rules::kSizeWeight, LocationAt(offset, path + "/size"),
                  expected ? Str("weight size ", Hex(size), " of ", RangeText(r),
                                 " is not K * alignup(C, 8) * RS + 32 * K = ", Hex(*expected))
                           : Str("the byte size of weight ", RangeText(r), " overflows"));
}

// I-Z1 for a DRAM fmap, whose layout the entry does not state: either one.
void CheckDramFmapSize(const Context& ctx, const DramOut& out, size_t i) {
  const auto int8 = FmapBytes(out.range, 8, 8);
  const auto fp16 = FmapBytes(out.range, 4, 16);
  if ((int8 && *int8 == out.size) || (fp16 && *fp16 == out.size)) return;
  ctx.sink.Report(rules::kSizeFmap, LocationAt(out.offset, DramOutPath(i) + "/size"),
                  Str("DRAM fmap size ", Hex(out.size), " of ", RangeText(out.range),
                      " is neither ", int8 ? Hex(*int8) : "(overflow)", " (int8) nor ",
                      fp16 ? Hex(*fp16) : "(overflow)", " (fp16)"));
}

void CheckBufferEntry(const Context& ctx, const BufferEntry& e, const std::string& path) {
  if (e.type == EntryType::kWeight) {
    CheckWeightSize(ctx, e.range, e.size, e.offset, path);
    return;
  }
  if (!CheckLayout(ctx, e.align, e.bitwidth, e.offset, path)) return;
  CheckFmapSize(ctx, e.range, e.align, e.bitwidth, e.size, e.offset, path);
  for (size_t s = 0; s < e.sources.size(); ++s) {
    const Source& source = e.sources[s];
    CheckFmapSize(ctx, source.range, e.align, e.bitwidth, source.size, source.offset,
                  Str(path, "/source/", s));
  }
}

// I-Z4: a core source holds a whole producer ofmap, a DRAM source a whole
// DRAM out; extents (not ranges) are comparable across frames.
void CheckSourceExtents(const Context& ctx, const BufferEntry& e, const std::string& path) {
  for (size_t s = 0; s < e.sources.size(); ++s) {
    const Source& source = e.sources[s];
    const std::string source_path = Str(path, "/source/", s);
    if (source.type == SourceType::kCore) {
      const auto producer = ctx.index.OfmapProducer(source.transfer_id);
      if (!producer) continue;  // gemini.transfer.produced
      const Workload& w = ctx.index.At(*producer);
      if (!SameExtents(source.range, w.range)) {
        ctx.sink.Report(
            rules::kSizeExtent, LocationAt(source.offset, source_path),
            Str("core source ", RangeText(source.range), " of transfer ", source.transfer_id,
                " does not have the extents of its producer workload ", w.id, " ",
                RangeText(w.range)));
      } else if (!w.ofmaps.empty() && source.size != w.ofmaps[0].size) {
        ctx.sink.Report(
            rules::kSizeExtent, LocationAt(source.offset, source_path + "/size"),
            Str("core source size ", Hex(source.size), " of transfer ", source.transfer_id,
                " is not its producer's ofmap size ", Hex(w.ofmaps[0].size)));
      }
    } else if (const auto out = ctx.index.DramOut(source.transfer_id)) {
      const DramOut& dram = ctx.ir.dram_out[*out];
      if (!SameExtents(source.range, dram.range)) {
        ctx.sink.Report(
            rules::kSizeExtent, LocationAt(source.offset, source_path),
            Str("DRAM source ", RangeText(source.range), " of transfer ", source.transfer_id,
                " does not have the extents of the DRAM out ", RangeText(dram.range)));
      }
    }
  }
}

void CheckWorkload(const Context& ctx, const Workload& w, const std::string& path) {
  for (size_t i = 0; i < w.ifmaps.size(); ++i) {
    const Ifmap& f = w.ifmaps[i];
    const std::string p = Str(path, "/ifmap/", i);
    if (CheckLayout(ctx, f.align, f.bitwidth, f.offset, p))
      CheckFmapSize(ctx, f.range, f.align, f.bitwidth, f.size, f.offset, p);
  }
  for (size_t i = 0; i < w.ofmaps.size(); ++i) {
    const Ofmap& f = w.ofmaps[i];
    const std::string p = Str(path, "/ofmap/", i);
    // I-Z3.
    if (f.size != w.ofmap_size) {
      ctx.sink.Report(
          rules::kSizeOfmap, LocationAt(f.offset, p + "/size"),
          Str("ofmap size ", Hex(f.size), " differs from ofmap_size ", Hex(w.ofmap_size)));
    }
    // I-Z4: the ofmap range is local to the workload, with its extents.
    if (!SameExtents(f.range, w.range)) {
      ctx.sink.Report(rules::kSizeExtent, LocationAt(f.offset, p),
                      Str("ofmap ", RangeText(f.range), " does not have the extents of workload ",
                          RangeText(w.range)));
    }
  }
  if (w.weight)
    CheckWeightSize(ctx, w.weight->range, w.weight->size, w.weight->offset, path + "/weight");
  for (size_t e = 0; e < w.buffer.size(); ++e) {
    const std::string p = Str(path, "/buffer/", e);
    CheckBufferEntry(ctx, w.buffer[e], p);
    CheckSourceExtents(ctx, w.buffer[e], p);
  }
}

}  // namespace

void CheckSizes(const Context& ctx) {
  for (size_t i = 0; i < ctx.ir.dram_out.size(); ++i) {
    const DramOut& out = ctx.ir.dram_out[i];
    if (out.type == OutType::kWeight) {
      CheckWeightSize(ctx, out.range, out.size, out.offset, DramOutPath(i));
    } else {
      CheckDramFmapSize(ctx, out, i);
    }
  }
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      CheckWorkload(ctx, core.workloads[i], WorkloadPath(core, i));
    }
  }
}

}  // namespace accelcheck::gemini
