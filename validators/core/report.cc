#include "validators/core/report.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "validators/core/text.h"

namespace accelcheck {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kReplacementCharacter = "\xef\xbf\xbd";  // U+FFFD

bool IsContinuation(unsigned char c) { return (c & 0xc0) == 0x80; }

// The length of the well-formed UTF-8 sequence at text[i] (Unicode Table 3-7:
// no overlong forms, no surrogates, nothing above U+10FFFF), or 0.
size_t Utf8SequenceLength(std::string_view text, size_t i, char32_t* code_point) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  const size_t left = text.size() - i;
  if (lead < 0x80) {
    *code_point = lead;
    return 1;
  }
  size_t length = 0;
  unsigned char second_min = 0x80, second_max = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) second_min = 0xa0;
    if (lead == 0xed) second_max = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) second_min = 0x90;
    if (lead == 0xf4) second_max = 0x8f;
  } else {
    return 0;
  }
  if (left < length || byte(1) < second_min || byte(1) > second_max) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (!IsContinuation(byte(k))) return 0;
  }
  char32_t value = lead & (0x7f >> length);
  for (size_t k = 1; k < length; ++k) value = (value << 6) | (byte(k) & 0x3f);
  *code_point = value;
  return length;
}

std::string EscapedByte(unsigned char c) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
  return buffer;
}

std::string Plural(uint64_t count, std::string_view noun) {
  return Str(count, ' ', noun, count == 1 ? "" : "s");
}

