#include "reference_exec/neff/dma.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <utility>

#include <sys/mman.h>

#include "validators/core/checked.h"
#include "validators/core/npy.h"
#include "validators/core/text.h"
#include "validators/neff/access.h"
#include "validators/neff/container.h"
#include "validators/neff/program.h"

namespace accelcheck::neff::exec {

namespace {

constexpr uint64_t kPartitionMask = (uint64_t{1} << kPartitionShift) - 1;

// --- loading ---

std::optional<std::vector<uint8_t>> ConstantOf(const Container& c, const Subgraph& sg,
                                               const Variable& v, std::string* error) {
  const tar::Member* member = c.Find(sg.Member(v.file_name->value));
  if (member == nullptr) {
    *error = Str("constant ", Quoted(v.file_name->value), " is missing");
    return std::nullopt;
  }
  if (!member->name.ends_with(".npy"))
    return std::vector<uint8_t>(member->data.begin(), member->data.end());
  const std::optional<npy::Layout> layout = npy::ReadLayout(member->data, error, ~uint64_t{0});
  if (!layout) return std::nullopt;
  if (layout->fortran && layout->shape.size() > 1) {
    *error = Str(Quoted(member->name),
                 " is in Fortran order, which the runtime's loader does not "
                 "describe");
    return std::nullopt;
  }
  const ByteView data = member->data.subspan(layout->data_offset);
  return std::vector<uint8_t>(data.begin(), data.end());
}

// The dtype and shape tensor_map.json gives a variable, when they describe
// exactly its bytes.
void DescribeFromTensorMap(const Subgraph& sg, Buffer* b) {
  b->shape = {b->size};
  if (!sg.tensor_map) return;
  const auto entry = sg.tensor_map->find(b->name);
  if (entry == sg.tensor_map->end() || !entry->second.tf_shape) return;
  const uint64_t element = DtypeBytes(entry->second.dtype);
  if (element == 0) return;
  uint64_t bytes = element;
  std::vector<uint64_t> shape;
  for (int64_t dim : *entry->second.tf_shape) {
    if (dim < 0) return;
    shape.push_back(static_cast<uint64_t>(dim));
    bytes *= static_cast<uint64_t>(dim);
  }
  if (bytes != b->size) return;
  b->dtype = entry->second.dtype;
  b->shape = std::move(shape);
}

bool LoadEngines(const Container& c, const Subgraph& sg, const Limits& limits, Loaded* out,
                 std::string* error) {
  const Definition& def = *sg.def;
  for (size_t e = 0; e < kEngineCount; ++e) {
    EngineWork work{.key = std::string(kEngineKeys[e]), .blocks = {}, .triggers = {}};
    if (def.engine_json[e]) {
      if (const tar::Member* json = c.Find(sg.Member(def.engine_json[e]->value))) {
        DiagnosticSink quiet(Profile{}, json->name);
        bool repeated = false;
        DecodeEngine(json->data, limits, quiet, [&](uint64_t, const Block& block) {
          if (!block.queue || !block.id) return;
          repeated |= !work.blocks.emplace(std::pair{*block.queue, *block.id}, block).second;
        });
        if (repeated) {
          // NEFF-47: a trigger would name several blocks.
          *error = Str(json->name, " has two blocks of one queue and id");
          return false;
        }
      }
    }
    if (def.engine_program[e]) {
      if (const tar::Member* program = c.Find(sg.Member(def.engine_program[e]->value))) {
        for (const Trigger& t : ReadTriggers(program->data)) {
          work.triggers.emplace_back(t.queue, t.block_id);
        }
      }
    }
    out->engines.push_back(std::move(work));
  }
  return true;
}

bool HasBlocks(const Loaded& l) {
  return std::any_of(l.engines.begin(), l.engines.end(),
                     [](const EngineWork& w) { return !w.blocks.empty(); });
}

// --- running ---

// Inputs, outputs, constants and tmp-bufs have bytes of their own; the
// state buffer and virtual variables live in shared memory, and pointers and
// dge-tables are not modelled (§7.1).
bool HoldsOwnBytes(VarType type) {
  return type == VarType::kInput || type == VarType::kOutput || type == VarType::kFile ||
         type == VarType::kTmpBuf;
}

// The names of the queue sets whose transfers the descriptor generation
// engine makes during the run, joined; empty when there is none.
std::string DynamicQueueSets(const Definition& def) {
  std::string names;
  for (const QueueSet& q : def.queues) {
    if (q.type && q.type->value == "dynamic") names += Str(names.empty() ? "" : ", ", q.name);
  }
  return names;
}

// The bytes a run of `sg` holds beside the state buffer: each variable of
// its own and the shared scratchpad, saturating rather than wrapping.
uint64_t HeldBytes(const Subgraph& sg) {
  uint64_t own = 0, scratch = 0;
  const auto add = [](uint64_t a, uint64_t b) {
    return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                        : a + b;
  };
  for (const Variable& v : sg.def->vars) {
    const uint64_t size = v.size && v.size->value > 0 ? static_cast<uint64_t>(v.size->value) : 0;
    if (v.type == VarType::kVirtual) {
      const int64_t off = v.backing_variable_off ? v.backing_variable_off->value : 0;
      scratch = std::max(scratch, add(off > 0 ? static_cast<uint64_t>(off) : 0, size));
    } else if (HoldsOwnBytes(v.type)) {
      own = add(own, size);
    }
  }
  return add(own, scratch);
}

// Which engines touched a byte: the last writer (engine index + 1, 0 for
// none) and a bit per engine that read it.
struct Touch {
  uint8_t writer = 0;
  uint8_t readers = 0;
};

// Zeroed memory that costs nothing until it is touched: pages mapped fresh
// from the system, which an allocator might clear first (a sanitizer's
// does). The state buffer, 128 partitions of up to 224 KiB, is mostly
// untouched.
template <typename T>
class ZeroedArray {
 public:
  ZeroedArray() = default;
  explicit ZeroedArray(uint64_t n) : bytes_(std::max<uint64_t>(n, 1) * sizeof(T)) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
  }
  ZeroedArray(ZeroedArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  ZeroedArray& operator=(ZeroedArray&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;
  ~ZeroedArray() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }
  T* data() { return data_; }

 private:
  T* data_ = nullptr;
  uint64_t bytes_ = 0;
};

// A variable's bytes during the run, with their touches.
struct Span {
  uint8_t* data = nullptr;
  Touch* touch = nullptr;
  uint64_t size = 0;
  bool state_buffer = false;
};

class Machine {
 public:
  Machine(const Loaded& l, Result* result) : loaded_(l), result_(result) {
    const uint64_t sb_bytes = l.state_buffer.partitions * l.state_buffer.partition_bytes;
    uint64_t scratch = 0;
    for (const Buffer& b : l.buffers) {
      if (b.type == VarType::kVirtual) scratch = std::max(scratch, b.backing_offset + b.size);
    }
    sb_ = ZeroedArray<uint8_t>(sb_bytes);
    sb_touch_ = ZeroedArray<Touch>(sb_bytes);
    sb_bytes_ = sb_bytes;
    scratch_ = ZeroedArray<uint8_t>(scratch);
    scratch_touch_ = ZeroedArray<Touch>(scratch);
    for (const Buffer& b : l.buffers) {
      const uint64_t size = HoldsOwnBytes(b.type) ? b.size : 0;
      own_.emplace_back(b.type == VarType::kFile ? b.constant : std::vector<uint8_t>(size, 0));
      own_touch_.emplace_back(size);
    }
  }

