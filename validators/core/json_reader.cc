#include "validators/core/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "validators/core/text.h"

namespace accelcheck {

std::string_view JsonKindName(JsonKind kind) {
  switch (kind) {
    case JsonKind::kObject:
      return "object";
    case JsonKind::kArray:
      return "array";
    case JsonKind::kString:
      return "string";
    case JsonKind::kNumber:
      return "number";
    case JsonKind::kTrue:
    case JsonKind::kFalse:
      return "boolean";
    case JsonKind::kNull:
      return "null";
    case JsonKind::kInvalid:
      break;
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

namespace {

// Passed pages are released every kReleaseStep bytes, keeping the last
// kReleaseKeep bytes resident (the object being decoded is usually in them).
constexpr uint64_t kReleaseStep = uint64_t{4} << 20;
constexpr uint64_t kReleaseKeep = uint64_t{1} << 20;

constexpr std::array<JsonKind, 256> KindTable() {
  std::array<JsonKind, 256> kinds{};
  for (JsonKind& k : kinds) k = JsonKind::kInvalid;
  kinds['{'] = JsonKind::kObject;
  kinds['['] = JsonKind::kArray;
  kinds['"'] = JsonKind::kString;
  kinds['t'] = JsonKind::kTrue;
  kinds['f'] = JsonKind::kFalse;
  kinds['n'] = JsonKind::kNull;
  kinds['-'] = JsonKind::kNumber;
  for (int c = '0'; c <= '9'; ++c) kinds[c] = JsonKind::kNumber;
  return kinds;
}

// The bytes that end the fast scan of a string: the closing quote, an escape,
// and the control bytes RFC 8259 forbids inside strings.
constexpr std::array<bool, 256> StringStopTable() {
  std::array<bool, 256> stop{};
  for (int c = 0; c < 0x20; ++c) stop[c] = true;
  stop['"'] = true;
  stop['\\'] = true;
  return stop;
}
constexpr std::array<bool, 256> kStringStop = StringStopTable();

// SWAR tests on eight bytes at once: a nonzero result when some byte is
// below `n` (n <= 0x80) or equal to `c`.
constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighs = 0x8080808080808080ull;
uint64_t BytesBelow(uint64_t word, uint8_t n) { return (word - kOnes * n) & ~word & kHighs; }
uint64_t BytesEqual(uint64_t word, char c) {
  return BytesBelow(word ^ (kOnes * static_cast<uint8_t>(c)), 1);
}

// memcmp for the short keys of the IR, inlined: fixed-size copies compile
// to single loads.
bool SameBytes(const char* a, const char* b, size_t n) {
  for (; n >= 8; a += 8, b += 8, n -= 8) {
    uint64_t x;
    uint64_t y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    if (x != y) return false;
  }
  for (; n > 0; ++a, ++b, --n) {
    if (*a != *b) return false;
  }
  return true;
}

bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

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

const std::array<JsonKind, 256> JsonReader::kKindOfByte = KindTable();

JsonReader::JsonReader(ByteView text, uint64_t max_depth, const InputBuffer* input)
    : text_(reinterpret_cast<const char*>(text.data())),
      size_(text.size()),
      max_depth_(max_depth),
      input_(input != nullptr && input->discards() ? input : nullptr),
      release_at_(input_ != nullptr ? kReleaseStep : UINT64_MAX) {
  stack_.reserve(32);
}

void JsonReader::ReleasePassed() {
  // Only what was passed since the last release: the pages before are gone.
  const uint64_t to = pos_ - kReleaseKeep;
  if (to > release_from_) release_from_ = input_->DiscardBetween(release_from_, to);
  release_at_ = pos_ + kReleaseStep;
}

void JsonReader::ContinueRootObjectAt(uint64_t offset) {
  pos_ = std::min<uint64_t>(offset, size_);
  stack_.clear();
  stack_.push_back(Frame{false, false, false, 1, {}, {}});
  release_from_ = pos_;
  if (input_ != nullptr) release_at_ = pos_ + kReleaseStep;
}

bool JsonReader::Fail(Failure failure, std::string message) {
  if (failure_ == Failure::kNone) {
    failure_ = failure;
    error_ = std::move(message);
    error_offset_ = pos_;
  }
  return false;
}

bool JsonReader::ExpectFailed(std::string_view what) {
  if (pos_ >= size_)
    return Fail(Failure::kSyntax, Str("the text ends where ", what, " was expected"));
  return Fail(Failure::kSyntax, Str("expected ", what, " at offset ", Hex(pos_), " but found ",
                                    Quoted(std::string_view(&text_[pos_], 1))));
}

std::string JsonReader::Pointer() const {
  std::string out;
  for (const Frame& frame : stack_) {
    if (frame.first) break;  // no element read yet
    out += '/';
    out += frame.array ? std::to_string(frame.index) : PointerToken(frame.Key());
  }
  return out;
}

bool JsonReader::Push(bool array) {
  if (stack_.size() >= max_depth_) {
    return Fail(Failure::kDepth, Str("nesting deeper than --max-depth ", max_depth_));
  }
  stack_.push_back(Frame{array, true, false, 0, {}, {}});
  return true;
}

void JsonReader::Pop() {
  ++pos_;
  stack_.pop_back();
  if (!stack_.empty()) stack_.back().first = false;
}

bool JsonReader::NextKey(std::string_view* key, uint64_t* key_offset, std::string_view expected) {
  if (failed() || stack_.empty()) return false;
  Frame& frame = stack_.back();
  // Compact text and a correct prediction: ,"key": recognised in one test.
  const uint64_t separator = frame.first ? 0 : 1;
  const uint64_t length = expected.size();
  if (length != 0 && size_ - pos_ > separator + length + 2) {
    const char* at = text_ + pos_ + separator;
    if ((separator == 0 || text_[pos_] == ',') && at[0] == '"' && at[length + 1] == '"' &&
        at[length + 2] == ':' && SameBytes(at + 1, expected.data(), length)) {
      *key_offset = pos_ + separator;
      frame.key = std::string_view(at + 1, length);
      frame.key_escaped = false;
      frame.index += separator;
      frame.first = false;
      pos_ += separator + length + 3;
      *key = expected;
      return true;
    }
  }
  SkipSpace();
  if (pos_ < size_ && text_[pos_] == '}') {
    Pop();
    return false;
  }
  if (!frame.first && !Expect(',', "',' or '}'")) return false;
  SkipSpace();
  *key_offset = pos_;
  if (pos_ >= size_ || text_[pos_] != '"') {
    return Fail(Failure::kSyntax, Str("expected a quoted key at offset ", Hex(pos_)));
  }
  if (length != 0 && size_ - pos_ > length + 1 && text_[pos_ + 1 + length] == '"' &&
      SameBytes(text_ + pos_ + 1, expected.data(), length)) {
    frame.key = std::string_view(text_ + pos_ + 1, length);
    frame.key_escaped = false;
    pos_ += length + 2;
    *key = expected;
  } else if (ScanString(&frame.key, &frame.key_storage, &frame.key_escaped)) {
    *key = frame.Key();
  } else {
    return false;
  }
  if (!Expect(':', "':'")) return false;
  if (!frame.first) ++frame.index;
  frame.first = false;
  return true;
}

bool JsonReader::NextElement() {
  if (failed() || stack_.empty()) return false;
  if (pos_ >= release_at_) ReleasePassed();
  Frame& frame = stack_.back();
  SkipSpace();
  if (pos_ < size_ && text_[pos_] == ']') {
    Pop();
    return false;
  }
  if (!frame.first) {
    if (!Expect(',', "',' or ']'")) return false;
    ++frame.index;
  }
  frame.first = false;
  return true;
}

// A string without escapes is returned as a view of the text; one with
// escapes is decoded into `storage` (and `*escaped` set).
bool JsonReader::ScanString(std::string_view* value, std::string* storage, bool* escaped) {
  const uint64_t start = ++pos_;  // after the opening quote
  // Eight bytes at a time while none of them can end the fast scan.
  while (size_ - pos_ >= 8) {
    uint64_t word;
    std::memcpy(&word, text_ + pos_, 8);
    const uint64_t stops = BytesBelow(word, 0x20) | BytesEqual(word, '"') | BytesEqual(word, '\\');
    if (stops != 0) break;
    pos_ += 8;
  }
  while (pos_ < size_ && !kStringStop[static_cast<unsigned char>(text_[pos_])]) ++pos_;
  if (pos_ < size_ && text_[pos_] == '"') {
    *value = std::string_view(text_ + start, pos_ - start);
    *escaped = false;
    ++pos_;
    return true;
  }
  if (!ScanEscapedString(start, storage)) return false;
  *value = *storage;
  *escaped = true;
  return true;
}

// Continues a string at the first byte the fast scan stopped at.
bool JsonReader::ScanEscapedString(uint64_t start, std::string* storage) {
  storage->assign(text_ + start, pos_ - start);
  while (pos_ < size_) {
    const char c = text_[pos_];
    if (c == '"') {
      ++pos_;
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      return Fail(Failure::kSyntax, Str("control byte ", Hex(static_cast<unsigned char>(c)),
                                        " inside a string at offset ", Hex(pos_)));
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
      case '"':
        *storage += '"';
        break;
      case '\\':
        *storage += '\\';
        break;
      case '/':
        *storage += '/';
        break;
      case 'b':
        *storage += '\b';
        break;
      case 'f':
        *storage += '\f';
        break;
      case 'n':
        *storage += '\n';
        break;
      case 'r':
        *storage += '\r';
        break;
      case 't':
        *storage += '\t';
        break;
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
        return Fail(Failure::kSyntax, Str("unknown escape \\", Quoted(std::string_view(&e, 1)),
                                          " at offset ", Hex(pos_ - 2)));
    }
  }
  return Fail(Failure::kSyntax,
              Str("string starting at offset ", Hex(start - 1), " is not terminated"));
}

bool JsonReader::ReadString(std::string_view* value) {
  if (failed()) return false;
  SkipSpace();
  if (pos_ >= size_ || text_[pos_] != '"')
    return Fail(Failure::kSyntax, Str("expected a string at offset ", Hex(pos_)));
  bool escaped;
  return ScanString(value, &scratch_, &escaped);
}

bool JsonReader::TryReadInt(int64_t* value) {
  if (failed()) return false;
  const Span text = span();
  const uint64_t end = text.ScanSmallInt(text.SkipSpace(pos_), value);
  if (end == 0) return false;
  pos_ = end;
  return true;
}

namespace {

// The compact form "[12,-3,0,7]" of at most kMaxCompactInts integers of at
// most 17 digits, read without bounds checks from a window known to hold
// kCompactWindow bytes: the scan looks at no more than '[', then per integer
// a sign, 18 digits and a separator, and stops at the first byte out of
// place (whitespace included), leaving the list to the checked path.
constexpr size_t kMaxCompactInts = 6;
constexpr uint64_t kCompactWindow = 128;
static_assert(1 + kMaxCompactInts * (1 + 18 + 1) <= kCompactWindow);

// The end of the list at `p` (just after '['), or 0 when it is not compact.
uint64_t ScanCompactInts(const char* data, uint64_t p, int64_t* values, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) {
      if (data[p] != ',') return 0;
      ++p;
    }
    const bool negative = data[p] == '-';
    p += negative ? 1 : 0;
    const uint64_t digits = p;
    uint64_t magnitude = 0;
    // At most 18 digits are looked at, so a longer number cannot leave the window.
    for (auto d = static_cast<unsigned char>(data[p] - '0'); d < 10 && p - digits < 18;
         d = static_cast<unsigned char>(data[p] - '0')) {
      magnitude = magnitude * 10 + d;
      ++p;
    }
    const uint64_t length = p - digits;
    if (length == 0 || length == 18 || (length > 1 && data[digits] == '0')) return 0;
    values[i] = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  }
  return data[p] == ']' ? p + 1 : 0;
}

}  // namespace

bool JsonReader::TryReadInts(int64_t* values, size_t count) {
  // A list one level too deep takes the slow path, which reports the depth.
  if (failed() || stack_.size() >= max_depth_) return false;
  const Span text = span();
  uint64_t p = text.SkipSpace(pos_);
  if (count <= kMaxCompactInts && text.size - p >= kCompactWindow && text.data[p] == '[') {
    int64_t read[kMaxCompactInts];
    if (const uint64_t end = ScanCompactInts(text.data, p + 1, read, count)) {
      std::copy(read, read + count, values);
      pos_ = end;
      return true;
    }
  }
  if (p >= text.size || text.data[p] != '[') return false;
  p = text.SkipSpace(p + 1);
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) {
      if (p >= text.size || text.data[p] != ',') return false;
      p = text.SkipSpace(p + 1);
    }
    p = text.ScanSmallInt(p, &values[i]);
    if (p == 0) return false;
    p = text.SkipSpace(p);
  }
  if (p >= text.size || text.data[p] != ']') return false;
  pos_ = p + 1;
  return true;
}

