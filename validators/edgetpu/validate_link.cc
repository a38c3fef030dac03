// D and E: instruction bitstreams with the field offsets the driver patches
// addresses into (EDG-41 to EDG-53, EDG-94; docs/formats/edgetpu.md §6.1),
// and the parameters (EDG-54, EDG-55).
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "validators/core/text.h"
#include "validators/edgetpu/rules.h"
#include "validators/edgetpu/validate.h"

namespace accelcheck::edgetpu {

namespace {

using Desc = dwn::Description;
using Position = dwn::Position;

// The bits of the window a patch writes: 32, from offset_bit (§6.1).
constexpr int64_t kWindowBits = 32;
// The compiler's layout of a bundle and of the immediate it patches (EDG-53).
constexpr uint64_t kBundleBytes = 16;
constexpr int64_t kImmediateBit = 70;
constexpr int64_t kBundleBits = 128;

std::string DescText(Desc desc) {
  switch (desc) {
    case Desc::BASE_ADDRESS_OUTPUT_ACTIVATION:
      return "OUTPUT";
    case Desc::BASE_ADDRESS_INPUT_ACTIVATION:
      return "INPUT";
    case Desc::BASE_ADDRESS_PARAMETER:
      return "PARAMETER";
    case Desc::BASE_ADDRESS_SCRATCH:
      return "SCRATCH";
  }
  return Str("desc ", static_cast<int>(desc));
}

std::set<std::string_view> LayerNames(
    const flatbuffers::Vector<flatbuffers::Offset<dwn::Layer>>* layers) {
  std::set<std::string_view> names;
  for (uint32_t i = 0; layers != nullptr && i < layers->size(); ++i) {
    if (layers->Get(i)->name() != nullptr) names.insert(layers->Get(i)->name()->string_view());
  }
  return names;
}

// What one executable's field offsets are checked against.
struct LinkTargets {
  std::set<std::string_view> inputs, outputs;
  int32_t batch_size;
};

// The address a field offset stands for, and its half.
struct Patch {
  Desc desc;
  std::string_view name;
  int32_t batch;
  Position position;
  int64_t bit;
  uint32_t index;
};

// EDG-43 to EDG-50 on one field offset; the patch it makes when it is one
// the driver would make within the chunk. The field offset's path is built
// only for a finding: a compiled model has tens of thousands of them.
std::optional<Patch> CheckFieldOffset(const ExecutableView& view, const LinkTargets& targets,
                                      const dwn::FieldOffset& field, uint64_t chunk_bits,
                                      const std::string& chunk_path, uint32_t index,
                                      DiagnosticSink& sink) {
  const auto path = [&](std::string_view inner) {
    return Str(chunk_path, ".field_offsets[", index, "]", inner);
  };
  const dwn::Meta* meta = field.meta();
  if (meta == nullptr) {
    ReportAt(sink, rules::kLinkMeta, view, &field, path(".meta"),
             "the field offset has no meta: the driver reads it unchecked");
    return std::nullopt;
  }
  bool ok = true;
  const Desc desc = meta->desc();
  if (desc < Desc::BASE_ADDRESS_OUTPUT_ACTIVATION || desc > Desc::BASE_ADDRESS_SCRATCH) {
    ReportAt(sink, rules::kLinkDesc, view, meta, path(".meta.desc"),
             Str("desc is ", static_cast<int>(desc),
                 ": never linked, so the device reads the window's bytes as an address"));
    ok = false;
  }
  if (meta->position() != Position::LOWER_32BIT && meta->position() != Position::UPPER_32BIT) {
    ReportAt(sink, rules::kLinkPosition, view, meta, path(".meta.position"),
             Str("position is ", static_cast<int>(meta->position()),
                 ", neither LOWER_32BIT nor UPPER_32BIT (the driver aborts)"));
    ok = false;
  }
  const int64_t bit = field.offset_bit();
  if (bit < 0 || static_cast<uint64_t>(bit) + kWindowBits > chunk_bits) {
    ReportAt(sink, rules::kLinkBounds, view, &field, path(".offset_bit"),
             Str("the 32-bit window at bit ", bit, " does not lie inside the ", chunk_bits / 8,
                 "-byte bitstream: linking writes outside it"));
    ok = false;
  }
  const bool activation =
      desc == Desc::BASE_ADDRESS_INPUT_ACTIVATION || desc == Desc::BASE_ADDRESS_OUTPUT_ACTIVATION;
  const std::string_view name =
      meta->name() == nullptr ? std::string_view() : meta->name()->string_view();
  if (activation) {
    const auto& layers =
        desc == Desc::BASE_ADDRESS_INPUT_ACTIVATION ? targets.inputs : targets.outputs;
    if (meta->name() == nullptr || layers.count(name) == 0) {
      ReportAt(sink, rules::kLinkName, view, meta, path(".meta.name"),
               meta->name() == nullptr
                   ? Str("the ", DescText(desc),
                         " field offset names no layer (the driver reads the name unchecked)")
                   : Str("the ", DescText(desc), " field offset names ", Quoted(name), ", no ",
                         desc == Desc::BASE_ADDRESS_INPUT_ACTIVATION ? "input" : "output",
                         " layer of the executable: the window is never patched"));
      ok = false;
    }
    if (meta->batch() < 0 || meta->batch() >= targets.batch_size) {
      ReportAt(sink, rules::kLinkBatch, view, meta, path(".meta.batch"),
               Str("batch is ", meta->batch(), " but the executable's batch_size is ",
                   targets.batch_size, " (the driver aborts)"));
      ok = false;
    }
  } else if (desc == Desc::BASE_ADDRESS_PARAMETER || desc == Desc::BASE_ADDRESS_SCRATCH) {
    if (desc == Desc::BASE_ADDRESS_SCRATCH && meta->batch() != 0) {
      ReportAt(
          sink, rules::kLinkScratchBatch, view, meta, path(".meta.batch"),
          Str("a SCRATCH field offset has batch ", meta->batch(), ", not 0 (the driver aborts)"));
      ok = false;
    }
    if (!name.empty()) {
      ReportAt(sink, rules::kLinkUnexpectedName, view, meta, path(".meta.name"),
               Str("a ", DescText(desc), " field offset names ", Quoted(name),
                   "; the address it stands for has no name"));
    }
  }
  if (!ok) return std::nullopt;
  return Patch{desc,
               activation ? name : std::string_view(),
               activation ? meta->batch() : 0,
               meta->position(),
               bit,
               index};
}

// EDG-51: every address is patched whole, its lower and upper halves alike.
void CheckPairs(const ExecutableView& view, const std::vector<Patch>& patches,
                DiagnosticSink& sink) {
  using Target = std::tuple<Desc, std::string_view, int32_t>;
  std::map<Target, std::pair<uint32_t, uint32_t>> halves;
  // Compilers write an address's patches together: the count of the
  // previous patch is looked up again only when the address changes.
  std::pair<uint32_t, uint32_t>* current = nullptr;
  Target last;
  for (const Patch& p : patches) {
    const Target target{p.desc, p.name, p.batch};
    if (current == nullptr || target != last) {
      current = &halves[target];
      last = target;
    }
    (p.position == Position::LOWER_32BIT ? current->first : current->second)++;
  }
  for (const auto& [target, count] : halves) {
    if (count.first == count.second) continue;
    const auto& [desc, name, batch] = target;
    ReportAt(sink, rules::kLinkPairs, view, view.executable, "instruction_bitstreams",
             Str("the ", DescText(desc), name.empty() ? "" : Str(" ", Quoted(name)),
                 desc == Desc::BASE_ADDRESS_INPUT_ACTIVATION ||
                         desc == Desc::BASE_ADDRESS_OUTPUT_ACTIVATION
                     ? Str(" batch ", batch)
                     : "",
                 " address is patched ", count.first, " times in its lower half and ", count.second,
                 " times in its upper half"));
  }
}

// EDG-94: a later patch must not overwrite bits of an earlier one.
void CheckOverlap(const ExecutableView& view, std::vector<Patch> patches, const std::string& path,
                  DiagnosticSink& sink) {
  // Stable: of two windows at the same bit, the later field offset is named.
  // Compilers write them in bit order, which needs no sort.
  const auto by_bit = [](const Patch& a, const Patch& b) { return a.bit < b.bit; };
  if (!std::is_sorted(patches.begin(), patches.end(), by_bit))
    std::stable_sort(patches.begin(), patches.end(), by_bit);
  for (size_t k = 1; k < patches.size(); ++k) {
    if (patches[k].bit >= patches[k - 1].bit + kWindowBits) continue;
    ReportAt(
        sink, rules::kLinkOverlap, view, view.executable,
        Str(path, ".field_offsets[", patches[k].index, "]"),
        Str("the window at bit ", patches[k].bit, " overlaps field_offsets[", patches[k - 1].index,
            "]'s at bit ", patches[k - 1].bit, ": one patch overwrites the other"));
  }
}

// EDG-53: what the compiler always writes; one note per chunk.
void CheckConventions(const ExecutableView& view, const dwn::InstructionBitstream& chunk,
                      const std::vector<Patch>& patches, const std::string& path,
                      DiagnosticSink& sink) {
  const auto* bits = chunk.bitstream();
  std::string broken;
  if (bits->size() % kBundleBytes != 0) {
    broken = Str("its length ", bits->size(), " is not a multiple of ", kBundleBytes);
  }
  for (const Patch& p : patches) {
    if (!broken.empty()) break;
    if (p.bit % kBundleBits != kImmediateBit) {
      broken = Str("field_offsets[", p.index, "] is at bit ", p.bit, ", not 70 modulo 128");
      continue;
    }
    // The (at most) five bytes the window touches (§6.1), all inside the
    // bitstream since the patch passed EDG-46.
    const auto first = static_cast<uint32_t>(p.bit / 8);
    uint64_t bytes = 0;
    for (uint32_t k = 0; k < 5 && first + k < bits->size(); ++k)
      bytes |= uint64_t{bits->Get(first + k)} << (8 * k);
    const uint64_t window = (bytes >> (p.bit % 8)) & 0xffffffffu;
    if (window != 0)
      broken = Str("the window of field_offsets[", p.index, "] holds ", Hex(window), ", not 0");
  }
  if (broken.empty()) return;
  ReportAt(sink, rules::kBitstreamConvention, view, bits, path + ".bitstream",
           Str("the bitstream breaks the compiler's conventions: ", broken));
}

void CheckChunks(const ExecutableView& view, DiagnosticSink& sink) {
  const dwn::Executable& exe = *view.executable;
  const auto* chunks = exe.instruction_bitstreams();
  if (chunks == nullptr || chunks->size() == 0) {
    ReportAt(sink, rules::kBitstreamMissing, view, &exe, "instruction_bitstreams",
             "the executable has no instruction bitstream");
    return;
  }
  const LinkTargets targets{LayerNames(exe.input_layers()), LayerNames(exe.output_layers()),
                            exe.batch_size()};
  std::vector<Patch> all;
  for (uint32_t c = 0; c < chunks->size(); ++c) {
    const dwn::InstructionBitstream& chunk = *chunks->Get(c);
    const std::string path = Str("instruction_bitstreams[", c, "]");
    if (chunk.bitstream() == nullptr || chunk.bitstream()->size() == 0) {
      ReportAt(sink, rules::kBitstreamEmpty, view, &chunk, path + ".bitstream",
               chunk.bitstream() == nullptr ? "the chunk has no bitstream"
                                            : "the chunk's bitstream is empty");
      continue;
    }
    const uint64_t chunk_bits = uint64_t{chunk.bitstream()->size()} * 8;
    std::vector<Patch> patches;
    const auto* fields = chunk.field_offsets();
    for (uint32_t f = 0; fields != nullptr && f < fields->size(); ++f) {
      const auto patch =
          CheckFieldOffset(view, targets, *fields->Get(f), chunk_bits, path, f, sink);
      if (patch) patches.push_back(*patch);
    }
    CheckOverlap(view, patches, path, sink);
    CheckConventions(view, chunk, patches, path, sink);
    all.insert(all.end(), patches.begin(), patches.end());
  }
  CheckPairs(view, all, sink);
}

}  // namespace

void ValidateBitstreams(const PackageView& view, DiagnosticSink& sink) {
  for (const ExecutableView& exe : view.executables) CheckChunks(exe, sink);
}

void ValidateParameters(const PackageView& view, DiagnosticSink& sink) {
  constexpr uint64_t kPage = 4096;
  constexpr uint64_t kParameterGranule = 64;
  for (const ExecutableView& exe : view.executables) {
    const auto* parameters = exe.executable->parameters();
    if (parameters == nullptr || parameters->size() == 0) continue;
    const FlatbufferRegion& region = exe.buffer.region;
    // Where the data sits in the package, as the runtime's aligned copy sees it.
    const uint64_t start =
        region.file_offset + region.OffsetOf(parameters->data()) - view.buffer.region.file_offset;
    const Location at =
        region.At(region.OffsetOf(parameters->data()), parameters->size(), "parameters");
    if (start % 8 != 0) {
      sink.Report(
          rules::kParametersAlign, at,
          Str("the parameters start at package offset ", Hex(start), ", not a multiple of 8"));
    } else if (start % kPage != 0) {
      sink.Report(rules::kParametersPageAlign, at,
                  Str("the parameters start at package offset ", Hex(start),
                      ", not a multiple of 4096, so the runtime cannot map them in place"));
    }
    if (parameters->size() % kParameterGranule != 0) {
      sink.Report(rules::kParametersLength, at,
                  Str("the parameters are ", parameters->size(), " bytes, not a multiple of 64"));
    }
  }
}

}  // namespace accelcheck::edgetpu
