// I-W3..I-W7: tiles partition their workload, follow the receptive field of
// the layer, and carry consistent mini tiles and times.
#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "validators/core/text.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini {

namespace {

std::string TilePath(const std::string& workload_path, size_t t) {
  return Str(workload_path, "/tile_info/tile_num_", t);
}

// Two tiles whose ofmap ranges overlap (the later first), or nothing. A
// sweep along the axis the tiles spread most on (the cut axis): each tile is
// compared only with the tiles still open where it starts, so a workload of
// T row tiles costs O(T log T) rather than T^2 / 2 comparisons.
std::optional<std::pair<size_t, size_t>> OverlappingTiles(const std::vector<Tile>& tiles) {
  if (tiles.size() < 2) return std::nullopt;
  int axis = 0;
  int64_t widest = -1;
  for (int d = 0; d < 4; ++d) {
    const auto [lowest, highest] = std::minmax_element(
        tiles.begin(), tiles.end(),
        [d](const Tile& a, const Tile& b) { return a.ofmap.lo[d] < b.ofmap.lo[d]; });
    if (highest->ofmap.lo[d] - lowest->ofmap.lo[d] > widest) {
      widest = highest->ofmap.lo[d] - lowest->ofmap.lo[d];
      axis = d;
    }
  }
  std::vector<size_t> order(tiles.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::pair(tiles[a].ofmap.lo[axis], a) < std::pair(tiles[b].ofmap.lo[axis], b);
  });
  std::vector<size_t> open;
  for (const size_t t : order) {
    const int64_t start = tiles[t].ofmap.lo[axis];
    std::erase_if(open, [&](size_t u) { return tiles[u].ofmap.hi[axis] < start; });
    for (const size_t u : open) {
      if (Intersects(tiles[t].ofmap, tiles[u].ofmap))
        return std::pair(std::max(t, u), std::min(t, u));
    }
    open.push_back(t);
  }
  return std::nullopt;
}

// I-W3: inside the workload, pairwise disjoint, volumes adding up.
void CheckPartition(const Context& ctx, const Workload& w, const std::string& path) {
  int64_t covered = 0;
  for (size_t t = 0; t < w.tiles.size(); ++t) {
    const Tile& tile = w.tiles[t];
    if (!Contains(w.range, tile.ofmap)) {
      ctx.sink.Report(
          rules::kTilePartition, LocationAt(tile.offset, TilePath(path, t) + "/ofmap_lower"),
          Str("tile ofmap ", RangeText(tile.ofmap), " lies outside workload ", RangeText(w.range)));
      return;
    }
    covered = SaturatingAdd(covered, *Volume(tile.ofmap));
  }
  if (const auto overlap = OverlappingTiles(w.tiles)) {
    const auto [t, u] = *overlap;
    ctx.sink.Report(rules::kTilePartition,
                    LocationAt(w.tiles[t].offset, TilePath(path, t) + "/ofmap_lower"),
                    Str("tile ", t, " ofmap ", RangeText(w.tiles[t].ofmap), " overlaps tile ", u,
                        " ofmap ", RangeText(w.tiles[u].ofmap)));
    return;
  }
  const int64_t volume = *Volume(w.range);
  if (covered != volume) {
    ctx.sink.Report(rules::kTilePartition, LocationAt(w.offset, path + "/tile_info"),
                    Str("tiles cover ", covered, " of the ", volume, " elements of workload ",
                        RangeText(w.range)));
  }
}

// I-W7.
void CheckTimes(const Context& ctx, const Workload& w, const std::string& path) {
  if (w.time < 0) {
    ctx.sink.Report(rules::kWorkloadTime, LocationAt(w.offset, path + "/time"),
                    Str("time is ", w.time, ", expected >= 0"));
  }
  for (size_t t = 0; t < w.tiles.size(); ++t) {
    const double pred = w.tiles[t].time_pred;
    if (!(pred > 0) || !std::isfinite(pred)) {
      ctx.sink.Report(rules::kWorkloadTime,
                      LocationAt(w.tiles[t].offset, TilePath(path, t) + "/single_tile_time_pred"),
                      Str("single_tile_time_pred is ", pred, ", expected a finite value > 0"));
    }
  }
}

