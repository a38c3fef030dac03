#include "validators/tensil/disasm.h"

#include <charconv>
#include <map>
#include <sstream>

#include "validators/core/text.h"

namespace accelcheck::tensil {

namespace {

constexpr std::pair<uint8_t, std::string_view> kDataMoveKinds[] = {
    {kDram0ToLocal, "dram0->local"},
    {kLocalToDram0, "local->dram0"},
    {kDram1ToLocal, "dram1->local"},
    {kLocalToDram1, "local->dram1"},
    {kAccToLocal, "acc->local"},
    {kLocalToAcc, "local->acc"},
    {kLocalToAccAccumulate, "local->acc+"},
};

std::string_view KindName(uint8_t kind) {
  for (const auto& [k, name] : kDataMoveKinds) {
    if (k == kind) return name;
  }
  return {};
}

// The key of operand1's address for a DataMove kind.
std::string_view OtherKey(uint8_t kind) {
  if (kind == kDram0ToLocal || kind == kLocalToDram0) return "dram0";
  if (kind == kDram1ToLocal || kind == kLocalToDram1) return "dram1";
  return "acc";
}

std::string Register(uint64_t value, bool output) {
  if (value == 0) return output ? "out" : "in";
  return Str("r", value);
}

class Line {
 public:
  explicit Line(std::string_view mnemonic) { out_ << mnemonic; }
  Line& Word(std::string_view word) {
    out_ << ' ' << word;
    return *this;
  }
  Line& Field(std::string_view key, uint64_t value) {
    out_ << ' ' << key << '=' << value;
    return *this;
  }
  Line& Optional(std::string_view key, uint64_t value) {
    if (value != 0) out_ << ' ' << key << '=' << Hex(value);
    return *this;
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

bool ValidFlags(const Instruction& in) {
  switch (in.opcode()) {
    case kWait:
      return in.flags() == 0;
    case kMatMul:
      return in.flags() <= 3;
    case kDataMove:
      return IsDataMoveKind(in.flags());
    case kLoadWeights:
      return in.flags() <= 1;
    case kSimd:
      return in.flags() <= 7;
    default:
      return false;
  }
}

}  // namespace

std::string RawBytesLine(const Instruction& in, const Layout& layout) {
  std::vector<uint8_t> bytes;
  Encode(in, layout, &bytes);
  std::string out = ".bytes";
  static constexpr char kDigits[] = "0123456789abcdef";
  for (uint8_t b : bytes) {
    out += ' ';
    out += kDigits[b >> 4];
    out += kDigits[b & 0xf];
  }
  return out;
}

std::string DisassembleOne(const Instruction& in, const Layout& l) {
  if (!ValidFlags(in)) return RawBytesLine(in, l);
  const Fields f = FieldsOf(in, l);
  const uint8_t flags = in.flags();
  std::string text;
  switch (in.opcode()) {
    case kWait: {
      if (HighBits(in.operand0, l.tid_bits) != 0 || in.operand1 != 0 || in.operand2 != 0)
        return RawBytesLine(in, l);
      text = Line("Wait").Field("thread", in.operand0).str();
      break;
    }
    case kMatMul: {
      Line line("MatMul");
      if (flags & kMatMulAccumulate) line.Word("accumulate");
      if (flags & kMatMulZeroes) line.Word("zeroes");
      line.Field("local", f.address0).Field("acc", f.address1).Field("size", f.size);
      line.Optional("stride0", f.stride0).Optional("stride1", f.stride1);
      text = line.Optional("pad0", f.padding0)
                 .Optional("pad1", f.padding1)
                 .Optional("pad2", f.padding2)
                 .str();
      break;
    }
    case kDataMove: {
      Line line("DataMove");
      line.Word(KindName(flags))
          .Field("local", f.address0)
          .Field(OtherKey(flags), f.address1)
          .Field("size", f.size);
      line.Optional("stride0", f.stride0).Optional("stride1", f.stride1);
      text = line.Optional("pad0", f.padding0)
                 .Optional("pad1", f.padding1)
                 .Optional("pad2", f.padding2)
                 .str();
      break;
    }
    case kLoadWeights: {
      Line line("LoadWeights");
      if (flags & kLoadWeightsZeroes) line.Word("zeroes");
      line.Field("local", f.address0).Field("size", in.operand1);
      text = line.Optional("stride0", f.stride0)
                 .Optional("pad0", f.padding0)
                 .Optional("operand2", in.operand2)
                 .str();
      break;
    }
    case kSimd: {
      Line line("SIMD");
      if (flags & kSimdRead) line.Word("read");
      if (flags & kSimdWrite) line.Word("write");
      if (flags & kSimdAccumulate) line.Word("accumulate");
      line.Word(Str("op=", SimdOpName(static_cast<uint8_t>(f.simd_op))));
      line.Word(Str("left=", Register(f.simd_left, false)));
      line.Word(Str("right=", Register(f.simd_right, false)));
      line.Word(Str("dest=", Register(f.simd_dest, true)));
      line.Field("wacc", f.address0).Field("racc", f.address1);
      line.Optional("stride0", f.stride0).Optional("stride1", f.stride1);
      text = line.Optional("pad0", f.padding0)
                 .Optional("pad1", f.padding1)
                 .Optional("pad2", f.simd_padding)
                 .str();
      break;
    }
  }
  if (in.tid() != 0) text += " tid=1";
  return text;
}

std::string Disassemble(ByteView program, const Layout& layout) {
  std::string out;
  const uint64_t count = program.size() / layout.instruction_bytes;
  for (uint64_t i = 0; i < count; ++i) {
    out += DisassembleOne(DecodeAt(program, i, layout), layout);
    out += '\n';
  }
  return out;
}

namespace {

struct Parsed {
  std::string mnemonic;
  std::vector<std::string> words;
  std::map<std::string, std::string> fields;
};

bool ParseNumber(std::string_view text, uint64_t* value) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value, base);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

class Assembler {
 public:
  Assembler(const Layout& layout, AssembleError* error) : l_(layout), error_(error) {}

