// TidbClusterStore: per-namespace lists replace only their namespace; the listener always gets
// complete sets.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/state/tidbcluster_store.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;

TidbClusterStatus Tc(const std::string& ns, const std::string& name) {
  TidbClusterStatus tc;
  tc.key = ClusterKey{ns, name};
  return tc;
}

std::vector<std::string> Keys(const std::vector<TidbClusterStatus>& all) {
  std::vector<std::string> out;
  for (const auto& tc : all) out.push_back(tc.key.Key());
  return out;
}

TEST(TidbClusterStore, NamespaceListsReplaceOnlyTheirNamespace) {
  TidbClusterStore store;
  std::vector<std::vector<std::string>> replaced;
  std::vector<std::string> log;
  store.SetListener(TidbClusterListener{
      [&](const std::vector<TidbClusterStatus>& all) { replaced.push_back(Keys(all)); },
      [&](const TidbClusterStatus& tc) { log.push_back("upsert " + tc.key.Key()); },
      [&](const ClusterKey& k) { log.push_back("remove " + k.Key()); }});

  store.Replace("a", {Tc("a", "one"), Tc("a", "two")});
  store.Replace("b", {Tc("b", "three")});
  // A relist of namespace a keeps b's.
  store.Replace("a", {Tc("a", "two")});
  ASSERT_EQ(replaced.size(), 3u);
  EXPECT_THAT(replaced[1], ElementsAre("a/one", "a/two", "b/three"));
  EXPECT_THAT(replaced[2], ElementsAre("a/two", "b/three"));

  store.Upsert(Tc("b", "four"));
  store.Remove(ClusterKey{"a", "two"});
  EXPECT_THAT(log, ElementsAre("upsert b/four", "remove a/two"));
  EXPECT_THAT(Keys(store.Snapshot()), ElementsAre("b/four", "b/three"));

  // One reflector over every namespace: its list is the complete set.
  store.Replace("", {Tc("c", "five")});
  EXPECT_THAT(replaced.back(), ElementsAre("c/five"));
  EXPECT_EQ(store.Size(), 1u);
}

TEST(TidbClusterStore, ObjectsOfOtherNamespacesInAScopedListAreIgnored) {
  TidbClusterStore store;
  store.Replace("a", {Tc("a", "one"), Tc("b", "stray")});
  EXPECT_THAT(Keys(store.Snapshot()), ElementsAre("a/one"));
}

}  // namespace
}  // namespace podwait
