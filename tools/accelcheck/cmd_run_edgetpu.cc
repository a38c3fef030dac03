// accelcheck run MODEL_edgetpu.tflite [--mode link|dma|relayout|inverse]:
// what the Edge TPU driver does on the host (reference_exec/edgetpu), on a
// validated file. The compute ISA is not public, so nothing here computes
// the model: the run links bitstreams, replays DMA hints and re-lays out
// tensors, where loading and running go wrong.
#include <filesystem>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "reference_exec/edgetpu/dma_replay.h"
#include "reference_exec/edgetpu/link.h"
#include "reference_exec/edgetpu/load.h"
#include "reference_exec/edgetpu/relayout.h"
#include "tools/accelcheck/commands.h"
#include "tools/accelcheck/console.h"
#include "tools/accelcheck/input.h"
#include "tools/accelcheck/options.h"
#include "validators/core/npy.h"
#include "validators/core/output_file.h"
#include "validators/core/text.h"

namespace accelcheck::cli {

namespace {

using Json = nlohmann::ordered_json;
using namespace edgetpu;

const CommandSpec& RunEdgetpuSpec() {
  static const CommandSpec kSpec = [] {
    CommandSpec spec{
        "run",
        "run the Edge TPU driver's host work: link, DMA-hint replay, output re-layout",
        "usage: accelcheck run MODEL_edgetpu.tflite [--mode MODE] [options]\n"
        "Validates the model, then for every package (docs/formats/edgetpu.md §6):\n"
        "  link      patches each instruction bitstream with the buffers' device addresses\n"
        "            (--address, or the defaults printed) and prints every patch; with\n"
        "            --output-dir writes D/package<P>.<executable>.chunk<C>.bin\n"
        "  dma       replays the DMA hints as the USB driver walks them and prints the\n"
        "            transfers, what they leave of each buffer, and what is incomplete\n"
        "  relayout  turns the device buffer of an output (--input NAME=FILE, .npy or raw\n"
        "            bytes) into the user's y, x, z tensor, D/NAME.npy\n"
        "  inverse   turns a user tensor (--input NAME=FILE.npy) into the device buffer of\n"
        "            its layer, D/NAME.npy of bytes\n"
        "A re-layout or inverse whose result is larger than --max-tensor-bytes is refused.\n"
        "Exit 1 when the model does not validate (or a link is refused), 2 on a usage error,\n"
        "3 on a limit or an I/O error.\n",
        {
            {"mode", true, "MODE", "link (default), dma, relayout or inverse"},
            {"address", true, "BUF=ADDR",
             "link: the device address of a buffer: parameters, scratch, input:NAME[:BATCH] "
             "or output:NAME[:BATCH] (hex with 0x, or decimal; repeatable)"},
            {"input", true, "NAME=FILE",
             "relayout: an output's device buffer; inverse: a layer's user tensor (repeatable)"},
            {"method", true, "M",
             "relayout: map (element by element, the default) or runtime (the runtime's copy)"},
            {"output-dir", true, "DIR", "where the mode writes its files"},
            {"help", false, "", "print this help"},
        }};
    for (Flag& f : RunLimitFlags()) spec.flags.push_back(std::move(f));
    for (Flag& f : TargetFlags()) spec.flags.push_back(std::move(f));
    return spec;
  }();
  return kSpec;
}

Json PatchJson(const AppliedPatch& p) {
  Json out = {{"field_offset", p.field_offset},
              {"desc", dwn::EnumNameDescription(p.desc)},
              {"position", p.upper ? "UPPER_32BIT" : "LOWER_32BIT"},
              {"bit", p.bit},
              {"address", Hex(p.address)},
              {"value", Hex(p.value)}};
  if (!p.name.empty()) {
    out["name"] = p.name;
    out["batch"] = p.batch;
  }
  return out;
}

struct RunState {
  const ParsedArgs& args;
  const Limits& limits;
  std::optional<std::filesystem::path> output_dir;
  Json report = Json::array();
  std::string error;  // a usage or link error stops the run
  ExitCode code = ExitCode::kConforms;
  std::map<std::string, bool> used_inputs;  // --input NAME -> found in a package
};

bool Fail(RunState& s, ExitCode code, std::string message) {
  s.code = code;
  s.error = std::move(message);
  return false;
}

bool WriteFile(RunState& s, const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::string error;
  if (WriteOutputFile(path, bytes, &error)) return true;
  return Fail(s, ExitCode::kFailure, error);
}

bool LinkPackage(RunState& s, const LoadedPackage& p, Json& out) {
  for (const ExecutableView& exe : p.view->executables) {
    std::string address_error;
    const auto addresses = AddressesOf(*exe.executable, s.args.All("address"), &address_error);
    if (!addresses) return Fail(s, ExitCode::kUsage, address_error);
    LinkError error;
    const auto chunks = Link(*exe.executable, *addresses, &error);
    const std::string name = ExecutableTypeName(*exe.executable);
    if (!chunks) {
      return Fail(s, ExitCode::kErrors,
                  Str(name, " executable: ", error.message, " [", error.rule, "]"));
    }
    Json exe_json = {{"executable", name}, {"chunks", Json::array()}};
    for (size_t c = 0; c < chunks->size(); ++c) {
      Json chunk = {{"bytes", (*chunks)[c].bytes.size()}, {"patches", Json::array()}};
      for (const AppliedPatch& patch : (*chunks)[c].patches)
        chunk["patches"].push_back(PatchJson(patch));
      if (s.output_dir) {
        const auto path = *s.output_dir / Str("package", p.index, ".", name, ".chunk", c, ".bin");
        if (!WriteFile(s, path, (*chunks)[c].bytes)) return false;
        chunk["file"] = path.string();
      }
      exe_json["chunks"].push_back(std::move(chunk));
    }
    out["executables"].push_back(std::move(exe_json));
  }
  return true;
}

void ReplayPackage(const LoadedPackage& p, Json& out) {
  for (const ExecutableView& exe : p.view->executables) {
    Json replay = ReplayJson(ReplayHints(*exe.executable));
    Json entry = {{"executable", ExecutableTypeName(*exe.executable)}};
    entry.update(replay);
    out["executables"].push_back(std::move(entry));
  }
}

// One --input of relayout or inverse: the layer's geometry and its bytes.
bool ConvertLayer(RunState& s, const dwn::Layer& layer, bool output, const std::string& name,
                  const std::string& file, bool inverse, Json& out) {
  std::string error;
  const auto geometry = LayerGeometry::Of(layer, output, &error);
  if (!geometry) return Fail(s, ExitCode::kErrors, Str("layer ", Quoted(name), ": ", error));
  if (const auto over = ConversionOverLimit(*geometry, inverse, s.limits.max_tensor_bytes))
    return Fail(s, ExitCode::kFailure, Str("layer ", Quoted(name), ": ", *over));
  DiagnosticSink read(Profile{}, file);
  const auto bytes = ReadInput(file, s.limits, read);
  if (!bytes) {
    PrintDiagnostics(read, false);
    return Fail(s, ExitCode::kFailure, Str("cannot read ", file));
  }
  std::vector<uint8_t> given(bytes->bytes().begin(), bytes->bytes().end());
  if (file.ends_with(".npy")) {
    const auto array = npy::Read(bytes->bytes(), &error);
    if (!array) return Fail(s, ExitCode::kUsage, Str(file, ": ", error));
    given = array->data;
  }
  const uint64_t want = inverse ? geometry->user_bytes() : geometry->device_bytes();
  if (given.size() != want) {
    return Fail(s, ExitCode::kUsage,
                Str(file, " holds ", given.size(), " bytes; the ",
                    inverse ? "tensor" : "device buffer", " of ", Quoted(name), " is ", want));
  }
  npy::Array result;
  if (inverse) {
    result = geometry->DeviceArray(given);
  } else {
    if (!output) return Fail(s, ExitCode::kUsage, Str(Quoted(name), " is an input layer"));
    const std::string method = s.args.Get("method").value_or("map");
    if (method != "map" && method != "runtime")
      return Fail(s, ExitCode::kUsage, Str("--method ", method, ": expected map or runtime"));
    result = geometry->UserArray(
        given, method == "map" ? RelayoutMethod::kElementMap : RelayoutMethod::kRuntimeCopy);
  }
  const auto path = FileInside(*s.output_dir, name, ".npy", &error);
  if (!path) return Fail(s, ExitCode::kFailure, error);
  if (!WriteFile(s, *path, npy::Write(result))) return false;
  out["tensors"].push_back({{"layer", name},
                            {"direction", inverse ? "user to device" : "device to user"},
                            {"dtype", result.dtype.Name()},
                            {"shape", result.shape},
                            {"file", path->string()}});
  return true;
}

bool ConvertPackage(RunState& s, const LoadedPackage& p, bool inverse, Json& out) {
  const ExecutableView* main = MainExecutableOf(*p.view);
  for (const std::string& spec : s.args.All("input")) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos) return Fail(s, ExitCode::kUsage, "--input: expected NAME=FILE");
    const std::string name = spec.substr(0, eq);
    bool output = false;
    const dwn::Layer* layer =
        main == nullptr ? nullptr : FindLayer(*main->executable, name, &output);
    if (layer == nullptr || s.used_inputs[name]) continue;
    s.used_inputs[name] = true;
    if (!ConvertLayer(s, *layer, output, name, spec.substr(eq + 1), inverse, out)) return false;
  }
  return true;
}

}  // namespace

