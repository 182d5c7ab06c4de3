// explain's reader of kubectl's YAML dumps (-o yaml).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "exporter/explain/yaml_json.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

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