  bool Line(std::string_view text, uint64_t number, std::vector<uint8_t>* out) {
    line_ = number;
    if (const size_t comment = text.find(';'); comment != std::string_view::npos)
      text = text.substr(0, comment);
    std::istringstream tokens{std::string(text)};
    Parsed p;
    if (!(tokens >> p.mnemonic)) return true;  // blank line
    if (p.mnemonic == ".bytes") return Bytes(tokens, out);
    for (std::string token; tokens >> token;) {
      const size_t eq = token.find('=');
      if (eq == std::string::npos) {
        p.words.push_back(token);
      } else if (!p.fields.emplace(token.substr(0, eq), token.substr(eq + 1)).second) {
        return Fail(Str("field ", Quoted(token.substr(0, eq)), " given twice"));
      }
    }
    Instruction in;
    if (!Build(p, &in)) return false;
    Encode(in, l_, out);
    return true;
  }

 private:
  bool Fail(std::string message) {
    *error_ = {line_, std::move(message)};
    return false;
  }

  bool Bytes(std::istringstream& tokens, std::vector<uint8_t>* out) {
    std::vector<uint8_t> bytes;
    for (std::string token; tokens >> token;) {
      uint64_t value = 0;
      const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value, 16);
      if (ec != std::errc() || end != token.data() + token.size() || value > 0xff) {
        return Fail(Str("expected a hex byte, found ", Quoted(token)));
      }
      bytes.push_back(static_cast<uint8_t>(value));
    }
    if (bytes.size() != l_.instruction_bytes) {
      return Fail(Str(".bytes has ", bytes.size(), " bytes, the instruction size is ",
                      l_.instruction_bytes));
    }
    out->insert(out->end(), bytes.begin(), bytes.end());
    return true;
  }