ExitCode RunEdgetpu(const Args& args) {
  const CommandSpec& spec = RunEdgetpuSpec();
  ExitCode exit_code = ExitCode::kConforms;
  const auto parsed = ParseCommand(spec, args, &exit_code);
  if (!parsed) return exit_code;
  if (parsed->positional.size() != 1) return UsageError(spec, "expected exactly one model");
  ValidateContext context;
  std::string error;
  if (!InputContext(*parsed, &context, &error)) return UsageError(spec, error);
  const std::string mode = parsed->Get("mode").value_or("link");
  if (mode != "link" && mode != "dma" && mode != "relayout" && mode != "inverse")
    return UsageError(spec, Str("--mode ", mode, ": expected link, dma, relayout or inverse"));
  const bool converts = mode == "relayout" || mode == "inverse";
  if (converts && (!parsed->Get("output-dir") || parsed->All("input").empty()))
    return UsageError(spec, Str("--mode ", mode, " needs --input NAME=FILE and --output-dir"));
  if (!converts && !parsed->All("input").empty())
    return UsageError(spec, Str("--input goes with --mode relayout or inverse, not ", mode));
  if (mode != "link" && !parsed->All("address").empty())
    return UsageError(spec, Str("--address goes with --mode link, not ", mode));
  const bool quiet = parsed->Has("quiet");

  RunState state{*parsed, context.limits, std::nullopt, Json::array(), "", ExitCode::kConforms, {}};
  if (auto dir = parsed->Get("output-dir")) {
    if (!MakeDirectories(*dir, &error)) return IoError(spec, error);
    state.output_dir = *dir;
  }
  DiagnosticSink sink(Profile{}, DisplayName(context.path));
  const auto input = ReadInput(context.path, context.limits, sink);
  bool ok = false;
  if (input) {
    ok = ForEachValidatedPackage(*input, context, sink, [&](const LoadedPackage& p) {
      if (!state.error.empty()) return;
      Json out = {{"package", p.index}, {"operator", p.op_path}};
      if (mode == "link") {
        out["executables"] = Json::array();
        if (!LinkPackage(state, p, out)) return;
      } else if (mode == "dma") {
        out["executables"] = Json::array();
        ReplayPackage(p, out);
      } else {
        out["tensors"] = Json::array();
        if (!ConvertPackage(state, p, mode == "inverse", out)) return;
      }
      state.report.push_back(std::move(out));
    });
  }
  PrintDiagnostics(sink, quiet);
  if (!ok) {
    std::cerr << "accelcheck run: " << context.path
              << (sink.failed() || !input ? " could not be checked" : " does not validate")
              << "; nothing run\n";
    return sink.failed() || !input ? ExitCode::kFailure : ExitCode::kErrors;
  }
  if (!state.error.empty()) {
    std::cerr << "accelcheck run: " << state.error << "\n";
    return state.code;
  }
  for (const std::string& spec_text : parsed->All("input")) {
    const std::string name = spec_text.substr(0, spec_text.find('='));
    if (converts && !state.used_inputs[name])
      return UsageError(spec, Str("--input ", Quoted(name), ": no layer of that name"));
  }
  std::cout << Json{{"mode", mode}, {"packages", std::move(state.report)}}.dump(2) << "\n";
  return ExitCode::kConforms;
}

}  // namespace accelcheck::cli
