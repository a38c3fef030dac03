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

#include "conformance/gemini/cases.h"
#include "conformance/pte/bases.h"
#include "conformance/pte/mutate.h"
#include "conformance/pte/serialize.h"
#include "conformance/tensil/bundle.h"
#include "validators/core/format.h"
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

namespace {

bool WriteBytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

std::string Expectation(Category category) {
  switch (category) {
    case Category::kMalformed:
      return "malformed";
    case Category::kInvalid:
      return "invalid";
    case Category::kUnsupported:
      return "unsupported";
    case Category::kLimit:
      return "limit";
    case Category::kInternal:
      return "internal";
  }
  return "invalid";
}

std::string FileId(std::string_view rule_id) {
  std::string s(rule_id);
  for (char& ch : s) {
    if (ch == '.') ch = '_';
  }
  return s;
}

bool PathMatches(const std::string& reported, const std::string& expected) {
  if (expected.empty()) return true;
  if (reported.compare(0, expected.size(), expected) != 0) return false;
  // Object paths nest with '.' and '[', JSON pointers (gemini) with '/'.
  return reported.size() == expected.size() || reported[expected.size()] == '.' ||
         reported[expected.size()] == '[' || reported[expected.size()] == '/';
}

std::string Describe(const DiagnosticSink& sink) {
  std::string out;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (!out.empty()) out += "; ";
    out += Str(SeverityName(d.severity), "[", d.rule->id, "] ", d.location.path, ": ", d.message);
  }
  return out.empty() ? "no diagnostics" : out;
}

CaseResult RunCase(const fs::path& dir, const json& c) {
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
  const Format* format =
      result.format.empty() ? DetectFormat(input->bytes()) : FindFormat(result.format);
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

std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') {
          out += ' ';
        } else {
          out += ch;
        }
    }
  }
  return out;
}

}  // namespace

SuiteResult RunSuite(const std::string& dir, std::string* error) {
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
  for (const json& c : manifest["cases"]) result.cases.push_back(RunCase(dir, c));
  return result;
}

namespace {

// One valid file the suite writes and mutates: an example program, or the
// companion .ptd of one.
struct SuiteBase {
  std::string name;
  std::string extension;  // ".pte" or ".ptd"
  std::vector<uint8_t> bytes;
  std::string data;  // for a program with a companion: the .ptd's file
};

bool WriteCase(const fs::path& dir, const std::string& file, const std::vector<uint8_t>& bytes,
               std::string* error) {
  if (WriteBytes(dir / file, bytes)) return true;
  if (error) *error = "cannot write " + file;
  return false;
}

// Writes the example bases and their valid cases: each program, and its
// companion .ptd both alone and as the program's "data".
bool WriteBases(const fs::path& dir, std::vector<SuiteBase>& bases, json& cases,
                std::string* error) {
  for (const pte::NamedBase& base : pte::ExampleBases()) {
    SuiteBase program{base.name, ".pte", pte::Serialize(base.file), ""};
    std::optional<SuiteBase> data;
    if (base.data) {
      data = SuiteBase{base.name, ".ptd", pte::SerializePtd(*base.data), ""};
      program.data = "pte/valid_" + base.name + ".ptd";
      if (!WriteCase(dir, program.data, data->bytes, error)) return false;
      cases.push_back({{"id", "pte.valid." + base.name + ".ptd"},
                       {"format", "pte"},
                       {"file", program.data},
                       {"expect", "valid"}});
    }
    const std::string file = "pte/valid_" + base.name + ".pte";
    if (!WriteCase(dir, file, program.bytes, error)) return false;
    json c = {
        {"id", "pte.valid." + base.name}, {"format", "pte"}, {"file", file}, {"expect", "valid"}};
    if (data) c["data"] = program.data;
    cases.push_back(std::move(c));
    bases.push_back(std::move(program));
    if (data) bases.push_back(std::move(*data));
  }
  return true;
}

// The Tensil cases: the tiny bundle and one mutation of it per rule. A case
// is several files: "file" is the .tmodel, "files" lists the .tprog and
// .tdata it names, and "data" the .tarch it is validated against.
bool WriteTensilCases(const fs::path& dir, json& cases, std::string* error) {
  namespace tc = tensil::conformance;
  const auto relative = [&](const std::string& path) {
    return fs::relative(path, dir).generic_string();
  };
  const auto write = [&](const tc::Bundle& bundle, const std::string& stem, json c) {
    const auto written = tc::WriteBundle(bundle, dir / "tensil", stem, error);
    if (!written) return false;
    c["format"] = "tensil";
    c["file"] = relative(written->tmodel);
    c["files"] = json::array();
    for (const std::string& f : written->files) c["files"].push_back(relative(f));
    if (!written->companions.empty()) {
      c["data"] = json::array();
      for (const std::string& f : written->companions) c["data"].push_back(relative(f));
    }
    cases.push_back(std::move(c));
    return true;
  };
  if (!write(tc::TinyBundle(), "valid_tiny", {{"id", "tensil.valid.tiny"}, {"expect", "valid"}}))
    return false;
  for (const tc::Mutation& m : tc::Mutations()) {
    tc::Bundle bundle = tc::TinyBundle();
    const std::string path = m.change(bundle);
    json c = {{"id", std::string(m.rule->id)},
              {"base", "valid_tiny.tmodel"},
              {"expect", Expectation(m.rule->category)},
              {"rule", std::string(m.rule->id)},
              {"location", {{"path", path}, {"offset", nullptr}}}};
    if (!m.also.empty()) {
      c["also"] = json::array();
      for (const Rule* implied : m.also) c["also"].push_back(std::string(implied->id));
    }
    if (!write(bundle, FileId(m.rule->id), std::move(c))) return false;
  }
  return true;
}

}  // namespace

