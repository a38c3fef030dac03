// A typed decoder over the JSON pull reader: each JSON format declares the
// keys of each object kind once and reads every value into its typed table,
// with the byte offset and JSON pointer of the value in each diagnostic.
// Problems of kind and shape are reported under the format's own rules
// (JsonSchemaRules) and the value is skipped, so decoding goes on and reports
// every problem of the document; syntax errors end it, and nesting beyond
// --max-depth is core.limit.max-depth.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "validators/core/json_reader.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/core/text.h"

namespace accelcheck {

// The rules a JSON format reports decoding problems under.
struct JsonSchemaRules {
  const Rule* syntax;        // not well-formed JSON
  const Rule* type;          // a value of the wrong kind or shape
  const Rule* number_range;  // an integer field holding a fraction or more than 64 bits
  const Rule* missing_key;   // a required key is absent
  // A key the object kind does not define; null when the format's writers
  // add keys freely and its readers ignore them, as the decoder then does.
  const Rule* unknown_key;
  // An object that holds a key twice; null when the format's own readers
  // take the last value without complaint, as the decoder then does.
  const Rule* duplicate_key;
};

template <size_t N>
using JsonKeys = std::array<std::string_view, N>;

// A writer emits every object of a kind with its keys in one order, so the
// decoder predicts each key from the previous object of the kind: next[i] is
// the key that followed key i there (next[kFirst] the first key). A correct
// prediction is recognised without scanning the key. One per object kind.
struct JsonKeyOrder {
  static constexpr size_t kFirst = 32;
  std::array<uint8_t, kFirst + 1> next = [] {
    std::array<uint8_t, kFirst + 1> sequential{};
    for (size_t i = 0; i < kFirst; ++i) sequential[i] = static_cast<uint8_t>(i + 1);
    sequential[kFirst] = 0;
    return sequential;
  }();
};

// The unknown keys of one object, to tell a key given twice. The first is
// held inline: most objects have none or one (a "#comment" in every block
// of a NEFF engine JSON), so most objects allocate nothing.
class UnknownKeys {
 public:
  // Adds `key`; false when it was there already.
  bool Add(std::string_view key) {
    if (!has_first_) {
      first_.assign(key);
      has_first_ = true;
      return true;
    }
    return key != first_ && others_.emplace(key).second;
  }

