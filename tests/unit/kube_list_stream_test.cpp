// The list splitter (exporter/kube/list_stream.h): a list answer cut at every byte gives the same
// metadata and items; one item that is broken or too deep is its own piece (skipped alone by the
// reflector); a body that is not a list is an error. Pages are made up in the shape of
// kube-apiserver's list answers.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exporter/kube/list_stream.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;

struct Pieces {
  std::vector<std::string> metadata;
  std::vector<std::string> items;
  bool ok = true;
  bool finished = true;
};

Pieces Split(const std::string& body, size_t chunk, size_t max_item = 1 << 20,
             uint64_t* oversized = nullptr) {
  ListSplitter splitter(max_item);
  Pieces out;
  for (size_t at = 0; at < body.size() && out.ok; at += chunk) {
    out.ok = splitter.Feed(
        std::string_view(body).substr(at, chunk),
        [&](std::string& text) { out.metadata.push_back(text); },
        [&](std::string& text) { out.items.push_back(text); });
  }
  out.finished = out.ok && splitter.Finish();
  if (oversized != nullptr) *oversized = splitter.oversized();
  return out;
}

const std::string kPage =
    R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":"a\"b"},)"
    R"("items":[{"metadata":{"name":"a","annotations":{"x":"}],[{"}}},)"
    "\n"
    R"( {"metadata":{"name":"b"},"spec":{"v":[1,[2,{"c":"\\"}]]}}, 17, "s,]" , [1,2]]})";

TEST(ListSplitter, TheSamePiecesWhateverTheChunks) {
  for (size_t chunk : {1, 2, 3, 7, 64, 100000}) {
    const Pieces p = Split(kPage, chunk);
    EXPECT_TRUE(p.finished) << chunk;
    EXPECT_THAT(p.metadata, ElementsAre(R"({"resourceVersion":"10","continue":"a\"b"})")) << chunk;
    EXPECT_THAT(p.items, ElementsAre(R"({"metadata":{"name":"a","annotations":{"x":"}],[{"}}})",
                                     R"({"metadata":{"name":"b"},"spec":{"v":[1,[2,{"c":"\\"}]]}})",
                                     "17", R"("s,]" )", "[1,2]"))
        << chunk;
  }
}

// Metadata after the items, an empty list, and items: null.
TEST(ListSplitter, OtherShapesOfAList) {
  Pieces p = Split(R"({"items":[{"a":1}],"metadata":{"resourceVersion":"3"}})", 5);
  EXPECT_TRUE(p.finished);
  EXPECT_THAT(p.items, ElementsAre(R"({"a":1})"));
  EXPECT_THAT(p.metadata, ElementsAre(R"({"resourceVersion":"3"})"));
  p = Split(R"({"metadata":{},"items":[]})", 4);
  EXPECT_TRUE(p.finished);
  EXPECT_TRUE(p.items.empty());
  p = Split(R"({"metadata":{},"items":null})", 4);
  EXPECT_TRUE(p.finished);
  EXPECT_TRUE(p.items.empty());
}

// An item nested far past the JSON limit is one piece like any other (the parser refuses it
// alone); the splitter itself keeps no recursion.
TEST(ListSplitter, ADeepItemIsOnePiece) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const Pieces p = Split(R"({"metadata":{},"items":[{"a":1},)" + deep + R"(,{"b":2}]})", 4096);
  EXPECT_TRUE(p.finished);
  ASSERT_EQ(p.items.size(), 3u);
  EXPECT_EQ(p.items[1], deep);
}

TEST(ListSplitter, AnItemLongerThanTheLimitIsDroppedAndCounted) {
  uint64_t oversized = 0;
  const Pieces p = Split(R"({"items":[{"a":"0123456789"},{"b":2}]})", 3, 10, &oversized);
  EXPECT_TRUE(p.finished);
  EXPECT_THAT(p.items, ElementsAre(R"({"b":2})"));
  EXPECT_EQ(oversized, 1u);
}

TEST(ListSplitter, ABodyThatIsNotAListIsAnError) {
  EXPECT_FALSE(Split("<html>login</html>", 4).ok);
  EXPECT_FALSE(Split(R"([{"a":1}])", 4).ok);
  EXPECT_FALSE(Split(R"({"items":[{]}]})", 4).ok);          // brackets that do not match
  EXPECT_FALSE(Split(R"({"items":[{"a":1})", 4).finished);  // cut short
  EXPECT_FALSE(Split(R"({"items":[]} x)", 4).ok);           // bytes after the end
  EXPECT_FALSE(Split("", 4).finished);
}

}  // namespace
}  // namespace podwait
