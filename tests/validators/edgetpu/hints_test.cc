// The DMA hints (docs/formats/edgetpu.md §4 F, §6.2) on real files: the
// transfer plan the driver makes of them, and single in-place changes of one
// stored value that each break exactly one F rule. Corpus files are read
// from ../shared/corpus and never copied; the tests skip without it.
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/describe.h"
#include "validators/core/format.h"
#include "validators/edgetpu/custom_options.h"
#include "validators/edgetpu/edgetpu_format.h"
#include "validators/edgetpu/hint_plan.h"
#include "validators/edgetpu/package.h"
#include "validators/edgetpu/tflite.h"

namespace accelcheck::edgetpu {
namespace {

namespace fs = std::filesystem;
using ::accelcheck::test::Describe;
using Kind = TransferKind;
using flatbuffers::voffset_t;

constexpr const char* kSplitConcat = "test_data__split_concat_edgetpu.tflite";
constexpr const char* kMovenet = "test_data__movenet_single_pose_lightning_ptq_edgetpu.tflite";
constexpr const char* kDeeplabSlim =
    "test_data__deeplab_mobilenet_edgetpu_slim_cityscapes_quant_edgetpu.tflite";
constexpr const char* kKerasLstm = "test_data__keras_lstm_mnist_ptq_edgetpu.tflite";

fs::path CorpusDir() { return fs::path(ACCELCHECK_CORPUS_DIR) / "edgetpu"; }

// A real file decoded as the validator decodes it, so that the generated
// accessors find the values to change and their file offsets.
class RealFile {
 public:
  explicit RealFile(const std::string& name) : name_(name) {
    std::string error;
    auto input = ReadFileLimited((CorpusDir() / name).string(), 1ull << 32, &error);
    if (!input) return;
    input_ = std::move(*input);
    DiagnosticSink sink(Profile{}, name);
    const ByteView file = input_.bytes();
    if (!VerifyModel(file, Limits{}, sink)) return;
    for (const EdgetpuOp& op : FindEdgetpuOps(file, *tfl::GetModel(file.data()), sink)) {
      const auto package = ReadCustomOptions(op, sink);
      if (!package) continue;
      auto view = DecodePackage(package->bytes, package->file_offset, package->path,
                                ValidateContext{}, sink);
      if (view) view_ = std::make_unique<PackageView>(std::move(*view));
      break;
    }
  }

  bool ok() const { return view_ != nullptr; }
  const std::string& name() const { return name_; }
  std::vector<uint8_t> Bytes() const { return {input_.data(), input_.data() + input_.size()}; }

  // The main executable (EO or SA) and the parameter-caching one.
  const ExecutableView& Main() const { return Find(false); }
  const ExecutableView& Caching() const { return Find(true); }

 private:
  const ExecutableView& Find(bool caching) const {
    for (const ExecutableView& exe : view_->executables) {
      if ((exe.executable->type() == dwn::ExecutableType::PARAMETER_CACHING) == caching) return exe;
    }
    ADD_FAILURE() << name_ << " has no such executable";
    return view_->executables.front();
  }

