// EventStore: bounded per pod, one per (reason, source), replace, forget and prune.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/state/event_store.h"

namespace podwait {
namespace {

EventRecord Ev(const std::string& pod, const std::string& reason, const std::string& uid,
               Timestamp last, const std::string& source = "default-scheduler",
               const std::string& pod_uid = "") {
  EventRecord e;
  e.namespace_ = "tidb";
  e.pod_name = pod;
  e.pod_uid = pod_uid.empty() ? "u-" + pod : pod_uid;
  e.reason = reason;
  e.uid = uid;
  e.source = source;
  e.first = last;
  e.last = last;
  return e;
}

TEST(EventStore, KeepsTheLatestPerReasonAndSource) {
  EventStore store;
  store.Add(Ev("p", "FailedScheduling", "e1", 100));
  store.Add(Ev("p", "FailedScheduling", "e2", 200));
  store.Add(Ev("p", "FailedScheduling", "e0", 50));  // older than what we have: ignored
  store.Add(Ev("p", "FailedScheduling", "k1", 150, "karpenter"));
  auto events = store.EventsFor("tidb", "p");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].uid, "e2");  // newest first
  EXPECT_EQ(events[1].uid, "k1");
  // An update of the same event (count and lastTimestamp grow).
  EventRecord again = Ev("p", "FailedScheduling", "e2", 300);
  again.count = 5;
  store.Add(again);
  EXPECT_EQ(store.EventsFor("tidb", "p")[0].count, 5);
  EXPECT_EQ(store.EventCount(), 2u);
}

TEST(EventStore, BoundedPerPodDroppingTheOldest) {
  EventStoreOptions opts;
  opts.max_per_pod = 3;
  EventStore store(opts);
  for (int i = 0; i < 6; ++i) {
    store.Add(Ev("p", "Reason" + std::to_string(i), "e" + std::to_string(i), 100 + i));
  }
  auto events = store.EventsFor("tidb", "p");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].reason, "Reason5");
  EXPECT_EQ(events[2].reason, "Reason3");
  store.Add(Ev("p", "Ancient", "old", 1));
  EXPECT_EQ(store.EventsFor("tidb", "p").size(), 3u);
  EXPECT_EQ(store.EventsFor("tidb", "p")[2].reason, "Reason3");
  EXPECT_EQ(store.EventCount(), 3u);
}

TEST(EventStore, BoundedInPods) {
  EventStoreOptions opts;
  opts.max_pods = 2;
  EventStore store(opts);
  store.Add(Ev("a", "Scheduled", "1", 1));
  store.Add(Ev("b", "Scheduled", "2", 1));
  store.Add(Ev("c", "Scheduled", "3", 1));
  EXPECT_EQ(store.PodCount(), 2u);
  EXPECT_EQ(store.dropped(), 1u);
}

TEST(EventStore, EventsOfAnEarlierPodWithTheSameNameAreLeftOut) {
  EventStore store;
  store.Add(Ev("tikv-0", "FailedScheduling", "old", 100, "default-scheduler", "uid-old"));
  store.Add(Ev("tikv-0", "TriggeredScaleUp", "new", 200, "cluster-autoscaler", "uid-new"));
  EXPECT_EQ(store.EventsFor("tidb", "tikv-0").size(), 2u);
  auto mine = store.EventsFor("tidb", "tikv-0", "uid-new");
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].uid, "new");
  store.ForgetPod("tidb", "tikv-0", "uid-old");
  EXPECT_EQ(store.EventsFor("tidb", "tikv-0").size(), 1u);
  store.ForgetPod("tidb", "tikv-0");
  EXPECT_EQ(store.PodCount(), 0u);
  EXPECT_EQ(store.EventCount(), 0u);
}

TEST(EventStore, RemoveAndReplace) {
  EventStore store;
  store.Add(Ev("p", "FailedScheduling", "e1", 100));
  store.Add(Ev("q", "Scheduled", "e2", 100));
  EventRecord other = Ev("x", "Scheduled", "e3", 100);
  other.namespace_ = "other";
  store.Add(other);
  store.Remove(Ev("p", "FailedScheduling", "e1", 100));
  EXPECT_TRUE(store.EventsFor("tidb", "p").empty());
  const uint64_t v = store.Version();
  store.Replace({Ev("r", "Nominated", "e4", 100)}, "tidb");
  EXPECT_GT(store.Version(), v);
  EXPECT_TRUE(store.EventsFor("tidb", "q").empty());
  EXPECT_EQ(store.EventsFor("tidb", "r").size(), 1u);
  EXPECT_EQ(store.EventsFor("other", "x").size(), 1u);
  EXPECT_EQ(store.EventCount(), 2u);
}

TEST(EventStore, RemembersTheLastEventOfEachAutoscaler) {
  EventStore store;
  EXPECT_EQ(store.LastAutoscalerEvent(AutoscalerKind::kClusterAutoscaler), 0);
  store.Add(Ev("a", "FailedScheduling", "1", 100));
  EXPECT_EQ(store.LastAutoscalerEvent(AutoscalerKind::kClusterAutoscaler), 0);
  store.Add(Ev("a", "TriggeredScaleUp", "2", 200, "cluster-autoscaler"));
  store.Add(Ev("b", "NotTriggerScaleUp", "3", 150, "cluster-autoscaler"));
  store.Add(Ev("c", "Nominated", "4", 300, "karpenter"));
  EXPECT_EQ(store.LastAutoscalerEvent(AutoscalerKind::kClusterAutoscaler), 200);
  EXPECT_EQ(store.LastAutoscalerEvent(AutoscalerKind::kKarpenter), 300);
  // A removed event (its TTL passed) was still seen.
  store.Remove(Ev("a", "TriggeredScaleUp", "2", 200, "cluster-autoscaler"));
  EXPECT_EQ(store.LastAutoscalerEvent(AutoscalerKind::kClusterAutoscaler), 200);
}

TEST(EventStore, PruneDropsOldEventsOfUnknownPods) {
  EventStoreOptions opts;
  opts.orphan_grace = 5 * kMinute;
  EventStore store(opts);
  const Timestamp now = 1'700'000'000'000;
  store.Add(Ev("known", "Scheduled", "1", now - 10 * kMinute));
  store.Add(Ev("gone", "Scheduled", "2", now - 10 * kMinute));
  store.Add(Ev("early", "Scheduled", "3", now - kMinute));
  const size_t pruned =
      store.Prune([](std::string_view, std::string_view name) { return name == "known"; }, now);
  EXPECT_EQ(pruned, 1u);
  EXPECT_EQ(store.EventsFor("tidb", "known").size(), 1u);
  EXPECT_TRUE(store.EventsFor("tidb", "gone").empty());
  EXPECT_EQ(store.EventsFor("tidb", "early").size(), 1u);
}

}  // namespace
}  // namespace podwait
