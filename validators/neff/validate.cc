// The checks after the container: the top-level documents (§4 C, G) and
// the order the passes run in.
#include "validators/neff/validate.h"

#include <algorithm>

#include "validators/core/json_locate.h"
#include "validators/core/json_reader.h"
#include "validators/core/phases.h"
#include "validators/core/text.h"
#include "validators/neff/rules.h"

namespace accelcheck::neff {

using namespace rules;

DiagnosticSink& MemberReports::For(std::string_view member) {
  for (auto& [name, sink] : sinks_) {
    if (name == member) return *sink;
  }
  sinks_.emplace_back(std::string(member),
                      std::make_unique<DiagnosticSink>(Profile{}, std::string(member)));
  return *sinks_.back().second;
}

uint64_t MemberReports::blocking_count() const {
  uint64_t count = 0;
  for (const auto& entry : sinks_) count += entry.second->blocking_count();
  return count;
}

void MemberReports::Flush(const Container& container, const Limits& limits, DiagnosticSink& sink) {
  for (auto& [name, problems] : sinks_) {
    const tar::Member* member = container.Find(name);
    if (member == nullptr || !name.ends_with(".json")) {
      for (const Diagnostic& d : problems->diagnostics()) {
        Location where = d.location;
        if (where.member.empty()) where.member = name;
        sink.Report(*d.rule, std::move(where), d.message);
      }
      continue;
    }
    ReportCompanionProblems(member->data, name, limits, *problems, sink);
  }
  sinks_.clear();
}

StateBuffer StateBufferOf(std::string_view target) {
  // §2.13: the highest bytes real accesses reach on each target.
  if (target == "sunda" || target == "v2") return {128, 196608, true};
  if (target == "cayman" || target == "v3") return {128, 229376, true};
  return {};
}

uint64_t DtypeBytes(std::string_view dtype) {
  static constexpr std::pair<std::string_view, uint64_t> kSizes[] = {
      {"float8e3", 1}, {"float8e4", 1}, {"float8e5", 1}, {"float16", 2}, {"bfloat16", 2},
      {"float32", 4},  {"float32r", 4}, {"uint8", 1},    {"int8", 1},    {"uint16", 2},
      {"int16", 2},    {"uint32", 4},   {"int32", 4},    {"uint64", 8},  {"int64", 8}};
  for (const auto& [name, bytes] : kSizes) {
    if (name == dtype) return bytes;
  }
  return 0;
}

const tar::Member* JsonMember(Neff& neff, const std::string& name) {
  const tar::Member* member = neff.container.Find(name);
  if (member == nullptr) return nullptr;
  if (const auto bad = InvalidUtf8At(member->data)) {
    neff.In(name).Report(kJsonSyntax, Location{*bad, 1, ""},
                         Str("byte ", Hex(member->data[*bad]), " is not valid UTF-8"));
    return nullptr;
  }
  return member;
}

namespace {

// The tvm_op node that runs the kelf (NEFF-21).
const GraphNode* KelfNode(const Graph& graph) {
  for (const GraphNode& node : graph.nodes) {
    const auto func = node.attrs.find("func_name");
    if (node.op == "tvm_op" && func != node.attrs.end() && func->second == "__kelf") return &node;
  }
  return nullptr;
}

void CheckGraphIndices(const Graph& g, DiagnosticSink& sink) {
  const auto nodes = static_cast<int64_t>(g.nodes.size());
  for (size_t i = 0; i < g.arg_nodes.size(); ++i) {
    if (g.arg_nodes[i] < 0 || g.arg_nodes[i] >= nodes) {
      sink.Report(kGraphIndex, Location{std::nullopt, std::nullopt, Str("/arg_nodes/", i)},
                  Str("arg_nodes[", i, "] is ", g.arg_nodes[i], "; there are ", nodes, " nodes"));
    }
  }
  for (size_t i = 0; i < g.heads.size(); ++i) {
    if (g.heads[i].empty() || g.heads[i][0] < 0 || g.heads[i][0] >= nodes) {
      sink.Report(kGraphIndex, Location{std::nullopt, std::nullopt, Str("/heads/", i)},
                  Str("heads[", i, "] names no node of the ", nodes));
    }
  }
  if (g.node_row_ptr.size() != g.nodes.size() + 1) {
    sink.Report(kGraphIndex, Location{std::nullopt, std::nullopt, "/node_row_ptr"},
                Str("node_row_ptr has ", g.node_row_ptr.size(), " entries; ", nodes, " nodes need ",
                    nodes + 1));
  }
}

// NEFF-55: the operator's counts, the attrs lists and the signature agree
// with the nodes.
void CheckGraphSignature(const Graph& g, const GraphNode& kelf_node, DiagnosticSink& sink) {
  const auto node_index = static_cast<size_t>(&kelf_node - g.nodes.data());
  const auto count_attr = [&](std::string_view attr, uint64_t actual) {
    const auto it = kelf_node.attrs.find(attr);
    if (it == kelf_node.attrs.end()) return;
    if (it->second != std::to_string(actual)) {
      sink.Report(kGraphSignature,
                  Location{std::nullopt, std::nullopt, Str("/nodes/", node_index, "/attrs/", attr)},
                  Str(attr, " is ", Quoted(it->second), " but the node has ", actual));
    }
  };
  count_attr("num_inputs", kelf_node.input_count);
  count_attr("num_outputs", kelf_node.output_names.size());
  if (!g.node_row_ptr.empty() && g.node_row_ptr.back() >= 0) {
    const auto entries = static_cast<uint64_t>(g.node_row_ptr.back());
    const auto list = [&](std::string_view name, std::optional<uint64_t> size) {
      if (size && *size != entries) {
        sink.Report(
            kGraphSignature, Location{g.attrs_offset, std::nullopt, Str("/attrs/", name)},
            Str("attrs.", name, " has ", *size, " entries; node_row_ptr ends at ", entries));
      }
    };
    list("shape", g.shapes ? std::optional<uint64_t>(g.shapes->size()) : std::nullopt);
    list("storage_id", g.storage_id_count);
    list("dltype", g.dltypes ? std::optional<uint64_t>(g.dltypes->size()) : std::nullopt);
  }
  if (!g.signature_inputs) return;
  std::vector<size_t> inputs;  // the null nodes, in order
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].op == "null") inputs.push_back(i);
  }
  const auto& sig = *g.signature_inputs;
  const std::string where = "/metadata/signatures/default/inputs";
  if (sig.size() != inputs.size()) {
    sink.Report(kGraphSignature, Location{g.signature_offset, std::nullopt, where},
                Str("the signature lists ", sig.size(), " inputs; the graph has ", inputs.size(),
                    " null nodes"));
    return;
  }
  for (size_t k = 0; k < sig.size(); ++k) {
    const GraphNode& node = g.nodes[inputs[k]];
    const std::string path = Str(where, "/", PointerToken(sig[k].name));
    std::string problem;
    if (sig[k].name != node.name) {
      problem = Str("input ", k, " is ", Quoted(sig[k].name), "; null node ", inputs[k], " is ",
                    Quoted(node.name));
    } else if (sig[k].id != static_cast<int64_t>(k)) {
      problem = Str("input ", Quoted(sig[k].name), " has id ", sig[k].id.value_or(-1), ", not ", k);
    } else if (!g.node_row_ptr.empty() && inputs[k] < g.node_row_ptr.size()) {
      const auto row = g.node_row_ptr[inputs[k]];
      if (g.shapes && row >= 0 && static_cast<uint64_t>(row) < g.shapes->size() &&
          (*g.shapes)[static_cast<size_t>(row)] != sig[k].shape) {
        problem =
            Str("input ", Quoted(sig[k].name), "'s shape differs from attrs.shape[", row, "]");
      } else if (g.dltypes && row >= 0 && static_cast<uint64_t>(row) < g.dltypes->size() &&
                 (*g.dltypes)[static_cast<size_t>(row)] != sig[k].dtype) {
        problem =
            Str("input ", Quoted(sig[k].name), " is ", Quoted(sig[k].dtype), "; attrs.dltype[", row,
                "] is ", Quoted((*g.dltypes)[static_cast<size_t>(row)]));
      }
    }
    if (!problem.empty()) {
      sink.Report(kGraphSignature, Location{sig[k].offset, std::nullopt, path}, problem);
    }
  }
}

