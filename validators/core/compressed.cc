#include "validators/core/compressed.h"

#include <vector>

#include "validators/core/core_rules.h"
#include "validators/core/format.h"
#include "validators/core/gzip.h"
#include "validators/core/text.h"

namespace accelcheck {

namespace {

void ReportStreamError(const gzip::Error& error, uint64_t member_start, const Limits& limits,
                       DiagnosticSink& sink) {
  const uint64_t at = member_start + error.offset;
  switch (error.problem) {
    case gzip::Problem::kTooLarge:
      sink.Report(core_rules::kLimitInflatedBytes, Location{at, std::nullopt, ""},
                  Str("the gzip stream inflates to more than --max-inflated-bytes ",
                      limits.max_inflated_bytes, " bytes"));
      return;
    case gzip::Problem::kRatio:
      sink.Report(core_rules::kLimitCompressionRatio, Location{at, std::nullopt, ""},
                  Str("the gzip stream inflates to more than --max-compression-ratio ",
                      limits.max_compression_ratio, " times its size"));
      return;
    default:
      sink.Report(core_rules::kGzipStream, Location{at, std::nullopt, ""},
                  Str("the gzip member at ", Hex(member_start), ": ", error.message));
  }
}

}  // namespace

// The two identification bytes alone: a gzip header of another compression
// method is reported as a stream that does not inflate.
bool IsCompressed(ByteView file) { return HasBytesAt(file, 0, "\x1f\x8b"); }

namespace {

struct Inflated {
  std::vector<uint8_t> bytes;
  uint64_t members = 0;
};

// Every member of the gzip stream `file`, inflated one after the other.
std::optional<Inflated> InflateMembers(const InputBuffer& file, const Limits& limits,
                                       DiagnosticSink& sink) {
  const ByteView bytes = file.bytes();
  // The inflated bytes may reach `cap` in all: the limit, and the ratio
  // over the whole file.
  const uint64_t ratio_cap =
      limits.max_compression_ratio != 0 && bytes.size() > UINT64_MAX / limits.max_compression_ratio
          ? UINT64_MAX
          : bytes.size() * limits.max_compression_ratio;
  Inflated inflated;
  uint64_t start = 0;
  while (start < bytes.size()) {
    const ByteView rest = bytes.subspan(start);
    if (inflated.members != 0 && !IsCompressed(rest)) {
      sink.Report(core_rules::kGzipStream, Location{start, rest.size(), ""},
                  Str(rest.size(), " bytes after the gzip member that ends at ", Hex(start),
                      " are not another member"));
      return std::nullopt;
    }
    // Each member inflates within what the earlier ones left of the limits.
    const bool by_ratio = ratio_cap < limits.max_inflated_bytes;
    const uint64_t room =
        (by_ratio ? ratio_cap : limits.max_inflated_bytes) - inflated.bytes.size();
    gzip::Error error;
    std::optional<gzip::Member> member = gzip::Inflate(
        rest, {.max_inflated = room, .max_ratio = UINT64_MAX}, &error,
        {.crc = gzip::CrcFor(rest),
         // The compressed pages zlib has read can go (a mapped file's).
         .consumed = [&file, start](uint64_t consumed) { file.ReleaseBefore(start + consumed); }});
    if (!member) {
      if (error.problem == gzip::Problem::kTooLarge && by_ratio) {
        error.problem = gzip::Problem::kRatio;
      }
      ReportStreamError(error, start, limits, sink);
      return std::nullopt;
    }
    if (inflated.bytes.empty()) {
      inflated.bytes = std::move(member->data);
    } else {
      inflated.bytes.insert(inflated.bytes.end(), member->data.begin(), member->data.end());
    }
    start += member->end;
    ++inflated.members;
  }
  return inflated;
}

}  // namespace

std::optional<InputBuffer> Decompress(InputBuffer file, const Limits& limits,
                                      DiagnosticSink& sink) {
  std::optional<Inflated> inflated = InflateMembers(file, limits, sink);
  if (!inflated) return std::nullopt;
  sink.Report(
      core_rules::kGzipInflated, {},
      Str("the file is a gzip stream of ", file.size(), " bytes",
          inflated->members > 1 ? Str(" in ", inflated->members, " members") : std::string(),
          ", inflated to ", inflated->bytes.size(),
          " bytes: the offsets of findings are in the inflated bytes"));
  // A reader may discard what it passed (JsonReader); a later pass over the
  // bytes (locating findings in the text) inflates the stream again.
  auto stream = std::make_shared<const InputBuffer>(std::move(file));
  return InputBuffer::AdoptDiscardable(
      std::move(inflated->bytes), [stream, limits]() -> std::optional<InputBuffer> {
        DiagnosticSink ignored(Profile{}, "");
        std::optional<Inflated> again = InflateMembers(*stream, limits, ignored);
        if (!again) return std::nullopt;
        return InputBuffer::Adopt(std::move(again->bytes));
      });
}

std::optional<InputBuffer> DecompressIfWorth(InputBuffer file, const Limits& limits,
                                             const WorthInflating& worth, DiagnosticSink& sink) {
  std::vector<uint8_t> head = gzip::InflateHead(file.bytes(), kDetectionBytes);
  if (head.size() < kDetectionBytes || worth(head)) {
    return Decompress(std::move(file), limits, sink);
  }
  sink.Report(core_rules::kGzipInflated, {},
              Str("the file is a gzip stream of ", file.size(), " bytes; its first ", head.size(),
                  " inflated bytes match no supported format, so it was inflated no further"));
  return InputBuffer::Adopt(std::move(head));
}

std::optional<InputBuffer> ReadModelFile(const std::string& path, const Limits& limits,
                                         DiagnosticSink& sink) {
  std::string error;
  std::optional<InputBuffer> file = ReadFileLimited(path, limits.max_file_size, &error);
  if (!file) {
    sink.Report(core_rules::kIoRead, Location{std::nullopt, std::nullopt, path}, error);
    return std::nullopt;
  }
  if (!IsCompressed(file->bytes())) return file;
  return Decompress(std::move(*file), limits, sink);
}

}  // namespace accelcheck
