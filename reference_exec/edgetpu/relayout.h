// What the runtime does to a layer's bytes on the host (docs/formats/
// edgetpu.md §6.3, §6.4): an output's device buffer, written tile by tile,
// becomes the user's y, x, z tensor, and a user tensor becomes the device
// order, z padding and the sign-bit flip of signed types included. The
// inverse is the executor's own: the runtime never needs it, but it is what
// builds device buffers for a given tensor, and with the forward direction it
// shows that the maps lose nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "validators/core/bytes.h"
#include "validators/core/npy.h"
#include "validators/edgetpu/layout.h"

namespace accelcheck::edgetpu {

// How an output is read out of its device buffer.
enum class RelayoutMethod : uint8_t {
  kElementMap,   // element by element, index(y, x, z) of §6.3
  kRuntimeCopy,  // the runtime's Relayout paths 1 to 5, whole z vectors at a time
};

// A layer the executor re-lays out: its dimensions and, for an output
// spread over tiles, its maps.
class LayerGeometry {
 public:
  // Nothing, with `error`, when the layer lacks what the copy needs (EDG-72
  // to EDG-81), has a shape_info (which the executor does not follow), or
  // an output's maps put an element outside the buffer or two elements on
  // one byte (EDG-82, EDG-83).
  static std::optional<LayerGeometry> Of(const dwn::Layer& layer, bool output, std::string* error);

  const LayerDims& dims() const { return dims_; }
  bool is_signed() const { return signed_; }
  // Bytes of the user tensor, and of the device buffer, of one batch element.
  uint64_t user_bytes() const;
  uint64_t device_bytes() const;

  // Device buffer -> user tensor. `device` is device_bytes() long.
  std::vector<uint8_t> ToUser(ByteView device, RelayoutMethod method) const;
  // User tensor -> device buffer; bytes the tensor does not reach are zero.
  // `user` is user_bytes() long.
  std::vector<uint8_t> ToDevice(ByteView user) const;

  // The same as arrays: the tensor in its elements' dtype, of shape (y, x, z)
  // (executions first when there are several), and the buffer as bytes.
  npy::Array UserArray(ByteView device, RelayoutMethod method) const;
  npy::Array DeviceArray(ByteView user) const;

 private:
  // The device byte of element (y, x, 0) of execution `e`: z follows.
  uint64_t DeviceByte(int64_t e, uint32_t y, uint32_t x) const;

  LayerDims dims_;
  npy::DType dtype_;
  bool signed_ = false;
  std::optional<LayoutMaps> maps_;  // outputs over more than one position
};

// Why a conversion with `geometry` (ToDevice when `inverse`, else ToUser)
// would make more than `max_bytes` (--max-tensor-bytes); nothing when it
// would not. The device buffer is execution_count_per_inference times
// size_bytes, two int32 fields of the file, so the inverse of a one-byte
// tensor may ask for 2^62 bytes (docs/formats/edgetpu.md §6.3).
std::optional<std::string> ConversionOverLimit(const LayerGeometry& geometry, bool inverse,
                                               uint64_t max_bytes);

// The NumPy dtype of a layer's tensor elements (§1.5): unsigned and signed
// fixed point as integers, BFLOAT, HALF and SINGLE as floats.
npy::DType TensorDType(dwn::DataType type);

// `bytes` as a one-dimensional uint8 array.
npy::Array ByteArray(ByteView bytes);

// §6.4: signed 8- and 16-bit elements travel in offset binary, the most
// significant (last) byte of each element XORed with 0x80; the same flip
// turns them back.
void FlipSignBits(std::vector<uint8_t>& elements, int64_t element_size);

}  // namespace accelcheck::edgetpu
