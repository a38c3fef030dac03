// The driver's linker (docs/formats/edgetpu.md §6.1, EDG-43 to EDG-51).
#include "reference_exec/edgetpu/link.h"

#include <algorithm>
#include <charconv>

#include "validators/core/text.h"

namespace accelcheck::edgetpu {

namespace {

using Desc = dwn::Description;
using LayerVector = flatbuffers::Vector<flatbuffers::Offset<dwn::Layer>>;

constexpr uint64_t kPage = 4096;
constexpr uint64_t kFirstAddress = 0x8'0000'0000;
constexpr uint64_t kWindowBits = 32;

uint64_t Pages(uint64_t bytes) { return std::max<uint64_t>(1, (bytes + kPage - 1) / kPage); }

// The device buffer of one batch element of `layer`: size_bytes per
// execution (§6.2).
uint64_t LayerBufferBytes(const dwn::Layer& layer) {
  const int64_t bytes =
      int64_t{layer.size_bytes()} * std::max(1, layer.execution_count_per_inference());
  return bytes > 0 ? static_cast<uint64_t>(bytes) : 0;
}

// The batch elements the field offsets of `desc` name, per layer: the
// addresses a link needs. They follow the file's patches, not batch_size,
// which may be any positive int32.
std::map<std::string, int32_t, std::less<>> BatchesLinked(const dwn::Executable& exe, Desc desc) {
  std::map<std::string, int32_t, std::less<>> batches;
  const auto* chunks = exe.instruction_bitstreams();
  for (uint32_t c = 0; chunks != nullptr && c < chunks->size(); ++c) {
    const auto* fields = chunks->Get(c)->field_offsets();
    for (uint32_t i = 0; fields != nullptr && i < fields->size(); ++i) {
      const dwn::Meta* meta = fields->Get(i)->meta();
      if (meta == nullptr || meta->desc() != desc || meta->name() == nullptr) continue;
      int32_t& count = batches[meta->name()->str()];
      count = std::max(count, std::clamp(meta->batch() + 1, 1, std::max(1, exe.batch_size())));
    }
  }
  return batches;
}

void PlaceLayers(const LayerVector* layers,
                 const std::map<std::string, int32_t, std::less<>>& linked, uint64_t& next,
                 std::map<std::string, std::vector<uint64_t>, std::less<>>& out) {
  for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
    const dwn::Layer& layer = *layers->Get(i);
    if (layer.name() == nullptr) continue;
    auto& batches = out[layer.name()->str()];
    if (!batches.empty()) continue;  // a duplicate name links to the first (EDG-70)
    const auto it = linked.find(layer.name()->string_view());
    for (int32_t b = 0; b < (it == linked.end() ? 1 : it->second); ++b) {
      batches.push_back(next);
      next += Pages(LayerBufferBytes(layer)) * kPage;
    }
  }
}

// The driver's order: scratch, parameters, inputs, outputs (§6.1).
int LinkOrder(Desc desc) {
  switch (desc) {
    case Desc::BASE_ADDRESS_SCRATCH:
      return 0;
    case Desc::BASE_ADDRESS_PARAMETER:
      return 1;
    case Desc::BASE_ADDRESS_INPUT_ACTIVATION:
      return 2;
    default:
      return 3;
  }
}

std::optional<uint64_t> LayerAddress(
    const std::map<std::string, std::vector<uint64_t>, std::less<>>& layers, std::string_view kind,
    std::string_view name, int32_t batch, LinkError* error) {
  const auto it = layers.find(name);
  if (it == layers.end()) {
    *error = {"edgetpu.link.name", Str("no ", kind, " buffer is named ", Quoted(name))};
    return std::nullopt;
  }
  if (batch < 0 || static_cast<size_t>(batch) >= it->second.size()) {
    *error = {"edgetpu.link.batch", Str(kind, " ", Quoted(name), " has no address for batch ",
                                        batch, " (", it->second.size(), " given)")};
    return std::nullopt;
  }
  return it->second[static_cast<size_t>(batch)];
}

// The patch `field` asks for, or the reason it cannot be made.
std::optional<AppliedPatch> PlanPatch(const dwn::FieldOffset& field, uint32_t index,
                                      uint64_t chunk_bytes, const Addresses& addresses,
                                      LinkError* error) {
  const dwn::Meta* meta = field.meta();
  const std::string where = Str("field_offsets[", index, "]");
  if (meta == nullptr) {
    *error = {"edgetpu.link.meta", where + " has no meta"};
    return std::nullopt;
  }
  const int64_t bit = field.offset_bit();
  if (bit < 0 || static_cast<uint64_t>(bit) + kWindowBits > chunk_bytes * 8) {
    *error = {"edgetpu.link.bounds",
              Str(where, ": the 32-bit window at bit ", bit, " does not lie inside the ",
                  chunk_bytes, "-byte chunk; nothing was written")};
    return std::nullopt;
  }
  if (meta->position() != dwn::Position::LOWER_32BIT &&
      meta->position() != dwn::Position::UPPER_32BIT) {
    *error = {"edgetpu.link.position",
              Str(where, " has position ", static_cast<int>(meta->position()))};
    return std::nullopt;
  }
  AppliedPatch patch;
  patch.field_offset = index;
  patch.desc = meta->desc();
  patch.upper = meta->position() == dwn::Position::UPPER_32BIT;
  patch.bit = static_cast<uint64_t>(bit);
  patch.batch = meta->batch();
  std::optional<uint64_t> address;
  switch (meta->desc()) {
    case Desc::BASE_ADDRESS_SCRATCH:
      address = addresses.scratch;
      patch.batch = 0;
      break;
    case Desc::BASE_ADDRESS_PARAMETER:
      address = addresses.parameters;
      patch.batch = 0;
      break;
    case Desc::BASE_ADDRESS_INPUT_ACTIVATION:
    case Desc::BASE_ADDRESS_OUTPUT_ACTIVATION: {
      const bool input = meta->desc() == Desc::BASE_ADDRESS_INPUT_ACTIVATION;
      patch.name = meta->name() == nullptr ? "" : meta->name()->str();
      address = LayerAddress(input ? addresses.inputs : addresses.outputs,
                             input ? "input" : "output", patch.name, patch.batch, error);
      if (!address) {
        error->message = Str(where, ": ", error->message);
        return std::nullopt;
      }
      break;
    }
    default:
      *error = {"edgetpu.link.desc",
                Str(where, " has desc ", static_cast<int>(meta->desc()), ", never linked")};
      return std::nullopt;
  }
  patch.address = *address;
  patch.value = static_cast<uint32_t>(patch.upper ? *address >> 32 : *address & 0xffffffffu);
  return patch;
}

std::optional<uint64_t> ParseAddress(std::string_view text) {
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::string> SetAddress(const std::string& spec, Addresses& addresses) {
  const size_t eq = spec.rfind('=');
  if (eq == std::string::npos) return Str(spec, ": expected BUF=ADDR");
  const std::string buffer = spec.substr(0, eq);
  const auto address = ParseAddress(std::string_view(spec).substr(eq + 1));
  if (!address) return Str(spec, ": ", spec.substr(eq + 1), " is not an address");
  if (buffer == "parameters") {
    addresses.parameters = *address;
    return std::nullopt;
  }
  if (buffer == "scratch") {
    addresses.scratch = *address;
    return std::nullopt;
  }
  const bool input = buffer.starts_with("input:");
  if (!input && !buffer.starts_with("output:"))
    return Str(spec, ": the buffer is parameters, scratch, input:NAME or output:NAME");
  std::string name = buffer.substr(buffer.find(':') + 1);
  uint64_t batch = 0;
  if (const size_t colon = name.rfind(':'); colon != std::string::npos) {
    const auto parsed = ParseAddress(std::string_view(name).substr(colon + 1));
    if (parsed && *parsed < 1u << 20) {
      batch = *parsed;
      name.resize(colon);
    }
  }
  auto& layers = input ? addresses.inputs : addresses.outputs;
  const auto it = layers.find(name);
  if (it == layers.end() || batch >= it->second.size())
    return Str(spec, ": no ", input ? "input" : "output", " ", Quoted(name), " with batch ", batch,
               " in the executable");
  it->second[batch] = *address;
  return std::nullopt;
}

Addresses DefaultAddresses(const dwn::Executable& exe) {
  Addresses addresses;
  uint64_t next = kFirstAddress;
  addresses.scratch = next;
  next += Pages(static_cast<uint64_t>(std::max<int64_t>(0, exe.scratch_size_bytes()))) * kPage;
  addresses.parameters = next;
  next += Pages(exe.parameters() == nullptr ? 0 : exe.parameters()->size()) * kPage;
  PlaceLayers(exe.input_layers(), BatchesLinked(exe, Desc::BASE_ADDRESS_INPUT_ACTIVATION), next,
              addresses.inputs);
  PlaceLayers(exe.output_layers(), BatchesLinked(exe, Desc::BASE_ADDRESS_OUTPUT_ACTIVATION), next,
              addresses.outputs);
  return addresses;
}

std::optional<Addresses> AddressesOf(const dwn::Executable& exe,
                                     const std::vector<std::string>& specs, std::string* error) {
  Addresses addresses = DefaultAddresses(exe);
  for (const std::string& spec : specs) {
    if (auto problem = SetAddress(spec, addresses)) {
      *error = *problem;
      return std::nullopt;
    }
  }
  return addresses;
}

void WriteBits(std::span<uint8_t> chunk, uint64_t bit, uint32_t value) {
  for (uint64_t i = 0; i < kWindowBits; ++i) {
    const uint64_t n = bit + i;
    const auto mask = static_cast<uint8_t>(1u << (n % 8));
    if ((value >> i) & 1u) {
      chunk[n / 8] |= mask;
    } else {
      chunk[n / 8] &= static_cast<uint8_t>(~mask);
    }
  }
}

std::optional<std::vector<LinkedChunk>> Link(const dwn::Executable& exe, const Addresses& addresses,
                                             LinkError* error) {
  std::vector<LinkedChunk> linked;
  const auto* chunks = exe.instruction_bitstreams();
  for (uint32_t c = 0; chunks != nullptr && c < chunks->size(); ++c) {
    const dwn::InstructionBitstream& chunk = *chunks->Get(c);
    LinkedChunk out;
    if (chunk.bitstream() != nullptr)
      out.bytes.assign(chunk.bitstream()->begin(), chunk.bitstream()->end());
    const auto* fields = chunk.field_offsets();
    for (uint32_t i = 0; fields != nullptr && i < fields->size(); ++i) {
      auto patch = PlanPatch(*fields->Get(i), i, out.bytes.size(), addresses, error);
      if (!patch) {
        error->message = Str("instruction_bitstreams[", c, "].", error->message);
        return std::nullopt;
      }
      out.patches.push_back(std::move(*patch));
    }
    std::stable_sort(out.patches.begin(), out.patches.end(),
                     [](const AppliedPatch& a, const AppliedPatch& b) {
                       return LinkOrder(a.desc) < LinkOrder(b.desc);
                     });
    for (const AppliedPatch& patch : out.patches) WriteBits(out.bytes, patch.bit, patch.value);
    linked.push_back(std::move(out));
  }
  return linked;
}

}  // namespace accelcheck::edgetpu
