// Output re-layout and its inverse (docs/formats/edgetpu.md §6.3, §6.4).
#include "reference_exec/edgetpu/relayout.h"

#include <algorithm>
#include <cstring>

#include "validators/core/text.h"

namespace accelcheck::edgetpu {

namespace {

bool IsSigned(dwn::DataType type) {
  return type == dwn::DataType::SIGNED_FIXED_POINT8 || type == dwn::DataType::SIGNED_FIXED_POINT16;
}

// EDG-80 to EDG-83 on the maps, for the element map to be read safely and
// lose nothing: every map as long as its axis, tile ids inside the tile
// table, and each element on bytes of its own inside the buffer.
bool CheckMaps(const LayoutMaps& maps, const LayerDims& dims, std::string* error) {
  for (const NamedMap& named : kLayoutMaps) {
    const LayoutMaps::Map* map = maps.*named.map;
    const uint64_t want = named.axis == NamedMap::kY   ? uint64_t(dims.y)
                          : named.axis == NamedMap::kX ? uint64_t(dims.x)
                                                       : 0;
    if (map == nullptr || (named.axis != NamedMap::kTiles && map->size() != want)) {
      *error = Str("the layout's ", named.name, " does not have ", want, " entries");
      return false;
    }
  }
  const uint64_t slots = static_cast<uint64_t>(dims.size_bytes / dims.element_size);
  std::vector<bool> taken(slots, false);
  for (uint32_t y = 0; y < dims.y; ++y) {
    for (uint32_t x = 0; x < dims.x; ++x) {
      const int64_t tile = int64_t{maps.y_tile->Get(y)} + maps.x_tile->Get(x);
      if (tile < 0 || static_cast<uint64_t>(tile) >= maps.tile_offset->size()) {
        *error = Str("position (", y, ", ", x, ") has tile id ", tile, ", outside the ",
                     maps.tile_offset->size(), " tiles");
        return false;
      }
      const int64_t first = maps.Index(y, x);
      if (first < 0 || static_cast<uint64_t>(first + dims.z) > slots) {
        *error = Str("position (", y, ", ", x, ") starts at element ", first,
                     ", so its z elements do not lie in the ", slots, "-element buffer");
        return false;
      }
      for (int64_t z = 0; z < dims.z; ++z) {
        if (taken[static_cast<uint64_t>(first + z)]) {
          *error = Str("element (", y, ", ", x, ", ", z, ") shares device element ", first + z,
                       " with another: the maps are not injective");
          return false;
        }
        taken[static_cast<uint64_t>(first + z)] = true;
      }
    }
  }
  return true;
}

}  // namespace

npy::DType TensorDType(dwn::DataType type) {
  using npy::Kind;
  switch (type) {
    case dwn::DataType::SIGNED_FIXED_POINT8:
      return {Kind::kSigned, 1};
    case dwn::DataType::FIXED_POINT16:
      return {Kind::kUnsigned, 2};
    case dwn::DataType::SIGNED_FIXED_POINT16:
      return {Kind::kSigned, 2};
    case dwn::DataType::SIGNED_FIXED_POINT32:
      return {Kind::kSigned, 4};
    case dwn::DataType::BFLOAT:
      return {Kind::kBFloat16, 2};
    case dwn::DataType::HALF:
      return {Kind::kFloat, 2};
    case dwn::DataType::SINGLE:
      return {Kind::kFloat, 4};
    default:
      return {Kind::kUnsigned, 1};
  }
}

npy::Array ByteArray(ByteView bytes) {
  return npy::FromBytes({npy::Kind::kUnsigned, 1}, {bytes.size()}, bytes);
}

void FlipSignBits(std::vector<uint8_t>& elements, int64_t element_size) {
  const auto size = static_cast<size_t>(element_size);
  for (size_t i = size - 1; i < elements.size(); i += size) elements[i] ^= 0x80;
}

std::optional<LayerGeometry> LayerGeometry::Of(const dwn::Layer& layer, bool output,
                                               std::string* error) {
  const auto dims = LayerDims::Of(layer);
  if (!dims) {
    *error = "the layer's data type, dimensions or size_bytes do not describe a tensor";
    return std::nullopt;
  }
  const dwn::OutputLayer* out = layer.any_layer_as_OutputLayer();
  if (output && out != nullptr && out->shape_info() != nullptr) {
    *error = "the output has a shape_info, whose slices the executor does not follow";
    return std::nullopt;
  }
  LayerGeometry geometry;
  geometry.dims_ = *dims;
  geometry.dtype_ = TensorDType(layer.data_type());
  geometry.signed_ = IsSigned(layer.data_type());
  if (!output || (dims->y == 1 && dims->x == 1)) return geometry;
  if (out == nullptr || out->layout() == nullptr) {
    *error = "the output spreads over several positions but has no layout";
    return std::nullopt;
  }
  geometry.maps_.emplace(*out->layout());
  if (!CheckMaps(*geometry.maps_, *dims, error)) return std::nullopt;
  return geometry;
}

uint64_t LayerGeometry::user_bytes() const {
  return static_cast<uint64_t>(dims_.executions * dims_.y * dims_.x * dims_.z_bytes());
}

uint64_t LayerGeometry::device_bytes() const {
  return static_cast<uint64_t>(dims_.executions * dims_.size_bytes);
}

// Inputs and single-position outputs are the tensor itself, padded at the
// end of each execution's size_bytes.
uint64_t LayerGeometry::DeviceByte(int64_t e, uint32_t y, uint32_t x) const {
  const int64_t element = maps_ ? maps_->Index(y, x) : (int64_t{y} * dims_.x + x) * dims_.z;
  return static_cast<uint64_t>(e * dims_.size_bytes + element * dims_.element_size);
}

std::vector<uint8_t> LayerGeometry::ToUser(ByteView device, RelayoutMethod method) const {
  std::vector<uint8_t> user(user_bytes());
  const auto z_bytes = static_cast<size_t>(dims_.z_bytes());
  const CopyPlan plan = maps_ ? PlanLayoutCopy(dims_, &*maps_) : CopyPlan{};
  size_t out = 0;
  for (int64_t e = 0; e < dims_.executions; ++e) {
    for (uint32_t y = 0; y < dims_.y; ++y) {
      for (uint32_t x = 0; x < dims_.x; ++x, out += z_bytes) {
        uint64_t from = DeviceByte(e, y, x);
        if (method == RelayoutMethod::kRuntimeCopy && maps_) {
          from = static_cast<uint64_t>(e * dims_.size_bytes + static_cast<int64_t>(CopySourceByte(
                                                                  plan, dims_, &*maps_, y, x)));
        }
        // The runtime's paths may reach past the buffer where EDG-95 fails;
        // the copy leaves those elements zero instead.
        if (from + z_bytes <= device.size())
          std::memcpy(user.data() + out, device.data() + from, z_bytes);
      }
    }
  }
  if (signed_) FlipSignBits(user, dims_.element_size);
  return user;
}

std::vector<uint8_t> LayerGeometry::ToDevice(ByteView user) const {
  std::vector<uint8_t> elements(user.begin(), user.end());
  if (signed_) FlipSignBits(elements, dims_.element_size);
  std::vector<uint8_t> device(device_bytes(), 0);
  const auto z_bytes = static_cast<size_t>(dims_.z_bytes());
  size_t in = 0;
  for (int64_t e = 0; e < dims_.executions; ++e) {
    for (uint32_t y = 0; y < dims_.y; ++y) {
      for (uint32_t x = 0; x < dims_.x; ++x, in += z_bytes) {
        if (in + z_bytes <= elements.size())
          std::memcpy(device.data() + DeviceByte(e, y, x), elements.data() + in, z_bytes);
      }
    }
  }
  return device;
}

npy::Array LayerGeometry::UserArray(ByteView device, RelayoutMethod method) const {
  std::vector<uint64_t> shape = {uint64_t(dims_.y), uint64_t(dims_.x), uint64_t(dims_.z)};
  if (dims_.executions > 1) shape.insert(shape.begin(), uint64_t(dims_.executions));
  return npy::FromBytes(dtype_, std::move(shape), ToUser(device, method));
}

npy::Array LayerGeometry::DeviceArray(ByteView user) const { return ByteArray(ToDevice(user)); }

std::optional<std::string> ConversionOverLimit(const LayerGeometry& geometry, bool inverse,
                                               uint64_t max_bytes) {
  const uint64_t bytes = inverse ? geometry.device_bytes() : geometry.user_bytes();
  if (bytes <= max_bytes) return std::nullopt;
  return Str("the ", inverse ? "device buffer" : "tensor", " would hold ", bytes,
             " bytes, more than --max-tensor-bytes ", max_bytes);
}

}  // namespace accelcheck::edgetpu