void CheckKelf(Neff& neff) {
  const Kelf& kelf = *neff.kelf;
  DiagnosticSink& sink = neff.In(neff.kelf_member);
  static constexpr std::string_view kTargets[] = {"sunda",   "v2", "cayman", "v3",
                                                  "mariana", "v4", "*",      ""};
  if (std::find(std::begin(kTargets), std::end(kTargets), kelf.target) == std::end(kTargets)) {
    sink.Report(kKelfTarget, Location{kelf.target_offset, std::nullopt, "/target"},
                Str("target ", Quoted(kelf.target),
                    " is not one the runtime accepts (sunda, v2, cayman, v3, mariana, v4, * or "
                    "empty)"));
  }
  std::set<std::string, std::less<>> names;
  for (size_t i = 0; i < kelf.graphs.size(); ++i) {
    const KelfGraph& graph = kelf.graphs[i];
    const std::string path = Str("/graphs/", i);
    if (!names.insert(graph.name).second) {
      sink.Report(kKelfDuplicateGraph, Location{graph.offset, std::nullopt, path + "/name"},
                  Str("graph ", Quoted(graph.name), " is named twice"));
      continue;
    }
    if (!neff.Reach(graph.definition)) {
      sink.Report(kKelfDefinition, Location{graph.offset, std::nullopt, path + "/definition"},
                  Str("definition ", Quoted(graph.definition), " names no member"));
      continue;
    }
    const std::string prefix = graph.name + "/";
    if (!graph.definition.starts_with(prefix) ||
        graph.definition.find('/', prefix.size()) != std::string::npos) {
      sink.Report(kKelfDirectory, Location{graph.offset, std::nullopt, path + "/definition"},
                  Str("definition ", Quoted(graph.definition), " is not in the directory ",
                      Quoted(prefix), " of graph ", Quoted(graph.name)));
    }
    neff.subgraphs.push_back({.name = graph.name, .definition = graph.definition});
  }
}

