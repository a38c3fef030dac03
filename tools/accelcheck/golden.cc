#include "tools/accelcheck/golden.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "validators/core/bytes.h"
#include "validators/core/output_file.h"
#include "validators/core/text.h"

namespace accelcheck::golden {

namespace fs = std::filesystem;

namespace {

// case.json is a few hundred bytes; a generated or CSV array is bounded
// too, so that a case cannot ask for unbounded memory.
constexpr uint64_t kMaxCaseJson = 1 << 20;
constexpr uint64_t kMaxArrayFile = uint64_t{1} << 30;
constexpr uint64_t kMaxCsvFile = uint64_t{256} << 20;
constexpr uint64_t kMaxGeneratedElements = uint64_t{1} << 24;

constexpr std::pair<Source, std::string_view> kSources[] = {
    {Source::kHandComputed, "hand-computed"},
    {Source::kPublished, "published"},
    {Source::kNumpy, "numpy"},
    {Source::kOtherMode, "other-mode"},
    {Source::kRegressionPin, "regression-pin"},
};

std::optional<Source> ParseSource(std::string_view name) {
  for (const auto& [source, text] : kSources) {
    if (text == name) return source;
  }
  return std::nullopt;
}

// The dtypes by the names DType::Name gives.
std::optional<npy::DType> DTypeNamed(std::string_view name) {
  for (const char* descr : {"|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2",
                            "<V2", "<f4", "<f8"}) {
    const auto dtype = npy::ParseDescr(descr);
    if (dtype && dtype->Name() == name) return dtype;
  }
  return std::nullopt;
}

bool IsUnsigned(const Json& value) { return value.is_number_unsigned(); }

// A path under the corpus: relative, without "..", so that a case reads
// nothing outside it.
std::optional<std::string> UnsafeCorpusPath(const std::string& path) {
  if (path.empty() || path.front() == '/') return Str(Quoted(path), " is not a relative path");
  for (const auto& part : fs::path(path)) {
    if (part == "..") return Str(Quoted(path), " leaves the corpus");
  }
  return std::nullopt;
}

std::optional<std::vector<uint64_t>> ShapeOf(const Json& value, std::string* error) {
  if (!value.is_array()) {
    *error = "shape is not an array of non-negative integers";
    return std::nullopt;
  }
  std::vector<uint64_t> shape;
  for (const Json& dim : value) {
    if (!IsUnsigned(dim)) {
      *error = "shape is not an array of non-negative integers";
      return std::nullopt;
    }
    shape.push_back(dim.get<uint64_t>());
  }
  return shape;
}

std::optional<uint64_t> ElementCount(const std::vector<uint64_t>& shape, uint64_t limit) {
  uint64_t count = 1;
  for (uint64_t dim : shape) {
    if (dim != 0 && count > limit / dim) return std::nullopt;
    count *= dim;
  }
  return count;
}

// A [first, count] pair.
bool IsRange(const Json& value) {
  return value.is_array() && value.size() == 2 && IsUnsigned(value[0]) && IsUnsigned(value[1]);
}

std::optional<std::string> CheckGenerate(const Json& spec) {
  if (auto key = UnknownKey(spec, {"seed", "dtype", "shape", "low", "high"}, "generate"))
    return key;
  if (!spec.contains("seed") || !IsUnsigned(spec["seed"]))
    return "generate.seed is not a non-negative integer";
  if (!spec.contains("dtype") || !spec["dtype"].is_string() ||
      !DTypeNamed(spec["dtype"].get<std::string>()))
    return "generate.dtype is not a dtype name (float32, int8, ...)";
  std::string error;
  if (!spec.contains("shape") || !ShapeOf(spec["shape"], &error))
    return "generate.shape is not an array of non-negative integers";
  if (!ElementCount(*ShapeOf(spec["shape"], &error), kMaxGeneratedElements))
    return Str("generate.shape asks for more than ", kMaxGeneratedElements, " elements");
  for (const char* bound : {"low", "high"}) {
    if (!spec.contains(bound) || !spec[bound].is_number() ||
        !std::isfinite(spec[bound].get<double>()))
      return Str("generate.", bound, " is not a finite number");
  }
  if (spec["low"].get<double>() > spec["high"].get<double>()) return "generate.low exceeds high";
  return std::nullopt;
}

std::optional<std::string> CheckCorpusCsv(const Json& spec) {
  if (auto key = UnknownKey(spec, {"path", "header", "match", "rows", "columns", "dtype", "shape"},
                            "corpus_csv"))
    return key;
  if (!spec.contains("path") || !spec["path"].is_string()) return "corpus_csv.path is not a string";
  if (auto unsafe = UnsafeCorpusPath(spec["path"].get<std::string>())) return unsafe;
  if (spec.contains("header") && !spec["header"].is_boolean())
    return "corpus_csv.header is not a boolean";
  if (spec.contains("match")) {
    const Json& match = spec["match"];
    if (auto key = UnknownKey(match, {"column", "value"}, "corpus_csv.match")) return key;
    if (!match.contains("column") || !IsUnsigned(match["column"]) || !match.contains("value") ||
        !match["value"].is_string())
      return "corpus_csv.match needs column (an integer) and value (a string)";
  }
  for (const char* range : {"rows", "columns"}) {
    if (spec.contains(range) && !IsRange(spec[range]))
      return Str("corpus_csv.", range, " is not [first, count]");
  }
  if (!spec.contains("columns")) return "corpus_csv.columns is missing";
  if (!spec.contains("dtype") || !spec["dtype"].is_string() ||
      !DTypeNamed(spec["dtype"].get<std::string>()))
    return "corpus_csv.dtype is not a dtype name (float32, int16, ...)";
  std::string error;
  if (!spec.contains("shape") || !ShapeOf(spec["shape"], &error))
    return "corpus_csv.shape is not an array of non-negative integers";
  if (!ElementCount(*ShapeOf(spec["shape"], &error), kMaxGeneratedElements))
    return Str("corpus_csv.shape asks for more than ", kMaxGeneratedElements, " elements");
  return std::nullopt;
}

bool IsIntegralDType(const npy::DType& dtype) {
  return dtype.kind == npy::Kind::kSigned || dtype.kind == npy::Kind::kUnsigned ||
         dtype.kind == npy::Kind::kBool;
}

// Integer elements must be JSON integers, so that 64-bit values stay exact.
std::optional<std::string> CheckValues(const Json& spec) {
  if (auto key = UnknownKey(spec, {"dtype", "shape", "data"}, "values")) return key;
  if (!spec.contains("dtype") || !spec["dtype"].is_string() ||
      !DTypeNamed(spec["dtype"].get<std::string>()))
    return "values.dtype is not a dtype name (float32, int8, ...)";
  const npy::DType dtype = *DTypeNamed(spec["dtype"].get<std::string>());
  std::string error;
  const auto shape = spec.contains("shape") ? ShapeOf(spec["shape"], &error) : std::nullopt;
  if (!shape) return "values.shape is not an array of non-negative integers";
  if (!spec.contains("data") || !spec["data"].is_array())
    return "values.data is not an array of numbers";
  const auto count = ElementCount(*shape, kMaxGeneratedElements);
  if (!count || *count != spec["data"].size()) {
    return Str("values.data has ", spec["data"].size(), " elements but the shape needs ",
               count ? Str(*count) : std::string("too many"));
  }
  for (const Json& value : spec["data"]) {
    const bool fits = IsIntegralDType(dtype) ? value.is_number_integer() : value.is_number();
    if (!fits) return Str("values.data holds ", value.dump(), ", not a ", dtype.Name());
  }
  return std::nullopt;
}

// Written out in case.json: each element's bits from the JSON number.
npy::Array Values(const Json& spec) {
  const npy::DType dtype = *DTypeNamed(spec["dtype"].get<std::string>());
  std::string error;
  std::vector<uint64_t> shape = *ShapeOf(spec["shape"], &error);
  if (!IsIntegralDType(dtype)) {
    std::vector<double> values;
    for (const Json& value : spec["data"]) values.push_back(value.get<double>());
    return npy::FromValues(dtype, std::move(shape), values);
  }
  std::vector<uint64_t> bits;
  const uint64_t mask = dtype.bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * dtype.bytes)) - 1;
  for (const Json& value : spec["data"]) {
    const uint64_t raw = value.is_number_unsigned() ? value.get<uint64_t>()
                                                    : static_cast<uint64_t>(value.get<int64_t>());
    bits.push_back(dtype.kind == npy::Kind::kBool ? (raw != 0 ? 1 : 0) : raw & mask);
  }
  return npy::FromBits(dtype, std::move(shape), bits);
}

