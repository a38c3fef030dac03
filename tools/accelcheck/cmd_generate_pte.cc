// accelcheck generate pte --recipe R.json -o OUT: builds a valid file from a
// recipe (conformance/pte/recipes.h describes the JSON form). A recipe with
// EXTERNAL tensors also gets its companion .ptd, written next to OUT with the
// extension .ptd, where `accelcheck validate OUT` looks for it.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "conformance/pte/recipes.h"
#include "conformance/pte/serialize.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/options.h"
#include "validators/core/json_exception.h"
#include "validators/core/output_file.h"

namespace accelcheck::cli {

namespace {

// Named "generate" as before the command dispatched by format, so that its
// messages keep their prefix.
const CommandSpec& GeneratePteSpec() {
  static const CommandSpec kSpec{
      "generate",
      "write a valid program from a recipe",
      "usage: accelcheck generate pte --recipe R.json -o OUT\n"
      "       (a recipe with EXTERNAL tensors also writes OUT's stem + .ptd)\n",
      {
          {"recipe", true, "FILE", "the JSON recipe to build"},
          {"o", true, "OUT", "where to write the program (its .ptd goes next to it)"},
          {"help", false, "", "print this help"},
      }};
  return kSpec;
}

bool Write(const std::string& path, const std::vector<uint8_t>& bytes, bool quiet,
           std::string* error) {
  if (!WriteOutputFile(path, bytes, error)) return false;
  if (!quiet) std::cout << "wrote " << path << " (" << bytes.size() << " bytes)\n";
  return true;
}

}  // namespace

ExitCode RunGeneratePte(const Args& args) {
  const CommandSpec& spec = GeneratePteSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  if (!parsed->positional.empty())
    return UsageError(spec, "unexpected argument " + parsed->positional[0]);
  const std::optional<std::string> recipe_path = parsed->Get("recipe");
  const std::optional<std::string> out_path = parsed->Get("o");
  if (!recipe_path || !out_path) return UsageError(spec, "--recipe and -o are required");

  std::ifstream in(*recipe_path);
  if (!in) {
    std::cerr << "accelcheck generate: cannot read " << *recipe_path << "\n";
    return ExitCode::kFailure;
  }
  pte::RecipeFiles files;
  try {
    files = pte::BuildRecipeFiles(nlohmann::json::parse(in));
  } catch (const std::exception& e) {
    // A recipe that does not describe a valid program is the caller's input
    // error, like a bad flag.
    std::cerr << "accelcheck generate: " << *recipe_path << ": " << JsonExceptionText(e.what())
              << "\n";
    return ExitCode::kUsage;
  }
  const std::string data_path = std::filesystem::path(*out_path).replace_extension(".ptd").string();
  if (files.data && data_path == *out_path)
    return UsageError(spec, "-o " + *out_path + " is where the companion .ptd goes");
  std::string error;
  const bool quiet = parsed->Has("quiet");
  if (!Write(*out_path, pte::Serialize(files.program), quiet, &error) ||
      (files.data && !Write(data_path, pte::SerializePtd(*files.data), quiet, &error))) {
    return IoError(spec, error);
  }
  return ExitCode::kConforms;
}

}  // namespace accelcheck::cli
