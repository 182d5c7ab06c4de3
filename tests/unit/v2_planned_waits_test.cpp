// Planned waits of tidb-operator v2 (exporter/classify/README.md, "Planned waits"), from the
// made-up v2 fixtures (tests/fixtures/v2/objects/, README.md there names the source file each
// follows) through the parser, the v2 store, the dependency store and the metrics: a paused,
// suspending or suspended cluster, a PD mode switch, a TiKV's leaders evicted, a store offline.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/common/time_format.h"
#include "exporter/metrics/dependency_collector.h"
#include "exporter/model/waiting.h"
#include "exporter/sources/v2_objects.h"
#include "exporter/state/dependency_store.h"
#include "exporter/state/v2_store.h"
#include "tests/support/yaml_json.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Timestamp T(const char* s) { return ParseRfc3339(s).value(); }

v2::Cluster Cluster(const std::string& file) {
  auto c = ParseV2Cluster(testing::LoadJsonFile("tests/fixtures/v2/objects/" + file));
  EXPECT_TRUE(c.ok()) << c.error;
  return c.ok() ? *c.value : v2::Cluster{};
}
v2::Instance Instance(const std::string& file) {
  auto i = ParseV2Instance(testing::LoadJsonFile("tests/fixtures/v2/objects/" + file));
  EXPECT_TRUE(i.ok()) << i.error;
  return i.ok() ? *i.value : v2::Instance{};
}
v2::Group Group(const std::string& file) {
  auto g = ParseV2Group(testing::LoadJsonFile("tests/fixtures/v2/objects/" + file));
  EXPECT_TRUE(g.ok()) << g.error;
  return g.ok() ? *g.value : v2::Group{};
}

TEST(V2PlannedWaits, ParsesPausedAndSuspendCompute) {
  EXPECT_FALSE(Cluster("cluster-ready.json").paused);
  EXPECT_FALSE(Cluster("cluster-ready.json").suspend_compute);
  EXPECT_TRUE(Cluster("cluster-paused.json").paused);
  EXPECT_FALSE(Cluster("cluster-paused.json").suspend_compute);
  EXPECT_TRUE(Cluster("cluster-suspending.json").suspend_compute);
  EXPECT_TRUE(Cluster("cluster-suspended.json").suspend_compute);
}

TEST(V2PlannedWaits, HoldOfTheClusterAndItsPdGroups) {
  const v2::Cluster ready = Cluster("cluster-ready.json");
  EXPECT_FALSE(v2::HoldOf(&ready, {}).Any());
  EXPECT_FALSE(v2::HoldOf(nullptr, {}).Any());
  const v2::Cluster paused = Cluster("cluster-paused.json");
  EXPECT_TRUE(v2::HoldOf(&paused, {}).paused);
  // suspendCompute set, Suspended=False "Cluster is suspending": suspending.
  const v2::Cluster suspending = Cluster("cluster-suspending.json");
  OperatorHold h = v2::HoldOf(&suspending, {});
  EXPECT_TRUE(h.suspending);
  EXPECT_FALSE(h.suspended);
  const v2::Cluster suspended = Cluster("cluster-suspended.json");
  h = v2::HoldOf(&suspended, {});
  EXPECT_TRUE(h.suspended);
  EXPECT_FALSE(h.suspending);
  // A PDGroup with ModeSwitching=True; one with ModeSwitching absent holds nothing.
  const v2::Group switching = Group("pdgroup-mode-switching.json");
  const v2::Group steady = Group("pdgroup-ready.json");
  h = v2::HoldOf(&ready, {&steady, &switching});
  EXPECT_EQ(h.mode_switch, "WaitingForTSOGroupReady");
  EXPECT_EQ(h.mode_switch_since, T("2025-03-10T09:00:00Z"));
  EXPECT_FALSE(v2::HoldOf(&ready, {&steady}).Any());
  // ModeSwitchComplete (False) is no switch.
  v2::Group done = switching;
  for (auto& c : done.conditions) {
    if (c.type == "ModeSwitching") {
      c.status = ConditionStatus::kFalse;
      c.reason = "ModeSwitchComplete";
    }
  }
  EXPECT_FALSE(v2::HoldOf(&ready, {&done}).Any());
}

