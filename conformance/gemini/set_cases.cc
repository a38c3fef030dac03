// The SET dialect's conformance cases: one change per rule of rules.def
// section I, each finding its place in any SET-dialect IR.
#include <functional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "conformance/gemini/cases.h"
#include "validators/core/json_exception.h"
#include "validators/core/text.h"
#include "validators/gemini/decode.h"
#include "validators/gemini/frontend.h"
#include "validators/gemini/rules.h"

namespace accelcheck::gemini {

namespace {

namespace ac = accelcheck::conformance;
using nlohmann::json;

struct SetChange {
  const Rule* rule;
  std::vector<const Rule*> also;
  // Edits the IR at the first place it can and returns the JSON pointer the
  // validator must report; throws when the IR has no such place.
  std::function<std::string(json&)> change;
  // The rule holds between the IR and its frontend IR: the case needs the
  // base's frontend IR and is validated with it.
  bool with_frontend = false;
};

[[noreturn]] void NoPlace(const char* what) { throw std::invalid_argument(what); }

bool IsCoreKey(const std::string& key) { return CoreKey(key).has_value(); }

// Calls visit(workload, path) for each workload until it returns a path.
std::string FirstWorkload(json& ir,
                          const std::function<std::string(json&, const std::string&)>& visit) {
  for (auto& [key, list] : ir.items()) {
    if (!IsCoreKey(key)) continue;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string path = visit(list[i], Str("/", key, "/", i));
      if (!path.empty()) return path;
    }
  }
  NoPlace("no workload of the kind the change edits");
}

// The first buffer entry `pick` takes, edited by `edit`; its pointer.
std::string FirstEntry(json& ir, const std::function<bool(const json&)>& pick,
                       const std::function<std::string(json&)>& edit) {
  return FirstWorkload(ir, [&](json& w, const std::string& path) -> std::string {
    json& buffer = w.at("buffer");
    for (size_t e = 0; e < buffer.size(); ++e) {
      if (pick(buffer[e])) return Str(path, "/buffer/", e, edit(buffer[e]));
    }
    return "";
  });
}

// Applies `edit` to every port's copy of DRAM `list` ("in", "out") entry
// `transfer_id`; the pointer of the first copy.
std::string EditDramEntry(json& ir, const char* list, int64_t transfer_id,
                          const std::function<void(json&)>& edit) {
  std::string first;
  for (auto& [port, lists] : ir.at("DRAM").items()) {
    json& entries = lists.at(list);
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].at("transfer_id") != transfer_id) continue;
      edit(entries[i]);
      if (first.empty()) first = Str("/DRAM/", port, "/", list, "/", i);
    }
  }
  if (first.empty()) NoPlace("no DRAM entry of the kind the change edits");
  return first;
}

// The first DRAM entry of `list` in port order.
const json& FirstDramEntry(const json& ir, const char* list) {
  for (const auto& [port, lists] : ir.at("DRAM").items()) {
    if (!lists.at(list).empty()) return lists.at(list).at(0);
  }
  NoPlace("no DRAM entry of the kind the change edits");
}

