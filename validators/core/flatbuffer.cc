#include "validators/core/flatbuffer.h"

#include "validators/core/core_rules.h"
#include "validators/core/text.h"

namespace accelcheck {

namespace {

constexpr uint64_t kMaxOffset = std::numeric_limits<flatbuffers::uoffset_t>::max();

}  // namespace

std::string JoinPath(std::string_view outer, std::string_view inner) {
  if (outer.empty()) return std::string(inner);
  if (inner.empty()) return std::string(outer);
  return Str(outer, inner.front() == '[' ? "" : ".", inner);
}

Location FlatbufferRegion::At(std::optional<uint64_t> inner, std::optional<uint64_t> length,
                              std::string_view inner_path) const {
  Location location;
  if (inner) location.offset = file_offset + *inner;
  location.length = length;
  location.path = JoinPath(path, inner_path);
  return location;
}

flatbuffers::Verifier::Options VerifierOptions(const Limits& limits) {
  flatbuffers::Verifier::Options options;
  options.max_depth = static_cast<flatbuffers::uoffset_t>(std::min(limits.max_depth, kMaxOffset));
  options.max_tables = static_cast<flatbuffers::uoffset_t>(std::min(limits.max_tables, kMaxOffset));
  return options;
}

// The schemas nest no table in itself, so no verifiable buffer is deeper than
// the default 64; and a buffer that shares no table visits each once, at most
// size / 4 of them. Lifting the limits that far classifies at a bounded cost.
// Shared tables beyond twice the user's limit are left unclassified, as
// hostile files make their number explode.
flatbuffers::Verifier::Options RelaxedOptions(flatbuffers::Verifier::Options options,
                                              size_t buffer_size, bool depth, bool tables) {
  const auto twice = [](uint64_t limit, uint64_t floor) {
    return static_cast<flatbuffers::uoffset_t>(std::min(std::max(2 * limit, floor), kMaxOffset));
  };
  if (depth) options.max_depth = twice(options.max_depth, Limits{}.max_depth);
  if (tables) options.max_tables = twice(options.max_tables, buffer_size / 4);
  return options;
}

bool FlatbufferVerification::SizeFits() const {
  const uint64_t size = region_.bytes.size();
  // The root offset comes first; nothing shorter can be located into (a
  // nested buffer can be any length).
  if (size < sizeof(flatbuffers::uoffset_t)) {
    sink_.Report(rule_, region_.At(0, size, ""),
                 Str(what_, " is ", size, " bytes, shorter than its root offset"));
    return false;
  }
  if (size < FLATBUFFERS_MAX_BUFFER_SIZE) return true;
  sink_.Report(rule_, region_.At(0, size, ""),
               Str(what_, " size ", Hex(size), " is not below the flatbuffers limit ",
                   Hex(FLATBUFFERS_MAX_BUFFER_SIZE)));
  return false;
}

void FlatbufferVerification::ReportLimit(bool depth) const {
  const Rule& rule = depth ? core_rules::kLimitDepth : core_rules::kLimitTables;
  const LimitInfo& info = FindLimit(rule);
  const uint64_t value = depth ? limits_.max_depth : limits_.max_tables;
  sink_.Report(
      rule, region_.At(0, std::nullopt, ""),
      Str(what_, " verifies only with more than --", info.flag, " ", value, " ", info.unit));
}

void FlatbufferLocator::FailOffsetField(const std::string& path, const void* table, voffset_t vt) {
  const uint64_t slot = FieldAt(table, vt);
  const auto offset = ReadLE<uint32_t>(buffer_, slot);
  if (!offset) return Fail(path, slot, "the field's offset lies past the end", true);
  const uint64_t target = slot + *offset;
  if (target >= buffer_.size()) {
    return Fail(path, slot, Str("the field's offset points to ", Hex(target), ", past the end"),
                true);
  }
  Fail(path, slot, Str("the field's offset slot at ", Hex(slot), " is misaligned or holds 0"));
}

void FlatbufferLocator::FailVector(const std::string& path, uint64_t vector,
                                   uint64_t element_size) {
  const auto count = ReadLE<uint32_t>(buffer_, vector);
  if (!count) return Fail(path, vector, "the vector's length lies past the end", true);
  if (vector % sizeof(uint32_t) != 0) {
    return Fail(path, vector, Str("the vector at ", Hex(vector), " is not 4-byte aligned"));
  }
  const uint64_t end = vector + sizeof(uint32_t) + uint64_t{*count} * element_size;
  if (end > buffer_.size()) {
    return Fail(path, vector,
                Str("the vector of ", *count, " elements ends at ", Hex(end), ", past the end"),
                true);
  }
  Fail(path, vector, Str("the vector of ", *count, " elements is larger than flatbuffers allows"));
}

void FlatbufferLocator::FailTable(const std::string& path, uint64_t table) {
  const auto soffset = ReadLE<int32_t>(buffer_, table);
  if (!soffset) return Fail(path, table, "the table lies past the end", true);
  if (table % sizeof(int32_t) != 0) {
    return Fail(path, table, Str("the table at ", Hex(table), " is not 4-byte aligned"));
  }
  const int64_t vtable = static_cast<int64_t>(table) - *soffset;
  const auto vtable_size =
      vtable < 0 ? std::nullopt : ReadLE<uint16_t>(buffer_, static_cast<uint64_t>(vtable));
  const auto table_size =
      vtable < 0 ? std::nullopt : ReadLE<uint16_t>(buffer_, static_cast<uint64_t>(vtable) + 2);
  if (vtable < 0) return Fail(path, table, "its vtable offset points before the buffer's start");
  if (!vtable_size || !table_size) {
    return Fail(path, table,
                Str("its vtable at ", Hex(static_cast<uint64_t>(vtable)), ", past the end"), true);
  }
  const uint64_t vtable_end = static_cast<uint64_t>(vtable) + *vtable_size;
  if (vtable_end > buffer_.size()) {
    return Fail(path, table, Str("its vtable ends at ", Hex(vtable_end), ", past the end"), true);
  }
  if (table + *table_size > buffer_.size()) {
    return Fail(path, table, Str("its fields end at ", Hex(table + *table_size), ", past the end"),
                true);
  }
  Fail(path, table,
       "its vtable is misaligned or malformed, or a field is misaligned or points outside the "
       "buffer");
}

void FlatbufferVerification::ReportFailure(const FlatbufferLocator& locator) const {
  const Location location = region_.At(locator.offset(), std::nullopt, locator.path());
  sink_.Report(rule_, location,
               Str(what_, " fails flatbuffer verification at ",
                   location.path.empty() ? std::string("the root table") : location.path, " (",
                   Hex(*location.offset), "): ", locator.reason(),
                   locator.past_end() ? Str(" of ", what_, " (", Hex(region_.bytes.size()),
                                            " bytes); the file looks truncated")
                                      : std::string()));
}

}  // namespace accelcheck
