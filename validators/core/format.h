// The interface every format implements. tools/accelcheck/registry.h lists
// the formats.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "validators/core/bytes.h"
#include "validators/core/diagnostic.h"
#include "validators/core/file_source.h"
#include "validators/core/limits.h"
#include "validators/core/sink.h"
#include "validators/core/targets.h"

namespace accelcheck {

// What one validation run of one file may use besides its bytes.
struct ValidateContext {
  Limits limits;
  Targets targets;
  // The input's path, for companion-file lookup. Empty for bytes held in
  // memory: then no file is looked up beside the input, only companions.
  std::string path;
  // Companion files named on the command line (a .ptd for a .pte, ...).
  std::vector<std::string> companions;
  // Where companions and the files beside the input are read from: the file
  // system, or the named buffers an embedding program gives.
  const FileSource* files = &FileSystem();
  // The file's --time-budget-ms, started by the caller before the file is
  // read. Validators check expired() between phases and in long loops and then
  // report core.limit.time-budget-ms.
  Deadline deadline{0};

  // A companion or a file the input names, within --max-file-size.
  std::optional<InputBuffer> ReadFile(const std::string& file, std::string* error) const {
    return files->Read(file, limits.max_file_size, error);
  }
};

// A value of a file that only files made together hold (an Edge TPU
// parameter-caching token): the run notes inputs that share one.
struct SharedValue {
  std::string name;  // "parameter_caching_token 0x6cb1..."
  Location location;
  std::string meaning;  // what sharing it does, for the message
};

// What detection may look at: a file's first 64 KiB decide its format, so
// that a compressed input is inflated whole only when some format can take
// it (DecompressIfWorth).
inline constexpr uint64_t kDetectionBytes = uint64_t{64} << 10;

class Format {
 public:
  virtual ~Format() = default;
  virtual std::string_view id() const = 0;           // "pte"
  virtual std::string_view description() const = 0;  // one line
  virtual RuleTable rules() const = 0;
  // Recognises the format by content (never by file name), looking at no
  // more than its first kDetectionBytes.
  virtual bool Detect(ByteView bytes) const = 0;
  // True for a file Detect refuses that still looks like one of the format's
  // by its name or first bytes (a truncated or damaged file): a directory
  // run validates it as this format, so that its problems are reported
  // rather than the file skipped.
  virtual bool Resembles(const std::string& path, ByteView bytes) const = 0;
  // The dialect or document kind of a file the format detects, when the
  // format has more than one ("set" for a Gemini IR of the SET generator),
  // for the report; empty for formats with one.
  virtual std::string_view Dialect(ByteView) const { return {}; }
  // Decodes and validates, reporting every problem to `sink`.
  virtual void Validate(const InputBuffer& input, const ValidateContext& context,
                        DiagnosticSink& sink) const = 0;
  // The decoded structure with byte offsets, or null when the input does not
  // decode (the reasons go to `sink`).
  virtual nlohmann::json Inspect(const InputBuffer& input, const ValidateContext& context,
                                 DiagnosticSink& sink) const = 0;
  // Whether the format reads `bytes` (the file at `path`) as a companion of
  // its inputs, and what companions it reads, in words: how a run tells a
  // companion of the wrong kind (docs/ARCHITECTURE.md "Companions").
  virtual bool TakesCompanion(const std::string& path, ByteView bytes) const = 0;
  virtual std::string_view companion_kinds() const = 0;  // "a .ptd (named data)"
  // The values of a file that validates which inputs validated with it must
  // not share unless they were made together; none for most formats. Never
  // reports: what stands in the way of reading them, Validate has reported.
  virtual std::vector<SharedValue> SharedValues(const InputBuffer&, const ValidateContext&) const {
    return {};
  }
  // The bytes of member `name` of a container input (a NEFF's archive
  // member: `accelcheck inspect --member`), or nothing with `error` set.
  // Formats whose files have no members say so.
  virtual std::optional<std::vector<uint8_t>> ReadMember(const InputBuffer& input,
                                                         const ValidateContext& context,
                                                         std::string_view name,
                                                         std::string* error) const;
};

// format.SharedValues, with a failure inside it reported as core.internal.
std::vector<SharedValue> SharedValuesGuarded(const Format& format, const InputBuffer& input,
                                             const ValidateContext& context, DiagnosticSink& sink);

// One input of a run with the values it holds and the sink of its report.
struct InputValues {
  std::string name;
  std::vector<SharedValue> values;
  DiagnosticSink* sink = nullptr;
};

// Reports core.inputs.shared_value in each input that holds a value another
// input holds too, naming the others.
void ReportSharedValues(std::span<const InputValues> inputs);

// Looks a rule up by id in the core table and `format`'s table: the rules a
// validation of `format` can report.
const Rule* FindRuleOf(const Format& format, std::string_view id);

// format.Validate, with a failure inside the validator (an exception, memory
// exhausted) reported as core.internal: never a verdict on the file.
void ValidateGuarded(const Format& format, const InputBuffer& input, const ValidateContext& context,
                     DiagnosticSink& sink);

}  // namespace accelcheck
