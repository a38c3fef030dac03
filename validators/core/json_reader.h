// A pull reader over JSON text: the caller asks for the next value of the kind
// it expects, so a document is decoded straight into typed tables without a
// DOM. Every value keeps its byte offset and the reader keeps the JSON pointer
// of the current position, for diagnostics.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/bytes.h"

namespace accelcheck {

enum class JsonKind : uint8_t { kObject, kArray, kString, kNumber, kTrue, kFalse, kNull, kInvalid };

std::string_view JsonKindName(JsonKind kind);

// A number as written: integral when it has no fraction or exponent.
struct JsonNumber {
  bool integral = false;
  bool fits = true;  // an integral value fits in int64
  int64_t integer = 0;
  double real = 0;
};

class JsonReader {
 public:
  enum class Failure : uint8_t { kNone, kSyntax, kDepth };

  // `input`, when given, holds `text`: the reader lets it drop the pages it
  // has passed (InputBuffer::DiscardBetween), so a mapped file or inflated
  // bytes of any size are decoded without staying resident. Views the reader
  // handed out stay valid while they lie in the last MiB it passed.
  JsonReader(ByteView text, uint64_t max_depth, const InputBuffer* input = nullptr);

  // The kind of the next value; kInvalid after a failure or at a byte that
  // starts no value (the next read reports the syntax error).
  JsonKind Peek() {
    if (failed()) return JsonKind::kInvalid;
    SkipSpace();
    return pos_ < size_ ? kKindOfByte[static_cast<unsigned char>(text_[pos_])] : JsonKind::kInvalid;
  }
  // The offset of the next value (after Peek) or of the last token read.
  uint64_t offset() const { return pos_; }

  // Objects: BeginObject() consumes '{'; NextKey() returns each key (valid
  // until the next call) and false at the closing '}'.
  // `expected`, when given, is the key the caller expects next: written
  // exactly so (no escapes), it is recognised without scanning the string,
  // and `*key` is then `expected` itself (the same view).
  bool BeginObject() { return Expect('{', "'{'") && Push(false); }
  bool NextKey(std::string_view* key, uint64_t* key_offset, std::string_view expected = {});
  // Arrays: BeginArray() consumes '['; NextElement() is true before each
  // element and false at the closing ']'.
  bool BeginArray() { return Expect('[', "'['") && Push(true); }
  bool NextElement();

  // Fast paths for the bulk of a schedule, integers and short integer lists.
  // Each reads its value and returns true, or returns false having consumed
  // nothing when the value is anything else (another kind, a fraction, 18 or
  // more digits, another element count, a syntax problem): the caller then
  // reads it the general way, which reports what is wrong.
  bool TryReadInt(int64_t* value);
  bool TryReadInts(int64_t* values, size_t count);    // exactly `count` integers
  bool TryReadIntList(std::vector<int64_t>* values);  // appends any number

  bool ReadString(std::string_view* value);  // valid until the next call
  bool ReadNumber(JsonNumber* value);
  bool ReadBool(bool* value);
  bool ReadNull();
  void Skip();  // any value

  // After the root value: only whitespace may follow.
  bool Finish();

  // Starts the reader inside the root object, at `offset`: the ',' (or
  // whitespace before it) that follows one of its members. A second reader
  // decodes the rest of a large document this way while the first reads up
  // to `offset`; it lets go of passed pages from `offset` on only.
  void ContinueRootObjectAt(uint64_t offset);
  // The offset of the next token after whitespace.
  uint64_t NextTokenOffset() const { return span().SkipSpace(pos_); }

  bool failed() const { return failure_ != Failure::kNone; }
  Failure failure() const { return failure_; }
  const std::string& error() const { return error_; }
  uint64_t error_offset() const { return error_offset_; }
  // "/0/12/buffer/3": the JSON pointer of the value being read.
  std::string Pointer() const;

 private:
  struct Frame {
    bool array;
    bool first;
    bool key_escaped;  // the key is in key_storage, not a view of the text
    uint64_t index;
    std::string_view key;
    std::string key_storage;
    std::string_view Key() const { return key_escaped ? std::string_view(key_storage) : key; }
  };
  static const std::array<JsonKind, 256> kKindOfByte;

  static bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  // The text as a value, for the scanners of the fast paths: working on a
  // copy lets the compiler keep it in registers across their stores.
  struct Span {
    const char* data;
    uint64_t size;

    // Bytes above ' ' are never whitespace: one test for compact text.
    uint64_t SkipSpace(uint64_t p) const {
      if ((p < size) && static_cast<unsigned char>(data[p]) > 0x20) return p;
      while (p < size && IsSpace(data[p])) ++p;
      return p;
    }
    // An integer of at most 17 digits at `p`: its end, or 0 when the general
    // path must read what is there (a leading zero, a fraction, an exponent,
    // more digits, or no integer at all).
    uint64_t ScanSmallInt(uint64_t p, int64_t* value) const {
      const bool negative = p < size && data[p] == '-';
      if (negative) ++p;
      const uint64_t digits = p;
      const uint64_t end = size - p > 18 ? p + 18 : size;
      uint64_t magnitude = 0;
      while (p < end && static_cast<unsigned char>(data[p] - '0') < 10) {
        magnitude = magnitude * 10 + static_cast<uint64_t>(data[p] - '0');
        ++p;
      }
      const uint64_t count = p - digits;
      if (count == 0 || count == 18 || (count > 1 && data[digits] == '0')) return 0;
      if (p < size && (data[p] == '.' || (data[p] | 0x20) == 'e')) return 0;
      *value = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
      return p;
    }
  };
  Span span() const { return {text_, size_}; }
  void SkipSpace() { pos_ = span().SkipSpace(pos_); }
  bool Fail(Failure failure, std::string message);
  bool Expect(char c, std::string_view what) {
    if (failed()) return false;
    SkipSpace();
    if (pos_ < size_ && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return ExpectFailed(what);
  }
  bool ExpectFailed(std::string_view what);
  bool Push(bool array);
  void Pop();
  bool ScanString(std::string_view* value, std::string* storage, bool* escaped);
  bool ScanEscapedString(uint64_t start, std::string* storage);
  bool ReadNumberSlow(JsonNumber* value);
  // A decimal "123.45" whose digits fit in 2^53 with at most 22 after the
  // point: one division by an exact power of ten rounds it correctly
  // (Clinger's fast path), as strtod would.
  bool ScanShortDecimal(double* value);
  bool ScanLiteral(std::string_view literal);
  void ReleasePassed();

  const char* text_;
  uint64_t size_;
  uint64_t pos_ = 0;
  uint64_t max_depth_;
  const InputBuffer* input_;
  uint64_t release_at_;  // the offset at which passed pages are next released
  // Where the pages still resident begin: those before were let go, or
  // belong to another reader (ContinueRootObjectAt).
  uint64_t release_from_ = 0;
  std::vector<Frame> stack_;
  std::string scratch_;
  Failure failure_ = Failure::kNone;
  std::string error_;
  uint64_t error_offset_ = 0;
};

// RFC 6901 escaping of one pointer token.
std::string PointerToken(std::string_view token);

}  // namespace accelcheck