  std::string name_;
  InputBuffer input_;
  std::unique_ptr<PackageView> view_;
};

#define LOAD_OR_SKIP(var, name)                                                            \
  const RealFile var(name);                                                                \
  if (!var.ok()) {                                                                         \
    GTEST_SKIP() << "no " << name << " in " << CorpusDir() << "; real-file check skipped"; \
  }

const dwn::DmaHint& Hint(const ExecutableView& exe, uint32_t i) {
  return *exe.executable->dma_hints()->hints()->Get(i);
}

uint64_t FileOffset(const ExecutableView& exe, const void* p) {
  return exe.buffer.region.file_offset + exe.buffer.region.OffsetOf(p);
}

// The file offset of field `vt` of `table`, which must be stored.
uint64_t FieldAt(const ExecutableView& exe, const void* table, voffset_t vt) {
  const uint8_t* field = reinterpret_cast<const flatbuffers::Table*>(table)->GetAddressOf(vt);
  if (field == nullptr) ADD_FAILURE() << "field " << vt << " is not stored";
  return field == nullptr ? 0 : FileOffset(exe, field);
}

// The file offset of the entry for field `vt` in `table`'s vtable.
uint64_t VtableEntryAt(const ExecutableView& exe, const void* table, voffset_t vt) {
  const auto* start = static_cast<const uint8_t*>(table);
  const uint8_t* vtable = start - flatbuffers::ReadScalar<flatbuffers::soffset_t>(start);
  if (vt >= flatbuffers::ReadScalar<voffset_t>(vtable)) ADD_FAILURE() << "no vtable entry " << vt;
  return FileOffset(exe, vtable + vt);
}

// Writes `value` little-endian at `at`.
template <typename T>
void Put(std::vector<uint8_t>& bytes, uint64_t at, T value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  for (size_t k = 0; k < sizeof(T); ++k) bytes.at(at + k) = static_cast<uint8_t>(bits >> (8 * k));
}

DiagnosticSink Validate(const std::string& name, const std::vector<uint8_t>& bytes) {
  DiagnosticSink sink(Profile{}, name);
  ValidateContext context;
  context.path = name;
  EdgetpuFormat().Validate(InputBuffer::Copy(ByteView(bytes.data(), bytes.size())), context, sink);
  return sink;
}

std::set<std::string> RuleIds(const DiagnosticSink& sink) {
  std::set<std::string> ids;
  for (const Diagnostic& d : sink.diagnostics()) ids.insert(std::string(d.rule->id));
  return ids;
}

// The changed file gives exactly the findings of the unchanged one and the
// rules `expected`.
DiagnosticSink ExpectOnly(const RealFile& file, const std::vector<uint8_t>& bytes,
                          std::set<std::string> expected) {
  const DiagnosticSink before = Validate(file.name(), file.Bytes());
  const DiagnosticSink sink = Validate(file.name(), bytes);
  const std::set<std::string> unchanged = RuleIds(before);
  expected.insert(unchanged.begin(), unchanged.end());
  EXPECT_EQ(RuleIds(sink), expected) << Describe(sink);
  return sink;
}

std::vector<Kind> Kinds(const HintPlan& plan) {
  std::vector<Kind> kinds;
  for (const Transfer& t : plan.transfers) kinds.push_back(t.kind);
  return kinds;
}

// --- The plan (§5.2, §6.2) ---

TEST(EdgetpuHintPlan, SplitConcatSendsItsThreeInputsAndFiveOutputs) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const HintPlan plan = PlanHints(*file.Main().executable);
  EXPECT_TRUE(plan.present);
  EXPECT_TRUE(plan.fully_deterministic);
  EXPECT_TRUE(plan.skipped.empty());
  EXPECT_EQ(Kinds(plan),
            (std::vector<Kind>{Kind::kInstructionChunk, Kind::kInput, Kind::kInput, Kind::kInput,
                               Kind::kOutput, Kind::kOutput, Kind::kOutput, Kind::kOutput,
                               Kind::kOutput, Kind::kInterrupt}));
  const Transfer& input = plan.transfers[1];
  EXPECT_EQ(input.layer_name, "input1");
  ASSERT_NE(input.layer, nullptr);
  EXPECT_EQ(input.layer->name()->string_view(), "input1");
  EXPECT_EQ(input.offset, 0);
  EXPECT_EQ(input.end, 192);
  for (const Transfer& t : plan.transfers) {
    if (t.kind == Kind::kOutput) {
      EXPECT_EQ(t.end - t.offset, 256);
    }
  }
  EXPECT_EQ(plan.transfers.back().interrupt, 0);
}

TEST(EdgetpuHintPlan, MovenetStreamsItsParametersInTwoParts) {
  LOAD_OR_SKIP(file, kMovenet);
  const HintPlan plan = PlanHints(*file.Main().executable);
  std::vector<std::pair<int64_t, int64_t>> parameters;
  for (const Transfer& t : plan.transfers) {
    if (t.kind == Kind::kParameter) parameters.emplace_back(t.offset, t.end);
  }
  EXPECT_EQ(parameters, (std::vector<std::pair<int64_t, int64_t>>{{0, 64}, {64, 2368}}));
}

TEST(EdgetpuHintPlan, DeeplabSlimWritesScratchOutThenReadsItBackBetweenFences) {
  LOAD_OR_SKIP(file, kDeeplabSlim);
  const HintPlan plan = PlanHints(*file.Main().executable);
  EXPECT_EQ(Kinds(plan),
            (std::vector<Kind>{Kind::kInstructionChunk, Kind::kInput, Kind::kScratchOut,
                               Kind::kFence, Kind::kScratchIn, Kind::kFence, Kind::kScratchIn,
                               Kind::kFence, Kind::kScratchIn, Kind::kInstructionChunk,
                               Kind::kFence, Kind::kScratchIn, Kind::kFence, Kind::kScratchIn,
                               Kind::kFence, Kind::kScratchIn, Kind::kOutput, Kind::kInterrupt}));
  EXPECT_EQ(plan.transfers[0].chunk, 0);
  EXPECT_EQ(plan.transfers[9].chunk, 1);
  for (const Transfer& t : plan.transfers) {
    if (t.kind == Kind::kScratchIn || t.kind == Kind::kScratchOut) {
      EXPECT_EQ(t.offset, 0);
      EXPECT_EQ(t.end, 1393920);
    }
  }
}

TEST(EdgetpuHintPlan, KerasLstmEndsWithTheGlobalFence) {
  LOAD_OR_SKIP(file, kKerasLstm);
  const HintPlan plan = PlanHints(*file.Main().executable);
  EXPECT_FALSE(plan.fully_deterministic);
  EXPECT_EQ(Kinds(plan), (std::vector<Kind>{Kind::kInstructionChunk, Kind::kParameter, Kind::kInput,
                                            Kind::kInput, Kind::kInput, Kind::kFence}));
  EXPECT_EQ(plan.transfers.back().hint, Transfer::kNoHint);
  EXPECT_EQ(plan.transfers[1].end, 576);
}

// Every PC executable streams chunk 0, its parameters whole, then waits
// for interrupt 0 (EDG-68).
TEST(EdgetpuHintPlan, ParameterCachingExecutablesStreamTheirParametersWhole) {
  size_t seen = 0;
  for (const char* name : {kSplitConcat, kMovenet, kDeeplabSlim, kKerasLstm}) {
    const RealFile file(name);
    if (!file.ok()) continue;
    ++seen;
    const dwn::Executable& pc = *file.Caching().executable;
    const HintPlan plan = PlanHints(pc);
    ASSERT_EQ(Kinds(plan),
              (std::vector<Kind>{Kind::kInstructionChunk, Kind::kParameter, Kind::kInterrupt}))
        << name;
    EXPECT_EQ(plan.transfers[1].offset, 0) << name;
    EXPECT_EQ(plan.transfers[1].end, int64_t{pc.parameters()->size()}) << name;
  }
  if (seen == 0) GTEST_SKIP() << "no corpus at " << CorpusDir();
}

// Hints the driver cannot carry out are listed, and the walk goes on.
TEST(EdgetpuHintPlan, ListsWhatTheDriverCannotCarryOut) {
  LOAD_OR_SKIP(file, kDeeplabSlim);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  const voffset_t type = dwn::DmaHint::VT_ANY_HINT_TYPE;
  Put<uint8_t>(bytes, FieldAt(exe, &Hint(exe, 3), type), 0);  // a fence made NONE
  Put<uint8_t>(bytes, FieldAt(exe, &Hint(exe, 5), type), 9);  // a fence of an unknown type
  Put<uint8_t>(bytes, FieldAt(exe, &Hint(exe, 7), type), 1);  // a fence read as a descriptor
  Put<int16_t>(
      bytes, FieldAt(exe, Hint(exe, 4).any_hint_as_DmaDescriptorHint()->meta(), dwn::Meta::VT_DESC),
      6);  // scratch made an unknown desc
  // The changed package, decoded the way the validator does it.
  const uint64_t start = exe.buffer.region.file_offset;
  const std::vector<uint8_t> copy(bytes.begin() + static_cast<ptrdiff_t>(start),
                                  bytes.begin() + static_cast<ptrdiff_t>(start) +
                                      static_cast<ptrdiff_t>(exe.buffer.region.bytes.size()));
  const auto* changed = flatbuffers::GetRoot<dwn::Executable>(copy.data());
  const HintPlan plan = PlanHints(*changed);
  ASSERT_EQ(plan.skipped.size(), 4u);
  EXPECT_EQ(plan.skipped[0].hint, 3u);
  EXPECT_EQ(plan.skipped[0].reason, SkipReason::kNoneType);
  EXPECT_EQ(plan.skipped[1].hint, 4u);
  EXPECT_EQ(plan.skipped[1].reason, SkipReason::kUnknownDesc);
  EXPECT_EQ(plan.skipped[2].hint, 5u);
  EXPECT_EQ(plan.skipped[2].reason, SkipReason::kUnknownType);
  EXPECT_EQ(plan.skipped[3].hint, 7u);
  EXPECT_EQ(plan.skipped[3].reason, SkipReason::kNullMeta);
  EXPECT_EQ(plan.transfers.size(), 18u - 4u);
}

// Every byte of split_concat's hints inverted in turn: the file is reported
// (or found clean) and nothing crashes.
TEST(EdgetpuHintPlan, AnyByteOfTheHintsChangedIsReportedWithoutCrashing) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  const auto* hints = exe.executable->dma_hints()->hints();
  // From the hints vector to the furthest table or string it reaches.
  uint64_t first = FileOffset(exe, hints);
  uint64_t last = first + 4 + 4 * hints->size();
  for (uint32_t i = 0; i < hints->size(); ++i) {
    const dwn::DmaHint& hint = *hints->Get(i);
    for (const void* p : {static_cast<const void*>(&hint), hint.any_hint()}) {
      if (p != nullptr) last = std::max(last, FileOffset(exe, p) + 16);
    }
    if (const auto* d = hint.any_hint_as_DmaDescriptorHint()) {
      last = std::max(last, FileOffset(exe, d->meta()) + 16);
      last = std::max(last, FileOffset(exe, d->meta()->name()) + 4 + d->meta()->name()->size());
    }
  }
  const std::vector<uint8_t> bytes = file.Bytes();
  for (uint64_t at = first; at < last && at < bytes.size(); ++at) {
    std::vector<uint8_t> changed = bytes;
    changed[at] ^= 0xff;
    const DiagnosticSink sink = Validate(file.name(), changed);
    EXPECT_FALSE(sink.failed()) << "byte " << at << "\n" << Describe(sink);
  }
}

