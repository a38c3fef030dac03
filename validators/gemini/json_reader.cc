#include "validators/gemini/json_reader.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "validators/core/text.h"

namespace accelcheck::gemini {

std::string_view JsonKindName(JsonKind kind) {
  switch (kind) {
    case JsonKind::kObject: return "object";
    case JsonKind::kArray: return "array";
    case JsonKind::kString: return "string";
    case JsonKind::kNumber: return "number";
    case JsonKind::kTrue:
    case JsonKind::kFalse: return "boolean";
    case JsonKind::kNull: return "null";
    case JsonKind::kInvalid: break;
  }
  return "invalid value";
}

std::string PointerToken(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

JsonReader::JsonReader(ByteView text, uint64_t max_depth)
    : text_(reinterpret_cast<const char*>(text.data())), size_(text.size()), max_depth_(max_depth) {}

void JsonReader::SkipSpace() {
  while (pos_ < size_) {
    const char c = text_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
    ++pos_;
  }
}

bool JsonReader::Fail(Failure failure, std::string message) {
  if (failure_ == Failure::kNone) {
    failure_ = failure;
    error_ = std::move(message);
    error_offset_ = pos_;
  }
  return false;
}

std::string JsonReader::Pointer() const {
  std::string out;
  for (const Frame& frame : stack_) {
    if (frame.first) break;  // no element read yet
    out += '/';
    out += frame.array ? std::to_string(frame.index) : PointerToken(frame.key);
  }
  return out;
}

JsonKind JsonReader::Peek() {
  if (failed()) return JsonKind::kInvalid;
  SkipSpace();
  if (pos_ >= size_) return JsonKind::kInvalid;
  switch (text_[pos_]) {
    case '{': return JsonKind::kObject;
    case '[': return JsonKind::kArray;
    case '"': return JsonKind::kString;
    case 't': return JsonKind::kTrue;
    case 'f': return JsonKind::kFalse;
    case 'n': return JsonKind::kNull;
    default: break;
  }
  const char c = text_[pos_];
  if (c == '-' || (c >= '0' && c <= '9')) return JsonKind::kNumber;
  return JsonKind::kInvalid;
}

bool JsonReader::Expect(char c, std::string_view what) {
  if (failed()) return false;
  SkipSpace();
  if (pos_ >= size_) return Fail(Failure::kSyntax, Str("the text ends where ", what, " was expected"));
  if (text_[pos_] != c) {
    return Fail(Failure::kSyntax,
                Str("expected ", what, " at offset ", Hex(pos_), " but found ", Quoted(std::string_view(&text_[pos_], 1))));
  }
  ++pos_;
  return true;
}

bool JsonReader::Push(bool array) {
  if (stack_.size() >= max_depth_) {
    return Fail(Failure::kDepth, Str("nesting deeper than --max-depth ", max_depth_));
  }
  stack_.push_back(Frame{array, true, 0, {}, {}});
  return true;
}

bool JsonReader::BeginObject() { return Expect('{', "'{'") && Push(false); }
bool JsonReader::BeginArray() { return Expect('[', "'['") && Push(true); }

bool JsonReader::NextKey(std::string_view* key, uint64_t* key_offset) {
  if (failed() || stack_.empty()) return false;
  Frame& frame = stack_.back();
  SkipSpace();
  if (pos_ < size_ && text_[pos_] == '}') {
    ++pos_;
    stack_.pop_back();
    if (!stack_.empty()) stack_.back().first = false;
    return false;
  }
  if (!frame.first && !Expect(',', "',' or '}'")) return false;
  SkipSpace();
  *key_offset = pos_;
  if (pos_ >= size_ || text_[pos_] != '"') {
    return Fail(Failure::kSyntax, Str("expected a quoted key at offset ", Hex(pos_)));
  }
  if (!ScanString(&frame.key, &frame.key_storage)) return false;
  if (!Expect(':', "':'")) return false;
  if (!frame.first) ++frame.index;
  frame.first = false;
  *key = frame.key;
  return true;
}

bool JsonReader::NextElement() {
  if (failed() || stack_.empty()) return false;
  Frame& frame = stack_.back();
  SkipSpace();
  if (pos_ < size_ && text_[pos_] == ']') {
    ++pos_;
    stack_.pop_back();
    if (!stack_.empty()) stack_.back().first = false;
    return false;
  }
  if (!frame.first) {
    if (!Expect(',', "',' or ']'")) return false;
    ++frame.index;
  }
  frame.first = false;
  return true;
}

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xc0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xe0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    *out += static_cast<char>(0xf0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

}  // namespace

// A string without escapes is returned as a view of the text; one with
// escapes is decoded into `storage`.
bool JsonReader::ScanString(std::string_view* value, std::string* storage) {
  const uint64_t start = ++pos_;  // after the opening quote
  while (pos_ < size_) {
    const char c = text_[pos_];
    if (c == '"') {
      *value = std::string_view(text_ + start, pos_ - start);
      ++pos_;
      return true;
    }
    if (c == '\\') break;
    if (static_cast<unsigned char>(c) < 0x20) {
      return Fail(Failure::kSyntax, Str("control byte ", Hex(static_cast<unsigned char>(c)), " inside a string at offset ", Hex(pos_)));
    }
    ++pos_;
  }
  if (pos_ >= size_) return Fail(Failure::kSyntax, Str("string starting at offset ", Hex(start - 1), " is not terminated"));
  storage->assign(text_ + start, pos_ - start);
  while (pos_ < size_) {
    const char c = text_[pos_];
    if (c == '"') {
      ++pos_;
      *value = *storage;
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      return Fail(Failure::kSyntax, Str("control byte ", Hex(static_cast<unsigned char>(c)), " inside a string at offset ", Hex(pos_)));
    }
    if (c != '\\') {
      *storage += c;
      ++pos_;
      continue;
    }
    if (pos_ + 1 >= size_) break;
    const char e = text_[pos_ + 1];
    pos_ += 2;
    switch (e) {
      case '"': *storage += '"'; break;
      case '\\': *storage += '\\'; break;
      case '/': *storage += '/'; break;
      case 'b': *storage += '\b'; break;
      case 'f': *storage += '\f'; break;
      case 'n': *storage += '\n'; break;
      case 'r': *storage += '\r'; break;
      case 't': *storage += '\t'; break;
      case 'u': {
        if (pos_ + 4 > size_) return Fail(Failure::kSyntax, "truncated \\u escape");
        uint32_t cp = 0;
        for (int i = 0; i < 4; ++i) {
          const int d = HexDigit(text_[pos_ + i]);
          if (d < 0) return Fail(Failure::kSyntax, Str("bad \\u escape at offset ", Hex(pos_ - 2)));
          cp = cp * 16 + static_cast<uint32_t>(d);
        }
        pos_ += 4;
        AppendUtf8(storage, cp);
        break;
      }
      default:
        return Fail(Failure::kSyntax, Str("unknown escape \\", Quoted(std::string_view(&e, 1)), " at offset ", Hex(pos_ - 2)));
    }
  }
  return Fail(Failure::kSyntax, Str("string starting at offset ", Hex(start - 1), " is not terminated"));
}

bool JsonReader::ReadString(std::string_view* value) {
  if (failed()) return false;
  SkipSpace();
  if (pos_ >= size_ || text_[pos_] != '"') return Fail(Failure::kSyntax, Str("expected a string at offset ", Hex(pos_)));
  return ScanString(value, &scratch_);
}

bool JsonReader::ReadNumber(JsonNumber* value) {
  if (failed()) return false;
  SkipSpace();
  const uint64_t start = pos_;
  bool negative = false;
  if (pos_ < size_ && text_[pos_] == '-') {
    negative = true;
    ++pos_;
  }
  const uint64_t digits = pos_;
  // Accumulate as a negative number so that INT64_MIN fits.
  int64_t acc = 0;
  bool fits = true;
  while (pos_ < size_ && text_[pos_] >= '0' && text_[pos_] <= '9') {
    const int d = text_[pos_] - '0';
    if (fits && (__builtin_mul_overflow(acc, 10, &acc) || __builtin_sub_overflow(acc, d, &acc))) fits = false;
    ++pos_;
  }
  if (pos_ == digits) return Fail(Failure::kSyntax, Str("expected a digit at offset ", Hex(pos_)));
  if (text_[digits] == '0' && pos_ - digits > 1) return Fail(Failure::kSyntax, Str("number with a leading zero at offset ", Hex(start)));
  bool integral = true;
  if (pos_ < size_ && text_[pos_] == '.') {
    integral = false;
    const uint64_t frac = ++pos_;
    while (pos_ < size_ && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    if (pos_ == frac) return Fail(Failure::kSyntax, Str("expected a digit after '.' at offset ", Hex(pos_)));
  }
  if (pos_ < size_ && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    integral = false;
    ++pos_;
    if (pos_ < size_ && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    const uint64_t exp = pos_;
    while (pos_ < size_ && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    if (pos_ == exp) return Fail(Failure::kSyntax, Str("expected an exponent digit at offset ", Hex(pos_)));
  }
  value->integral = integral;
  value->fits = true;
  if (integral) {
    if (!negative && fits && acc == INT64_MIN) fits = false;
    value->fits = fits;
    value->integer = fits ? (negative ? acc : -acc) : 0;
    value->real = static_cast<double>(value->integer);
    if (fits) return true;
  }
  const auto result = std::from_chars(text_ + start, text_ + pos_, value->real);
  if (result.ec != std::errc()) value->real = negative ? -HUGE_VAL : HUGE_VAL;
  return true;
}

bool JsonReader::ScanLiteral(std::string_view literal) {
  if (size_ - pos_ < literal.size() || std::memcmp(text_ + pos_, literal.data(), literal.size()) != 0) {
    return Fail(Failure::kSyntax, Str("expected ", literal, " at offset ", Hex(pos_)));
  }
  pos_ += literal.size();
  return true;
}

bool JsonReader::ReadBool(bool* value) {
  const JsonKind kind = Peek();
  if (kind == JsonKind::kTrue) {
    *value = true;
    return ScanLiteral("true");
  }
  *value = false;
  return ScanLiteral("false");
}

bool JsonReader::ReadNull() {
  Peek();
  return ScanLiteral("null");
}

void JsonReader::Skip() {
  std::string_view ignored;
  uint64_t ignored_offset;
  JsonNumber number;
  switch (Peek()) {
    case JsonKind::kObject:
      if (!BeginObject()) return;
      while (NextKey(&ignored, &ignored_offset)) Skip();
      return;
    case JsonKind::kArray:
      if (!BeginArray()) return;
      while (NextElement()) Skip();
      return;
    case JsonKind::kString: ReadString(&ignored); return;
    case JsonKind::kNumber: ReadNumber(&number); return;
    case JsonKind::kTrue: ScanLiteral("true"); return;
    case JsonKind::kFalse: ScanLiteral("false"); return;
    case JsonKind::kNull: ScanLiteral("null"); return;
    case JsonKind::kInvalid: break;
  }
  if (failed()) return;
  if (pos_ >= size_) {
    Fail(Failure::kSyntax, "the text ends where a value was expected");
  } else {
    Fail(Failure::kSyntax, Str("expected a value at offset ", Hex(pos_), " but found ", Quoted(std::string_view(&text_[pos_], 1))));
  }
}

bool JsonReader::Finish() {
  if (failed()) return false;
  SkipSpace();
  if (pos_ != size_) return Fail(Failure::kSyntax, Str("bytes follow the document at offset ", Hex(pos_)));
  return true;
}

}  // namespace accelcheck::gemini
