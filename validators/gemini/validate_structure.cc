// I-S (top level, ranges, layer types) and I-W1 (workload order).
#include <optional>
#include <string>

#include "validators/core/text.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini {

namespace {

// Keeps range coordinates far from overflow in extent and volume arithmetic;
// real coordinates are below 2^16 (docs/formats/gemini.md §4).
constexpr int64_t kMaxCoordinate = int64_t{1} << 32;

// I-S2.
void CheckTopParams(const Context& ctx) {
  const struct {
    std::string_view key;
    int64_t value;
  } params[] = {{"buffersize", ctx.ir.buffersize},
                {"top_batch_cut", ctx.ir.top_batch_cut},
                {"xlen", ctx.ir.xlen},
                {"ylen", ctx.ir.ylen}};
  for (const auto& p : params) {
    if (p.value < 1) {
      ctx.sink.Report(rules::kTopParams, LocationAt(0, Str("/", p.key)),
                      Str(p.key, " is ", p.value, ", expected at least 1"));
    }
  }
}

// I-S2: the scheduler splits the batch into top_batch_cut equal groups
// (tot_batch / num_bgrp in the SET generator), so the batch the workloads
// cover, the largest N upper + 1, is a multiple of it.
void CheckBatchCut(const Context& ctx) {
  if (ctx.ir.top_batch_cut < 1) return;  // gemini.top.params
  int64_t batch = 0;
  const Workload* widest = nullptr;
  const Core* widest_core = nullptr;
  size_t widest_index = 0;
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      const Workload& w = core.workloads[i];
      if (w.range.hi[0] + 1 > batch) {
        batch = w.range.hi[0] + 1;
        widest = &w;
        widest_core = &core;
        widest_index = i;
      }
    }
  }
  if (widest == nullptr || batch % ctx.ir.top_batch_cut == 0) return;
  ctx.sink.Report(
      rules::kTopBatchCut, LocationAt(0, "/top_batch_cut"),
      Str("the workloads cover a batch of ", batch, " (workload ", widest->id, " of core ",
          widest_core->id, " ends at N ", batch - 1, ", ", WorkloadPath(*widest_core, widest_index),
          "), which top_batch_cut ", ctx.ir.top_batch_cut, " does not divide"));
}

// I-S1: core keys are 0..xlen*ylen-1.
void CheckCoreRange(const Context& ctx) {
  int64_t cores = 0;
  if (ctx.ir.xlen < 1 || ctx.ir.ylen < 1 ||
      __builtin_mul_overflow(ctx.ir.xlen, ctx.ir.ylen, &cores))
    return;
  for (const Core& core : ctx.ir.cores) {
    if (core.id >= cores) {
      ctx.sink.Report(rules::kTopCoreRange, LocationAt(core.offset, Str("/", core.id)),
                      Str("core key ", core.id, " is outside 0..", cores - 1, " (xlen ",
                          ctx.ir.xlen, " * ylen ", ctx.ir.ylen, ")"));
    }
  }
}

// I-S4: what is wrong with a range, or nothing.
std::optional<std::string> RangeProblem(const Range& r) {
  for (int d = 0; d < 4; ++d) {
    if (r.lo[d] < 0 || r.lo[d] > r.hi[d] || r.hi[d] >= kMaxCoordinate) {
      return Str("range ", RangeText(r), " has lower[", d, "] = ", r.lo[d], ", upper[", d,
                 "] = ", r.hi[d], "; expected 0 <= lower <= upper < ", kMaxCoordinate);
    }
  }
  if (!Volume(r)) return Str("the element count of range ", RangeText(r), " overflows");
  return std::nullopt;
}

// `path()` makes the JSON pointer only for a range that is reported: files
// hold millions of ranges.
template <typename PathFn>
void CheckRange(const Context& ctx, const Range& r, uint64_t offset, PathFn&& path) {
  if (auto problem = RangeProblem(r))
    ctx.sink.Report(rules::kRangeOrder, LocationAt(offset, path()), std::move(*problem));
}

void CheckWorkloadRanges(const Context& ctx, const Workload& w, const std::string& path) {
  CheckRange(ctx, w.range, w.offset, [&] { return path + "/workload"; });
  for (size_t t = 0; t < w.tiles.size(); ++t) {
    const Tile& tile = w.tiles[t];
    const auto tile_path = [&](std::string_view key) {
      return Str(path, "/tile_info/tile_num_", t, "/", key);
    };
    CheckRange(ctx, tile.ifmap, tile.offset, [&] { return tile_path("ifmap_lower"); });
    CheckRange(ctx, tile.ofmap, tile.offset, [&] { return tile_path("ofmap_lower"); });
    if (tile.ifmap2)
      CheckRange(ctx, *tile.ifmap2, tile.offset, [&] { return tile_path("ifmap_lower2"); });
  }
  for (size_t i = 0; i < w.ifmaps.size(); ++i) {
    CheckRange(ctx, w.ifmaps[i].range, w.ifmaps[i].offset, [&] { return Str(path, "/ifmap/", i); });
  }
  for (size_t i = 0; i < w.ofmaps.size(); ++i) {
    CheckRange(ctx, w.ofmaps[i].range, w.ofmaps[i].offset, [&] { return Str(path, "/ofmap/", i); });
  }
  if (w.weight)
    CheckRange(ctx, w.weight->range, w.weight->offset, [&] { return path + "/weight"; });
  for (size_t e = 0; e < w.buffer.size(); ++e) {
    const BufferEntry& entry = w.buffer[e];
    CheckRange(ctx, entry.range, entry.offset, [&] { return Str(path, "/buffer/", e); });
    for (size_t s = 0; s < entry.sources.size(); ++s) {
      CheckRange(ctx, entry.sources[s].range, entry.sources[s].offset,
                 [&] { return Str(path, "/buffer/", e, "/source/", s); });
    }
  }
  for (size_t e = 0; e < w.wl0.size(); ++e) {
    if (w.wl0[e].range)
      CheckRange(ctx, *w.wl0[e].range, w.wl0[e].offset,
                 [&] { return Str(path, "/wl0_buffer/", e); });
  }
}

