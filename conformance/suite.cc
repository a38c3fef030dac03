// The conformance suite. A valid case passes when the default profile reports
// no error. A negative case runs under --strict, so that rules whose default
// severity is a warning count as well, and passes when (1) its rule is
// reported (at any severity: a few rules stay warnings or notes even under
// --strict), (2) when the case gives a path, one report of that rule is at
// that object or inside it, and (3) every error-severity diagnostic is the
// case's rule or one the manifest lists in "also" (rules that necessarily
// break with it). A case may name a companion file ("data": a .ptd for a
// .pte), which the validator is given as ValidateContext::companions.
#include "conformance/suite.h"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "validators/core/format.h"
#include "validators/core/output_file.h"
#include "validators/core/report.h"
#include "validators/core/text.h"

namespace accelcheck::conformance {

namespace fs = std::filesystem;
using nlohmann::json;

int SuiteResult::passed() const {
  int n = 0;
  for (const CaseResult& c : cases) n += c.passed ? 1 : 0;
  return n;
}

int SuiteResult::failed() const { return static_cast<int>(cases.size()) - passed(); }

bool PathMatches(const std::string& reported, const std::string& expected) {
  if (expected.empty()) return true;
  if (reported.compare(0, expected.size(), expected) != 0) return false;
  // Paths of binary formats nest with '.' and '[', JSON pointers with '/' (docs/ARCHITECTURE.md
  // "Diagnostics").
  return reported.size() == expected.size() || reported[expected.size()] == '.' ||
         reported[expected.size()] == '[' || reported[expected.size()] == '/';
}

namespace {

std::string Describe(const DiagnosticSink& sink) {
  std::string out;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (!out.empty()) out += "; ";
    out += Str(SeverityName(d.severity), "[", d.rule->id, "] ", d.location.path, ": ", d.message);
  }
  return out.empty() ? "no diagnostics" : out;
}

// The case's format: the one it names, else the one that detects its bytes.
const Format* FormatOfCase(const std::vector<const Format*>& formats, const std::string& id,
                           ByteView bytes) {
  for (const Format* format : formats) {
    if (id.empty() ? format->Detect(bytes) : format->id() == id) return format;
  }
  return nullptr;
}

CaseResult RunCase(const fs::path& dir, const json& c, const std::vector<const Format*>& formats) {
  CaseResult result;
  result.id = c.value("id", "");
  result.format = c.value("format", "");
  const auto start = std::chrono::steady_clock::now();
  const std::string expect = c.value("expect", "valid");
  const std::string file = (dir / c.value("file", "")).string();
  const Limits limits;
  std::string error;
  const std::optional<InputBuffer> input = ReadFileLimited(file, limits.max_file_size, &error);
  if (!input) {
    result.detail = "cannot read " + file + ": " + error;
    return result;
  }
  const Format* format = FormatOfCase(formats, result.format, input->bytes());
  if (format == nullptr) {
    result.detail = "no format " + Quoted(result.format);
    return result;
  }
  const bool negative = expect != "valid";
  DiagnosticSink sink(Profile{negative, false, 0}, file);
  ValidateContext context;
  context.limits = limits;
  context.path = file;
  if (c.contains("data") && c["data"].is_string())
    context.companions.push_back((dir / c.value("data", "")).string());
  if (c.contains("data") && c["data"].is_array()) {
    for (const json& companion : c["data"])
      context.companions.push_back((dir / companion.get<std::string>()).string());
  }
  format->Validate(*input, context, sink);

  if (!negative) {
    result.passed = sink.error_count() == 0;
    result.detail = result.passed ? "valid" : "expected no errors: " + Describe(sink);
  } else {
    const std::string rule = c.value("rule", "");
    const std::string path = c.contains("location") ? c["location"].value("path", "") : "";
    std::vector<std::string> allowed = {rule};
    for (const json& also : c.value("also", json::array()))
      allowed.push_back(also.get<std::string>());
    bool reported = false;
    std::string unexpected;
    for (const Diagnostic& d : sink.diagnostics()) {
      if (d.rule->id == rule && PathMatches(d.location.path, path)) reported = true;
      if (d.severity == Severity::kError &&
          std::find(allowed.begin(), allowed.end(), d.rule->id) == allowed.end()) {
        unexpected = std::string(d.rule->id);
      }
    }
    result.passed = reported && unexpected.empty();
    if (!reported) {
      result.detail =
          Str("expected ", rule, path.empty() ? "" : " at " + path, ": ", Describe(sink));
    } else if (!unexpected.empty()) {
      result.detail = Str("also reported ", unexpected, ": ", Describe(sink));
    } else {
      result.detail = rule;
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

SuiteResult RunSuite(const std::string& dir, const std::vector<const Format*>& formats,
                     std::string* error) {
  SuiteResult result;
  std::ifstream in(fs::path(dir) / "manifest.json");
  if (!in) {
    if (error) *error = "cannot read " + (fs::path(dir) / "manifest.json").string();
    return result;
  }
  const json manifest = json::parse(in, nullptr, false);
  if (manifest.is_discarded() || !manifest.contains("cases") || !manifest["cases"].is_array()) {
    if (error) *error = "manifest.json is not a suite manifest (version 1, cases[])";
    return result;
  }
  for (const json& c : manifest["cases"]) result.cases.push_back(RunCase(dir, c, formats));
  return result;
}

namespace {

bool WriteFiles(const fs::path& folder, const std::vector<NamedFile>& files, std::string* error) {
  std::string reason;
  for (const NamedFile& file : files) {
    if (WriteOutputFile(folder / file.name, file.bytes, &reason)) continue;
    if (error) *error = reason;
    return false;
  }
  return true;
}

std::vector<std::string> NamesOf(const std::vector<NamedFile>& files) {
  std::vector<std::string> names;
  for (const NamedFile& file : files) names.push_back(file.name);
  return names;
}

// A case's files in the manifest: "file" is the one validated; a case of
// several files (a Tensil model) lists them all in "files" and its
// companions ("data") as a list, a case of one file its one companion as a
// string.
void AddFiles(json& c, const std::string& folder, const std::vector<std::string>& files,
              const std::vector<std::string>& companions) {
  const auto in_folder = [&](const std::string& name) { return folder + "/" + name; };
  c["file"] = in_folder(files[0]);
  if (files.size() > 1) {
    c["files"] = json::array();
    for (const std::string& f : files) c["files"].push_back(in_folder(f));
  }
  if (companions.size() == 1 && files.size() == 1) {
    c["data"] = in_folder(companions[0]);
  } else if (!companions.empty()) {
    c["data"] = json::array();
    for (const std::string& f : companions) c["data"].push_back(in_folder(f));
  }
}

// The valid case of each base.
bool WriteBases(const fs::path& folder, const Provider& provider, const std::vector<Base>& bases,
                json& cases, std::string* error) {
  for (const Base& base : bases) {
    if (!WriteFiles(folder, base.files, error) || !WriteFiles(folder, base.companions, error))
      return false;
    json c = {{"id", base.id}, {"format", std::string(provider.format())}, {"expect", "valid"}};
    AddFiles(c, std::string(provider.format()), NamesOf(base.files), NamesOf(base.companions));
    cases.push_back(std::move(c));
  }
  return true;
}

// One negative case per mutation case.
bool WriteNegativeCases(const fs::path& folder, const Provider& provider,
                        const std::vector<Base>& bases, json& cases, std::string* error) {
  const std::string format(provider.format());
  for (const MutationCase& mutation : provider.Cases()) {
    const std::string rule(mutation.rule->id);
    OrDeclined<AppliedCase> applied = ApplyToFirstBase(mutation, bases);
    if (const auto* declined = std::get_if<Declined>(&applied)) {
      if (error) *error = Str("no ", format, " base can break ", rule, ": ", declined->reason);
      return false;
    }
    const Base* base = std::get<AppliedCase>(applied).base;
    const Mutated& mutated = std::get<AppliedCase>(applied).mutated;
    if (!WriteFiles(folder, mutated.files, error)) return false;
    json c = {{"id", rule},         {"format", format},
              {"base", base->name}, {"expect", CategoryName(mutation.rule->category)},
              {"rule", rule},       {"location", {{"path", mutated.path}, {"offset", nullptr}}}};
    AddFiles(c, format, NamesOf(mutated.files), mutated.companions);
    if (!mutation.also.empty()) {
      c["also"] = json::array();
      for (const Rule* implied : mutation.also) c["also"].push_back(std::string(implied->id));
    }
    cases.push_back(std::move(c));
  }
  return true;
}

}  // namespace

bool GenerateSuite(const std::string& dir, const std::vector<const Provider*>& providers,
                   std::string* error) {
  json cases = json::array();
  for (const Provider* provider : providers) {
    const fs::path folder = fs::path(dir) / provider->format();
    std::string reason;
    if (!MakeDirectories(folder, &reason)) {
      if (error) *error = reason;
      return false;
    }
    const std::vector<Base> bases = provider->Bases();
    if (!WriteBases(folder, *provider, bases, cases, error) ||
        !WriteNegativeCases(folder, *provider, bases, cases, error)) {
      return false;
    }
  }
  const std::string manifest = json{{"version", 1}, {"cases", cases}}.dump(1) + "\n";
  std::string reason;
  if (WriteOutputFile(fs::path(dir) / "manifest.json", AsBytes(manifest), &reason)) return true;
  if (error) *error = reason;
  return false;
}

std::string SuiteJunit(const SuiteResult& result) {
  double total = 0;
  for (const CaseResult& c : result.cases) total += c.seconds;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out +=
      Str("<testsuites tests=\"", result.cases.size(), "\" failures=\"", result.failed(), "\">\n");
  out += Str("  <testsuite name=\"conformance\" tests=\"", result.cases.size(), "\" failures=\"",
             result.failed(), "\" time=\"", total, "\">\n");
  for (const CaseResult& c : result.cases) {
    out += Str("    <testcase classname=\"", XmlEscape(c.format, true), "\" name=\"",
               XmlEscape(c.id, true), "\" time=\"", c.seconds, "\"");
    if (c.passed) {
      out += "/>\n";
    } else {
      out +=
          Str(">\n      <failure message=\"", XmlEscape(c.detail, true), "\"/>\n    </testcase>\n");
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace accelcheck::conformance
