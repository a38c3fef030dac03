// The members as a whole (docs/formats/neff.md §2.1, §2.5, §4 G and H):
// tensor maps, members nothing reaches, the names documents give members,
// and which subgraphs move data.
#include "validators/core/checked.h"
#include "validators/core/json_reader.h"
#include "validators/core/text.h"
#include "validators/neff/rules.h"
#include "validators/neff/validate.h"

namespace accelcheck::neff {

using namespace rules;

namespace {

// NEFF-45: the members that are there for people and tools, not the
// runtime's references.
bool IsInformational(std::string_view name) {
  const size_t slash = name.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? name : name.substr(slash + 1);
  return name == "info.json" || name == "metrics.json" || base == "tensor_map.json" ||
         name.starts_with("debug_info/") || base.starts_with("debug_info") ||
         name.find(".dbg") != std::string_view::npos ||
         (base.starts_with("hlo_") && base.ends_with(".json"));
}

// NEFF-54: a name that stays inside its subgraph's directory.
bool IsSingleComponent(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos;
}

}  // namespace

void CheckTensorMap(Neff& neff, Subgraph& sg) {
  const Definition& def = *sg.def;
  for (const Variable& v : def.vars) {
    if (v.type != VarType::kInput && v.type != VarType::kOutput) continue;
    const Location var_at{v.offset, std::nullopt, Str("/var/", PointerToken(v.name))};
    if (!sg.tensor_map) {
      if (neff.container.Find(sg.tensor_map_member) == nullptr) {
        neff.In(sg.definition)
            .Report(kTensorMapEntry, var_at,
                    Str(VarTypeName(v.type), " ", Quoted(v.name),
                        " has no entry: the subgraph has no ", Quoted(sg.tensor_map_member)));
      }
      continue;
    }
    const auto entry = sg.tensor_map->find(v.name);
    if (entry == sg.tensor_map->end()) {
      neff.In(sg.definition)
          .Report(kTensorMapEntry, var_at,
                  Str(VarTypeName(v.type), " ", Quoted(v.name), " has no entry in ",
                      Quoted(sg.tensor_map_member)));
      continue;
    }
    const TensorMapEntry& t = entry->second;
    const uint64_t element = DtypeBytes(t.dtype);
    if (!t.tf_shape || element == 0 || !v.size) continue;
    uint64_t bytes = element;
    bool fits = true;
    for (int64_t dim : *t.tf_shape) {
      const auto next = dim < 0 ? std::nullopt : CheckedMul(bytes, static_cast<uint64_t>(dim));
      fits = fits && next.has_value();
      bytes = next.value_or(0);
    }
    if (!fits || bytes != static_cast<uint64_t>(v.size->value)) {
      neff.In(sg.tensor_map_member)
          .Report(kTensorMapSize,
                  Location{t.offset, std::nullopt, Str("/", PointerToken(v.name), "/tf_shape")},
                  Str("tf_shape and ", t.dtype, " give ", fits ? Str(bytes) : "more than 2^64",
                      " bytes; variable ", Quoted(v.name), " is ", v.size->value, " bytes"));
    }
  }
}

void CheckMembers(Neff& neff) {
  for (const Subgraph& sg : neff.subgraphs) {
    if (!sg.def) continue;
    for (const Reference& ref : sg.def->references) neff.names.push_back({sg.definition, ref});
    // The debug files def.json lists are reached like the rest.
    for (const Reference& ref : sg.def->references) neff.reached.insert(sg.Member(ref.name));
  }
  for (const auto& [member, ref] : neff.names) {
    if (!IsSingleComponent(ref.name)) {
      neff.In(member).Report(kMemberReference, Location{ref.offset, std::nullopt, ref.pointer},
                             Str(Quoted(ref.name), " is not a single path component"));
    }
  }
  for (const auto& [name, member] : neff.container.files) {
    if (neff.reached.count(name) != 0 || IsInformational(name)) continue;
    neff.In("").Report(kMemberUnreferenced, InMember(kArchiveMember, member->header, name),
                       Str(Quoted(name),
                           " is reached by no reference and is none of the "
                           "informational members"));
  }
  uint64_t moving = 0;
  for (size_t i = 0; i < neff.subgraphs.size(); ++i) {
    if (neff.subgraphs[i].block_count == 0 || ++moving != 2) continue;
    neff.In(neff.kelf_member)
        .Report(kSubgraphDma, Location{0, std::nullopt, Str("/graphs/", i)},
                Str("subgraph ", Quoted(neff.subgraphs[i].name),
                    " has DMA blocks too; in real files only the first subgraph moves data"));
  }
}

}  // namespace accelcheck::neff