  bool SetInput(const std::string& name, const std::vector<uint8_t>& bytes) {
    for (size_t i = 0; i < loaded_.buffers.size(); ++i) {
      if (loaded_.buffers[i].name == name) {
        own_[i] = bytes;
        return true;
      }
    }
    return false;
  }

  std::optional<Span> Resolve(const std::string& name, std::string* error) {
    for (size_t i = 0; i < loaded_.buffers.size(); ++i) {
      const Buffer& b = loaded_.buffers[i];
      if (b.name != name) continue;
      switch (b.type) {
        case VarType::kStateBuffer:
          return Span{sb_.data(), sb_touch_.data(), sb_bytes_, true};
        case VarType::kVirtual:
          return Span{scratch_.data() + b.backing_offset, scratch_touch_.data() + b.backing_offset,
                      b.size, false};
        case VarType::kPointer:
        case VarType::kDgeTable:
        case VarType::kUnknown:
          // §7.1: these hold device addresses, which the run does not model.
          *error = Str("variable ", Quoted(name), " of type ", VarTypeName(b.type),
                       " holds device addresses, which the executor does not model");
          return std::nullopt;
        default:
          return Span{own_[i].data(), own_touch_[i].data(), b.size, false};
      }
    }
    *error = Str("variable ", Quoted(name), " is not declared");
    return std::nullopt;
  }

