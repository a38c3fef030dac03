// A Tensil model as the conformance suite and the mutator handle it: the
// .tmodel JSON, the program as assembly lines (validators/tensil/disasm.h,
// which round-trips any bytes), the .tdata bytes, and an optional .tarch.
// A bundle is written as <stem>.tmodel next to the <stem>.tprog and
// <stem>.tdata it names.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/provider.h"
#include "validators/core/diagnostic.h"
#include "validators/core/sink.h"
#include "validators/tensil/arch.h"

namespace accelcheck::tensil::conformance {

struct Bundle {
  nlohmann::json model;
  std::vector<std::string> program;
  std::vector<uint8_t> trailing;  // raw bytes after the last instruction
  std::vector<uint8_t> tdata;
  bool fix_prog_size = true;  // write prog.size as the program's length
  bool name_files = true;     // point prog and consts[0] at the files written
  std::optional<nlohmann::json> tarch;
  std::optional<std::string> model_text;  // written instead of `model` (for broken JSON)
  // The layout the program was read with: it is assembled with it when a
  // change leaves the architecture without one.
  std::optional<Layout> read_layout;

  nlohmann::json& arch() { return model["arch"]; }
};

// One dense layer with ReLU on a 2x2 array (FP16BP8, 8-bit addresses): valid
// with no finding even under --strict.
Bundle TinyBundle();

// Reads a .tmodel with the .tprog and .tdata it names, the program
// disassembled. Nothing (with `error`) when the model does not validate.
std::optional<Bundle> ReadBundle(const std::string& tmodel_path, std::string* error);

struct WrittenBundle {
  std::string tmodel;                   // the file to validate
  std::vector<std::string> companions;  // the .tarch, when the bundle has one
  std::vector<std::string> files;       // every file written
};

// Writes <dir>/<stem>.tmodel, .tprog, .tdata (and .tarch), the manifest
// naming the files it is written with.
std::optional<WrittenBundle> WriteBundle(const Bundle& bundle, const std::filesystem::path& dir,
                                         const std::string& stem, std::string* error);

// Validates a written bundle's .tmodel with its companions.
DiagnosticSink ValidateWritten(const WrittenBundle& written, Profile profile);

// A bundle's files in memory, named after `stem`: the .tmodel, .tprog and
// .tdata, then the .tarch when the bundle has one. Declines when the program
// does not assemble.
accelcheck::conformance::OrDeclined<std::vector<accelcheck::conformance::NamedFile>>
SerializeBundle(const Bundle& bundle, const std::string& stem);

// The bundle of a valid model's files in memory (.tmodel, .tprog, .tdata, in
// that order), the program disassembled.
accelcheck::conformance::OrDeclined<Bundle> BundleFromFiles(
    const std::vector<accelcheck::conformance::NamedFile>& files);

// The program's bytes, with the layout of the bundle's architecture, or the
// one it was read with when a change left the architecture invalid (the
// validator then decodes no instruction). Declines when a line does not
// assemble.
accelcheck::conformance::OrDeclined<std::vector<uint8_t>> AssembleProgram(const Bundle& bundle);

// Breaks `rule` in `bundle` with the rule's change (conformance/tensil/mutations.cc);
// gives the object path the rule is reported at, or declines when the bundle
// offers no place for the change.
accelcheck::conformance::OrDeclined<std::string> ApplyChange(const Rule& rule, Bundle& bundle);

// One case per rule of validators/tensil/rules.def, in table order.
const std::vector<accelcheck::conformance::MutationCase>& MutationCases();

}  // namespace accelcheck::tensil::conformance