TEST(V2PlannedWaits, InstancePlanOfLeadersEvictedAndOfflined) {
  InstanceReadiness r;
  EXPECT_FALSE(InstancePlanOf(Instance("tikv-0.json"), &r));
  EXPECT_EQ(r.plan_reason, "");

  ASSERT_TRUE(InstancePlanOf(Instance("tikv-leaders-evicted.json"), &r));
  EXPECT_EQ(r.plan_reason, reason::kLeaderEviction);
  EXPECT_EQ(r.plan_condition, "LeadersEvicted=True Evicted");
  EXPECT_EQ(r.plan_since, T("2025-03-10T09:02:10Z"));

  r = {};
  ASSERT_TRUE(InstancePlanOf(Instance("tikv-offline-processing.json"), &r));
  EXPECT_EQ(r.plan_reason, reason::kStoreOffline);
  EXPECT_EQ(r.plan_condition, "Offlined=False Processing");

  // evict_leader.go: False/Evicting is a plan, False/NotEvicted and True/StoreNotExist are not.
  v2::Instance t = Instance("tikv-leaders-evicted.json");
  t.leaders_evicted->status = ConditionStatus::kFalse;
  t.leaders_evicted->reason = "Evicting";
  r = {};
  EXPECT_TRUE(InstancePlanOf(t, &r));
  t.leaders_evicted->reason = "NotEvicted";
  r = {};
  EXPECT_FALSE(InstancePlanOf(t, &r));
  t.leaders_evicted->status = ConditionStatus::kTrue;
  t.leaders_evicted->reason = "StoreNotExist";
  EXPECT_FALSE(InstancePlanOf(t, &r));
  // store_offline.go: a failed offline is no plan.
  v2::Instance o = Instance("tikv-offline-processing.json");
  o.offlined->reason = "Failed";
  r = {};
  EXPECT_FALSE(InstancePlanOf(o, &r));
}

// The v2 store hands the hold to the dependency store and the plan to the pod's lookup; a held
// cluster without any pod is still known (Snapshot, Views) and has its podwait_cluster_hold.
TEST(V2PlannedWaits, StoreToDependenciesToMetrics) {
  Config config;
  FakeClock clock{T("2025-03-10T09:05:00Z")};
  DependencyStore deps(config, clock);
  V2Store store;
  store.SetListener(
      [&](const ClusterKey& key, const v2::ClusterFacts& f) { deps.OnV2Cluster(key, f); });
  const ClusterKey key{"tidb-v2", "basic"};

  store.UpsertCluster(Cluster("cluster-suspended.json"));
  auto snap = deps.Snapshot();
  ASSERT_EQ(snap.count(key), 1u);  // no pod: known through its hold
  EXPECT_TRUE(snap[key].hold.suspended);
  const std::string l = "namespace=\"tidb-v2\",tidb_cluster=\"tidb-v2-basic\"";
  std::string text;
  DependencyCollector(deps).AppendText(&text);
  EXPECT_THAT(text, HasSubstr("podwait_cluster_hold{" + l + ",hold=\"suspended\"} 1"));
  EXPECT_THAT(text, Not(HasSubstr("hold=\"paused\"")));

  // Resumed (suspendCompute unset): the hold and its series go.
  store.UpsertCluster(Cluster("cluster-ready.json"));
  EXPECT_EQ(deps.Snapshot().count(key), 0u);
  text.clear();
  DependencyCollector(deps).AppendText(&text);
  EXPECT_THAT(text, Not(HasSubstr("podwait_cluster_hold{" + l)));

  // A cluster with pods (in the registry) takes its hold into its dependencies.
  ClusterInfo info;
  info.ready_pd_pods = 3;
  deps.SyncClusters({{key, info}});
  store.UpsertCluster(Cluster("cluster-paused.json"));
  store.UpsertGroup(Group("pdgroup-mode-switching.json"));
  const OperatorHold h = deps.Get(key)->hold;
  EXPECT_TRUE(h.paused);
  EXPECT_EQ(h.mode_switch, "WaitingForTSOGroupReady");
  text.clear();
  DependencyCollector(deps).AppendText(&text);
  EXPECT_THAT(text, HasSubstr("podwait_cluster_hold{" + l + ",hold=\"paused\"} 1"));
  EXPECT_THAT(text, HasSubstr("podwait_cluster_hold{" + l + ",hold=\"pd_mode_switch\"} 1"));

  // The instance lookup carries the plan beside the Ready condition.
  store.UpsertInstance(Instance("tikv-leaders-evicted.json"));
  auto inst = store.InstanceOf(key, "tikv", "tikv-q7w4mz");
  ASSERT_TRUE(inst);
  EXPECT_EQ(inst->ready, ConditionStatus::kFalse);
  EXPECT_EQ(inst->reason, "PodNotReady");
  EXPECT_EQ(inst->plan_reason, reason::kLeaderEviction);
  store.UpsertInstance(Instance("tikv-0.json"));
  inst = store.InstanceOf(key, "tikv", "tikv-q7w4mz");
  ASSERT_TRUE(inst);
  EXPECT_EQ(inst->plan_reason, "");
}

// The published pod names its v2 instance (the `v2_instance` label); a v1 pod has none.
TEST(V2PlannedWaits, WaitingPodNamesItsV2Instance) {
  PodRecord pod;
  pod.namespace_ = "tidb-v2";
  pod.cluster = "basic";
  pod.component = "tikv";
  pod.name = "tikv-tikv-q7w4mz";
  pod.v2_instance = true;
  EXPECT_EQ(MakeWaitingPod(pod, {}, 0).v2_instance, "tikv-q7w4mz");
  pod.v2_instance = false;
  EXPECT_EQ(MakeWaitingPod(pod, {}, 0).v2_instance, "");
}

}  // namespace
}  // namespace podwait
