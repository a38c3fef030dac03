#include "validators/core/sink.h"

#include <gtest/gtest.h>

#include "validators/core/core_rules.h"

namespace accelcheck {
namespace {

// A rule for each profile behaviour: always an error, a real-file quirk that
// the spec forbids (warning by default, error under --strict), and a note.
const Rule kError{"test.error",       Severity::kError, Severity::kError,
                  Category::kInvalid, "error",          "test"};
const Rule kQuirk{"test.quirk", Severity::kWarning, Severity::kError, Category::kInvalid, "quirk",
                  "test"};
const Rule kNote{"test.note",        Severity::kNote, Severity::kWarning,
                 Category::kInvalid, "note",          "test"};

Location AtOffset(uint64_t offset) {
  Location location;
  location.offset = offset;
  return location;
}

TEST(SinkTest, DefaultProfileKeepsTheRuleSeverity) {
  DiagnosticSink sink(Profile{}, "a.pte");
  sink.Report(kQuirk, {}, "quirk");
  sink.Report(kNote, {}, "note");
  EXPECT_EQ(sink.error_count(), 0u);
  EXPECT_EQ(sink.warning_count(), 1u);
  ASSERT_EQ(sink.diagnostics().size(), 2u);
  EXPECT_EQ(sink.diagnostics()[0].severity, Severity::kWarning);
  EXPECT_EQ(sink.diagnostics()[1].severity, Severity::kNote);
  EXPECT_EQ(sink.diagnostics()[0].file, "a.pte");
  EXPECT_EQ(ExitCodeFor(sink), ExitCode::kConforms);
}

TEST(SinkTest, StrictProfileUsesTheStrictSeverity) {
  DiagnosticSink sink(Profile{.strict = true}, "a.pte");
  sink.Report(kQuirk, {}, "quirk");
  sink.Report(kNote, {}, "note");
  EXPECT_EQ(sink.error_count(), 1u);
  EXPECT_EQ(sink.warning_count(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].severity, Severity::kError);
  EXPECT_EQ(sink.diagnostics()[1].severity, Severity::kWarning);
  EXPECT_EQ(ExitCodeFor(sink), ExitCode::kErrors);
}

TEST(SinkTest, WerrorMakesWarningsFailTheExitCode) {
  DiagnosticSink sink(Profile{.werror = true}, "a.pte");
  sink.Report(kNote, {}, "note");
  EXPECT_EQ(ExitCodeFor(sink), ExitCode::kConforms);
  sink.Report(kQuirk, {}, "quirk");
  EXPECT_EQ(sink.error_count(), 0u);
  EXPECT_EQ(ExitCodeFor(sink), ExitCode::kErrors);
}

TEST(SinkTest, BlockingCountFollowsTheDefaultSeverityWhateverTheProfile) {
  DiagnosticSink strict(Profile{.strict = true}, "a.pte");
  strict.Report(kQuirk, {}, "quirk");
  EXPECT_EQ(strict.error_count(), 1u);
  EXPECT_EQ(strict.blocking_count(), 0u);
  strict.Report(kError, {}, "error");
  EXPECT_EQ(strict.blocking_count(), 1u);

  DiagnosticSink capped(Profile{.max_errors = 1}, "a.pte");
  for (int i = 0; i < 5; ++i) capped.Report(kError, {}, "error");
  EXPECT_EQ(capped.blocking_count(), 5u) << "suppressed diagnostics still gate later phases";
}

TEST(SinkTest, MaxErrorsKeepsTheFirstNAndCountsTheRest) {
  DiagnosticSink sink(Profile{.max_errors = 2}, "a.pte");
  sink.Report(kError, AtOffset(1), "first");
  sink.Report(kError, AtOffset(2), "second");
  sink.Report(kError, AtOffset(3), "third");
  sink.Report(kQuirk, {}, "a warning after the cap");
  ASSERT_EQ(sink.diagnostics().size(), 2u);
  EXPECT_EQ(sink.diagnostics()[0].message, "first");
  EXPECT_EQ(sink.diagnostics()[1].message, "second");
  EXPECT_EQ(sink.suppressed_count(), 2u);
  EXPECT_EQ(sink.error_count(), 3u);
  EXPECT_EQ(sink.warning_count(), 1u);
}

TEST(SinkTest, ALimitPastTheCapIsStillListed) {
  DiagnosticSink sink(Profile{.max_errors = 1}, "a.pte");
  sink.Report(kError, {}, "first");
  sink.Report(kError, {}, "second");
  sink.Report(core_rules::kLimitDepth, {}, "too deep");
  ASSERT_EQ(sink.diagnostics().size(), 2u);
  EXPECT_EQ(sink.diagnostics()[1].rule, &core_rules::kLimitDepth);
  EXPECT_TRUE(sink.failed());
}

TEST(SinkTest, ZeroMaxErrorsMeansNoCap) {
  DiagnosticSink sink(Profile{}, "a.pte");
  for (int i = 0; i < 1000; ++i) sink.Report(kError, {}, "error");
  EXPECT_EQ(sink.diagnostics().size(), 1000u);
  EXPECT_EQ(sink.suppressed_count(), 0u);
}

TEST(SinkTest, KeepsABoundedNumberOfDiagnosticsAndCountsTheRest) {
  DiagnosticSink sink(Profile{}, "a.json");
  for (size_t i = 0; i < kMaxKeptDiagnostics; ++i) sink.Report(kQuirk, {}, "quirk");
  EXPECT_EQ(sink.diagnostics().size(), kMaxKeptDiagnostics)
      << "at the bound every diagnostic is kept";
  EXPECT_EQ(sink.suppressed_count(), 0u);
  for (size_t i = 0; i < 3; ++i) sink.Report(kQuirk, {}, "quirk");
  sink.Report(kError, {}, "an error past the bound");
  sink.Report(core_rules::kLimitDepth, {}, "too deep");
  EXPECT_EQ(sink.diagnostics().size(), kMaxKeptDiagnostics + 1);
  EXPECT_EQ(sink.diagnostics().back().rule, &core_rules::kLimitDepth) << "limits are always listed";
  EXPECT_EQ(sink.suppressed_count(), 4u);
  EXPECT_EQ(sink.warning_count(), kMaxKeptDiagnostics + 3);
  EXPECT_EQ(sink.error_count(), 2u);
  EXPECT_TRUE(sink.failed());
}

TEST(SinkTest, LimitAndInternalRulesFailTheFileEvenAmongErrors) {
  DiagnosticSink limit(Profile{}, "a.pte");
  limit.Report(kError, {}, "error");
  limit.Report(core_rules::kLimitDepth, {}, "too deep");
  EXPECT_TRUE(limit.failed());
  EXPECT_EQ(ExitCodeFor(limit), ExitCode::kFailure);

  DiagnosticSink io(Profile{}, "a.pte");
  io.Report(core_rules::kIoRead, {}, "cannot read");
  EXPECT_EQ(ExitCodeFor(io), ExitCode::kFailure);

  DiagnosticSink unknown(Profile{}, "a.pte");
  unknown.Report(core_rules::kFormatUnknown, {}, "unknown");
  EXPECT_FALSE(unknown.failed()) << "unknown content is a verdict: it does not conform";
  EXPECT_EQ(ExitCodeFor(unknown), ExitCode::kErrors);
}

TEST(SinkTest, HasFindsReportedRules) {
  DiagnosticSink sink(Profile{}, "a.pte");
  sink.Report(kQuirk, {}, "quirk");
  EXPECT_TRUE(sink.Has(kQuirk));
  EXPECT_FALSE(sink.Has(kError));
}

const Rule* const kRules[] = {&kError, &kQuirk, &kNote, &core_rules::kLimitDepth};

Profile WithRules(std::vector<RuleDirective> directives, Profile profile = {}) {
  std::string error;
  std::optional<RuleSelection> rules = RuleSelection::Make(std::move(directives), kRules, &error);
  EXPECT_TRUE(rules) << error;
  profile.rules = rules.value_or(RuleSelection());
  return profile;
}

// A disabled rule's diagnostics are counted as disabled, never as errors,
// and the phases still see them: the next phase's invariants do not hold.
TEST(SinkTest, DisabledRulesAreCountedApartAndStillGatePhases) {
  DiagnosticSink sink(WithRules({{RuleAction::kDisable, "test.error"}}), "a.pte");
  sink.Report(kError, {}, "error");
  sink.Report(kQuirk, {}, "quirk");
  EXPECT_EQ(sink.error_count(), 0u);
  EXPECT_EQ(sink.disabled_count(), 1u);
  EXPECT_EQ(sink.blocking_count(), 1u);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].rule, &kQuirk);
  EXPECT_EQ(ExitCodeFor(sink), ExitCode::kConforms);
}

