#include "tools/accelcheck/options.h"

#include <gtest/gtest.h>

#include "tools/accelcheck/input.h"
#include "validators/core/limits.h"

namespace accelcheck::cli {
namespace {

const std::vector<Flag> kFlags = {
    {"format", true, "ID", "format"},
    {"strict", false, "", "strict"},
    {"data", true, "FILE", "companion"},
    {"o", true, "FILE", "output file"},
};

ParsedArgs MustParse(const std::vector<std::string>& args,
                     const std::vector<Flag>& flags = kFlags) {
  std::string error;
  std::optional<ParsedArgs> parsed = Parse(args, flags, &error);
  EXPECT_TRUE(parsed) << error;
  return parsed.value_or(ParsedArgs{});
}

std::string ParseError(const std::vector<std::string>& args) {
  std::string error;
  EXPECT_FALSE(Parse(args, kFlags, &error));
  return error;
}

TEST(OptionsTest, EveryFlagRoundTripsInBothSpellings) {
  for (const Flag& flag : kFlags) {
    const std::string dashes = flag.name.size() == 1 ? "-" : "--";
    if (!flag.takes_value) {
      EXPECT_TRUE(MustParse({dashes + flag.name}).Has(flag.name)) << flag.name;
      continue;
    }
    EXPECT_EQ(MustParse({dashes + flag.name, "v 1"}).Get(flag.name), "v 1") << flag.name;
    if (flag.name.size() > 1) {
      EXPECT_EQ(MustParse({"--" + flag.name + "=a=b"}).Get(flag.name), "a=b") << flag.name;
    }
  }
}

TEST(OptionsTest, PositionalsKeepTheirOrderAndDashIsStandardInput) {
  const ParsedArgs parsed = MustParse({"b.pte", "--strict", "-", "a.pte", "--", "--format", "-o"});
  EXPECT_EQ(parsed.positional, (std::vector<std::string>{"b.pte", "-", "a.pte", "--format", "-o"}));
  EXPECT_TRUE(parsed.Has("strict"));
  EXPECT_FALSE(parsed.Has("format"));
}

// Options whose order across flags matters (--disable, --enable) read it here.
TEST(OptionsTest, ValuesAreAlsoKeptInCommandLineOrder) {
  const ParsedArgs parsed =
      MustParse({"--data", "a.ptd", "--strict", "--format=pte", "x", "-o", "out", "--data", "b"});
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(parsed.in_order,
            (std::vector<Pair>{{"data", "a.ptd"}, {"format", "pte"}, {"o", "out"}, {"data", "b"}}));
}

TEST(OptionsTest, RepeatedFlagsKeepEveryValueAndGetReturnsTheLast) {
  const ParsedArgs parsed = MustParse({"--data", "a.ptd", "--data=b.ptd"});
  EXPECT_EQ(parsed.All("data"), (std::vector<std::string>{"a.ptd", "b.ptd"}));
  EXPECT_EQ(parsed.Get("data"), "b.ptd");
  EXPECT_TRUE(parsed.All("format").empty());
  EXPECT_EQ(parsed.Get("format"), std::nullopt);
}

TEST(OptionsTest, RejectsUnknownFlags) {
  EXPECT_EQ(ParseError({"--frobnicate"}), "unknown option --frobnicate");
  EXPECT_EQ(ParseError({"-x"}), "unknown option -x");
  EXPECT_EQ(ParseError({"-format"}), "unknown option -format");
}

// As getopt reads them: "-oFILE" is "-o FILE"; flags without a value are not bundled.
TEST(OptionsTest, AShortOptionTakesItsValueInTheSameArgument) {
  EXPECT_EQ(MustParse({"-oreport.json"}).Get("o"), "report.json");
  const std::vector<Flag> flags = {{"jobs", true, "N", "files at a time", 'j'},
                                   {"quiet", false, "", "errors only", 'q'}};
  EXPECT_EQ(MustParse({"-j4"}, flags).Get("jobs"), "4");
  std::string error;
  EXPECT_FALSE(Parse({"-qj4"}, flags, &error));
  EXPECT_EQ(error, "unknown option -qj4");
}

TEST(OptionsTest, RejectsMissingAndUnwantedValues) {
  EXPECT_EQ(ParseError({"--format"}), "option --format needs a value (ID)");
  EXPECT_EQ(ParseError({"a.pte", "-o"}), "option -o needs a value (FILE)");
  EXPECT_EQ(ParseError({"--strict=yes"}), "option --strict takes no value");
}

TEST(OptionsTest, ParseCountAcceptsOnlyNonNegativeIntegers) {
  std::string error;
  EXPECT_EQ(ParseCount("0", &error), 0u);
  EXPECT_EQ(ParseCount("18446744073709551615", &error), UINT64_MAX);
  for (const char* bad : {"", "-1", "1k", " 1", "0x10", "18446744073709551616"}) {
    error.clear();
    EXPECT_EQ(ParseCount(bad, &error), std::nullopt) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

TEST(OptionsTest, AShortNameIsKeptUnderTheFlagsName) {
  const std::vector<Flag> flags = {{"jobs", true, "N", "files at a time", 'j'},
                                   {"quiet", false, "", "errors only", 'q'}};
  EXPECT_EQ(MustParse({"-j", "4"}, flags).Get("jobs"), "4");
  EXPECT_EQ(MustParse({"--jobs=2", "-j", "3"}, flags).All("jobs"),
            (std::vector<std::string>{"2", "3"}));
  EXPECT_TRUE(MustParse({"-q"}, flags).Has("quiet"));
  std::string error;
  EXPECT_FALSE(Parse({"--j", "4"}, flags, &error)) << "a short name is spelled with one dash";
  EXPECT_EQ(error, "unknown option --j");
  EXPECT_NE(FlagHelp(flags).find("  -j, --jobs N"), std::string::npos) << FlagHelp(flags);
}

TEST(OptionsTest, EveryCommandTakesHelpAndQuiet) {
  const std::vector<Flag> all = WithCommonFlags(kFlags);
  ASSERT_EQ(all.size(), kFlags.size() + 2);
  EXPECT_TRUE(MustParse({"-h"}, all).Has("help"));
  EXPECT_TRUE(MustParse({"--quiet"}, all).Has("quiet"));
  // A spec that declares --help gets the short name too, without a duplicate.
  const std::vector<Flag> declared = WithCommonFlags({{"help", false, "", "print this help"}});
  EXPECT_EQ(declared.size(), 2u);
  EXPECT_EQ(declared[0].short_name, 'h');
}

TEST(OptionsTest, HelpListsEveryFlag) {
  const std::string help = FlagHelp(kFlags);
  EXPECT_NE(help.find("  --format ID"), std::string::npos) << help;
  EXPECT_NE(help.find("  --strict "), std::string::npos) << help;
  EXPECT_NE(help.find("  -o FILE"), std::string::npos) << help;
}

// Hand-written limit flags are easy to map to the wrong field (spirv-val once
// mapped two of its flags to each other's limit). Every limit flag here must set exactly its own
// field.
TEST(LimitFlagsTest, EveryLimitFlagSetsItsOwnFieldOnly) {
  const std::vector<Flag> flags = LimitFlags();
  ASSERT_EQ(flags.size(), AllLimits().size());
  for (size_t i = 0; i < AllLimits().size(); ++i) {
    const LimitInfo& limit = AllLimits()[i];
    EXPECT_EQ(flags[i].name, limit.flag);
    EXPECT_TRUE(flags[i].takes_value);
    for (const std::string& spelling : {"--" + flags[i].name + "=12345", "--" + flags[i].name}) {
      std::vector<std::string> args = {spelling};
      if (spelling.find('=') == std::string::npos) args.push_back("12345");
      const ParsedArgs parsed = MustParse(args, flags);
      Limits limits;
      std::string error;
      ASSERT_TRUE(ApplyLimitFlags(parsed, &limits, &error)) << error;
      for (const LimitInfo& other : AllLimits()) {
        const uint64_t expected = &other == &limit ? 12345 : other.default_value;
        EXPECT_EQ(limits.*other.field, expected) << spelling << " changed --" << other.flag;
      }
    }
  }
}

TEST(LimitFlagsTest, RejectsABadValueNamingTheFlag) {
  const ParsedArgs parsed = MustParse({"--max-depth", "deep"}, LimitFlags());
  Limits limits;
  std::string error;
  EXPECT_FALSE(ApplyLimitFlags(parsed, &limits, &error));
  EXPECT_EQ(error.rfind("--max-depth: ", 0), 0u) << error;
}

}  // namespace
}  // namespace accelcheck::cli