// --- One changed value, one rule (EDG-57 to EDG-68) ---

TEST(EdgetpuHintRules, MissingHints) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint16_t>(bytes, VtableEntryAt(exe, exe.executable, dwn::Executable::VT_DMA_HINTS), 0);
  ExpectOnly(file, bytes, {"edgetpu.hints.missing"});
}

// The DmaHints table without its hints vector (its vtable entry cleared).
TEST(EdgetpuHintRules, MissingHintsVector) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint16_t>(bytes, VtableEntryAt(exe, exe.executable->dma_hints(), dwn::DmaHints::VT_HINTS), 0);
  const DiagnosticSink sink = ExpectOnly(file, bytes, {"edgetpu.hints.missing"});
  EXPECT_NE(Describe(sink).find("no hints vector"), std::string::npos) << Describe(sink);
}

TEST(EdgetpuHintRules, NotFullyDeterministic) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint8_t>(bytes,
               FieldAt(exe, exe.executable->dma_hints(), dwn::DmaHints::VT_FULLY_DETERMINISTIC), 0);
  ExpectOnly(file, bytes, {"edgetpu.hints.not_deterministic"});
}

TEST(EdgetpuHintRules, NoneType) {
  LOAD_OR_SKIP(file, kDeeplabSlim);
  const ExecutableView& exe = file.Main();
  ASSERT_EQ(Hint(exe, 3).any_hint_type(), dwn::AnyHint::FenceHint);
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint8_t>(bytes, FieldAt(exe, &Hint(exe, 3), dwn::DmaHint::VT_ANY_HINT_TYPE), 0);
  ExpectOnly(file, bytes, {"edgetpu.hints.type"});
}