 private:
  bool has_first_ = false;
  std::string first_;
  std::set<std::string, std::less<>> others_;
};

// The index of `key` in `keys`, or -1.
template <size_t N>
int JsonKeyIndex(const JsonKeys<N>& keys, std::string_view key) {
  for (size_t i = 0; i < N; ++i) {
    if (keys[i].size() == key.size() && std::memcmp(keys[i].data(), key.data(), key.size()) == 0) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// The bit mask of key indices, for the required keys of an object kind.
constexpr uint64_t KeyBits(std::initializer_list<int> indices) {
  uint64_t mask = 0;
  for (int i : indices) mask |= uint64_t{1} << i;
  return mask;
}

// Where each value of a small decoded document was, by JSON pointer, so that
// the checks that run after decoding report at the value's bytes.
class JsonOffsets {
 public:
  void Record(std::string pointer, uint64_t offset) { offsets_[std::move(pointer)] = offset; }
  // The location of the value at `pointer`, without an offset when the
  // document has no such value.
  Location At(std::string pointer) const;

 private:
  std::map<std::string, uint64_t, std::less<>> offsets_;
};

class JsonDecoder {
 public:
  JsonDecoder(ByteView text, const Limits& limits, DiagnosticSink& sink,
              const JsonSchemaRules& rules, const InputBuffer* input = nullptr)
      : reader_(text, limits.max_depth, input), sink_(sink), rules_(rules) {}

  JsonReader& reader() { return reader_; }
  DiagnosticSink& sink() { return sink_; }

  // The location of the value about to be read (after Peek) and its pointer.
  Location Here(std::optional<uint64_t> length = std::nullopt) const {
    return Location{reader_.offset(), length, reader_.Pointer()};
  }
  // Records in `offsets` where the value about to be read is.
  void RecordOffset(JsonOffsets& offsets) {
    reader_.Peek();
    offsets.Record(reader_.Pointer(), reader_.offset());
  }
  // Reports `rule` at the value about to be read.
  void Report(const Rule& rule, std::string message) {
    sink_.Report(rule, Here(), std::move(message));
  }

  // True when the next value is of kind `want`; otherwise reports the type
  // problem (`what` names the expected value), skips the value and returns
  // false. A syntax error is left for Finish() to report.
  bool ExpectKind(JsonKind want, std::string_view what);
  bool ExpectObject(std::string_view what) { return ExpectKind(JsonKind::kObject, what); }

  // Value readers: each reads one value into `out`, or reports a problem and
  // skips the value, returning false.
  bool Int(int64_t* out) {
    if (reader_.TryReadInt(out)) return true;
    return IntSlow(out);
  }
  bool Number(JsonNumber* out);  // any number, as written
  bool Real(double* out);
  bool Bool(bool* out);
  bool String(std::string_view* out);             // valid until the next read
  bool OptionalInt(std::optional<int64_t>* out);  // an integer or null
  bool IntList(std::vector<int64_t>* out) {
    if (reader_.TryReadIntList(out)) return true;
    return List(out, [this](int64_t* v) { Int(v); });
  }
  // Exactly N integers.
  template <size_t N>
  bool IntArray(std::array<int64_t, N>* out);
  // A list whose elements `read_one` reads into out's new elements. Stops
  // reading elements (skipping the rest) once the sink is full.
  template <typename T, typename F>
  bool List(std::vector<T>* out, F&& read_one);
  // A list whose elements `read_one(index)` reads.
  template <typename F>
  bool Elements(std::string_view what, F&& read_one);

  // Iterates an object's keys: known ones go to `read(index)`, unknown ones
  // are reported and skipped, duplicates reported (or, without a duplicate
  // rule, read again). Returns the bit mask of the keys seen. The caller has
  // checked that the next value is an object.
  template <size_t N, typename F>
  uint64_t Fields(const JsonKeys<N>& keys, JsonKeyOrder& order, F&& read);
  // Reports each key of `required` not in `seen`, at the object that starts
  // at `object_offset` (its pointer is still the reader's after the object).
  template <size_t N>
  void RequireKeys(const JsonKeys<N>& keys, uint64_t seen, uint64_t required,
                   uint64_t object_offset, std::string_view what);

  // After the root value: reports a syntax error (or the depth limit) that
  // ended decoding. True when the whole text was read.
  bool Finish();

 protected:
  void ReportKey(const Rule& rule, std::string_view key, uint64_t key_offset, std::string message) {
    sink_.Report(rule, Location{key_offset, key.size() + 2, reader_.Pointer()}, std::move(message));
  }
  bool IntSlow(int64_t* out);
  void ReportUnknownKey(std::string_view key, uint64_t key_offset);
  bool ReportDuplicateKey(std::string_view key, uint64_t key_offset);

  JsonReader reader_;
  DiagnosticSink& sink_;
  const JsonSchemaRules& rules_;
};

template <size_t N>
bool JsonDecoder::IntArray(std::array<int64_t, N>* out) {
  if (reader_.TryReadInts(out->data(), N)) return true;
  if (!ExpectKind(JsonKind::kArray, "a list")) return false;
  const uint64_t at = reader_.offset();
  reader_.BeginArray();
  size_t count = 0;
  bool ok = true;
  while (reader_.NextElement()) {
    if (count < N) {
      ok = Int(&(*out)[count]) && ok;
    } else {
      reader_.Skip();
    }
    ++count;
  }
  if (reader_.failed()) return false;
  if (count != N) {
    sink_.Report(*rules_.type, Location{at, reader_.offset() - at, reader_.Pointer()},
                 Str("expected a list of ", N, " integers but found ", count, " elements"));
    return false;
  }
  return ok;
}

template <typename T, typename F>
bool JsonDecoder::List(std::vector<T>* out, F&& read_one) {
  if (!ExpectKind(JsonKind::kArray, "a list")) return false;
  reader_.BeginArray();
  while (reader_.NextElement()) {
    out->emplace_back();
    read_one(&out->back());
  }
  return !reader_.failed();
}

template <typename F>
bool JsonDecoder::Elements(std::string_view what, F&& read_one) {
  if (!ExpectKind(JsonKind::kArray, what)) return false;
  reader_.BeginArray();
  for (size_t i = 0; reader_.NextElement(); ++i) {
    read_one(i);
  }
  return !reader_.failed();
}

template <size_t N, typename F>
uint64_t JsonDecoder::Fields(const JsonKeys<N>& keys, JsonKeyOrder& order, F&& read) {
  static_assert(N < JsonKeyOrder::kFirst);
  uint64_t seen = 0;
  UnknownKeys unknown;
  std::string_view key;
  uint64_t key_offset = 0;
  size_t previous = JsonKeyOrder::kFirst;
  reader_.BeginObject();
  while (true) {
    const size_t predicted = order.next[previous] < N ? order.next[previous] : 0;
    if (!reader_.NextKey(&key, &key_offset, keys[predicted])) break;
    // A matched prediction comes back as the expected view itself.
    const int index = key.data() == keys[predicted].data() ? static_cast<int>(predicted)
                                                           : JsonKeyIndex(keys, key);
    if (index < 0) {
      if (unknown.Add(key) || !ReportDuplicateKey(key, key_offset)) {
        ReportUnknownKey(key, key_offset);
      }
      reader_.Skip();
      continue;
    }
    order.next[previous] = static_cast<uint8_t>(index);
    previous = static_cast<size_t>(index);
    const uint64_t bit = uint64_t{1} << index;
    if ((seen & bit) && ReportDuplicateKey(key, key_offset)) {
      reader_.Skip();
      continue;
    }
    seen |= bit;
    read(index);
  }
  return seen;
}

template <size_t N>
void JsonDecoder::RequireKeys(const JsonKeys<N>& keys, uint64_t seen, uint64_t required,
                              uint64_t object_offset, std::string_view what) {
  if ((seen & required) == required || reader_.failed()) return;
  for (size_t i = 0; i < N; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if ((required & bit) && !(seen & bit)) {
      sink_.Report(*rules_.missing_key, Location{object_offset, std::nullopt, reader_.Pointer()},
                   Str(what, " has no key ", Quoted(keys[i])));
    }
  }
}

}  // namespace accelcheck
