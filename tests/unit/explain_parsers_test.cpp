// explain's readers of kubectl's habits: label selectors (-l) and YAML dumps (-o yaml).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "exporter/explain/label_selector.h"
#include "exporter/explain/yaml_json.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

bool Selects(const std::string& selector, const std::map<std::string, std::string>& labels) {
  Result<LabelSelector> s = LabelSelector::Parse(selector);
  EXPECT_TRUE(s.ok()) << s.error;
  return s.ok() && s.value->Matches(labels);
}

TEST(LabelSelector, EqualityAndSetRequirements) {
  const std::map<std::string, std::string> tikv = {{"app.kubernetes.io/component", "tikv"},
                                                   {"app.kubernetes.io/instance", "demo"}};
  EXPECT_TRUE(Selects("", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/component=tikv", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/component==tikv", tikv));
  EXPECT_FALSE(Selects("app.kubernetes.io/component=tidb", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/component!=tidb", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/component in (tidb, tikv)", tikv));
  EXPECT_FALSE(Selects("app.kubernetes.io/component notin (tidb,tikv)", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/instance,!pingcap.com/managed-by", tikv));
  EXPECT_FALSE(Selects("pingcap.com/managed-by", tikv));
  EXPECT_TRUE(Selects("app.kubernetes.io/component=tikv, app.kubernetes.io/instance=demo", tikv));
  EXPECT_FALSE(Selects("x!=", {{"x", ""}}));
}

TEST(LabelSelector, MalformedIsAnErrorNamingTheRequirement) {
  for (const char* bad : {"a in (b", "a inn (b)", "=b", "a b=c", "a=b c", "in (x)"}) {
    Result<LabelSelector> s = LabelSelector::Parse(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_THAT(s.error, HasSubstr("label selector")) << bad;
  }
}

TEST(YamlDocuments, ScalarsFollowTheCoreSchema) {
  rapidjson::Document d;
  ASSERT_EQ(ParseYamlDocuments("a: 1\nb: \"1\"\nc: true\nd: 'false'\ne: ~\nf: 1.5\ng: 0x1f\n"
                               "h: v1\ni: \"\"\n",
                               &d),
            "");
  ASSERT_EQ(d.Size(), 1u);
  const rapidjson::Value& v = d[0];
  EXPECT_EQ(v["a"].GetInt64(), 1);
  EXPECT_STREQ(v["b"].GetString(), "1");
  EXPECT_TRUE(v["c"].GetBool());
  EXPECT_STREQ(v["d"].GetString(), "false");
  EXPECT_TRUE(v["e"].IsNull());
  EXPECT_DOUBLE_EQ(v["f"].GetDouble(), 1.5);
  EXPECT_STREQ(v["g"].GetString(), "0x1f");
  EXPECT_STREQ(v["h"].GetString(), "v1");
  EXPECT_STREQ(v["i"].GetString(), "");
}

TEST(YamlDocuments, SeveralDocumentsAndEmptyOnes) {
  rapidjson::Document d;
  ASSERT_EQ(ParseYamlDocuments("---\nkind: Pod\n---\n---\nkind: Event\n...\n", &d), "");
  ASSERT_EQ(d.Size(), 2u);
  EXPECT_STREQ(d[1]["kind"].GetString(), "Event");
}

// Hostile input is an error, never a crash or a blow-up: deep nesting, alias bombs, bad keys.
TEST(YamlDocuments, HostileInputIsAnError) {
  rapidjson::Document d;
  EXPECT_THAT(ParseYamlDocuments(std::string(100, '[') + std::string(100, ']'), &d),
              HasSubstr("nesting deeper than 64 levels"));
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'k'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [*" + char(c - 1) + ", *" + char(c - 1) + ", *" +
            char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" +
            char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + "]\n";
  }
  EXPECT_THAT(ParseYamlDocuments(bomb, &d), HasSubstr("more values than"));
  EXPECT_THAT(ParseYamlDocuments("? [a]\n: b\n", &d), HasSubstr("not a scalar"));
  EXPECT_THAT(ParseYamlDocuments("a: [\n", &d), HasSubstr("invalid YAML at line"));
  EXPECT_THAT(ParseYamlDocuments("a: *nope\n", &d), HasSubstr("invalid YAML"));
}

TEST(YamlDocuments, JsonToYamlReadsBack) {
  rapidjson::Document json;
  json.Parse(R"({"pods":[{"pod":"a","expected":false,"since":3,"reason":"true","x":null}]})");
  rapidjson::Document back;
  ASSERT_EQ(ParseYamlDocuments(JsonToYaml(json), &back), "");
  ASSERT_EQ(back.Size(), 1u);
  EXPECT_TRUE(back[0] == json) << JsonToYaml(json);
}

}  // namespace
}  // namespace podwait