bool IsPermutationOfKnhw(std::string_view order) {
  if (order.size() != 4) return false;
  unsigned seen = 0;
  for (char c : order) {
    const size_t at = std::string_view("KNHW").find(c);
    if (at == std::string_view::npos) return false;
    seen |= 1u << at;
  }
  return seen == 0xF;
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
    if (!problem.empty())
      ctx.sink.Report(rules::kTileMiniTile, LocationAt(tile.offset, TilePath(path, t)), problem);
  }
}

// I-W5 with the frontend: act_mini_tile[H,W] = (out_mini_tile[H,W] - 1) * stride + kernel.
void CheckMiniTileKernel(const Context& ctx, const Workload& w, const FrontendLayer& layer,
                         const std::string& path) {
  for (size_t t = 0; t < w.tiles.size(); ++t) {
    const Tile& tile = w.tiles[t];
    if (!tile.has_pe_fields || tile.out_mini_tile[2] < 1 || tile.out_mini_tile[3] < 1 ||
        tile.out_mini_tile[2] >= (int64_t{1} << 32) ||
        tile.out_mini_tile[3] >= (int64_t{1} << 32)) {
      continue;
    }
    for (int d = 0; d < 2; ++d) {
      const int64_t expected = (tile.out_mini_tile[2 + d] - 1) * layer.stride[d] + layer.kernel[d];
      if (tile.act_mini_tile[2 + d] != expected) {
        ctx.sink.Report(
            rules::kTileMiniTile, LocationAt(tile.offset, TilePath(path, t) + "/act_mini_tile"),
            Str("act_mini_tile[", d == 0 ? "H" : "W", "] is ", tile.act_mini_tile[2 + d],
                ", expected (", tile.out_mini_tile[2 + d], " - 1) * stride ", layer.stride[d],
                " + kernel ", layer.kernel[d], " = ", expected));
        break;
      }
    }
  }
}

// I-W4: the tile's ifmap is the receptive field of its ofmap.
void CheckReceptiveField(const Context& ctx, const Workload& w, const FrontendLayer& layer,
                         const std::string& path) {
  for (size_t t = 0; t < w.tiles.size(); ++t) {
    const Tile& tile = w.tiles[t];
    const std::optional<InputWindow> window = TileInputWindow(layer, tile.ofmap);
    if (!window) return;
    const Range& expected = window->ifmap;
    if (tile.ifmap.lo != expected.lo || tile.ifmap.hi != expected.hi) {
      ctx.sink.Report(rules::kTileReceptiveField,
                      LocationAt(tile.offset, TilePath(path, t) + "/ifmap_lower"),
                      Str("tile ifmap ", RangeText(tile.ifmap), " of ofmap ", RangeText(tile.ofmap),
                          " is not ", RangeText(expected), " (", layer.operation, " kernel ",
                          layer.kernel[0], "x", layer.kernel[1], ", stride ", layer.stride[0],
                          ", padding ", layer.padding[0], "/", layer.padding[1], ")"));
      continue;
    }
    if (tile.ifmap2 && (tile.ifmap2->lo != expected.lo || tile.ifmap2->hi != expected.hi)) {
      ctx.sink.Report(rules::kTileReceptiveField,
                      LocationAt(tile.offset, TilePath(path, t) + "/ifmap_lower2"),
                      Str("tile second operand ", RangeText(*tile.ifmap2),
                          " is not the ofmap range ", RangeText(expected)));
      continue;
    }
    if (window->windowed && tile.padding != window->padding) {
      const auto& padding = window->padding;
      ctx.sink.Report(rules::kTilePadding,
                      LocationAt(tile.offset, TilePath(path, t) + "/tile_padding_tblr"),
                      Str("tile padding [", tile.padding[0], ",", tile.padding[1], ",",
                          tile.padding[2], ",", tile.padding[3], "] is not the clipped amount [",
                          padding[0], ",", padding[1], ",", padding[2], ",", padding[3], "]"));
    }
  }
}

// I-W6.
void CheckShape(const Context& ctx, const Workload& w, const FrontendLayer& layer,
                const std::string& path) {
  for (int d = 0; d < 4; ++d) {
    if (layer.output_shape[d] < 1) return;  // the frontend gives no 4-d shape
  }
  for (int d = 0; d < 4; ++d) {
    if (w.range.hi[d] >= layer.output_shape[d]) {
      ctx.sink.Report(rules::kWorkloadShape, LocationAt(w.offset, path + "/workload"),
                      Str("workload ", RangeText(w.range), " exceeds layer ", Quoted(layer.name),
                          " output shape [", layer.output_shape[0], ",", layer.output_shape[1], ",",
                          layer.output_shape[2], ",", layer.output_shape[3], "] in dimension ", d));
      return;
    }
  }
}

