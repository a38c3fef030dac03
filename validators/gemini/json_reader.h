// A pull reader over JSON text: the caller asks for the next value of the kind
// it expects, so a document is decoded straight into typed tables without a
// DOM. Every value keeps its byte offset and the reader keeps the JSON pointer
// of the current position, for diagnostics.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <deque>

#include "validators/core/bytes.h"

namespace accelcheck::gemini {

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

  JsonReader(ByteView text, uint64_t max_depth);

  // The kind of the next value; kInvalid after a failure or at a byte that
  // starts no value (the next read reports the syntax error).
  JsonKind Peek();
  // The offset of the next value (after Peek) or of the last token read.
  uint64_t offset() const { return pos_; }

  // Objects: BeginObject() consumes '{'; NextKey() returns each key (valid
  // until the next call) and false at the closing '}'.
  bool BeginObject();
  bool NextKey(std::string_view* key, uint64_t* key_offset);
  // Arrays: BeginArray() consumes '['; NextElement() is true before each
  // element and false at the closing ']'.
  bool BeginArray();
  bool NextElement();

  bool ReadString(std::string_view* value);  // valid until the next call
  bool ReadNumber(JsonNumber* value);
  bool ReadBool(bool* value);
  bool ReadNull();
  void Skip();  // any value

  // After the root value: only whitespace may follow.
  bool Finish();

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
    uint64_t index;
    std::string_view key;  // into the text, or into key_storage when escaped
    std::string key_storage;
  };
  void SkipSpace();
  bool Fail(Failure failure, std::string message);
  bool Expect(char c, std::string_view what);
  bool Push(bool array);
  bool ScanString(std::string_view* value, std::string* storage);
  bool ScanLiteral(std::string_view literal);

  const char* text_;
  uint64_t size_;
  uint64_t pos_ = 0;
  uint64_t max_depth_;
  std::deque<Frame> stack_;  // deque: a frame's key storage never moves
  std::string scratch_;
  Failure failure_ = Failure::kNone;
  std::string error_;
  uint64_t error_offset_ = 0;
};

// RFC 6901 escaping of one pointer token.
std::string PointerToken(std::string_view token);

}  // namespace accelcheck::gemini
