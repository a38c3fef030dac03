// H: where the device writes each output element and how the runtime copies
// it into the tensor (EDG-77, EDG-79 to EDG-85, EDG-95;
// docs/formats/edgetpu.md §6.3). Layers that break EDG-71, EDG-72, EDG-74 or
// EDG-75 are G's (validate_layers.cc) and are skipped here.
//
// y_dim and x_dim may be as large as the maps' lengths, which the file size
// bounds, so their product may not be: the bounds are computed per distinct
// y tile id rather than per y, the runtime's strides in closed form, and the
// one check that needs every (y, x) pair, injectivity, sorts the starts of
// up to a million positions and beyond that marks a bitmap of bounded size
// window by window, looking at the deadline as it goes.
#include <algorithm>

#include "validators/core/text.h"
#include "validators/edgetpu/layout.h"
#include "validators/edgetpu/rules.h"
#include "validators/edgetpu/validate.h"

namespace accelcheck::edgetpu {

namespace {

// The runtime's rank limit, kNumDimensions in api/tensor_util.cc (EDG-84).
constexpr uint32_t kMaxRank = 5;
// Steps between two looks at the deadline.
constexpr uint64_t kDeadlineStride = 4096;
// The most (y, x) positions whose starts the injectivity check sorts (16 MiB).
constexpr uint64_t kSortedPositions = uint64_t{1} << 20;
// The indices it marks in one pass over more positions (8 MiB of bitmap).
constexpr uint64_t kWindowBits = uint64_t{1} << 26;

// Counts steps of the loops whose length is not bounded by the file size.
class Ticker {
 public:
  explicit Ticker(const Deadline& deadline) : deadline_(deadline) {}
  // False once the deadline expired; then the caller stops.
  bool Tick() {
    if (++steps_ % kDeadlineStride == 0 && deadline_.expired()) expired_ = true;
    return !expired_;
  }
  bool expired() const { return expired_; }

