#include "validators/core/npy.h"

#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>

#include "validators/core/checked.h"
#include "validators/core/text.h"

namespace accelcheck::npy {

namespace {

constexpr uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
// The header dict is short; NumPy itself refuses headers past 10000 bytes.
constexpr uint64_t kMaxHeader = 65536;

// The header: a Python dict literal with the keys descr, fortran_order and
// shape (numpy/lib/format.py), parsed by hand since nothing else may be in it.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  bool Parse(std::string* descr, bool* fortran, std::vector<uint64_t>* shape, std::string* error) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    if (!Eat('{')) return Fail("the header is not a dict", error);
    while (!Eat('}')) {
      std::string key;
      if (!String(&key) || !Eat(':'))
        return Fail("a header key is not a quoted string followed by ':'", error);
      if (key == "descr") {
        if (!String(descr)) return Fail("descr is not a string", error);
        have_descr = true;
      } else if (key == "fortran_order") {
        if (!Bool(fortran)) return Fail("fortran_order is neither True nor False", error);
        have_fortran = true;
      } else if (key == "shape") {
        if (!Tuple(shape, error)) return false;
        have_shape = true;
      } else {
        return Fail(Str("unexpected header key ", Quoted(key)), error);
      }
      if (!Eat(',')) {
        if (!Eat('}')) return Fail("header entries are not separated by ','", error);
        break;
      }
    }
    Skip();
    if (pos_ != text_.size()) return Fail("text follows the header dict", error);
    if (!have_descr || !have_fortran || !have_shape) {
      return Fail("the header lacks one of descr, fortran_order, shape", error);
    }
    return true;
  }

 private:
  static bool Fail(const std::string& message, std::string* error) {
    *error = message;
    return false;
  }
  void Skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool String(std::string* out) {
    Skip();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return false;
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return false;
    *out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return true;
  }
  bool Bool(bool* out) {
    Skip();
    for (const auto& [word, value] :
         {std::pair{std::string_view("True"), true}, {std::string_view("False"), false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        *out = value;
        return true;
      }
    }
    return false;
  }
  bool Tuple(std::vector<uint64_t>* out, std::string* error) {
    out->clear();
    if (!Eat('(')) return Fail("shape is not a tuple", error);
    while (!Eat(')')) {
      Skip();
      uint64_t value = 0;
      size_t digits = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        const uint64_t digit = static_cast<uint64_t>(text_[pos_] - '0');
        if (value > (UINT64_MAX - digit) / 10)
          return Fail("a shape dimension overflows 64 bits", error);
        value = value * 10 + digit;
        ++pos_;
        ++digits;
      }
      if (digits == 0) return Fail("a shape dimension is not a non-negative integer", error);
      out->push_back(value);
      if (out->size() > 64) return Fail("the shape has more than 64 dimensions", error);
      if (!Eat(',')) {
        if (!Eat(')')) return Fail("shape dimensions are not separated by ','", error);
        break;
      }
    }
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

std::optional<DType> ParseDescr(const std::string& descr) {
  if (descr.size() < 3) return std::nullopt;
  DType type;
  switch (descr[0]) {
    case '<':
    case '=':
    case '|':
      type.big_endian = false;
      break;
    case '>':
      type.big_endian = true;
      break;
    default:
      return std::nullopt;
  }
  switch (descr[1]) {
    case 'i':
      type.kind = Kind::kSigned;
      break;
    case 'u':
    case 'b':
      type.kind = Kind::kUnsigned;
      break;
    case 'f':
      type.kind = Kind::kFloat;
      break;
    default:
      return std::nullopt;
  }
  const std::string width = descr.substr(2);
  if (width != "1" && width != "2" && width != "4" && width != "8") return std::nullopt;
  type.bytes = static_cast<unsigned>(width[0] - '0');
  if (type.kind == Kind::kFloat && type.bytes < 4) return std::nullopt;  // float16 is not needed
  if (descr[1] == 'b' && type.bytes != 1) return std::nullopt;
  return type;
}

double ElementAt(const uint8_t* p, const DType& type) {
  uint64_t bits = 0;
  for (unsigned i = 0; i < type.bytes; ++i) {
    const unsigned shift = type.big_endian ? 8 * (type.bytes - 1 - i) : 8 * i;
    bits |= uint64_t{p[i]} << shift;
  }
  switch (type.kind) {
    case Kind::kFloat:
      return type.bytes == 4
                 ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)))
                 : std::bit_cast<double>(bits);
    case Kind::kUnsigned:
      return static_cast<double>(bits);
    case Kind::kSigned: {
      const unsigned width = 8 * type.bytes;
      const int64_t value = width == 64
                                ? static_cast<int64_t>(bits)
                                : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
      return static_cast<double>(value);
    }
  }
  return 0;
}