// Checks an array spec's form; reading it waits for the run.
std::optional<std::string> CheckNpyName(const Json& spec) {
  if (!spec.is_string()) return "is not a .npy file name";
  const std::string name = spec.get<std::string>();
  if (name.size() < 5 || name.substr(name.size() - 4) != ".npy")
    return Str(Quoted(name), " is not a .npy file name");
  if (auto unsafe = UnsafeFileName(name)) return Str(Quoted(name), ": ", *unsafe);
  return std::nullopt;
}

std::optional<std::string> CheckArraySpec(const Json& spec) {
  if (spec.is_string()) return CheckNpyName(spec);
  if (!spec.is_object() || spec.size() != 1)
    return "an array is a .npy file name, {\"values\": {...}}, {\"generate\": {...}}, "
           "{\"corpus_csv\": {...}} or {\"reference\": FILE}";
  if (spec.contains("values")) return CheckValues(spec["values"]);
  if (spec.contains("generate")) return CheckGenerate(spec["generate"]);
  if (spec.contains("corpus_csv")) return CheckCorpusCsv(spec["corpus_csv"]);
  if (spec.contains("reference")) {
    if (auto problem = CheckNpyName(spec["reference"])) return Str("reference ", *problem);
    return std::nullopt;
  }
  return Str("unknown array kind ", Quoted(spec.begin().key()),
             " (a .npy file name, values, generate, corpus_csv or reference)");
}

