// Structure-aware libFuzzer target for NEFF. Its inputs are whole NEFF files;
// the custom mutator reads one into documents (conformance/neff/model.h),
// falling back to a project base (conformance/neff/bases.h) the seed picks
// when it does not read, makes ONE change at one layer, and writes the file
// again with a fresh data_size and hash, so that every mutant gets past the
// digest (docs/formats/neff.md §1.3) and the gzip stream to the layer it
// changed. The layers:
//   - the header: one field to a boundary value (§1.2), or the dialect,
//     compression or hash order switched;
//   - the tar: one byte of one entry's header field or of the end blocks,
//     its checksum rewritten or not (§1.5);
//   - the archive: a member dropped, doubled, renamed or retyped (§1.6);
//   - a JSON member: one value set to a boundary (0, -1, INT64_MAX, 2^64-1,
//     a huge or fractional number, a string, null, a container), shifted by
//     one, or a key dropped, or an array element doubled or swapped (§2);
//   - a DMA descriptor: one dimension of an access pattern (size, step,
//     offset; a dimension added or removed) or a dtype (§2.11 to §2.13);
//   - an engine program: one byte of one 64-byte slot, chosen among the
//     opcode, length, queue name and block id bytes, or the program cut or
//     grown by part of a slot (§3);
//   - any member: libFuzzer's byte mutation of its content.
// The hash check stays on here (this target does not link
// neff_hash_skip.cc): an input whose digest is stale came from outside the
// mutator. Oracles: neff_checks.h.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "conformance/gzip_writer.h"
#include "conformance/neff/bases.h"
#include "conformance/neff/model.h"
#include "conformance/neff/package.h"
#include "fuzz/neff/neff_checks.h"

