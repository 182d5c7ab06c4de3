// The one JSON parsing helper: its nesting limit (a document nested too deep is an error, never
// a stack overflow), in-situ parsing, document reuse, and the typed accessors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "exporter/common/json.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;

std::string Nested(int depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

std::string NestedObjects(int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += "{\"a\":";
  s += "1";
  s += std::string(depth, '}');
  return s;
}

TEST(JsonParse, AcceptsADocumentAtTheLimit) {
  auto arrays = json::Parse(Nested(json::kMaxDepth));
  ASSERT_TRUE(arrays.ok()) << arrays.error;
  EXPECT_TRUE(arrays.value->IsArray());
  auto objects = json::Parse(NestedObjects(json::kMaxDepth));
  ASSERT_TRUE(objects.ok()) << objects.error;
  EXPECT_TRUE(objects.value->IsObject());
}

TEST(JsonParse, RefusesOneLevelMore) {
  auto r = json::Parse(Nested(json::kMaxDepth + 1));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error, "nesting deeper than 64 levels at offset 65");  // just after the 65th [
  EXPECT_FALSE(json::Parse(NestedObjects(json::kMaxDepth + 1)).ok());
}

// 1,000,000 levels (2 MB): the recursive parser overflowed the stack on this.
TEST(JsonParse, AMillionLevelsIsAnErrorNotACrash) {
  const std::string deep = Nested(1'000'000);
  auto r = json::Parse(deep);
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.error, HasSubstr("nesting deeper than 64 levels"));
  // Deep inside an otherwise ordinary object, as an annotation value would be.
  const std::string pod =
      R"({"metadata":{"name":"a","annotations":{"x":)" + Nested(1'000'000) + "}}}";
  EXPECT_THAT(json::Parse(pod).error, HasSubstr("nesting deeper"));
  std::string insitu = deep;
  rapidjson::Document doc;
  EXPECT_THAT(json::ParseInsitu(insitu.data(), &doc), HasSubstr("nesting deeper"));
  EXPECT_TRUE(doc.IsNull());
}

TEST(JsonParse, BracketsInsideStringsDoNotCount) {
  const std::string text = R"({"a":")" + Nested(1000) + R"(","b":"\"[[[["})";
  auto r = json::Parse(text);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(json::Str(&*r.value, "a").size(), 2000u);
}

TEST(JsonParse, SyntaxErrorsSayWhereAndWhat) {
  EXPECT_EQ(json::Parse(R"({"a": tru})").error, "invalid JSON at offset 9: Invalid value.");
  EXPECT_EQ(json::Parse("").error, "invalid JSON at offset 0: The document is empty.");
  EXPECT_THAT(json::Parse("[1] [2]").error, HasSubstr("not be followed by other values"));
}

TEST(JsonParse, IntoReusesTheDocument) {
  rapidjson::Document doc;
  ASSERT_EQ(json::ParseInto(R"({"a":"first"})", &doc), "");
  EXPECT_EQ(json::Str(&doc, "a"), "first");
  ASSERT_EQ(json::ParseInto(R"({"b":2})", &doc), "");
  EXPECT_EQ(json::Member(doc, "a"), nullptr);
  EXPECT_EQ(json::Int(&doc, "b"), 2);
  EXPECT_NE(json::ParseInto("{", &doc), "");
  EXPECT_TRUE(doc.IsNull());
}

TEST(JsonParse, InsituStringsPointIntoTheBuffer) {
  std::string text = R"({"items":[{"name":"x\ny"}]})";
  rapidjson::Document doc;
  ASSERT_EQ(json::ParseInsitu(text.data(), &doc), "");
  const rapidjson::Value* items = json::Array(&doc, "items");
  ASSERT_NE(items, nullptr);
  const std::string_view name = json::Str(&(*items)[0], "name");
  EXPECT_EQ(name, "x\ny");
  EXPECT_GE(name.data(), text.data());
  EXPECT_LT(name.data(), text.data() + text.size());
}

TEST(JsonAccessors, WrongTypesReadAsAbsent) {
  auto r = json::Parse(R"({"s":1,"i":"2","b":"true","o":[],"a":{},"t":"yesterday"})");
  ASSERT_TRUE(r.ok());
  const rapidjson::Value* v = &*r.value;
  EXPECT_EQ(json::Str(v, "s"), "");
  EXPECT_EQ(json::Int(v, "i", -1), -1);
  EXPECT_TRUE(json::Bool(v, "b", true));
  EXPECT_EQ(json::Object(v, "o"), nullptr);
  EXPECT_EQ(json::Array(v, "a"), nullptr);
  EXPECT_EQ(json::Time(v, "t"), 0);
  // Not an object at all: every accessor is absent, none crashes.
  auto one = json::Parse("1");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(json::Member(*one.value, "kind"), nullptr);
  EXPECT_EQ(json::Str(&*one.value, "kind"), "");
  EXPECT_EQ(json::Str(*one.value), "");
  EXPECT_EQ(json::Member(nullptr, "kind"), nullptr);
}

}  // namespace
}  // namespace podwait