std::optional<std::string> CheckArrays(const Json& value, std::string_view what,
                                       std::vector<std::pair<std::string, Json>>* out) {
  if (!value.is_object()) return Str(what, " is not an object of name: array");
  for (const auto& [name, spec] : value.items()) {
    if (auto problem = CheckArraySpec(spec)) return Str(what, ".", name, ": ", *problem);
    out->emplace_back(name, spec);
  }
  return std::nullopt;
}

std::optional<std::string> CheckTolerance(const Json& value, compare::Tolerance* tolerance) {
  if (value == "exact") {
    *tolerance = compare::Tolerance{true, 0, 0};
    return std::nullopt;
  }
  if (auto key = UnknownKey(value, {"rtol", "atol"}, "tolerance"))
    return "tolerance is \"exact\" or {\"rtol\": R, \"atol\": A}";
  if (value.empty()) return "tolerance names neither rtol nor atol";
  *tolerance = compare::Tolerance{false, 0, 0};
  for (const auto& [key, field] :
       {std::pair{"rtol", &tolerance->rtol}, std::pair{"atol", &tolerance->atol}}) {
    if (!value.contains(key)) continue;
    if (!value[key].is_number() || !std::isfinite(value[key].get<double>()) ||
        value[key].get<double>() < 0)
      return Str("tolerance.", key, " is not a finite number >= 0");
    *field = value[key].get<double>();
  }
  return std::nullopt;
}

std::optional<std::string> CheckModel(const Json& model, const GoldenFormat* format) {
  if (!model.is_object()) return "model is not an object";
  if (model.contains("corpus")) {
    if (!model["corpus"].is_string()) return "model.corpus is not a string";
    if (auto unsafe = UnsafeCorpusPath(model["corpus"].get<std::string>())) return unsafe;
    if (format != nullptr && format->check_corpus_model) {
      if (auto problem = format->check_corpus_model(model)) return Str("model: ", *problem);
    } else if (model.size() != 1) {
      return "a corpus model has no other key";
    }
    return std::nullopt;
  }
  if (format == nullptr) return std::nullopt;
  if (auto problem = format->check_model(model)) return Str("model: ", *problem);
  return std::nullopt;
}