// The DmaHint vtable entry of the value, shared by every hint whose table
// has the same shape: all of them lose their value.
TEST(EdgetpuHintRules, NullValue) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint16_t>(bytes, VtableEntryAt(exe, &Hint(exe, 0), dwn::DmaHint::VT_ANY_HINT), 0);
  ExpectOnly(file, bytes, {"edgetpu.hints.type"});
}

TEST(EdgetpuHintRules, UnknownType) {
  LOAD_OR_SKIP(file, kDeeplabSlim);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint8_t>(bytes, FieldAt(exe, &Hint(exe, 3), dwn::DmaHint::VT_ANY_HINT_TYPE), 9);
  ExpectOnly(file, bytes, {"edgetpu.hints.unknown_type"});
}

TEST(EdgetpuHintRules, UnknownDesc) {
  LOAD_OR_SKIP(file, kDeeplabSlim);
  const ExecutableView& exe = file.Main();
  const dwn::Meta* meta = Hint(exe, 2).any_hint_as_DmaDescriptorHint()->meta();
  ASSERT_EQ(meta->desc(), dwn::Description::BASE_ADDRESS_SCRATCH);
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int16_t>(bytes, FieldAt(exe, meta, dwn::Meta::VT_DESC), 6);
  ExpectOnly(file, bytes, {"edgetpu.hints.meta"});
}

