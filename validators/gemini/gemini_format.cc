#include "validators/gemini/gemini_format.h"

#include <algorithm>
#include <filesystem>

#include "validators/core/core_rules.h"
#include "validators/core/json_locate.h"
#include "validators/core/text.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/set_decode.h"
#include "validators/gemini/validate.h"
#include "validators/gemini/validate_set.h"

namespace accelcheck::gemini {

namespace {

// The files that may hold a schedule's frontend IR: the companions, else the
// file `accelcheck generate gemini` writes beside it, <stem>.frontend.json
// (docs/formats/gemini.md "Frontend IR").
std::vector<std::string> FrontendCandidates(const ValidateContext& context) {
  if (!context.companions.empty() || context.path.empty()) return context.companions;
  std::filesystem::path sibling(context.path);
  sibling.replace_extension(".frontend.json");
  if (sibling.string() == context.path || !context.files->HasFile(sibling.string())) return {};
  return {sibling.string()};
}

}  // namespace

std::optional<Frontend> LoadFrontend(const ValidateContext& context, DiagnosticSink& sink) {
  const std::vector<std::string> companions = FrontendCandidates(context);
  if (companions.empty()) return std::nullopt;
  // The first companion that looks like a frontend IR; a lone companion is
  // read as one whatever it holds, so that a broken frontend gets its reason.
  std::string path = companions.front();
  std::string error;
  std::optional<InputBuffer> buffer;
  for (const std::string& companion : companions) {
    std::optional<InputBuffer> candidate = context.ReadFile(companion, &error);
    if (candidate && LooksLikeFrontend(candidate->bytes())) {
      path = companion;
      buffer = std::move(candidate);
      break;
    }
  }
  if (!buffer && companions.size() > 1) return std::nullopt;
  if (!buffer) buffer = context.ReadFile(path, &error);
  if (!buffer) {
    sink.Report(core_rules::kIoRead, Location{std::nullopt, std::nullopt, path},
                Str("frontend IR ", Quoted(path), " cannot be used: ", error));
    return std::nullopt;
  }
  // The frontend's own rules, each problem located in the frontend file, not
  // in the scheduler IR that names it.
  DiagnosticSink problems(Profile{}, path);
  std::optional<Frontend> frontend = ParseFrontend(buffer->bytes(), context, problems);
  ReportCompanionProblems(buffer->bytes(), path, context.limits, problems, sink);
  return frontend;
}

std::optional<Ir> DecodeAndValidate(ByteView text, const ValidateContext& context,
                                    const Frontend* frontend, DiagnosticSink& sink,
                                    const InputBuffer* input) {
  const uint64_t before = sink.blocking_count();
  Ir ir;
  if (!DecodeIr(text, context.limits, sink, &ir, input)) return std::nullopt;
  // Type and key problems leave default values behind: no semantics on them.
  if (sink.blocking_count() == before) {
    ValidateIr(ir, frontend, context, sink);
  }
  return ir;
}

std::optional<set::Ir> DecodeAndValidateSet(ByteView text, const ValidateContext& context,
                                            const Frontend* frontend, DiagnosticSink& sink,
                                            const InputBuffer* input) {
  const uint64_t before = sink.blocking_count();
  set::Ir ir;
  if (!set::DecodeSetIr(text, context.limits, sink, &ir, input)) return std::nullopt;
  if (sink.blocking_count() == before) set::ValidateSetIr(ir, frontend, context, sink);
  return ir;
}

namespace {

// I-F9: a run never passes silently on checks that did not run, named in
// `unchecked`.
void ReportUnchecked(const ValidateContext& context, std::string_view unchecked,
                     DiagnosticSink& sink) {
  const std::string why =
      FrontendCandidates(context).empty()
          ? "no frontend IR was given, nor found beside the schedule as <stem>.frontend.json"
      : context.companions.empty() ? "the frontend IR beside the schedule is not usable"
                                   : "no usable frontend IR was among the companions";
  sink.Report(rules::kFrontendUnchecked, Location{},
              Str(why, ", so ", unchecked, "; name it with --frontend FILE"));
}

std::string UncheckedInGemini() {
  using namespace rules;
  return Str(kFrontendLayer.id, ", ", kFrontendLayerType.id, ", ", kTileReceptiveField.id, ", ",
             kTilePadding.id, ", ", kWorkloadShape.id, " and the act_mini_tile formula of ",
             kTileMiniTile.id, " did not run (", kTileWindow.id, " checked the tiles without it)");
}

std::string UncheckedInSet() {
  using namespace rules;
  return Str(kFrontendLayer.id, ", ", kFrontendLayerType.id, ", ", kWorkloadShape.id, " and ",
             kSetReceptiveField.id, " did not run");
}

// A frontend IR validated as an input of its own.
void ValidateFrontendDocument(const InputBuffer& input, const ValidateContext& context,
                              DiagnosticSink& sink) {
  ParseFrontend(input.bytes(), context, sink);
}

// Its layers in the file's order, with their offsets.
nlohmann::json InspectFrontend(const InputBuffer& input, const ValidateContext& context,
                               DiagnosticSink& sink) {
  Frontend frontend;
  if (!DecodeFrontend(input.bytes(), context.limits, sink, &frontend)) return nullptr;
  std::vector<const FrontendLayer*> layers;
  for (const auto& [name, layer] : frontend.layers) layers.push_back(&layer);
  std::sort(layers.begin(), layers.end(),
            [](const FrontendLayer* a, const FrontendLayer* b) { return a->offset < b->offset; });
  nlohmann::json out = {{"format", "gemini"}, {"document", "frontend"}};
  nlohmann::json list = nlohmann::json::array();
  for (const FrontendLayer* layer : layers) {
    list.push_back({{"name", layer->name},
                    {"offset", layer->offset},
                    {"layer_index", layer->index},
                    {"operation", layer->operation},
                    {"input_shape", layer->inputs},
                    {"output_shape", layer->outputs},
                    {"previous_layer", layer->previous},
                    {"next_layer", layer->next}});
  }
  out["layers"] = std::move(list);
  return out;
}

nlohmann::json RangeJson(const Range& r) { return {r.lo, r.hi}; }

// Per core its workloads with what they read and send; the DRAM ports with
// their lists' lengths.
nlohmann::json InspectSet(const InputBuffer& input, const ValidateContext& context,
                          DiagnosticSink& sink) {
  set::Ir ir;
  if (!set::DecodeSetIr(input.bytes(), context.limits, sink, &ir, &input)) return nullptr;
  nlohmann::json cores = nlohmann::json::array();
  for (const set::Core& core : ir.cores) {
    nlohmann::json workloads = nlohmann::json::array();
    for (const set::Workload& w : core.workloads) {
      std::vector<int64_t> reads = w.ifmap_ids;
      if (w.weight)
        reads.insert(reads.end(), w.weight->transfer_ids.begin(), w.weight->transfer_ids.end());
      std::vector<int64_t> sends;
      for (const set::BufferEntry& e : w.buffer) {
        if (e.type != EntryType::kOfmap || e.workload_id != w.id) continue;
        for (const set::Send& send : e.sends) sends.push_back(send.transfer_id);
      }
      workloads.push_back({{"workload_id", w.id},
                           {"offset", w.offset},
                           {"layer_name", ir.LayerName(w.layer)},
                           {"layer_type", std::string(set::LayerTypeName(w.type))},
                           {"workload", RangeJson(w.range)},
                           {"time", w.time},
                           {"reads", reads},
                           {"writes", sends},
                           {"buffer_entries", w.buffer.size()}});
    }
    cores.push_back({{"core_id", core.id}, {"workloads", std::move(workloads)}});
  }
  nlohmann::json ports = nlohmann::json::array();
  for (const set::Port& port : ir.ports) {
    ports.push_back(
        {{"port", port.id}, {"dram_in", port.in.size()}, {"dram_out", port.out.size()}});
  }
  return {{"format", "gemini"},
          {"dialect", "set"},
          {"top_batch_cut", ir.top_batch_cut},
          {"xlen", ir.xlen},
          {"ylen", ir.ylen},
          {"ring_blocks", set::kRingBlocks},
          {"dram_ports", std::move(ports)},
          {"cores", std::move(cores)}};
}

class GeminiFormatImpl final : public Format {
 public:
  bool TakesCompanion(const std::string&, ByteView bytes) const override {
    return LooksLikeFrontend(bytes);
  }
  std::string_view companion_kinds() const override { return "its frontend IR"; }
  // A JSON object that opens with the DRAM entry "-1" or names a workload
  // field: a schedule cut short or damaged before its core list.
  bool Resembles(const std::string&, ByteView bytes) const override {
    const std::optional<std::string_view> head = JsonObjectHead(bytes);
    return head && (head->find("\"-1\"") != std::string_view::npos ||
                    head->find("\"workload_id\"") != std::string_view::npos);
  }

