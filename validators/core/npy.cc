#include "validators/core/npy.h"

#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

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

// A binary floating-point format with `exponent_bits` and `mantissa_bits`
// (IEEE binary16: 5 and 10; bfloat16: 8 and 7), decoded and encoded through
// double, which holds every value of both exactly.
struct SmallFloat {
  int exponent_bits;
  int mantissa_bits;

  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  uint64_t exponent_mask() const { return (uint64_t{1} << exponent_bits) - 1; }
  uint64_t sign_bit() const { return uint64_t{1} << (exponent_bits + mantissa_bits); }

  double Decode(uint64_t bits) const {
    const uint64_t mantissa = bits & ((uint64_t{1} << mantissa_bits) - 1);
    const uint64_t exponent = (bits >> mantissa_bits) & exponent_mask();
    double magnitude = 0;
    if (exponent == exponent_mask()) {
      magnitude = mantissa != 0 ? std::numeric_limits<double>::quiet_NaN()
                                : std::numeric_limits<double>::infinity();
    } else if (exponent == 0) {
      magnitude = std::ldexp(static_cast<double>(mantissa), 1 - bias() - mantissa_bits);
    } else {
      magnitude = std::ldexp(static_cast<double>(mantissa | (uint64_t{1} << mantissa_bits)),
                             static_cast<int>(exponent) - bias() - mantissa_bits);
    }
    return (bits & sign_bit()) != 0 ? -magnitude : magnitude;
  }

  // Round to nearest, ties to even (std::nearbyint in the default rounding
  // mode); a carry out of the mantissa lands in the exponent, as it should.
  uint64_t Encode(double value) const {
    const uint64_t sign = std::signbit(value) ? sign_bit() : 0;
    const uint64_t infinity = exponent_mask() << mantissa_bits;
    if (std::isnan(value)) return sign | infinity | (uint64_t{1} << (mantissa_bits - 1));
    const double magnitude = std::fabs(value);
    // Halfway between the largest finite value and 2^(bias+1) rounds up.
    const double overflow = std::ldexp(2.0 - std::ldexp(1.0, -(mantissa_bits + 1)), bias());
    if (magnitude >= overflow) return sign | infinity;
    if (magnitude < std::ldexp(1.0, 1 - bias())) {
      const double units = std::ldexp(magnitude, bias() - 1 + mantissa_bits);
      return sign | static_cast<uint64_t>(std::nearbyint(units));
    }
    int exponent = 0;
    std::frexp(magnitude, &exponent);  // magnitude = f * 2^exponent, f in [0.5, 1)
    const int unbiased = exponent - 1;
    const auto significand =
        static_cast<uint64_t>(std::nearbyint(std::ldexp(magnitude, mantissa_bits - unbiased)));
    return sign | ((static_cast<uint64_t>(unbiased + bias()) << mantissa_bits) +
                   (significand - (uint64_t{1} << mantissa_bits)));
  }
};

constexpr SmallFloat kHalf{5, 10};
constexpr SmallFloat kBFloat16{8, 7};

std::optional<unsigned> Width(char digit) {
  switch (digit) {
    case '1':
    case '2':
    case '4':
    case '8':
      return static_cast<unsigned>(digit - '0');
    default:
      return std::nullopt;
  }
}

// An element's bits as double, per its dtype.
double ValueOf(uint64_t bits, const DType& type) {
  switch (type.kind) {
    case Kind::kFloat:
      if (type.bytes == 2) return kHalf.Decode(bits);
      return type.bytes == 4
                 ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)))
                 : std::bit_cast<double>(bits);
    case Kind::kBFloat16:
      return kBFloat16.Decode(bits);
    case Kind::kBool:
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

// A double's bits as `type`, per Write's conversions.
uint64_t BitsOf(double value, const DType& type) {
  switch (type.kind) {
    case Kind::kFloat:
      if (type.bytes == 2) return kHalf.Encode(value);
      return type.bytes == 4 ? std::bit_cast<uint32_t>(static_cast<float>(value))
                             : std::bit_cast<uint64_t>(value);
    case Kind::kBFloat16:
      return kBFloat16.Encode(value);
    case Kind::kBool:
      return value != 0 ? 1 : 0;
    case Kind::kSigned:
      return static_cast<uint64_t>(static_cast<int64_t>(value));
    case Kind::kUnsigned:
      return static_cast<uint64_t>(value);
  }
  return 0;
}

uint64_t LoadBits(const uint8_t* p, unsigned bytes, bool big_endian) {
  uint64_t bits = 0;
  for (unsigned i = 0; i < bytes; ++i) {
    const unsigned shift = big_endian ? 8 * (bytes - 1 - i) : 8 * i;
    bits |= uint64_t{p[i]} << shift;
  }
  return bits;
}

