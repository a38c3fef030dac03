#include "conformance/edgetpu/flex_map.h"

#include <stdexcept>
#include <string>

#include <flatbuffers/flexbuffers.h>

#include "validators/core/flexbuffer.h"

namespace accelcheck::edgetpu {
namespace {

namespace fx = ::accelcheck::flex;
using model::FlexMap;
using model::Vec;

std::optional<fx::Map> RootMap(ByteView bytes) {
  const std::optional<fx::Ref> root = fx::Root(bytes, nullptr);
  if (!root) return std::nullopt;
  return root->AsMap(nullptr);
}

Vec<uint8_t> Copy(const fx::Slice& slice) { return {slice.bytes.begin(), slice.bytes.end()}; }

std::optional<model::FlexVector> ReadVector(const fx::Ref& ref) {
  const std::optional<fx::Vector> vector = ref.AsVector(nullptr);
  if (!vector) return std::nullopt;
  model::FlexVector out;
  for (uint64_t i = 0; i < vector->size(); ++i) {
    const fx::Ref element = vector->At(i);
    if (element.type() == fx::Type::kInt) {
      const std::optional<int64_t> value = element.AsInt(nullptr);
      if (!value) return std::nullopt;
      out.items.emplace_back(*value);
    } else if (element.type() == fx::Type::kString) {
      const std::optional<fx::Slice> text = element.AsString(nullptr);
      if (!text) return std::nullopt;
      out.items.emplace_back(std::string(text->text()));
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<model::FlexValue> ReadValue(const fx::Ref& ref) {
  switch (ref.type()) {
    case fx::Type::kInt: {
      const std::optional<int64_t> value = ref.AsInt(nullptr);
      if (!value) return std::nullopt;
      return model::FlexInt{*value};
    }
    case fx::Type::kString: {
      const std::optional<fx::Slice> text = ref.AsString(nullptr);
      if (!text) return std::nullopt;
      return model::FlexString{Copy(*text)};
    }
    case fx::Type::kBlob: {
      const std::optional<fx::Slice> blob = ref.AsBlob(nullptr);
      if (!blob) return std::nullopt;
      return model::FlexBlob{Copy(*blob)};
    }
    case fx::Type::kVector: {
      std::optional<model::FlexVector> vector = ReadVector(ref);
      if (!vector) return std::nullopt;
      return std::move(*vector);
    }
    default:
      return std::nullopt;
  }
}

// One entry of a map the builder wrote, where its parts lie in the buffer.
struct Slot {
  std::string key;
  uint64_t key_at = 0;             // the key's first byte
  uint64_t value_at = 0;           // its slot in the value vector
  uint8_t packed_type = 0;         // its type byte, after the values
  std::optional<uint64_t> target;  // where a value stored by offset starts
  std::optional<int64_t> number;   // an inline int
};

struct Layout {
  uint64_t keys_at = 0;
  uint8_t key_width = 0;
  uint64_t values_at = 0;
  uint8_t width = 0;
  std::vector<Slot> slots;
};

std::optional<Layout> LayoutOf(ByteView bytes) {
  const std::optional<fx::Map> map = RootMap(bytes);
  if (!map) return std::nullopt;
  Layout layout;
  layout.keys_at = map->keys_offset();
  layout.key_width = map->keys_width();
  layout.values_at = map->offset();
  layout.width = map->byte_width();
  for (uint64_t i = 0; i < map->size(); ++i) {
    Slot slot;
    slot.key = std::string(map->key(i));
    slot.key_at = map->key_offset(i);
    const fx::Ref value = map->value(i);
    slot.value_at = value.offset();
    slot.packed_type = bytes[layout.values_at + map->size() * layout.width + i];
    switch (value.type()) {
      case fx::Type::kInt:
        slot.number = value.AsInt(nullptr);
        break;
      case fx::Type::kString:
        slot.target = value.AsString(nullptr)->offset;
        break;
      case fx::Type::kBlob:
        slot.target = value.AsBlob(nullptr)->offset;
        break;
      case fx::Type::kVector:
        slot.target = value.AsVector(nullptr)->offset();
        break;
      default:
        return std::nullopt;
    }
    layout.slots.push_back(std::move(slot));
  }
  return layout;
}

// Writes `value` after its key: where its data starts, for a value stored
// by offset.
struct ValueWriter {
  flexbuffers::Builder& fbb;
  const std::vector<uint8_t>* package_bytes;

  std::optional<uint64_t> Bytes(const Vec<uint8_t>& data, bool blob) const {
    if (blob) return fbb.Blob(data.data(), data.size());
    // Builder::String copies the NUL after the data from its argument.
    const std::string text(data.begin(), data.end());
    return fbb.String(text.c_str(), text.size());
  }
  std::optional<uint64_t> operator()(const model::FlexInt& v) const {
    fbb.Int(v.value);
    return std::nullopt;
  }
  std::optional<uint64_t> operator()(const model::FlexString& v) const {
    return Bytes(v.bytes, false);
  }
  std::optional<uint64_t> operator()(const model::FlexBlob& v) const {
    return Bytes(v.bytes, true);
  }
  std::optional<uint64_t> operator()(const model::FlexVector& v) const {
    const size_t start = fbb.StartVector();
    for (const model::FlexElement& item : v.items) {
      if (const int64_t* number = std::get_if<int64_t>(&item)) {
        fbb.Int(*number);
      } else {
        const std::string& text = std::get<std::string>(item);
        fbb.String(text.c_str(), text.size());
      }
    }
    return fbb.EndVector(start, false, false);
  }
  std::optional<uint64_t> operator()(const model::FlexPackage& v) const {
    return Bytes(*package_bytes, v.blob);
  }
};

void WriteUnsigned(std::vector<uint8_t>& bytes, uint64_t at, uint64_t width, uint64_t value) {
  for (uint64_t i = 0; i < width; ++i) bytes[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

bool Fits(uint64_t value, uint64_t width) { return width == 8 || value >> (8 * width) == 0; }

// Rewrites the key vector, the value vector and the type bytes of the map
// in `bytes` so that entry i is the model's entry i. The builder wrote the
// entries sorted by key; an entry is found again by its key and, among equal
// keys, by where its data lies (`targets`) or by its inline value. False
// when a rewritten offset does not fit its width.
bool PutInModelOrder(std::vector<uint8_t>& bytes, const FlexMap& map,
                     const std::vector<std::optional<uint64_t>>& targets) {
  const std::optional<Layout> layout = LayoutOf(bytes);
  if (!layout || layout->slots.size() != map.entries.size()) return false;
  const size_t n = map.entries.size();
  std::vector<size_t> source(n);
  std::vector<bool> used(n, false);
  bool identity = true;
  for (size_t i = 0; i < n; ++i) {
    const model::FlexEntry& entry = map.entries[i];
    const auto* number = std::get_if<model::FlexInt>(&entry.value);
    source[i] = n;
    for (size_t j = 0; j < n && source[i] == n; ++j) {
      const Slot& slot = layout->slots[j];
      if (used[j] || slot.key != entry.key || slot.target != targets[i]) continue;
      if (number && slot.number != number->value) continue;
      source[i] = j;
      used[j] = true;
    }
    if (source[i] == n) return false;
    identity = identity && source[i] == i;
  }
  if (identity) return true;
  const std::vector<uint8_t> built = bytes;
  const uint64_t w = layout->width;
  const uint64_t kw = layout->key_width;
  for (size_t i = 0; i < n; ++i) {
    const Slot& from = layout->slots[source[i]];
    const uint64_t key_slot = layout->keys_at + i * kw;
    const uint64_t value_slot = layout->values_at + i * w;
    if (!Fits(key_slot - from.key_at, kw)) return false;
    WriteUnsigned(bytes, key_slot, kw, key_slot - from.key_at);
    if (from.target) {
      if (!Fits(value_slot - *from.target, w)) return false;
      WriteUnsigned(bytes, value_slot, w, value_slot - *from.target);
    } else {
      std::copy_n(built.begin() + static_cast<ptrdiff_t>(from.value_at), w,
                  bytes.begin() + static_cast<ptrdiff_t>(value_slot));
    }
    bytes[layout->values_at + n * w + i] = from.packed_type;
  }
  return true;
}

std::optional<WrittenFlexMap> TryWrite(const FlexMap& map,
                                       const std::vector<std::vector<uint8_t>>& packages,
                                       bool package_first, flexbuffers::BitWidth min_width) {
  std::vector<size_t> order(map.entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::optional<size_t> package;
  for (size_t i = 0; i < map.entries.size() && !package; ++i) {
    if (std::holds_alternative<model::FlexPackage>(map.entries[i].value)) package = i;
  }
  if (package_first && package) {
    order.erase(order.begin() + static_cast<ptrdiff_t>(*package));
    order.insert(order.begin(), *package);
  }
  flexbuffers::Builder fbb(1024, flexbuffers::BUILDER_FLAG_SHARE_KEYS);
  fbb.ForceMinimumBitWidth(min_width);
  std::vector<std::optional<uint64_t>> targets(map.entries.size());
  const size_t start = fbb.StartMap();
  for (size_t i : order) {
    fbb.Key(map.entries[i].key);
    targets[i] = std::visit(ValueWriter{fbb, &packages[i]}, map.entries[i].value);
  }
  fbb.EndMap(start);
  fbb.Finish();
  WrittenFlexMap out;
  out.bytes = fbb.GetBuffer();
  if (!PutInModelOrder(out.bytes, map, targets)) return std::nullopt;
  if (package) out.package_at = targets[*package];
  return out;
}

}  // namespace

std::optional<model::FlexMap> ReadFlexMap(ByteView bytes) {
  const std::optional<fx::Map> map = RootMap(bytes);
  if (!map) return std::nullopt;
  FlexMap out;
  for (uint64_t i = 0; i < map->size(); ++i) {
    std::optional<model::FlexValue> value = ReadValue(map->value(i));
    if (!value) return std::nullopt;
    out.entries.push_back({std::string(map->key(i)), std::move(*value)});
  }
  return out;
}

WrittenFlexMap WriteFlexMap(
    const model::FlexMap& map,
    const std::function<std::vector<uint8_t>(const model::Package&)>& write_package,
    bool package_first) {
  std::vector<std::vector<uint8_t>> packages(map.entries.size());
  for (size_t i = 0; i < map.entries.size(); ++i) {
    if (const auto* p = std::get_if<model::FlexPackage>(&map.entries[i].value))
      packages[i] = write_package(p->package);
  }
  // An entry moved out of key order may need wider offsets than the builder
  // chose for the sorted ones: widen until the patch fits.
  for (flexbuffers::BitWidth width : {flexbuffers::BIT_WIDTH_8, flexbuffers::BIT_WIDTH_16,
                                      flexbuffers::BIT_WIDTH_32, flexbuffers::BIT_WIDTH_64}) {
    if (std::optional<WrittenFlexMap> written = TryWrite(map, packages, package_first, width))
      return std::move(*written);
  }
  throw std::logic_error("the FlexBuffer builder wrote a map that cannot be put in model order");
}

}  // namespace accelcheck::edgetpu