std::vector<SetChange> Table() {
  using namespace rules;
  return {
      {&kSetTop,
       {},
       [](json& ir) {
         ir.at("metadata").at("xlen") = 0;
         return std::string("/metadata/xlen");
       }},
      // The second core's first workload takes the first core's first id.
      {&kSetWorkloadIds,
       {},
       [](json& ir) {
         std::vector<json*> firsts;
         std::vector<std::string> keys;
         for (auto& [key, list] : ir.items()) {
           if (IsCoreKey(key) && !list.empty()) {
             firsts.push_back(&list[0]);
             keys.push_back(key);
           }
         }
         if (firsts.size() < 2) NoPlace("fewer than two cores run workloads");
         (*firsts[1])["workload_id"] = (*firsts[0])["workload_id"];
         return Str("/", keys[1], "/0");
       }},
      {&kSetTopologicalOrder,
       {},
       [](json& ir) {
         return FirstWorkload(ir, [](json& w, const std::string& path) -> std::string {
           if (w.at("workload_id") == 0) return "";
           w.at("ifmap").at("max_workload_id") = w.at("workload_id");
           return Str(path, "/ifmap/max_workload_id");
         });
       }},
      {&kSetTransferProduced,
       {},
       [](json& ir) {
         return FirstWorkload(ir, [](json& w, const std::string& path) -> std::string {
           json& ids = w.at("ifmap").at("transfer_id");
           if (ids.empty()) return "";
           ids[0] = 1 << 30;
           return Str(path, "/ifmap");
         });
       }},
      // A DRAM store names a workload of another core than the one storing.
      {&kSetTransferDestination,
       {},
       [](json& ir) {
         const json& in = FirstDramEntry(ir, "in");
         const int64_t core = in.at("core_id");
         int64_t elsewhere = -1;
         for (auto& [key, list] : ir.items()) {
           if (IsCoreKey(key) && std::stoll(key) != core && !list.empty()) {
             elsewhere = list[0].at("workload_id");
           }
         }
         if (elsewhere < 0) NoPlace("no other core runs a workload");
         return EditDramEntry(ir, "in", in.at("transfer_id"),
                              [&](json& e) { e["workload_id"] = elsewhere; });
       }},
      // A block stored to DRAM names one port fewer than the ports holding it.
      {&kSetDramPorts,
       {},
       [](json& ir) {
         return FirstEntry(
             ir,
             [](const json& e) {
               if (e.at("type") != "ofmap") return false;
               for (const json& send : e.at("destinations")) {
                 const json& target = send.at("destination").at(0);
                 if (target.at("type") == "DRAM" && target.at("id").size() > 1) return true;
               }
               return false;
             },
             [](json& e) -> std::string {
               json& sends = e.at("destinations");
               for (size_t s = 0; s < sends.size(); ++s) {
                 json& target = sends[s].at("destination").at(0);
                 if (target.at("type") == "DRAM" && target.at("id").size() > 1) {
                   target.at("id").erase(target.at("id").size() - 1);
                   return Str("/destinations/", s);
                 }
               }
               return "";
             });
       }},
      // A store lists a DRAM out that does not list it back.
      {&kSetRelated,
       {},
       [](json& ir) {
         const int64_t out = FirstDramEntry(ir, "out").at("transfer_id");
         const std::string path =
             EditDramEntry(ir, "in", FirstDramEntry(ir, "in").at("transfer_id"),
                           [&](json& e) { e["related_ofmap"].push_back(out); });
         return path + "/related_ofmap";
       }},
      // Two tensors of one snapshot at one address.
      {&kSetRing,
       {},
       [](json& ir) {
         return FirstWorkload(ir, [](json& w, const std::string& path) -> std::string {
           json& buffer = w.at("buffer");
           if (buffer.size() < 2) return "";
           buffer[1]["address"] = buffer[0].at("address");
           return Str(path, "/buffer/1");
         });
       }},
      // A weight takes one block more than its bits need; the block may then
      // overlap the tensor placed after it.
      {&kSetBlocks,
       {&kSetRing},
       [](json& ir) {
         return FirstEntry(
             ir, [](const json& e) { return e.at("type") == "weight"; },
             [](json& e) {
               e["block"] = e.at("block").get<int64_t>() + 1;
               return std::string("/block");
             });
       }},
      // A DRAM out queues behind its first destination; the tensors that
      // load it then disagree with it too.
      {&kSetPriority,
       {},
       [](json& ir) {
         const json& out = FirstDramEntry(ir, "out");
         const int64_t priority = out.at("priority").get<int64_t>() + 1;
         return EditDramEntry(ir, "out", out.at("transfer_id"),
                              [&](json& e) { e["priority"] = priority; }) +
                "/priority";
       }},
      {&kSetLoading,
       {},
       [](json& ir) {
         return FirstEntry(
             ir, [](const json& e) { return e.at("type") == "ifmap"; },
             [](json& e) {
               e["end_loading"] = !e.at("end_loading").get<bool>();
               return std::string("/end_loading");
             });
       }},
      // An ofmap sent at once that does not end its send.
      {&kSetSending,
       {},
       [](json& ir) {
         return FirstEntry(
             ir,
             [](const json& e) { return e.at("type") == "ofmap" && e.at("start_sending") == true; },
             [](json& e) {
               e["end_sending"] = false;
               return std::string();
             });
       }},
      // The first workload that reads rows misses its last row.
      {&kSetReceptiveField,
       {},
       [](json& ir) {
         return FirstWorkload(ir, [](json& w, const std::string& path) -> std::string {
           json& ifmap = w.at("ifmap");
           if (ifmap.at("upper").at(2) == ifmap.at("lower").at(2)) return "";
           ifmap.at("upper").at(2) = ifmap.at("upper").at(2).get<int64_t>() - 1;
           return Str(path, "/ifmap");
         });
       },
       true},
  };
}

ac::OrDeclined<ac::Mutated> Apply(const SetChange& c, const ac::Base& base,
                                  const std::string& name) {
  const std::vector<uint8_t>& bytes = base.files[0].bytes;
  if (!LooksLikeSetIr(ByteView(bytes.data(), bytes.size()))) {
    return ac::Declined{
        Str(c.rule->id, " is a rule of the SET dialect, and the input is not a SET-dialect IR")};
  }
  ac::Mutated result;
  if (c.with_frontend) {
    for (const ac::NamedFile& companion : base.companions) {
      if (LooksLikeFrontend(ByteView(companion.bytes.data(), companion.bytes.size())))
        result.companions.push_back(companion.name);
    }
    if (result.companions.empty()) {
      return ac::Declined{Str(c.rule->id, " holds between the IR and its frontend IR: give it ",
                              "with --frontend FILE")};
    }
  }
  try {
    json ir = json::parse(bytes.begin(), bytes.end());
    result.path = c.change(ir);
    const std::string text = ir.dump();
    result.files.push_back({name, std::vector<uint8_t>(text.begin(), text.end())});
    return result;
  } catch (const std::exception& e) {
    return ac::Declined{
        Str("cannot break ", c.rule->id, " in this IR: ", JsonExceptionText(e.what()))};
  }
}

}  // namespace

std::vector<ac::MutationCase> SetMutationCases() {
  std::vector<ac::MutationCase> cases;
  static const std::vector<SetChange> kTable = Table();
  for (const SetChange& c : kTable) {
    cases.push_back({c.rule, c.also, c.with_frontend,
                     [&c](const ac::Base& base, uint64_t /*seed*/, const std::string& name) {
                       return Apply(c, base, name);
                     }});
  }
  return cases;
}

}  // namespace accelcheck::gemini