// A fence read as a DMA descriptor has no meta.
TEST(EdgetpuHintRules, NullMeta) {
  LOAD_OR_SKIP(file, kDeeplabSlim);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint8_t>(bytes, FieldAt(exe, &Hint(exe, 3), dwn::DmaHint::VT_ANY_HINT_TYPE), 1);
  ExpectOnly(file, bytes, {"edgetpu.hints.meta"});
}

// The hint's own copy of the name, changed in its first byte.
TEST(EdgetpuHintRules, NameOfNoLayer) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  const auto* name = Hint(exe, 1).any_hint_as_DmaDescriptorHint()->meta()->name();
  ASSERT_EQ(name->string_view(), "input1");
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint8_t>(bytes, FileOffset(exe, name->data()), 'X');
  const DiagnosticSink sink = ExpectOnly(file, bytes, {"edgetpu.hints.layer"});
  EXPECT_NE(Describe(sink).find("\"Xnput1\""), std::string::npos) << Describe(sink);
}

// No real hint stores a batch (all are 0, the default, and not written),
// so the one value that puts it out of range in place is batch_size, which
// the executable and link rules judge too.
TEST(EdgetpuHintRules, BatchOutOfRange) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int32_t>(bytes, FieldAt(exe, exe.executable, dwn::Executable::VT_BATCH_SIZE), 0);
  ExpectOnly(file, bytes,
             {"edgetpu.hints.batch", "edgetpu.executable.batch_size", "edgetpu.link.batch"});
}

const dwn::DmaDescriptorHint& Descriptor(const ExecutableView& exe, uint32_t i) {
  return *Hint(exe, i).any_hint_as_DmaDescriptorHint();
}

uint64_t SizeAt(const ExecutableView& exe, uint32_t i) {
  return FieldAt(exe, &Descriptor(exe, i), dwn::DmaDescriptorHint::VT_SIZE_IN_BYTES);
}

