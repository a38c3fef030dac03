// One change per rule of validators/tensil/rules.def to a valid bundle, each
// reported at the object path it returns. The changes take addresses and
// sizes from the bundle's architecture and program, so that they apply to any
// model with room for them (the tiny bundle and the real ones).
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>
#include <regex>

#include "conformance/tensil/bundle.h"
#include "validators/core/checked.h"
#include "validators/core/text.h"
#include "validators/tensil/manifest.h"
#include "validators/tensil/rules.h"

namespace accelcheck::tensil::conformance {

namespace {

namespace ac = accelcheck::conformance;
using nlohmann::json;

using Result = ac::OrDeclined<std::string>;

// A change to a valid bundle that breaks `rule`; gives the object path the
// rule is reported at, or declines when the bundle offers no place for it.
// `m` is the bundle's manifest as decoded, where the change reads the sizes
// and addresses it needs.
struct Change {
  const Rule* rule;
  std::function<Result(Bundle& c, const Model& m)> change;
  std::vector<const Rule*> also = {};  // rules that necessarily break with it
};

// The first local row the program writes from DRAM: an appended instruction
// reads it without reading an uninitialized row (docs/formats/tensil.md TNS-27).
std::optional<uint64_t> WrittenLocal(const Bundle& c) {
  static const std::regex kLoad(R"(^DataMove dram[01]->local local=(\d+))");
  for (const std::string& line : c.program) {
    std::smatch match;
    uint64_t row = 0;
    if (std::regex_search(line, match, kLoad) &&
        std::from_chars(&*match[1].first, &*match[1].first + match[1].length(), row).ec ==
            std::errc{}) {
      return row;
    }
  }
  return std::nullopt;
}

// Appends an instruction, with {L} replaced by a local row the program
// writes; its path is prog[index].
Result Append(Bundle& c, std::string line) {
  if (const size_t at = line.find("{L}"); at != std::string::npos) {
    const std::optional<uint64_t> local = WrittenLocal(c);
    if (!local) return ac::Declined{"the program loads no local row from DRAM"};
    line.replace(at, 3, Str(*local));
  }
  c.program.push_back(line);
  return Str("prog[", c.program.size() - 1, "]");
}

// Replaces the constants with `rows` vectors of zeros of `type`, or declines
// when they would take more than 64 MiB.
std::optional<ac::Declined> ZeroConstants(Bundle& c, const Model& m, uint64_t rows, DataType type) {
  constexpr uint64_t kMaxBytes = uint64_t{64} << 20;
  const auto values = CheckedMul(rows, m.arch.array_size);
  const auto bytes = values ? CheckedMul(*values, InfoOf(type).bytes) : std::nullopt;
  if (!bytes || *bytes > kMaxBytes) {
    return ac::Declined{Str(rows, " rows of constants would take more than ", kMaxBytes, " bytes")};
  }
  c.tdata.assign(*bytes, 0);
  return std::nullopt;
}

// The first DRAM0 row past every input and output.
uint64_t PastIo(const Model& m) {
  uint64_t end = 0;
  for (const auto* list : {&m.inputs, &m.outputs}) {
    for (const IoEntry& io : *list) end = std::max(end, io.base + io.size);
  }
  return end;
}

// The index of the first LoadWeights.
std::optional<size_t> FirstLoadWeights(const Bundle& c) {
  for (size_t i = 0; i < c.program.size(); ++i) {
    if (c.program[i].rfind("LoadWeights", 0) == 0) return i;
  }
  return std::nullopt;
}

std::vector<Change> Table() {
  return {
      {&rules::kJsonSyntax,
       [](Bundle& c, const Model&) -> Result {
         c.model_text = "{\"prog\": ";
         return std::string("/prog");
       }},
      {&rules::kArchMismatch,
       [](Bundle& c, const Model& m) -> Result {
         c.tarch = c.arch();
         (*c.tarch)["local_depth"] = 2 * m.arch.local_depth;
         return std::string("/arch/local_depth");
       }},
      {&rules::kKeyMissing,
       [](Bundle& c, const Model&) -> Result {
         c.model.erase("name");
         return std::string("");
       }},
      {&rules::kKeyType,
       [](Bundle& c, const Model&) -> Result {
         c.model["inputs"][0]["base"] = "0";
         return std::string("/inputs/0/base");
       }},
      {&rules::kUnknownKey,
       [](Bundle& c, const Model&) -> Result {
         c.model["extra"] = 1;
         return std::string("/extra");
       }},
      {&rules::kLegacySchema,
       [](Bundle& c, const Model&) -> Result {
         c.model.erase("load_consts_to_local");
         return std::string("");
       }},
      {&rules::kArchPositive,
       [](Bundle& c, const Model&) -> Result {
         c.arch()["local_depth"] = 0;
         return std::string("/arch/local_depth");
       }},
      {&rules::kArchDataType,
       [](Bundle& c, const Model&) -> Result {
         c.arch()["data_type"] = "FP64";
         return std::string("/arch/data_type");
       }},
      {&rules::kArchThreads,
       [](Bundle& c, const Model&) -> Result {
         c.arch()["number_of_threads"] = 3;
         return std::string("/arch/number_of_threads");
       },
       {&rules::kArchHeaderWidth}},
      {&rules::kArchHeaderWidth,
       [](Bundle& c, const Model&) -> Result {
         c.arch()["number_of_threads"] = 4;
         return std::string("/arch/number_of_threads");
       },
       {&rules::kArchThreads}},
      {&rules::kArchOperandWidth,
       [](Bundle& c, const Model&) -> Result {
         c.arch()["dram0_depth"] = uint64_t{1} << 62;
         c.arch()["stride1_depth"] = 1 << 20;
         return std::string("/arch");
       },
       {&rules::kArchDepthRange}},
      {&rules::kArchFloat32,
       [](Bundle& c, const Model& m) -> Result {
         c.arch()["data_type"] = "FLOAT32";
         if (auto declined = ZeroConstants(c, m, m.consts[0].size, DataType::kFloat32))
           return *declined;
         return std::string("/arch/data_type");
       }},
      {&rules::kArchArraySizeRange,
       [](Bundle& c, const Model&) -> Result {
         c.arch()["array_size"] = 1;
         return std::string("/arch/array_size");
       },
       {&rules::kTdataSize, &rules::kLoadWeightsOversize}},
      {&rules::kArchDepthRange,
       [](Bundle& c, const Model&) -> Result {
         c.arch()["local_depth"] = 1 << 17;
         return std::string("/arch/local_depth");
       }},
      {&rules::kModelFileMissing,
       [](Bundle& c, const Model&) -> Result {
         c.name_files = false;
         c.model["prog"]["file_name"] = "absent.tprog";
         return std::string("/prog/file_name");
       }},
      {&rules::kModelProgSize,
       [](Bundle& c, const Model&) -> Result {
         c.fix_prog_size = false;
         c.model["prog"]["size"] = 42;
         return std::string("/prog/size");
       }},
      {&rules::kModelProgEmpty,
       [](Bundle& c, const Model&) -> Result {
         c.program.clear();
         return std::string("/prog/size");
       }},
      {&rules::kModelProgMultiple,
       [](Bundle& c, const Model&) -> Result {
         c.fix_prog_size = false;
         c.model["prog"]["size"] = 31;
         return std::string("/prog/size");
       },
       {&rules::kModelProgSize}},
      {&rules::kModelConstsEmpty,
       [](Bundle& c, const Model&) -> Result {
         c.model["consts"] = json::array();
         return std::string("/consts");
       }},
      {&rules::kModelConstsSize,
       [](Bundle& c, const Model&) -> Result {
         c.model["consts"][0]["size"] = 0;
         c.tdata.clear();
         return std::string("/consts/0/size");
       }},
      {&rules::kModelConstsCount,
       [](Bundle& c, const Model&) -> Result {
         c.model["consts"].push_back(c.model["consts"][0]);
         return std::string("/consts");
       }},
      {&rules::kModelConstsBase,
       [](Bundle& c, const Model&) -> Result {
         c.model["consts"][0]["base"] = 1;
         return std::string("/consts/0/base");
       },
       {&rules::kFlowUninitialized}},
      {&rules::kModelConstsRange,
       [](Bundle& c, const Model& m) -> Result {
         const uint64_t rows = m.arch.dram1_depth + 44;
         c.model["consts"][0]["size"] = rows;
         if (auto declined = ZeroConstants(c, m, rows, m.arch.data_type)) return *declined;
         return std::string("/consts/0");
       }},
      {&rules::kModelIoEmpty,
       [](Bundle& c, const Model&) -> Result {
         c.model["inputs"] = json::array();
         return std::string("/inputs");
       }},
      {&rules::kModelIoName,
       [](Bundle& c, const Model&) -> Result {
         c.model["inputs"][0]["name"] = "";
         return std::string("/inputs/0/name");
       }},
      {&rules::kModelIoFileName,
       [](Bundle& c, const Model&) -> Result {
         c.model["outputs"][0]["name"] = "../../escaped";
         return std::string("/outputs/0/name");
       }},
      {&rules::kModelIoSize,
       [](Bundle& c, const Model&) -> Result {
         c.model["outputs"][0]["size"] = 0;
         return std::string("/outputs/0/size");
       }},
      {&rules::kModelIoRange,
       [](Bundle& c, const Model& m) -> Result {
         c.model["outputs"][0]["base"] = m.arch.dram0_depth;
         return std::string("/outputs/0");
       },
       {&rules::kModelProbeRows}},
      {&rules::kModelIoCount,
       [](Bundle& c, const Model& m) -> Result {
         const uint64_t past = PastIo(m);
         for (uint64_t i = 0; i < 4; ++i)
           c.model["inputs"].push_back({{"name", Str("x", i)}, {"base", past + i}, {"size", 1}});
         return std::string("/inputs");
       }},
      {&rules::kModelIoOverlap,
       [](Bundle& c, const Model&) -> Result {
         c.model["inputs"].push_back(
             {{"name", "z"}, {"base", c.model["inputs"][0]["base"]}, {"size", 1}});
         return std::string("/inputs/1");
       }},
      {&rules::kModelIoOrder,
       [](Bundle& c, const Model& m) -> Result {
         // A new input past the others, listed first.
         const json first = {{"name", "z"}, {"base", PastIo(m)}, {"size", 1}};
         c.model["inputs"].insert(c.model["inputs"].begin(), first);
         return std::string("/inputs/1/base");
       }},
      {&rules::kModelProbeRows,
       [](Bundle& c, const Model&) -> Result {
         c.model["inputs"][0]["base"] = 254;
         if (c.program.size() < 2) return ac::Declined{"the program has one instruction"};
         c.program[1] = "DataMove dram0->local local=3 dram0=254 size=0";
         return std::string("/inputs/0");
       }},
      {&rules::kTdataSize,
       [](Bundle& c, const Model&) -> Result {
         c.tdata.resize(10);
         return std::string("/consts/0");
       }},
      {&rules::kTdataFp18Padding,
       [](Bundle& c, const Model& m) -> Result {
         c.arch()["data_type"] = "FP18BP10";
         if (auto declined = ZeroConstants(c, m, m.consts[0].size, DataType::kFp18bp10))
           return *declined;
         c.tdata[7] = 0x80;
         return std::string("/consts/0");
       }},
      {&rules::kTdataNonFinite,
       [](Bundle& c, const Model& m) -> Result {
         c.arch()["data_type"] = "FLOAT32";
         if (auto declined = ZeroConstants(c, m, m.consts[0].size, DataType::kFloat32))
           return *declined;
         c.tdata[4] = 0x7f;
         c.tdata[5] = 0x80;
         return std::string("/consts/0");
       },
       {&rules::kArchFloat32}},
      {&rules::kProgTruncated,
       [](Bundle& c, const Model&) -> Result {
         c.trailing = {0, 0};
         return std::string("prog");
       },
       {&rules::kModelProgMultiple}},
      {&rules::kInstrTid,
       [](Bundle& c, const Model&) -> Result { return Append(c, "Wait thread=0 tid=1"); }},
      {&rules::kInstrOpcode,
       [](Bundle& c, const Model&) -> Result { return Append(c, ".bytes 00 00 00 00 00 50"); }},
      {&rules::kInstrFlags,
       [](Bundle& c, const Model&) -> Result { return Append(c, ".bytes 00 00 00 00 00 24"); }},
      {&rules::kInstrPadding,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "MatMul local={L} acc=2 size=0 pad0=1");
       }},
      {&rules::kInstrStride,
       [](Bundle& c, const Model&) -> Result {
         c.arch()["stride0_depth"] = 3;
         return Append(c, "MatMul local=0 acc=2 size=0 stride0=3");
       }},
      {&rules::kInstrLocalRange,
       [](Bundle& c, const Model& m) -> Result {
         return Append(c, Str("MatMul local=", m.arch.local_depth - 3, " acc=2 size=3"));
       }},
      {&rules::kInstrOtherRange,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "DataMove local->dram0 local=4 dram0=250 size=3 stride1=1");
       }},
      {&rules::kInstrSize,
       [](Bundle& c, const Model&) -> Result {
         c.arch()["accumulator_depth"] = 16;
         return Append(c, "MatMul local=0 acc=0 size=16");
       },
       {&rules::kInstrOtherRange}},
      {&rules::kInstrZeroesOperand,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "MatMul zeroes local=5 acc=2 size=0");
       }},
      {&rules::kLoadWeightsRows,
       [](Bundle& c, const Model&) -> Result { return Append(c, "LoadWeights local=0 size=4"); }},
      {&rules::kLoadWeightsOversize,
       [](Bundle& c, const Model&) -> Result { return Append(c, "LoadWeights local=0 size=3"); }},
      {&rules::kLoadWeightsOperand2,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "LoadWeights local=0 size=2 operand2=1");
       }},
      {&rules::kSimdAccRange,
       [](Bundle& c, const Model&) -> Result {
         c.arch()["accumulator_depth"] = 16;
         return Append(c, "SIMD read write op=max left=in right=r1 dest=out wacc=20 racc=1");
       }},
      {&rules::kSimdStride,
       [](Bundle& c, const Model&) -> Result {
         return Append(c,
                       "SIMD read write op=move left=in right=in dest=out wacc=2 racc=1 stride0=1");
       }},
      {&rules::kSimdRegister,
       [](Bundle& c, const Model&) -> Result {
         c.arch()["simd_registers_depth"] = 2;
         return Append(c, "SIMD op=zero left=in right=in dest=r3");
       }},
      {&rules::kSimdUnusedAddress,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "SIMD op=zero left=in right=in dest=r1 wacc=3");
       }},
      {&rules::kSimdReadWithoutInput,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "SIMD read op=add left=r1 right=r1 dest=r1 racc=1");
       }},
      {&rules::kSimdWriteDest,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "SIMD read write op=move left=in right=in dest=r1 wacc=2 racc=1");
       }},
      {&rules::kSimdAccumulate,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "SIMD read accumulate op=move left=in right=in dest=r1 racc=1");
       }},
      {&rules::kSimdInputWithoutRead,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "SIMD op=move left=in right=in dest=r1");
       }},
      {&rules::kSimdZeroSources,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "SIMD op=zero left=r1 right=in dest=r1");
       }},
      {&rules::kSimdDead,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "SIMD read op=move left=in right=in dest=out racc=1");
       }},
      {&rules::kSimdOpUnemulated,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "SIMD read write op=abs left=in right=in dest=out wacc=2 racc=1");
       }},
      {&rules::kWaitOperands,
       [](Bundle& c, const Model&) -> Result { return Append(c, ".bytes 01 00 00 00 00 00"); }},
      {&rules::kFlowUninitialized,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "DataMove dram0->local local=5 dram0=7 size=0");
       }},
      {&rules::kFlowOutputUnwritten,
       [](Bundle& c, const Model&) -> Result {
         if (c.program.empty()) return ac::Declined{"the program is empty"};
         c.program.pop_back();
         return std::string("/outputs/0");
       }},
      {&rules::kFlowResetWeights,
       [](Bundle& c, const Model&) -> Result {
         // A MatMul of a loaded row just before the first LoadWeights.
         const std::optional<size_t> at = FirstLoadWeights(c);
         const std::optional<uint64_t> local = WrittenLocal(c);
         if (!at || !local) return ac::Declined{"the program loads no weights from a loaded row"};
         c.program.insert(c.program.begin() + static_cast<std::ptrdiff_t>(*at),
                          Str("MatMul local=", *local, " acc=5 size=0"));
         return Str("prog[", *at, "]");
       }},
      {&rules::kFlowAccumulateUnwritten,
       [](Bundle& c, const Model&) -> Result {
         return Append(c, "MatMul accumulate local={L} acc=9 size=0");
       }},
  };
}

