// PodStore: upsert/delete/replace, the namespace/name index, change tracking and snapshots.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "exporter/state/event_store.h"
#include "exporter/state/pod_store.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

PodPtr MakePod(const std::string& ns, const std::string& name, const std::string& uid,
               const std::string& rv = "1") {
  auto p = std::make_shared<PodRecord>();
  p->namespace_ = ns;
  p->name = name;
  p->uid = uid;
  p->resource_version = rv;
  return p;
}

PodPtr ClusterPod(const std::string& name, const std::string& component, bool ready,
                  const std::string& rv = "1") {
  auto p = std::make_shared<PodRecord>();
  p->namespace_ = "demo";
  p->name = name;
  p->uid = "uid-" + name;
  p->resource_version = rv;
  p->cluster = "demo";
  p->component = component;
  PodCondition c;
  c.type = "Ready";
  c.status = ready ? ConditionStatus::kTrue : ConditionStatus::kFalse;
  p->mutable_detail().conditions.push_back(c);
  return p;
}

std::vector<std::string> Names(const std::vector<PodPtr>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->Key());
  return out;
}

// Cluster discovery and the Ready-PD-pod fallback follow the store's pods, without a scan.
TEST(PodStore, ClustersCountReadyPdPodsAsPodsChange) {
  PodStore store;
  store.Upsert(ClusterPod("demo-pd-0", "pd", true));
  store.Upsert(ClusterPod("demo-pd-1", "pd", false));
  store.Upsert(ClusterPod("demo-tikv-0", "tikv", true));
  auto no_cluster = MakePod("demo", "loner", "u-loner");
  store.Upsert(no_cluster);
  EXPECT_THAT(store.Clusters(), ElementsAre(Pair(ClusterKey{"demo", "demo"}, 1)));

  store.Upsert(ClusterPod("demo-pd-1", "pd", true, "2"));  // became Ready
  EXPECT_THAT(store.Clusters(), ElementsAre(Pair(ClusterKey{"demo", "demo"}, 2)));
  auto deleting = std::make_shared<PodRecord>(*ClusterPod("demo-pd-0", "pd", true, "3"));
  deleting->deleted = 5;  // a pod being deleted is not a Ready PD pod
  store.Upsert(deleting);
  EXPECT_THAT(store.Clusters(), ElementsAre(Pair(ClusterKey{"demo", "demo"}, 1)));
  store.Delete("", "demo", "demo-pd-1");
  EXPECT_THAT(store.Clusters(), ElementsAre(Pair(ClusterKey{"demo", "demo"}, 0)));
  store.Replace({no_cluster});
  EXPECT_THAT(store.Clusters(), IsEmpty());
}

TEST(PodStore, UpsertGetDelete) {
  PodStore store;
  store.Upsert(MakePod("a", "p1", "u1"));
  store.Upsert(MakePod("a", "p2", "u2"));
  EXPECT_EQ(store.Size(), 2u);
  EXPECT_EQ(store.Get("a", "p1")->uid, "u1");
  EXPECT_EQ(store.GetByUid("u2")->name, "p2");
  EXPECT_EQ(store.Get("a", "nope"), nullptr);
  EXPECT_TRUE(store.Delete("u1", "a", "p1"));
  EXPECT_FALSE(store.Delete("u1", "a", "p1"));
  EXPECT_FALSE(store.Contains("a", "p1"));
  EXPECT_TRUE(store.Delete("", "a", "p2"));  // by name when the uid is unknown
  EXPECT_EQ(store.Size(), 0u);
}

TEST(PodStore, ANewIncarnationOfANameReplacesTheOldOne) {
  PodStore store;
  store.Upsert(MakePod("a", "tikv-0", "old"));
  store.Upsert(MakePod("a", "tikv-0", "new"));
  EXPECT_EQ(store.Size(), 1u);
  EXPECT_EQ(store.Get("a", "tikv-0")->uid, "new");
  EXPECT_EQ(store.GetByUid("old"), nullptr);
  // A late delete of the old uid must not remove the new pod.
  EXPECT_FALSE(store.Delete("old", "a", "tikv-0"));
  EXPECT_TRUE(store.Contains("a", "tikv-0"));
}

