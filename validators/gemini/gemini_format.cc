#include "validators/gemini/gemini_format.h"

#include <algorithm>

#include "validators/core/core_rules.h"
#include "validators/core/json_locate.h"
#include "validators/core/text.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/rules.h"
#include "validators/gemini/validate.h"

namespace accelcheck::gemini {

std::optional<Frontend> LoadFrontend(const std::vector<std::string>& companions,
                                     const Limits& limits, DiagnosticSink& sink) {
  if (companions.empty()) return std::nullopt;
  // The first companion that looks like a frontend IR; a lone companion is
  // read as one whatever it holds, so that a broken frontend gets its reason.
  std::string path = companions.front();
  std::string error;
  std::optional<InputBuffer> buffer;
  for (const std::string& companion : companions) {
    std::optional<InputBuffer> candidate = ReadFileLimited(companion, limits.max_file_size, &error);
    if (candidate && LooksLikeFrontend(candidate->bytes())) {
      path = companion;
      buffer = std::move(candidate);
      break;
    }
  }
  if (!buffer && companions.size() > 1) return std::nullopt;
  if (!buffer) buffer = ReadFileLimited(path, limits.max_file_size, &error);
  if (!buffer) {
    sink.Report(core_rules::kIoRead, Location{std::nullopt, std::nullopt, path},
                Str("frontend IR ", Quoted(path), " cannot be used: ", error));
    return std::nullopt;
  }
  DiagnosticSink problems(Profile{}, path);
  if (auto frontend = ParseFrontend(buffer->bytes(), limits, problems)) return frontend;
  if (problems.diagnostics().empty()) return std::nullopt;  // beyond --max-diagnostics 0
  // The first problem, located in the frontend file; a limit stays a limit.
  const Diagnostic& first = problems.diagnostics().front();
  Location where = first.location;
  where.member = path;
  const bool limit = first.rule->category == Category::kLimit;
  sink.Report(limit ? *first.rule : core_rules::kIoRead, std::move(where),
              Str("frontend IR ", Quoted(path), " cannot be used: ", first.message));
  return std::nullopt;
}

std::optional<Ir> DecodeAndValidate(ByteView text, const ValidateContext& context,
                                    const Frontend* frontend, DiagnosticSink& sink,
                                    const InputBuffer* input) {
  Ir ir;
  if (!DecodeIr(text, context.limits, sink, &ir, input)) return std::nullopt;
  // Type and key problems leave default values behind: no semantics on them.
  if (sink.blocking_count() == 0) {
    ValidateIr(ir, frontend, context, sink);
  }
  return ir;
}

namespace {

nlohmann::json RangeJson(const Range& r) { return {r.lo, r.hi}; }

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

  std::string_view id() const override { return "gemini"; }
  std::string_view description() const override {
    return "Gemini scheduler IR (x_stschedule.json), with its frontend IR as companion";
  }
  RuleTable rules() const override { return AllRules(); }
  bool Detect(ByteView bytes) const override { return LooksLikeIr(bytes); }

  void Validate(const InputBuffer& input, const ValidateContext& context,
                DiagnosticSink& sink) const override {
    const auto frontend = LoadFrontend(context.companions, context.limits, sink);
    DecodeAndValidate(input.bytes(), context, frontend ? &*frontend : nullptr, sink, &input);
    PinJsonLocations(input.bytes(), "", context.limits, sink.MutableDiagnostics(), &input);
  }

  // A summary per core: workloads with their layer, range, time, and the
  // transfers they read and write, plus the DRAM lists.
  nlohmann::json Inspect(const InputBuffer& input, const ValidateContext& context,
                         DiagnosticSink& sink) const override {
    Ir ir;
    if (!DecodeIr(input.bytes(), context.limits, sink, &ir, &input)) return nullptr;
    nlohmann::json out = {{"format", "gemini"},
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