void StoreBits(uint64_t bits, unsigned bytes, bool big_endian, std::vector<uint8_t>* out) {
  for (unsigned i = 0; i < bytes; ++i) {
    const unsigned shift = big_endian ? 8 * (bytes - 1 - i) : 8 * i;
    out->push_back(static_cast<uint8_t>(bits >> shift));
  }
}

// Fortran order to C order: element (i0, ..., ik) is at sum(i_j * prod(shape[<j])).
std::vector<uint8_t> ToCOrder(const std::vector<uint8_t>& fortran,
                              const std::vector<uint64_t>& shape, unsigned element_bytes) {
  std::vector<uint8_t> out(fortran.size());
  std::vector<uint64_t> index(shape.size(), 0);
  for (uint64_t element = 0; element * element_bytes < out.size(); ++element) {
    uint64_t offset = 0, stride = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      offset += index[d] * stride;
      stride *= shape[d];
    }
    std::memcpy(&out[element * element_bytes], &fortran[offset * element_bytes], element_bytes);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

std::vector<uint8_t> Header(const DType& dtype, const std::vector<uint64_t>& shape) {
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
  return out;
}

}  // namespace

std::optional<DType> ParseDescr(const std::string& descr) {
  // str(dtype) of an ml_dtypes.bfloat16 array, which some writers put in
  // the header instead of the '<V2' np.save writes.
  if (descr == "bfloat16") return DType{Kind::kBFloat16, 2, false};
  if (descr.size() != 3) return std::nullopt;
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
  const auto width = Width(descr[2]);
  if (!width) return std::nullopt;
  type.bytes = *width;
  switch (descr[1]) {
    case 'i':
      type.kind = Kind::kSigned;
      return type;
    case 'u':
      type.kind = Kind::kUnsigned;
      return type;
    case 'f':
      type.kind = Kind::kFloat;
      return type.bytes >= 2 ? std::optional(type) : std::nullopt;
    case 'b':
      type.kind = Kind::kBool;
      return type.bytes == 1 ? std::optional(type) : std::nullopt;
    case 'V':  // the only 2-byte opaque type an executor exchanges
      type.kind = Kind::kBFloat16;
      return type.bytes == 2 ? std::optional(type) : std::nullopt;
    default:
      return std::nullopt;
  }
}

std::string DType::Descr() const {
  const char order = bytes == 1 ? '|' : big_endian ? '>' : '<';
  char letter = 'f';
  switch (kind) {
    case Kind::kSigned:
      letter = 'i';
      break;
    case Kind::kUnsigned:
      letter = 'u';
      break;
    case Kind::kFloat:
      letter = 'f';
      break;
    case Kind::kBool:
      letter = 'b';
      break;
    case Kind::kBFloat16:
      letter = 'V';
      break;
  }
  return Str(order, letter, bytes);
}

std::string DType::Name() const {
  switch (kind) {
    case Kind::kSigned:
      return Str("int", 8 * bytes);
    case Kind::kUnsigned:
      return Str("uint", 8 * bytes);
    case Kind::kFloat:
      return Str("float", 8 * bytes);
    case Kind::kBool:
      return "bool";
    case Kind::kBFloat16:
      return "bfloat16";
  }
  return "?";
}

uint64_t Array::Bits(uint64_t i) const {
  return LoadBits(data.data() + i * dtype.bytes, dtype.bytes, false);
}

int64_t Array::Int(uint64_t i) const {
  const unsigned width = 8 * dtype.bytes;
  const uint64_t bits = Bits(i);
  return width == 64 ? static_cast<int64_t>(bits)
                     : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
}

uint64_t Array::UInt(uint64_t i) const { return Bits(i); }