// NEFF-9, NEFF-10, NEFF-42: info.json repeats header fields.
void CheckInfo(Neff& neff) {
  const Info& info = *neff.info;
  const Header& h = neff.header;
  DiagnosticSink& sink = neff.In("info.json");
  if (info.name && info.name->value != HeaderText(h.name)) {
    sink.Report(kHeaderInfoName, Location{info.name->offset, std::nullopt, "/name"},
                Str("info.json's name ", Quoted(info.name->value), " differs from the header's ",
                    Quoted(HeaderText(h.name))));
  }
  if (info.num_tpb_per_node) {
    const std::vector<int64_t>& per_node = info.num_tpb_per_node->value;
    bool same = per_node.size() == h.tpb_per_node.size();
    for (size_t i = 0; same && i < per_node.size(); ++i) same = per_node[i] == h.tpb_per_node[i];
    if (!same) {
      sink.Report(kTpb, Location{info.num_tpb_per_node->offset, std::nullopt, "/num_tpb_per_node"},
                  "num_tpb_per_node differs from the header's tpb_per_node bytes");
    }
  }
  const auto compare = [&](const std::optional<Located<int64_t>>& value, std::string_view key,
                           uint32_t header_value, std::string_view header_field) {
    if (value && value->value != static_cast<int64_t>(header_value)) {
      sink.Report(
          kInfoHeader, Location{value->offset, std::nullopt, Str("/", key)},
          Str(key, " is ", value->value, "; the header's ", header_field, " is ", header_value));
    }
  };
  compare(info.num_tpb, "num_tpb", h.num_tpb, "num_tpb");
  compare(info.num_tpb_requested, "num_tpb_requested", h.requested_tpb_count,
          "requested_tpb_count");
}

}  // namespace