TEST(EdgetpuHintRules, InputPastItsBuffersLastPage) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  ASSERT_EQ(Descriptor(exe, 1).size_in_bytes(), 192);
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int32_t>(bytes, SizeAt(exe, 1), 192 + 4096);
  ExpectOnly(file, bytes, {"edgetpu.hints.input_bounds"});
  Put<int32_t>(bytes, SizeAt(exe, 1), 0);
  ExpectOnly(file, bytes, {"edgetpu.hints.input_bounds"});
}

TEST(EdgetpuHintRules, InputOverreadWithinThePage) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int32_t>(bytes, SizeAt(exe, 1), 200);
  ExpectOnly(file, bytes, {"edgetpu.hints.input_overread"});
}

TEST(EdgetpuHintRules, OutputPastItsLayer) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  ASSERT_EQ(Descriptor(exe, 4).size_in_bytes(), 256);
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int32_t>(bytes, SizeAt(exe, 4), 260);
  ExpectOnly(file, bytes, {"edgetpu.hints.output_bounds"});
}

TEST(EdgetpuHintRules, ParametersPastTheirEnd) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Caching();
  ASSERT_EQ(Descriptor(exe, 1).size_in_bytes(), 192);
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int32_t>(bytes, SizeAt(exe, 1), 256);
  ExpectOnly(file, bytes, {"edgetpu.hints.parameter_bounds"});
}

TEST(EdgetpuHintRules, ScratchPastItsEnd) {
  LOAD_OR_SKIP(file, kDeeplabSlim);
  const ExecutableView& exe = file.Main();
  ASSERT_EQ(Descriptor(exe, 2).size_in_bytes(), 1393920);
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int32_t>(bytes, SizeAt(exe, 2), 1393921);
  ExpectOnly(file, bytes, {"edgetpu.hints.scratch_bounds"});
}

TEST(EdgetpuHintRules, OutputSentAsInfeed) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  ASSERT_EQ(Hint(exe, 4).direction(), dwn::Direction::OUTFEED);
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int16_t>(bytes, FieldAt(exe, &Hint(exe, 4), dwn::DmaHint::VT_DIRECTION), 0);
  ExpectOnly(file, bytes, {"edgetpu.hints.direction"});
}

TEST(EdgetpuHintRules, ChunkOfNoBitstream) {
  LOAD_OR_SKIP(file, kDeeplabSlim);
  const ExecutableView& exe = file.Main();
  const auto* instruction = Hint(exe, 9).any_hint_as_InstructionHint();
  ASSERT_EQ(instruction->instruction_chunk_index(), 1);
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int32_t>(bytes, FieldAt(exe, instruction, dwn::InstructionHint::VT_INSTRUCTION_CHUNK_INDEX),
               2);
  ExpectOnly(file, bytes, {"edgetpu.hints.chunk_index"});
}

// Real interrupts store no type (0 is the default); the output descriptor
// before the interrupt, read as an InterruptHint, gives as its type the
// low half of its meta offset (above 3), and keeps the OUTFEED direction
// interrupts have.
TEST(EdgetpuHintRules, InterruptOfNoType) {
  LOAD_OR_SKIP(file, kDeeplabSlim);
  const ExecutableView& exe = file.Main();
  ASSERT_EQ(Hint(exe, 16).direction(), dwn::Direction::OUTFEED);
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint8_t>(bytes, FieldAt(exe, &Hint(exe, 16), dwn::DmaHint::VT_ANY_HINT_TYPE), 3);
  ExpectOnly(file, bytes, {"edgetpu.hints.interrupt_type"});
}

// The first hint, read as a fence: chunk 0 is never sent, and the stream
// does not start with it.
TEST(EdgetpuHintRules, GrammarFirstHintNotChunkZero) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint8_t>(bytes, FieldAt(exe, &Hint(exe, 0), dwn::DmaHint::VT_ANY_HINT_TYPE), 4);
  // Chunk 0 is not first (the order) and never sent (the grammar).
  ExpectOnly(file, bytes, {"edgetpu.hints.grammar", "edgetpu.hints.order"});
}

