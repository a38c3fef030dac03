// The mutator's promise on every input it may meet: for every rule of every
// provider, `MutateFile` on a real file of ../shared/corpus or on a generated
// input (each provider's bases, Gemini schedules of the reference scheduler
// with seeds) either writes a result that, validated under --strict with the
// companions it names, reports its rule and no finding of another rule but
// its case's `also` beyond those the input itself has under --strict; or
// declines with a reason. Warnings count as findings too: --strict leaves
// only a few real-file quirks as warnings, and a mutation adds none.
//
// One test per input, named after its format and file
// (Inputs/MutateEveryRule.KeepsItsPromise/tensil_xor_compilerspec__xor_2x2_memory256_tmodel);
// a failure names the rule. Every rule runs on every input: the largest
// real files (the 50 000 instruction ResNet-20 programs, the 1 MB Gemini
// schedule) take seconds each.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/gemini/generate.h"
#include "conformance/mutator.h"
#include "tests/support/describe.h"
#include "tests/support/temp.h"
#include "tools/accelcheck/registry.h"
#include "validators/core/format.h"
#include "validators/core/limits.h"
#include "validators/core/text.h"

namespace accelcheck::conformance {
namespace {

namespace fs = std::filesystem;
using ::accelcheck::test::Describe;

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR); }

// An input to mutate: a file on disk with its companions, or one the test
// writes into a directory first.
struct Input {
  std::string name;  // <format>_<file>, the test's name
  const FormatEntry* format = nullptr;
  std::function<MutationInput(const fs::path& dir)> write;
};

void PrintTo(const Input& input, std::ostream* out) { *out << input.name; }

// "tensil", "xor_2x2_memory256.tmodel" -> "tensil_xor_2x2_memory256_tmodel":
// a test name takes only letters, digits and '_'.
std::string TestName(std::string_view format, const std::string& file) {
  std::string name = Str(format, "_", file);
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

Input OnDisk(std::string_view format, const fs::path& file, std::vector<fs::path> companions,
             std::string_view name_prefix = "") {
  std::vector<std::string> paths;
  for (const fs::path& companion : companions) paths.push_back(companion.string());
  return {TestName(format, Str(name_prefix, file.filename().string())), FindFormat(format),
          [file, paths](const fs::path&) {
            return MutationInput{file.string(), paths};
          }};
}

std::vector<fs::path> FilesIn(const fs::path& dir, std::string_view extension) {
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() == extension) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every .pte and .ptd; a program whose EXTERNAL tensors live in a .ptd of
// the corpus is given it, as tests/validators/pte/corpus_test.cc does.
std::vector<Input> PteCorpus() {
  const fs::path dir = CorpusDir() / "pte";
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"executorch-rs__data_map_model.pte",
       "executorch-rs__data_map__default_external_constant.ptd"},
      {"executorch__module_linear.pte", "executorch__module_linear.ptd"},
  };
  std::vector<Input> inputs;
  for (const std::string_view extension : {".pte", ".ptd"}) {
    for (const fs::path& file : FilesIn(dir, extension)) {
      std::vector<fs::path> companions;
      for (const auto& [program, data] : pairs) {
        if (file.filename() == program) companions.push_back(dir / data);
      }
      inputs.push_back(OnDisk("pte", file, companions));
    }
  }
  return inputs;
}

// Every .tmodel, with the .tarch of the same stem when there is one. The
// ResNet-20 variants share a file name, so their folder names them.
std::vector<Input> TensilCorpus() {
  std::vector<Input> inputs;
  for (const fs::path& model : FilesIn(CorpusDir() / "tensil", ".tmodel")) {
    fs::path tarch = model;
    tarch.replace_extension(".tarch");
    std::vector<fs::path> companions;
    if (fs::exists(tarch)) companions.push_back(tarch);
    inputs.push_back(
        OnDisk("tensil", model, companions, model.parent_path().filename().string() + "__"));
  }
  return inputs;
}

// Every Edge TPU model but the pre-2020 one, which is unsupported and so
// not a valid input for any mutation.
std::vector<Input> EdgetpuCorpus() {
  std::vector<Input> inputs;
  for (const fs::path& model : FilesIn(CorpusDir() / "edgetpu", ".tflite")) {
    if (model.filename().string().find("LEGACY_NOT_DWN1") != std::string::npos) continue;
    inputs.push_back(OnDisk("edgetpu", model, {}));
  }
  return inputs;
}

// Every NEFF: the seven real files of Trn1 and Trn2.
std::vector<Input> NeffCorpus() {
  std::vector<Input> inputs;
  for (const fs::path& neff : FilesIn(CorpusDir() / "neff", ".neff")) {
    inputs.push_back(OnDisk("neff", neff, {}));
  }
  return inputs;
}