std::optional<std::string> CheckMode(const std::string& mode, const GoldenFormat* format,
                                     std::string_view key) {
  if (format == nullptr) return std::nullopt;
  if (std::find(format->modes.begin(), format->modes.end(), mode) != format->modes.end())
    return std::nullopt;
  std::string known;
  for (const std::string& m : format->modes) known += Str(known.empty() ? "" : ", ", m);
  return Str(key, " ", Quoted(mode), " is not one of this format's modes (", known, ")");
}

std::optional<std::string> StringField(const Json& doc, const char* key, bool required,
                                       std::string* out) {
  if (!doc.contains(key)) return required ? std::optional(Str(key, " is missing")) : std::nullopt;
  if (!doc[key].is_string()) return Str(key, " is not a string");
  *out = doc[key].get<std::string>();
  if (required && out->empty()) return Str(key, " is empty");
  return std::nullopt;
}

// The schema, key by key (golden/README.md "case.json").
std::optional<std::string> CheckCase(const Json& doc, const GoldenFormat* format, Case* c) {
  if (auto key = UnknownKey(
          doc,
          {"description", "operator", "source", "independent_sibling", "model", "companions",
           "mode", "reference_mode", "seed", "inputs", "expected", "tolerance", "notes"},
          "case.json"))
    return key;
  std::string source, notes;
  for (const auto& [key, out] :
       {std::pair{"description", &c->description}, std::pair{"operator", &c->op},
        std::pair{"source", &source}, std::pair{"mode", &c->mode}}) {
    if (auto problem = StringField(doc, key, true, out)) return problem;
  }
  if (auto problem = StringField(doc, "notes", false, &notes)) return problem;
  const auto parsed_source = ParseSource(source);
  if (!parsed_source) {
    return Str("source ", Quoted(source),
               " is not one of hand-computed, published, numpy, other-mode, regression-pin");
  }
  c->source = *parsed_source;
  const bool pin = c->source == Source::kRegressionPin;
  const bool other_mode = c->source == Source::kOtherMode;
  if (auto problem = StringField(doc, "independent_sibling", pin, &c->independent_sibling))
    return problem;
  if (!pin && doc.contains("independent_sibling"))
    return "independent_sibling belongs to regression-pin cases only";
  if (auto problem = StringField(doc, "reference_mode", other_mode, &c->reference_mode))
    return problem;
  if (!other_mode && doc.contains("reference_mode"))
    return "reference_mode belongs to other-mode cases only";
  if (!doc.contains("model")) return "model is missing";
  c->model = doc["model"];
  if (auto problem = CheckModel(c->model, format)) return problem;
  if (doc.contains("companions")) {
    if (!c->corpus_model()) return "companions belong to corpus models only";
    if (!doc["companions"].is_array()) return "companions is not an array of corpus paths";
    for (const Json& path : doc["companions"]) {
      if (!path.is_string()) return "companions is not an array of corpus paths";
      if (auto unsafe = UnsafeCorpusPath(path.get<std::string>()))
        return Str("companions: ", *unsafe);
      c->companions.push_back(path.get<std::string>());
    }
  }
  if (auto problem = CheckMode(c->mode, format, "mode")) return problem;
  if (other_mode) {
    if (auto problem = CheckMode(c->reference_mode, format, "reference_mode")) return problem;
    if (c->reference_mode == c->mode) return "reference_mode is the case's own mode";
  }
  if (doc.contains("seed")) {
    if (!IsUnsigned(doc["seed"])) return "seed is not a non-negative integer";
    c->seed = doc["seed"].get<uint64_t>();
  }
  if (doc.contains("inputs")) {
    if (auto problem = CheckArrays(doc["inputs"], "inputs", &c->inputs)) return problem;
  }
  if (other_mode && doc.contains("expected"))
    return "an other-mode case has no expected arrays: the reference mode's outputs are";
  if (!other_mode) {
    if (!doc.contains("expected")) return "expected is missing";
    if (auto problem = CheckArrays(doc["expected"], "expected", &c->expected)) return problem;
    if (c->expected.empty()) return "expected names no output";
  }
  if (!doc.contains("tolerance")) return "tolerance is missing";
  return CheckTolerance(doc["tolerance"], &c->tolerance);
}

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

