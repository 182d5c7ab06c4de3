// The one JSON parsing helper: its nesting limit (a document nested too deep is an error, never
// a stack overflow), in-situ parsing, document reuse, and the typed accessors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exporter/common/json.h"
#include "tests/support/process.h"
#include "tests/support/yaml_json.h"

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

std::string Serialize(const rapidjson::Value& v) { return testing::JsonText(v); }

// A pod as an API server returns it (made up; tests/fixtures/v2/README.md), in a list of three.
std::string PodList() {
  const std::string pod = testing::ReadFile(
      std::string(PODWAIT_SOURCE_DIR) + "/tests/fixtures/v2/pods/tikv-crashloop-no-pd-leader.json");
  return R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[)" +
         pod + "," + pod + "," + pod + "]}";
}

TEST(JsonSkip, TheSkippedSubtreeIsGoneAndTheRestIsAFullParse) {
  const std::string text = PodList();
  auto full = json::Parse(text);
  ASSERT_TRUE(full.ok()) << full.error;
  ASSERT_NE(json::Member(json::Object(&(*full.value)["items"][0], "metadata"), "managedFields"),
            nullptr);
  // What the skipping parse must give: the full parse with those members removed.
  rapidjson::Document expected;
  expected.CopyFrom(*full.value, expected.GetAllocator());
  for (auto& item : expected["items"].GetArray()) {
    // EraseMember keeps the order of the other members.
    item["metadata"].EraseMember(item["metadata"].FindMember("managedFields"));
    item["spec"].EraseMember(item["spec"].FindMember("containers"));
    item["spec"].EraseMember(item["spec"].FindMember("volumes"));
  }
  const json::SkipPaths skip(
      {"metadata.managedFields", "spec.containers", "spec.volumes", "status.nothing.here"},
      "items.[]");
  rapidjson::Document doc;
  ASSERT_EQ(json::ParseInto(text, &doc, skip), "");
  EXPECT_TRUE(Serialize(doc) == Serialize(expected));  // (EXPECT_EQ would print 20 KB)
  EXPECT_TRUE(doc == expected);
  EXPECT_EQ(doc["items"][1]["metadata"].MemberCount(),
            expected["items"][1]["metadata"].MemberCount());
  // In situ, the same.
  std::string buffer = text;
  rapidjson::Document insitu;
  ASSERT_EQ(json::ParseInsitu(buffer.data(), &insitu, skip), "");
  EXPECT_TRUE(Serialize(insitu) == Serialize(expected));
  // Without paths (or with paths that match nothing), exactly the full parse.
  ASSERT_EQ(json::ParseInto(text, &doc, json::SkipPaths()), "");
  EXPECT_TRUE(Serialize(doc) == Serialize(*full.value));
  ASSERT_EQ(json::ParseInto(text, &doc, json::SkipPaths({"metadata.managedFields"}, "object")), "");
  EXPECT_TRUE(Serialize(doc) == Serialize(*full.value));
}

TEST(JsonSkip, PathsReachIntoArraysAndScalars) {
  const std::string text =
      R"({"a":[{"x":1,"y":{"z":[1,2]}},{"y":2,"x":[3]},7,{"x":null}],"x":"top","b":{"x":[[]]}})";
  rapidjson::Document doc;
  ASSERT_EQ(json::ParseInto(text, &doc, json::SkipPaths({"a.[].x", "b"})), "");
  EXPECT_EQ(Serialize(doc), R"({"a":[{"y":{"z":[1,2]}},{"y":2},7,{}],"x":"top"})");
  // Every element of an array: the array stays, empty.
  ASSERT_EQ(json::ParseInto(text, &doc, json::SkipPaths({"a.[]"})), "");
  EXPECT_EQ(Serialize(doc), R"({"a":[],"x":"top","b":{"x":[[]]}})");
  // A shorter path wins over a longer one under it, in either order.
  ASSERT_EQ(json::ParseInto(text, &doc, json::SkipPaths({"a.[].y.z", "a"})), "");
  EXPECT_EQ(Serialize(doc), R"({"x":"top","b":{"x":[[]]}})");
  ASSERT_EQ(json::ParseInto(text, &doc, json::SkipPaths({"a", "a.[].y.z"})), "");
  EXPECT_EQ(Serialize(doc), R"({"x":"top","b":{"x":[[]]}})");
  // A path through a member that is not an object or array skips nothing.
  ASSERT_EQ(json::ParseInto(text, &doc, json::SkipPaths({"x.y", "a.[].y.z.[]"})), "");
  EXPECT_EQ(
      Serialize(doc),
      R"({"a":[{"x":1,"y":{"z":[]}},{"y":2,"x":[3]},7,{"x":null}],"x":"top","b":{"x":[[]]}})");
  // Every member of a repeated key is skipped.
  ASSERT_EQ(json::ParseInto(R"({"k":1,"k":{"a":2},"j":3})", &doc, json::SkipPaths({"k"})), "");
  EXPECT_EQ(Serialize(doc), R"({"j":3})");
}