// A tile by position, for the per-layer checks.
struct TileRef {
  const Core* core;
  size_t workload;
  size_t tile;
  const Tile& Get() const { return core->workloads[workload].tiles[tile]; }
  std::string Path() const { return TilePath(WorkloadPath(*core, workload), tile); }
};

// Does the frontend's receptive-field check (I-W4 proper) cover this layer?
bool FrontendChecksWindow(const Context& ctx, uint32_t layer) {
  if (ctx.frontend == nullptr) return false;
  const FrontendLayer* f = ctx.frontend->Find(ctx.ir.LayerName(layer));
  return f != nullptr && !f->input_shapes.empty() && f->op != Op::kOther;
}

// Along H (d = 2) or W (d = 3), a tile's ifmap with its padding put back is
// the unclipped window [o_lo * s - P, o_hi * s - P + R - 1] of its ofmap
// rows. `Unclipped` gives both ends, or nullopt when the padding is negative
// or too large to add.
std::optional<std::pair<int64_t, int64_t>> Unclipped(const Tile& tile, int d) {
  constexpr int64_t kMaxPadding = int64_t{1} << 32;
  const int64_t before = tile.padding[d == 2 ? 0 : 2];
  const int64_t after = tile.padding[d == 2 ? 1 : 3];
  if (before < 0 || after < 0 || before >= kMaxPadding || after >= kMaxPadding) return std::nullopt;
  return std::make_pair(tile.ifmap.lo[d] - before, tile.ifmap.hi[d] + after);
}

const char* AxisName(int d) { return d == 2 ? "rows" : "columns"; }