// Every scheduler IR with its frontend IR:
// int8_resnet34.sim_quantized_b16_c1_bw16_stschedule.json has
// frontend_ir/int8_resnet34.sim_quantized_b16.json; and every frontend IR
// alone, which the frontend rules' cases change.
std::vector<Input> GeminiCorpus() {
  const fs::path dir = CorpusDir() / "gemini";
  std::vector<Input> inputs;
  for (const fs::path& ir : FilesIn(dir / "scheduler_ir", ".json")) {
    const std::string name = ir.filename().string();
    const fs::path frontend =
        dir / "frontend_ir" / (name.substr(0, name.find("_c1_bw16_stschedule.json")) + ".json");
    inputs.push_back(OnDisk("gemini", ir, {frontend}));
  }
  for (const fs::path& frontend : FilesIn(dir / "frontend_ir", ".json"))
    inputs.push_back(OnDisk("gemini", frontend, {}, "frontend__"));
  return inputs;
}

void WriteFile(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

// Each provider's valid bases, written with their companions.
std::vector<Input> ProviderBases() {
  std::vector<Input> inputs;
  for (const FormatEntry& entry : Formats()) {
    if (entry.conformance == nullptr) continue;
    for (const Base& base : entry.conformance->Bases()) {
      inputs.push_back(
          {TestName(entry.id(), "base_" + base.name), &entry, [base](const fs::path& dir) {
             for (const NamedFile& file : base.files) WriteFile(dir / file.name, file.bytes);
             MutationInput input{(dir / base.files[0].name).string(), {}};
             for (const NamedFile& companion : base.companions) {
               WriteFile(dir / companion.name, companion.bytes);
               input.companions.push_back((dir / companion.name).string());
             }
             return input;
           }});
    }
  }
  return inputs;
}

// Schedules of the reference scheduler: sizes and layer kinds from the seed,
// on one core, a row of two and a 2x2 mesh.
std::vector<Input> GeneratedSchedules() {
  std::vector<Input> inputs;
  for (const auto& [mesh_x, mesh_y] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{2, 2}}) {
    for (const uint64_t seed : {1, 2}) {
      gemini::GenerateOptions bounds;
      bounds.layers = 5;
      bounds.mesh_x = mesh_x;
      bounds.mesh_y = mesh_y;
      bounds.mixed = true;
      const gemini::GenerateOptions options = gemini::RandomizeOptions(bounds, seed);
      const std::string name = Str("generated_", mesh_x, "x", mesh_y, "_seed", seed);
      inputs.push_back(
          {TestName("gemini", name), FindFormat("gemini"), [options, name](const fs::path& dir) {
             MutationInput input{(dir / (name + ".json")).string(),
                                 {(dir / (name + ".frontend.json")).string()}};
             std::ofstream ir(input.path), frontend(input.companions[0]);
             const auto error = gemini::GenerateIr(options, ir, frontend);
             EXPECT_FALSE(error) << name << ": " << *error;
             return input;
           }});
    }
  }
  return inputs;
}

std::vector<Input> AllInputs() {
  std::vector<Input> inputs;
  for (auto list : {PteCorpus(), EdgetpuCorpus(), TensilCorpus(), GeminiCorpus(), NeffCorpus(),
                    ProviderBases(), GeneratedSchedules()}) {
    inputs.insert(inputs.end(), list.begin(), list.end());
  }
  return inputs;
}

DiagnosticSink ValidateStrictly(const Format& format, const MutationInput& input) {
  DiagnosticSink sink(Profile{.strict = true}, input.path);
  std::string error;
  const std::optional<InputBuffer> bytes =
      ReadFileLimited(input.path, Limits{}.max_file_size, &error);
  EXPECT_TRUE(bytes) << error;
  if (!bytes) return sink;
  ValidateContext context;
  context.path = input.path;
  context.companions = input.companions;
  format.Validate(*bytes, context, sink);
  return sink;
}

using Findings = std::set<std::pair<const Rule*, std::string>>;

// The input's errors and warnings under --strict: real files keep their
// documented quirks, which a mutation leaves in place.
Findings FindingsOf(const DiagnosticSink& sink) {
  Findings findings;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.severity >= Severity::kWarning) findings.emplace(d.rule, d.location.path);
  }
  return findings;
}