// Uniform values in [low, high] from SplitMix64 (golden/README.md
// "Arrays"): integer dtypes take low + draw mod (high - low + 1), floats
// low + (high - low) * (draw >> 11) / 2^53.
npy::Array Generate(const Json& spec) {
  std::string error;
  const npy::DType dtype = *DTypeNamed(spec["dtype"].get<std::string>());
  const std::vector<uint64_t> shape = *ShapeOf(spec["shape"], &error);
  const uint64_t count = *ElementCount(shape, kMaxGeneratedElements);
  const double low = spec["low"].get<double>(), high = spec["high"].get<double>();
  const bool floating = dtype.kind == npy::Kind::kFloat || dtype.kind == npy::Kind::kBFloat16;
  uint64_t state = spec["seed"].get<uint64_t>();
  std::vector<double> values(count);
  for (double& value : values) {
    const uint64_t draw = SplitMix64(&state);
    if (floating) {
      value = low + (high - low) * std::ldexp(static_cast<double>(draw >> 11), -53);
    } else {
      const double span = std::floor(high) - std::ceil(low) + 1;
      value = std::ceil(low) +
              (span >= 1 ? static_cast<double>(draw % static_cast<uint64_t>(span)) : 0.0);
    }
  }
  return npy::FromValues(dtype, shape, values);
}

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> cells;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    cells.push_back(line.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cells;
}

// A cell's numbers: a cell may hold several, separated by spaces.
bool AppendNumbers(const std::string& cell, std::vector<double>* out) {
  const char* p = cell.c_str();
  bool any = false;
  while (true) {
    while (*p == ' ' || *p == '\r' || *p == '\t') ++p;
    if (*p == '\0') return any;
    char* end = nullptr;
    const double value = std::strtod(p, &end);
    if (end == p) return false;
    out->push_back(value);
    any = true;
    p = end;
  }
}

std::optional<npy::Array> ReadCorpusCsv(const Json& spec, const RunEnv& env, std::string* error) {
  const fs::path path = env.corpus_dir / spec["path"].get<std::string>();
  const auto buffer = ReadFileLimited(path.string(), kMaxCsvFile, error);
  if (!buffer) return std::nullopt;
  const std::string text(reinterpret_cast<const char*>(buffer->bytes().data()),
                         buffer->bytes().size());
  const Json* match = spec.contains("match") ? &spec["match"] : nullptr;
  const uint64_t first_row = spec.contains("rows") ? spec["rows"][0].get<uint64_t>() : 0;
  const uint64_t row_count = spec.contains("rows") ? spec["rows"][1].get<uint64_t>() : UINT64_MAX;
  const uint64_t first_column = spec["columns"][0].get<uint64_t>();
  const uint64_t column_count = spec["columns"][1].get<uint64_t>();
  std::string ignored;
  const std::vector<uint64_t> shape = *ShapeOf(spec["shape"], &ignored);
  const uint64_t count = *ElementCount(shape, kMaxGeneratedElements);
  std::vector<double> values;
  uint64_t row = 0;
  bool header = spec.value("header", false);
  size_t start = 0;
  while (start < text.size() && values.size() <= count) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (header || line.empty()) {
      header = false;
      continue;
    }
    const std::vector<std::string> cells = SplitCsvLine(line);
    if (match) {
      const uint64_t column = (*match)["column"].get<uint64_t>();
      if (column >= cells.size() || cells[column] != (*match)["value"].get<std::string>()) continue;
    }
    const uint64_t index = row++;
    if (index < first_row || index - first_row >= row_count) continue;
    if (first_column >= cells.size() || column_count > cells.size() - first_column) {
      *error = Str(path.string(), ": data row ", index, " has ", cells.size(), " columns");
      return std::nullopt;
    }
    for (uint64_t c = first_column; c < first_column + column_count; ++c) {
      if (!AppendNumbers(cells[c], &values)) {
        *error = Str(path.string(), ": data row ", index, " column ", c, " is not numbers");
        return std::nullopt;
      }
    }
  }
  if (values.size() != count) {
    *error = Str(path.string(), ": the rows and columns give ",
                 values.size() > count ? Str("more than ", count) : Str(values.size()),
                 " values but the shape ", compare::ShapeText(shape), " needs ", count);
    return std::nullopt;
  }
  return npy::FromValues(*DTypeNamed(spec["dtype"].get<std::string>()), shape, values);
}