  // The index in `span` of the `length` bytes at `address`, which must lie
  // in one partition of the state buffer; nothing with `error` when they
  // leave the variable or touch a reservation (NEFF-39, NEFF-31).
  std::optional<uint64_t> Index(const Span& span, int64_t address, uint64_t length,
                                std::string* error) const {
    access_refused_ = Refusal::kOutside;  // cleared below when the access is allowed
    if (address < 0) {
      *error = Str("address ", address, " is negative");
      return std::nullopt;
    }
    const auto a = static_cast<uint64_t>(address);
    if (!span.state_buffer) {
      if (a >= span.size || length > span.size - a) {
        *error = Str("bytes ", a, " to ", a + length - 1, " are outside the variable's ", span.size,
                     " bytes");
        return std::nullopt;
      }
      access_refused_.reset();
      return a;
    }
    const StateBuffer& sb = loaded_.state_buffer;
    const uint64_t partition = a >> kPartitionShift, byte = a & kPartitionMask;
    if (partition >= sb.partitions || byte >= sb.partition_bytes ||
        length > sb.partition_bytes - byte) {
      *error = Str("state-buffer address ", Hex(a), " (partition ", partition, ", bytes ", byte,
                   " to ", byte + length - 1, ") is outside ", sb.partitions, " partitions of ",
                   sb.partition_bytes, " bytes");
      return std::nullopt;
    }
    for (const Reservation& r : loaded_.reservations) {
      if (r.type != "evtaccel" || !r.base_partition || !r.partitions || !r.offset || !r.size)
        continue;
      const auto p = static_cast<int64_t>(partition), first = static_cast<int64_t>(byte);
      const int64_t last = first + static_cast<int64_t>(length) - 1;
      if (p >= *r.base_partition && p < *r.base_partition + *r.partitions &&
          first < *r.offset + *r.size && last >= *r.offset) {
        *error =
            Str("state-buffer partition ", partition, ", bytes ", byte, " to ", byte + length - 1,
                " reach the runtime's reservation (evtaccel) at ", *r.offset);
        access_refused_ = Refusal::kReservation;
        return std::nullopt;
      }
    }
    access_refused_.reset();
    return partition * sb.partition_bytes + byte;
  }

  // The refusal of the last access, when it was refused.
  std::optional<Refusal> access_refused() const { return access_refused_; }

  // A side visits the product of its sizes in bytes (§7.3).
  bool WithinSideLimit(const Dims& sizes, std::string* error) {
    const std::optional<uint64_t> visited = ElementCount(sizes.kept(), 1);
    if (visited && *visited <= loaded_.max_side_bytes) return true;
    *error = Str("a side visits ", visited ? Str(*visited) : std::string("more than 2^64"),
                 " bytes, more than --max-tensor-bytes ", loaded_.max_side_bytes);
    access_refused_ = Refusal::kLimit;
    return false;
  }

  // Visits each run of `side` in walking order (§2.13, §7.3): a row of
  // sizes[0] consecutive bytes when steps[0] is 1, else single bytes.
  template <typename F>
  bool Walk(const Side& side, std::string* error, F&& visit) {
    if (!side.off || !side.sizes || !side.steps) {
      *error = "a side lacks its offset, sizes or steps (NEFF-36)";
      return false;
    }
    if (DtypeBytes(side.Dtype()) == 0) {
      *error = Str("dtype ", Quoted(side.Dtype()), " is not one of the 15 (NEFF-36)");
      return false;
    }
    const Dims& sizes = *side.sizes;
    const Dims& steps = *side.steps;
    if (sizes.size() != steps.size() || sizes.empty() || sizes.size() > kMaxDimensions) {
      *error = "a side needs 1 to 4 sizes and as many steps (NEFF-36)";
      return false;
    }
    for (size_t k = 0; k < sizes.size(); ++k) {
      // A size below 1 is NEFF-36's warning: a side with an empty dimension
      // visits no byte; a negative size has no meaning.
      if (sizes[k] < 0) {
        *error = Str("size ", sizes[k], " of dimension ", k, " is negative");
        return false;
      }
      if (sizes[k] == 0) return true;
    }
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (steps[k] < 0) {
        *error = Str("step ", steps[k], " of dimension ", k,
                     " is negative, which the executor does not model");
        return false;
      }
    }
    if (!WithinSideLimit(sizes, error)) return false;
    const bool rows = steps[0] == 1;
    std::array<int64_t, 4> index{};
    while (true) {
      int64_t row = *side.off;
      for (size_t k = 1; k < sizes.size(); ++k) row += index[k] * steps[k];
      if (rows) {
        if (!visit(row, static_cast<uint64_t>(sizes[0]))) return false;
      } else {
        for (int64_t b = 0; b < sizes[0]; ++b) {
          if (!visit(row + b * steps[0], 1)) return false;
        }
      }
      size_t k = 1;
      for (; k < sizes.size() && ++index[k] == sizes[k]; ++k) index[k] = 0;
      if (k == sizes.size()) return true;
    }
  }

