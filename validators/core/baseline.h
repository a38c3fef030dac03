// Baselines (docs/ARCHITECTURE.md "Baseline"): the findings a project has
// accepted, so that a CI gate fails only on new ones. A finding is known by a
// fingerprint that unrelated edits of the file leave alone: the rule, the
// file relative to --srcroot or to the argument it was found through, the
// member's file name, the object path and the message with its numbers
// blanked, but not the byte offset, which moves whenever bytes before it do.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "validators/core/diagnostic.h"

namespace accelcheck {

// The message with every number ("12", "0x1f0") replaced by "#".
std::string NormalisedMessage(std::string_view message);

// One finding as a baseline records it. `file` is the file as fingerprints
// name it (relative, see above); the other fields are the diagnostic's.
struct BaselineEntry {
  std::string fingerprint;
  std::string rule;
  std::string file;
  std::string member;  // its file name only
  std::string path;
  std::string message;
};

// The entry of a diagnostic of `rule` in `file`, with its fingerprint.
BaselineEntry BaselineEntryFor(const Rule& rule, std::string_view file, const Location& location,
                               std::string_view message);

// A baseline read from a file, which accepts each finding it holds as many
// times as it holds it, or one being recorded, which accepts every finding
// and keeps it for the file it will write.
class Baseline {
 public:
  // An empty baseline that records what it is offered (--write-baseline).
  static Baseline Recording() { return Baseline(true); }
  // The baseline document `text`; nothing, with the reason, when it is not one.
  static std::optional<Baseline> Parse(std::string_view text, std::string* error);

  // Whether the finding is accepted: recorded, or one of its occurrences in
  // the file not yet taken by an earlier finding.
  bool Accept(BaselineEntry entry);

  // The document of the findings recorded, sorted, one finding per entry.
  std::string ToJson() const;
  size_t size() const { return recording_ ? entries_.size() : accepted_.size(); }

 private:
  explicit Baseline(bool recording) : recording_(recording) {}

  bool recording_;
  // validate --jobs checks files on several threads against one baseline.
  std::shared_ptr<std::mutex> mutex_ = std::make_shared<std::mutex>();
  std::vector<BaselineEntry> entries_;                  // when recording
  std::unordered_map<std::string, uint64_t> accepted_;  // fingerprint -> occurrences left
};

}  // namespace accelcheck