void DecodeTopLevel(Neff& neff) {
  const Limits& limits = neff.context.limits;
  neff.reached.insert("neff.json");
  const tar::Member* graph_member = JsonMember(neff, "neff.json");
  if (neff.container.Find("neff.json") == nullptr) {
    neff.In("").Report(kGraphMissing, InMember(kArchiveMember, 0),
                       "the archive has no neff.json, the graph the runtime starts from");
    return;
  }
  if (graph_member == nullptr) return;
  neff.graph = DecodeGraph(graph_member->data, limits, neff.In("neff.json"));
  if (!neff.graph) return;
  const GraphNode* kelf_node = KelfNode(*neff.graph);
  std::string problem;
  if (kelf_node == nullptr) {
    problem = "no tvm_op node has func_name \"__kelf\"";
  } else if (const auto kelf = kelf_node->attrs.find("kelf"); kelf == kelf_node->attrs.end()) {
    problem = "the __kelf node has no kelf attribute";
  } else if (!neff.Reach(kelf->second)) {
    problem = Str("the __kelf node's kelf ", Quoted(kelf->second), " names no member");
  } else {
    neff.kelf_member = kelf->second;
  }
  if (!problem.empty()) {
    neff.In("neff.json").Report(kGraphKelf, Location{0, std::nullopt, "/nodes"}, problem);
    return;
  }
  if (const tar::Member* kelf = JsonMember(neff, neff.kelf_member)) {
    neff.kelf = DecodeKelf(kelf->data, limits, neff.In(neff.kelf_member));
  }
  neff.reached.insert("info.json");
  if (const tar::Member* info = JsonMember(neff, "info.json")) {
    neff.info = DecodeInfo(info->data, limits, neff.In("info.json"));
  }
}

void CheckTopLevel(Neff& neff) {
  if (neff.graph) {
    DiagnosticSink& sink = neff.In("neff.json");
    CheckGraphIndices(*neff.graph, sink);
    if (const GraphNode* node = KelfNode(*neff.graph)) {
      CheckGraphSignature(*neff.graph, *node, sink);
    }
  }
  if (neff.kelf) {
    neff.state_buffer = StateBufferOf(neff.kelf->target);
    CheckKelf(neff);
    const uint32_t lnc = neff.header.lnc_size;
    std::set<std::string_view> names;  // a repeated graph is kelf.duplicate_graph's
    for (const KelfGraph& graph : neff.kelf->graphs) names.insert(graph.name);
    const uint64_t graphs = names.size();
    if (lnc < 1 || lnc > 2 || lnc != graphs) {
      neff.In("").Report(kLncSize, At(fields::kLncSize),
                         Str("lnc_size is ", lnc, "; the kelf file has ", graphs,
                             graphs == 1 ? " graph" : " graphs"));
    }
  }
  if (neff.info) CheckInfo(neff);
}

void ValidateMembers(const Container& container, const ValidateContext& context,
                     DiagnosticSink& sink) {
  MemberReports reports;
  Neff neff{container, context, reports, container.header};
  // The header's own errors (a stale hash, a version) do not stop these
  // checks; the members' errors gate the passes that rely on them.
  const auto blocking = [&] { return reports.blocking_count(); };
  const auto run = [&]() {
    DecodeTopLevel(neff);
    if (blocking() != 0) return;
    CheckTopLevel(neff);
    DecodeDefinitions(neff);
    if (blocking() != 0 || OutOfTime(context, sink)) return;
    for (Subgraph& subgraph : neff.subgraphs) {
      if (!subgraph.def) continue;
      CheckDefinition(neff, subgraph);
      CheckTensorMap(neff, subgraph);
    }
    if (blocking() != 0 || OutOfTime(context, sink)) return;
    for (Subgraph& subgraph : neff.subgraphs) {
      if (!subgraph.def) continue;
      CheckEngines(neff, subgraph);
      if (OutOfTime(context, sink)) return;
    }
    CheckMembers(neff);
  };
  run();
  reports.Flush(container, context.limits, sink);
}

}  // namespace accelcheck::neff