TEST(SinkTest, TheLaterOfDisableAndEnableWins) {
  DiagnosticSink enabled(
      WithRules({{RuleAction::kDisable, "test.*"}, {RuleAction::kEnable, "test.error"}}), "a");
  enabled.Report(kError, {}, "error");
  enabled.Report(kQuirk, {}, "quirk");
  EXPECT_EQ(enabled.error_count(), 1u);
  EXPECT_EQ(enabled.disabled_count(), 1u);

  DiagnosticSink disabled(
      WithRules({{RuleAction::kEnable, "test.error"}, {RuleAction::kDisable, "test.*"}}), "a");
  disabled.Report(kError, {}, "error");
  EXPECT_EQ(disabled.error_count(), 0u);
  EXPECT_EQ(disabled.disabled_count(), 1u);
}

// --error and --warning set the severity over the profile; blocking_count
// keeps the default severity.
TEST(SinkTest, ErrorAndWarningOverrideTheProfile) {
  DiagnosticSink sink(WithRules({{RuleAction::kWarning, "test.error"},
                                 {RuleAction::kWarning, "test.quirk"},
                                 {RuleAction::kError, "test.note"}},
                                Profile{.strict = true}),
                      "a.pte");
  sink.Report(kError, {}, "error");
  sink.Report(kQuirk, {}, "quirk");
  sink.Report(kNote, {}, "note");
  EXPECT_EQ(sink.diagnostics()[0].severity, Severity::kWarning);
  EXPECT_EQ(sink.diagnostics()[1].severity, Severity::kWarning);
  EXPECT_EQ(sink.diagnostics()[2].severity, Severity::kError);
  EXPECT_EQ(sink.error_count(), 1u);
  EXPECT_EQ(sink.warning_count(), 2u);
  EXPECT_EQ(sink.blocking_count(), 1u);
}

