// The real files the validator still rejects (tests/support/corpus.h,
// kKnownFailures): each one must still fail, and by its listed rule alone,
// so that a file leaves the list the moment it validates clean and no other
// false positive hides behind an entry.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "accelcheck/accelcheck.h"
#include "tests/support/corpus.h"

namespace accelcheck::api {
namespace {

namespace fs = std::filesystem;

TEST(KnownFailures, EachStillFailsByItsRuleAlone) {
  const fs::path corpus(ACCELCHECK_CORPUS_DIR);
  if (!fs::is_directory(corpus)) GTEST_SKIP() << "the corpus is absent: " << corpus;
  for (const test::KnownFailure& known : test::kKnownFailures) {
    const fs::path path = corpus / known.path;
    ASSERT_TRUE(fs::is_regular_file(path)) << path << " is listed but not in the corpus";
    const std::vector<uint8_t> bytes = test::ReadBytes(path);
    const Result result = Validate(bytes, {.name = path.string()});
    std::set<std::string> rules;
    for (const Diagnostic& d : result.diagnostics) {
      if (d.severity == Severity::kError) rules.insert(d.rule);
    }
    EXPECT_EQ(result.outcome, Outcome::kErrors)
        << path << " validates clean now (" << known.why
        << "): remove it from kKnownFailures in tests/support/corpus.h";
    EXPECT_EQ(rules, std::set<std::string>{std::string(known.rule)})
        << path << " fails by other rules than " << known.rule << " (" << known.why << ")";
  }
}

}  // namespace
}  // namespace accelcheck::api