// The changes in rule-table order.
const std::vector<Change>& Changes() {
  static const std::vector<Change> kChanges = [] {
    std::vector<Change> table = Table();
    const RuleTable all = AllRules();
    const auto order = [&](const Change& m) {
      return std::find_if(all.begin(), all.end(), [&](const Rule* r) { return r == m.rule; }) -
             all.begin();
    };
    std::stable_sort(table.begin(), table.end(),
                     [&](const Change& a, const Change& b) { return order(a) < order(b); });
    return table;
  }();
  return kChanges;
}

// OUT.tmodel names the bundle OUT; any other name is the stem itself.
std::string StemOf(const std::string& name) {
  const std::filesystem::path path(name);
  return path.extension() == ".tmodel" ? path.stem().string() : name;
}

// The table has one change per rule, so `seed` has nothing to pick. The
// result keeps the architecture file the base was validated against, unless
// the change writes its own.
ac::OrDeclined<ac::Mutated> ApplyToBase(const Rule& rule, const ac::Base& base,
                                        const std::string& name) {
  ac::OrDeclined<Bundle> bundle = BundleFromFiles(base.files);
  if (auto* declined = std::get_if<ac::Declined>(&bundle)) return std::move(*declined);
  ac::OrDeclined<std::string> path = ApplyChange(rule, std::get<Bundle>(bundle));
  if (auto* declined = std::get_if<ac::Declined>(&path)) return std::move(*declined);
  const std::string stem = StemOf(name);
  auto files = SerializeBundle(std::get<Bundle>(bundle), stem);
  if (auto* declined = std::get_if<ac::Declined>(&files)) return std::move(*declined);
  ac::Mutated result{std::move(std::get<std::vector<ac::NamedFile>>(files)),
                     {},
                     std::move(std::get<std::string>(path))};
  if (std::get<Bundle>(bundle).tarch) {
    result.companions.push_back(stem + ".tarch");
  } else {
    for (const ac::NamedFile& companion : base.companions)
      result.companions.push_back(companion.name);
  }
  return result;
}

}  // namespace