  bool Gather(const Side& side, uint8_t engine, std::vector<uint8_t>* out, std::string* error) {
    const std::optional<Span> span = Resolve(side.var.value_or(""), error);
    if (!span) return false;
    const uint8_t bit = EngineBit(engine);
    return Walk(side, error, [&](int64_t address, uint64_t length) {
      const std::optional<uint64_t> at = Index(*span, address, length, error);
      if (!at) return false;
      for (uint64_t i = *at; i < *at + length; ++i) {
        Touch& t = span->touch[i];
        result_->order_dependent += t.writer != 0 && t.writer != engine;
        t.readers |= bit;
      }
      out->insert(out->end(), span->data + *at, span->data + *at + length);
      return true;
    });
  }

  bool Scatter(const Side& side, uint8_t engine, const std::vector<uint8_t>& bytes,
               std::string* error) {
    const std::optional<Span> span = Resolve(side.var.value_or(""), error);
    if (!span) return false;
    const uint8_t others = static_cast<uint8_t>(~EngineBit(engine));
    uint64_t next = 0;
    return Walk(side, error, [&](int64_t address, uint64_t length) {
      const std::optional<uint64_t> at = Index(*span, address, length, error);
      if (!at) return false;
      if (length > bytes.size() - next) {
        *error = "the destination visits more bytes than the source gives";
        return false;
      }
      for (uint64_t i = *at; i < *at + length; ++i) {
        Touch& t = span->touch[i];
        result_->order_dependent +=
            (t.writer != 0 && t.writer != engine) || (t.readers & others) != 0;
        t.writer = engine;
      }
      std::memcpy(span->data + *at, bytes.data() + next, length);
      next += length;
      return true;
    });
  }

  void Collect(bool keep_state_buffer) {
    if (keep_state_buffer) result_->state_buffer.assign(sb_.data(), sb_.data() + sb_bytes_);
    for (size_t i = 0; i < loaded_.buffers.size(); ++i) {
      const Buffer& b = loaded_.buffers[i];
      if (b.type != VarType::kOutput) continue;
      result_->outputs[b.name] = own_[i];
      result_->unwritten[b.name] =
          static_cast<uint64_t>(std::count_if(own_touch_[i].begin(), own_touch_[i].end(),
                                              [](const Touch& t) { return t.writer == 0; }));
    }
  }

 private:
  const Loaded& loaded_;
  Result* result_;
  static uint8_t EngineBit(uint8_t engine) { return static_cast<uint8_t>(1u << (engine - 1)); }

