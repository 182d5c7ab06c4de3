// The network-free pieces of list/watch: line splitting, watch event decoding, Status, URLs and
// backoff. Payloads are literal watch lines in the shape the API server writes (made up, following
// the Kubernetes watch protocol: one {"type":...,"object":...} JSON object per line).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exporter/kube/watch_protocol.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> SplitAll(LineSplitter& s, const std::vector<std::string>& chunks) {
  std::vector<std::string> lines;
  for (const auto& c : chunks) {
    s.Feed(c, [&](std::string_view line) { lines.emplace_back(line); });
  }
  return lines;
}

TEST(LineSplitter, WholeLinesInOneChunk) {
  LineSplitter s;
  EXPECT_THAT(SplitAll(s, {"{\"a\":1}\n{\"b\":2}\n"}), ElementsAre("{\"a\":1}", "{\"b\":2}"));
  EXPECT_EQ(s.pending(), 0u);
}

TEST(LineSplitter, LinesSplitAcrossChunkBoundaries) {
  LineSplitter s;
  EXPECT_THAT(SplitAll(s, {"{\"ty", "pe\":\"ADDED\"}\n{\"x\"", ":2", "}", "\n"}),
              ElementsAre("{\"type\":\"ADDED\"}", "{\"x\":2}"));
}

TEST(LineSplitter, EveryByteItsOwnChunk) {
  const std::string stream = "{\"a\":1}\r\n\n{\"bb\":22}\n{\"c\":3}\n";
  LineSplitter s;
  std::vector<std::string> chunks;
  for (char c : stream) chunks.emplace_back(1, c);
  EXPECT_THAT(SplitAll(s, chunks), ElementsAre("{\"a\":1}", "{\"bb\":22}", "{\"c\":3}"));
}

TEST(LineSplitter, HoldsBackAnUnfinishedLineAndResetDropsIt) {
  LineSplitter s;
  EXPECT_THAT(SplitAll(s, {"{\"a\":1}\n{\"half"}), ElementsAre("{\"a\":1}"));
  EXPECT_EQ(s.pending(), 6u);
  s.Reset();
  EXPECT_EQ(s.pending(), 0u);
  EXPECT_THAT(SplitAll(s, {"{\"b\":2}\n"}), ElementsAre("{\"b\":2}"));
}

TEST(LineSplitter, OversizedLinesAreSkippedWithoutBuffering) {
  LineSplitter s(16);
  const std::string big(40, 'x');
  // One oversized line inside a chunk, one spread over chunks; the lines around survive.
  auto lines =
      SplitAll(s, {"ok1\n" + big + "\nok2\n", big.substr(0, 10), big.substr(10), big + "\nok3\n"});
  EXPECT_THAT(lines, ElementsAre("ok1", "ok2", "ok3"));
  EXPECT_EQ(s.oversized(), 2u);
  EXPECT_LE(s.pending(), 16u);
}

TEST(WatchEvent, DecodesTypesAndObject) {
  rapidjson::Document doc;
  Result<WatchEvent> ev = ParseWatchEvent(
      R"({"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"42"}}})",
      &doc);
  ASSERT_TRUE(ev.ok()) << ev.error;
  EXPECT_EQ(ev->type, WatchEventType::kModified);
  EXPECT_EQ(ObjectResourceVersion(*ev->object), "42");
  EXPECT_STREQ(WatchEventTypeName(ev->type), "MODIFIED");
}

TEST(WatchEvent, BookmarkCarriesOnlyAResourceVersion) {
  rapidjson::Document doc;
  Result<WatchEvent> ev = ParseWatchEvent(
      R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12746","annotations":{"k8s.io/initial-events-end":"true"}}}})",
      &doc);
  ASSERT_TRUE(ev.ok()) << ev.error;
  EXPECT_EQ(ev->type, WatchEventType::kBookmark);
  EXPECT_EQ(ObjectResourceVersion(*ev->object), "12746");
}

TEST(WatchEvent, MalformedLinesAreErrorsNotCrashes) {
  rapidjson::Document doc;
  for (const char* bad : {"{\"type\":\"ADDED\",\"object\":{\"metadata\":", "not json", "[1,2]",
                          R"({"type":"SURPRISE","object":{}})", R"({"type":"ADDED"})",
                          R"({"type":"ADDED","object":"pod"})", ""}) {
    Result<WatchEvent> ev = ParseWatchEvent(bad, &doc);
    EXPECT_FALSE(ev.ok()) << bad;
    EXPECT_FALSE(ev.error.empty());
  }
}

