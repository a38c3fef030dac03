// I-W3..I-W7: tiles partition their workload, follow the receptive field of
// the layer, and carry consistent mini tiles and times.
#include <algorithm>
#include <cmath>

#include "validators/core/text.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini {

namespace {

Location At(uint64_t offset, std::string path) { return Location{offset, std::nullopt, std::move(path)}; }

std::string TilePath(const std::string& workload_path, size_t t) { return Str(workload_path, "/tile_info/tile_num_", t); }

// I-W3: inside the workload, pairwise disjoint, volumes adding up.
void CheckPartition(const Context& ctx, const Workload& w, const std::string& path) {
  int64_t covered = 0;
  for (size_t t = 0; t < w.tiles.size(); ++t) {
    const Tile& tile = w.tiles[t];
    if (!Contains(w.range, tile.ofmap)) {
      ctx.sink.Report(rules::kTilePartition, At(tile.offset, TilePath(path, t) + "/ofmap_lower"),
                      Str("tile ofmap ", RangeText(tile.ofmap), " lies outside workload ", RangeText(w.range)));
      return;
    }
    covered = SaturatingAdd(covered, *Volume(tile.ofmap));
    for (size_t u = 0; u < t; ++u) {
      if (Intersects(tile.ofmap, w.tiles[u].ofmap)) {
        ctx.sink.Report(rules::kTilePartition, At(tile.offset, TilePath(path, t) + "/ofmap_lower"),
                        Str("tile ", t, " ofmap ", RangeText(tile.ofmap), " overlaps tile ", u, " ofmap ",
                            RangeText(w.tiles[u].ofmap)));
        return;
      }
    }
  }
  const int64_t volume = *Volume(w.range);
  if (covered != volume) {
    ctx.sink.Report(rules::kTilePartition, At(w.offset, path + "/tile_info"),
                    Str("tiles cover ", covered, " of the ", volume, " elements of workload ", RangeText(w.range)));
  }
}

// I-W7.
void CheckTimes(const Context& ctx, const Workload& w, const std::string& path) {
  if (w.time < 0) {
    ctx.sink.Report(rules::kWorkloadTime, At(w.offset, path + "/time"), Str("time is ", w.time, ", expected >= 0"));
  }
  for (size_t t = 0; t < w.tiles.size(); ++t) {
    const double pred = w.tiles[t].time_pred;
    if (!(pred > 0) || !std::isfinite(pred)) {
      ctx.sink.Report(rules::kWorkloadTime, At(w.tiles[t].offset, TilePath(path, t) + "/single_tile_time_pred"),
                      Str("single_tile_time_pred is ", pred, ", expected a finite value > 0"));
    }
  }
}

bool IsPermutationOfKnhw(std::string order) {
  std::sort(order.begin(), order.end());
  return order == "HKNW";
}

// I-W5 (the parts that need no frontend).
void CheckMiniTileShape(const Context& ctx, const Workload& w, const std::string& path) {
  for (size_t t = 0; t < w.tiles.size(); ++t) {
    const Tile& tile = w.tiles[t];
    if (!tile.has_pe_fields) continue;
    std::string problem;
    const auto in_range = [](int64_t v) { return v >= 1 && v < (int64_t{1} << 32); };
    if (!std::all_of(tile.out_mini_tile.begin(), tile.out_mini_tile.end(), in_range) ||
        !std::all_of(tile.act_mini_tile.begin(), tile.act_mini_tile.end(), in_range)) {
      problem = "a mini tile dimension lies outside [1, 2^32)";
    } else if (tile.out_mini_tile[0] != 1) {
      problem = Str("out_mini_tile[N] is ", tile.out_mini_tile[0], ", expected 1");
    } else if (tile.ci_cut_num < 1) {
      problem = Str("ci_cut_num is ", tile.ci_cut_num, ", expected >= 1");
    } else if (!IsPermutationOfKnhw(tile.loop_order)) {
      problem = Str("loop_order ", Quoted(tile.loop_order), " is not a permutation of KNHW");
    }
    if (!problem.empty()) ctx.sink.Report(rules::kTileMiniTile, At(tile.offset, TilePath(path, t)), problem);
  }
}

// I-W5 with the frontend: act_mini_tile[H,W] = (out_mini_tile[H,W] - 1) * stride + kernel.
void CheckMiniTileKernel(const Context& ctx, const Workload& w, const FrontendLayer& layer, const std::string& path) {
  for (size_t t = 0; t < w.tiles.size(); ++t) {
    const Tile& tile = w.tiles[t];
    if (!tile.has_pe_fields || tile.out_mini_tile[2] < 1 || tile.out_mini_tile[3] < 1 ||
        tile.out_mini_tile[2] >= (int64_t{1} << 32) || tile.out_mini_tile[3] >= (int64_t{1} << 32)) {
      continue;
    }
    for (int d = 0; d < 2; ++d) {
      const int64_t expected = (tile.out_mini_tile[2 + d] - 1) * layer.stride[d] + layer.kernel[d];
      if (tile.act_mini_tile[2 + d] != expected) {
        ctx.sink.Report(rules::kTileMiniTile, At(tile.offset, TilePath(path, t) + "/act_mini_tile"),
                        Str("act_mini_tile[", d == 0 ? "H" : "W", "] is ", tile.act_mini_tile[2 + d], ", expected (",
                            tile.out_mini_tile[2 + d], " - 1) * stride ", layer.stride[d], " + kernel ",
                            layer.kernel[d], " = ", expected));
        break;
      }
    }
  }
}

// The receptive field of an ofmap range along H (d = 0) or W (d = 1),
// clipped to the input, and the padding the clipping implies.
struct Window {
  int64_t lo, hi, pad_before, pad_after;
};
Window ReceptiveField(int64_t o_lo, int64_t o_hi, int64_t stride, int64_t pad, int64_t kernel, int64_t input) {
  const int64_t lo = o_lo * stride - pad;
  const int64_t hi = o_hi * stride - pad + kernel - 1;
  return Window{std::max<int64_t>(lo, 0), std::min(hi, input - 1), std::max<int64_t>(-lo, 0),
                std::max<int64_t>(hi - (input - 1), 0)};
}

// I-W4: the tile's ifmap is the receptive field of its ofmap.
void CheckReceptiveField(const Context& ctx, const Workload& w, const FrontendLayer& layer, const std::string& path) {
  if (layer.input_shapes.empty()) return;
  const auto& input = layer.input_shapes[0];
  const bool windowed = layer.op == Op::kConv2d || layer.op == Op::kDense || layer.op == Op::kMaxPool ||
                        layer.op == Op::kAvgPool;
  const bool elementwise = layer.op == Op::kAdd || layer.op == Op::kQuantize;
  for (size_t t = 0; t < w.tiles.size(); ++t) {
    const Tile& tile = w.tiles[t];
    Range expected = tile.ofmap;
    std::array<int64_t, 4> padding{};
    if (windowed) {
      const bool full_channels = layer.op == Op::kConv2d || layer.op == Op::kDense;
      if (full_channels) {
        expected.lo[1] = 0;
        expected.hi[1] = input[1] - 1;
      }
      const int64_t pads[2] = {layer.padding[0], layer.padding[1]};  // top, left
      for (int d = 0; d < 2; ++d) {
        const Window win = ReceptiveField(tile.ofmap.lo[2 + d], tile.ofmap.hi[2 + d], layer.stride[d], pads[d],
                                          layer.kernel[d], input[2 + d]);
        expected.lo[2 + d] = win.lo;
        expected.hi[2 + d] = win.hi;
        padding[2 * d] = win.pad_before;
        padding[2 * d + 1] = win.pad_after;
      }
    } else if (!elementwise) {
      continue;
    }
    if (tile.ifmap.lo != expected.lo || tile.ifmap.hi != expected.hi) {
      ctx.sink.Report(rules::kTileReceptiveField, At(tile.offset, TilePath(path, t) + "/ifmap_lower"),
                      Str("tile ifmap ", RangeText(tile.ifmap), " of ofmap ", RangeText(tile.ofmap), " is not ",
                          RangeText(expected), " (", layer.operation, " kernel ", layer.kernel[0], "x", layer.kernel[1],
                          ", stride ", layer.stride[0], ", padding ", layer.padding[0], "/", layer.padding[1], ")"));
      continue;
    }
    if (tile.ifmap2 && (tile.ifmap2->lo != expected.lo || tile.ifmap2->hi != expected.hi)) {
      ctx.sink.Report(rules::kTileReceptiveField, At(tile.offset, TilePath(path, t) + "/ifmap_lower2"),
                      Str("tile second operand ", RangeText(*tile.ifmap2), " is not the ofmap range ",
                          RangeText(expected)));
      continue;
    }
    if (windowed && tile.padding != padding) {
      ctx.sink.Report(rules::kTilePadding, At(tile.offset, TilePath(path, t) + "/tile_padding_tblr"),
                      Str("tile padding [", tile.padding[0], ",", tile.padding[1], ",", tile.padding[2], ",",
                          tile.padding[3], "] is not the clipped amount [", padding[0], ",", padding[1], ",",
                          padding[2], ",", padding[3], "]"));
    }
  }
}

// I-W6.
void CheckShape(const Context& ctx, const Workload& w, const FrontendLayer& layer, const std::string& path) {
  for (int d = 0; d < 4; ++d) {
    if (layer.output_shape[d] < 1) return;  // the frontend gives no 4-d shape
  }
  for (int d = 0; d < 4; ++d) {
    if (w.range.hi[d] >= layer.output_shape[d]) {
      ctx.sink.Report(rules::kWorkloadShape, At(w.offset, path + "/workload"),
                      Str("workload ", RangeText(w.range), " exceeds layer ", Quoted(layer.name), " output shape [",
                          layer.output_shape[0], ",", layer.output_shape[1], ",", layer.output_shape[2], ",",
                          layer.output_shape[3], "] in dimension ", d));
      return;
    }
  }
}

}  // namespace

void CheckTiles(const Context& ctx) {
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size() && !ctx.sink.full(); ++i) {
      const Workload& w = core.workloads[i];
      const std::string path = WorkloadPath(core, i);
      CheckPartition(ctx, w, path);
      CheckTimes(ctx, w, path);
      CheckMiniTileShape(ctx, w, path);
      if (ctx.frontend == nullptr) continue;
      const FrontendLayer* layer = ctx.frontend->Find(ctx.ir.LayerName(w.layer));
      if (layer == nullptr) continue;
      CheckMiniTileKernel(ctx, w, *layer, path);
      CheckReceptiveField(ctx, w, *layer, path);
      CheckShape(ctx, w, *layer, path);
    }
  }
}

}  // namespace accelcheck::gemini
