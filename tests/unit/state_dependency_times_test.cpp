// Dependency readiness dated from the cluster's own transition times (exporter/classify/
// dependency_times.h), across an exporter restart: a new DependencyStore that first sees PD and
// TiKV ready dates them from the TidbCluster members' / v2 instances' lastTransitionTime, not from
// its own start, so a pod stuck behind a long-ready PD is dependency_stuck at once. Inputs are
// made up in the shapes of tidb-operator's TidbClusterStatus (pkg/apis/pingcap/v1alpha1/types.go)
// and v2's instance Ready conditions.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "exporter/classify/classifier.h"
#include "exporter/classify/dependency_times.h"
#include "exporter/state/dependency_store.h"
#include "tests/support/dependency_inputs.h"

namespace podwait {
namespace {

constexpr Timestamp kPdReadyAt = 1'700'000'000'000;           // the cluster's PD became healthy
constexpr Timestamp kTikvUpAt = kPdReadyAt + kMinute;         // its TiKV store came Up
constexpr Timestamp kFirstStart = kPdReadyAt + 60 * kMinute;  // the exporter's first start
constexpr Timestamp kRestart = kFirstStart + 30 * kMinute;    // its restart

using fixtures::HealthyPd;

TidbClusterStatus Tc(const ClusterKey& key) {
  TidbClusterStatus tc;
  tc.key = key;
  tc.pd_members = {{"c-pd-0", true}, {"c-pd-1", true}, {"c-pd-2", true}};
  tc.pd_leader = "c-pd-0";
  tc.pd_healthy_since = kPdReadyAt;
  tc.tikv_stores = {{"1", "c-tikv-0", "Up", kTikvUpAt}, {"4", "c-tikv-1", "Down", kTikvUpAt + 5}};
  tc.tikv_bootstrapped = true;
  return tc;
}

TEST(ClusterReadySince, FromTidbClusterAndV2Instances) {
  TidbClusterStatus tc = Tc({"ns", "c"});
  DependencyInputs in;
  in.tc = &tc;
  EXPECT_EQ(ClusterReadySince(in, Dependency::kPd), kPdReadyAt);
  EXPECT_EQ(ClusterReadySince(in, Dependency::kTikv), kTikvUpAt) << "only Up stores count";
  tc.pd_leader.clear();
  EXPECT_EQ(ClusterReadySince(in, Dependency::kPd), 0) << "no leader: PD is not ready";

  v2::ClusterFacts v2;
  v2.present = true;
  v2.pd_ready_since = kPdReadyAt + 7;
  v2.tikv_ready_since = kTikvUpAt + 9;
  DependencyInputs v2in;
  v2in.v2 = &v2;
  EXPECT_EQ(ClusterReadySince(v2in, Dependency::kPd), kPdReadyAt + 7);
  EXPECT_EQ(ClusterReadySince(v2in, Dependency::kTikv), kTikvUpAt + 9);
  EXPECT_EQ(ClusterReadySince(DependencyInputs{}, Dependency::kPd), 0);
}

class RestartTest : public ::testing::Test {
 protected:
  // One exporter process starting at `now`: a store that knows the cluster from its pods and,
  // when given, its TidbCluster status.
  DependencyStore& Start(Timestamp now, std::optional<TidbClusterStatus> tc) {
    clock_ = std::make_unique<FakeClock>(now);
    store_ = std::make_unique<DependencyStore>(config_, *clock_);
    ClusterInfo info;
    info.from_pods = true;
    info.ready_pd_pods = 3;
    store_->SyncClusters({{key_, info}});
    if (tc) store_->OnTidbCluster(*tc);
    return *store_;
  }
  // ... and its first PD probe, answered by a healthy PD.
  ClusterDependencies Run(Timestamp now, bool with_tc) {
    DependencyStore& store = Start(now, with_tc ? std::optional(Tc(key_)) : std::nullopt);
    store.OnPdProbe(key_, HealthyPd());
    return *store.Get(key_);
  }
  Config config_;
  const ClusterKey key_{"ns", "c"};
  std::unique_ptr<FakeClock> clock_;
  std::unique_ptr<DependencyStore> store_;
};

TEST_F(RestartTest, ReadySinceIsTheClustersNotTheExportersStart) {
  ClusterDependencies first = Run(kFirstStart, true);
  ClusterDependencies after_restart = Run(kRestart, true);
  EXPECT_EQ(first.pd.ready_since, kPdReadyAt);
  EXPECT_EQ(after_restart.pd.ready_since, kPdReadyAt);
  EXPECT_EQ(after_restart.tikv.ready_since, kTikvUpAt);
}

TEST_F(RestartTest, WithoutClusterTimesFirstSightIsTheFallback) {
  EXPECT_EQ(Run(kRestart, false).pd.ready_since, kRestart);
}

TEST_F(RestartTest, TransitionWatchedLiveIsDatedByTheExporter) {
  DependencyStore& store = Start(kFirstStart, Tc(key_));
  PdFacts no_leader = HealthyPd();
  no_leader.has_leader = false;
  store.OnPdProbe(key_, no_leader);
  EXPECT_EQ(store.Get(key_)->pd.readiness, Readiness::kNotReady);
  clock_->Advance(kMinute);
  store.OnPdProbe(key_, HealthyPd());
  EXPECT_EQ(store.Get(key_)->pd.ready_since, kFirstStart + kMinute)
      << "a transition the exporter saw happen is dated by its clock, not by stale member times";
}

TEST_F(RestartTest, FutureClusterTimeIsNotTrusted) {
  TidbClusterStatus tc = Tc(key_);
  tc.pd_healthy_since = kFirstStart + 60 * kMinute;  // a skewed controller clock
  DependencyStore& store = Start(kFirstStart, tc);
  store.OnPdProbe(key_, HealthyPd());
  EXPECT_EQ(store.Get(key_)->pd.ready_since, kFirstStart);
}

// At the exporter's start the inputs arrive in any order. The pods listed before the
// TidbCluster (no Ready PD pod counted yet: PD not ready, from the pods) are no sighting of a
// not-ready PD: the TidbCluster read next dates the readiness, not the exporter's clock.
TEST_F(RestartTest, PodsListedBeforeTheTidbClusterDoNotDateIt) {
  clock_ = std::make_unique<FakeClock>(kRestart);
  store_ = std::make_unique<DependencyStore>(config_, *clock_);
  ClusterInfo pods;
  pods.from_pods = true;  // the PD pods not among the pods read so far
  store_->SyncClusters({{key_, pods}});
  ASSERT_EQ(store_->Get(key_)->pd.readiness, Readiness::kNotReady);
  clock_->Advance(kSecond);
  store_->OnTidbCluster(Tc(key_));
  EXPECT_EQ(store_->Get(key_)->pd.ready_since, kPdReadyAt);
  EXPECT_EQ(store_->Get(key_)->tikv.ready_since, kTikvUpAt);
}

// PD answers before the TidbCluster is listed: first seen ready without a date (the exporter's
// clock, for now), then dated from the TidbCluster once it is read.
TEST_F(RestartTest, ProbeBeforeTheTidbClusterIsDatedByItOnceRead) {
  DependencyStore& store = Start(kRestart, std::nullopt);
  store.OnPdProbe(key_, HealthyPd());
  ASSERT_EQ(store.Get(key_)->pd.ready_since, kRestart);
  clock_->Advance(kSecond);
  store.OnTidbCluster(Tc(key_));
  EXPECT_EQ(store.Get(key_)->pd.ready_since, kPdReadyAt);
  EXPECT_EQ(store.Get(key_)->tikv.ready_since, kTikvUpAt);
  // Dated once: a later status does not move it (the same ready period).
  TidbClusterStatus later = Tc(key_);
  later.pd_healthy_since = kPdReadyAt - kMinute;
  store.OnTidbCluster(later);
  EXPECT_EQ(store.Get(key_)->pd.ready_since, kPdReadyAt);
}

// Once every input has been read, not ready then ready is a transition podwait watched: dated by
// its clock even when the TidbCluster's times are older (its status lags behind PD).
TEST_F(RestartTest, AfterTheInputsAreReadNotReadyIsASighting) {
  clock_ = std::make_unique<FakeClock>(kRestart);
  store_ = std::make_unique<DependencyStore>(config_, *clock_);
  store_->OnInputsSynced();
  ClusterInfo pods;
  pods.from_pods = true;
  store_->SyncClusters({{key_, pods}});
  ASSERT_EQ(store_->Get(key_)->pd.readiness, Readiness::kNotReady);
  clock_->Advance(kSecond);
  store_->OnTidbCluster(Tc(key_));
  EXPECT_EQ(store_->Get(key_)->pd.ready_since, kRestart + kSecond);
}

// The point of it: a TiDB pod in Init behind wait-for-pd for 50 minutes, PD ready for an hour.
// After the restart it is dependency_stuck at once, not an expected `dependency` for another
// ready grace.
TEST_F(RestartTest, StuckPodIsStuckRightAfterARestart) {
  ClusterDependencies deps = Run(kRestart, true);
  PodRecord pod;
  pod.uid = "u-tidb-0";
  pod.namespace_ = "ns";
  pod.name = "c-tidb-0";
  pod.cluster = "c";
  pod.component = "tidb";
  pod.created = kRestart - 50 * kMinute;
  pod.phase = PodPhase::kPending;
  pod.mutable_detail().conditions = {
      {"PodScheduled", ConditionStatus::kTrue, "", "", pod.created + kSecond},
      {"Initialized", ConditionStatus::kFalse, "ContainersNotInitialized", "",
       pod.created + kSecond}};
  ContainerStatus wait;
  wait.name = "wait-for-pd";
  wait.state = ContainerState::kRunning;
  pod.mutable_detail().init_containers = {wait};
  Classification c = Classify(pod, {}, &deps, AutoscalerState{}, ClassifierOptions{}, kRestart);
  ASSERT_TRUE(c.waiting);
  EXPECT_EQ(WaitClassName(c.wait_class), "dependency_stuck") << c.evidence;
}

}  // namespace
}  // namespace podwait