// Defect 2: a watch line whose annotation nests 1,000,000 arrays killed the exporter.
TEST(WatchEvent, DeeplyNestedLineIsAnErrorNotACrash) {
  rapidjson::Document doc;
  const std::string line =
      R"({"type":"ADDED","object":{"metadata":{"name":"a","annotations":{"x":)" +
      std::string(1'000'000, '[') + std::string(1'000'000, ']') + "}}}}";
  Result<WatchEvent> ev = ParseWatchEvent(line, &doc);
  EXPECT_FALSE(ev.ok());
  EXPECT_THAT(ev.error, HasSubstr("nesting deeper than 64 levels"));
  // The document is reusable afterwards.
  ev = ParseWatchEvent(R"({"type":"DELETED","object":{"metadata":{}}})", &doc);
  ASSERT_TRUE(ev.ok()) << ev.error;
  EXPECT_EQ(ev->type, WatchEventType::kDeleted);
}

TEST(WatchEvent, ErrorEventWith410IsExpired) {
  rapidjson::Document doc;
  // What kube-apiserver sends when a watch starts from a compacted resourceVersion.
  Result<WatchEvent> ev = ParseWatchEvent(
      R"j({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (34567)","reason":"Expired","code":410}})j",
      &doc);
  ASSERT_TRUE(ev.ok()) << ev.error;
  ASSERT_EQ(ev->type, WatchEventType::kError);
  const ApiStatus st = ParseApiStatus(*ev->object);
  EXPECT_EQ(st.code, 410);
  EXPECT_EQ(st.reason, "Expired");
  EXPECT_TRUE(IsResourceExpired(st));
}

TEST(WatchEvent, ExpiredByReasonOrCodeAlone) {
  EXPECT_TRUE(IsResourceExpired({410, "", ""}));
  EXPECT_TRUE(IsResourceExpired({0, "Expired", ""}));
  EXPECT_TRUE(IsResourceExpired({0, "Gone", ""}));
  EXPECT_FALSE(IsResourceExpired({500, "InternalError", ""}));
  EXPECT_FALSE(IsResourceExpired({429, "TooManyRequests", ""}));
}

TEST(ApiStatus, FromBodyAndGarbage) {
  ApiStatus st = ParseApiStatusBody(
      R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods is forbidden","reason":"Forbidden","code":403})");
  EXPECT_EQ(st.code, 403);
  EXPECT_EQ(st.reason, "Forbidden");
  EXPECT_EQ(ParseApiStatusBody("<html>bad gateway</html>").code, 0);
}

TEST(Urls, EncodeSelectorsAndBuildPaths) {
  EXPECT_EQ(UrlEncode("app.kubernetes.io/managed-by=tidb-operator"),
            "app.kubernetes.io%2Fmanaged-by%3Dtidb-operator");
  EXPECT_EQ(UrlEncode("a in (x,y),!b"), "a%20in%20%28x%2Cy%29%2C%21b");
  EXPECT_EQ(ResourcePath("/api/v1", "", "pods"), "/api/v1/pods");
  EXPECT_EQ(ResourcePath("/apis/pingcap.com/v1alpha1", "tidb", "tidbclusters"),
            "/apis/pingcap.com/v1alpha1/namespaces/tidb/tidbclusters");
}

TEST(Backoff, GrowsExponentiallyWithJitterUpToTheCap) {
  Backoff b(100, 1000, 7);
  const int64_t ceilings[] = {100, 200, 400, 800, 1000, 1000, 1000};
  for (int64_t ceiling : ceilings) {
    const int64_t d = b.Next();
    EXPECT_GE(d, ceiling / 2);
    EXPECT_LE(d, ceiling);
  }
  b.Reset();
  const int64_t d = b.Next();
  EXPECT_GE(d, 50);
  EXPECT_LE(d, 100);
}

TEST(Backoff, JitterSpreadsDelays) {
  Backoff a(1000, 1000, 1), b(1000, 1000, 2);
  int differ = 0;
  for (int i = 0; i < 20; ++i) differ += a.Next() != b.Next();
  EXPECT_GT(differ, 10);
}

TEST(Backoff, RetryAfterIsALowerBoundWithACap) {
  Backoff b(100, 1000, 3, /*max_retry_after_ms=*/60'000);
  EXPECT_GE(b.Next(5), 5000);
  EXPECT_LE(b.Next(5), 5000);  // the exponential part is still below 5 s
  EXPECT_EQ(b.Next(3600), 60'000);
  EXPECT_LE(b.Next(0), 1000);
}

}  // namespace
}  // namespace podwait