// Why the result of `mutation` does not keep its promise, or "" when it does.
std::string BrokenPromise(const Format& format, const MutationCase& mutation,
                          const WrittenMutation& written, const Findings& baseline) {
  const DiagnosticSink sink = ValidateStrictly(format, {written.files[0], written.companions});
  bool reported = false;
  std::string others;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == mutation.rule) reported = true;
    const bool allowed =
        d.rule == mutation.rule ||
        std::find(mutation.also.begin(), mutation.also.end(), d.rule) != mutation.also.end() ||
        baseline.count({d.rule, d.location.path}) != 0;
    if (d.severity >= Severity::kWarning && !allowed)
      others += Str(" ", d.rule->id, " at \"", d.location.path, "\"");
  }
  if (!others.empty()) return Str("also breaks", others, ":\n", Describe(sink));
  if (!reported) return Str("does not report its rule:\n", Describe(sink));
  return "";
}

class MutateEveryRule : public ::testing::TestWithParam<Input> {};

TEST_P(MutateEveryRule, KeepsItsPromise) {
  const Input& param = GetParam();
  ASSERT_NE(param.format, nullptr);
  ASSERT_NE(param.format->conformance, nullptr);
  const fs::path dir = test::ProcessTempPath(param.name);
  fs::create_directories(dir);
  const MutationInput input = param.write(dir);
  const Format& format = param.format->validator;
  const Findings baseline = FindingsOf(ValidateStrictly(format, input));
  const std::string extension = fs::path(input.path).extension().string();
  int written = 0, declined = 0;
  for (const MutationCase& mutation : param.format->conformance->Cases()) {
    const std::string rule(mutation.rule->id);
    const fs::path out = dir / ("mutated_" + FileId(rule) + extension);
    const MutationResult result =
        MutateFile(format, *param.format->conformance, input, *mutation.rule, 0, out.string());
    if (const auto* no = std::get_if<Declined>(&result)) {
      EXPECT_FALSE(no->reason.empty())
          << param.name << ": " << rule << " declined without a reason";
      ++declined;
      continue;
    }
    if (const auto* failed = std::get_if<WriteFailed>(&result)) {
      ADD_FAILURE() << param.name << ": " << rule << " could not be written: " << failed->reason;
      continue;
    }
    ++written;
    const WrittenMutation& files = std::get<WrittenMutation>(result);
    const std::string broken = BrokenPromise(format, mutation, files, baseline);
    EXPECT_EQ(broken, "") << param.name << " (" << input.path << "): the mutation of " << rule
                          << " " << broken;
    for (const std::string& file : files.files) fs::remove(file);
  }
  RecordProperty("written", written);
  RecordProperty("declined", declined);
}

INSTANTIATE_TEST_SUITE_P(Inputs, MutateEveryRule, ::testing::ValuesIn(AllInputs()),
                         [](const ::testing::TestParamInfo<Input>& input) {
                           return input.param.name;
                         });

// Declining is no way out of the promise on the provider's own bases: each
// rule is written from one of them, as its conformance case is.
TEST(MutateEveryRule, EachRuleIsWrittenFromABase) {
  for (const FormatEntry& entry : Formats()) {
    if (entry.conformance == nullptr) continue;
    std::vector<MutationInput> bases;
    for (const Input& base : ProviderBases()) {
      if (base.format != &entry) continue;
      const fs::path dir = test::ProcessTempPath("written_" + base.name);
      fs::create_directories(dir);
      bases.push_back(base.write(dir));
    }
    for (const MutationCase& mutation : entry.conformance->Cases()) {
      std::string reasons;
      for (const MutationInput& base : bases) {
        const fs::path out = fs::path(base.path).parent_path() /
                             ("mutated" + fs::path(base.path).extension().string());
        const MutationResult result =
            MutateFile(entry.validator, *entry.conformance, base, *mutation.rule, 0, out.string());
        const auto* declined = std::get_if<Declined>(&result);
        const auto* failed = std::get_if<WriteFailed>(&result);
        reasons += Str("\n  ", base.path, ": ",
                       declined ? declined->reason
                       : failed ? failed->reason
                                : "");
        if (std::holds_alternative<WrittenMutation>(result)) {
          reasons.clear();
          break;
        }
      }
      EXPECT_EQ(reasons, "") << mutation.rule->id << " is declined on every base:" << reasons;
    }
  }
}

// The real files come from ../shared/corpus; without it only the generated
// inputs run.
TEST(MutateEveryRule, RealFilesArePresent) {
  if (!fs::is_directory(CorpusDir()))
    GTEST_SKIP() << "no corpus at " << CorpusDir() << ": the mutations of real files are skipped";
  EXPECT_FALSE(PteCorpus().empty());
  EXPECT_FALSE(EdgetpuCorpus().empty());
  EXPECT_FALSE(TensilCorpus().empty());
  EXPECT_FALSE(GeminiCorpus().empty());
}

}  // namespace
}  // namespace accelcheck::conformance