namespace {

using namespace accelcheck;
namespace nc = accelcheck::neff::conformance;
using nc::Json;
using Buffer = std::vector<uint8_t>;
using Random = std::mt19937_64;

const std::vector<nc::NamedBase>& Bases() {
  static const std::vector<nc::NamedBase> kBases = nc::Bases();
  return kBases;
}

template <typename T, size_t N>
const T& Pick(const T (&items)[N], Random& rng) {
  return items[rng() % N];
}

// --- the header (§1.2) ---

void EditHeader(nc::Neff& neff, Random& rng) {
  // Small values, the v2 feature bits, the trapdoor's lowest bit, bit 63.
  static const uint64_t kU64[] = {
      0, 1, 2, 3, 0xC00, uint64_t{1} << 27, uint64_t{1} << 63, UINT64_MAX,
  };
  static const uint32_t kU32[] = {0, 1, 2, 3, 64, UINT32_MAX};
  nc::Header& h = neff.header;
  switch (rng() % 14) {
    case 0:
      h.pkg_version = Pick(kU64, rng);
      break;
    case 1:
      h.header_size = Pick(kU64, rng);
      break;
    case 2:
      h.neff_version_major = Pick(kU64, rng);
      break;
    case 3:
      h.neff_version_minor = Pick(kU64, rng);
      break;
    case 4:
      h.num_tpb = Pick(kU32, rng);
      break;
    case 5:
      h.requested_tpb_count = Pick(kU32, rng);
      break;
    case 6:
      h.lnc_size = Pick(kU32, rng);
      break;
    case 7:
      h.feature_bits = (rng() & 1) ? Pick(kU64, rng) : h.feature_bits ^ (1ull << rng() % 64);
      break;
    case 8:
      h.tpb_per_node[rng() % h.tpb_per_node.size()] = static_cast<uint8_t>(rng());
      break;
    case 9:
      h.uuid[rng() % h.uuid.size()] = static_cast<uint8_t>(rng());
      break;
    case 10: {  // a name or build version byte: a control byte, no NUL, bad UTF-8
      static const uint8_t kBytes[] = {0, 0x01, 0x7F, 0x80, 0xC3, 0xFF, 'a'};
      const std::span<uint8_t> field =
          (rng() & 1) ? std::span<uint8_t>(h.name) : std::span<uint8_t>(h.build_version);
      field[rng() % 8 == 0 ? field.size() - 1 : rng() % 24] = Pick(kBytes, rng);
      break;
    }
    case 11:
      h.pad[rng() % h.pad.size()] = static_cast<uint8_t>(rng() | 1);
      break;
    case 12:
      neff.compression = neff.compression == nc::Compression::kGzip ? nc::Compression::kNone
                                                                    : nc::Compression::kGzip;
      break;
    case 13:
      if (rng() & 1) {
        static const nc::Dialect kDialects[] = {nc::Dialect::kUstar, nc::Dialect::kGnu,
                                                nc::Dialect::kPax};
        neff.dialect = Pick(kDialects, rng);
      } else {
        neff.hash_order = neff.hash_order == nc::HashOrder::kPlain ? nc::HashOrder::kWordReversed
                                                                   : nc::HashOrder::kPlain;
      }
      break;
  }
}

// --- the tar (§1.5) ---

struct TarByte {
  uint64_t entry = 0;  // an entry's header, or entries.size(): the end blocks
  uint64_t offset = 0;
  uint8_t value = 0;
  bool fix_checksum = false;
};

TarByte EditTar(const nc::Neff& neff, Random& rng) {
  static const nc::TarField kFields[] = {
      nc::tar_field::kName,     nc::tar_field::kMode,     nc::tar_field::kUid,
      nc::tar_field::kGid,      nc::tar_field::kSize,     nc::tar_field::kMtime,
      nc::tar_field::kChecksum, nc::tar_field::kTypeflag, nc::tar_field::kLinkname,
      nc::tar_field::kMagic,    nc::tar_field::kUname,    nc::tar_field::kGname,
      nc::tar_field::kDevmajor, nc::tar_field::kDevminor, nc::tar_field::kPrefix};
  static const uint8_t kValues[] = {0, ' ', '0', '1', '7', '8', '/', '.', 'x', 0x80, 0xFF};
  const nc::TarField field = Pick(kFields, rng);
  TarByte edit;
  edit.entry = rng() % (neff.members.size() + 1);
  edit.offset = edit.entry == neff.members.size() ? rng() % (2 * nc::kTarBlock)
                                                  : field.at + rng() % field.length;
  edit.value = (rng() % 4 == 0) ? static_cast<uint8_t>(rng()) : Pick(kValues, rng);
  edit.fix_checksum = rng() & 1;
  return edit;
}

// --- the archive (§1.6) ---

void EditArchive(nc::Neff& neff, Random& rng) {
  if (neff.members.empty()) return;
  const size_t at = rng() % neff.members.size();
  nc::Member& member = neff.members[at];
  switch (rng() % 7) {
    case 0:
      neff.members.erase(neff.members.begin() + static_cast<ptrdiff_t>(at));
      break;
    case 1:
      neff.members.push_back(neff.members[at]);
      break;
    case 2:
      member.name = "./" + member.name;
      break;
    case 3:
      member.name += (rng() & 1) ? "/" : "x";
      break;
    case 4: {
      static const char kTypes[] = {'5', '2', '1', 'L', 'x', '\0'};
      member.typeflag = Pick(kTypes, rng);
      if (member.typeflag == '2' || member.typeflag == '1') member.linkname = "neff.json";
      break;
    }
    case 5:
      member.name = std::string(90 + rng() % 80, 'a') + "/" + member.name;
      break;
    case 6: {  // a pax record of its own (§1.5, NEFF-57, NEFF-58)
      static const char* const kKeys[] = {"path", "size",       "linkpath",         "mtime",
                                          "uid",  "hdrcharset", "GNU.sparse.major", "comment"};
      static const char* const kValues[] = {
          "",     "0",    "1",         "-1.5", "BINARY",
          "../x", "/abs", "neff.json", "\xff", "18446744073709551616"};
      neff.dialect = nc::Dialect::kPax;
      member.pax.emplace_back(Pick(kKeys, rng), Pick(kValues, rng));
      break;
    }
  }
}

// --- JSON members (§2) ---

void Collect(Json& node, std::vector<Json*>* out) {
  out->push_back(&node);
  if (node.is_object()) {
    for (auto& [key, value] : node.items()) Collect(value, out);
  } else if (node.is_array()) {
    for (Json& value : node) Collect(value, out);
  }
}

Json Boundary(Random& rng) {
  switch (rng() % 16) {
    case 0:
      return 0;
    case 1:
      return -1;
    case 2:
      return 1;
    case 3:
      return std::numeric_limits<int64_t>::max();
    case 4:
      return std::numeric_limits<int64_t>::min();
    case 5:
      return std::numeric_limits<uint64_t>::max();
    case 6:
      return int64_t{1} << 32;
    case 7:
      return int64_t{1} << 18;  // a state-buffer partition step (§2.13)
    case 8:
      return 1e300;
    case 9:
      return 0.5;
    case 10:
      return "";
    case 11:
      return "float32";
    case 12:
      return nullptr;
    case 13:
      return Json::array();
    case 14:
      return Json::object();
    default:
      return std::to_string(rng() % 1000);  // a count as a decimal string (§2.2)
  }
}

void EditValue(Json& node, Random& rng) {
  switch (rng() % 5) {
    case 0:
      node = Boundary(rng);
      break;
    case 1:  // shift by one, wrapping
      if (node.is_number_integer()) {
        node = static_cast<int64_t>(static_cast<uint64_t>(node.get<int64_t>()) +
                                    ((rng() & 1) ? 1 : UINT64_MAX));
      } else {
        node = Boundary(rng);
      }
      break;
    case 2:  // drop a key
      if (node.is_object() && !node.empty()) {
        auto it = node.begin();
        std::advance(it, static_cast<long>(rng() % node.size()));
        node.erase(it);
      }
      break;
    case 3:  // double an element
      if (node.is_array() && !node.empty()) node.push_back(node[rng() % node.size()]);
      break;
    case 4:  // swap two elements
      if (node.is_array() && node.size() > 1)
        std::swap(node[rng() % node.size()], node[rng() % node.size()]);
      break;
  }
}

std::vector<Json*> JsonMembers(nc::Neff& neff) {
  std::vector<Json*> docs;
  for (nc::Member& member : neff.members) {
    if (member.name.ends_with(".json")) nc::ParseAsJson(member);
    if (Json* doc = std::get_if<Json>(&member.content)) docs.push_back(doc);
  }
  return docs;
}

void EditJson(nc::Neff& neff, Random& rng) {
  const std::vector<Json*> docs = JsonMembers(neff);
  if (docs.empty()) return;
  std::vector<Json*> nodes;
  Collect(*docs[rng() % docs.size()], &nodes);
  EditValue(*nodes[rng() % nodes.size()], rng);
}

// --- DMA descriptors (§2.11 to §2.13) ---

void EditDescriptor(nc::Neff& neff, Random& rng) {
  std::vector<Json*> descriptors;
  for (Json* doc : JsonMembers(neff)) {
    if (!doc->is_object() || !doc->contains("dma") || !(*doc)["dma"].is_array()) continue;
    for (Json& block : (*doc)["dma"]) {
      if (!block.is_object() || !block.contains("desc") || !block["desc"].is_array()) continue;
      for (Json& desc : block["desc"]) {
        if (desc.is_object()) descriptors.push_back(&desc);
      }
    }
  }
  if (descriptors.empty()) return EditJson(neff, rng);
  Json& desc = *descriptors[rng() % descriptors.size()];
  const std::string side = (rng() & 1) ? "from" : "to";
  static const char* const kDtypes[] = {"float8e3", "float8e5", "float16", "bfloat16", "float32",
                                        "float32r", "int8",     "uint16",  "int64",    "float64"};
  static const int64_t kDims[] = {0,
                                  1,
                                  2,
                                  3,
                                  127,
                                  128,
                                  4096,
                                  int64_t{1} << 18,
                                  int64_t{1} << 25,
                                  int64_t{1} << 32,
                                  -1,
                                  std::numeric_limits<int64_t>::max()};
  switch (rng() % 5) {
    case 0:
    case 1: {  // one element of sizes or steps
      Json& list = desc[side + ((rng() & 1) ? "_sizes" : "_steps")];
      if (!list.is_array() || list.empty()) return;
      list[rng() % list.size()] = Pick(kDims, rng);
      break;
    }
    case 2: {  // a dimension added or removed, on one list or both
      const bool both = rng() & 1;
      const bool add = rng() & 1;
      for (const char* key : {"_sizes", "_steps"}) {
        Json& list = desc[side + key];
        if (!list.is_array()) continue;
        if (add) {
          list.push_back(Pick(kDims, rng));
        } else if (!list.empty()) {
          list.erase(list.size() - 1);
        }
        if (!both) break;
      }
      break;
    }
    case 3:
      desc[side + "_off"] = Pick(kDims, rng);
      break;
    case 4:
      desc[side + "_dtype"] = Pick(kDtypes, rng);
      break;
  }
}

// --- engine programs (§3) ---

void EditProgram(nc::Neff& neff, Random& rng) {
  std::vector<Buffer*> programs;
  for (nc::Member& member : neff.members) {
    auto* bytes = std::get_if<Buffer>(&member.content);
    if (bytes && member.name.ends_with(".bin") && !bytes->empty()) programs.push_back(bytes);
  }
  if (programs.empty()) return;
  Buffer& program = *programs[rng() % programs.size()];
  const size_t slot = (rng() % program.size()) / 64 * 64;
  static const size_t kOffsets[] = {0, 1, 2, 0x0C, 0x0D, 0x2B, 0x2C, 0x30, 0x33, 0x3F};
  static const uint8_t kValues[] = {0, 1, 0x10, 0x0F, 0xA0, 0xB1, 0xC1, 0xCC, 0x7F, 0xFF};
  switch (rng() % 4) {
    case 0:
    case 1: {
      const size_t at = slot + ((rng() & 1) ? Pick(kOffsets, rng) : rng() % 64);
      if (at < program.size()) program[at] = Pick(kValues, rng);
      break;
    }
    case 2:
      program.resize(program.size() - 1 - rng() % std::min<size_t>(program.size(), 63));
      break;
    case 3: {  // a slot repeated, or a part of one appended
      const size_t end = std::min(program.size(), slot + 64);
      Buffer copy(program.begin() + static_cast<ptrdiff_t>(slot),
                  program.begin() + static_cast<ptrdiff_t>(end));
      if (rng() & 1) copy.resize(1 + rng() % copy.size());
      program.insert(program.end(), copy.begin(), copy.end());
      break;
    }
  }
}

// --- any member's bytes ---

void EditBytes(nc::Neff& neff, Random& rng) {
  if (neff.members.empty()) return;
  nc::Member& member = neff.members[rng() % neff.members.size()];
  Buffer bytes = nc::Bytes(member);
  if (bytes.empty()) bytes.push_back(0);
  const size_t size = bytes.size();
  bytes.resize(size + 64 + size / 8);
  bytes.resize(LLVMFuzzerMutate(bytes.data(), size, bytes.size()));
  member.content = std::move(bytes);
}

// The file of `neff` with `patch` applied to its tar, its data_size and hash
// those of its payload.
Buffer Repack(const nc::Neff& neff, const std::optional<TarByte>& patch) {
  nc::Package package = nc::ToPackage(neff);
  package.header.data_size.reset();
  package.header.hash.reset();
  nc::WrittenTar tar = nc::WriteTar(package.entries, package.dialect);
  if (patch) {
    const uint64_t header = patch->entry < tar.headers.size()
                                ? tar.headers[patch->entry]
                                : tar.bytes.size() - std::min<uint64_t>(tar.bytes.size(), 1024);
    const uint64_t at = header + patch->offset;
    if (at < tar.bytes.size()) {
      tar.bytes[at] = patch->value;
      if (patch->fix_checksum && patch->entry < tar.headers.size()) {
        nc::RewriteTarChecksum(tar.bytes, header);
      }
    }
  }
  Buffer payload = package.compression == nc::Compression::kGzip
                       ? accelcheck::conformance::Gzip(tar.bytes)
                       : tar.bytes;
  payload.resize((payload.size() + nc::kPadBlock - 1) / nc::kPadBlock * nc::kPadBlock, 0);
  return nc::Seal(package.header, payload, package.hash_order);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::CheckNeff(ByteView(data, size));
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Random rng(seed);
  std::string error;
  std::optional<nc::Neff> read = nc::Read(ByteView(data, size), &error);
  nc::Neff neff = read ? std::move(*read) : Bases()[rng() % Bases().size()].neff;
  std::optional<TarByte> patch;
  switch (rng() % 8) {
    case 0:
      EditHeader(neff, rng);
      break;
    case 1:
      patch = EditTar(neff, rng);
      break;
    case 2:
      EditArchive(neff, rng);
      break;
    case 3:
      EditJson(neff, rng);
      break;
    case 4:
    case 5:
      EditDescriptor(neff, rng);
      break;
    case 6:
      EditProgram(neff, rng);
      break;
    case 7:
      EditBytes(neff, rng);
      break;
  }
  const Buffer file = Repack(neff, patch);
  if (file.size() > max_size) return size <= max_size ? size : 0;
  std::memcpy(data, file.data(), file.size());
  return file.size();
}