std::string DumpJson(const Json& document) {
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Json ToolJson() { return Json{{"name", kToolName}, {"version", kToolVersion}}; }

Json OptionalNumber(const std::optional<uint64_t>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json DiagnosticJson(const Diagnostic& d) {
  return Json{{"rule", d.rule->id},
              {"severity", SeverityName(d.severity)},
              {"category", CategoryName(d.rule->category)},
              {"message", d.message},
              {"offset", OptionalNumber(d.location.offset)},
              {"length", OptionalNumber(d.location.length)},
              {"line", d.location.line != 0 ? Json(d.location.line) : Json(nullptr)},
              {"column", d.location.column != 0 ? Json(d.location.column) : Json(nullptr)},
              {"path", d.location.path.empty() ? Json(nullptr) : Json(d.location.path)},
              {"member", d.location.member.empty() ? Json(nullptr) : Json(d.location.member)},
              {"baselined", d.baselined}};
}

Json FileJson(const FileResult& result) {
  Json diagnostics = Json::array();
  for (const Diagnostic& d : result.sink.diagnostics()) diagnostics.push_back(DiagnosticJson(d));
  return Json{{"path", result.path},
              {"format", result.format.empty() ? Json(nullptr) : Json(result.format)},
              {"dialect", result.dialect.empty() ? Json(nullptr) : Json(result.dialect)},
              {"outcome", OutcomeName(OutcomeOf(result))},
              {"skip_reason", result.skipped ? Json(result.skip_reason) : Json(nullptr)},
              {"errors", result.sink.error_count()},
              {"warnings", result.sink.warning_count()},
              {"suppressed", result.sink.suppressed_count()},
              {"disabled", result.sink.disabled_count()},
              {"baselined", result.sink.baselined_count()},
              {"diagnostics", std::move(diagnostics)}};
}

Json SummaryJson(const RunSummary& s) {
  return Json{{"files", s.files},
              {"conforming", s.conforming},
              {"with_errors", s.with_errors},
              {"failed", s.failed},
              {"skipped", s.skipped},
              {"errors", s.errors},
              {"warnings", s.warnings},
              {"suppressed", s.suppressed},
              {"disabled", s.disabled},
              {"baselined", s.baselined},
              {"exit_code", static_cast<int>(s.exit_code)}};
}

std::string_view SarifLevel(Severity severity) {
  switch (severity) {
    case Severity::kNote:
      return "note";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

// An artifact location URI: a relative reference for relative paths (GitHub
// resolves them against the checkout), file:// for absolute ones, every byte
// outside the unreserved set percent-encoded.
std::string PathToUri(std::string_view path) {
  std::string out = !path.empty() && path.front() == '/' ? "file://" : "";
  for (unsigned char c : path) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
                            c == '~' || c == '/';
    if (unreserved) {
      out += static_cast<char>(c);
    } else {
      char buffer[4];
      std::snprintf(buffer, sizeof buffer, "%%%02X", c);
      out += buffer;
    }
  }
  return out;
}

// FNV-1a over rule id, object path and file: stable across runs and across
// unrelated edits of the file, so code scanning can match alerts.
std::string Fingerprint(const Diagnostic& d) {
  uint64_t hash = 0xcbf29ce484222325ull;
  const auto mix = [&](std::string_view part) {
    for (unsigned char c : part) {
      hash ^= c;
      hash *= 0x100000001b3ull;
    }
    hash ^= 0xff;  // a separator no UTF-8 text contains
    hash *= 0x100000001b3ull;
  };
  mix(d.rule->id);
  mix(d.location.path);
  if (!d.location.member.empty()) mix(d.location.member);
  mix(d.file);
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

// A help text for GitHub code scanning, which shows it beside an alert.
Json SarifHelp(const Rule& rule) {
  const std::string uri = RuleHelpUri(rule);
  return Json{{"text", Str(rule.title, ". Source: ", rule.source, ". See ", uri)},
              {"markdown", Str("**", rule.title, "**\n\nSource: ", rule.source, ".\n\nSee [",
                               rule.id, "](", uri, ") in docs/RULES.md.")}};
}

Json SarifRule(const Rule& rule) {
  return Json{{"id", rule.id},
              {"name", RuleName(rule.id)},
              {"shortDescription", {{"text", rule.title}}},
              {"fullDescription", {{"text", Str(rule.title, ". Source: ", rule.source, ".")}}},
              {"helpUri", RuleHelpUri(rule)},
              {"help", SarifHelp(rule)},
              {"defaultConfiguration", {{"level", SarifLevel(rule.severity)}}},
              {"properties",
               {{"category", CategoryName(rule.category)},
                {"source", rule.source},
                {"strictLevel", SarifLevel(rule.strict)}}}};
}

// A rule's entry in ruleConfigurationOverrides, or null when the run's
// selection leaves it as its profile has it.
Json SarifOverride(const Rule& rule, size_t index, const RuleSelection& selection) {
  const RuleSetting setting = selection.For(rule);
  if (!setting.disabled && !setting.severity) return Json(nullptr);
  Json configuration = Json::object();
  if (setting.disabled) configuration["enabled"] = false;
  if (setting.severity) configuration["level"] = SarifLevel(*setting.severity);
  return Json{{"descriptor", {{"id", rule.id}, {"index", index}}},
              {"configuration", std::move(configuration)}};
}

// The rules, artifacts and results of one SARIF run, each rule and artifact
// listed once, at the index results refer to it by.
class SarifRun {
 public:
  explicit SarifRun(const SarifOptions& options)
      : options_(options), rules_(options.catalogue.begin(), options.catalogue.end()) {
    for (size_t i = 0; i < rules_.size(); ++i) rule_index_.emplace(rules_[i], i);
  }

  void Add(const Diagnostic& d) { results_.push_back(Result(d)); }
  Json ToJson(const RunSummary& summary);

 private:
  size_t RuleIndex(const Rule* rule) {
    auto [it, added] = rule_index_.emplace(rule, rules_.size());
    if (added) rules_.push_back(rule);
    return it->second;
  }
  std::string ArtifactPath(const Diagnostic& d) const;
  Json ArtifactLocation(const std::string& path);
  Json Result(const Diagnostic& d);
  Json Invocation(const RunSummary& summary) const;

  const SarifOptions& options_;
  std::vector<const Rule*> rules_;
  std::unordered_map<const Rule*, size_t> rule_index_;
  Json artifacts_ = Json::array();
  std::unordered_map<std::string, size_t> artifact_index_;
  Json results_ = Json::array();
};

// The file a diagnostic's bytes are in: its input's, or its member's (a
// companion the command line named, or a file beside the input).
std::string SarifRun::ArtifactPath(const Diagnostic& d) const {
  const std::string& member = d.location.member;
  if (member.empty()) return d.file;
  const bool named = std::find(options_.companions.begin(), options_.companions.end(), member) !=
                     options_.companions.end();
  if (named || std::filesystem::path(member).is_absolute()) return member;
  return (std::filesystem::path(d.file).parent_path() / member).lexically_normal().string();
}

// {uri, uriBaseId, index}, the artifact listed the first time it is seen.
Json SarifRun::ArtifactLocation(const std::string& path) {
  Json location = Json::object();
  const std::optional<std::string> inside =
      options_.srcroot.empty() ? std::nullopt : PathInside(options_.srcroot, path);
  location["uri"] = PathToUri(inside ? *inside : path);
  if (inside) location["uriBaseId"] = "SRCROOT";
  auto [it, added] = artifact_index_.emplace(path, artifact_index_.size());
  // Every file a result points into was read and checked.
  if (added) artifacts_.push_back({{"location", location}, {"roles", {"analysisTarget"}}});
  location["index"] = it->second;
  return location;
}

Json SarifRun::Result(const Diagnostic& d) {
  // Text inputs have lines; a binary file's bytes are all on its line 1.
  Json region = {{"startLine", d.location.line != 0 ? d.location.line : 1}};
  if (d.location.column != 0) region["startColumn"] = d.location.column;
  if (d.location.offset) region["byteOffset"] = *d.location.offset;
  if (d.location.length) region["byteLength"] = *d.location.length;
  Json location = {{"physicalLocation",
                    {{"artifactLocation", ArtifactLocation(ArtifactPath(d))}, {"region", region}}}};
  if (!d.location.path.empty()) {
    location["logicalLocations"] =
        Json::array({{{"fullyQualifiedName", d.location.path}, {"kind", "object"}}});
  }
  Json result = {{"ruleId", d.rule->id},
                 {"ruleIndex", RuleIndex(d.rule)},
                 {"level", SarifLevel(d.severity)},
                 {"message", {{"text", d.message}}},
                 {"locations", Json::array({location})}};
  if (!d.location.member.empty()) {
    // The bytes are the member's; the input that names it is where it was read from.
    Json input = {{"physicalLocation", {{"artifactLocation", ArtifactLocation(d.file)}}},
                  {"message", {{"text", "the input it was read with"}}}};
    result["relatedLocations"] = Json::array({std::move(input)});
  }
  result["partialFingerprints"] = {{"accelcheck/v1", Fingerprint(d)}};
  if (d.baselined) {
    result["suppressions"] = Json::array(
        {{{"kind", "external"}, {"justification", Str("in the baseline ", options_.baseline)}}});
  }
  if (!options_.baseline.empty()) result["baselineState"] = d.baselined ? "unchanged" : "new";
  return result;
}

Json SarifRun::Invocation(const RunSummary& summary) const {
  Json invocation = {{"executionSuccessful", summary.exit_code != ExitCode::kFailure},
                     {"exitCode", static_cast<int>(summary.exit_code)}};
  if (options_.rules != nullptr) {
    Json overrides = Json::array();
    for (size_t i = 0; i < rules_.size(); ++i) {
      Json entry = SarifOverride(*rules_[i], i, *options_.rules);
      if (!entry.is_null()) overrides.push_back(std::move(entry));
    }
    if (!overrides.empty()) invocation["ruleConfigurationOverrides"] = std::move(overrides);
  }
  if (summary.disabled > 0 || summary.baselined > 0) {
    invocation["properties"] = {{"disabled", summary.disabled}, {"baselined", summary.baselined}};
  }
  return invocation;
}

Json SarifRun::ToJson(const RunSummary& summary) {
  Json sarif_rules = Json::array();
  for (const Rule* rule : rules_) sarif_rules.push_back(SarifRule(*rule));
  Json driver = {{"name", kToolName},
                 {"version", kToolVersion},
                 {"semanticVersion", kToolVersion},
                 {"informationUri", InformationUri()},
                 {"rules", std::move(sarif_rules)}};
  Json run = {{"tool", {{"driver", std::move(driver)}}},
              {"invocations", Json::array({Invocation(summary)})},
              {"columnKind", "unicodeCodePoints"}};  // Location::column counts code points
  if (!options_.srcroot.empty()) {
    // A base URI ends with a slash, or its last segment would be replaced.
    const std::string& root = options_.srcroot;
    const std::string base = root.ends_with('/') ? root : root + "/";
    run["originalUriBaseIds"] = {{"SRCROOT", {{"uri", PathToUri(base)}}}};
  }
  run["artifacts"] = std::move(artifacts_);
  run["results"] = std::move(results_);
  return run;
}

// Why diagnostics were counted but not listed.
std::string SuppressedNote() {
  return Str(" more not listed (--max-errors, or past ", kMaxKeptDiagnostics, " in one file)");
}

// The lines of a <failure> or <error> body, or of <system-out>.
std::string DiagnosticLines(const FileResult& result) {
  std::string out;
  for (const Diagnostic& d : result.sink.diagnostics()) {
    if (!d.baselined) out += TextLine(d) + "\n";
  }
  if (result.sink.suppressed_count() > 0) {
    out += Str(result.sink.suppressed_count(), SuppressedNote(), "\n");
  }
  return out;
}

// The first diagnostic at error severity: it names a failure's type.
const Diagnostic* FirstError(const FileResult& result) {
  const auto& all = result.sink.diagnostics();
  auto it = std::find_if(all.begin(), all.end(), [](const Diagnostic& d) {
    return d.severity == Severity::kError && !d.baselined;
  });
  return it == all.end() ? nullptr : &*it;
}

std::string JunitTestcase(const FileResult& result) {
  const std::string classname =
      Str(kToolName, '.', result.format.empty() ? std::string("unknown") : result.format);
  std::string out = Str("    <testcase classname=\"", XmlEscape(classname, true), "\" name=\"",
                        XmlEscape(result.path, true), "\">\n");
  const Outcome outcome = OutcomeOf(result);
  const Diagnostic* first = FirstError(result);
  const std::string type = first != nullptr ? std::string(first->rule->id) : "warning";
  const std::string lines = XmlEscape(DiagnosticLines(result), false);
  if (outcome == Outcome::kSkipped) {
    out += Str("      <skipped message=\"", XmlEscape(result.skip_reason, true), "\"/>\n");
  } else if (outcome == Outcome::kFailed || outcome == Outcome::kErrors) {
    const std::string element = outcome == Outcome::kFailed ? "error" : "failure";
    const std::string message = Str(Plural(result.sink.error_count(), "error"), ", ",
                                    Plural(result.sink.warning_count(), "warning"));
    out += Str("      <", element, " message=\"", XmlEscape(message, true), "\" type=\"",
               XmlEscape(type, true), "\">", lines, "</", element, ">\n");
  } else if (!lines.empty()) {
    out += Str("      <system-out>", lines, "</system-out>\n");
  }
  return out + "    </testcase>\n";
}

}  // namespace

std::string OneLine(std::string_view text) {
  std::string out;
  for (unsigned char c : ValidUtf8(text)) {
    if (c < 0x20 || c == 0x7f) {
      out += EscapedByte(c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string_view InformationUri() { return ACCELCHECK_HOMEPAGE_URL; }
std::string_view RulesUri() { return ACCELCHECK_RULES_URL; }

std::string RuleAnchor(std::string_view id) { return std::string(id); }

std::string RuleHelpUri(const Rule& rule) { return Str(RulesUri(), "#", RuleAnchor(rule.id)); }

std::string RuleName(std::string_view id) {
  std::string name;
  bool word_start = true;
  for (char c : id) {
    if (c == '.' || c == '_' || c == '-') {
      word_start = true;
    } else {
      name += word_start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
      word_start = false;
    }
  }
  return name;
}

std::optional<std::string> PathInside(const std::string& root, const std::string& file) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(file, ec).lexically_normal();
  if (ec) return std::nullopt;
  std::filesystem::path base(root);
  if (!base.has_filename()) base = base.parent_path();  // "/a/b/" is "/a/b"
  const std::filesystem::path relative = absolute.lexically_relative(base);
  if (relative.empty() || relative == "." || *relative.begin() == "..") return std::nullopt;
  return relative.generic_string();
}

Outcome OutcomeOf(const FileResult& result) {
  if (result.skipped) return Outcome::kSkipped;
  switch (ExitCodeFor(result.sink)) {
    case ExitCode::kFailure:
      return Outcome::kFailed;
    case ExitCode::kErrors:
      return Outcome::kErrors;
    case ExitCode::kConforms:
    case ExitCode::kUsage:
      break;
  }
  return Outcome::kConforms;
}

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kConforms:
      return "conforms";
    case Outcome::kErrors:
      return "errors";
    case Outcome::kFailed:
      return "failed";
    case Outcome::kSkipped:
      return "skipped";
  }
  return "failed";
}

RunSummary Summarize(std::span<const FileResult> results) {
  RunSummary s;
  for (const FileResult& result : results) {
    ++s.files;
    s.errors += result.sink.error_count();
    s.warnings += result.sink.warning_count();
    s.suppressed += result.sink.suppressed_count();
    s.disabled += result.sink.disabled_count();
    s.baselined += result.sink.baselined_count();
    switch (OutcomeOf(result)) {
      case Outcome::kConforms:
        ++s.conforming;
        break;
      case Outcome::kErrors:
        ++s.with_errors;
        break;
      case Outcome::kFailed:
        ++s.failed;
        break;
      case Outcome::kSkipped:
        ++s.skipped;
        break;
    }
  }
  if (s.failed > 0) {
    s.exit_code = ExitCode::kFailure;
  } else if (s.with_errors > 0 || s.files == s.skipped) {
    s.exit_code = ExitCode::kErrors;
  }
  return s;
}

std::optional<ReportFormat> ParseReportFormat(std::string_view name) {
  if (name == "text") return ReportFormat::kText;
  if (name == "json") return ReportFormat::kJson;
  if (name == "sarif") return ReportFormat::kSarif;
  if (name == "junit") return ReportFormat::kJunit;
  return std::nullopt;
}

std::string WriteReport(ReportFormat format, std::span<const FileResult> results,
                        const SarifOptions& sarif) {
  switch (format) {
    case ReportFormat::kText:
      return WriteText(results);
    case ReportFormat::kJson:
      return WriteJson(results);
    case ReportFormat::kSarif:
      return WriteSarif(results, sarif);
    case ReportFormat::kJunit:
      return WriteJunit(results);
  }
  return WriteText(results);
}

std::string TextLine(const Diagnostic& d) {
  // "model.tmodel(model.tprog):0x30" for bytes of a member, as linkers name
  // archive members; "x.json:12:5" in text inputs, as compilers do.
  std::string out = OneLine(d.file);
  if (!d.location.member.empty()) out += "(" + OneLine(d.location.member) + ")";
  if (d.location.line != 0) {
    out += Str(":", d.location.line, ":", d.location.column);
  } else if (d.location.offset) {
    out += ":" + Hex(*d.location.offset);
  }
  out += Str(": ", SeverityName(d.severity), "[", d.rule->id, "]: ");
  if (!d.location.path.empty()) out += OneLine(d.location.path) + ": ";
  return out + OneLine(d.message);
}

std::string WriteText(std::span<const FileResult> results) {
  std::string out;
  for (const FileResult& result : results) {
    if (result.skipped) {
      out += OneLine(result.path) + ": skipped: " + OneLine(result.skip_reason) + "\n";
    }
    for (const Diagnostic& d : result.sink.diagnostics()) {
      if (!d.baselined) out += TextLine(d) + "\n";
    }
  }
  return out + WriteTextSummary(results);
}

std::string WriteTextSummary(std::span<const FileResult> results) {
  const RunSummary s = Summarize(results);
  std::string out = Str(Plural(s.files, "file"), ": ", Plural(s.errors, "error"), ", ",
                        Plural(s.warnings, "warning"));
  if (s.failed > 0) out += Str(", ", s.failed, s.failed == 1 ? " file" : " files", " failed");
  if (s.skipped > 0) out += Str(", ", s.skipped, " skipped");
  if (s.suppressed > 0) out += Str(", ", s.suppressed, SuppressedNote());
  if (s.disabled > 0) out += Str(", ", s.disabled, " disabled (--disable)");
  if (s.baselined > 0) out += Str(", ", s.baselined, " suppressed by baseline");
  if (s.files == s.skipped) out += "; nothing was validated";
  return out + "\n";
}

std::string WriteJson(std::span<const FileResult> results) {
  Json files = Json::array();
  for (const FileResult& result : results) files.push_back(FileJson(result));
  return DumpJson(Json{{"version", kJsonReportVersion},
                       {"tool", ToolJson()},
                       {"files", std::move(files)},
                       {"summary", SummaryJson(Summarize(results))}});
}

std::string WriteSarif(std::span<const FileResult> results, const SarifOptions& options) {
  SarifRun run(options);
  for (const FileResult& result : results) {
    for (const Diagnostic& d : result.sink.diagnostics()) run.Add(d);
  }
  return DumpJson(Json{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                       {"version", "2.1.0"},
                       {"runs", Json::array({run.ToJson(Summarize(results))})}});
}

std::string WriteJunit(std::span<const FileResult> results) {
  const RunSummary s = Summarize(results);
  const std::string counts = Str(" tests=\"", s.files, "\" failures=\"", s.with_errors,
                                 "\" errors=\"", s.failed, "\" skipped=\"", s.skipped, "\"");
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += Str("<testsuites name=\"", kToolName, "\"", counts, ">\n");
  out += Str("  <testsuite name=\"", kToolName, " validate\"", counts, ">\n");
  for (const FileResult& result : results) out += JunitTestcase(result);
  return out + "  </testsuite>\n</testsuites>\n";
}

std::string WriteJunitCases(std::string_view suite, std::span<const JunitCase> cases) {
  uint64_t failures = 0, errors = 0, skipped = 0;
  for (const JunitCase& c : cases) {
    failures += c.outcome == Outcome::kErrors;
    errors += c.outcome == Outcome::kFailed;
    skipped += c.outcome == Outcome::kSkipped;
  }
  const std::string counts = Str(" tests=\"", cases.size(), "\" failures=\"", failures,
                                 "\" errors=\"", errors, "\" skipped=\"", skipped, "\"");
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += Str("<testsuites name=\"", kToolName, "\"", counts, ">\n");
  out +=
      Str("  <testsuite name=\"", XmlEscape(Str(kToolName, " ", suite), true), "\"", counts, ">\n");
  for (const JunitCase& c : cases) {
    out += Str("    <testcase classname=\"", XmlEscape(c.classname, true), "\" name=\"",
               XmlEscape(c.name, true), "\">\n");
    const std::string message = XmlEscape(c.message, true);
    if (c.outcome == Outcome::kSkipped) {
      out += Str("      <skipped message=\"", message, "\"/>\n");
    } else if (c.outcome == Outcome::kErrors || c.outcome == Outcome::kFailed) {
      const std::string element = c.outcome == Outcome::kFailed ? "error" : "failure";
      out += Str("      <", element, " message=\"", message, "\">", XmlEscape(c.detail, false),
                 "</", element, ">\n");
    }
    out += "    </testcase>\n";
  }
  return out + "  </testsuite>\n</testsuites>\n";
}

std::string RunErrorJson(ExitCode exit_code, std::string_view message) {
  RunSummary summary;
  summary.exit_code = exit_code;
  const std::string_view kind = exit_code == ExitCode::kUsage ? "usage" : "io";
  return DumpJson(Json{{"version", kJsonReportVersion},
                       {"tool", ToolJson()},
                       {"error", {{"kind", kind}, {"message", message}}},
                       {"files", Json::array()},
                       {"summary", SummaryJson(summary)}});
}

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char32_t code_point;
    const size_t length = Utf8SequenceLength(text, i, &code_point);
    if (length == 0) {
      out += kReplacementCharacter;
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string XmlEscape(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char32_t c;
    size_t length = Utf8SequenceLength(text, i, &c);
    const std::string_view raw = text.substr(i, length);
    i += std::max<size_t>(length, 1);
    if (length == 0 || c == 0xfffe || c == 0xffff) {
      out += kReplacementCharacter;  // not XML characters (XML 1.0 §2.2)
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '"') {
      out += "&quot;";
    } else if (c == '\'') {
      out += "&apos;";
    } else if (c == '\r' || (attribute && (c == '\n' || c == '\t'))) {
      // Parsers normalise these away unless they are character references.
      out += Str("&#", static_cast<unsigned>(c), ";");
    } else if (c < 0x20 && c != '\n' && c != '\t') {
      out += EscapedByte(static_cast<unsigned char>(c));
    } else {
      out.append(raw);
    }
  }
  return out;
}

}  // namespace accelcheck