TEST(JsonSkip, TheDepthLimitCountsSkippedSubtrees) {
  const json::SkipPaths skip({"metadata.managedFields"});
  const std::string at_limit =
      R"({"metadata":{"managedFields":)" + Nested(json::kMaxDepth - 2) + "}}";
  rapidjson::Document doc;
  ASSERT_EQ(json::ParseInto(at_limit, &doc, skip), "");
  EXPECT_EQ(Serialize(doc), R"({"metadata":{}})");
  const std::string deep = R"({"metadata":{"managedFields":)" + Nested(1'000'000) + "}}";
  EXPECT_THAT(json::ParseInto(deep, &doc, skip), HasSubstr("nesting deeper than 64 levels"));
  EXPECT_TRUE(doc.IsNull());
  std::string insitu = deep;
  EXPECT_THAT(json::ParseInsitu(insitu.data(), &doc, skip), HasSubstr("nesting deeper"));
  EXPECT_THAT(json::ParseInto(R"({"other":)" + Nested(json::kMaxDepth) + "}", &doc, skip),
              HasSubstr("nesting deeper"));
}

TEST(JsonSkip, MalformedInsideASkippedSubtreeIsStillAnError) {
  const json::SkipPaths skip({"metadata.managedFields"});
  rapidjson::Document doc;
  EXPECT_EQ(json::ParseInto(R"({"metadata":{"managedFields":[{"a": tru}]}})", &doc, skip),
            "invalid JSON at offset 39: Invalid value.");
  EXPECT_TRUE(doc.IsNull());
  EXPECT_THAT(json::ParseInto(R"({"metadata":{"managedFields":[1,2})", &doc, skip),
              HasSubstr("invalid JSON at offset"));
  EXPECT_THAT(json::ParseInto(R"({"metadata":{"managedFields":"\x"}})", &doc, skip),
              HasSubstr("Invalid escape character in string"));
  EXPECT_THAT(json::ParseInto(R"({"metadata":{"name":"a"}} {})", &doc, skip),
              HasSubstr("not be followed by other values"));
  // The document is reusable after an error.
  ASSERT_EQ(json::ParseInto(R"({"metadata":{"managedFields":[],"name":"a"}})", &doc, skip), "");
  EXPECT_EQ(Serialize(doc), R"({"metadata":{"name":"a"}})");
}

TEST(JsonPeek, ReadsOneMemberOfTheMetadataAndStopsBeforeTheItems) {
  const std::string page =
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7",)"
      R"("labels":{"continue":"no"},"continue":"tok+1/=","remainingItemCount":3},"items":[)";
  // The items are never read: the page is cut off (and would be malformed) after "items":[.
  EXPECT_EQ(json::PeekMemberString(page, "metadata", "continue"), "tok+1/=");
  EXPECT_EQ(json::PeekMemberString(page, "metadata", "resourceVersion"), "7");
  EXPECT_EQ(json::PeekMemberString(page, "metadata", "selfLink"), "");  // no such member
  EXPECT_EQ(json::PeekMemberString(R"({"metadata":{"continue":5}})", "metadata", "continue"), "");
  EXPECT_EQ(json::PeekMemberString(R"({"metadata":null})", "metadata", "continue"), "");
  // metadata after a larger member, or not there: not peeked.
  EXPECT_EQ(
      json::PeekMemberString(R"({"items":[],"metadata":{"continue":"t"}})", "metadata", "continue"),
      std::nullopt);
  EXPECT_EQ(json::PeekMemberString(R"({"kind":"PodList"})", "metadata", "continue"), std::nullopt);
  EXPECT_EQ(json::PeekMemberString("[1]", "metadata", "continue"), std::nullopt);
  EXPECT_EQ(json::PeekMemberString("\"metadata\"", "metadata", "continue"), std::nullopt);
  EXPECT_EQ(json::PeekMemberString(R"({"kind": tru)", "metadata", "continue"), std::nullopt);
  EXPECT_EQ(json::PeekMemberString(R"({"metadata":{"continue":"t")", "metadata", "continue"),
            std::nullopt);  // cut off inside metadata
  EXPECT_EQ(json::PeekMemberString(R"({"metadata":{"a":)" + Nested(1'000'000) + "}}", "metadata",
                                   "continue"),
            std::nullopt);  // the nesting limit
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
