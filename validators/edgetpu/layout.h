// Where the device writes each element of an output layer, and how the
// runtime copies it into the tensor (docs/formats/edgetpu.md §1.5, §6.3).
// The validator's layout rules (EDG-77, EDG-79 to EDG-85, EDG-95) and the
// re-layout executor read the maps through these functions, so that both
// agree on what a layout means.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "validators/edgetpu/schema/executable_generated.h"

namespace accelcheck::edgetpu {

namespace dwn = platforms::darwinn;

// Products of values read from a file: a 32-bit index times a 32-bit
// stride times a 32-bit count does not fit 64 bits.
__extension__ using Wide = __int128;

// `value` in decimal, for messages.
std::string WideText(Wide value);

// Bytes per element of `type` (§1.5); nothing for a value the schema does
// not declare (EDG-72).
std::optional<int64_t> DataTypeSize(dwn::DataType type);

// The dimensions of a layer the runtime multiplies, when EDG-72, EDG-74 and
// EDG-75 hold for it: every dimension and the execution count at least 1, a
// declared data type, and size_bytes covering y·x·z elements.
struct LayerDims {
  int64_t y = 1, x = 1, z = 1;
  int64_t element_size = 1;
  int64_t executions = 1;
  int64_t size_bytes = 0;

  static std::optional<LayerDims> Of(const dwn::Layer& layer);
  int64_t z_bytes() const { return z * element_size; }
  // The device buffer of one inference: size_bytes per execution (§6.2).
  Wide buffer_bytes() const { return Wide{size_bytes} * executions; }
};

// The number of elements of `shape` (the product of its ranges' lengths);
// nothing when it has no dimension, a range ends before it starts, or the
// count does not fit 64 bits (EDG-76).
std::optional<uint64_t> ShapeElements(const dwn::TensorShape& shape);

// The six maps of an OutputLayout (§1.5), any of them possibly absent.
struct LayoutMaps {
  using Map = flatbuffers::Vector<int32_t>;
  const Map* y_tile = nullptr;       // y_coordinate_to_linear_tile_id_map
  const Map* x_tile = nullptr;       // x_coordinate_to_linear_tile_id_map
  const Map* tile_offset = nullptr;  // linearized_tile_byte_offset
  const Map* x_local = nullptr;      // x_coordinate_to_local_byte_offset
  const Map* y_local = nullptr;      // y_coordinate_to_local_y_offset
  const Map* row_size = nullptr;     // x_coordinate_to_local_y_row_size

  explicit LayoutMaps(const dwn::OutputLayout& layout);

  // index(y, x, z) of §6.3, in elements (the runtime multiplies it by the
  // element size). Only for maps of y_dim and x_dim entries whose tile ids
  // stay inside tile_offset (EDG-80, EDG-81); exact for any int32 values.
  int64_t Index(uint32_t y, uint32_t x, int64_t z = 0) const {
    const int64_t tile = int64_t{y_tile->Get(y)} + x_tile->Get(x);
    return int64_t{tile_offset->Get(static_cast<uint32_t>(tile))} +
           int64_t{y_local->Get(y)} * row_size->Get(x) + x_local->Get(x) + z;
  }
};

// One map of LayoutMaps with its schema name, and whether it has an entry
// per y or per x (EDG-80).
struct NamedMap {
  std::string_view name;
  const LayoutMaps::Map* LayoutMaps::*map;
  enum Axis { kY, kX, kTiles } axis;
};
inline constexpr NamedMap kLayoutMaps[] = {
    {"y_coordinate_to_linear_tile_id_map", &LayoutMaps::y_tile, NamedMap::kY},
    {"x_coordinate_to_linear_tile_id_map", &LayoutMaps::x_tile, NamedMap::kX},
    {"linearized_tile_byte_offset", &LayoutMaps::tile_offset, NamedMap::kTiles},
    {"x_coordinate_to_local_byte_offset", &LayoutMaps::x_local, NamedMap::kX},
    {"y_coordinate_to_local_y_offset", &LayoutMaps::y_local, NamedMap::kY},
    {"x_coordinate_to_local_y_row_size", &LayoutMaps::row_size, NamedMap::kX},
};

// The paths of the runtime's Relayout (§6.3).
enum class CopyPath {
  kWhole,       // shape_info of one unpadded slice: the buffer is the tensor
  kSlices,      // shape_info: each slice by its strides from its slice_offset
  kVector,      // y = x = 1: the first z bytes of each execution (path 1)
  kStrided,     // z padded: z bytes per x, the source advancing a fixed stride (path 3)
  kRuns,        // no z padding, several x runs or y tiles: each run in one piece (path 4)
  kContiguous,  // no z padding, one x run and one y tile: everything at once (path 5)
};

// Consecutive x positions with one x tile id, which the strided paths copy
// from the position of the first.
struct XRun {
  uint32_t first = 0;
  uint32_t count = 0;
};

struct CopyPlan {
  CopyPath path = CopyPath::kVector;
  // The padded z stride in bytes, from the first two positions (index(0, 1, 0)
  // - index(0, 0, 0), or index(1, 0, 0) when x_dim is 1), for y·x > 1.
  int64_t padded_z_bytes = 0;
  // What the source advances per x within a run: the padded stride, but 4
  // for a padded z of 1 or 3 bytes (kStrided), z bytes (kRuns, kContiguous).
  int64_t source_stride = 0;
  std::vector<XRun> runs;
};

// The path the runtime takes on an output with a shape_info (EDG-84
// holding): kWhole or kSlices, or nothing when the execution count makes it
// fall back to the layout maps (layer_information.cc takes the shape_info
// only for one execution).
std::optional<CopyPath> ShapeInfoPath(const dwn::Layer& layer, const LayerDims& dims);

// The path for an output copied by its layout maps, and its strides. For
// y·x > 1 the maps must hold EDG-80 to EDG-82; `maps` may be null for y =
// x = 1.
CopyPlan PlanLayoutCopy(const LayerDims& dims, const LayoutMaps* maps);

// The byte of the device buffer the runtime's copy reads element (y, x, 0)
// from on the path of `plan` (one of kVector to kContiguous), execution 0;
// z follows contiguously. Where the layout puts it is Index(y, x) times the
// element size: EDG-95 asks both to agree.
Wide CopySourceByte(const CopyPlan& plan, const LayerDims& dims, const LayoutMaps* maps, uint32_t y,
                    uint32_t x);

}  // namespace accelcheck::edgetpu
