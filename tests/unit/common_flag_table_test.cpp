// The one flag parser (common/flag_table.h): long and short names, booleans and their negation,
// repeatable flags, errors that name the flag, one table lifted into another.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/common/flag_table.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

struct Inner {
  Timestamp grace = 5000;
  std::vector<std::string> names;
  std::vector<std::string> listen = {":1"};
};

struct Outer {
  std::string file;
  bool all = false;
  int count = 1;
  Inner inner;
};

std::span<const FlagSpec<Inner>> InnerFlags() {
  static const std::vector<FlagSpec<Inner>> flags = {
      DurationFlag("grace", "How long.", &Inner::grace),
      ListFlag("names", "Which.", &Inner::names),
      RepeatedFlag("listen", "Where; repeat for several.", &Inner::listen),
  };
  return flags;
}

std::span<const FlagSpec<Outer>> OuterFlags() {
  static const std::vector<FlagSpec<Outer>> flags = [] {
    std::vector<FlagSpec<Outer>> f = {StringFlag("filename", "The file.", &Outer::file),
                                      BoolFlag("all", "Everything.", &Outer::all),
                                      IntFlag("count", "How many.", &Outer::count, 1)};
    f[0].short_name = "-f";
    for (auto& row : LiftFlags(InnerFlags(), &Outer::inner)) f.push_back(std::move(row));
    return f;
  }();
  return flags;
}

Result<ParsedFlags> Parse(std::vector<std::string> args, Outer* out) {
  return ParseFlagTable(OuterFlags(), args, out);
}

TEST(FlagTable, LongShortBoolAndLiftedFlags) {
  Outer o;
  Result<ParsedFlags> r = Parse(
      {"-f", "pods.json", "--all", "--count=3", "--grace", "90s", "--names=a, b", "extra"}, &o);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.value->action, FlagAction::kRun);
  EXPECT_EQ(o.file, "pods.json");
  EXPECT_TRUE(o.all);
  EXPECT_EQ(o.count, 3);
  EXPECT_EQ(o.inner.grace, 90 * kSecond);
  EXPECT_THAT(o.inner.names, ElementsAre("a", "b"));
  EXPECT_THAT(r.value->positional, ElementsAre("extra"));
  ASSERT_TRUE(Parse({"--all", "--no-all"}, &o).ok());
  EXPECT_FALSE(o.all);
}

// A repeatable row (--web.listen-address): the first occurrence replaces the default, later ones
// add to it, a repeated value is kept once; also when the row is lifted into another table.
TEST(FlagTable, RepeatedFlagReplacesTheDefaultThenAdds) {
  Outer o;
  ASSERT_TRUE(Parse({}, &o).ok());
  EXPECT_THAT(o.inner.listen, ElementsAre(":1"));
  ASSERT_TRUE(Parse({"--listen=:2", "--all", "--listen", "[::1]:3", "--listen=:2"}, &o).ok());
  EXPECT_THAT(o.inner.listen, ElementsAre(":2", "[::1]:3"));
  // Each parse starts over from the values it is given: the first occurrence clears them.
  Outer again;
  ASSERT_TRUE(Parse({"--listen=:1", "--listen=:4"}, &again).ok());
  EXPECT_THAT(again.inner.listen, ElementsAre(":1", ":4"));
  EXPECT_EQ(Parse({"--listen"}, &o).error, "flag --listen needs a value");
  EXPECT_THAT(FlagTableUsage(OuterFlags(), Outer{}),
              HasSubstr("      --listen=VALUE\n          Where; repeat for several. (repeatable) "
                        "(default: \":1\")"));
}

// kubectl's forms of a short flag with its value: "-fpods.json" and "-f=pods.json".
TEST(FlagTable, ShortFlagWithItsValueAttached) {
  Outer o;
  ASSERT_TRUE(Parse({"-fpods.json"}, &o).ok());
  EXPECT_EQ(o.file, "pods.json");
  ASSERT_TRUE(Parse({"-f=other.yaml"}, &o).ok());
  EXPECT_EQ(o.file, "other.yaml");
  EXPECT_THAT(Parse({"-xyz"}, &o).error, HasSubstr("unknown short flag -xyz"));
}

TEST(FlagTable, ErrorsNameTheFlag) {
  Outer o;
  EXPECT_THAT(Parse({"--bogus"}, &o).error, HasSubstr("unknown flag --bogus"));
  EXPECT_THAT(Parse({"-x"}, &o).error, HasSubstr("unknown short flag -x"));
  EXPECT_EQ(Parse({"-f"}, &o).error, "flag -f needs a value");
  EXPECT_THAT(Parse({"--count=0"}, &o).error, HasSubstr("flag --count: expects an integer >= 1"));
  EXPECT_THAT(Parse({"--grace=soon"}, &o).error, HasSubstr("flag --grace: expects a duration"));
  EXPECT_THAT(Parse({"--all=maybe"}, &o).error, HasSubstr("flag --all: expects true or false"));
}