 private:
  const Deadline& deadline_;
  uint64_t steps_ = 0;
  bool expired_ = false;
};

struct OutputAt {
  const ExecutableView& exe;
  const dwn::Layer& layer;
  const dwn::OutputLayer& output;
  std::string path;  // "output_layers[2]"
  LayerDims dims;
};

std::string LayoutPath(const OutputAt& at, std::string_view field = {}) {
  return Str(at.path, ".any_layer.layout", field.empty() ? "" : ".", field);
}

std::string Bytes(int64_t n) { return Str(n, n == 1 ? " byte" : " bytes"); }

std::string Position(int64_t y, int64_t x, int64_t z) { return Str("(", y, ", ", x, ", ", z, ")"); }

// EDG-84: the shape_info the runtime copies slice by slice, each slice from
// slice_offset bytes on by its strides into the tensor laid out as
// Layer.shape. One report per slice; true when all hold.
bool CheckSlice(const OutputAt& at, const dwn::OutputShapeInfo& info, uint32_t index,
                const dwn::TensorShape& whole, const std::string& base, DiagnosticSink& sink) {
  const dwn::TensorLayout& slice = *info.slice_layout()->Get(index);
  const int32_t offset = info.slice_offset()->Get(index);
  const std::string path = Str(base, ".slice_layout[", index, "]");
  const auto fail = [&](const void* object, std::string_view field, std::string message) {
    ReportAt(sink, rules::kLayoutShapeInfo, at.exe, object, Str(path, field), std::move(message));
    return false;
  };
  const auto fail_offset = [&](std::string message) {
    ReportAt(sink, rules::kLayoutShapeInfo, at.exe, info.slice_offset(),
             Str(base, ".slice_offset[", index, "]"), std::move(message));
    return false;
  };
  const dwn::TensorShape* shape = slice.shape();
  const auto* dims = shape == nullptr ? nullptr : shape->dimension();
  if (dims == nullptr || dims->size() == 0) {
    return fail(&slice, ".shape", "the slice's shape has no dimension (an invalid layout)");
  }
  const uint32_t rank = dims->size();
  if (rank > kMaxRank) {
    return fail(dims, ".shape.dimension",
                Str("the slice has rank ", rank, ", above the runtime's ", kMaxRank));
  }
  if (rank != whole.dimension()->size()) {
    return fail(dims, ".shape.dimension",
                Str("the slice has rank ", rank, " but the layer's shape has rank ",
                    whole.dimension()->size()));
  }
  for (uint32_t d = 0; d < rank; ++d) {
    const dwn::Range& range = *dims->Get(d);
    const dwn::Range& bound = *whole.dimension()->Get(d);
    if (range.start() > range.end()) {
      return fail(&range, Str(".shape.dimension[", d, "]"),
                  Str("the range runs from ", range.start(), " to ", range.end(),
                      ", ending before it starts (an invalid layout)"));
    }
    if (range.start() < bound.start() || range.end() > bound.end()) {
      return fail(&range, Str(".shape.dimension[", d, "]"),
                  Str("the slice's range [", range.start(), ", ", range.end(),
                      "] lies outside the layer's shape [", bound.start(), ", ", bound.end(),
                      "]: the runtime aborts placing it in the tensor"));
    }
  }
  const auto* strides = slice.stride();
  if (strides == nullptr || strides->size() < rank) {
    return fail(&slice, ".stride",
                Str("the slice has ", strides == nullptr ? 0 : strides->size(),
                    " strides for rank ", rank, "; the runtime reads one per dimension"));
  }
  Wide low = 0, high = 0;  // the slice's least and greatest element index
  for (uint32_t d = 0; d < rank; ++d) {
    const int64_t length = int64_t{dims->Get(d)->end()} - dims->Get(d)->start() + 1;
    if (d + 1 < rank) {
      const Wide inner = Wide{strides->Get(d + 1)} *
                         (int64_t{dims->Get(d + 1)->end()} - dims->Get(d + 1)->start() + 1);
      if (strides->Get(d) < inner) {
        return fail(strides, Str(".stride[", d, "]"),
                    Str("stride ", d, " is ", strides->Get(d), ", below stride ", d + 1,
                        " times the length of dimension ", d + 1, " (", WideText(inner),
                        "): an invalid layout"));
      }
    }
    const Wide span = Wide{strides->Get(d)} * (length - 1);
    (span < 0 ? low : high) += span;
  }
  const int64_t element = at.dims.element_size;
  if (offset % element != 0) {
    return fail_offset(Str("slice ", index, " starts at byte ", offset,
                           ", not a multiple of the element size ", element,
                           " (FailedPrecondition)"));
  }
  const Wide first = offset + low * element;
  const Wide end = offset + (high + 1) * element;
  if (first < 0 || end > at.dims.buffer_bytes()) {
    return fail_offset(Str("slice ", index, " covers bytes [", WideText(first), ", ", WideText(end),
                           "), outside the device buffer of ", WideText(at.dims.buffer_bytes()),
                           " bytes (size_bytes · execution_count_per_inference)"));
  }
  return true;
}

bool CheckShapeInfo(const OutputAt& at, DiagnosticSink& sink) {
  const dwn::OutputShapeInfo& info = *at.output.shape_info();
  const std::string path = Str(at.path, ".any_layer.shape_info");
  const auto fail = [&](const void* object, std::string_view field, std::string message) {
    ReportAt(sink, rules::kLayoutShapeInfo, at.exe, object, Str(path, field), std::move(message));
    return false;
  };
  const auto* slices = info.slice_layout();
  if (slices == nullptr || slices->size() == 0) {
    return fail(&info, ".slice_layout",
                "the shape_info has no slice layout; the runtime reads the first unchecked");
  }
  const auto* offsets = info.slice_offset();
  if (offsets == nullptr || offsets->size() < slices->size()) {
    return fail(
        &info, ".slice_offset",
        Str("the shape_info has ", offsets == nullptr ? 0 : offsets->size(), " slice offsets for ",
            slices->size(), " slices; the runtime reads one per slice unchecked"));
  }
  const dwn::TensorShape* whole = at.layer.shape();
  if (whole == nullptr) {
    return fail(&info, "",
                "the output has a shape_info but no shape, from which the runtime lays out the "
                "tensor the slices are copied into");
  }
  // An unusable shape is G's (EDG-76); the slices cannot be judged against it.
  if (!ShapeElements(*whole) || whole->dimension()->size() > kMaxRank) return false;
  bool ok = true;
  for (uint32_t i = 0; i < slices->size(); ++i) {
    ok = CheckSlice(at, info, i, *whole, path, sink) && ok;
  }
  return ok;
}

// EDG-80.
bool CheckLengths(const OutputAt& at, const LayoutMaps& maps, DiagnosticSink& sink) {
  bool ok = true;
  for (const NamedMap& named : kLayoutMaps) {
    if (named.axis == NamedMap::kTiles) continue;
    const LayoutMaps::Map* map = maps.*named.map;
    const int64_t want = named.axis == NamedMap::kY ? at.dims.y : at.dims.x;
    const int64_t have = map == nullptr ? 0 : map->size();
    if (have == want) continue;
    const std::string_view dim = named.axis == NamedMap::kY ? "y_dim" : "x_dim";
    const void* object = map;
    if (map == nullptr) object = at.output.layout();
    ReportAt(sink, rules::kLayoutLengths, at.exe, object, LayoutPath(at, named.name),
             map == nullptr ? Str(named.name, " is absent; it needs ", dim, " = ", want, " entries")
                            : Str(named.name, " has ", have, " entries, not ", dim, " = ", want,
                                  ": the runtime reads the missing ones unchecked"));
    ok = false;
  }
  return ok;
}

// Where the least and the greatest value of a map sit.
struct Extremes {
  uint32_t min = 0, max = 0;
};
Extremes FindExtremes(const LayoutMaps::Map& map) {
  Extremes e;
  for (uint32_t i = 1; i < map.size(); ++i) {
    if (map.Get(i) < map.Get(e.min)) e.min = i;
    if (map.Get(i) > map.Get(e.max)) e.max = i;
  }
  return e;
}

// EDG-81, from the extremes of the two tile-id maps: every sum of a y and an
// x tile id lies between the sums of their minima and of their maxima.
bool CheckTileIndex(const OutputAt& at, const LayoutMaps& maps, DiagnosticSink& sink) {
  const Extremes y = FindExtremes(*maps.y_tile);
  const Extremes x = FindExtremes(*maps.x_tile);
  const uint32_t tiles = maps.tile_offset == nullptr ? 0 : maps.tile_offset->size();
  const int64_t low = int64_t{maps.y_tile->Get(y.min)} + maps.x_tile->Get(x.min);
  const int64_t high = int64_t{maps.y_tile->Get(y.max)} + maps.x_tile->Get(x.max);
  if (low >= 0 && high < tiles) return true;
  const bool under = low < 0;
  const uint32_t yi = under ? y.min : y.max;
  const uint32_t xi = under ? x.min : x.max;
  ReportAt(sink, rules::kLayoutTileIndex, at.exe, maps.y_tile,
           LayoutPath(at, "y_coordinate_to_linear_tile_id_map"),
           Str("y ", yi, " has tile id ", maps.y_tile->Get(yi), " and x ", xi, " tile id ",
               maps.x_tile->Get(xi), ": their sum ", under ? low : high,
               " is not an index of linearized_tile_byte_offset's ", tiles,
               " entries, which the runtime reads unchecked"));
  return false;
}

// EDG-82, first half: one report per map holding a negative value.
bool CheckNonNegative(const OutputAt& at, const LayoutMaps& maps, DiagnosticSink& sink) {
  bool ok = true;
  for (const NamedMap& named : kLayoutMaps) {
    const LayoutMaps::Map* map = maps.*named.map;
    for (uint32_t i = 0; map != nullptr && i < map->size(); ++i) {
      if (map->Get(i) >= 0) continue;
      ReportAt(sink, rules::kLayoutBounds, at.exe, map,
               LayoutPath(at, Str(named.name, "[", i, "]")),
               Str(named.name, "[", i, "] is ", map->Get(i),
                   "; a negative offset places elements before the device buffer"));
      ok = false;
      break;
    }
  }
  return ok;
}

// EDG-82, second half, and EDG-85 for the layout: the greatest index, of
// the last z of the (y, x) that starts last, within size_bytes ·
// execution_count. With every value non-negative, the largest start among
// the y of one tile id is at the y of the largest local offset, so the
// search runs over distinct y tile ids times x. The greatest start index
// when it holds.
std::optional<int64_t> CheckBounds(const OutputAt& at, const LayoutMaps& maps, Ticker& ticker,
                                   DiagnosticSink& sink) {
  // Per distinct y tile id, the y with the largest y_local.
  std::vector<std::pair<int32_t, uint32_t>> by_tile;  // (tile id, y)
  for (uint32_t y = 0; y < at.dims.y; ++y) by_tile.emplace_back(maps.y_tile->Get(y), y);
  std::sort(by_tile.begin(), by_tile.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first
                              : maps.y_local->Get(a.second) > maps.y_local->Get(b.second);
  });
  const auto last = std::unique(by_tile.begin(), by_tile.end(),
                                [](const auto& a, const auto& b) { return a.first == b.first; });
  by_tile.erase(last, by_tile.end());
  int64_t max_start = -1;
  uint32_t max_y = 0, max_x = 0;
  for (const auto& [tile, y] : by_tile) {
    for (uint32_t x = 0; x < at.dims.x; ++x) {
      if (!ticker.Tick()) return std::nullopt;
      const int64_t start = maps.Index(y, x);
      if (start <= max_start) continue;
      max_start = start;
      max_y = y;
      max_x = x;
    }
  }
  const Wide end = (Wide{max_start} + at.dims.z) * at.dims.element_size;
  if (end <= at.dims.buffer_bytes()) return max_start;
  ReportAt(sink, rules::kLayoutBounds, at.exe, at.output.layout(), LayoutPath(at),
           Str("element ", Position(max_y, max_x, at.dims.z - 1), " has index ",
               max_start + at.dims.z - 1, ", so its bytes end at ", WideText(end),
               ", beyond the device buffer of ", WideText(at.dims.buffer_bytes()),
               " bytes (size_bytes · execution_count_per_inference)"));
  return std::nullopt;
}

// EDG-83: the runtime strides by the padded z it derives, so the z of one
// position must not run into the next.
void CheckZPadding(const OutputAt& at, const CopyPlan& plan, DiagnosticSink& sink) {
  const int64_t stride = plan.padded_z_bytes / at.dims.element_size;
  if (stride >= at.dims.z) return;
  ReportAt(sink, rules::kLayoutZPadding, at.exe, at.output.layout(), LayoutPath(at),
           Str("index", at.dims.x > 1 ? Position(0, 1, 0) : Position(1, 0, 0), " - index",
               Position(0, 0, 0), " is ", stride, ", below z_dim ", at.dims.z,
               ": the z of neighbouring positions overlap where the runtime copies them"));
}

// EDG-77: the copy without z padding over several runs aborts for more than
// one execution.
void CheckExecutionCount(const OutputAt& at, const CopyPlan& plan, DiagnosticSink& sink) {
  if (plan.path != CopyPath::kRuns || at.dims.executions == 1) return;
  ReportAt(sink, rules::kLayerExecutionCount, at.exe, &at.layer,
           Str(at.path, ".execution_count_per_inference"),
           Str("execution_count_per_inference is ", at.dims.executions,
               ", but the runtime copies this output (z unpadded, ", plan.runs.size(),
               " x runs) on a path that aborts for more than one execution (CHECK_EQ)"));
}

std::string PathText(const CopyPlan& plan, const LayerDims& dims) {
  switch (plan.path) {
    case CopyPath::kVector:
      return "as a vector, from byte 0";
    case CopyPath::kStrided:
      return Str("per y and x run from index(y, first x of the run, 0), z_dim · element size = ",
                 Bytes(dims.z_bytes()), " per x at a stride of ", Bytes(plan.source_stride),
                 plan.source_stride != plan.padded_z_bytes
                     ? Str(" (4 for a padded z of ", Bytes(dims.z_bytes()),
                           ", whatever the layout's stride of ", plan.padded_z_bytes, ")")
                     : std::string());
    case CopyPath::kRuns:
      return "per y and x run, each run in one piece from index(y, first x of the run, 0)";
    case CopyPath::kContiguous:
      return "in one piece from byte 0 (z unpadded, one x run, the same y tile id at the first "
             "and the last y)";
    case CopyPath::kWhole:
    case CopyPath::kSlices:
      break;
  }
  return "by its shape_info";
}

void ReportStride(const OutputAt& at, const LayoutMaps& maps, const CopyPlan& plan, uint32_t y,
                  uint32_t x, DiagnosticSink& sink) {
  ReportAt(
      sink, rules::kLayoutRuntimeStride, at.exe, at.output.layout(), LayoutPath(at),
      Str("the runtime copies this output ", PathText(plan, at.dims), ", so it reads element ",
          Position(y, x, 0), " from byte ", WideText(CopySourceByte(plan, at.dims, &maps, y, x)),
          " of the device buffer, but the layout puts it at byte ",
          WideText(Wide{maps.Index(y, x)} * at.dims.element_size)));
}

// EDG-95, in closed form. Within a run the x tile id is fixed, so the tile
// offset cancels: the layout and the copy agree on (y, x) when
//   es · (y_local[y] · (row[x] - row[f]) + x_local[x] - x_local[f]) == (x - f) · stride
// for the run's first x f. That depends on y only through y_local[y], and
// with different row sizes holds for one y_local value at most, so two y
// (the first, and one with another y_local) settle every x. The one-piece
// copy (kContiguous) also needs each y's first position where it puts it.
void CheckRuntimeStride(const OutputAt& at, const LayoutMaps& maps, const CopyPlan& plan,
                        DiagnosticSink& sink) {
  const LayerDims& dims = at.dims;
  if (plan.path == CopyPath::kVector) {
    if (maps.Index(0, 0) != 0) ReportStride(at, maps, plan, 0, 0, sink);
    return;
  }
  if (plan.path == CopyPath::kContiguous) {
    for (uint32_t y = 0; y < dims.y; ++y) {
      if (Wide{maps.Index(y, 0)} * dims.element_size != CopySourceByte(plan, dims, &maps, y, 0))
        return ReportStride(at, maps, plan, y, 0, sink);
    }
  }
  const int32_t y_local0 = maps.y_local->Get(0);
  std::optional<uint32_t> other_y;
  for (uint32_t y = 1; y < dims.y && !other_y; ++y) {
    if (maps.y_local->Get(y) != y_local0) other_y = y;
  }
  const int64_t es = dims.element_size;
  for (const XRun& run : plan.runs) {
    const uint32_t f = run.first;
    for (uint32_t x = f + 1; x < f + run.count; ++x) {
      const Wide row_change = Wide{maps.row_size->Get(x)} - maps.row_size->Get(f);
      const Wide rest = Wide{es} * (int64_t{maps.x_local->Get(x)} - maps.x_local->Get(f)) -
                        Wide{x - f} * plan.source_stride;
      if (Wide{es} * y_local0 * row_change + rest != 0)
        return ReportStride(at, maps, plan, 0, x, sink);
      if (row_change != 0 && other_y) return ReportStride(at, maps, plan, *other_y, x, sink);
    }
  }
}

void ReportShared(const OutputAt& at, const LayoutMaps& maps, uint64_t first, uint64_t second,
                  DiagnosticSink& sink) {
  const auto x_dim = static_cast<uint64_t>(at.dims.x);
  const auto y0 = static_cast<uint32_t>(first / x_dim), x0 = static_cast<uint32_t>(first % x_dim);
  const auto y1 = static_cast<uint32_t>(second / x_dim), x1 = static_cast<uint32_t>(second % x_dim);
  ReportAt(
      sink, rules::kLayoutInjective, at.exe, at.output.layout(), LayoutPath(at),
      Str("positions ", Position(y0, x0, 0), " and ", Position(y1, x1, 0), " both start at index ",
          maps.Index(y0, x0), ", so the device writes two elements to one place"));
}

// EDG-83, observed: no two (y, x) start at one index. Up to
// kSortedPositions positions are sorted by start; more are marked in a
// bitmap, window by window of the index range [0, max_start].
void CheckInjective(const OutputAt& at, const LayoutMaps& maps, int64_t max_start, Ticker& ticker,
                    DiagnosticSink& sink) {
  const auto x_dim = static_cast<uint64_t>(at.dims.x);
  const uint64_t positions = static_cast<uint64_t>(at.dims.y) * x_dim;
  const auto start = [&](uint64_t k) {
    return maps.Index(static_cast<uint32_t>(k / x_dim), static_cast<uint32_t>(k % x_dim));
  };
  if (positions <= kSortedPositions) {
    std::vector<std::pair<int64_t, uint64_t>> starts;  // (start, y · x_dim + x)
    starts.reserve(positions);
    for (uint64_t k = 0; k < positions; ++k) starts.emplace_back(start(k), k);
    std::sort(starts.begin(), starts.end());
    for (size_t i = 1; i < starts.size(); ++i) {
      if (starts[i].first == starts[i - 1].first)
        return ReportShared(at, maps, starts[i - 1].second, starts[i].second, sink);
    }
    return;
  }
  const uint64_t range = static_cast<uint64_t>(max_start) + 1;
  std::vector<uint64_t> bits;
  for (uint64_t base = 0; base < range; base += kWindowBits) {
    const uint64_t size = std::min(kWindowBits, range - base);
    bits.assign((size + 63) / 64, 0);
    for (uint64_t k = 0; k < positions; ++k) {
      if (!ticker.Tick()) return;
      const auto index = static_cast<uint64_t>(start(k));
      if (index < base || index - base >= size) continue;
      const uint64_t bit = index - base;
      const uint64_t mask = uint64_t{1} << (bit % 64);
      if ((bits[bit / 64] & mask) == 0) {
        bits[bit / 64] |= mask;
        continue;
      }
      // An earlier position has this start.
      uint64_t first = 0;
      while (start(first) != start(k)) {
        if (!ticker.Tick()) return;
        ++first;
      }
      return ReportShared(at, maps, first, k, sink);
    }
  }
}

void CheckOutput(const OutputAt& at, Ticker& ticker, DiagnosticSink& sink) {
  // Whether the runtime copies this output by its layout maps; not known
  // when the shape_info that decides it is broken.
  bool by_maps = true;
  if (at.output.shape_info() != nullptr) {
    by_maps = CheckShapeInfo(at, sink) && !ShapeInfoPath(at.layer, at.dims);
    // EDG-77: a sound shape_info is used for one execution only.
    if (by_maps) {
      ReportAt(sink, rules::kLayerExecutionCount, at.exe, &at.layer,
               Str(at.path, ".execution_count_per_inference"),
               Str("execution_count_per_inference is ", at.dims.executions,
                   ": the runtime copies an output by its shape_info for one execution only, "
                   "and re-lays this one out by its layout maps, ignoring the slices"));
    }
  }
  const bool vector = at.dims.y == 1 && at.dims.x == 1;
  const dwn::OutputLayout* layout = at.output.layout();
  if (layout == nullptr) {
    if (by_maps && !vector) {
      ReportAt(sink, rules::kLayoutMissing, at.exe, &at.output, LayoutPath(at),
               Str("the ", at.dims.y, "·", at.dims.x, "·", at.dims.z,
                   " output has no layout, which the runtime's re-layout reads unchecked"));
    }
    return;
  }
  const LayoutMaps maps(*layout);
  if (!CheckLengths(at, maps, sink) || !CheckTileIndex(at, maps, sink) ||
      !CheckNonNegative(at, maps, sink)) {
    return;
  }
  const auto max_start = CheckBounds(at, maps, ticker, sink);
  if (!max_start || !by_maps) return;
  const CopyPlan plan = PlanLayoutCopy(at.dims, &maps);
  if (!vector) CheckZPadding(at, plan, sink);
  CheckExecutionCount(at, plan, sink);
  CheckRuntimeStride(at, maps, plan, sink);
  if (!vector) CheckInjective(at, maps, *max_start, ticker, sink);
}

}  // namespace

bool ValidateLayouts(const PackageView& view, const Deadline& deadline, DiagnosticSink& sink) {
  Ticker ticker(deadline);
  for (const ExecutableView& exe : view.executables) {
    const auto* layers = exe.executable->output_layers();
    for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
      const dwn::Layer& layer = *layers->Get(i);
      const dwn::OutputLayer* output = layer.any_layer_as_OutputLayer();
      const auto dims = LayerDims::Of(layer);
      if (output == nullptr || !dims) continue;  // G's to report
      CheckOutput(OutputAt{exe, layer, *output, Str("output_layers[", i, "]"), *dims}, ticker,
                  sink);
      if (ticker.expired()) return false;
    }
  }
  return true;
}

}  // namespace accelcheck::edgetpu
