// One change per rule of validators/tensil/rules.def to a valid bundle, each
// reported at the object path it returns. The changes take addresses and
// sizes from the bundle's architecture and program, so that they apply to any
// model with room for them (the tiny bundle and the real ones).
#include <algorithm>
#include <filesystem>
#include <functional>
#include <regex>
#include <stdexcept>

#include "conformance/tensil/bundle.h"
#include "validators/core/text.h"
#include "validators/tensil/rules.h"

namespace accelcheck::tensil::conformance {

namespace {

namespace ac = accelcheck::conformance;
using nlohmann::json;

// A change to a valid bundle that breaks `rule`; returns the object path the
// rule is reported at. A change throws NoPlace (or a JSON error) when the
// bundle offers no place for it: ApplyChange turns that into a decline.
struct Change {
  const Rule* rule;
  std::function<std::string(Bundle&)> change;
  std::vector<const Rule*> also = {};  // rules that necessarily break with it
};

struct NoPlace : std::runtime_error {
  using std::runtime_error::runtime_error;
};

uint64_t ArchValue(const Bundle& c, const char* key) {
  return c.model.at("arch").at(key).get<uint64_t>();
}

// The first local row the program writes from DRAM: an appended instruction
// reads it without reading an uninitialized row (spec TNS-27).
uint64_t WrittenLocal(const Bundle& c) {
  static const std::regex kLoad(R"(^DataMove dram[01]->local local=(\d+))");
  for (const std::string& line : c.program) {
    std::smatch match;
    if (std::regex_search(line, match, kLoad)) return std::stoull(match[1]);
  }
  throw NoPlace("the program loads no local row from DRAM");
}

// Appends an instruction, with {L} replaced by a local row the program
// writes; its path is prog[index].
std::string Append(Bundle& c, std::string line) {
  if (const size_t at = line.find("{L}"); at != std::string::npos)
    line.replace(at, 3, Str(WrittenLocal(c)));
  c.program.push_back(line);
  return Str("prog[", c.program.size() - 1, "]");
}

// The bytes a value of the bundle's data type takes in the .tdata (FP18BP10
// in a 32-bit word, docs/formats/tensil.md §3).
uint64_t ValueBytes(const Bundle& c) {
  const std::string type = c.model.at("arch").at("data_type").get<std::string>();
  return type == "FP8BP4" ? 1 : type == "FP16BP8" ? 2 : 4;
}

// Replaces the constants with `rows` vectors of zeros.
void ZeroConstants(Bundle& c, uint64_t rows) {
  const uint64_t bytes = rows * ArchValue(c, "array_size") * ValueBytes(c);
  if (bytes > (uint64_t{64} << 20))
    throw NoPlace(Str("the constants would take ", bytes, " bytes"));
  c.tdata.assign(bytes, 0);
}

uint64_t ConstRows(const Bundle& c) {
  return c.model.at("consts").at(0).at("size").get<uint64_t>();
}

// The first DRAM0 row past every input and output.
uint64_t PastIo(const Bundle& c) {
  uint64_t end = 0;
  for (const char* list : {"inputs", "outputs"}) {
    for (const json& io : c.model.at(list)) {
      end = std::max(end, io.at("base").get<uint64_t>() + io.at("size").get<uint64_t>());
    }
  }
  return end;
}

// The index of the first LoadWeights.
size_t FirstLoadWeights(const Bundle& c) {
  for (size_t i = 0; i < c.program.size(); ++i) {
    if (c.program[i].rfind("LoadWeights", 0) == 0) return i;
  }
  throw NoPlace("the program has no LoadWeights");
}

std::vector<Change> Table() {
  return {
      {&rules::kJsonSyntax,
       [](Bundle& c) {
         c.model_text = "{\"prog\": ";
         return std::string("/prog");
       }},
      {&rules::kArchMismatch,
       [](Bundle& c) {
         c.tarch = c.arch();
         (*c.tarch)["local_depth"] = 2 * ArchValue(c, "local_depth");
         return std::string("/arch/local_depth");
       }},
      {&rules::kKeyMissing,
       [](Bundle& c) {
         c.model.erase("name");
         return std::string("");
       }},
      {&rules::kKeyType,
       [](Bundle& c) {
         c.model["inputs"][0]["base"] = "0";
         return std::string("/inputs/0/base");
       }},
      {&rules::kUnknownKey,
       [](Bundle& c) {
         c.model["extra"] = 1;
         return std::string("/extra");
       }},
      {&rules::kLegacySchema,
       [](Bundle& c) {
         c.model.erase("load_consts_to_local");
         return std::string("");
       }},
      {&rules::kArchPositive,
       [](Bundle& c) {
         c.arch()["local_depth"] = 0;
         return std::string("/arch/local_depth");
       }},
      {&rules::kArchDataType,
       [](Bundle& c) {
         c.arch()["data_type"] = "FP64";
         return std::string("/arch/data_type");
       }},
      {&rules::kArchThreads,
       [](Bundle& c) {
         c.arch()["number_of_threads"] = 3;
         return std::string("/arch/number_of_threads");
       },
       {&rules::kArchHeaderWidth}},
      {&rules::kArchHeaderWidth,
       [](Bundle& c) {
         c.arch()["number_of_threads"] = 4;
         return std::string("/arch/number_of_threads");
       },
       {&rules::kArchThreads}},
      {&rules::kArchOperandWidth,
       [](Bundle& c) {
         c.arch()["dram0_depth"] = uint64_t{1} << 62;
         c.arch()["stride1_depth"] = 1 << 20;
         return std::string("/arch");
       },
       {&rules::kArchDepthRange}},
      {&rules::kArchFloat32,
       [](Bundle& c) {
         c.arch()["data_type"] = "FLOAT32";
         ZeroConstants(c, ConstRows(c));
         return std::string("/arch/data_type");
       }},
      {&rules::kArchArraySizeRange,
       [](Bundle& c) {
         c.arch()["array_size"] = 1;
         return std::string("/arch/array_size");
       },
       {&rules::kTdataSize, &rules::kLoadWeightsOversize}},
      {&rules::kArchDepthRange,
       [](Bundle& c) {
         c.arch()["local_depth"] = 1 << 17;
         return std::string("/arch/local_depth");
       }},
      {&rules::kModelFileMissing,
       [](Bundle& c) {
         c.name_files = false;
         c.model["prog"]["file_name"] = "absent.tprog";
         return std::string("/prog/file_name");
       }},
      {&rules::kModelProgSize,
       [](Bundle& c) {
         c.fix_prog_size = false;
         c.model["prog"]["size"] = 42;
         return std::string("/prog/size");
       }},
      {&rules::kModelProgEmpty,
       [](Bundle& c) {
         c.program.clear();
         return std::string("/prog/size");
       }},
      {&rules::kModelProgMultiple,
       [](Bundle& c) {
         c.fix_prog_size = false;
         c.model["prog"]["size"] = 31;
         return std::string("/prog/size");
       },
       {&rules::kModelProgSize}},
      {&rules::kModelConstsEmpty,
       [](Bundle& c) {
         c.model["consts"] = json::array();
         return std::string("/consts");
       }},
      {&rules::kModelConstsSize,
       [](Bundle& c) {
         c.model["consts"][0]["size"] = 0;
         c.tdata.clear();
         return std::string("/consts/0/size");
       }},
      {&rules::kModelConstsCount,
       [](Bundle& c) {
         c.model["consts"].push_back(c.model["consts"][0]);
         return std::string("/consts");
       }},
      {&rules::kModelConstsBase,
       [](Bundle& c) {
         c.model["consts"][0]["base"] = 1;
         return std::string("/consts/0/base");
       },
       {&rules::kFlowUninitialized}},
      {&rules::kModelConstsRange,
       [](Bundle& c) {
         const uint64_t rows = ArchValue(c, "dram1_depth") + 44;
         c.model["consts"][0]["size"] = rows;
         ZeroConstants(c, rows);
         return std::string("/consts/0");
       }},
      {&rules::kModelIoEmpty,
       [](Bundle& c) {
         c.model["inputs"] = json::array();
         return std::string("/inputs");
       }},
      {&rules::kModelIoName,
       [](Bundle& c) {
         c.model["inputs"][0]["name"] = "";
         return std::string("/inputs/0/name");
       }},
      {&rules::kModelIoSize,
       [](Bundle& c) {
         c.model["outputs"][0]["size"] = 0;
         return std::string("/outputs/0/size");
       }},
      {&rules::kModelIoRange,
       [](Bundle& c) {
         c.model["outputs"][0]["base"] = ArchValue(c, "dram0_depth");
         return std::string("/outputs/0");
       },
       {&rules::kModelProbeRows}},
      {&rules::kModelIoCount,
       [](Bundle& c) {
         const uint64_t past = PastIo(c);
         for (uint64_t i = 0; i < 4; ++i)
           c.model["inputs"].push_back({{"name", Str("x", i)}, {"base", past + i}, {"size", 1}});
         return std::string("/inputs");
       }},
      {&rules::kModelIoOverlap,
       [](Bundle& c) {
         c.model["inputs"].push_back(
             {{"name", "z"}, {"base", c.model["inputs"][0]["base"]}, {"size", 1}});
         return std::string("/inputs/1");
       }},
      {&rules::kModelIoOrder,
       [](Bundle& c) {
         // A new input past the others, listed first.
         const json first = {{"name", "z"}, {"base", PastIo(c)}, {"size", 1}};
         c.model["inputs"].insert(c.model["inputs"].begin(), first);
         return std::string("/inputs/1/base");
       }},
      {&rules::kModelProbeRows,
       [](Bundle& c) {
         c.model["inputs"][0]["base"] = 254;
         c.program[1] = "DataMove dram0->local local=3 dram0=254 size=0";
         return std::string("/inputs/0");
       }},
      {&rules::kTdataSize,
       [](Bundle& c) {
         c.tdata.resize(10);
         return std::string("/consts/0");
       }},
      {&rules::kTdataFp18Padding,
       [](Bundle& c) {
         c.arch()["data_type"] = "FP18BP10";
         ZeroConstants(c, ConstRows(c));
         c.tdata[7] = 0x80;
         return std::string("/consts/0");
       }},
      {&rules::kTdataNonFinite,
       [](Bundle& c) {
         c.arch()["data_type"] = "FLOAT32";
         ZeroConstants(c, ConstRows(c));
         c.tdata[4] = 0x7f;
         c.tdata[5] = 0x80;
         return std::string("/consts/0");
       },
       {&rules::kArchFloat32}},
      {&rules::kProgTruncated,
       [](Bundle& c) {
         c.trailing = {0, 0};
         return std::string("prog");
       },
       {&rules::kModelProgMultiple}},
      {&rules::kInstrTid, [](Bundle& c) { return Append(c, "Wait thread=0 tid=1"); }},
      {&rules::kInstrOpcode, [](Bundle& c) { return Append(c, ".bytes 00 00 00 00 00 50"); }},
      {&rules::kInstrFlags, [](Bundle& c) { return Append(c, ".bytes 00 00 00 00 00 24"); }},
      {&rules::kInstrPadding,
       [](Bundle& c) { return Append(c, "MatMul local={L} acc=2 size=0 pad0=1"); }},
      {&rules::kInstrStride,
       [](Bundle& c) {
         c.arch()["stride0_depth"] = 3;
         return Append(c, "MatMul local=0 acc=2 size=0 stride0=3");
       }},
      {&rules::kInstrLocalRange,
       [](Bundle& c) {
         return Append(c, Str("MatMul local=", ArchValue(c, "local_depth") - 3, " acc=2 size=3"));
       }},
      {&rules::kInstrOtherRange,
       [](Bundle& c) {
         return Append(c, "DataMove local->dram0 local=4 dram0=250 size=3 stride1=1");
       }},
      {&rules::kInstrSize,
       [](Bundle& c) {
         c.arch()["accumulator_depth"] = 16;
         return Append(c, "MatMul local=0 acc=0 size=16");
       },
       {&rules::kInstrOtherRange}},
      {&rules::kInstrZeroesOperand,
       [](Bundle& c) { return Append(c, "MatMul zeroes local=5 acc=2 size=0"); }},
      {&rules::kLoadWeightsRows, [](Bundle& c) { return Append(c, "LoadWeights local=0 size=4"); }},
      {&rules::kLoadWeightsOversize,
       [](Bundle& c) { return Append(c, "LoadWeights local=0 size=3"); }},
      {&rules::kLoadWeightsOperand2,
       [](Bundle& c) { return Append(c, "LoadWeights local=0 size=2 operand2=1"); }},
      {&rules::kSimdAccRange,
       [](Bundle& c) {
         c.arch()["accumulator_depth"] = 16;
         return Append(c, "SIMD read write op=max left=in right=r1 dest=out wacc=20 racc=1");
       }},
      {&rules::kSimdStride,
       [](Bundle& c) {
         return Append(c,
                       "SIMD read write op=move left=in right=in dest=out wacc=2 racc=1 stride0=1");
       }},
      {&rules::kSimdRegister,
       [](Bundle& c) {
         c.arch()["simd_registers_depth"] = 2;
         return Append(c, "SIMD op=zero left=in right=in dest=r3");
       }},
      {&rules::kSimdUnusedAddress,
       [](Bundle& c) { return Append(c, "SIMD op=zero left=in right=in dest=r1 wacc=3"); }},
      {&rules::kSimdReadWithoutInput,
       [](Bundle& c) { return Append(c, "SIMD read op=add left=r1 right=r1 dest=r1 racc=1"); }},
      {&rules::kSimdWriteDest,
       [](Bundle& c) {
         return Append(c, "SIMD read write op=move left=in right=in dest=r1 wacc=2 racc=1");
       }},
      {&rules::kSimdAccumulate,
       [](Bundle& c) {
         return Append(c, "SIMD read accumulate op=move left=in right=in dest=r1 racc=1");
       }},
      {&rules::kSimdInputWithoutRead,
       [](Bundle& c) { return Append(c, "SIMD op=move left=in right=in dest=r1"); }},
      {&rules::kSimdZeroSources,
       [](Bundle& c) { return Append(c, "SIMD op=zero left=r1 right=in dest=r1"); }},
      {&rules::kSimdDead,
       [](Bundle& c) { return Append(c, "SIMD read op=move left=in right=in dest=out racc=1"); }},
      {&rules::kSimdOpUnemulated,
       [](Bundle& c) {
         return Append(c, "SIMD read write op=abs left=in right=in dest=out wacc=2 racc=1");
       }},
      {&rules::kWaitOperands, [](Bundle& c) { return Append(c, ".bytes 01 00 00 00 00 00"); }},
      {&rules::kFlowUninitialized,
       [](Bundle& c) { return Append(c, "DataMove dram0->local local=5 dram0=7 size=0"); }},
      {&rules::kFlowOutputUnwritten,
       [](Bundle& c) {
         c.program.pop_back();
         return std::string("/outputs/0");
       }},
      {&rules::kFlowResetWeights,
       [](Bundle& c) {
         // A MatMul of a loaded row just before the first LoadWeights.
         const size_t at = FirstLoadWeights(c);
         c.program.insert(c.program.begin() + static_cast<std::ptrdiff_t>(at),
                          Str("MatMul local=", WrittenLocal(c), " acc=5 size=0"));
         return Str("prog[", at, "]");
       }},
      {&rules::kFlowAccumulateUnwritten,
       [](Bundle& c) { return Append(c, "MatMul accumulate local={L} acc=9 size=0"); }},
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
  for (const Change& c : Changes()) {
    if (c.rule->id != rule.id) continue;
    try {
      return c.change(bundle);
    } catch (const std::exception& e) {
      return ac::Declined{Str("cannot break ", rule.id, " in this model: ", e.what())};
    }
  }
  return ac::Declined{Str("no mutation breaks ", rule.id)};
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