// I-S5: pe workloads carry a weight, vp and dt workloads none.
void CheckWeightPresence(const Context& ctx, const Workload& w, const std::string& path) {
  const bool pe = w.type == LayerType::kPe;
  if (pe != w.weight.has_value()) {
    ctx.sink.Report(
        rules::kWorkloadWeight, LocationAt(w.offset, path),
        pe ? Str("pe workload ", w.id, " (", Quoted(ctx.ir.LayerName(w.layer)), ") has no weight")
           : Str("non-pe workload ", w.id, " (", Quoted(ctx.ir.LayerName(w.layer)),
                 ") has a weight"));
  }
}

// I-S5 with the frontend: the layer exists and runs on the unit its
// operation needs.
void CheckFrontendLayer(const Context& ctx, const Workload& w, const std::string& path) {
  const std::string& name = ctx.ir.LayerName(w.layer);
  const FrontendLayer* layer = ctx.frontend->Find(name);
  if (layer == nullptr) {
    ctx.sink.Report(
        rules::kFrontendLayer, LocationAt(w.offset, path + "/layer_name"),
        Str("layer ", Quoted(name), " of workload ", w.id, " is not in the frontend IR"));
    return;
  }
  const bool pe = w.type == LayerType::kPe;
  if (pe != IsPeOp(layer->op)) {
    ctx.sink.Report(
        rules::kFrontendLayerType, LocationAt(w.offset, path + "/layer_type"),
        Str("layer ", Quoted(name), " has operation ", Quoted(layer->operation), " but layer_type ",
            pe ? "pe" : "vp/dt", "; expected ", IsPeOp(layer->op) ? "pe" : "vp"));
  }
}

// I-W1: ids increase strictly along the list; real files count 0, 1, 2, ...
void CheckWorkloadOrder(const Context& ctx, const Core& core) {
  bool contiguous = true;
  for (size_t i = 0; i < core.workloads.size(); ++i) {
    const Workload& w = core.workloads[i];
    if (i > 0 && w.id <= core.workloads[i - 1].id) {
      ctx.sink.Report(rules::kWorkloadOrder,
                      LocationAt(w.offset, WorkloadPath(core, i) + "/workload_id"),
                      Str("workload_id ", w.id, " follows ", core.workloads[i - 1].id, " on core ",
                          core.id, "; expected a larger id"));
    }
    if (w.id != static_cast<int64_t>(i)) contiguous = false;
  }
  if (!contiguous) {
    ctx.sink.Report(rules::kWorkloadContiguous, LocationAt(core.offset, Str("/", core.id)),
                    Str("core ", core.id, " workload ids are not 0..", core.workloads.size() - 1));
  }
}

void CheckDialect(const Context& ctx) {
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      if (core.workloads[i].wl1_key) {
        ctx.sink.Report(
            rules::kWorkloadWl1Dialect,
            LocationAt(core.workloads[i].offset, WorkloadPath(core, i) + "/wl1_buffer"),
            "the WL0 snapshots are under \"wl1_buffer\" (resnet34 dialect), not \"wl0_buffer\"");
        return;
      }
    }
  }
}

}  // namespace

void CheckStructure(const Context& ctx) {
  const uint64_t before = ctx.sink.blocking_count();
  CheckTopParams(ctx);
  CheckCoreRange(ctx);
  CheckDialect(ctx);
  for (size_t i = 0; i < ctx.ir.dram_in.size(); ++i) {
    CheckRange(ctx, ctx.ir.dram_in[i].range, ctx.ir.dram_in[i].offset,
               [i] { return DramInPath(i); });
  }
  for (size_t i = 0; i < ctx.ir.dram_out.size(); ++i) {
    CheckRange(ctx, ctx.ir.dram_out[i].range, ctx.ir.dram_out[i].offset,
               [i] { return DramOutPath(i); });
  }
  for (const Core& core : ctx.ir.cores) {
    CheckWorkloadOrder(ctx, core);
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      const Workload& w = core.workloads[i];
      const std::string path = WorkloadPath(core, i);
      CheckWorkloadRanges(ctx, w, path);
      CheckWeightPresence(ctx, w, path);
      if (ctx.frontend != nullptr) CheckFrontendLayer(ctx, w, path);
    }
  }
  // After the ranges: the batch is read from ordered, bounded N ranges.
  if (ctx.sink.blocking_count() == before) CheckBatchCut(ctx);
}

}  // namespace accelcheck::gemini
