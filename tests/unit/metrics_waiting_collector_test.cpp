#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/metrics/waiting_collector.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr Timestamp kNow = 1'700'000'100'000;

WaitingPod Pod(std::string name, std::string component, Stage stage, WaitClass c,
               std::string reason, Timestamp start) {
  WaitingPod p;
  p.namespace_ = "demo";
  p.cluster = "demo";
  p.tidb_cluster = "demo-demo";
  p.component = std::move(component);
  p.pod = std::move(name);
  p.classification.waiting = true;
  p.classification.stage = stage;
  p.classification.wait_class = c;
  p.classification.reason = std::move(reason);
  p.classification.stage_start = start;
  return p;
}

std::shared_ptr<WaitingSnapshot> Demo() {
  auto s = std::make_shared<WaitingSnapshot>();
  s->pods.push_back(Pod("demo-tidb-0", "tidb", Stage::kInitializing, WaitClass::kDependency,
                        "pd_not_ready", kNow - 30'000));
  s->pods.push_back(Pod("demo-tidb-1", "tidb", Stage::kInitializing, WaitClass::kDependency,
                        "pd_not_ready", kNow - 90'000));
  s->pods.push_back(Pod("demo-tikv-0", "tikv", Stage::kUnscheduled, WaitClass::kScaleUp,
                        "scale_up_in_progress", kNow - 10'000));
  StageHistogram h;
  h.buckets[3] = 2;  // two stages between 10s and 30s
  h.count = 2;
  h.sum = 45;
  s->stage_durations[{"tidb", Stage::kInitializing, WaitClass::kDependency}] = h;
  s->failover[{"demo", "demo", "tidb"}] = {3, 2};
  s->autoscaler.detected[AutoscalerKind::kClusterAutoscaler] = true;
  return s;
}

std::string Render(std::shared_ptr<WaitingSnapshot> snap, bool pod_series) {
  FakeClock clock(kNow);
  WaitingCollector collector([snap] { return snap; }, clock, pod_series);
  std::string text;
  collector.AppendText(&text);
  return text;
}

TEST(WaitingCollector, PerPodSeriesCarryTheContractLabels) {
  std::string text = Render(Demo(), true);
  EXPECT_THAT(
      text, HasSubstr("podwait_pod_waiting_seconds{namespace=\"demo\",tidb_cluster=\"demo-demo\","
                      "component=\"tidb\",pod=\"demo-tidb-1\",v2_instance=\"\","
                      "stage=\"initializing\",class=\"dependency\",reason=\"pd_not_ready\"} 90\n"));
  EXPECT_THAT(text, Not(HasSubstr(",cluster=")));
}

// A tidb-operator v2 pod's series names its instance, the `instance` of the operator's own
// tidb_operator_abnormal_instance, so that the two join exactly.
TEST(WaitingCollector, V2PodSeriesNameTheirInstance) {
  auto s = std::make_shared<WaitingSnapshot>();
  WaitingPod p = Pod("tikv-tikv-q7w4mz", "tikv", Stage::kStarting, WaitClass::kPlanned,
                     "cluster_paused", kNow - 60'000);
  p.namespace_ = "tidb-v2";
  p.cluster = "basic";
  p.tidb_cluster = "tidb-v2-basic";
  p.v2_instance = "tikv-q7w4mz";
  s->pods.push_back(p);
  EXPECT_THAT(Render(s, true),
              HasSubstr("podwait_pod_waiting_seconds{namespace=\"tidb-v2\",tidb_cluster=\"tidb-v2-"
                        "basic\",component=\"tikv\",pod=\"tikv-tikv-q7w4mz\",v2_instance=\"tikv-"
                        "q7w4mz\",stage=\"starting\",class=\"planned\",reason=\"cluster_paused\"} "
                        "60\n"));
}

TEST(WaitingCollector, GroupsCountAndOldest) {
  std::string text = Render(Demo(), true);
  EXPECT_THAT(text,
              HasSubstr("podwait_waiting_pods{namespace=\"demo\",tidb_cluster=\"demo-demo\","
                        "component=\"tidb\",stage=\"initializing\",class=\"dependency\"} 2\n"));
  EXPECT_THAT(
      text,
      HasSubstr("podwait_waiting_oldest_seconds{namespace=\"demo\",tidb_cluster=\"demo-demo\","
                "component=\"tidb\",stage=\"initializing\",class=\"dependency\"} 90\n"));
  EXPECT_THAT(text, HasSubstr("podwait_waiting_pods{namespace=\"demo\",tidb_cluster=\"demo-demo\","
                              "component=\"tikv\",stage=\"unscheduled\",class=\"scale_up\"} 1\n"));
}

// Groups are counted per cluster whatever the order of components among its pods, each series
// is written once, and the series come out ordered by cluster, component, stage and class.
TEST(WaitingCollector, GroupsOfSeveralClustersAreWrittenOnceEachInOrder) {
  auto s = std::make_shared<WaitingSnapshot>();
  auto in = [](std::string cluster, std::string name, std::string component, WaitClass c) {
    WaitingPod p = Pod(std::move(name), std::move(component), Stage::kStarting, c, "r", kNow);
    p.cluster = cluster;
    p.tidb_cluster = "demo-" + cluster;
    return p;
  };
  // Sorted by namespace, cluster, pod (the snapshot's order); components interleave.
  s->pods.push_back(in("a", "a-pd-0", "tikv", WaitClass::kDependency));
  s->pods.push_back(in("a", "a-pd-1", "pd", WaitClass::kNotReady));
  s->pods.push_back(in("a", "a-pd-2", "tikv", WaitClass::kDependency));
  s->pods.push_back(in("a", "a-pd-3", "tikv", WaitClass::kCrashloop));
  s->pods.push_back(in("b", "b-tikv-0", "tikv", WaitClass::kDependency));
  const std::string text = Render(s, false);
  std::vector<std::string> lines;
  for (size_t at = 0; (at = text.find("podwait_waiting_pods{", at)) != std::string::npos; ++at) {
    lines.push_back(text.substr(at, text.find('\n', at) - at));
  }
  const std::string head = "podwait_waiting_pods{namespace=\"demo\",tidb_cluster=";
  EXPECT_THAT(
      lines,
      ::testing::ElementsAre(
          head + "\"demo-a\",component=\"pd\",stage=\"starting\",class=\"not_ready\"} 1",
          head + "\"demo-a\",component=\"tikv\",stage=\"starting\",class=\"dependency\"} 2",
          head + "\"demo-a\",component=\"tikv\",stage=\"starting\",class=\"crashloop\"} 1",
          head + "\"demo-b\",component=\"tikv\",stage=\"starting\",class=\"dependency\"} 1"));
}

// A snapshot whose clusters are not together still has one series per group.
TEST(WaitingCollector, UnsortedSnapshotStillWritesEachGroupOnce) {
  auto demo = Demo();
  auto s = std::make_shared<WaitingSnapshot>(*demo);
  WaitingPod other = demo->pods[0];
  other.cluster = "zeta";
  other.tidb_cluster = "demo-zeta";
  s->pods = WaitingPods();
  s->pods.push_back(demo->pods[0]);
  s->pods.push_back(other);  // between two pods of cluster demo
  for (size_t i = 1; i < demo->pods.size(); ++i) s->pods.push_back(demo->pods[i]);
  const std::string text = Render(s, false);
  const std::string series =
      "podwait_waiting_pods{namespace=\"demo\",tidb_cluster=\"demo-demo\",component=\"tidb\","
      "stage=\"initializing\",class=\"dependency\"} 2\n";
  const size_t first = text.find(series);
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find(series, first + 1), std::string::npos) << text;
}

TEST(WaitingCollector, PodSeriesCanBeTurnedOff) {
  std::string text = Render(Demo(), false);
  EXPECT_THAT(text, Not(HasSubstr("podwait_pod_waiting_seconds{")));
  EXPECT_THAT(text, HasSubstr("podwait_waiting_pods{"));
}

TEST(WaitingCollector, HistogramIsCumulative) {
  std::string text = Render(Demo(), true);
  EXPECT_THAT(
      text,
      HasSubstr("podwait_stage_duration_seconds_bucket{component=\"tidb\",stage=\"initializing\","
                "class=\"dependency\",le=\"10\"} 0\n"));
  EXPECT_THAT(
      text,
      HasSubstr("podwait_stage_duration_seconds_bucket{component=\"tidb\",stage=\"initializing\","
                "class=\"dependency\",le=\"30\"} 2\n"));
  EXPECT_THAT(
      text,
      HasSubstr("podwait_stage_duration_seconds_bucket{component=\"tidb\",stage=\"initializing\","
                "class=\"dependency\",le=\"+Inf\"} 2\n"));
  EXPECT_THAT(
      text,
      HasSubstr("podwait_stage_duration_seconds_sum{component=\"tidb\",stage=\"initializing\","
                "class=\"dependency\"} 45\n"));
}

TEST(WaitingCollector, EscapesLabelValuesAndPassesPromtoolShape) {
  auto snap = Demo();
  snap->pods.Mutable(0).classification.reason = "a\"b\\c\nd";
  std::string text = Render(snap, true);
  EXPECT_THAT(text, HasSubstr("reason=\"a\\\"b\\\\c\\nd\"}"));
  EXPECT_THAT(text, HasSubstr("# TYPE podwait_stage_duration_seconds histogram\n"));
  EXPECT_THAT(text, HasSubstr("# HELP podwait_waiting_pods Number of waiting pods.\n"));
}

TEST(WaitingCollector, FailoverAndAutoscaler) {
  std::string text = Render(Demo(), true);
  EXPECT_THAT(text, HasSubstr("podwait_failover_during_dependency_wait{namespace=\"demo\","
                              "tidb_cluster=\"demo-demo\",component=\"tidb\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("podwait_autoscaler_detected{kind=\"cluster-autoscaler\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("podwait_autoscaler_detected{kind=\"karpenter\"} 0\n"));
  // Healthy only for the detected kinds.
  EXPECT_THAT(text, HasSubstr("podwait_autoscaler_healthy{kind=\"cluster-autoscaler\"} 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("podwait_autoscaler_healthy{kind=\"karpenter\"}")));
}

TEST(WaitingCollector, AutoscalerUnhealthyWhenStaleOrSilent) {
  auto stale = Demo();
  stale->autoscaler.status_stale[AutoscalerKind::kClusterAutoscaler] = true;
  EXPECT_THAT(Render(stale, true),
              HasSubstr("podwait_autoscaler_healthy{kind=\"cluster-autoscaler\"} 0\n"));
  auto silent = Demo();
  silent->pods.Mutable(0).classification.reason = std::string(reason::kAutoscalerSilent);
  EXPECT_THAT(Render(silent, true),
              HasSubstr("podwait_autoscaler_healthy{kind=\"cluster-autoscaler\"} 0\n"));
}

}  // namespace
}  // namespace podwait