bool JsonReader::TryReadIntList(std::vector<int64_t>* values) {
  if (failed() || stack_.size() >= max_depth_) return false;
  const Span text = span();
  uint64_t p = text.SkipSpace(pos_);
  if (p >= text.size || text.data[p] != '[') return false;
  const size_t before = values->size();
  p = text.SkipSpace(p + 1);
  if (p < text.size && text.data[p] == ']') {
    pos_ = p + 1;
    return true;
  }
  while (true) {
    int64_t value;
    p = text.ScanSmallInt(p, &value);
    if (p == 0) break;
    values->push_back(value);
    p = text.SkipSpace(p);
    if (p < text.size && text.data[p] == ']') {
      pos_ = p + 1;
      return true;
    }
    if (p >= text.size || text.data[p] != ',') break;
    p = text.SkipSpace(p + 1);
  }
  values->resize(before);
  return false;
}

bool JsonReader::ScanShortDecimal(double* value) {
  static constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                            1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                            1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  uint64_t p = pos_;
  const bool negative = p < size_ && text_[p] == '-';
  if (negative) ++p;
  const uint64_t digits = p;
  uint64_t mantissa = 0;
  uint64_t point = 0;  // the offset of '.', 0 when none was seen
  for (; p < size_ && p - digits < 16; ++p) {
    const char c = text_[p];
    if (static_cast<unsigned char>(c - '0') < 10) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(c - '0');
    } else if (c == '.' && point == 0 && p > digits) {
      point = p;
    } else {
      break;
    }
  }
  // The general path handles what this does not: no digits after the point,
  // a leading zero before other digits, an exponent, 16 or more characters.
  if (point == 0 || p == point + 1 || p - digits >= 16) return false;
  if (text_[digits] == '0' && point != digits + 1) return false;
  if (p < size_ && (static_cast<unsigned char>(text_[p] - '0') < 10 || text_[p] == 'e' ||
                    text_[p] == 'E' || text_[p] == '.')) {
    return false;
  }
  const double magnitude = static_cast<double>(mantissa) / kPowersOfTen[p - point - 1];
  *value = negative ? -magnitude : magnitude;
  pos_ = p;
  return true;
}