// Whether the case names an array an outside implementation writes.
bool UsesReference(const Case& c) {
  for (const auto* arrays : {&c.inputs, &c.expected}) {
    for (const auto& [name, spec] : *arrays) {
      if (spec.is_object() && spec.contains("reference")) return true;
    }
  }
  return false;
}

bool UsesCorpus(const Case& c) {
  if (c.corpus_model() || !c.companions.empty()) return true;
  for (const auto* arrays : {&c.inputs, &c.expected}) {
    for (const auto& [name, spec] : *arrays) {
      if (spec.is_object() && spec.contains("corpus_csv")) return true;
    }
  }
  return false;
}

CaseResult Error(const std::string& id, const std::string& message) {
  return CaseResult{id, Verdict::kError, message, {}};
}

// Rewrites a regression pin's expected .npy files with `outputs`.
bool UpdatePin(const Case& c, const Arrays& outputs, std::string* error) {
  for (const auto& [name, spec] : c.expected) {
    if (!spec.is_string()) {
      *error = Str("expected.", name, " is not a .npy file of the case");
      return false;
    }
    const auto output = outputs.find(name);
    if (output == outputs.end()) {
      *error = Str("the executor gave no output ", Quoted(name));
      return false;
    }
    const std::string file = spec.get<std::string>();
    const auto path = FileInside(c.dir, file.substr(0, file.size() - 4), ".npy", error);
    if (!path || !WriteOutputFile(*path, npy::Write(output->second), error)) return false;
  }
  return true;
}

std::string OutputNames(const Arrays& outputs) {
  std::string names;
  for (const auto& [name, array] : outputs) names += Str(names.empty() ? "" : ", ", name);
  return names.empty() ? "none" : names;
}

// Compares every expected array with the output of its name; the first
// difference fails the case.
CaseResult Judge(const Case& c, const Arrays& expected, const Arrays& outputs) {
  for (const auto& [name, want] : expected) {
    const auto got = outputs.find(name);
    if (got == outputs.end()) {
      return CaseResult{c.id(),
                        Verdict::kFailed,
                        Str("no output ", Quoted(name), " (outputs: ", OutputNames(outputs), ")"),
                        {}};
    }
    const compare::Comparison comparison = compare::Compare(want, got->second, c.tolerance);
    if (!comparison.equal()) {
      return CaseResult{c.id(), Verdict::kFailed,
                        Str(name, ": ", compare::SummaryText(comparison, c.tolerance)),
                        compare::MismatchLines(comparison)};
    }
  }
  return CaseResult{
      c.id(), Verdict::kPassed, Str(expected.size(), " outputs ", c.tolerance.Text()), {}};
}

