// The Gemini functional executor's part of the golden runner (golden/README.md
// "gemini"). Models: a corpus scheduler IR with its frontend IR as the one
// companion, or {"generate": {...}}: a network of the reference scheduler
// (conformance/gemini/generate.h), as `accelcheck generate gemini` writes it
// (with "dialect": "set", in the SET generator's dialect), validated in memory. Modes: "tiled"
// (every workload computed from the pieces the IR declares), "tiled-l2" (the same with every tensor
// at its L2 address) and "untiled" (the network run whole), each giving one int16 array
// "workloads": every workload's output elements in run order. The case's seed (default 1) seeds the
// inputs and weights.
#include <mutex>
#include <sstream>

#include "conformance/gemini/generate.h"
#include "conformance/gemini/set_generate.h"
#include "reference_exec/gemini/execute.h"
#include "reference_exec/gemini/load.h"
#include "tools/accelcheck/golden_formats.h"
#include "validators/core/text.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/gemini_format.h"
#include "validators/gemini/set_lower.h"

namespace accelcheck::golden {

namespace {

// Bounds that keep a generated case to a few seconds at most.
constexpr std::pair<const char*, uint64_t> kGenerateBounds[] = {
    {"batch", 8},        {"channels", 256}, {"height", 256},
    {"width", 256},      {"tiles", 64},     {"buffer", uint64_t{1} << 30},
    {"seed", UINT64_MAX}};

std::optional<std::string> CheckGenerate(const Json& recipe) {
  if (auto key = UnknownKey(recipe,
                            {"layers", "batch", "channels", "height", "width", "mesh", "tiles",
                             "buffer", "seed", "random", "mixed", "dialect"},
                            "generate"))
    return key;
  for (const auto& [key, bound] : kGenerateBounds) {
    if (!recipe.contains(key)) continue;
    if (!recipe[key].is_number_unsigned() || recipe[key].get<uint64_t>() < 1 ||
        recipe[key].get<uint64_t>() > bound)
      return Str("generate.", key, " is not an integer in [1, ", bound, "]");
  }
  if (recipe.contains("layers")) {
    std::string error;
    const Json& layers = recipe["layers"];
    if (!(layers.is_string() && gemini::ParseLayers(layers.get<std::string>(), &error)) &&
        !(layers.is_number_unsigned() && layers.get<uint64_t>() >= 1 &&
          layers.get<uint64_t>() <= 64))
      return "generate.layers is neither a count in [1, 64] nor a list like \"conv,pool,fc\"";
  }
  if (recipe.contains("mesh")) {
    const Json& mesh = recipe["mesh"];
    if (!mesh.is_array() || mesh.size() != 2 || !mesh[0].is_number_unsigned() ||
        !mesh[1].is_number_unsigned() || mesh[0].get<uint64_t>() < 1 ||
        mesh[1].get<uint64_t>() < 1 || mesh[0].get<uint64_t>() * mesh[1].get<uint64_t>() > 64)
      return "generate.mesh is not [x, y] with 1 to 64 cores";
  }
  for (const char* flag : {"random", "mixed"}) {
    if (recipe.contains(flag) && !recipe[flag].is_boolean())
      return Str("generate.", flag, " is not a boolean");
  }
  if (recipe.value("mixed", false) && !recipe.value("random", false))
    return "generate.mixed picks the layer kinds with random";
  if (recipe.contains("dialect") && recipe["dialect"] != "gemini" && recipe["dialect"] != "set")
    return "generate.dialect is neither \"gemini\" nor \"set\"";
  return std::nullopt;
}

std::optional<std::string> CheckModel(const Json& model) {
  if (auto key = UnknownKey(model, {"generate"}, "model")) return key;
  if (!model.contains("generate")) return "a model is {\"generate\": {...}} or {\"corpus\": PATH}";
  return CheckGenerate(model["generate"]);
}

gemini::GenerateOptions OptionsOf(const Json& recipe) {
  gemini::GenerateOptions options;
  std::string error;
  if (recipe.contains("layers")) {
    if (recipe["layers"].is_string()) {
      options.kinds = *gemini::ParseLayers(recipe["layers"].get<std::string>(), &error);
      options.layers = static_cast<int>(options.kinds.size());
    } else {
      options.layers = recipe["layers"].get<int>();
    }
  }
  options.batch = recipe.value("batch", options.batch);
  options.channels = recipe.value("channels", options.channels);
  options.height = recipe.value("height", options.height);
  options.width = recipe.value("width", options.width);
  options.tiles = recipe.value("tiles", options.tiles);
  options.buffer = recipe.value("buffer", options.buffer);
  options.seed = recipe.value("seed", options.seed);
  if (recipe.contains("mesh")) {
    options.mesh_x = recipe["mesh"][0].get<int>();
    options.mesh_y = recipe["mesh"][1].get<int>();
  }
  options.mixed = recipe.value("mixed", false);
  if (recipe.value("random", false)) options = gemini::RandomizeOptions(options, options.seed);
  return options;
}

// The IR and frontend texts of the model, generated or read from the corpus.
bool ModelTexts(const Case& c, const RunEnv& env, std::string* ir, std::string* frontend,
                std::string* error) {
  if (!c.corpus_model()) {
    const Json& recipe = c.model["generate"];
    const auto generate =
        recipe.value("dialect", "gemini") == "set" ? gemini::GenerateSetIr : gemini::GenerateIr;
    std::ostringstream ir_out, frontend_out;
    if (auto problem = generate(OptionsOf(recipe), ir_out, frontend_out)) {
      *error = Str("the reference scheduler cannot schedule it: ", *problem);
      return false;
    }
    *ir = ir_out.str();
    *frontend = frontend_out.str();
    return true;
  }
  if (c.companions.size() != 1) {
    *error = "a corpus scheduler IR needs its frontend IR as the one companion";
    return false;
  }
  const Limits limits;
  for (const auto& [path, text] :
       {std::pair{*c.corpus_model(), ir}, std::pair{c.companions[0], frontend}}) {
    const auto buffer =
        ReadFileLimited((env.corpus_dir / path).string(), limits.max_file_size, error);
    if (!buffer) return false;
    text->assign(reinterpret_cast<const char*>(buffer->bytes().data()), buffer->bytes().size());
  }
  return true;
}

// Validated as `accelcheck validate` would: the executors run only on a
// model without blocking diagnostics (docs/ARCHITECTURE.md).
std::optional<gemini::LoadedIr> Validate(const std::string& ir, const std::string& frontend,
                                         const std::string& name, std::string* error) {
  DiagnosticSink sink(Profile{}, name);
  ValidateContext context;
  context.path = name;
  gemini::LoadedIr loaded;
  loaded.frontend = gemini::ParseFrontend(AsBytes(frontend), context, sink);
  if (!loaded.frontend) {
    *error = Str("the frontend IR of ", name, " does not validate");
    return std::nullopt;
  }
  const auto valid = [&](const auto& decoded) {
    if (decoded && !sink.failed() && sink.blocking_count() == 0) return true;
    *error = Str(name, " does not validate (accelcheck validate says why)");
    return false;
  };
  if (gemini::LooksLikeSetIr(AsBytes(ir))) {
    const auto decoded =
        gemini::DecodeAndValidateSet(AsBytes(ir), context, &*loaded.frontend, sink);
    if (!valid(decoded)) return std::nullopt;
    loaded.ir = gemini::LowerSetIr(*decoded, &*loaded.frontend);
    return loaded;
  }
  auto decoded = gemini::DecodeAndValidate(AsBytes(ir), context, &*loaded.frontend, sink);
  if (!valid(decoded)) return std::nullopt;
  loaded.ir = std::move(*decoded);
  return loaded;
}

// One execution computes the tiled and the untiled values together: the
// last one is kept, so that a case's reference mode does not run it again.
struct LastRun {
  std::string key;  // the case, its seed and whether L2 was addressed
  gemini::ModeValues values;
  // Each mode's values are handed over once (moved out, to save memory).
  bool tiled_taken = false;
  bool untiled_taken = false;
};

std::optional<gemini::ModeValues> Execute(const Case& c, bool l2, const RunEnv& env,
                                          std::string* error) {
  std::string ir, frontend;
  if (!ModelTexts(c, env, &ir, &frontend, error)) return std::nullopt;
  const auto loaded = Validate(ir, frontend, c.corpus_model().value_or(c.id()), error);
  if (!loaded) return std::nullopt;
  gemini::ModeValues values;
  gemini::ExecuteOptions options{c.seed.value_or(1)};
  options.l2_addressed = l2;
  options.record = &values;
  const gemini::Execution run = gemini::Execute(loaded->ir, *loaded->frontend, options);
  if (run.limit) {
    *error = *run.limit;
    return std::nullopt;
  }
  if (!run.skipped_layers.empty()) {
    *error = Str("the executor does not model layer ", Quoted(run.skipped_layers.front()));
    return std::nullopt;
  }
  return values;
}

std::optional<Arrays> Run(const Case& c, const std::string& mode, const Arrays& /*inputs*/,
                          const RunEnv& env, std::string* error) {
  static std::mutex mutex;
  static LastRun last;
  const std::lock_guard<std::mutex> lock(mutex);
  // The untiled values do not depend on where tensors sit in L2: the
  // untiled mode reuses a tiled-l2 run of the same case.
  const bool l2 =
      mode == "tiled-l2" ||
      (mode == "untiled" && last.key == Str(c.dir.string(), "/", c.seed.value_or(1), "/l2"));
  const std::string key = Str(c.dir.string(), "/", c.seed.value_or(1), l2 ? "/l2" : "/values");
  const bool untiled = mode == "untiled";
  if (last.key != key || (untiled ? last.untiled_taken : last.tiled_taken)) {
    last = {};
    auto values = Execute(c, l2, env, error);
    if (!values) return std::nullopt;
    last = {key, std::move(*values)};
  }
  (untiled ? last.untiled_taken : last.tiled_taken) = true;
  const std::vector<int16_t> chosen = std::move(untiled ? last.values.untiled : last.values.tiled);
  std::vector<uint64_t> bits;
  bits.reserve(chosen.size());
  for (int16_t v : chosen) bits.push_back(static_cast<uint16_t>(v));
  Arrays out;
  out.emplace("workloads",
              npy::FromBits(npy::DType{npy::Kind::kSigned, 2, false}, {bits.size()}, bits));
  return out;
}

}  // namespace

const GoldenFormat& GeminiGolden() {
  static const GoldenFormat kFormat{
      .modes = {"tiled", "tiled-l2", "untiled"}, .check_model = CheckModel, .run = Run};
  return kFormat;
}

}  // namespace accelcheck::golden