// Fortran order to C order: element (i0, ..., ik) is at sum(i_j * prod(shape[<j])).
std::vector<double> ToCOrder(const std::vector<double>& fortran,
                             const std::vector<uint64_t>& shape) {
  std::vector<double> out(fortran.size());
  std::vector<uint64_t> index(shape.size(), 0);
  for (double& value : out) {
    uint64_t offset = 0, stride = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      offset += index[d] * stride;
      stride *= shape[d];
    }
    value = fortran[offset];
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace

std::string DType::Descr() const {
  const char order = bytes == 1 ? '|' : big_endian ? '>' : '<';
  const char letter = kind == Kind::kFloat ? 'f' : kind == Kind::kSigned ? 'i' : 'u';
  return Str(order, letter, bytes);
}

std::optional<Array> Read(ByteView bytes, std::string* error, uint64_t max_elements) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    *error = "not a .npy file (no \\x93NUMPY magic)";
    return std::nullopt;
  }
  const uint8_t major = bytes[6];
  if (major < 1 || major > 3) {
    *error = Str("unsupported .npy version ", unsigned{major}, ".", unsigned{bytes[7]});
    return std::nullopt;
  }
  const size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) {
    *error = "the file ends inside the header length";
    return std::nullopt;
  }
  const uint64_t header_length =
      major == 1 ? *ReadLE<uint16_t>(bytes, 8) : *ReadLE<uint32_t>(bytes, 8);
  const uint64_t data_offset = 8 + length_bytes + header_length;
  if (header_length > kMaxHeader || data_offset > bytes.size()) {
    *error =
        Str("header length ", Hex(header_length), " exceeds the file size ", Hex(bytes.size()));
    return std::nullopt;
  }
  const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + 8 + length_bytes,
                                header_length);
  std::string descr;
  bool fortran = false;
  Array array;
  if (!HeaderParser(header).Parse(&descr, &fortran, &array.shape, error)) return std::nullopt;
  const auto dtype = ParseDescr(descr);
  if (!dtype) {
    *error = Str("unsupported dtype ", Quoted(descr), " (integers of 1-8 bytes, float32, float64)");
    return std::nullopt;
  }
  array.dtype = *dtype;
  uint64_t count = 1;
  for (uint64_t dim : array.shape) {
    const auto next = CheckedMul(count, dim);
    if (!next || *next > max_elements) {
      *error = Str("the shape asks for more than ", max_elements, " elements");
      return std::nullopt;
    }
    count = *next;
  }
  const uint64_t data_size = bytes.size() - data_offset;
  if (count * dtype->bytes != data_size) {
    *error = Str("the shape needs ", Hex(count * dtype->bytes), " data bytes but the file has ",
                 Hex(data_size));
    return std::nullopt;
  }
  array.values.resize(count);
  for (uint64_t i = 0; i < count; ++i)
    array.values[i] = ElementAt(bytes.data() + data_offset + i * dtype->bytes, *dtype);
  if (fortran && array.shape.size() > 1) array.values = ToCOrder(array.values, array.shape);
  return array;
}

std::vector<uint8_t> Write(const std::vector<double>& values, const std::vector<uint64_t>& shape,
                           DType dtype) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += Str(i == 0 ? "" : ", ", shape[i]);
  if (shape.size() == 1) dims += ",";  // Python's one-element tuple
  std::string header =
      Str("{'descr': '", dtype.Descr(), "', 'fortran_order': False, 'shape': (", dims, "), }");
  // The data starts on a 64-byte boundary; the header ends with '\n'.
  const bool v2 = header.size() + 11 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  header.resize(AlignUp(prefix + header.size() + 1, uint64_t{64}) - prefix - 1, ' ');
  header += '\n';
  std::vector<uint8_t> out(std::begin(kMagic), std::end(kMagic));
  out.push_back(v2 ? 2 : 1);
  out.push_back(0);
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i)
    out.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  for (double value : values) {
    uint64_t bits = 0;
    if (dtype.kind == Kind::kFloat) {
      bits = dtype.bytes == 4 ? std::bit_cast<uint32_t>(static_cast<float>(value))
                              : std::bit_cast<uint64_t>(value);
    } else if (dtype.kind == Kind::kSigned) {
      bits = static_cast<uint64_t>(static_cast<int64_t>(value));
    } else {
      bits = static_cast<uint64_t>(value);
    }
    for (unsigned i = 0; i < dtype.bytes; ++i) {
      const unsigned shift = dtype.big_endian ? 8 * (dtype.bytes - 1 - i) : 8 * i;
      out.push_back(static_cast<uint8_t>(bits >> shift));
    }
  }
  return out;
}

}  // namespace accelcheck::npy
