// Properties of the NEFF builder, mutations and validator together, over
// random valid NEFFs built from Specs: Trn1 and Trn2 targets, one to three
// inputs and one or two outputs of any common dtype, constants and spill
// variables, copies, casts and transposes between them and the state buffer
// on the SP, Pool and Activation queues, activation sets, either tar
// dialect, either hash order, gzip or a plain tar (docs/formats/neff.md §1,
// §2.10 to §2.13, §4).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "conformance/neff/builder.h"
#include "conformance/neff/model.h"
#include "conformance/neff/mutate.h"
#include "conformance/neff/package.h"
#include "conformance/suite.h"
#include "tests/support/describe.h"
#include "validators/core/core_rules.h"
#include "validators/core/format.h"
#include "validators/core/text.h"
#include "validators/neff/neff_format.h"
#include "validators/neff/rules.h"

namespace accelcheck::neff::conformance {
namespace {

namespace ac = accelcheck::conformance;
using ::accelcheck::test::Describe;
using ByteVector = std::vector<uint8_t>;

// --- random valid files ------------------------------------------------------

// The dtypes of real files and the other common ones (§2.12).
const std::vector<std::string> kDtypes = {"float32", "float16", "bfloat16",
                                          "int8",    "uint8",   "int32"};

bool OneIn(int n) { return *rc::gen::inRange(0, n) == 0; }

uint64_t SizeOf(const std::string& dtype) { return *DtypeSize(dtype); }

// A variable a descriptor may read or write, with the dtype its side uses
// (a tensor's own; any for the state buffer and spills).
struct Space {
  std::string var;
  std::string dtype;  // empty: any
  uint64_t size = 0;  // bytes; 0 for the state buffer
  bool sb() const { return var == "SB"; }
};

// Where the descriptors of one block write, so that they write disjoint
// bytes (NEFF-51): a column of the state buffer's partitions each, and
// consecutive ranges of a variable.
struct BlockWrites {
  uint64_t sb_column = 0;
  std::map<std::string, uint64_t> var_end;
};

struct Layout {
  uint64_t partition_bytes = 0;  // what a DMA may touch (NEFF-31, NEFF-39)
  std::vector<Space> readable;   // inputs, constants, spills, the state buffer
  std::vector<Space> writable;   // the state buffer, outputs, spills
};

std::string DtypeFor(const Space& s) {
  return s.dtype.empty() ? *rc::gen::elementOf(kDtypes) : s.dtype;
}

// `rows` rows of `row_bytes` read from `s` at a random place inside it
// (§2.13); nothing when they do not fit.
std::optional<uint64_t> ReadAt(const Layout& l, const Space& s, uint64_t rows, uint64_t row_bytes,
                               uint64_t element) {
  if (s.sb()) {
    if (rows > kPartitions || row_bytes > l.partition_bytes) return std::nullopt;
    const uint64_t partition = *rc::gen::inRange<uint64_t>(0, kPartitions - rows + 1);
    const uint64_t last = std::min<uint64_t>((l.partition_bytes - row_bytes) / element, 2048);
    return SbAddress(partition, element * *rc::gen::inRange<uint64_t>(0, last + 1));
  }
  if (rows * row_bytes > s.size) return std::nullopt;
  return element * *rc::gen::inRange<uint64_t>(0, (s.size - rows * row_bytes) / element + 1);
}

// The next free place of the block in `s`; nothing when the rows do not fit.
std::optional<uint64_t> WriteAt(const Layout& l, const Space& s, uint64_t rows, uint64_t row_bytes,
                                BlockWrites& w) {
  if (s.sb()) {
    if (rows > kPartitions || w.sb_column + row_bytes > l.partition_bytes) return std::nullopt;
    const uint64_t partition = *rc::gen::inRange<uint64_t>(0, kPartitions - rows + 1);
    const uint64_t address = SbAddress(partition, w.sb_column);
    w.sb_column += row_bytes;
    return address;
  }
  const uint64_t off = w.var_end[s.var];
  if (off + rows * row_bytes > s.size) return std::nullopt;
  w.var_end[s.var] = off + rows * row_bytes;
  return off;
}

// A copy or cast of random rows, or a transpose of a tile into the state
// buffer; nothing when the chosen rows fit nowhere.
std::optional<Descriptor> GenDescriptor(const Layout& l, BlockWrites& w) {
  const Space& from = *rc::gen::elementOf(l.readable);
  if (!from.sb() && OneIn(8)) {
    const uint64_t n = *rc::gen::element<uint64_t>(2, 4, 8);
    const std::string dtype = DtypeFor(from);
    const uint64_t element = SizeOf(dtype);
    const std::optional<uint64_t> from_off = ReadAt(l, from, n, n * element, element);
    const Space sb{"SB", "", 0};
    const std::optional<uint64_t> to_off =
        from_off ? WriteAt(l, sb, n, n * element, w) : std::nullopt;
    if (!to_off) return std::nullopt;
    return TransposeToSb(from.var, *from_off, *to_off, n, dtype);
  }
  const Space& to = *rc::gen::elementOf(l.writable);
  const std::string from_dtype = DtypeFor(from);
  const std::string to_dtype =
      to.dtype.empty() && !OneIn(3) ? from_dtype : DtypeFor(to);  // mostly copies
  const uint64_t rows = *rc::gen::inRange<uint64_t>(1, 17);
  const uint64_t elements = *rc::gen::inRange<uint64_t>(1, 17);
  const uint64_t from_element = SizeOf(from_dtype), to_element = SizeOf(to_dtype);
  const std::optional<uint64_t> from_off =
      ReadAt(l, from, rows, elements * from_element, from_element);
  if (!from_off) return std::nullopt;
  const std::optional<uint64_t> to_off = WriteAt(l, to, rows, elements * to_element, w);
  if (!to_off) return std::nullopt;
  return MoveRows(from.var, *from_off, from_dtype, to.var, *to_off, to_dtype, rows, elements);
}

std::vector<uint64_t> GenShape() {
  switch (*rc::gen::inRange(0, 3)) {
    case 0:
      return {*rc::gen::inRange<uint64_t>(1, 513)};
    case 1:
      return {*rc::gen::inRange<uint64_t>(1, 33), *rc::gen::inRange<uint64_t>(1, 33)};
    default:
      return {1, *rc::gen::inRange<uint64_t>(1, 9), *rc::gen::inRange<uint64_t>(1, 17),
              *rc::gen::inRange<uint64_t>(1, 17)};
  }
}

Spec GenSpec() {
  Spec spec = *rc::gen::arbitrary<bool>() ? Trn1Spec() : Trn2Spec();
  spec.name = *rc::gen::element<std::string>("file.neff", "kernel.neff", "matmul_tile.neff");
  Layout l;
  l.partition_bytes = UsablePartitionBytes(spec.target);
  l.readable.push_back({"SB", "", 0});
  l.writable.push_back({"SB", "", 0});
  for (int i = 0, n = *rc::gen::inRange(1, 4); i < n; ++i) {
    spec.inputs.push_back({Str("in", i), *rc::gen::elementOf(kDtypes), GenShape()});
    l.readable.push_back(
        {spec.inputs.back().name, spec.inputs.back().dtype, spec.inputs.back().Bytes()});
  }
  for (int i = 0, n = *rc::gen::inRange(1, 3); i < n; ++i) {
    // Half the time the first output is shaped as the first input (an
    // elementwise kernel's, §5.2).
    const Tensor& like = spec.inputs.front();
    spec.outputs.push_back(i == 0 && OneIn(2)
                               ? Tensor{"out0", like.dtype, like.shape}
                               : Tensor{Str("out", i), *rc::gen::elementOf(kDtypes), GenShape()});
    l.writable.push_back(
        {spec.outputs.back().name, spec.outputs.back().dtype, spec.outputs.back().Bytes()});
  }
  for (int i = 0, n = *rc::gen::inRange(0, 3); i < n; ++i) {
    Constant c{Str("const", i), *rc::gen::elementOf(kDtypes), GenShape(), {}};
    c.data = *rc::gen::container<ByteVector>(
        static_cast<size_t>(Tensor{"", c.dtype, c.shape}.Bytes()), rc::gen::arbitrary<uint8_t>());
    l.readable.push_back({c.name, c.dtype, c.data.size()});
    spec.constants.push_back(std::move(c));
  }
  uint64_t backing = 0;
  for (int i = 0, n = *rc::gen::inRange(0, 3); i < n; ++i) {
    const uint64_t size = 64 * *rc::gen::inRange<uint64_t>(1, 65);
    spec.virtuals.push_back({Str("spill", i), size, backing});
    backing += OneIn(4) ? 0 : size;  // spill ranges may overlap (NEFF-29)
    l.readable.push_back({spec.virtuals.back().name, "", size});
    l.writable.push_back({spec.virtuals.back().name, "", size});
  }
  const std::vector<QueueSet> queues = {{"qSPIO0", Engine::kSp, "in"},
                                        {"qPoolIO0", Engine::kPool, "in"},
                                        {"qSPSpillReload0", Engine::kSp, "data"},
                                        {"qPoolSpillReload0", Engine::kPool, "data"},
                                        {"qActSpillReload0", Engine::kAct, "data"}};
  for (int b = 0, n = *rc::gen::inRange(1, 11); b < n; ++b) {
    Block block{(*rc::gen::elementOf(queues)).name, {}};
    BlockWrites writes{.sb_column = 4 * *rc::gen::inRange<uint64_t>(0, 1024), .var_end = {}};
    for (int d = 0, k = *rc::gen::inRange(1, 4); d < k; ++d) {
      if (std::optional<Descriptor> desc = GenDescriptor(l, writes))
        block.desc.push_back(std::move(*desc));
    }
    if (!block.desc.empty()) spec.blocks.push_back(std::move(block));
  }
  // The queue sets the blocks use, in a fixed order.
  for (const QueueSet& q : queues) {
    if (std::any_of(spec.blocks.begin(), spec.blocks.end(),
                    [&](const Block& b) { return b.queue == q.name; }))
      spec.queues.push_back(q);
  }
  for (const std::string& set : ActivationCatalogue()) {
    if (OneIn(3)) spec.activation_sets.push_back(set);
  }
  spec.dialect = *rc::gen::element(Dialect::kUstar, Dialect::kGnu, Dialect::kPax);
  spec.hash_order = *rc::gen::element(HashOrder::kWordReversed, HashOrder::kPlain);
  spec.compression = OneIn(4) ? Compression::kNone : Compression::kGzip;
  spec.directory_entries = OneIn(4);
  return spec;
}

ByteVector GenFile() { return Write(Build(GenSpec())); }

DiagnosticSink Validate(const ByteVector& bytes, bool strict) {
  DiagnosticSink sink(Profile{.strict = strict}, "random.neff");
  NeffFormat().Validate(InputBuffer::Copy(bytes), ValidateContext{}, sink);
  return sink;
}

// --- (a) valid ---------------------------------------------------------------

// Every file built from a random spec validates, in the default profile and
// under --strict, with the hash order's note alone (NEFF-7).
RC_GTEST_PROP(NeffProperties, BuiltFilesAreValid, ()) {
  const ByteVector bytes = GenFile();
  for (const bool strict : {false, true}) {
    const DiagnosticSink sink = Validate(bytes, strict);
    RC_LOG() << (strict ? "--strict" : "default") << ":\n" << Describe(sink);
    RC_ASSERT(sink.diagnostics().size() == 1u);
    RC_ASSERT(sink.diagnostics()[0].rule == &rules::kHashOrder);
  }
}

// --- (b) one mutation, one rule ------------------------------------------------

// What `accelcheck mutate` asks of a case (conformance/mutator.h): under
// --strict its rule at the mutation's path, and no other error or warning
// but the case's `also`. Empty when it holds, else what went wrong.
std::string CheckExactly(const ac::MutationCase& mutation, const ac::Mutated& result) {
  const DiagnosticSink sink = Validate(result.files[0].bytes, true);
  bool reported = false;
  std::string wrong;
  for (const Diagnostic& d : sink.diagnostics()) {
    if (d.rule == mutation.rule && ac::PathMatches(d.location.path, result.path)) reported = true;
    const bool allowed =
        d.rule == mutation.rule ||
        std::find(mutation.also.begin(), mutation.also.end(), d.rule) != mutation.also.end();
    if (!allowed && d.severity >= Severity::kWarning)
      wrong += "also " + std::string(d.rule->id) + "\n";
  }
  if (!reported) wrong += "not reported at \"" + result.path + "\"\n";
  return wrong.empty() ? "" : wrong + Describe(sink);
}

ac::Base AsBase(ByteVector bytes) {
  return {"neff.valid.random", "random.neff", {{"random.neff", std::move(bytes)}}, {}};
}

// A random case on a random file; cases that find no place in the file
// decline, and RapidCheck gives up if they decline ten times as often as
// they apply.
RC_GTEST_PROP(NeffProperties, OneMutationOneRule, (uint8_t mutation_seed)) {
  const ac::Base base = AsBase(GenFile());
  const auto& cases = NeffConformance().Cases();
  // Any case, whatever the run's size (inRange alone favours the first).
  const ac::MutationCase& mutation =
      cases[*rc::gen::resize(100, rc::gen::inRange<size_t>(0, cases.size()))];
  const auto mutated = mutation.apply(base, mutation_seed, "mutated.neff");
  const auto* result = std::get_if<ac::Mutated>(&mutated);
  const bool applies = result != nullptr;
  RC_PRE(applies);
  RC_TAG(std::string(mutation.rule->id));
  const std::string wrong = CheckExactly(mutation, *result);
  RC_LOG() << mutation.rule->id << " at " << result->path << "\n" << wrong;
  RC_ASSERT(wrong.empty());
}

// The property above may only pass because its cases decline: every case
// applies to one of a few random files (the same ones in every run) and
// there breaks exactly its rule.
TEST(NeffProperties, EveryCaseAppliesToARandomFile) {
  std::vector<ac::Base> files;
  for (uint64_t seed = 1; seed <= 16; ++seed)
    files.push_back(AsBase(rc::gen::exec(GenFile)(rc::Random(seed), 50).value()));
  for (const ac::MutationCase& mutation : NeffConformance().Cases()) {
    bool applied = false;
    for (size_t k = 0; k < files.size() && !applied; ++k) {
      const auto mutated = mutation.apply(files[k], k, "mutated.neff");
      const auto* result = std::get_if<ac::Mutated>(&mutated);
      if (result == nullptr) continue;
      applied = true;
      EXPECT_EQ(CheckExactly(mutation, *result), "") << mutation.rule->id << " on file " << k;
    }
    EXPECT_TRUE(applied) << "no random file takes " << mutation.rule->id;
  }
}

// A transpose that changes the dtype is reported as a copy that does
// (NEFF-52): without an op, its transpose fields make it one (§6).
TEST(NeffProperties, TransposeChangingTheDtypeIsReported) {
  Spec spec = Trn1Spec();
  spec.inputs = {{"x", "float32", {8, 8}}};
  spec.outputs = {{"y", "float32", {8, 8}}};
  spec.queues = {{"qSPIO0", Engine::kSp, "in"}, {"qPoolIO0", Engine::kPool, "in"}};
  Descriptor transpose = TransposeToSb("x", 0, SbAddress(0, 0), 8, "float32");
  transpose.to.dtype = "int32";
  spec.blocks = {{"qSPIO0", {transpose}},
                 {"qPoolIO0", {MoveRows("SB", 0, "int32", "y", 0, "int32", 8, 8)}}};
  const DiagnosticSink sink = Validate(Write(Build(spec)), true);
  EXPECT_EQ(sink.error_count(), 1u) << Describe(sink);
  const auto found =
      std::find_if(sink.diagnostics().begin(), sink.diagnostics().end(),
                   [](const Diagnostic& d) { return d.rule == &rules::kDescOpDtype; });
  ASSERT_NE(found, sink.diagnostics().end()) << Describe(sink);
  EXPECT_EQ(found->location.path, "/dma/0/desc/0/to_dtype");
  EXPECT_NE(found->message.find("a transpose from float32 to int32"), std::string::npos);
}

// --- pax and plain ustar ---------------------------------------------------------

// What a finding says, wherever its bytes are: pax headers move them.
using Verdict = std::multiset<std::tuple<std::string, Severity, std::string, std::string>>;
Verdict VerdictOf(const DiagnosticSink& sink) {
  Verdict v;
  for (const Diagnostic& d : sink.diagnostics()) {
    v.emplace(std::string(d.rule->id), d.severity, d.location.path, d.location.member);
  }
  return v;
}

// The same archive written in plain ustar and in pax (every member behind an
// extended header, with random records that change nothing a reader uses)
// validates the same, also when a member breaks a tar rule (§1.5, NEFF-57).
RC_GTEST_PROP(NeffProperties, PaxAndUstarValidateTheSame, ()) {
  Neff neff = Build(GenSpec());
  const std::vector<std::string> extras = {"", "sg00/notes.txt", "../escape.json", "./info.json",
                                           "sg00/" + std::string(90, 'd') + "/long.bin"};
  const std::string extra = *rc::gen::elementOf(extras);
  if (!extra.empty()) neff.members.push_back({.name = extra, .content = ByteVector{'{', '}'}});
  const PaxRecords harmless = {{"atime", "1733202382.637740795"},
                               {"comment", "\u00e9"},
                               {"uname", "nobody"},
                               {"SCHILY.xattr.user.x", std::string("\xff\x00", 2)},
                               {"uid", "1000"},
                               {"mtime", "-1.5"}};
  Neff ustar = neff, pax = neff;
  ustar.dialect = Dialect::kUstar;
  pax.dialect = Dialect::kPax;
  for (Member& m : pax.members) {
    m.pax.clear();
    for (const auto& record : harmless) {
      if (OneIn(2)) m.pax.push_back(record);
    }
  }
  for (const bool strict : {false, true}) {
    const DiagnosticSink a = Validate(Write(ustar), strict), b = Validate(Write(pax), strict);
    RC_LOG() << "ustar:\n" << Describe(a) << "pax:\n" << Describe(b);
    RC_ASSERT(VerdictOf(a) == VerdictOf(b));
  }
}

// --- (c) truncation --------------------------------------------------------------

// An error, and no internal one: the validator read the prefix to a verdict.
bool ReportedCleanly(const DiagnosticSink& sink) {
  return sink.error_count() > 0 &&
         std::none_of(sink.diagnostics().begin(), sink.diagnostics().end(),
                      [](const Diagnostic& d) { return d.rule == &core_rules::kInternalError; });
}

// Random prefix lengths below `size`, with the ends.
std::vector<uint64_t> Cuts(uint64_t size) {
  std::vector<uint64_t> cuts =
      *rc::gen::container<std::vector<uint64_t>>(24, rc::gen::inRange<uint64_t>(0, size));
  for (const uint64_t n : {uint64_t{0}, uint64_t{1}, size - 1}) cuts.push_back(n);
  return cuts;
}

// Every prefix of a file is an error: the header's data_size no longer fits
// (NEFF-1, NEFF-4). So is every prefix of its payload up to the end of the
// gzip member or of the tar's end blocks, resealed with the data size and
// hash of what is left, so that the inflater and the tar reader must find
// the cut (NEFF-15, NEFF-16); the zero padding after them may be cut freely
// (§1.4).
RC_GTEST_PROP(NeffProperties, TruncationIsReported, ()) {
  const Neff neff = Build(GenSpec());
  const ByteVector bytes = Write(neff);
  for (const uint64_t n : Cuts(bytes.size())) {
    RC_LOG() << "file prefix of " << n << " bytes\n";
    RC_ASSERT(ReportedCleanly(Validate(ByteVector(bytes.begin(), bytes.begin() + n), false)));
  }
  Package unpadded = ToPackage(neff);
  unpadded.pad_block = 1;
  const uint64_t payload = Payload(unpadded).size();
  for (const uint64_t n : Cuts(payload)) {
    ByteVector prefix(bytes.begin(), bytes.begin() + kHeaderSize + n);
    Reseal(prefix, neff.hash_order);
    const DiagnosticSink sink = Validate(prefix, false);
    RC_LOG() << "payload prefix of " << n << " of " << payload << " bytes, resealed:\n"
             << Describe(sink);
    RC_ASSERT(ReportedCleanly(sink));
  }
}

TEST(NeffProperties, RandomFilesDiffer) {
  const auto file = rc::gen::exec(GenFile);
  EXPECT_NE(file(rc::Random(1), 50).value(), file(rc::Random(2), 50).value());
}

}  // namespace
}  // namespace accelcheck::neff::conformance