CaseResult RunCase(const Case& c, const GoldenFormat& format, const RunOptions& options) {
  const RunEnv env{options.corpus_dir, options.reference_dir};
  std::error_code ec;
  if (UsesCorpus(c) && !fs::is_directory(options.corpus_dir, ec)) {
    return CaseResult{c.id(),
                      Verdict::kSkipped,
                      Str("needs the corpus, not found at ", options.corpus_dir.string()),
                      {}};
  }
  if (UsesReference(c)) {
    const fs::path dir = options.reference_dir / c.format / c.name;
    if (options.reference_dir.empty() || !fs::is_directory(dir, ec)) {
      return CaseResult{
          c.id(),
          Verdict::kSkipped,
          options.reference_dir.empty()
              ? std::string("needs the arrays of its independent implementation: --reference-dir")
              : Str("needs the arrays of its independent implementation, not found at ",
                    dir.string()),
          {}};
    }
  }
  Arrays inputs;
  std::string error;
  bool needs_corpus = false;
  for (const auto& [name, spec] : c.inputs) {
    auto array = ResolveArray(c, spec, env, &needs_corpus, &error);
    if (!array) return Error(c.id(), Str("input ", name, ": ", error));
    inputs.emplace(name, std::move(*array));
  }
  const auto outputs = format.run(c, c.mode, inputs, env, &error);
  if (!outputs) return Error(c.id(), Str("mode ", c.mode, ": ", error));
  // A pin's expected files may not exist yet: --update writes them.
  if (options.update && c.source == Source::kRegressionPin) {
    if (!UpdatePin(c, *outputs, &error)) return Error(c.id(), Str("update: ", error));
    return CaseResult{c.id(), Verdict::kPassed, "updated the pinned outputs", {}};
  }
  Arrays expected;
  if (c.source == Source::kOtherMode) {
    auto reference = format.run(c, c.reference_mode, inputs, env, &error);
    if (!reference) return Error(c.id(), Str("reference mode ", c.reference_mode, ": ", error));
    expected = std::move(*reference);
    if (expected.empty()) return Error(c.id(), "the reference mode gave no output");
  } else {
    for (const auto& [name, spec] : c.expected) {
      auto array = ResolveArray(c, spec, env, &needs_corpus, &error);
      if (!array) return Error(c.id(), Str("expected ", name, ": ", error));
      expected.emplace(name, std::move(*array));
    }
  }
  CaseResult result = Judge(c, expected, *outputs);
  if (options.update) {
    result.message += Str(" (not updated: the source is ", SourceName(c.source),
                          "; only regression-pin cases are rewritten)");
  }
  return result;
}

// Each regression pin names an independent case of the same operator.
std::optional<std::string> CheckPin(const Case& pin, const std::map<std::string, Case>& siblings) {
  const auto sibling = siblings.find(pin.independent_sibling);
  if (sibling == siblings.end()) {
    return Str("independent_sibling ", Quoted(pin.independent_sibling),
               " is not a valid case of format ", pin.format);
  }
  if (sibling->second.source == Source::kRegressionPin)
    return Str("independent_sibling ", Quoted(pin.independent_sibling), " is a regression pin too");
  if (sibling->second.op != pin.op) {
    return Str("independent_sibling ", Quoted(pin.independent_sibling), " checks operator ",
               Quoted(sibling->second.op), ", not ", Quoted(pin.op));
  }
  return std::nullopt;
}

std::vector<fs::path> SortedDirectories(const fs::path& dir, std::string* error) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec)) dirs.push_back(it->path());
  }
  if (ec) *error = Str(dir.string(), ": ", ec.message());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

void Emit(std::vector<CaseResult>* results, CaseResult result, const RunOptions& options) {
  if (options.on_result) options.on_result(result);
  results->push_back(std::move(result));
}

void RunFormat(const fs::path& format_dir, const Formats& formats, const RunOptions& options,
               std::vector<CaseResult>* results) {
  const std::string format_id = format_dir.filename().string();
  std::string error;
  const std::vector<fs::path> case_dirs = SortedDirectories(format_dir, &error);
  if (!error.empty()) return Emit(results, Error(format_id, error), options);
  if (!formats.has_format(format_id)) {
    return Emit(results, Error(format_id, Str(Quoted(format_id), " is not a format id")), options);
  }
  const GoldenFormat* format = formats.golden(format_id);
  std::map<std::string, Case> loaded;
  std::map<std::string, std::string> load_errors;
  for (const fs::path& dir : case_dirs) {
    auto c = LoadCase(dir, format_id, format, &error);
    if (c)
      loaded.emplace(c->name, std::move(*c));
    else
      load_errors.emplace(dir.filename().string(), error);
  }
  for (const fs::path& dir : case_dirs) {
    const std::string name = dir.filename().string();
    const std::string id = Str(format_id, "/", name);
    if (const auto failed = load_errors.find(name); failed != load_errors.end()) {
      Emit(results, Error(id, failed->second), options);
      continue;
    }
    const Case& c = loaded.at(name);
    if (format == nullptr) {
      Emit(results, {id, Verdict::kSkipped, "this format has no golden runner yet", {}}, options);
      continue;
    }
    if (c.source == Source::kRegressionPin) {
      if (auto problem = CheckPin(c, loaded)) {
        Emit(results, Error(id, *problem), options);
        continue;
      }
    }
    try {
      Emit(results, RunCase(c, *format, options), options);
    } catch (const std::exception& e) {
      // A format's builder may throw on a recipe its check let through:
      // this case has no verdict, the others still run.
      Emit(results, Error(id, Str("internal error: ", e.what())), options);
    }
  }
}

}  // namespace