  ZeroedArray<uint8_t> sb_, scratch_;
  ZeroedArray<Touch> sb_touch_, scratch_touch_;
  uint64_t sb_bytes_ = 0;
  std::vector<std::vector<uint8_t>> own_;
  std::vector<std::vector<Touch>> own_touch_;
  mutable std::optional<Refusal> access_refused_;
};

// --- element conversions (§7.4) ---

bool IsFloat(std::string_view dtype) {
  return dtype == "float16" || dtype == "bfloat16" || dtype == "float32";
}

bool IsFloat8OrRounded(std::string_view dtype) {
  return dtype.starts_with("float8") || dtype == "float32r";
}

// An element's value, exactly; nothing for a 64-bit integer past 2^53.
std::optional<double> Decode(std::string_view dtype, const uint8_t* p) {
  uint64_t bits = 0;
  const uint64_t size = DtypeBytes(dtype);
  for (uint64_t i = 0; i < size; ++i) bits |= uint64_t{p[i]} << (8 * i);
  if (dtype == "float16") return npy::HalfToDouble(static_cast<uint16_t>(bits));
  if (dtype == "bfloat16") return npy::BFloat16ToDouble(static_cast<uint16_t>(bits));
  if (dtype == "float32") {
    float f;
    const auto word = static_cast<uint32_t>(bits);
    std::memcpy(&f, &word, 4);
    return f;
  }
  const bool is_signed = dtype.starts_with("int");
  if (is_signed) {
    const unsigned shift = static_cast<unsigned>(64 - 8 * size);
    const int64_t v = static_cast<int64_t>(bits << shift) >> shift;
    if (v > (int64_t{1} << 53) || v < -(int64_t{1} << 53)) return std::nullopt;
    return static_cast<double>(v);
  }
  if (bits > (uint64_t{1} << 53)) return std::nullopt;
  return static_cast<double>(bits);
}

// The float32 nearest `value`, ties to even, infinite past the largest
// finite float32 by half an ulp or more (the cast alone is undefined there).
float ToFloat32(double value) {
  const double overflow = std::ldexp(2.0 - std::ldexp(1.0, -24), 127);
  if (std::fabs(value) >= overflow && !std::isnan(value)) {
    return std::signbit(value) ? -std::numeric_limits<float>::infinity()
                               : std::numeric_limits<float>::infinity();
  }
  return static_cast<float>(value);
}

// The element of a float dtype nearest `value`, ties to even (one rounding:
// every decoded value is exact in a double).
void Encode(std::string_view dtype, double value, uint8_t* out) {
  uint32_t bits = 0;
  if (dtype == "float16") {
    bits = npy::DoubleToHalf(value);
  } else if (dtype == "bfloat16") {
    bits = npy::DoubleToBFloat16(value);
  } else {
    const float f = ToFloat32(value);
    std::memcpy(&bits, &f, 4);
  }
  for (uint64_t i = 0; i < DtypeBytes(dtype); ++i) out[i] = static_cast<uint8_t>(bits >> (8 * i));
}

bool Cast(const Descriptor& d, const std::vector<uint8_t>& in, std::vector<uint8_t>* out,
          std::string* error) {
  const std::string_view from = d.from.Dtype(), to = d.to.Dtype();
  if (IsFloat8OrRounded(from) || IsFloat8OrRounded(to)) {
    *error = Str("a cast from ", from, " to ", to,
                 " needs an encoding no source gives (float8e3/e4/e5, float32r)");
    return false;
  }
  if (!IsFloat(to)) {
    *error = Str("a cast to ", to, " needs rounding rules no source gives");
    return false;
  }
  const uint64_t from_size = DtypeBytes(from), to_size = DtypeBytes(to);
  out->resize(in.size() / from_size * to_size);
  for (uint64_t i = 0; i * from_size < in.size(); ++i) {
    const std::optional<double> value = Decode(from, in.data() + i * from_size);
    if (!value) {
      *error = Str("element ", i, " of ", from, " is past 2^53, which no float cast keeps exact");
      return false;
    }
    Encode(to, *value, out->data() + i * to_size);
  }
  return true;
}

// §7.4: the source stream is a run of tiles, each a row-major [W, Z, Y, X]
// array of transpose_element_size elements; WZXY swaps each tile's two inner
// axes.
bool Transpose(const Descriptor& d, const std::vector<uint8_t>& in, std::vector<uint8_t>* out,
               std::string* error) {
  if (d.transpose_op.value_or("") != "WZXY" || !d.transpose_shape ||
      d.transpose_shape->size() != 4 || !d.transpose_element_size ||
      *d.transpose_element_size < 1) {
    *error =
        Str("a transpose other than WZXY with a 4-entry transpose_shape and an element size "
            "(transpose_op ",
            Quoted(d.transpose_op.value_or("")), ") has no documented meaning");
    return false;
  }
  const std::vector<int64_t>& s = *d.transpose_shape;
  const auto element = static_cast<uint64_t>(*d.transpose_element_size);
  std::optional<uint64_t> tile = element;
  for (int64_t dim : s) {
    if (tile) tile = CheckedMul(*tile, dim < 0 ? 0 : static_cast<uint64_t>(dim));
  }
  if (!tile || *tile == 0 || in.size() % *tile != 0) {
    *error = Str("a tile of transpose_shape [", s[0], ", ", s[1], ", ", s[2], ", ", s[3], "] of ",
                 element, "-byte elements does not divide the source's ", in.size(), " bytes");
    return false;
  }
  const auto W = static_cast<uint64_t>(s[0]), Z = static_cast<uint64_t>(s[1]),
             Y = static_cast<uint64_t>(s[2]), X = static_cast<uint64_t>(s[3]);
  out->resize(in.size());
  for (uint64_t base = 0; base < in.size(); base += *tile) {
    const uint8_t* from = in.data() + base;
    uint8_t* to = out->data() + base;
    for (uint64_t w = 0; w < W; ++w)
      for (uint64_t z = 0; z < Z; ++z)
        for (uint64_t y = 0; y < Y; ++y)
          for (uint64_t x = 0; x < X; ++x) {
            const uint64_t src = ((w * Z + z) * Y + y) * X + x;
            const uint64_t dst = ((w * Z + z) * X + x) * Y + y;
            std::memcpy(to + dst * element, from + src * element, element);
          }
  }
  return true;
}

// --- arithmetic (§7.4) ---

// The value `v` as an element of the integer dtype `dtype`, when it is a
// whole number in its range: no source gives rounding, saturation or
// wrapping for integers, so anything else is refused.
bool EncodeInteger(std::string_view dtype, double v, uint8_t* out) {
  const uint64_t size = DtypeBytes(dtype);
  const bool is_signed = dtype.starts_with("int");
  const double bits = static_cast<double>(8 * size - (is_signed ? 1 : 0));
  const double high = std::ldexp(1.0, static_cast<int>(bits));
  const double low = is_signed ? -high : 0.0;
  if (!(v >= low && v < high) || std::trunc(v) != v) return false;
  const uint64_t word =
      is_signed ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
  for (uint64_t i = 0; i < size; ++i) out[i] = static_cast<uint8_t>(word >> (8 * i));
  return true;
}

// min and max's starting value (§2.11): the constant when constant_dtype is
// given, a float32 rounded to one, an int32 or uint32 required to be one;
// none otherwise. False, with `error`, when the constant is not its dtype.
bool StartValue(const Descriptor& d, std::optional<double>* start, std::string* error) {
  if (!d.constant_dtype) return true;
  const double c = d.constant.value_or(0.0);
  uint8_t scratch[4];
  if (*d.constant_dtype != "float32" && !EncodeInteger(*d.constant_dtype, c, scratch)) {
    *error = Str("constant ", c, " is not a ", *d.constant_dtype);
    return false;
  }
  *start = *d.constant_dtype == "float32" ? ToFloat32(c) : c;
  return true;
}

// add, fma, min and max in the executor's reading (§7.4): element i of the
// destination combines element i of every source, in from_arr order, each
// decoded exactly; the result, computed in double, is rounded once to
// to_dtype. add sums, fma sums each source times the scale, min and max
// start with the constant (or the first source) and take the least or
// greatest, a NaN making the result NaN.
bool Combine(const Descriptor& d, const std::vector<std::vector<uint8_t>>& sources,
             const std::vector<std::string_view>& dtypes, std::vector<uint8_t>* out,
             std::string* error) {
  const std::string_view op = d.Op();
  const std::string_view to = d.to.Dtype();
  for (const std::string_view dtype : dtypes) {
    if (IsFloat8OrRounded(dtype)) {
      *error = Str(op, " reads ", dtype, ", whose encoding no source gives");
      return false;
    }
  }
  if (IsFloat8OrRounded(to)) {
    *error = Str(op, " writes ", to, ", whose encoding no source gives");
    return false;
  }
  std::optional<double> start;
  if (!StartValue(d, &start, error)) return false;
  const double scale = ToFloat32(d.scale.value_or(1.0));  // a float32, 1.0 when absent
  const uint64_t count = sources[0].size() / DtypeBytes(dtypes[0]);
  for (size_t k = 1; k < sources.size(); ++k) {
    if (sources[k].size() / DtypeBytes(dtypes[k]) != count) {
      *error = Str("from_arr source ", k, " gives ", sources[k].size() / DtypeBytes(dtypes[k]),
                   " elements; source 0 gives ", count);
      return false;
    }
  }
  const uint64_t to_size = DtypeBytes(to);
  out->resize(count * to_size);
  for (uint64_t i = 0; i < count; ++i) {
    std::optional<double> acc = op == "min" || op == "max" ? start : std::optional<double>(0.0);
    for (size_t k = 0; k < sources.size(); ++k) {
      const uint64_t size = DtypeBytes(dtypes[k]);
      const std::optional<double> v = Decode(dtypes[k], sources[k].data() + i * size);
      if (!v) {
        *error =
            Str("element ", i, " of source ", k, " is past 2^53, which a double keeps inexactly");
        return false;
      }
      if (op == "add") {
        *acc += *v;
      } else if (op == "fma") {
        *acc += *v * scale;
      } else if (!acc) {
        acc = *v;
      } else if (std::isnan(*acc) || std::isnan(*v)) {
        acc = std::numeric_limits<double>::quiet_NaN();
      } else {
        acc = op == "min" ? std::min(*acc, *v) : std::max(*acc, *v);
      }
    }
    uint8_t* at = out->data() + i * to_size;
    if (IsFloat(to)) {
      Encode(to, *acc, at);
    } else if (!EncodeInteger(to, *acc, at)) {
      *error = Str("element ", i, ": ", *acc, " is not a ", to,
                   "; no source gives integer rounding, saturation or wrapping");
      return false;
    }
  }
  return true;
}

bool IsArithmetic(std::string_view op) {
  return op == "add" || op == "fma" || op == "min" || op == "max";
}

bool RunDescriptor(Machine& m, const Descriptor& d, uint8_t engine, std::string* error) {
  const std::string_view op = d.Op();
  if (d.from_arr && !IsArithmetic(op)) {
    *error = Str("a ", op, " of several sources (from_arr) has no documented meaning");
    return false;
  }
  if (op == "copy" && d.from.Dtype() != d.to.Dtype()) {
    *error = "a copy between different dtypes has no documented meaning (NEFF-52)";
    return false;
  }
  std::vector<uint8_t> out;
  if (IsArithmetic(op)) {
    const std::vector<Side> sources = d.from_arr ? *d.from_arr : std::vector<Side>{d.from};
    std::vector<std::vector<uint8_t>> streams(sources.size());
    std::vector<std::string_view> dtypes;  // of `sources`, which outlive them
    for (size_t k = 0; k < sources.size(); ++k) {
      if (!m.Gather(sources[k], engine, &streams[k], error)) return false;
      dtypes.push_back(sources[k].Dtype());
    }
    if (!Combine(d, streams, dtypes, &out, error)) return false;
    return m.Scatter(d.to, engine, out, error);
  }
  std::vector<uint8_t> in;
  if (!m.Gather(d.from, engine, &in, error)) return false;
  if (op == "cast" && !Cast(d, in, &out, error)) return false;
  if (op == "transpose" && !Transpose(d, in, &out, error)) return false;
  return m.Scatter(d.to, engine, op == "copy" ? in : out, error);
}

}  // namespace

