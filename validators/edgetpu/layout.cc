#include "validators/edgetpu/layout.h"

#include <algorithm>

#include "validators/core/checked.h"

namespace accelcheck::edgetpu {

std::string WideText(Wide value) {
  if (value >= INT64_MIN && value <= INT64_MAX) return std::to_string(static_cast<int64_t>(value));
  std::string digits;
  const bool negative = value < 0;
  do {
    const int digit = static_cast<int>(value % 10);
    digits.insert(digits.begin(), static_cast<char>('0' + (negative ? -digit : digit)));
    value /= 10;
  } while (value != 0);
  return negative ? "-" + digits : digits;
}

std::optional<int64_t> DataTypeSize(dwn::DataType type) {
  switch (type) {
    case dwn::DataType::FIXED_POINT8:
    case dwn::DataType::SIGNED_FIXED_POINT8:
      return 1;
    case dwn::DataType::FIXED_POINT16:
    case dwn::DataType::SIGNED_FIXED_POINT16:
    case dwn::DataType::BFLOAT:
    case dwn::DataType::HALF:
      return 2;
    case dwn::DataType::SIGNED_FIXED_POINT32:
    case dwn::DataType::SINGLE:
      return 4;
  }
  return std::nullopt;
}

std::optional<LayerDims> LayerDims::Of(const dwn::Layer& layer) {
  const auto size = DataTypeSize(layer.data_type());
  if (!size || layer.y_dim() < 1 || layer.x_dim() < 1 || layer.z_dim() < 1 ||
      layer.execution_count_per_inference() < 1) {
    return std::nullopt;
  }
  LayerDims dims;
  dims.y = layer.y_dim();
  dims.x = layer.x_dim();
  dims.z = layer.z_dim();
  dims.element_size = *size;
  dims.executions = layer.execution_count_per_inference();
  dims.size_bytes = layer.size_bytes();
  if (Wide{dims.y} * dims.x * dims.z * dims.element_size > dims.size_bytes) return std::nullopt;
  return dims;
}

std::optional<uint64_t> ShapeElements(const dwn::TensorShape& shape) {
  if (shape.dimension() == nullptr || shape.dimension()->size() == 0) return std::nullopt;
  uint64_t count = 1;
  for (const dwn::Range* range : *shape.dimension()) {
    const int64_t length = int64_t{range->end()} - range->start() + 1;
    if (length < 1) return std::nullopt;
    const auto product = CheckedMul(count, static_cast<uint64_t>(length));
    if (!product) return std::nullopt;
    count = *product;
  }
  return count;
}

LayoutMaps::LayoutMaps(const dwn::OutputLayout& layout)
    : y_tile(layout.y_coordinate_to_linear_tile_id_map()),
      x_tile(layout.x_coordinate_to_linear_tile_id_map()),
      tile_offset(layout.linearized_tile_byte_offset()),
      x_local(layout.x_coordinate_to_local_byte_offset()),
      y_local(layout.y_coordinate_to_local_y_offset()),
      row_size(layout.x_coordinate_to_local_y_row_size()) {}

namespace {

int64_t Length(const dwn::Range& range) { return int64_t{range.end()} - range.start() + 1; }

// tensor_util's IsNoPaddingLayout: every stride is the next one times the
// next dimension's length.
bool NoPadding(const dwn::TensorLayout& layout) {
  const auto& dims = *layout.shape()->dimension();
  for (uint32_t i = 0; i + 1 < dims.size(); ++i) {
    if (Wide{layout.stride()->Get(i)} !=
        Wide{layout.stride()->Get(i + 1)} * Length(*dims.Get(i + 1)))
      return false;
  }
  return true;
}

}  // namespace

std::optional<CopyPath> ShapeInfoPath(const dwn::Layer& layer, const LayerDims& dims) {
  const auto& slices = *layer.any_layer_as_OutputLayer()->shape_info()->slice_layout();
  // NeedsRelayout in layer_information.cc.
  const bool relayout = slices.size() > 1 || !NoPadding(*slices.Get(0));
  if (dims.executions == 1) return relayout ? CopyPath::kSlices : CopyPath::kWhole;
  // More executions: a plain copy when the buffer holds no padding
  // (ActualSizeBytes == PaddedSizeBytes), the layout maps otherwise.
  const auto elements =
      layer.shape() != nullptr
          ? ShapeElements(*layer.shape())
          : std::optional<uint64_t>(static_cast<uint64_t>(dims.y * dims.x * dims.z));
  if (!relayout && elements && Wide{*elements} * dims.element_size == dims.size_bytes)
    return CopyPath::kWhole;
  return std::nullopt;
}

CopyPlan PlanLayoutCopy(const LayerDims& dims, const LayoutMaps* maps) {
  CopyPlan plan;
  if (dims.y == 1 && dims.x == 1) return plan;  // kVector
  const int64_t next = dims.x > 1 ? maps->Index(0, 1) : maps->Index(1, 0);
  plan.padded_z_bytes = (next - maps->Index(0, 0)) * dims.element_size;
  XRun run{0, 1};
  for (uint32_t x = 1; x < dims.x; ++x) {
    if (maps->x_tile->Get(x) == maps->x_tile->Get(run.first)) {
      ++run.count;
    } else {
      plan.runs.push_back(run);
      run = XRun{x, 1};
    }
  }
  plan.runs.push_back(run);
  const int64_t z_bytes = dims.z_bytes();
  if (z_bytes != plan.padded_z_bytes) {
    plan.path = CopyPath::kStrided;
    // The runtime's specialisations for grayscale and RGB pixels assume a
    // padding to 4 bytes whatever the layout says (§6.3 step 3).
    plan.source_stride = z_bytes == 1 || z_bytes == 3 ? 4 : plan.padded_z_bytes;
    return plan;
  }
  plan.source_stride = z_bytes;
  // Only the first and last y are compared, as the runtime does.
  const bool one_y_tile =
      maps->y_tile->Get(0) == maps->y_tile->Get(static_cast<uint32_t>(dims.y - 1));
  plan.path = plan.runs.size() > 1 || !one_y_tile ? CopyPath::kRuns : CopyPath::kContiguous;
  return plan;
}

Wide CopySourceByte(const CopyPlan& plan, const LayerDims& dims, const LayoutMaps* maps, uint32_t y,
                    uint32_t x) {
  switch (plan.path) {
    case CopyPath::kStrided:
    case CopyPath::kRuns: {
      // The run holding x: the last one starting at or before it.
      const auto run = std::upper_bound(plan.runs.begin(), plan.runs.end(), x,
                                        [](uint32_t v, const XRun& r) { return v < r.first; }) -
                       1;
      return Wide{maps->Index(y, run->first)} * dims.element_size +
             Wide{x - run->first} * plan.source_stride;
    }
    case CopyPath::kContiguous:
      return (Wide{y} * dims.x + x) * dims.z_bytes();
    case CopyPath::kVector:
    case CopyPath::kWhole:
    case CopyPath::kSlices:
      break;
  }
  return 0;
}

}  // namespace accelcheck::edgetpu
