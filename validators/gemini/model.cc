#include "validators/gemini/model.h"

#include <algorithm>

#include "validators/core/text.h"

namespace accelcheck::gemini {

uint32_t LayerTable::Intern(std::string_view name) {
  // Runs of objects name the same layer: the last one answers most lookups.
  if (last_ != kNoLayer && (*names_)[last_] == name) return last_;
  const auto it = index_.find(name);
  if (it != index_.end()) return last_ = it->second;
  const auto id = static_cast<uint32_t>(names_->size());
  names_->emplace_back(name);
  index_.emplace(std::string(name), id);
  return last_ = id;
}

const std::string& LayerNameIn(const std::vector<std::string>& layers, uint32_t layer) {
  static const std::string kNone;
  return layer < layers.size() ? layers[layer] : kNone;
}

int64_t Extent(const Range& r, int d) { return r.hi[d] - r.lo[d] + 1; }

std::optional<int64_t> Volume(const Range& r) {
  int64_t volume = 1;
  for (int d = 0; d < 4; ++d) {
    int64_t extent;
    if (__builtin_sub_overflow(r.hi[d], r.lo[d], &extent) ||
        __builtin_add_overflow(extent, 1, &extent) || extent < 0 ||
        __builtin_mul_overflow(volume, extent, &volume)) {
      return std::nullopt;
    }
  }
  return volume;
}

bool Contains(const Range& outer, const Range& inner) {
  for (int d = 0; d < 4; ++d) {
    if (inner.lo[d] < outer.lo[d] || inner.hi[d] > outer.hi[d]) return false;
  }
  return true;
}

bool Intersects(const Range& a, const Range& b) {
  for (int d = 0; d < 4; ++d) {
    if (a.hi[d] < b.lo[d] || b.hi[d] < a.lo[d]) return false;
  }
  return true;
}

std::optional<Range> Intersect(const Range& a, const Range& b) {
  if (!Intersects(a, b)) return std::nullopt;
  Range r;
  for (int d = 0; d < 4; ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::min(a.hi[d], b.hi[d]);
  }
  return r;
}

bool SameExtents(const Range& a, const Range& b) {
  for (int d = 0; d < 4; ++d) {
    if (Extent(a, d) != Extent(b, d)) return false;
  }
  return true;
}

std::string RangeText(const Range& r) {
  return Str("[", r.lo[0], ",", r.lo[1], ",", r.lo[2], ",", r.lo[3], "]..[", r.hi[0], ",", r.hi[1],
             ",", r.hi[2], ",", r.hi[3], "]");
}

std::string WorkloadPath(const Core& core, size_t index) { return Str("/", core.id, "/", index); }
std::string DramInPath(size_t index) { return Str("/-1/in/", index); }
std::string DramOutPath(size_t index) { return Str("/-1/out/", index); }

}  // namespace accelcheck::gemini
