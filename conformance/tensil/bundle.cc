#include "conformance/tensil/bundle.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "validators/core/format.h"
#include "validators/core/limits.h"
#include "validators/core/output_file.h"
#include "validators/core/text.h"
#include "validators/tensil/disasm.h"
#include "validators/tensil/manifest.h"
#include "validators/tensil/rules.h"
#include "validators/tensil/tensil_format.h"

namespace accelcheck::tensil::conformance {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json TinyArch() {
  return {{"data_type", "FP16BP8"},    {"array_size", 2},        {"dram0_depth", 256},
          {"dram1_depth", 256},        {"local_depth", 256},     {"accumulator_depth", 256},
          {"simd_registers_depth", 1}, {"stride0_depth", 2},     {"stride1_depth", 2},
          {"number_of_threads", 1},    {"thread_queue_depth", 8}};
}

// The layout of an architecture object, or nothing when it is not a valid
// architecture.
std::optional<Layout> LayoutOfJson(const json& arch) {
  const std::string text = arch.dump();
  DiagnosticSink scratch(Profile{}, "arch");
  const std::optional<Architecture> decoded =
      DecodeArchitectureDocument(AsBytes(text), Limits{}, scratch);
  return decoded ? LayoutOf(*decoded) : std::nullopt;
}

std::string ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<uint8_t> Bytes(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

Bundle TinyBundle() {
  Bundle b;
  b.model = {{"name", "tiny"},
             {"prog", {{"file_name", "tiny.tprog"}, {"size", 0}}},
             {"consts", {{{"file_name", "tiny.tdata"}, {"base", 0}, {"size", 3}}}},
             {"inputs", {{{"name", "x"}, {"base", 0}, {"size", 1}}}},
             {"outputs", {{{"name", "y"}, {"base", 1}, {"size", 1}}}},
             {"arch", TinyArch()},
             {"load_consts_to_local", false}};
  b.program = {
      "DataMove dram1->local local=0 dram1=0 size=2",
      "DataMove dram0->local local=3 dram0=0 size=0",
      "LoadWeights local=0 size=2",
      "MatMul local=3 acc=0 size=0",
      "SIMD op=zero left=in right=in dest=r1",
      "SIMD read write op=max left=in right=r1 dest=out wacc=1 racc=0",
      "DataMove acc->local local=4 acc=1 size=0",
      "DataMove local->dram0 local=4 dram0=1 size=0",
  };
  b.tdata.assign(12, 1);
  b.read_layout = LayoutOfJson(b.arch());
  return b;
}

std::optional<Bundle> ReadBundle(const std::string& tmodel_path, std::string* error) {
  std::string text = ReadWhole(tmodel_path);
  DiagnosticSink sink(Profile{}, tmodel_path);
  ValidateContext context;
  context.path = tmodel_path;
  const InputBuffer input = InputBuffer::Copy(AsBytes(text));
  const auto loaded = LoadModel(input, context, sink);
  if (!loaded) {
    *error = Str(tmodel_path, " does not load as a valid Tensil model");
    return std::nullopt;
  }
  Bundle b;
  b.model = json::parse(text);
  b.program = Lines(Disassemble(loaded->program.bytes(), loaded->layout));
  b.tdata.assign(loaded->constants.bytes().begin(), loaded->constants.bytes().end());
  b.read_layout = loaded->layout;
  return b;
}

namespace ac = accelcheck::conformance;

ac::OrDeclined<std::vector<uint8_t>> AssembleProgram(const Bundle& bundle) {
  std::optional<Layout> layout =
      bundle.model.contains("arch") ? LayoutOfJson(bundle.model["arch"]) : std::nullopt;
  if (!layout) layout = bundle.read_layout;
  if (!layout) return ac::Declined{"the program has no instruction layout to be assembled with"};
  std::string program_text;
  for (const std::string& line : bundle.program) program_text += line + "\n";
  AssembleError assemble_error;
  auto program = Assemble(program_text, *layout, &assemble_error);
  if (!program) {
    return ac::Declined{
        Str("line ", assemble_error.line, " does not assemble: ", assemble_error.message)};
  }
  return std::move(*program);
}

ac::OrDeclined<std::vector<ac::NamedFile>> SerializeBundle(const Bundle& bundle,
                                                           const std::string& stem) {
  json model = bundle.model;
  ac::OrDeclined<std::vector<uint8_t>> program = AssembleProgram(bundle);
  if (auto* declined = std::get_if<ac::Declined>(&program)) return std::move(*declined);
  std::vector<uint8_t>& bytes = std::get<std::vector<uint8_t>>(program);
  bytes.insert(bytes.end(), bundle.trailing.begin(), bundle.trailing.end());
  if (bundle.name_files) {
    if (model.contains("prog") && model["prog"].is_object())
      model["prog"]["file_name"] = stem + ".tprog";
    if (model.contains("consts") && model["consts"].is_array()) {
      for (json& entry : model["consts"]) {
        if (entry.is_object()) entry["file_name"] = stem + ".tdata";
      }
    }
  }
  if (bundle.fix_prog_size && model.contains("prog") && model["prog"].contains("size")) {
    model["prog"]["size"] = bytes.size();
  }
  std::vector<ac::NamedFile> files = {
      {stem + ".tmodel", Bytes(bundle.model_text.value_or(model.dump(1)))},
      {stem + ".tprog", std::move(bytes)},
      {stem + ".tdata", bundle.tdata}};
  if (bundle.tarch) files.push_back({stem + ".tarch", Bytes(bundle.tarch->dump(1))});
  return files;
}

ac::OrDeclined<Bundle> BundleFromFiles(const std::vector<ac::NamedFile>& files) {
  if (files.size() < 3) return ac::Declined{"a Tensil model needs its .tprog and .tdata"};
  Bundle b;
  b.model = json::parse(files[0].bytes.begin(), files[0].bytes.end(), nullptr, false);
  if (b.model.is_discarded() || !b.model.is_object())
    return ac::Declined{Str(files[0].name, " is not a JSON object")};
  b.read_layout = b.model.contains("arch") ? LayoutOfJson(b.model["arch"]) : std::nullopt;
  if (!b.read_layout) return ac::Declined{Str(files[0].name, " has no valid architecture")};
  b.program = Lines(Disassemble(files[1].bytes, *b.read_layout));
  b.tdata = files[2].bytes;
  return b;
}

std::optional<WrittenBundle> WriteBundle(const Bundle& bundle, const fs::path& dir,
                                         const std::string& stem, std::string* error) {
  auto files = SerializeBundle(bundle, stem);
  if (auto* declined = std::get_if<ac::Declined>(&files)) {
    *error = declined->reason;
    return std::nullopt;
  }
  WrittenBundle written;
  for (const ac::NamedFile& file : std::get<std::vector<ac::NamedFile>>(files)) {
    const std::string path = (dir / file.name).string();
    if (!WriteOutputFile(path, file.bytes, error)) return std::nullopt;
    written.files.push_back(path);
  }
  written.tmodel = written.files[0];
  if (bundle.tarch) written.companions.push_back(written.files.back());
  return written;
}

DiagnosticSink ValidateWritten(const WrittenBundle& written, Profile profile) {
  DiagnosticSink sink(profile, written.tmodel);
  const std::string text = ReadWhole(written.tmodel);
  ValidateContext context;
  context.path = written.tmodel;
  context.companions = written.companions;
  TensilFormat().Validate(InputBuffer::Copy(AsBytes(text)), context, sink);
  return sink;
}

}  // namespace accelcheck::tensil::conformance
