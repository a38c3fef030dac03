// The container checks: header (§1.2), hash (§1.3), payload (§1.4) and
// archive (§1.5, §1.6).
#include "validators/neff/container.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <future>

#include "validators/core/beside.h"
#include "validators/core/core_rules.h"
#include "validators/core/digest.h"
#include "validators/core/gzip.h"
#include "validators/core/report.h"
#include "validators/core/text.h"
#include "validators/neff/fuzz_switch.h"
#include "validators/neff/rules.h"

namespace accelcheck::neff {

namespace {

using namespace rules;

// NEFF-6: the bits a NEFF 2 may not set, and the ones real compilers set:
// 10 and 11 (neuronx-cc 2.21), also 12, 15 and 21 (2.23).
constexpr uint64_t kFeatureTrapdoorMask = 0x7FFFFFFFF8000000ull;
constexpr uint64_t kKnownFeatureBits = 0x209C00;

uint64_t U64(ByteView file, const HeaderField& f) { return *ReadLE<uint64_t>(file, f.offset); }
uint32_t U32(ByteView file, const HeaderField& f) { return *ReadLE<uint32_t>(file, f.offset); }
ByteView Bytes(ByteView file, const HeaderField& f) { return file.subspan(f.offset, f.length); }

bool AllZero(ByteView bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

// The byte at which a NUL-terminated array stops being what NEFF-8 asks for
// (a NUL inside, printable UTF-8 before it, zeros after it), or nothing.
std::optional<std::string> HeaderStringProblem(ByteView field) {
  const auto nul = std::find(field.begin(), field.end(), uint8_t{0});
  if (nul == field.end()) return "has no NUL within its bytes";
  const auto text_end = static_cast<uint64_t>(nul - field.begin());
  for (uint64_t i = 0; i < text_end; ++i) {
    if (field[i] < 0x20 || field[i] == 0x7F) return Str("holds the control byte ", Hex(field[i]));
  }
  const std::string_view text(reinterpret_cast<const char*>(field.data()), text_end);
  if (ValidUtf8(text) != text) return "is not valid UTF-8";
  if (!AllZero(field.subspan(text_end))) return "has bytes other than zero after its NUL";
  return std::nullopt;
}

void CheckHeaderFields(const Header& h, uint64_t file_size, DiagnosticSink& sink) {
  if (h.header_size != kHeaderBytes) {
    sink.Report(kHeaderSize, At(fields::kHeaderSize),
                Str("header_size is ", h.header_size, ", not ", kHeaderBytes));
  }
  if (h.pkg_version != 1 && h.pkg_version != 2) {
    sink.Report(kPkgVersion, At(fields::kPkgVersion),
                Str("pkg_version is ", h.pkg_version, "; the runtime loads 1 and 2"));
  }
  const uint64_t room = file_size - kHeaderBytes;
  if (h.data_size == 0 || h.data_size > room) {
    sink.Report(
        kDataSize, At(fields::kDataSize),
        Str("data_size is ", h.data_size, "; the file has ", room, " bytes after its header"));
  } else if (h.data_size < room) {
    sink.Report(kTrailingBytes, LocationAt(kHeaderBytes + h.data_size, "payload"),
                Str(room - h.data_size, " bytes follow the ", h.data_size, " bytes of payload"));
  }
  if (h.major > 2) {
    sink.Report(kVersion, At(fields::kMajor),
                Str("NEFF version ", h.major, ".", h.minor,
                    " is newer than 2, the newest the runtime loads"));
  }
  const uint64_t trapdoor = h.feature_bits & kFeatureTrapdoorMask;
  const uint64_t unusual = h.major < 2 ? h.feature_bits : h.feature_bits & ~kKnownFeatureBits;
  if (h.major == 2 && trapdoor != 0) {
    sink.Report(kFeatureTrapdoor, At(fields::kFeatureBits),
                Str("feature_bits ", Hex(h.feature_bits), " sets ", Hex(trapdoor),
                    ", inside the mask 0x7ffffffff8000000 the runtime refuses"));
  } else if (unusual != 0) {
    sink.Report(kFeatureBits, At(fields::kFeatureBits),
                Str("feature_bits ", Hex(h.feature_bits), " sets ", Hex(unusual),
                    h.major < 2 ? " in a NEFF below version 2, which has no feature bits"
                                : "; real compilers set only bits 10, 11, 12, 15 and 21"));
  }
  for (const auto& [field, bytes] :
       {std::pair{fields::kBuildVersion, h.build_version}, std::pair{fields::kName, h.name}}) {
    if (const auto problem = HeaderStringProblem(bytes)) {
      sink.Report(kHeaderString, At(field), Str(field.path.substr(7), " ", *problem));
    }
  }
  if (h.num_tpb == 0 || h.requested_tpb_count == 0) {
    const HeaderField& field = h.num_tpb == 0 ? fields::kNumTpb : fields::kRequestedTpb;
    sink.Report(kTpb, At(field), Str(field.path.substr(7), " is 0; a NEFF needs a TPB"));
  }
  if (!AllZero(h.pad)) {
    const auto at = static_cast<uint64_t>(
        std::find_if(h.pad.begin(), h.pad.end(), [](uint8_t b) { return b != 0; }) - h.pad.begin());
    sink.Report(kHeaderPadding, LocationAt(fields::kPad.offset + at, "header.pad"),
                Str("the padding holds ", Hex(h.pad[at]), " at ", Hex(fields::kPad.offset + at)));
  }
  if (AllZero(h.uuid)) {
    sink.Report(kUuid, At(fields::kUuid), "the uuid is all zero");
  } else if ((h.uuid[6] >> 4) != 4 || (h.uuid[8] >> 6) != 2) {
    sink.Report(kUuid, At(fields::kUuid),
                Str("the uuid is not an RFC 4122 version 4 UUID (version nibble ", h.uuid[6] >> 4,
                    ", variant bits ", h.uuid[8] >> 6, ")"));
  }
}

// The digest with each 32-bit word byte-reversed, as later compilers store it (§1.3).
template <size_t N>
std::array<uint8_t, N> WordReversed(const std::array<uint8_t, N>& digest) {
  std::array<uint8_t, N> out = digest;
  for (size_t i = 0; i < N; i += 4) std::reverse(out.begin() + i, out.begin() + i + 4);
  return out;
}

template <size_t N>
bool Matches(ByteView stored, const std::array<uint8_t, N>& digest) {
  return std::equal(digest.begin(), digest.end(), stored.begin());
}

// NEFF-7: the digest of the payload as stored, in either byte order.
void CheckHash(const Header& h, ByteView payload, DiagnosticSink& sink) {
  // Nothing about the digest in the raw-bytes fuzz target alone: its mutants
  // keep their seed's stale hash, and would stop here (§1.3, fuzz_switch.h).
  if (SkipsHashForFuzzing()) return;
  if (h.pkg_version != 1 && h.pkg_version != 2) return;  // no digest is defined
  const bool md5 = h.pkg_version == 2;
  const std::string_view kind = md5 ? "MD5" : "SHA-256";
  bool plain = false;
  bool reversed = false;
  std::string computed;
  if (md5) {
    const digest::Md5 digest = digest::ComputeMd5(payload);
    plain = Matches(h.hash, digest);
    reversed = Matches(h.hash, WordReversed(digest));
    computed = digest::HexOf(digest);
  } else {
    const digest::Sha256 digest = digest::ComputeSha256(payload);
    plain = Matches(h.hash, digest);
    reversed = Matches(h.hash, WordReversed(digest));
    computed = digest::HexOf(digest);
  }
  const ByteView stored = h.hash.first(md5 ? 16 : 32);
  if (!plain && !reversed) {
    sink.Report(kHashMismatch, Location{fields::kHash.offset, stored.size(), "header.hash"},
                Str("the header's hash ", digest::HexOf(stored), " is not the ", kind, " ",
                    computed, " of the ", payload.size(),
                    " payload bytes in either byte order (the payload changed after packaging)"));
    return;
  }
  sink.Report(kHashOrder, Location{fields::kHash.offset, stored.size(), "header.hash"},
              Str("the payload's ", kind, " ", computed, " is stored ",
                  plain ? "in plain byte order" : "with each 32-bit word byte-reversed",
                  plain ? ", as neuronx-cc 2.0 stores it" : ", as later compilers store it"));
  if (md5) {
    const ByteView tail = h.hash.subspan(16);
    const bool zeros = AllZero(tail);
    const bool digits = std::all_of(tail.begin(), tail.end(), [](uint8_t b) { return b == '0'; });
    if (!zeros && !digits) {
      sink.Report(kHashTail, Location{fields::kHash.offset + 16, 16, "header.hash"},
                  "hash bytes 16 to 31 after the MD5 are neither all zero nor all ASCII '0'");
    }
  }
}

// The gzip member of a payload, or why not; a pure function of the bytes,
// so that it may run beside the hashing.
struct Inflated {
  std::optional<gzip::Member> member;
  gzip::Error error;
};

// From this size on, a payload inflates on a second thread while this one
// hashes it: a thread costs less than the hash then (bench/README.md
// "NEFF"). A third follows with the CRC-32 from gzip::kCrcBesideBytes on.
constexpr uint64_t kConcurrentInflateBytes = uint64_t{128} << 10;

// `consumed` is told how much of the payload zlib has read.
Inflated InflatePayload(ByteView payload, const Limits& limits,
                        std::function<void(uint64_t)> consumed) {
  Inflated out;
  out.member = gzip::Inflate(
      payload,
      {.max_inflated = limits.max_inflated_bytes, .max_ratio = limits.max_compression_ratio},
      &out.error, {.crc = gzip::CrcFor(payload), .consumed = std::move(consumed)});
  return out;
}

// NEFF-15: the gzip member inflated under the limits, then zeros to the end.
std::optional<std::vector<uint8_t>> Inflate(Inflated inflated, ByteView payload,
                                            DiagnosticSink& sink) {
  std::optional<gzip::Member>& member = inflated.member;
  const gzip::Error& error = inflated.error;
  if (!member) {
    const Rule& rule = error.problem == gzip::Problem::kTooLarge ? core_rules::kLimitInflatedBytes
                       : error.problem == gzip::Problem::kRatio ? core_rules::kLimitCompressionRatio
                                                                : kGzip;
    sink.Report(rule, LocationAt(kHeaderBytes + error.offset, "payload"), error.message);
    return std::nullopt;
  }
  const ByteView rest = payload.subspan(member->end);
  const auto nonzero = std::find_if(rest.begin(), rest.end(), [](uint8_t b) { return b != 0; });
  if (nonzero != rest.end()) {
    const uint64_t at = kHeaderBytes + member->end + static_cast<uint64_t>(nonzero - rest.begin());
    sink.Report(kPayloadPadding, LocationAt(at, "payload"),
                Str("the gzip member ends at ", Hex(kHeaderBytes + member->end), " but byte ",
                    Hex(at), " after it is ", Hex(*nonzero),
                    gzip::HasMagic(rest.subspan(static_cast<uint64_t>(nonzero - rest.begin())))
                        ? " (a second gzip member, which the archive reader would not read)"
                        : ", not zero padding"));
  }
  return std::move(member->data);
}

const Rule& RuleOf(tar::Problem problem) {
  switch (problem) {
    case tar::Problem::kTruncated:
      return kTarTruncated;
    case tar::Problem::kChecksum:
      return kTarChecksum;
    case tar::Problem::kMagic:
      return kTarMagic;
    case tar::Problem::kField:
      return kTarField;
    case tar::Problem::kType:
      return kTarEntryType;
    case tar::Problem::kName:
      return kTarName;
    case tar::Problem::kDuplicate:
      return kTarDuplicate;
    case tar::Problem::kEnd:
      return kTarEnd;
    case tar::Problem::kMemberCount:
      return core_rules::kLimitMembers;
    case tar::Problem::kMemberSize:
      return core_rules::kLimitMemberSize;
    case tar::Problem::kPax:
      return kTarPax;
    case tar::Problem::kPaxSize:
      return kTarPaxSize;
  }
  return kTarTruncated;
}

// §1.6: the loader drops the members of this name when it reads the archive.
bool IsIgnored(std::string_view name) { return name.ends_with("wavegraph-bin.json"); }

void ListFiles(Container& c, DiagnosticSink& sink) {
  for (const tar::Member& m : c.archive.members) {
    if (m.type != tar::Type::kFile) continue;
    if (IsIgnored(m.name)) {
      sink.Report(kMemberIgnored, InMember(kArchiveMember, m.header, m.name),
                  Str(Quoted(m.name), " is dropped by the runtime when it reads the archive"));
      continue;
    }
    c.files[m.name] = &m;  // the last of a name, as the loader keeps it
  }
}

}  // namespace

Location At(const HeaderField& field) {
  return Location{field.offset, field.length, std::string(field.path)};
}

Location InMember(std::string_view member, uint64_t offset, std::string path) {
  return Location{offset, std::nullopt, std::move(path), std::string(member)};
}

Header ReadHeader(ByteView file) {
  return Header{.pkg_version = U64(file, fields::kPkgVersion),
                .header_size = U64(file, fields::kHeaderSize),
                .data_size = U64(file, fields::kDataSize),
                .major = U64(file, fields::kMajor),
                .minor = U64(file, fields::kMinor),
                .build_version = Bytes(file, fields::kBuildVersion),
                .num_tpb = U32(file, fields::kNumTpb),
                .hash = Bytes(file, fields::kHash),
                .uuid = Bytes(file, fields::kUuid),
                .name = Bytes(file, fields::kName),
                .requested_tpb_count = U32(file, fields::kRequestedTpb),
                .tpb_per_node = Bytes(file, fields::kTpbPerNode),
                .feature_bits = U64(file, fields::kFeatureBits),
                .lnc_size = U32(file, fields::kLncSize),
                .pad = Bytes(file, fields::kPad)};
}

std::string_view HeaderText(ByteView field) {
  const auto nul = std::find(field.begin(), field.end(), uint8_t{0});
  return {reinterpret_cast<const char*>(field.data()), static_cast<size_t>(nul - field.begin())};
}

// §1.1: a payload of either kind where a 1024-byte header ends.
bool PayloadFollowsHeader(ByteView file) {
  if (file.size() <= kHeaderBytes) return false;
  const ByteView payload = file.subspan(kHeaderBytes);
  return gzip::HasMagic(payload) || tar::HasMagic(payload);
}

// §1.1: the header's first fields as a writer sets them, whatever follows:
// what remains of a NEFF cut inside its header.
bool HeaderBegins(ByteView file) {
  const std::optional<uint64_t> pkg_version = ReadLE<uint64_t>(file, fields::kPkgVersion.offset);
  const std::optional<uint64_t> header_size = ReadLE<uint64_t>(file, fields::kHeaderSize.offset);
  return pkg_version && header_size && *header_size == kHeaderBytes &&
         (*pkg_version == 1 || *pkg_version == 2);
}

bool LooksLikeNeff(ByteView file) { return PayloadFollowsHeader(file) || HeaderBegins(file); }

std::optional<Container> ReadContainer(const InputBuffer& input, const ValidateContext& context,
                                       DiagnosticSink& sink) {
  const ByteView file = input.bytes();
  if (file.size() <= kHeaderBytes) {
    sink.Report(kHeaderTruncated, LocationAt(0, "header"),
                Str("the file is ", file.size(), " bytes; a NEFF is a ", kHeaderBytes,
                    "-byte header and a payload"));
    return std::nullopt;
  }
  Container c;
  c.header = ReadHeader(file);
  CheckHeaderFields(c.header, file.size(), sink);
  if (sink.Has(kDataSize)) return std::nullopt;
  const ByteView payload = file.subspan(kHeaderBytes, c.header.data_size);
  const bool compressed = gzip::HasMagic(payload);
  // The inflating and the hashing only read the payload; the findings are
  // reported in the same order either way.
  // Once the payload is hashed, the pages zlib has read can go, so that the
  // peak holds the archive and little of the file.
  std::atomic<bool> hashed = false;
  const auto release = [&input, &hashed](uint64_t consumed) {
    if (hashed.load(std::memory_order_acquire)) input.ReleaseBefore(kHeaderBytes + consumed);
  };
  std::future<Inflated> inflating;
  if (compressed) {
    inflating = StartBeside(payload.size() >= kConcurrentInflateBytes,
                            [payload, &limits = context.limits, release] {
                              return InflatePayload(payload, limits, release);
                            });
  }
  CheckHash(c.header, payload, sink);
  hashed.store(true, std::memory_order_release);
  if (compressed) {
    std::optional<std::vector<uint8_t>> tar = Inflate(inflating.get(), payload, sink);
    if (!tar) return std::nullopt;
    c.compressed = true;
    c.inflated = std::move(*tar);
    c.tar = c.inflated;
    // The stored payload is hashed and inflated: a mapped file's pages can
    // go, so that the archive's checks hold the archive, not the file too.
    // The header's fields, read again later, fault their page back in.
    input.ReleaseBefore(input.size());
  } else if (tar::HasMagic(payload)) {
    c.tar = payload;
  } else {
    sink.Report(kPayloadKind, LocationAt(kHeaderBytes, "payload"),
                "the payload starts with neither the gzip magic 1f 8b 08 nor a tar header");
    return std::nullopt;
  }
  const uint64_t before = sink.blocking_count();
  c.archive = tar::Read(c.tar, {.max_members = context.limits.max_members,
                                .max_member_size = context.limits.max_member_size});
  for (const tar::Finding& f : c.archive.findings) {
    sink.Report(RuleOf(f.problem), InMember(kArchiveMember, f.offset, f.member), f.message);
  }
  if (sink.blocking_count() != before) return std::nullopt;
  ListFiles(c, sink);
  return c;
}

}  // namespace accelcheck::neff