std::string_view SourceName(Source source) {
  for (const auto& [value, text] : kSources) {
    if (value == source) return text;
  }
  return "?";
}

std::optional<std::string> Case::corpus_model() const {
  if (model.is_object() && model.contains("corpus") && model["corpus"].is_string())
    return model["corpus"].get<std::string>();
  return std::nullopt;
}

std::optional<std::string> UnknownKey(const Json& object,
                                      std::initializer_list<const char*> allowed,
                                      std::string_view what) {
  if (!object.is_object()) return Str(what, " is not an object");
  for (const auto& item : object.items()) {
    const std::string& key = item.key();
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* k) { return key == k; })) {
      std::string known;
      for (const char* k : allowed) known += Str(known.empty() ? "" : ", ", k);
      return Str(what, " has an unknown key ", Quoted(key), " (known: ", known, ")");
    }
  }
  return std::nullopt;
}

std::optional<Case> LoadCase(const fs::path& dir, const std::string& format_id,
                             const GoldenFormat* format, std::string* error) {
  const fs::path path = dir / "case.json";
  const auto buffer = ReadFileLimited(path.string(), kMaxCaseJson, error);
  if (!buffer) return std::nullopt;
  const std::string_view text(reinterpret_cast<const char*>(buffer->bytes().data()),
                              buffer->bytes().size());
  const Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    *error = Str(path.string(), ": not JSON");
    return std::nullopt;
  }
  Case c;
  c.format = format_id;
  c.name = dir.filename().string();
  c.dir = dir;
  if (auto problem = CheckCase(doc, format, &c)) {
    *error = Str(path.string(), ": ", *problem);
    return std::nullopt;
  }
  return c;
}

std::optional<npy::Array> ResolveArray(const Case& golden_case, const Json& spec, const RunEnv& env,
                                       bool* needs_corpus, std::string* error) {
  if (spec.is_string() || spec.contains("reference")) {
    const fs::path path = spec.is_string()
                              ? golden_case.dir / spec.get<std::string>()
                              : env.reference_dir / golden_case.format / golden_case.name /
                                    spec["reference"].get<std::string>();
    const auto buffer = ReadFileLimited(path.string(), kMaxArrayFile, error);
    if (!buffer) return std::nullopt;
    auto array = npy::Read(buffer->bytes(), error);
    if (!array) *error = Str(path.string(), ": ", *error);
    return array;
  }
  if (spec.contains("values")) return Values(spec["values"]);
  if (spec.contains("generate")) return Generate(spec["generate"]);
  *needs_corpus = true;
  return ReadCorpusCsv(spec["corpus_csv"], env, error);
}

std::optional<std::vector<CaseResult>> RunAll(const RunOptions& options, const Formats& formats,
                                              std::string* error) {
  std::error_code ec;
  if (!fs::is_directory(options.root, ec)) {
    *error = Str(options.root.string(), " is not a directory");
    return std::nullopt;
  }
  std::vector<fs::path> format_dirs = SortedDirectories(options.root, error);
  if (!error->empty()) return std::nullopt;
  std::vector<CaseResult> results;
  for (const fs::path& format_dir : format_dirs) {
    if (options.format && format_dir.filename() != *options.format) continue;
    RunFormat(format_dir, formats, options, &results);
  }
  return results;
}

}  // namespace accelcheck::golden
