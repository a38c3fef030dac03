// accelcheck generate gemini ... -o OUT.json: the reference scheduler
// (conformance/gemini/generate.h) writes a valid scheduler IR and, next to
// it, its frontend IR (OUT's stem + .frontend.json); with --dialect set, the
// IR is in the SET generator's dialect (conformance/gemini/set_generate.h).
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "conformance/gemini/generate.h"
#include "conformance/gemini/set_generate.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/options.h"
#include "validators/core/output_file.h"
#include "validators/core/sink.h"

namespace accelcheck::cli {

namespace {

CommandSpec GenerateGeminiSpec() {
  std::vector<Flag> flags = {
      {"layers", true, "N|KINDS",
       "N convolutions (default 3), or the network: conv,pool,avgpool,add,fc by commas"},
      {"batch", true, "B", "batch size (default 1)"},
      {"mesh", true, "XxY", "cores (default 1x1)"},
      {"buffer", true, "BYTES", "L2 bytes per core (default 8 MiB)"},
      {"channels", true, "C", "channels of every layer (default 8)"},
      {"height", true, "H", "rows (default 16)"},
      {"width", true, "W", "columns (default 16)"},
      {"tiles", true, "T", "row tiles per workload (default 2)"},
      {"seed", true, "S", "seed (default 1)"},
      {"random", false, "", "pick the sizes from the seed, up to the values given"},
      {"mixed", false, "", "with --random, the seed also picks the layer kinds"},
      {"dialect", true, "gemini|set",
       "the IR's dialect (default gemini); set writes convolutions split by channels"},
      {"o", true, "OUT", "where to write the IR"},
      {"help", false, "", "print this help"},
  };
  return {
      "generate gemini", "write a valid schedule and its frontend IR from the reference scheduler",
      "usage: accelcheck generate gemini [--layers N|KINDS] [--batch B] [--mesh XxY] [--buffer "
      "BYTES]\n"
      "                                  [--channels C] [--height H] [--width W] [--tiles T]\n"
      "                                  [--seed S [--random [--mixed]]] [--dialect gemini|set]\n"
      "                                  -o OUT.json\n"
      "Writes a schedule split by rows over the mesh, and its frontend IR as OUT's stem +\n"
      ".frontend.json. --layers N gives N 3x3 convolutions; --layers conv,conv,pool,conv,add,fc\n"
      "describes the network: conv (3x3), pool or maxpool and avgpool (3x3, stride 1), add (the\n"
      "previous layer plus the input of the layer before it), fc (global average pool and dense,\n"
      "last only). With --random the seed picks each size up to the bound given (the layer count "
      "up\n"
      "to N), and with --mixed the layer kinds too. --dialect set writes the SET generator's\n"
      "dialect instead (global workload ids, L2 addresses in 1 KiB blocks of a ring, DRAM\n"
      "ports): N convolutions, each layer split by output channels over the mesh, with the same\n"
      "frontend IR.\n",
      std::move(flags)};
}

}  // namespace

ExitCode RunGenerateGemini(const Args& args) {
  const CommandSpec spec = GenerateGeminiSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const std::optional<ParsedArgs> parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  std::string error;
  if (!parsed->positional.empty())
    return UsageError(spec, "unexpected argument " + parsed->positional[0]);
  const auto out_path = parsed->Get("o");
  if (!out_path) return UsageError(spec, "-o is required");
  gemini::GenerateOptions options;
  const auto count = [&](const char* flag, auto* field) {
    if (!parsed->Has(flag)) return true;
    const auto value = ParseCount(*parsed->Get(flag), &error);
    if (!value || *value < 1 || *value > (1ull << 40)) return false;
    *field = static_cast<std::remove_pointer_t<decltype(field)>>(*value);
    return true;
  };
  if (const auto layers = parsed->Get("layers")) {
    auto kinds = gemini::ParseLayers(*layers, &error);
    if (!kinds) return UsageError(spec, "--layers: " + error);
    options.layers = static_cast<int>(kinds->size());
    // A count keeps meaning that many convolutions (and bounds --random).
    if (std::any_of(kinds->begin(), kinds->end(),
                    [](gemini::LayerKind k) { return k != gemini::LayerKind::kConv; })) {
      options.kinds = std::move(*kinds);
    }
  }
  if (!count("batch", &options.batch) || !count("buffer", &options.buffer) ||
      !count("channels", &options.channels) || !count("height", &options.height) ||
      !count("width", &options.width) || !count("tiles", &options.tiles) ||
      !count("seed", &options.seed)) {
    return UsageError(spec, "sizes are whole numbers of at least 1");
  }
  if (const auto mesh = parsed->Get("mesh")) {
    const size_t x = mesh->find('x');
    const auto mx = x == std::string::npos ? std::nullopt : ParseCount(mesh->substr(0, x), &error);
    const auto my = x == std::string::npos ? std::nullopt : ParseCount(mesh->substr(x + 1), &error);
    if (!mx || !my || *mx < 1 || *my < 1 || *mx * *my > 4096)
      return UsageError(spec, "--mesh takes XxY, for example 4x4");
    options.mesh_x = static_cast<int>(*mx);
    options.mesh_y = static_cast<int>(*my);
  }
  options.mixed = parsed->Has("mixed");
  if (options.mixed && !parsed->Has("random"))
    return UsageError(spec, "--mixed picks the layer kinds with --random");
  if (parsed->Has("random")) options = gemini::RandomizeOptions(options, options.seed);
  const std::string dialect = parsed->Get("dialect").value_or("gemini");
  if (dialect != "gemini" && dialect != "set")
    return UsageError(spec, "--dialect takes gemini or set");
  const auto generate = dialect == "set" ? gemini::GenerateSetIr : gemini::GenerateIr;
  const std::string frontend_path =
      std::filesystem::path(*out_path).replace_extension("").string() + ".frontend.json";
  std::optional<OutputFile> ir = OutputFile::Open(*out_path, &error);
  std::optional<OutputFile> frontend = ir ? OutputFile::Open(frontend_path, &error) : std::nullopt;
  if (!frontend) return IoError(spec, error);
  // Nothing replaces an existing file unless both are complete.
  if (const auto problem = generate(options, ir->stream(), frontend->stream()))
    return UsageError(spec, *problem);
  if (!ir->Commit(&error) || !frontend->Commit(&error)) return IoError(spec, error);
  if (!parsed->Has("quiet")) std::cout << "wrote " << *out_path << " and " << frontend_path << "\n";
  return ExitCode::kConforms;
}

}  // namespace accelcheck::cli
