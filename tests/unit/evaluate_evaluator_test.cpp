// The Evaluator: the exporter's and explain's one evaluation. Shards its pods, derives the
// autoscaler state from the ConfigMap and the signals, and publishes what Classify decides.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/common/shard.h"
#include "exporter/evaluate/evaluator.h"
#include "tests/support/pod_records.h"

namespace podwait {
namespace {

constexpr Timestamp kNow = 1'700'000'000'000;

PodPtr Pending(const std::string& ns, const std::string& cluster, const std::string& name) {
  return fixtures::PendingTikvPod(ns, cluster, name, kNow - 10'000);
}

TEST(Evaluator, PublishesWhatTheClassifierDecides) {
  Evaluator evaluator{EvaluatorOptions{}};
  std::vector<PodPtr> pods = {Pending("ns", "a", "a-tikv-0")};
  EvaluationInput in;
  in.pods = pods;
  in.now = kNow;
  evaluator.Evaluate(in);
  auto snap = evaluator.Snapshot();
  ASSERT_EQ(snap->pods.size(), 1u);
  const Classification want =
      Classify(*pods[0], {}, nullptr, AutoscalerState{}, ClassifierOptions{}, kNow);
  EXPECT_EQ(snap->pods[0].classification.wait_class, want.wait_class);
  EXPECT_EQ(snap->pods[0].classification.reason, want.reason);
  EXPECT_EQ(snap->pods[0].tidb_cluster, "ns-a");
  EXPECT_EQ(snap->evaluated_at, kNow);
}

TEST(Evaluator, KeepsOnlyThisShardsClusters) {
  EvaluatorOptions options;
  options.total_shards = 2;
  options.shard = ShardOf("ns", "a", 2);
  Evaluator evaluator(options);
  // Find a cluster of the other shard.
  std::string other = "b";
  for (int i = 0; ShardOf("ns", other, 2) == options.shard; ++i) other = "b" + std::to_string(i);
  std::vector<PodPtr> pods = {Pending("ns", "a", "a-tikv-0"), Pending("ns", other, "x-tikv-0")};
  EvaluationInput in;
  in.pods = pods;
  in.now = kNow;
  evaluator.Evaluate(in);
  auto snap = evaluator.Snapshot();
  ASSERT_EQ(snap->pods.size(), 1u);
  EXPECT_EQ(snap->pods[0].cluster, "a");
}

TEST(Evaluator, AutoscalerStateFromTheConfigMapAndTheSignals) {
  CaStatus status;
  NodeGroupStatus group;
  group.name = "pool-1";
  group.backoff = true;
  status.node_groups.push_back(group);
  AutoscalerSignals signals;
  signals.status_object[AutoscalerKind::kClusterAutoscaler] = true;
  AutoscalerState s = MakeAutoscalerState(AutoscalerMode::kAuto, signals, &status, kNow);
  EXPECT_TRUE(s.detected[AutoscalerKind::kClusterAutoscaler]);
  EXPECT_FALSE(s.detected[AutoscalerKind::kKarpenter]);
  ASSERT_EQ(s.node_groups.size(), 1u);
  EXPECT_TRUE(s.node_groups[0].backoff);

  signals = {};
  signals.last_event[AutoscalerKind::kKarpenter] = kNow - kMinute;
  s = MakeAutoscalerState(AutoscalerMode::kAuto, signals, nullptr, kNow);
  EXPECT_TRUE(s.detected[AutoscalerKind::kKarpenter]);
  EXPECT_FALSE(s.detected[AutoscalerKind::kClusterAutoscaler]);
  s = MakeAutoscalerState(AutoscalerMode::kNone, signals, nullptr, kNow);
  EXPECT_FALSE(s.Any());
}

// cluster-autoscaler's status is stale once its probe time is older than the grace (exactly at
// the grace it is not); a status without a probe time, or one from a clock ahead, never is.
TEST(Evaluator, CaStatusStalePastTheGrace) {
  AutoscalerSignals signals;
  signals.status_object[AutoscalerKind::kClusterAutoscaler] = true;
  CaStatus status;
  status.probe_time = kNow - 5 * kMinute;
  const auto ca = AutoscalerKind::kClusterAutoscaler;
  EXPECT_FALSE(MakeAutoscalerState(AutoscalerMode::kAuto, signals, &status, kNow, 5 * kMinute)
                   .status_stale[ca]);
  EXPECT_TRUE(MakeAutoscalerState(AutoscalerMode::kAuto, signals, &status, kNow + 1, 5 * kMinute)
                  .status_stale[ca]);
  status.probe_time = 0;
  EXPECT_FALSE(
      MakeAutoscalerState(AutoscalerMode::kAuto, signals, &status, kNow + 60 * kMinute, 5 * kMinute)
          .status_stale[ca]);
  status.probe_time = kNow + kMinute;
  EXPECT_FALSE(MakeAutoscalerState(AutoscalerMode::kAuto, signals, &status, kNow, 5 * kMinute)
                   .status_stale[ca]);
}

}  // namespace
}  // namespace podwait
