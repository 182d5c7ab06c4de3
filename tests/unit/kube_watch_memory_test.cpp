// Memory of a long watch stream: the reflector decodes every watch line into one reused
// rapidjson::Document, whose memory pool only grows unless it is cleared. The lines are made up,
// in the shape of the API server's pod watch events (one {"type":...,"object":...} per line).

#include <gtest/gtest.h>

#include <string>

#include "exporter/kube/watch_protocol.h"

namespace podwait {
namespace {

std::string PodEventLine(int i) {
  const std::string n = std::to_string(i);
  return R"({"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"tc-tikv-)" +
         n + R"(","namespace":"ns","uid":"uid-)" + n + R"(","resourceVersion":")" + n +
         R"(","labels":{"app.kubernetes.io/component":"tikv","app.kubernetes.io/instance":"tc"}},)" +
         R"("status":{"phase":"Running","conditions":[{"type":"Ready","status":"True",)" +
         R"("lastTransitionTime":"2024-01-01T00:00:00Z","message":")" + std::string(2000, 'x') +
         R"("}]}}})";
}

TEST(WatchEventMemory, AReusedDocumentDoesNotKeepEveryEvent) {
  rapidjson::Document doc;
  Result<WatchEvent> ev = ParseWatchEvent(PodEventLine(0), &doc);
  ASSERT_TRUE(ev.ok()) << ev.error;
  const size_t after_one = doc.GetAllocator().Capacity();
  for (int i = 1; i <= 5000; ++i) {
    ev = ParseWatchEvent(PodEventLine(i), &doc);
    ASSERT_TRUE(ev.ok()) << ev.error;
  }
  // 5,000 events of ~2.5 KB would need > 12 MB if the pool kept them all.
  EXPECT_LE(doc.GetAllocator().Capacity(), 2 * after_one);
  EXPECT_EQ(ObjectResourceVersion(*ev->object), "5000");
}

TEST(WatchEventMemory, AFailedParseLeavesTheDocumentUsable) {
  rapidjson::Document doc;
  ASSERT_TRUE(ParseWatchEvent(PodEventLine(1), &doc).ok());
  EXPECT_FALSE(ParseWatchEvent(R"({"type":"MODIFIED","object":{"kind":)", &doc).ok());
  Result<WatchEvent> ev = ParseWatchEvent(PodEventLine(2), &doc);
  ASSERT_TRUE(ev.ok()) << ev.error;
  EXPECT_EQ(ObjectResourceVersion(*ev->object), "2");
}

}  // namespace
}  // namespace podwait
