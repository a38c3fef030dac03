#include "validators/core/json_decoder.h"

#include "validators/core/core_rules.h"

namespace accelcheck {

Location JsonOffsets::At(std::string pointer) const {
  Location location;
  if (const auto it = offsets_.find(pointer); it != offsets_.end()) location.offset = it->second;
  location.path = std::move(pointer);
  return location;
}

bool JsonDecoder::ExpectKind(JsonKind want, std::string_view what) {
  const JsonKind kind = reader_.Peek();
  if (kind == want || reader_.failed()) return kind == want;
  if (kind == JsonKind::kInvalid) {
    reader_.Skip();  // records the syntax error
    return false;
  }
  Location location = Here();
  reader_.Skip();
  if (!reader_.failed()) location.length = reader_.offset() - *location.offset;
  sink_.Report(*rules_.type, std::move(location),
               Str("expected ", what, " but found ", JsonKindName(kind)));
  return false;
}

bool JsonDecoder::IntSlow(int64_t* out) {
  if (!ExpectKind(JsonKind::kNumber, "an integer")) return false;
  const uint64_t at = reader_.offset();
  JsonNumber number;
  if (!reader_.ReadNumber(&number)) return false;
  if (!number.integral || !number.fits) {
    sink_.Report(*rules_.number_range, Location{at, reader_.offset() - at, reader_.Pointer()},
                 number.integral ? Str("integer does not fit in 64 bits")
                                 : Str("expected an integer but found ", number.real));
    return false;
  }
  *out = number.integer;
  return true;
}

bool JsonDecoder::Number(JsonNumber* out) {
  return ExpectKind(JsonKind::kNumber, "a number") && reader_.ReadNumber(out);
}

bool JsonDecoder::Real(double* out) {
  JsonNumber number;
  if (!Number(&number)) return false;
  *out = number.real;
  return true;
}

bool JsonDecoder::Bool(bool* out) {
  const JsonKind kind = reader_.Peek();
  if (kind != JsonKind::kTrue && kind != JsonKind::kFalse) {
    ExpectKind(JsonKind::kTrue, "a boolean");
    return false;
  }
  return reader_.ReadBool(out);
}

bool JsonDecoder::String(std::string_view* out) {
  return ExpectKind(JsonKind::kString, "a string") && reader_.ReadString(out);
}

bool JsonDecoder::OptionalInt(std::optional<int64_t>* out) {
  if (reader_.Peek() == JsonKind::kNull) {
    out->reset();
    return reader_.ReadNull();
  }
  int64_t value;
  if (!Int(&value)) return false;
  *out = value;
  return true;
}

void JsonDecoder::ReportUnknownKey(std::string_view key, uint64_t key_offset) {
  if (rules_.unknown_key == nullptr) return;
  ReportKey(*rules_.unknown_key, key, key_offset,
            Str("key ", Quoted(key), " is not defined for this object"));
}

bool JsonDecoder::ReportDuplicateKey(std::string_view key, uint64_t key_offset) {
  if (rules_.duplicate_key == nullptr) return false;
  ReportKey(*rules_.duplicate_key, key, key_offset,
            Str("key ", Quoted(key), " appears twice in one object"));
  return true;
}

bool JsonDecoder::Finish() {
  reader_.Finish();
  if (!reader_.failed()) return true;
  const Rule& rule =
      reader_.failure() == JsonReader::Failure::kDepth ? core_rules::kLimitDepth : *rules_.syntax;
  sink_.Report(rule, Location{reader_.error_offset(), std::nullopt, reader_.Pointer()},
               reader_.error());
  return false;
}

}  // namespace accelcheck
