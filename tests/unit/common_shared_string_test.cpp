#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "exporter/common/shared_string.h"

namespace podwait {
namespace {

TEST(SharedString, ReadsAsTheStringItWasGiven) {
  SharedString s("tidb-prod-cluster-one");
  EXPECT_EQ(s.str(), "tidb-prod-cluster-one");
  EXPECT_EQ(s, "tidb-prod-cluster-one");
  EXPECT_EQ(s, std::string("tidb-prod-cluster-one"));
  EXPECT_NE(s, "tidb");
  EXPECT_EQ(s.size(), 21u);
  EXPECT_EQ(s + "/" + "pod", "tidb-prod-cluster-one/pod");
  EXPECT_EQ(std::string("ns=") + s, "ns=tidb-prod-cluster-one");
  const std::string& as_string = s;
  EXPECT_EQ(as_string, "tidb-prod-cluster-one");
  EXPECT_EQ(sizeof(SharedString), sizeof(void*));
}

TEST(SharedString, TheEmptyStringHoldsNothing) {
  SharedString empty;
  SharedString assigned("");
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(assigned.empty());
  EXPECT_EQ(empty, assigned);
  EXPECT_EQ(empty, "");
  EXPECT_EQ(empty.str(), "");
  EXPECT_STREQ(empty.c_str(), "");
}

TEST(SharedString, EqualValuesAreOneCopy) {
  SharedString a("tikv");
  SharedString b(std::string("ti") + "kv");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.data(), b.data());  // the same bytes, not an equal copy
  SharedString c = a;
  EXPECT_EQ(c.data(), a.data());
  b = "pd";
  EXPECT_NE(a, b);
  EXPECT_EQ(b, "pd");
  EXPECT_LT(b, a);  // ordered as the strings are
  EXPECT_LT(a, "tikw");
}

TEST(SharedString, OrdersAndKeysMapsAsStrings) {
  std::map<SharedString, int> by_value;
  by_value[SharedString("b")] = 2;
  by_value[SharedString("a")] = 1;
  by_value[SharedString("c")] = 3;
  std::vector<std::string> order;
  for (const auto& [k, v] : by_value) order.push_back(k.str());
  EXPECT_THAT(order, ::testing::ElementsAre("a", "b", "c"));
}

// Values no record holds any more leave the table at a sweep (when it has doubled): a cluster
// whose namespaces come and go does not grow the table for ever.
TEST(SharedString, ValuesNoLongerHeldAreSwept) {
  {
    std::vector<SharedString> held;
    for (int i = 0; i < 5000; ++i) held.emplace_back("swept-namespace-" + std::to_string(i));
    EXPECT_GE(SharedString::TableSize(), 5000u);  // held values are never swept
  }
  SharedString kept("kept-namespace");
  // 5,000 more values, each dropped at once: the table doubles and is swept on the way.
  for (int i = 0; i < 5000; ++i) SharedString("later-namespace-" + std::to_string(i));
  EXPECT_LT(SharedString::TableSize(), 5000u);
  EXPECT_EQ(kept, "kept-namespace");  // a held value survives every sweep
  EXPECT_EQ(SharedString("kept-namespace").data(), kept.data());
}

// Many threads making, copying and dropping the same and different values (run under TSan).
TEST(SharedString, ThreadsShareValuesSafely) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      std::vector<SharedString> mine;
      for (int i = 0; i < 4000; ++i) {
        SharedString common("common-" + std::to_string(i % 7));
        SharedString own("thread-" + std::to_string(t) + "-" + std::to_string(i));
        mine.push_back(common);
        if (i % 3 == 0) mine.push_back(own);
        if (mine.size() > 100) mine.erase(mine.begin(), mine.begin() + 50);
        ASSERT_EQ(common, "common-" + std::to_string(i % 7));
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(SharedString("common-3"), "common-3");
}

}  // namespace
}  // namespace podwait