  // Three document kinds: the scheduler IR in the Gemini or the SET
  // generator's dialect, and the frontend IR.
  std::string_view Dialect(ByteView bytes) const override {
    return LooksLikeFrontend(bytes) ? "frontend" : LooksLikeSetIr(bytes) ? "set" : "gemini";
  }

  std::string_view id() const override { return "gemini"; }
  std::string_view description() const override {
    return "Gemini scheduler IR (x_stschedule.json) and frontend IR, alone or as the IR's "
           "companion";
  }
  RuleTable rules() const override { return AllRules(); }
  bool Detect(ByteView bytes) const override {
    return LooksLikeIr(bytes) || LooksLikeSetIr(bytes) || LooksLikeFrontend(bytes);
  }

  void Validate(const InputBuffer& input, const ValidateContext& context,
                DiagnosticSink& sink) const override {
    if (LooksLikeFrontend(input.bytes())) {
      ValidateFrontendDocument(input, context, sink);
    } else if (LooksLikeSetIr(input.bytes())) {
      const auto frontend = LoadFrontend(context, sink);
      const auto ir = DecodeAndValidateSet(input.bytes(), context, frontend ? &*frontend : nullptr,
                                           sink, &input);
      if (ir && !frontend) ReportUnchecked(context, UncheckedInSet(), sink);
    } else {
      const auto frontend = LoadFrontend(context, sink);
      const auto ir =
          DecodeAndValidate(input.bytes(), context, frontend ? &*frontend : nullptr, sink, &input);
      if (ir && !frontend) ReportUnchecked(context, UncheckedInGemini(), sink);
    }
    PinJsonLocations(input.bytes(), "", context.limits, sink.MutableDiagnostics(), &input);
  }

