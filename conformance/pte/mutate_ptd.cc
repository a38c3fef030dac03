// One small function per pte.ptd.* rule (docs/formats/pte.md §1.4, §4 PTE-64). Like the
// program mutations, most add a named_data entry or a segment with the defect
// rather than damage an existing one, so that the entries a program refers to
// stay intact; header rules patch the serialized bytes.
#include "conformance/pte/mutate_ptd.h"

#include <algorithm>
#include <functional>

#include "conformance/pte/read.h"
#include "conformance/pte/serialize.h"
#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/pte/rules.h"

namespace accelcheck::pte {

namespace {

using namespace model;
using Bytes = std::vector<uint8_t>;

struct Ctx {
  PtdFile file;
  uint64_t seed = 0;
  std::string error;
  std::string path;
  // Set by the mutation that writes the layout before 2025-06 instead.
  std::optional<OldPtdFile> old_layout;
  std::function<void(Bytes&)> patch;
};

bool Decline(Ctx& c, std::string why) {
  c.error = std::move(why);
  return false;
}

// FH01 header fields (docs/formats/pte.md §1.4).
constexpr uint64_t kHeaderLengthAt = 12;
constexpr uint64_t kFlatbufferOffsetAt = 16;
constexpr uint64_t kFlatbufferSizeAt = 24;

uint64_t Get64(const Bytes& b, uint64_t at) { return ReadLE<uint64_t>(b, at).value_or(0); }

void Put(Bytes& b, uint64_t at, uint64_t value, int width) {
  for (int i = 0; i < width; ++i)
    b[at + static_cast<uint64_t>(i)] = static_cast<uint8_t>(value >> (8 * i));
}

Vec<PtdNamedData>& Named(Ctx& c) { return *c.file.named_data; }
Vec<DataSegment>& Segments(Ctx& c) { return *c.file.segments; }

bool KeyTaken(const Ctx& c, const std::string& key) {
  return std::any_of(c.file.named_data->begin(), c.file.named_data->end(),
                     [&](const PtdNamedData& n) { return n.key && *n.key == key; });
}

// A key no entry has yet, so that a new entry breaks nothing but its rule.
std::string NewKey(const Ctx& c, const std::string& stem) {
  std::string key = "conformance." + stem;
  for (int n = 1; KeyTaken(c, key); ++n) key = Str("conformance.", stem, ".", n);
  return key;
}

// Appends `entry` and returns its path.
std::string AddEntry(Ctx& c, PtdNamedData entry) {
  Named(c).push_back(std::move(entry));
  return Str("named_data[", Named(c).size() - 1, "]");
}

bool NeedSegment(Ctx& c) {
  if (Segments(c).empty()) return Decline(c, "the .ptd has no segment for a new entry to name");
  return true;
}

// PTE-64: the FH01 magic is wrong, or the header is shorter than 40 bytes.
bool Header(Ctx& c) {
  c.path = "header";
  if (c.seed % 2 == 0) {
    c.patch = [](Bytes& b) { b[8] = 'X'; };
  } else {
    c.patch = [](Bytes& b) { Put(b, kHeaderLengthAt, 32, 4); };
  }
  return true;
}

// PTE-64: the flatbuffer body starts 8 bytes after the header's padded end;
// the region it ends at stays the same, so the flatbuffer still reads.
bool FlatbufferOffset(Ctx& c) {
  c.path = "header.flatbuffer_offset";
  c.patch = [](Bytes& b) {
    Put(b, kFlatbufferOffsetAt, Get64(b, kFlatbufferOffsetAt) + 8, 8);
    Put(b, kFlatbufferSizeAt, Get64(b, kFlatbufferSizeAt) - 8, 8);
  };
  return true;
}

// PTE-64: bytes after segment_base_offset + segment_data_size.
bool TrailingBytes(Ctx& c) {
  c.path = "";
  c.patch = [](Bytes& b) { b.resize(b.size() + 16, 0); };
  return true;
}

// docs/formats/pte.md §1.4: the same named data in the layout before 2025-06, one
// TensorMetadata per entry.
bool OldLayout(Ctx& c) {
  OldPtdFile old;
  old.segments = c.file.segments;
  old.segment_bytes = c.file.segment_bytes;
  for (const PtdNamedData& n : Named(c)) {
    OldTensorMetadata t;
    t.fully_qualified_name = n.key;
    t.segment_index = static_cast<int32_t>(n.segment_index);
    if (n.tensor_layout) {
      t.scalar_type = n.tensor_layout->scalar_type;
      t.sizes = n.tensor_layout->sizes;
      t.dim_order = n.tensor_layout->dim_order;
    }
    old.tensors->push_back(std::move(t));
  }
  c.old_layout = std::move(old);
  c.path = "";
  return true;
}

// PTE-64: the root table's vtable offset points far outside the buffer.
bool Verify(Ctx& c) {
  c.path = "";
  c.patch = [](Bytes& b) { Put(b, ReadLE<uint32_t>(b, 0).value_or(0), 0x7fffffff, 4); };
  return true;
}

// PTE-64: segments or named_data is absent.
bool FieldMissing(Ctx& c) {
  if (c.seed % 2 == 0) {
    c.file.named_data.reset();
    c.path = "named_data";
  } else {
    c.file.segments.reset();
    c.path = "segments";
  }
  return true;
}

// PTE-64: a new entry whose key is empty, absent, or repeats an existing key.
bool Key(Ctx& c) {
  if (!NeedSegment(c)) return false;
  PtdNamedData entry;
  switch (c.seed % 3) {
    case 0:
      entry.key = std::string();
      break;
    case 1:
      entry.key = std::nullopt;
      break;
    default: {
      const auto named = std::find_if(Named(c).begin(), Named(c).end(), [](const PtdNamedData& n) {
        return n.key && !n.key->empty();
      });
      if (named == Named(c).end()) return Decline(c, "no entry has a key to repeat");
      entry.key = named->key;
    }
  }
  c.path = AddEntry(c, std::move(entry)) + ".key";
  return true;
}

// PTE-64: a new entry names the segment after the last one.
bool SegmentIndex(Ctx& c) {
  PtdNamedData entry;
  entry.key = NewKey(c, "segment_index");
  entry.segment_index = static_cast<uint32_t>(Segments(c).size());
  c.path = AddEntry(c, std::move(entry)) + ".segment_index";
  return true;
}

// PTE-64: a new 16-byte segment declared at the end of the data, with no bytes
// written for it, so it runs past segment_data_size.
bool SegmentBounds(Ctx& c) {
  uint64_t end = 0;
  for (size_t i = 0; i < Segments(c).size(); ++i) {
    const uint64_t size = i < c.file.segment_bytes.size() ? c.file.segment_bytes[i].size() : 0;
    end = std::max(end, Segments(c)[i].offset + size);
  }
  c.file.segment_bytes.resize(Segments(c).size());
  Segments(c).push_back(DataSegment{AlignUp(end, 16), 16});
  c.file.segment_bytes.emplace_back();
  c.path = Str("segments[", Segments(c).size() - 1, "]");
  return true;
}

// PTE-64 validateTensorLayout: an undeclared scalar type, a negative size, or a
// dim_order that is not a permutation, on a new entry over segment 0.
bool Layout(Ctx& c) {
  if (!NeedSegment(c)) return false;
  model::TensorLayout layout{kByte, Vec<int32_t>{1}, Vec<uint8_t>{0}};
  switch (c.seed % 3) {
    case 0:
      layout.scalar_type = 9;
      break;  // COMPLEXFLOAT: not declared by the schema
    case 1:
      layout.sizes = Vec<int32_t>{-1};
      break;
    default:
      layout.dim_order = Vec<uint8_t>{1};
      break;
  }
  c.path = AddEntry(c, PtdNamedData{NewKey(c, "layout"), 0, std::move(layout)}) + ".tensor_layout";
  return true;
}

// PTE-64: a new entry whose BYTE layout is one byte longer than segment 0.
bool LayoutSize(Ctx& c) {
  if (!NeedSegment(c)) return false;
  const uint64_t size = Segments(c)[0].size;
  if (size >= 0x7fffffff)
    return Decline(c, "segment 0 is too large for an int32 size to exceed it");
  model::TensorLayout layout{kByte, Vec<int32_t>{static_cast<int32_t>(size + 1)}, Vec<uint8_t>{0}};
  c.path =
      AddEntry(c, PtdNamedData{NewKey(c, "layout_size"), 0, std::move(layout)}) + ".tensor_layout";
  return true;
}

struct Mutation {
  const Rule* rule;
  bool (*apply)(Ctx&);
};

const std::vector<Mutation>& Mutations() {
  using namespace rules;
  static const std::vector<Mutation> kMutations = {
      {&kPtdHeader, Header},
      {&kPtdFlatbufferOffset, FlatbufferOffset},
      {&kPtdTrailingBytes, TrailingBytes},
      {&kPtdOldLayout, OldLayout},
      {&kPtdVerify, Verify},
      {&kPtdFieldMissing, FieldMissing},
      {&kPtdKey, Key},
      {&kPtdSegmentIndex, SegmentIndex},
      {&kPtdSegmentBounds, SegmentBounds},
      {&kPtdLayout, Layout},
      {&kPtdLayoutSize, LayoutSize},
  };
  return kMutations;
}

}  // namespace

bool IsPtdFile(ByteView bytes) { return HasBytesAt(bytes, 4, "FT01"); }

std::vector<const Rule*> PtdMutationRules() {
  std::vector<const Rule*> out;
  for (const Mutation& m : Mutations()) out.push_back(m.rule);
  return out;
}

conformance::OrDeclined<ByteMutation> MutatePtd(ByteView valid, const Rule& rule, uint64_t seed) {
  using conformance::Declined;
  const auto it = std::find_if(Mutations().begin(), Mutations().end(),
                               [&](const Mutation& m) { return m.rule->id == rule.id; });
  if (it == Mutations().end()) return Declined{Str("no .ptd mutation breaks ", rule.id)};
  std::string read_error;
  std::optional<PtdFile> file = ReadPtdFile(valid, &read_error);
  if (!file) return Declined{"the input does not decode: " + read_error};
  if (!file->segments || !file->named_data)
    return Declined{"the input is not a valid .ptd: segments or named_data is missing"};
  Ctx c;
  c.file = std::move(*file);
  c.seed = seed;
  if (!it->apply(c)) return Declined{Str("cannot break ", rule.id, " in this input: ", c.error)};
  Bytes bytes = c.old_layout ? SerializeOldPtd(*c.old_layout) : SerializePtd(c.file);
  if (c.patch) c.patch(bytes);
  return ByteMutation{std::move(bytes), c.path};
}

}  // namespace accelcheck::pte