TEST(EdgetpuHintRules, GrammarChunkSentTwice) {
  LOAD_OR_SKIP(file, kDeeplabSlim);
  const ExecutableView& exe = file.Main();
  const auto* instruction = Hint(exe, 9).any_hint_as_InstructionHint();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int32_t>(bytes, FieldAt(exe, instruction, dwn::InstructionHint::VT_INSTRUCTION_CHUNK_INDEX),
               0);
  // Chunk 0 sent again (the order) in place of a chunk then never sent (the grammar).
  ExpectOnly(file, bytes, {"edgetpu.hints.grammar", "edgetpu.hints.order"});
}

TEST(EdgetpuHintRules, GrammarOfTheCachingExecutable) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Caching();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint8_t>(bytes, FieldAt(exe, &Hint(exe, 0), dwn::DmaHint::VT_ANY_HINT_TYPE), 4);
  ExpectOnly(file, bytes, {"edgetpu.hints.order"});
}

TEST(EdgetpuHintRules, CoverageInputGap) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int32_t>(bytes, SizeAt(exe, 1), 128);
  const DiagnosticSink sink = ExpectOnly(file, bytes, {"edgetpu.hints.coverage"});
  EXPECT_NE(Describe(sink).find("[128, 192)"), std::string::npos) << Describe(sink);
}

// Two descriptors for one input overlap (a halo, legal); the input the
// second one named is never sent.
TEST(EdgetpuHintRules, CoverageAllowsInputHalos) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  const auto* name = Descriptor(exe, 2).meta()->name();
  ASSERT_EQ(name->string_view(), "inputs/rnn1");
  std::vector<uint8_t> bytes = file.Bytes();
  Put<uint8_t>(bytes, FileOffset(exe, name->data()) + name->size() - 1, '2');
  const DiagnosticSink sink = ExpectOnly(file, bytes, {"edgetpu.hints.coverage"});
  ASSERT_EQ(sink.diagnostics().size(), 1u) << Describe(sink);
  EXPECT_NE(sink.diagnostics()[0].message.find("\"inputs/rnn1\""), std::string::npos)
      << Describe(sink);
}

TEST(EdgetpuHintRules, CoverageParametersStreamedTwice) {
  LOAD_OR_SKIP(file, kMovenet);
  const ExecutableView& exe = file.Main();
  const dwn::DmaDescriptorHint& second = Descriptor(exe, 5);
  ASSERT_EQ(second.offset_in_bytes(), 64);
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int32_t>(bytes, FieldAt(exe, &second, dwn::DmaDescriptorHint::VT_OFFSET_IN_BYTES), 0);
  const DiagnosticSink sink = ExpectOnly(file, bytes, {"edgetpu.hints.coverage"});
  const std::string text = Describe(sink);
  EXPECT_NE(text.find("parameter bytes [2304, 2368) of 2368"), std::string::npos) << text;
  EXPECT_NE(text.find("parameter bytes [0, 64) more than once"), std::string::npos) << text;
}

// With batch_size 2 nothing moves the second batch element of any layer.
TEST(EdgetpuHintRules, CoverageBatchNeverMoved) {
  LOAD_OR_SKIP(file, kSplitConcat);
  const ExecutableView& exe = file.Main();
  std::vector<uint8_t> bytes = file.Bytes();
  Put<int32_t>(bytes, FieldAt(exe, exe.executable, dwn::Executable::VT_BATCH_SIZE), 2);
  const DiagnosticSink sink = ExpectOnly(file, bytes, {"edgetpu.hints.coverage"});
  EXPECT_EQ(sink.diagnostics().size(), 8u) << Describe(sink);
}

}  // namespace
}  // namespace accelcheck::edgetpu