  // A summary per core: workloads with their layer, range, time, and the
  // transfers they read and write, plus the DRAM lists.
  nlohmann::json Inspect(const InputBuffer& input, const ValidateContext& context,
                         DiagnosticSink& sink) const override {
    if (LooksLikeFrontend(input.bytes())) return InspectFrontend(input, context, sink);
    if (LooksLikeSetIr(input.bytes())) return InspectSet(input, context, sink);
    Ir ir;
    if (!DecodeIr(input.bytes(), context.limits, sink, &ir, &input)) return nullptr;
    nlohmann::json out = {{"format", "gemini"},
                          {"dialect", "gemini"},
                          {"buffersize", ir.buffersize},
                          {"top_batch_cut", ir.top_batch_cut},
                          {"xlen", ir.xlen},
                          {"ylen", ir.ylen},
                          {"dram_in", ir.dram_in.size()},
                          {"dram_out", ir.dram_out.size()}};
    nlohmann::json cores = nlohmann::json::array();
    for (const Core& core : ir.cores) {
      nlohmann::json workloads = nlohmann::json::array();
      for (const Workload& w : core.workloads) {
        std::vector<int64_t> reads;
        for (const Ifmap& f : w.ifmaps)
          reads.insert(reads.end(), f.transfer_ids.begin(), f.transfer_ids.end());
        std::vector<int64_t> writes;
        for (const Ofmap& f : w.ofmaps) writes.push_back(f.transfer_id);
        workloads.push_back({{"workload_id", w.id},
                             {"offset", w.offset},
                             {"layer_name", ir.LayerName(w.layer)},
                             {"layer_type", w.type == LayerType::kPe   ? "pe"
                                            : w.type == LayerType::kVp ? "vp"
                                                                       : "dt"},
                             {"workload", RangeJson(w.range)},
                             {"time", w.time},
                             {"tiles", w.tiles.size()},
                             {"reads", reads},
                             {"writes", writes},
                             {"buffer_entries", w.buffer.size()}});
      }
      cores.push_back({{"core_id", core.id}, {"workloads", std::move(workloads)}});
    }
    out["cores"] = std::move(cores);
    return out;
  }
};

}  // namespace

const Format& GeminiFormat() {
  static const GeminiFormatImpl kFormat;
  return kFormat;
}

}  // namespace accelcheck::gemini
