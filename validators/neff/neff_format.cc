// The neff Format: content detection, the validation pipeline (container,
// then members), inspection and member extraction (docs/formats/neff.md).
#include "validators/neff/neff_format.h"

#include "validators/core/digest.h"
#include "validators/core/phases.h"
#include "validators/core/text.h"
#include "validators/neff/container.h"
#include "validators/neff/rules.h"
#include "validators/neff/validate.h"

namespace accelcheck::neff {

namespace {

nlohmann::json HeaderJson(const Header& h) {
  return {{"pkg_version", h.pkg_version},
          {"header_size", h.header_size},
          {"data_size", h.data_size},
          {"neff_version", Str(h.major, ".", h.minor)},
          {"neff_build_version", std::string(HeaderText(h.build_version))},
          {"num_tpb", h.num_tpb},
          {"hash", digest::HexOf(h.hash)},
          {"uuid", digest::HexOf(h.uuid)},
          {"name", std::string(HeaderText(h.name))},
          {"requested_tpb_count", h.requested_tpb_count},
          {"feature_bits", Hex(h.feature_bits)},
          {"lnc_size", h.lnc_size}};
}

nlohmann::json MembersJson(const Container& c) {
  nlohmann::json members = nlohmann::json::array();
  for (const tar::Member& m : c.archive.members) {
    members.push_back({{"name", m.name},
                       {"type", m.type == tar::Type::kFile ? "file" : "directory"},
                       {"size", m.size},
                       {"offset", m.offset}});
  }
  return members;
}

// Per subgraph: its variables, queue sets and engines with their blocks.
nlohmann::json SubgraphJson(const Container& c, const Subgraph& sg, const Limits& limits) {
  nlohmann::json out = {{"name", sg.name}, {"definition", sg.definition}};
  if (!sg.def) return out;
  nlohmann::json vars = nlohmann::json::array();
  for (const Variable& v : sg.def->vars) {
    nlohmann::json var = {{"name", v.name}, {"type", v.type_text}};
    if (v.var_id) var["var_id"] = *v.var_id;
    if (v.size) var["size"] = v.size->value;
    if (v.file_name) var["file_name"] = v.file_name->value;
    vars.push_back(std::move(var));
  }
  nlohmann::json queues = nlohmann::json::array();
  for (const QueueSet& q : sg.def->queues) {
    nlohmann::json queue = {{"name", q.name}, {"num_queues", q.queue_count()}};
    if (q.type) queue["type"] = q.type->value;
    if (q.owner) queue["owner"] = q.owner->value;
    queues.push_back(std::move(queue));
  }
  nlohmann::json engines = nlohmann::json::object();
  for (size_t e = 0; e < kEngineCount; ++e) {
    nlohmann::json engine = nlohmann::json::object();
    if (sg.def->engine_json[e]) {
      const std::string member = sg.Member(sg.def->engine_json[e]->value);
      engine["json"] = member;
      if (const tar::Member* m = c.Find(member)) {
        uint64_t descriptors = 0;
        DiagnosticSink quiet(Profile{}, member);
        const auto doc = DecodeEngine(m->data, limits, quiet, [&](uint64_t, const Block& b) {
          descriptors += b.desc.size();
        });
        if (doc) {
          engine["dma_blocks"] = doc->block_count;
          engine["descriptors"] = descriptors;
        }
      }
    }
    if (sg.def->engine_program[e]) {
      const std::string member = sg.Member(sg.def->engine_program[e]->value);
      engine["program"] = member;
      if (const tar::Member* m = c.Find(member)) engine["slots"] = m->size / 64;
    }
    engines[std::string(kEngineKeys[e])] = std::move(engine);
  }
  out["variables"] = std::move(vars);
  out["queue_sets"] = std::move(queues);
  out["engines"] = std::move(engines);
  return out;
}

class NeffFormatImpl final : public Format {
 public:
  std::string_view id() const override { return "neff"; }
  std::string_view description() const override {
    return "AWS Neuron executable (.neff): header, hash, archive and every JSON member";
  }
  RuleTable rules() const override { return AllRules(); }
  bool Detect(ByteView bytes) const override { return LooksLikeNeff(bytes); }
  // A .neff cut short or with a damaged header.
  bool Resembles(const std::string& path, ByteView) const override {
    return path.ends_with(".neff");
  }
  bool TakesCompanion(const std::string&, ByteView) const override { return false; }
  std::string_view companion_kinds() const override { return "no companions"; }

  void Validate(const InputBuffer& input, const ValidateContext& context,
                DiagnosticSink& sink) const override {
    const std::optional<Container> container = ReadContainer(input, context, sink);
    if (!container || OutOfTime(context, sink)) return;
    ValidateMembers(*container, context, sink);
  }

  nlohmann::json Inspect(const InputBuffer& input, const ValidateContext& context,
                         DiagnosticSink& sink) const override {
    const std::optional<Container> c = ReadContainer(input, context, sink);
    if (!c) return nullptr;
    MemberReports reports;
    Neff neff{*c, context, reports, c->header};
    DecodeTopLevel(neff);
    if (neff.kelf) CheckTopLevel(neff);
    DecodeDefinitions(neff);
    nlohmann::json subgraphs = nlohmann::json::array();
    for (const Subgraph& sg : neff.subgraphs) {
      subgraphs.push_back(SubgraphJson(*c, sg, context.limits));
    }
    reports.Flush(*c, context.limits, sink);
    return {{"format", "neff"},
            {"header", HeaderJson(c->header)},
            {"payload", c->compressed ? "gzip" : "tar"},
            {"archive_bytes", c->tar.size()},
            {"members", MembersJson(*c)},
            {"kelf", neff.kelf_member},
            {"target", neff.kelf ? nlohmann::json(neff.kelf->target) : nlohmann::json(nullptr)},
            {"subgraphs", std::move(subgraphs)}};
  }

  std::optional<std::vector<uint8_t>> ReadMember(const InputBuffer& input,
                                                 const ValidateContext& context,
                                                 std::string_view name,
                                                 std::string* error) const override {
    DiagnosticSink sink(Profile{}, "");
    const std::optional<Container> c = ReadContainer(input, context, sink);
    if (!c) {
      *error = "the archive cannot be read (validate the file to see why)";
      return std::nullopt;
    }
    // The last file of the name, the one the runtime keeps (§1.6).
    for (auto m = c->archive.members.rbegin(); m != c->archive.members.rend(); ++m) {
      if (m->name == name && m->type == tar::Type::kFile) {
        return std::vector<uint8_t>(m->data.begin(), m->data.end());
      }
    }
    *error = Str("the archive has no file ", Quoted(name));
    return std::nullopt;
  }
};

}  // namespace

const Format& NeffFormat() {
  static const NeffFormatImpl kFormat;
  return kFormat;
}

}  // namespace accelcheck::neff