// A pattern that also matches a limit rule leaves it alone: it still fails
// the file, as an error.
TEST(SinkTest, NoSelectionDisablesOrDowngradesALimit) {
  DiagnosticSink sink(WithRules({{RuleAction::kDisable, "*"}, {RuleAction::kWarning, "*"}}), "a");
  sink.Report(core_rules::kLimitDepth, {}, "too deep");
  sink.Report(kError, {}, "error");
  EXPECT_EQ(sink.disabled_count(), 1u);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].severity, Severity::kError);
  EXPECT_EQ(ExitCodeFor(sink), ExitCode::kFailure);
}

// A baseline accepts each finding it holds as often as it holds it; a
// finding it accepts is listed, marked, and counted apart.
TEST(SinkTest, ABaselineAcceptsWhatItHoldsAsOftenAsItHoldsIt) {
  Baseline recorded = Baseline::Recording();
  DiagnosticSink before(Profile{}, "a.pte");
  before.UseBaseline(&recorded, "a.pte");
  before.Report(kError, AtOffset(0x10), "segment 1 is bad");
  EXPECT_EQ(before.error_count(), 0u);
  EXPECT_EQ(before.baselined_count(), 1u);

  std::string error;
  std::optional<Baseline> baseline = Baseline::Parse(recorded.ToJson(), &error);
  ASSERT_TRUE(baseline) << error;
  DiagnosticSink after(Profile{.max_errors = 1}, "/elsewhere/a.pte");
  after.UseBaseline(&*baseline, "a.pte");
  after.Report(kError, AtOffset(0x20), "segment 1 is bad");  // moved: still the same finding
  after.Report(kError, AtOffset(0x20), "segment 1 is bad");  // a second one is new
  EXPECT_EQ(after.baselined_count(), 1u);
  EXPECT_EQ(after.error_count(), 1u);
  ASSERT_EQ(after.diagnostics().size(), 2u) << "a baselined finding is listed past --max-errors";
  EXPECT_TRUE(after.diagnostics()[0].baselined);
  EXPECT_FALSE(after.diagnostics()[1].baselined);
  EXPECT_EQ(ExitCodeFor(after), ExitCode::kErrors);
}

TEST(SinkTest, ABaselineNeverAcceptsALimit) {
  Baseline recorded = Baseline::Recording();
  DiagnosticSink sink(Profile{}, "a.pte");
  sink.UseBaseline(&recorded, "a.pte");
  sink.Report(core_rules::kLimitDepth, {}, "too deep");
  EXPECT_EQ(sink.baselined_count(), 0u);
  EXPECT_EQ(recorded.size(), 0u);
  EXPECT_EQ(ExitCodeFor(sink), ExitCode::kFailure);
}

}  // namespace
}  // namespace accelcheck