// I-W4 along one spatial axis: one stride s, top/left padding P and kernel R
// for every tile of the layer, so the unclipped ends are A = o_lo * s - P and
// B = o_hi * s - P + R - 1. Real tiles mostly share their rows, leaving s
// open; then tiles with the same ofmap rows must share their window.
std::string WindowProblem(const std::vector<TileRef>& tiles, int d, size_t* culprit) {
  const Tile& ref = tiles[0].Get();
  const auto ref_ends = Unclipped(ref, d);
  if (!ref_ends) {
    *culprit = 0;
    return Str("tile padding [", ref.padding[0], ",", ref.padding[1], ",", ref.padding[2], ",",
               ref.padding[3], "] is negative or out of range");
  }
  std::optional<int64_t> stride;
  int64_t ifmap_end = 0;
  for (const TileRef& t : tiles) ifmap_end = std::max(ifmap_end, t.Get().ifmap.hi[d]);
  for (size_t k = 0; k < tiles.size(); ++k) {
    *culprit = k;
    const Tile& tile = tiles[k].Get();
    const auto ends = Unclipped(tile, d);
    if (!ends) {
      return Str("tile padding [", tile.padding[0], ",", tile.padding[1], ",", tile.padding[2], ",",
                 tile.padding[3], "] is negative or out of range");
    }
    const int64_t pad_before = tile.padding[d == 2 ? 0 : 2];
    const int64_t pad_after = tile.padding[d == 2 ? 1 : 3];
    if (pad_before > 0 && tile.ifmap.lo[d] != 0) {
      return Str("padding ", pad_before, " before ifmap ", AxisName(d), " starting at ",
                 tile.ifmap.lo[d], "; padding only fills a window clipped at 0");
    }
    if (pad_after > 0 && tile.ifmap.hi[d] != ifmap_end) {
      return Str("padding ", pad_after, " after ifmap ", AxisName(d), " ending at ",
                 tile.ifmap.hi[d], ", short of the layer's input edge ", ifmap_end,
                 " (the largest tile ifmap end)");
    }
    if (tile.ofmap.lo[d] == 0 && ends->first > 0) {
      return Str("ofmap ", AxisName(d), " start at 0 but ifmap ", AxisName(d), " start at ",
                 tile.ifmap.lo[d], " with padding ", pad_before, ", a negative padding");
    }
    if (!stride) {
      const int64_t dlo = tile.ofmap.lo[d] - ref.ofmap.lo[d];
      const int64_t dhi = tile.ofmap.hi[d] - ref.ofmap.hi[d];
      const int64_t dwin =
          dlo != 0 ? ends->first - ref_ends->first : ends->second - ref_ends->second;
      const int64_t dout = dlo != 0 ? dlo : dhi;
      if (dout != 0) {
        if (dwin % dout != 0 || dwin / dout < 1) {
          return Str("ofmap ", AxisName(d), " ", tile.ofmap.lo[d], "..", tile.ofmap.hi[d],
                     " read ifmap ", AxisName(d), " ", ends->first, "..", ends->second,
                     " (padding included) where tile 0's ", ref.ofmap.lo[d], "..", ref.ofmap.hi[d],
                     " read ", ref_ends->first, "..", ref_ends->second, ": the window moves by ",
                     dwin, " for ", dout, " output ", AxisName(d), ", no whole stride >= 1");
        }
        stride = dwin / dout;
      }
    }
    const int64_t s = stride.value_or(0);
    int64_t lo_shift = 0, hi_shift = 0, ref_lo_shift = 0, ref_hi_shift = 0;
    if (__builtin_mul_overflow(tile.ofmap.lo[d], s, &lo_shift) ||
        __builtin_mul_overflow(tile.ofmap.hi[d], s, &hi_shift) ||
        __builtin_mul_overflow(ref.ofmap.lo[d], s, &ref_lo_shift) ||
        __builtin_mul_overflow(ref.ofmap.hi[d], s, &ref_hi_shift)) {
      return Str("stride ", s, " overflows the window arithmetic");
    }
    if (ends->first - lo_shift != ref_ends->first - ref_lo_shift ||
        ends->second - hi_shift != ref_ends->second - ref_hi_shift) {
      return Str("ofmap ", AxisName(d), " ", tile.ofmap.lo[d], "..", tile.ofmap.hi[d],
                 " read ifmap ", AxisName(d), " ", ends->first, "..", ends->second,
                 " (padding included), but with stride ", stride ? Str(s) : std::string("unknown"),
                 " tile 0 (ofmap ", ref.ofmap.lo[d], "..", ref.ofmap.hi[d], ", ifmap ",
                 ref_ends->first, "..", ref_ends->second, ") implies ",
                 ref_ends->first - ref_lo_shift + lo_shift, "..",
                 ref_ends->second - ref_hi_shift + hi_shift);
    }
  }
  if (stride) {
    // R - 1 = B - A - (o_hi - o_lo) * s >= 0.
    const int64_t kernel =
        ref_ends->second - ref_ends->first - (ref.ofmap.hi[d] - ref.ofmap.lo[d]) * *stride + 1;
    if (kernel < 1) {
      *culprit = 0;
      return Str("stride ", *stride, " and ifmap ", AxisName(d), " ", ref_ends->first, "..",
                 ref_ends->second, " for ofmap ", AxisName(d), " ", ref.ofmap.lo[d], "..",
                 ref.ofmap.hi[d], " leave a kernel of ", kernel);
    }
  }
  return "";
}

// I-W4 for batch, channels and the second operand: the ifmap batch is the
// ofmap's, the second operand of an element-wise tile is its first, and the
// channels are the ofmap's (pool, element-wise) or one [0, C-1] for every
// tile (conv, dense).
std::string OperandProblem(const std::vector<TileRef>& tiles, size_t* culprit) {
  const Tile* full_channels = nullptr;
  for (size_t k = 0; k < tiles.size(); ++k) {
    *culprit = k;
    const Tile& tile = tiles[k].Get();
    if (tile.ifmap.lo[0] != tile.ofmap.lo[0] || tile.ifmap.hi[0] != tile.ofmap.hi[0]) {
      return Str("ifmap batch ", tile.ifmap.lo[0], "..", tile.ifmap.hi[0],
                 " differs from ofmap batch ", tile.ofmap.lo[0], "..", tile.ofmap.hi[0]);
    }
    if (tile.ifmap2 && (tile.ifmap2->lo != tile.ifmap.lo || tile.ifmap2->hi != tile.ifmap.hi)) {
      return Str("second operand ", RangeText(*tile.ifmap2), " differs from the first ",
                 RangeText(tile.ifmap));
    }
    if (tile.ifmap.lo[1] == tile.ofmap.lo[1] && tile.ifmap.hi[1] == tile.ofmap.hi[1]) continue;
    if (tile.ifmap.lo[1] != 0) {
      return Str("ifmap channels ", tile.ifmap.lo[1], "..", tile.ifmap.hi[1],
                 " are neither the ofmap's ", tile.ofmap.lo[1], "..", tile.ofmap.hi[1],
                 " nor all channels from 0");
    }
    if (full_channels == nullptr) full_channels = &tile;
  }
  if (full_channels == nullptr) return "";
  for (size_t k = 0; k < tiles.size(); ++k) {
    *culprit = k;
    const Tile& tile = tiles[k].Get();
    if (tile.ifmap.hi[1] != full_channels->ifmap.hi[1] || tile.ifmap.lo[1] != 0) {
      return Str("ifmap channels ", tile.ifmap.lo[1], "..", tile.ifmap.hi[1],
                 " differ from the layer's input channels 0..", full_channels->ifmap.hi[1],
                 " that another tile reads for other ofmap channels");
    }
  }
  return "";
}

