#include "validators/gemini/layout.h"

#include "validators/core/checked.h"

namespace accelcheck::gemini {

bool ValidLayout(int64_t align, int64_t bitwidth) {
  return (bitwidth == 8 && align == 8) || (bitwidth == 16 && align == 4);
}

namespace {
std::optional<int64_t> Product(std::initializer_list<int64_t> factors) {
  int64_t product = 1;
  for (int64_t f : factors) {
    if (f < 0 || __builtin_mul_overflow(product, f, &product)) return std::nullopt;
  }
  return product;
}
}  // namespace

std::optional<int64_t> FmapBytes(const Range& r, int64_t align, int64_t bitwidth) {
  if (!ValidLayout(align, bitwidth)) return std::nullopt;
  const int64_t channels = static_cast<int64_t>(
      AlignUp(static_cast<uint64_t>(Extent(r, 1)), static_cast<uint64_t>(align)));
  return Product({Extent(r, 0), channels, Extent(r, 2), Extent(r, 3), bitwidth / 8});
}

std::optional<int64_t> WeightBytes(const Range& r) {
  const int64_t k = Extent(r, 1);
  const int64_t c = static_cast<int64_t>(AlignUp(static_cast<uint64_t>(Extent(r, 2)), 8));
  const auto body = Product({Extent(r, 0), k, c, Extent(r, 3)});
  const auto bias = Product({32, k});
  int64_t total;
  if (!body || !bias || __builtin_add_overflow(*body, *bias, &total)) return std::nullopt;
  return total;
}

}  // namespace accelcheck::gemini