TEST(PodStore, ReplaceDropsGhostsAndKeepsOtherNamespaces) {
  PodStore store;
  store.Upsert(MakePod("a", "keep", "u1", "1"));
  store.Upsert(MakePod("a", "ghost", "u2", "1"));
  store.Upsert(MakePod("b", "other", "u3", "1"));
  store.Replace({MakePod("a", "keep", "u1", "2"), MakePod("a", "new", "u4", "1"),
                 MakePod("b", "out-of-scope", "u5", "1")},
                "a");
  EXPECT_THAT(Names(store.Snapshot()), UnorderedElementsAre("a/keep", "a/new", "b/other"));
  EXPECT_EQ(store.Get("a", "keep")->resource_version, "2");
  store.Replace({MakePod("b", "only", "u6")});
  EXPECT_THAT(Names(store.Snapshot()), UnorderedElementsAre("b/only"));
}

TEST(PodStore, VersionsAndChangesSince) {
  PodStore store;
  EXPECT_EQ(store.Version(), 0u);
  store.Upsert(MakePod("a", "p1", "u1", "1"));
  store.Upsert(MakePod("a", "p2", "u2", "1"));
  const uint64_t v = store.Version();
  store.Upsert(MakePod("a", "p1", "u1", "1"));  // same resourceVersion: no change
  EXPECT_EQ(store.Version(), v);
  store.Upsert(MakePod("a", "p1", "u1", "2"));
  store.Delete("u2", "a", "p2");
  store.Upsert(MakePod("a", "p3", "u3", "1"));
  PodChanges c = store.ChangesSince(v);
  EXPECT_FALSE(c.full);
  EXPECT_EQ(c.version, store.Version());
  EXPECT_THAT(Names(c.upserted), UnorderedElementsAre("a/p1", "a/p3"));
  ASSERT_EQ(c.deleted.size(), 1u);
  EXPECT_EQ(c.deleted[0].uid, "u2");
  EXPECT_TRUE(store.ChangesSince(store.Version()).upserted.empty());
  PodChanges all = store.ChangesSince(0);
  EXPECT_TRUE(all.full);
  EXPECT_EQ(all.upserted.size(), 2u);
}

TEST(PodStore, TooOldAVersionGivesAFullAnswer) {
  PodStore store(nullptr, /*max_tombstones=*/2);
  store.Upsert(MakePod("a", "p1", "u1"));
  const uint64_t v = store.Version();
  for (int i = 0; i < 5; ++i) {
    store.Upsert(MakePod("a", "t" + std::to_string(i), "t" + std::to_string(i)));
    store.Delete("t" + std::to_string(i), "", "");
  }
  PodChanges c = store.ChangesSince(v);
  EXPECT_TRUE(c.full);
  EXPECT_THAT(Names(c.upserted), UnorderedElementsAre("a/p1"));
}

TEST(PodStore, DeletionsForgetThePodsEvents) {
  EventStore events;
  PodStore store(&events);
  EventRecord e;
  e.namespace_ = "a";
  e.pod_name = "p1";
  e.pod_uid = "u1";
  e.reason = "FailedScheduling";
  e.uid = "e1";
  events.Add(e);
  store.Upsert(MakePod("a", "p1", "u1"));
  store.Replace({});
  EXPECT_TRUE(events.EventsFor("a", "p1").empty());
}

TEST(PodStore, SnapshotsStayValidWhileTheStoreChanges) {
  PodStore store;
  for (int i = 0; i < 100; ++i)
    store.Upsert(MakePod("a", "p" + std::to_string(i), std::to_string(i)));
  std::vector<PodPtr> snap = store.Snapshot();
  std::thread writer([&] {
    for (int i = 0; i < 1000; ++i) {
      store.Upsert(MakePod("a", "p" + std::to_string(i % 100), std::to_string(i % 100),
                           std::to_string(i + 2)));
      if (i % 10 == 0) store.Delete(std::to_string(i % 100), "", "");
    }
  });
  size_t seen = 0;
  for (int round = 0; round < 50; ++round) {
    for (const auto& p : store.Snapshot()) seen += p->name.size() > 0;
  }
  writer.join();
  EXPECT_GT(seen, 0u);
  EXPECT_EQ(snap.size(), 100u);
  for (const auto& p : snap) EXPECT_EQ(p->resource_version, "1");
}

}  // namespace
}  // namespace podwait