  // A field of at most `bits` bits (0 when absent).
  bool Take(Parsed& p, const std::string& key, unsigned bits, uint64_t* value) {
    *value = 0;
    const auto it = p.fields.find(key);
    if (it == p.fields.end()) return true;
    const std::string text = it->second;
    p.fields.erase(it);
    if (!ParseNumber(text, value)) return Fail(Str(key, "=", Quoted(text), " is not a number"));
    if (bits < 64 && (*value >> bits) != 0)
      return Fail(Str(key, "=", text, " does not fit ", bits, " bits"));
    return true;
  }

  bool TakeRegister(Parsed& p, const std::string& key, uint64_t* value) {
    *value = 0;
    const auto it = p.fields.find(key);
    if (it == p.fields.end()) return true;
    const std::string text = it->second;
    p.fields.erase(it);
    if (text == "in" || text == "out") return true;
    if (text.size() < 2 || text[0] != 'r' ||
        !ParseNumber(std::string_view(text).substr(1), value) || *value == 0) {
      return Fail(Str(key, "=", Quoted(text), " is not in, out or rN"));
    }
    if (l_.simd_operand_bits < 64 && (*value >> l_.simd_operand_bits) != 0) {
      return Fail(Str(key, "=", text, " does not fit ", l_.simd_operand_bits, " bits"));
    }
    return true;
  }

  bool Flags(Parsed& p, std::initializer_list<std::pair<std::string_view, uint8_t>> known,
             uint8_t* flags) {
    for (const std::string& word : p.words) {
      bool found = false;
      for (const auto& [name, bit] : known) {
        if (word == name) {
          *flags |= bit;
          found = true;
        }
      }
      if (!found) return Fail(Str("unknown flag ", Quoted(word), " for ", p.mnemonic));
    }
    return true;
  }

  bool Finish(Parsed& p, Instruction* in, uint8_t opcode, uint8_t flags) {
    uint64_t tid = 0;
    if (!Take(p, "tid", 1, &tid)) return false;
    if (!p.fields.empty())
      return Fail(Str("unknown field ", Quoted(p.fields.begin()->first), " for ", p.mnemonic));
    in->header = static_cast<uint8_t>(tid << 7 | opcode << 4 | flags);
    return true;
  }

  unsigned Pad0Bits() const { return l_.op0_bytes * 8 - l_.op0_address_bits - l_.stride0_bits; }
  unsigned Pad1Bits() const { return l_.op1_bytes * 8 - l_.op1_address_bits - l_.stride1_bits; }

  // The three operands of MatMul and DataMove.
  bool Operands(Parsed& p, const std::string& other, Instruction* in) {
    uint64_t a0, a1, size, s0, s1, p0, p1, p2;
    if (!Take(p, "local", l_.op0_address_bits, &a0) || !Take(p, other, l_.op1_address_bits, &a1) ||
        !Take(p, "size", l_.op2_address_bits, &size) || !Take(p, "stride0", l_.stride0_bits, &s0) ||
        !Take(p, "stride1", l_.stride1_bits, &s1) || !Take(p, "pad0", Pad0Bits(), &p0) ||
        !Take(p, "pad1", Pad1Bits(), &p1) ||
        !Take(p, "pad2", l_.op2_bytes * 8 - l_.op2_address_bits, &p2)) {
      return false;
    }
    in->operand0 = PackOperand(a0, l_.op0_address_bits, s0, l_.stride0_bits, p0);
    in->operand1 = PackOperand(a1, l_.op1_address_bits, s1, l_.stride1_bits, p1);
    in->operand2 = PackOperand(size, l_.op2_address_bits, 0, 0, p2);
    return true;
  }