bool GenerateSuite(const std::string& dir, std::string* error) {
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "pte", ec);
  if (!ec) fs::create_directories(fs::path(dir) / "tensil", ec);
  if (ec) {
    if (error) *error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  json cases = json::array();
  std::vector<SuiteBase> bases;
  if (!WriteBases(dir, bases, cases, error)) return false;
  // One negative case per mutable rule: the first base (in order) that
  // offers a place for the mutation. The mutator declines a .ptd rule on a
  // program and a program rule on a .ptd.
  for (const Rule* rule : pte::PteMutator().rules()) {
    std::optional<std::vector<uint8_t>> bytes;
    std::string path, why;
    const SuiteBase* used = nullptr;
    for (const SuiteBase& base : bases) {
      if (pte::NeedsCompanion(*rule) && base.data.empty()) continue;
      bytes = pte::MutatePte(base.bytes, *rule, 0, &path, &why);
      if (bytes) {
        used = &base;
        break;
      }
    }
    if (!bytes) {
      if (error) *error = Str("no example base can break ", rule->id, ": ", why);
      return false;
    }
    const std::string file = "pte/" + FileId(rule->id) + used->extension;
    if (!WriteCase(dir, file, *bytes, error)) return false;
    json c = {{"id", std::string(rule->id)},
              {"format", "pte"},
              {"file", file},
              {"base", used->name + used->extension},
              {"expect", Expectation(rule->category)},
              {"rule", std::string(rule->id)},
              {"location", {{"path", path}, {"offset", nullptr}}}};
    if (!used->data.empty()) c["data"] = used->data;
    json also = json::array();
    for (const Rule* implied : pte::ImpliedRules(*rule)) also.push_back(std::string(implied->id));
    if (!also.empty()) c["also"] = also;
    cases.push_back(std::move(c));
  }
  if (!WriteTensilCases(dir, cases, error)) return false;
  if (!gemini::WriteGeminiCases(dir, cases, error)) return false;
  std::ofstream out(fs::path(dir) / "manifest.json");
  out << json{{"version", 1}, {"cases", cases}}.dump(1) << "\n";
  if (!out) {
    if (error) *error = "cannot write manifest.json";
    return false;
  }
  return true;
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
    out += Str("    <testcase classname=\"", XmlEscape(c.format), "\" name=\"", XmlEscape(c.id),
               "\" time=\"", c.seconds, "\"");
    if (c.passed) {
      out += "/>\n";
    } else {
      out += Str(">\n      <failure message=\"", XmlEscape(c.detail), "\"/>\n    </testcase>\n");
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace accelcheck::conformance