std::optional<Layout> ReadLayout(ByteView bytes, std::string* error, uint64_t max_elements) {
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
  Layout layout;
  layout.data_offset = 8 + length_bytes + header_length;
  if (header_length > kMaxHeader || layout.data_offset > bytes.size()) {
    *error =
        Str("header length ", Hex(header_length), " exceeds the file size ", Hex(bytes.size()));
    return std::nullopt;
  }
  const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + 8 + length_bytes,
                                header_length);
  std::string descr;
  if (!HeaderParser(header).Parse(&descr, &layout.fortran, &layout.shape, error))
    return std::nullopt;
  const auto dtype = ParseDescr(descr);
  if (!dtype) {
    *error = Str("unsupported dtype ", Quoted(descr),
                 " (bool, integers of 1-8 bytes, float16, bfloat16 as '<V2', float32, float64)");
    return std::nullopt;
  }
  layout.dtype = *dtype;
  uint64_t count = 1;
  for (uint64_t dim : layout.shape) {
    const auto next = CheckedMul(count, dim);
    if (!next || *next > max_elements) {
      *error = Str("the shape asks for more than ", max_elements, " elements");
      return std::nullopt;
    }
    count = *next;
  }
  layout.count = count;
  const uint64_t data_size = bytes.size() - layout.data_offset;
  const auto needed = CheckedMul(count, dtype->bytes);
  if (!needed || *needed != data_size) {
    *error = Str("the shape needs ", Hex(count * dtype->bytes), " data bytes but the file has ",
                 Hex(data_size));
    return std::nullopt;
  }
  return layout;
}

std::optional<Array> Read(ByteView bytes, std::string* error, uint64_t max_elements) {
  const std::optional<Layout> layout = ReadLayout(bytes, error, max_elements);
  if (!layout) return std::nullopt;
  const DType* dtype = &layout->dtype;
  const uint64_t count = layout->count;
  const uint64_t data_size = count * dtype->bytes;
  const bool fortran = layout->fortran;
  Array array;
  array.dtype = layout->dtype;
  array.shape = layout->shape;
  array.data.resize(data_size);
  array.values.resize(count);
  const uint8_t* in = bytes.data() + layout->data_offset;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t bits = LoadBits(in + i * dtype->bytes, dtype->bytes, dtype->big_endian);
    // NumPy reads any nonzero byte as True.
    if (dtype->kind == Kind::kBool) bits = bits != 0 ? 1 : 0;
    for (unsigned b = 0; b < dtype->bytes; ++b)
      array.data[i * dtype->bytes + b] = static_cast<uint8_t>(bits >> (8 * b));
  }
  if (fortran && array.shape.size() > 1)
    array.data = ToCOrder(array.data, array.shape, dtype->bytes);
  for (uint64_t i = 0; i < count; ++i) array.values[i] = ValueOf(array.Bits(i), array.dtype);
  return array;
}

Array FromBits(DType dtype, std::vector<uint64_t> shape, const std::vector<uint64_t>& bits) {
  Array array;
  array.dtype = dtype;
  array.shape = std::move(shape);
  array.data.reserve(bits.size() * dtype.bytes);
  array.values.reserve(bits.size());
  for (uint64_t element : bits) {
    StoreBits(element, dtype.bytes, false, &array.data);
    array.values.push_back(ValueOf(array.Bits(array.values.size()), dtype));
  }
  return array;
}

Array FromBytes(DType dtype, std::vector<uint64_t> shape, ByteView bytes) {
  Array array;
  array.dtype = dtype;
  array.shape = std::move(shape);
  const uint64_t count = bytes.size() / dtype.bytes;
  array.data.assign(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(count * dtype.bytes));
  array.values.resize(count);
  for (uint64_t i = 0; i < count; ++i) array.values[i] = ValueOf(array.Bits(i), dtype);
  return array;
}

Array FromValues(DType dtype, std::vector<uint64_t> shape, const std::vector<double>& values) {
  std::vector<uint64_t> bits;
  bits.reserve(values.size());
  for (double value : values) bits.push_back(BitsOf(value, dtype));
  return FromBits(dtype, std::move(shape), bits);
}

std::vector<uint8_t> Write(const Array& array) {
  std::vector<uint8_t> out = Header(array.dtype, array.shape);
  out.reserve(out.size() + array.data.size());
  for (uint64_t i = 0; i < array.count(); ++i)
    StoreBits(array.Bits(i), array.dtype.bytes, array.dtype.big_endian, &out);
  return out;
}

std::vector<uint8_t> Write(const std::vector<double>& values, const std::vector<uint64_t>& shape,
                           DType dtype) {
  std::vector<uint8_t> out = Header(dtype, shape);
  out.reserve(out.size() + values.size() * dtype.bytes);
  for (double value : values) StoreBits(BitsOf(value, dtype), dtype.bytes, dtype.big_endian, &out);
  return out;
}

double HalfToDouble(uint16_t bits) { return kHalf.Decode(bits); }
uint16_t DoubleToHalf(double value) { return static_cast<uint16_t>(kHalf.Encode(value)); }
double BFloat16ToDouble(uint16_t bits) { return kBFloat16.Decode(bits); }
uint16_t DoubleToBFloat16(double value) { return static_cast<uint16_t>(kBFloat16.Encode(value)); }

}  // namespace accelcheck::npy