  bool Build(Parsed& p, Instruction* in) {
    uint8_t flags = 0;
    if (p.mnemonic == "Wait") {
      if (!p.words.empty()) return Fail("Wait takes no flags");
      if (!Take(p, "thread", l_.tid_bits, &in->operand0)) return false;
      return Finish(p, in, kWait, 0);
    }
    if (p.mnemonic == "MatMul") {
      if (!Flags(p, {{"accumulate", kMatMulAccumulate}, {"zeroes", kMatMulZeroes}}, &flags))
        return false;
      return Operands(p, "acc", in) && Finish(p, in, kMatMul, flags);
    }
    if (p.mnemonic == "DataMove") {
      if (p.words.size() != 1)
        return Fail("DataMove takes exactly one direction, such as dram0->local");
      bool known = false;
      for (const auto& [kind, name] : kDataMoveKinds) {
        if (p.words[0] == name) {
          flags = kind;
          known = true;
        }
      }
      if (!known) return Fail(Str("unknown DataMove direction ", Quoted(p.words[0])));
      return Operands(p, std::string(OtherKey(flags)), in) && Finish(p, in, kDataMove, flags);
    }
    if (p.mnemonic == "LoadWeights") {
      if (!Flags(p, {{"zeroes", kLoadWeightsZeroes}}, &flags)) return false;
      uint64_t a0, s0, p0;
      if (!Take(p, "local", l_.op0_address_bits, &a0) ||
          !Take(p, "stride0", l_.stride0_bits, &s0) || !Take(p, "pad0", Pad0Bits(), &p0) ||
          !Take(p, "size", l_.op1_bytes * 8, &in->operand1) ||
          !Take(p, "operand2", l_.op2_bytes * 8, &in->operand2)) {
        return false;
      }
      in->operand0 = PackOperand(a0, l_.op0_address_bits, s0, l_.stride0_bits, p0);
      return Finish(p, in, kLoadWeights, flags);
    }
    if (p.mnemonic == "SIMD") return Simd(p, in);
    return Fail(Str("unknown instruction ", Quoted(p.mnemonic)));
  }

  bool Simd(Parsed& p, Instruction* in) {
    uint8_t flags = 0;
    std::string op_name;
    if (const auto it = p.fields.find("op"); it != p.fields.end()) {
      op_name = it->second;
      p.fields.erase(it);
    }
    uint64_t op = 16;
    for (uint8_t i = 0; i < 16; ++i) {
      if (SimdOpName(i) == op_name) op = i;
    }
    if (op == 16) return Fail(Str("unknown SIMD op ", Quoted(op_name)));
    if (!Flags(p, {{"read", kSimdRead}, {"write", kSimdWrite}, {"accumulate", kSimdAccumulate}},
               &flags))
      return false;
    uint64_t left, right, dest, wacc, racc, s0, s1, p0, p1, p2;
    if (!TakeRegister(p, "left", &left) || !TakeRegister(p, "right", &right) ||
        !TakeRegister(p, "dest", &dest) || !Take(p, "wacc", l_.op0_address_bits, &wacc) ||
        !Take(p, "racc", l_.op1_address_bits, &racc) || !Take(p, "stride0", l_.stride0_bits, &s0) ||
        !Take(p, "stride1", l_.stride1_bits, &s1) || !Take(p, "pad0", Pad0Bits(), &p0) ||
        !Take(p, "pad1", Pad1Bits(), &p1) ||
        !Take(p, "pad2", l_.op2_bytes * 8 - l_.simd_instruction_bits, &p2)) {
      return false;
    }
    in->operand0 = PackOperand(wacc, l_.op0_address_bits, s0, l_.stride0_bits, p0);
    in->operand1 = PackOperand(racc, l_.op1_address_bits, s1, l_.stride1_bits, p1);
    in->operand2 = PackSimd(l_, op, left, right, dest, p2);
    return Finish(p, in, kSimd, flags);
  }

  const Layout& l_;
  AssembleError* error_;
  uint64_t line_ = 0;
};

}  // namespace

std::optional<std::vector<uint8_t>> Assemble(std::string_view text, const Layout& layout,
                                             AssembleError* error) {
  std::vector<uint8_t> out;
  Assembler assembler(layout, error);
  uint64_t number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!assembler.Line(line, ++number, &out)) return std::nullopt;
  }
  return out;
}

}  // namespace accelcheck::tensil
