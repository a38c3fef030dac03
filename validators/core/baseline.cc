#include "validators/core/baseline.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "validators/core/text.h"

namespace accelcheck {

namespace {

using Json = nlohmann::ordered_json;

// What the document says it is, so that another JSON file given by mistake
// is refused rather than read as an empty baseline.
constexpr std::string_view kKind = "accelcheck-baseline";
constexpr int kVersion = 1;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// FNV-1a over the parts, each closed by a byte no UTF-8 text contains, so
// that ("ab", "c") and ("a", "bc") differ.
std::string Fingerprint(std::initializer_list<std::string_view> parts) {
  uint64_t hash = 0xcbf29ce484222325ull;
  const auto mix = [&](unsigned char c) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  };
  for (std::string_view part : parts) {
    for (unsigned char c : part) mix(c);
    mix(0xff);
  }
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

Json EntryJson(const BaselineEntry& e) {
  Json entry = {{"fingerprint", e.fingerprint}, {"rule", e.rule}, {"file", e.file}};
  if (!e.member.empty()) entry["member"] = e.member;
  if (!e.path.empty()) entry["path"] = e.path;
  entry["message"] = e.message;
  return entry;
}

// Why `document` is not a baseline, or nothing; fills `accepted`.
std::optional<std::string> ReadFindings(const Json& document,
                                        std::unordered_map<std::string, uint64_t>* accepted) {
  if (!document.is_object() || document.value("kind", Json()) != Json(std::string(kKind))) {
    return Str("not an accelcheck baseline (no \"kind\": \"", kKind,
               "\"; write one with --write-baseline)");
  }
  if (document.value("version", Json()) != kVersion) {
    return Str("baseline version ", document.value("version", Json()).dump(),
               " is not the version this accelcheck reads (", kVersion, ")");
  }
  const Json findings = document.value("findings", Json());
  if (!findings.is_array()) return std::string("\"findings\" is not an array");
  for (size_t i = 0; i < findings.size(); ++i) {
    const Json& fingerprint =
        findings[i].is_object() ? findings[i].value("fingerprint", Json()) : Json();
    if (!fingerprint.is_string()) return Str("findings[", i, "] has no \"fingerprint\" string");
    ++(*accepted)[fingerprint.get<std::string>()];
  }
  return std::nullopt;
}

}  // namespace

std::string NormalisedMessage(std::string_view message) {
  std::string out;
  for (size_t i = 0; i < message.size();) {
    if (!IsDigit(message[i])) {
      out += message[i++];
      continue;
    }
    const bool hex = message[i] == '0' && i + 2 < message.size() && message[i + 1] == 'x' &&
                     IsHexDigit(message[i + 2]);
    i += hex ? 2 : 0;
    while (i < message.size() && (hex ? IsHexDigit(message[i]) : IsDigit(message[i]))) ++i;
    out += '#';
  }
  return out;
}

BaselineEntry BaselineEntryFor(const Rule& rule, std::string_view file, const Location& location,
                               std::string_view message) {
  BaselineEntry entry;
  entry.rule = rule.id;
  entry.file = file;
  // A member is named as its input names it (a Tensil .tprog) or as the
  // command line did (a frontend IR): its file name is what stays the same.
  entry.member = std::filesystem::path(location.member).filename().string();
  entry.path = location.path;
  entry.message = message;
  entry.fingerprint =
      Fingerprint({entry.rule, entry.file, entry.member, entry.path, NormalisedMessage(message)});
  return entry;
}

std::optional<Baseline> Baseline::Parse(std::string_view text, std::string* error) {
  const Json document = Json::parse(text, nullptr, false);
  if (document.is_discarded()) {
    *error = "not JSON (write a baseline with --write-baseline)";
    return std::nullopt;
  }
  Baseline baseline(false);
  if (std::optional<std::string> problem = ReadFindings(document, &baseline.accepted_)) {
    *error = std::move(*problem);
    return std::nullopt;
  }
  return baseline;
}

bool Baseline::Accept(BaselineEntry entry) {
  const std::lock_guard<std::mutex> lock(*mutex_);
  if (recording_) {
    entries_.push_back(std::move(entry));
    return true;
  }
  auto it = accepted_.find(entry.fingerprint);
  if (it == accepted_.end() || it->second == 0) return false;
  --it->second;
  return true;
}

std::string Baseline::ToJson() const {
  const std::lock_guard<std::mutex> lock(*mutex_);
  std::vector<const BaselineEntry*> sorted;
  for (const BaselineEntry& entry : entries_) sorted.push_back(&entry);
  const auto key = [](const BaselineEntry* e) {
    return std::tie(e->file, e->member, e->rule, e->path, e->message, e->fingerprint);
  };
  std::sort(sorted.begin(), sorted.end(),
            [&](const BaselineEntry* a, const BaselineEntry* b) { return key(a) < key(b); });
  Json findings = Json::array();
  for (const BaselineEntry* entry : sorted) findings.push_back(EntryJson(*entry));
  const Json document = {
      {"kind", kKind},
      {"version", kVersion},
      {"fingerprint",
       "rule, file (relative to --srcroot, or to the argument it was found through), member file "
       "name, object path and message with every number as #; byte offsets are left out"},
      {"findings", std::move(findings)}};
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace accelcheck