ac::OrDeclined<std::string> ApplyChange(const Rule& rule, Bundle& bundle) {
  const auto change = std::find_if(Changes().begin(), Changes().end(),
                                   [&](const Change& c) { return c.rule->id == rule.id; });
  if (change == Changes().end()) return ac::Declined{Str("no mutation breaks ", rule.id)};
  // A manifest that decodes cleanly has every key a change reads or sets,
  // each of its type, and non-empty consts, inputs and outputs.
  const std::string manifest = bundle.model.dump();
  DiagnosticSink sink(Profile{}, "manifest");
  const std::optional<Model> decoded = DecodeModelDocument(AsBytes(manifest), Limits{}, sink);
  if (!decoded || sink.blocking_count() != 0) {
    return ac::Declined{Str("cannot break ", rule.id, ": the manifest does not decode cleanly")};
  }
  return change->change(bundle, *decoded);
}

const std::vector<ac::MutationCase>& MutationCases() {
  static const std::vector<ac::MutationCase> kCases = [] {
    std::vector<ac::MutationCase> cases;
    for (const Change& c : Changes()) {
      const Rule* rule = c.rule;
      cases.push_back({rule, c.also, false,
                       [rule](const ac::Base& base, uint64_t /*seed*/, const std::string& name) {
                         return ApplyToBase(*rule, base, name);
                       }});
    }
    return cases;
  }();
  return kCases;
}

}  // namespace accelcheck::tensil::conformance
