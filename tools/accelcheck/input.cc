#include "tools/accelcheck/input.h"

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <vector>

#include "validators/core/compressed.h"
#include "validators/core/core_rules.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

namespace {

void ReportTooLarge(DiagnosticSink& sink, uint64_t size, const Limits& limits, bool at_least) {
  sink.Report(core_rules::kLimitFileSize, {},
              Str("file size ", at_least ? "at least " : "", Hex(size), " (", size,
                  ") exceeds --max-file-size ", limits.max_file_size));
}

// Standard input has no size to check up front: read at most one byte more
// than the limit allows, in chunks.
std::optional<InputBuffer> ReadStandardInput(const Limits& limits, DiagnosticSink& sink) {
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  while (true) {
    const size_t read = std::fread(chunk, 1, sizeof chunk, stdin);
    bytes.insert(bytes.end(), chunk, chunk + read);
    if (bytes.size() > limits.max_file_size) {
      ReportTooLarge(sink, bytes.size(), limits, true);
      return std::nullopt;
    }
    if (read < sizeof chunk) break;
  }
  if (std::ferror(stdin)) {
    sink.Report(core_rules::kIoRead, {}, "cannot read standard input");
    return std::nullopt;
  }
  return InputBuffer::Copy(bytes);
}

std::optional<InputBuffer> ReadFile(const std::string& path, const Limits& limits,
                                    DiagnosticSink& sink) {
  if (path == "-") return ReadStandardInput(limits, sink);
  // The size limit is a limit (exit 3 as "not checked"), not an I/O error, so
  // it is told apart before the read.
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > limits.max_file_size) {
    ReportTooLarge(sink, size, limits, false);
    return std::nullopt;
  }
  std::string error;
  std::optional<InputBuffer> buffer = ReadFileLimited(path, limits.max_file_size, &error);
  if (!buffer) sink.Report(core_rules::kIoRead, {}, Str("cannot read ", Quoted(path), ": ", error));
  return buffer;
}

}  // namespace

std::string DisplayName(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::optional<InputBuffer> ReadInput(const std::string& path, const Limits& limits,
                                     DiagnosticSink& sink) {
  std::optional<InputBuffer> file = ReadFile(path, limits, sink);
  if (!file || !IsCompressed(file->bytes())) return file;
  return Decompress(std::move(*file), limits, sink);
}

std::optional<InputBuffer> ReadInput(const std::string& path, const Limits& limits,
                                     const WorthInflating& worth, DiagnosticSink& sink) {
  std::optional<InputBuffer> file = ReadFile(path, limits, sink);
  if (!file || !IsCompressed(file->bytes())) return file;
  return DecompressIfWorth(std::move(*file), limits, worth, sink);
}

std::vector<Flag> LimitFlags() {
  std::vector<Flag> flags;
  for (const LimitInfo& limit : AllLimits()) {
    flags.push_back({std::string(limit.flag), true, "N",
                     Str(limit.help, " (", limit.unit, ", default ", limit.default_value, ")")});
  }
  return flags;
}

std::vector<Flag> RunLimitFlags() {
  std::vector<Flag> flags = LimitFlags();
  for (size_t i = 0; i < flags.size(); ++i) {
    const LimitInfo& limit = AllLimits()[i];
    if (limit.rule != &core_rules::kLimitTime) continue;
    flags[i].help = Str("wall-clock time of the whole command, validation and run (", limit.unit,
                        ", default ", limit.default_value, "; 0: no limit)");
  }
  return flags;
}

void ReportRunOutOfTime(std::string_view what, const Limits& limits, DiagnosticSink& sink) {
  sink.Report(core_rules::kLimitTime, {},
              Str(what, " stopped after --time-budget-ms ", limits.time_budget_ms, " ms"));
}

bool ApplyLimitFlags(const ParsedArgs& parsed, Limits* limits, std::string* error) {
  for (const LimitInfo& limit : AllLimits()) {
    const std::optional<std::string> text = parsed.Get(std::string(limit.flag));
    if (!text) continue;
    std::string parse_error;
    const std::optional<uint64_t> value = ParseCount(*text, &parse_error);
    if (!value) {
      *error = Str("--", limit.flag, ": ", parse_error);
      return false;
    }
    limits->*limit.field = *value;
  }
  return true;
}

std::vector<Flag> TargetFlags() {
  std::vector<Flag> flags;
  for (const TargetInfo& target : AllTargets()) {
    flags.push_back({std::string(target.flag), true, "N",
                     Str(target.format, ": ", target.help, " (", target.min_value, " to ",
                         target.max_value, ", default ", target.default_value, ")")});
  }
  return flags;
}

bool ApplyTargetFlags(const ParsedArgs& parsed, Targets* targets, std::string* error) {
  for (const TargetInfo& target : AllTargets()) {
    const std::optional<std::string> text = parsed.Get(std::string(target.flag));
    if (!text) continue;
    std::string parse_error;
    const std::optional<uint64_t> value = ParseCount(*text, &parse_error);
    if (!value || *value < target.min_value || *value > target.max_value) {
      *error = Str("--", target.flag, ": expected a number from ", target.min_value, " to ",
                   target.max_value, ", got '", *text, "'");
      return false;
    }
    targets->*target.field = *value;
  }
  return true;
}

bool InputContext(const ParsedArgs& parsed, ValidateContext* context, std::string* error) {
  if (!ApplyLimitFlags(parsed, &context->limits, error) ||
      !ApplyTargetFlags(parsed, &context->targets, error))
    return false;
  context->path = parsed.positional[0];
  context->deadline = Deadline(context->limits.time_budget_ms);
  return true;
}

}  // namespace accelcheck::cli