TEST(FlagTable, HelpAndVersionStopTheParse) {
  Outer o;
  EXPECT_EQ(Parse({"--count=2", "-h", "--bogus"}, &o).value->action, FlagAction::kHelp);
  EXPECT_EQ(Parse({"--version"}, &o).value->action, FlagAction::kVersion);
}

// A default is shown only where there is one: no (default: "") for an empty string, and a
// boolean's only when it is on.
TEST(FlagTable, UsageListsEveryRowWithItsDefault) {
  const std::string usage = FlagTableUsage(OuterFlags(), Outer{});
  EXPECT_THAT(usage, HasSubstr("  -f, --filename=VALUE\n          The file.\n"));
  EXPECT_THAT(usage, HasSubstr("      --all\n          Everything.\n"));
  EXPECT_THAT(usage, HasSubstr("      --grace=DURATION\n          How long. (default: \"5s\")"));
  EXPECT_THAT(usage, Not(HasSubstr("(default: \"\")")));
  EXPECT_THAT(usage, Not(HasSubstr("(default: \"false\")")));
  Outer on;
  on.all = true;
  EXPECT_THAT(FlagTableUsage(OuterFlags(), on),
              HasSubstr("      --all\n          Everything. (default: true)\n"));
}

struct Settings {
  std::string url;
  bool watch = false;
  Timestamp wait = 30 * kSecond;
};

std::span<const FlagSpec<Settings>> GroupedFlags() {
  static const std::vector<FlagSpec<Settings>> flags = [] {
    const FlagSpec<Settings> url = StringFlag("pd.url", "Where.", &Settings::url);
    return Grouped<Settings>({
        Heading<Settings>("PD"),
        url,
        DeprecatedAlias(url, "pd-url"),
        Heading<Settings>("Output"),
        BoolFlag("watch", "Keep going.", &Settings::watch),
        DurationFlag("wait", "How long.", &Settings::wait),
    });
  }();
  return flags;
}

// Headings group the rows of --help; the table itself stays one flat list of flags.
TEST(FlagTable, HeadingsGroupTheHelp) {
  ASSERT_EQ(GroupedFlags().size(), 4u) << "headings are not rows";
  const std::string usage = FlagTableUsage(GroupedFlags(), Settings{});
  EXPECT_THAT(usage, HasSubstr("\nPD:\n      --pd.url=VALUE\n"));
  EXPECT_THAT(usage, HasSubstr("\nOutput:\n      --watch\n"));
  EXPECT_THAT(usage, Not(HasSubstr("pd-url"))) << "a deprecated spelling is not advertised";
  Settings s;
  EXPECT_FALSE(ParseFlagTable(GroupedFlags(), {"--"}, &s).ok()) << "a heading is no flag";
}

// An old spelling still sets the value, and the parse says once that it was used.
TEST(FlagTable, DeprecatedAliasWorksAndIsNamedOnce) {
  Settings s;
  Result<ParsedFlags> r =
      ParseFlagTable(GroupedFlags(), {"--pd-url=http://a", "--pd-url", "http://b"}, &s);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(s.url, "http://b");
  EXPECT_THAT(r.value->deprecated,
              ElementsAre("flag --pd-url is deprecated: use --pd.url (it works the same)"));
  r = ParseFlagTable(GroupedFlags(), {"--pd.url=http://c"}, &s);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.value->deprecated.empty());
}

// kubectl's help shape: "    -w, --watch=false:\n\t<help>\n\n", defaults always, strings quoted.
TEST(FlagTable, KubectlStyleUsage) {
  const std::string usage = FlagTableUsage(GroupedFlags(), Settings{}, FlagHelpStyle::kKubectl);
  EXPECT_THAT(usage, HasSubstr("PD:\n    --pd.url='':\n\tWhere.\n\n"));
  EXPECT_THAT(usage, HasSubstr("Output:\n    --watch=false:\n\tKeep going.\n\n"));
  EXPECT_THAT(usage, HasSubstr("    --wait=30s:\n\tHow long.\n\n"));
  EXPECT_THAT(FlagTableUsage(OuterFlags(), Outer{}, FlagHelpStyle::kKubectl),
              HasSubstr("    -f, --filename='':\n\tThe file.\n\n"));
}

}  // namespace
}  // namespace podwait