// I-W4 without the frontend: every tile of a layer, over all cores, follows
// one window. One report per layer.
void CheckWindows(const Context& ctx) {
  std::unordered_map<uint32_t, std::vector<TileRef>> layers;
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
      const Workload& w = core.workloads[i];
      if (FrontendChecksWindow(ctx, w.layer)) continue;
      auto& tiles = layers[w.layer];
      for (size_t t = 0; t < w.tiles.size(); ++t) tiles.push_back({&core, i, t});
    }
  }
  std::vector<uint32_t> order;
  for (const auto& [layer, tiles] : layers) order.push_back(layer);
  std::sort(order.begin(), order.end());
  for (uint32_t layer : order) {
    const std::vector<TileRef>& tiles = layers[layer];
    if (tiles.empty()) continue;
    size_t culprit = 0;
    std::string problem = OperandProblem(tiles, &culprit);
    for (int d = 2; d < 4 && problem.empty(); ++d) problem = WindowProblem(tiles, d, &culprit);
    if (problem.empty()) continue;
    const TileRef& t = tiles[culprit];
    ctx.sink.Report(
        rules::kTileWindow, LocationAt(t.Get().offset, t.Path() + "/ifmap_lower"),
        Str("layer ", Quoted(ctx.ir.LayerName(layer)), ", tile ", t.tile, " of workload ",
            t.core->workloads[t.workload].id, " of core ", t.core->id, ": ", problem));
  }
}

}  // namespace

// The receptive field of an ofmap range along H (d = 0) or W (d = 1),
// clipped to the input, and the padding the clipping implies.
std::optional<InputWindow> TileInputWindow(const FrontendLayer& layer, const Range& ofmap) {
  if (layer.input_shapes.empty()) return std::nullopt;
  const auto& input = layer.input_shapes[0];
  const bool windowed = layer.op == Op::kConv2d || layer.op == Op::kDense ||
                        layer.op == Op::kMaxPool || layer.op == Op::kAvgPool;
  const bool elementwise = layer.op == Op::kAdd || layer.op == Op::kQuantize;
  if (!windowed && !elementwise) return std::nullopt;
  InputWindow window{ofmap, {}, windowed};
  if (!windowed) return window;
  if (layer.op == Op::kConv2d || layer.op == Op::kDense) {
    window.ifmap.lo[1] = 0;
    window.ifmap.hi[1] = input[1] - 1;
  }
  const int64_t pads[2] = {layer.padding[0], layer.padding[1]};  // top, left
  for (int d = 0; d < 2; ++d) {
    const int64_t lo = ofmap.lo[2 + d] * layer.stride[d] - pads[d];
    const int64_t hi = ofmap.hi[2 + d] * layer.stride[d] - pads[d] + layer.kernel[d] - 1;
    window.ifmap.lo[2 + d] = std::max<int64_t>(lo, 0);
    window.ifmap.hi[2 + d] = std::min(hi, input[2 + d] - 1);
    window.padding[2 * d] = std::max<int64_t>(-lo, 0);
    window.padding[2 * d + 1] = std::max<int64_t>(hi - (input[2 + d] - 1), 0);
  }
  return window;
}

void CheckTiles(const Context& ctx) {
  for (const Core& core : ctx.ir.cores) {
    for (size_t i = 0; i < core.workloads.size(); ++i) {
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
  CheckWindows(ctx);
}

}  // namespace accelcheck::gemini