bool JsonReader::ReadNumber(JsonNumber* value) {
  if (failed()) return false;
  SkipSpace();
  int64_t integer;
  const uint64_t end = span().ScanSmallInt(pos_, &integer);
  if (end == 0) {
    if (!ScanShortDecimal(&value->real)) return ReadNumberSlow(value);
    value->integral = false;
    value->fits = true;
    value->integer = 0;
    return true;
  }
  value->integral = true;
  value->fits = true;
  value->integer = integer;
  value->real = static_cast<double>(integer);
  pos_ = end;
  return true;
}

bool JsonReader::ReadNumberSlow(JsonNumber* value) {
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
  while (pos_ < size_ && IsDigit(text_[pos_])) {
    const int d = text_[pos_] - '0';
    if (fits && (__builtin_mul_overflow(acc, 10, &acc) || __builtin_sub_overflow(acc, d, &acc)))
      fits = false;
    ++pos_;
  }
  if (pos_ == digits) return Fail(Failure::kSyntax, Str("expected a digit at offset ", Hex(pos_)));
  if (text_[digits] == '0' && pos_ - digits > 1)
    return Fail(Failure::kSyntax, Str("number with a leading zero at offset ", Hex(start)));
  bool integral = true;
  if (pos_ < size_ && text_[pos_] == '.') {
    integral = false;
    const uint64_t frac = ++pos_;
    while (pos_ < size_ && IsDigit(text_[pos_])) ++pos_;
    if (pos_ == frac)
      return Fail(Failure::kSyntax, Str("expected a digit after '.' at offset ", Hex(pos_)));
  }
  if (pos_ < size_ && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    integral = false;
    ++pos_;
    if (pos_ < size_ && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    const uint64_t exp = pos_;
    while (pos_ < size_ && IsDigit(text_[pos_])) ++pos_;
    if (pos_ == exp)
      return Fail(Failure::kSyntax, Str("expected an exponent digit at offset ", Hex(pos_)));
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
  if (size_ - pos_ < literal.size() ||
      std::memcmp(text_ + pos_, literal.data(), literal.size()) != 0) {
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
    case JsonKind::kString:
      ReadString(&ignored);
      return;
    case JsonKind::kNumber:
      ReadNumber(&number);
      return;
    case JsonKind::kTrue:
      ScanLiteral("true");
      return;
    case JsonKind::kFalse:
      ScanLiteral("false");
      return;
    case JsonKind::kNull:
      ScanLiteral("null");
      return;
    case JsonKind::kInvalid:
      break;
  }
  if (failed()) return;
  if (pos_ >= size_) {
    Fail(Failure::kSyntax, "the text ends where a value was expected");
  } else {
    Fail(Failure::kSyntax, Str("expected a value at offset ", Hex(pos_), " but found ",
                               Quoted(std::string_view(&text_[pos_], 1))));
  }
}

bool JsonReader::Finish() {
  if (failed()) return false;
  SkipSpace();
  if (pos_ != size_)
    return Fail(Failure::kSyntax, Str("bytes follow the document at offset ", Hex(pos_)));
  return true;
}

}  // namespace accelcheck