const Buffer* Loaded::Find(std::string_view name) const {
  for (const Buffer& b : buffers) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

std::vector<const Buffer*> Loaded::OfType(VarType type) const {
  std::vector<const Buffer*> out;
  for (const Buffer& b : buffers) {
    if (b.type == type) out.push_back(&b);
  }
  return out;
}

std::optional<Loaded> Load(const InputBuffer& input, const ValidateContext& context,
                           std::string* error, Refusal* refusal) {
  if (refusal != nullptr) *refusal = Refusal::kUnsupported;
  DiagnosticSink quiet(Profile{}, "");
  const std::optional<Container> c = ReadContainer(input, context, quiet);
  if (!c) {
    *error = "the archive cannot be read";
    return std::nullopt;
  }
  MemberReports reports;
  Neff neff{*c, context, reports, c->header};
  DecodeTopLevel(neff);
  if (neff.kelf) CheckTopLevel(neff);
  DecodeDefinitions(neff);
  std::optional<Loaded> chosen;
  for (const Subgraph& sg : neff.subgraphs) {
    if (!sg.def) continue;
    Loaded l;
    l.subgraph = sg.name;
    l.state_buffer = neff.state_buffer;
    l.reservations = sg.def->reservations;
    l.max_side_bytes = context.limits.max_tensor_bytes;
    if (!LoadEngines(*c, sg, context.limits, &l, error)) return std::nullopt;
    if (chosen && HasBlocks(l)) {
      // NEFF-56: how two subgraphs' variables relate is not in the sources.
      *error = Str("subgraphs ", Quoted(chosen->subgraph), " and ", Quoted(sg.name),
                   " both have DMA blocks (§7.1)");
      return std::nullopt;
    }
    if (chosen && !HasBlocks(l)) continue;
    if (const std::string dynamic = DynamicQueueSets(*sg.def); !dynamic.empty()) {
      *error = Str(sg.name, " moves data through queue sets of type dynamic (", dynamic,
                   "), whose descriptors the DGE generates during the run (§2.7); the executor "
                   "runs only the descriptors the file holds");
      return std::nullopt;
    }
    if (const uint64_t held = HeldBytes(sg); held > context.limits.max_tensor_bytes) {
      *error = Str("the run of ", sg.name, " would hold ", held,
                   " bytes of variables and scratchpad, more than --max-tensor-bytes ",
                   context.limits.max_tensor_bytes);
      if (refusal != nullptr) *refusal = Refusal::kLimit;
      return std::nullopt;
    }
    for (const Variable& v : sg.def->vars) {
      Buffer b{.name = v.name,
               .type = v.type,
               .size = v.size ? static_cast<uint64_t>(v.size->value) : 0,
               .backing_offset = v.backing_variable_off
                                     ? static_cast<uint64_t>(v.backing_variable_off->value)
                                     : 0,
               .constant = {},
               .dtype = "uint8",
               .shape = {}};
      if (v.type == VarType::kFile && v.file_name) {
        std::optional<std::vector<uint8_t>> data = ConstantOf(*c, sg, v, error);
        if (!data) return std::nullopt;
        data->resize(b.size, 0);
        b.constant = std::move(*data);
      }
      DescribeFromTensorMap(sg, &b);
      l.buffers.push_back(std::move(b));
    }
    chosen = std::move(l);
  }
  if (!chosen) *error = "the NEFF has no subgraph to run";
  return chosen;
}

std::optional<Result> Run(const Loaded& loaded,
                          const std::map<std::string, std::vector<uint8_t>>& inputs,
                          std::string* error, RunOptions options, Refusal* refusal) {
  if (refusal != nullptr) *refusal = Refusal::kUnsupported;
  Result result;
  Machine m(loaded, &result);
  for (const Buffer* b : loaded.OfType(VarType::kInput)) {
    const auto given = inputs.find(b->name);
    if (given == inputs.end()) {
      *error = Str("input ", Quoted(b->name), " is not given");
      return std::nullopt;
    }
    if (given->second.size() != b->size) {
      *error = Str("input ", Quoted(b->name), " is ", given->second.size(),
                   " bytes; the variable is ", b->size);
      return std::nullopt;
    }
    m.SetInput(b->name, given->second);
  }
  for (size_t e = 0; e < loaded.engines.size(); ++e) {
    const EngineWork& work = loaded.engines[e];
    for (const auto& [queue, id] : work.triggers) {
      const auto block = work.blocks.find({queue, id});
      if (block == work.blocks.end()) {
        *error = Str(work.key, ": a trigger names block ", id, " of queue ", Quoted(queue),
                     ", which the engine does not have");
        return std::nullopt;
      }
      for (size_t j = 0; j < block->second.desc.size(); ++j) {
        if (options.deadline.expired()) {
          if (refusal != nullptr) *refusal = Refusal::kLimit;
          *error = Str("the time budget ran out after ", result.descriptors, " descriptors");
          return std::nullopt;
        }
        std::string why;
        if (!RunDescriptor(m, block->second.desc[j], static_cast<uint8_t>(e + 1), &why)) {
          if (refusal != nullptr && m.access_refused()) *refusal = *m.access_refused();
          *error = Str(work.key, " block ", id, " of queue ", Quoted(queue), ", descriptor ", j,
                       ": ", why);
          return std::nullopt;
        }
        ++result.descriptors;
      }
      ++result.blocks;
    }
  }
  m.Collect(options.keep_state_buffer);
  return result;
}

}  // namespace accelcheck::neff::exec
