// The dependency store (docs/DESIGN.md §4): the rules of classify/dependencies.h applied as the
// inputs change, and the store's cluster membership.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/state/dependency_store.h"
#include "tests/support/dependency_inputs.h"

namespace podwait {
namespace {

using fixtures::HealthyPd;
using fixtures::HealthyTc;
using fixtures::Unreachable;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;
using ::testing::Pair;

class StoreTest : public ::testing::Test {
 protected:
  StoreTest() : store_(config_, clock_) {}
  void Sync(std::map<ClusterKey, ClusterInfo> m) { store_.SyncClusters(m); }
  Config config_;
  FakeClock clock_{1'000'000};
  DependencyStore store_;
  const ClusterKey a_{"ns", "a"};
  const ClusterKey b_{"ns", "b"};
};

TEST_F(StoreTest, LifecycleOfOneCluster) {
  ClusterInfo pods_not_ready;
  pods_not_ready.from_pods = true;
  Sync({{a_, pods_not_ready}});
  auto d = store_.Get(a_);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->pd.readiness, Readiness::kNotReady);  // no Ready PD pod, never probed

  ClusterInfo pods_ready = pods_not_ready;
  pods_ready.ready_pd_pods = 3;
  Sync({{a_, pods_ready}});
  EXPECT_EQ(store_.Get(a_)->pd.readiness, Readiness::kUnknown);

  clock_.Advance(kSecond);
  PdFacts boot = HealthyPd();
  boot.not_bootstrapped = true;
  boot.is_initialized = false;
  boot.tikv_stores.clear();
  store_.OnPdProbe(a_, boot);
  d = store_.Get(a_);
  EXPECT_EQ(d->pd.readiness, Readiness::kReady);
  EXPECT_EQ(d->pd.ready_since, clock_.Now());
  EXPECT_EQ(d->tikv.readiness, Readiness::kNotReady);
  EXPECT_EQ(DependencyReasonName(d->tikv.reason), "tikv_not_bootstrapped");
  const Timestamp pd_since = clock_.Now();

  clock_.Advance(kMinute);
  store_.OnPdProbe(a_, HealthyPd());
  d = store_.Get(a_);
  EXPECT_EQ(d->pd.ready_since, pd_since);
  EXPECT_EQ(d->tikv.readiness, Readiness::kReady);
  EXPECT_EQ(d->tikv.ready_since, clock_.Now());

  // Unknown spell (API blocked, PD pods Ready): readiness unknown, ready_since kept.
  clock_.Advance(kMinute);
  store_.OnPdProbe(a_, Unreachable());
  d = store_.Get(a_);
  EXPECT_EQ(d->pd.readiness, Readiness::kUnknown);
  EXPECT_EQ(DependencyReasonName(d->pd.reason), "dependency_unknown");
  clock_.Advance(kMinute);
  store_.OnPdProbe(a_, HealthyPd());
  EXPECT_EQ(store_.Get(a_)->pd.ready_since, pd_since);
}

TEST_F(StoreTest, ClusterRemovalDropsItsState) {
  Sync({{a_, {}}, {b_, {}}});
  store_.OnPdProbe(a_, HealthyPd());
  EXPECT_THAT(store_.Snapshot(), ElementsAre(Pair(a_, ::testing::_), Pair(b_, ::testing::_)));
  Sync({{b_, {}}});
  EXPECT_THAT(store_.Snapshot(), ElementsAre(Pair(b_, ::testing::_)));
  store_.OnPdProbe(a_, HealthyPd());  // a late probe result of a removed cluster is ignored
  EXPECT_FALSE(store_.Get(a_));
  Sync({{a_, {}}, {b_, {}}});
  EXPECT_EQ(store_.Get(a_)->pd.readiness, Readiness::kNotReady);  // starts afresh
  EXPECT_FALSE(store_.Views().at(a_).pd.has_value());
}

TEST_F(StoreTest, TidbClusterFallbackAndFailureMembers) {
  ClusterInfo info;
  info.ready_pd_pods = 3;
  Sync({{ClusterKey{"ns", "c"}, info}});
  TidbClusterStatus tc = HealthyTc();
  tc.failure_members = {{"tidb", "c-tidb-0", "c-tidb-0", 123}, {"tikv", "4", "c-tikv-1", 456}};
  store_.OnTidbCluster(tc);
  auto views = store_.Views();
  const auto& v = views.at(tc.key);
  EXPECT_EQ(v.source, DependencySource::kTidbCluster);
  EXPECT_EQ(v.deps.pd.readiness, Readiness::kReady);
  EXPECT_THAT(v.failover_members,
              ElementsAre(Pair("pd", 0), Pair("tidb", 1), Pair("tiflash", 0), Pair("tikv", 1)));
  EXPECT_THAT(store_.FailureMembers(), ElementsAre(Field(&FailureMember::pod, "c-tidb-0"),
                                                   Field(&FailureMember::pod, "c-tikv-1")));
  EXPECT_EQ(store_.FailureMembers()[1].created_at, 456);

  store_.OnTidbClusterDeleted(tc.key);
  EXPECT_EQ(store_.Get(tc.key)->pd.readiness, Readiness::kUnknown);  // back to the pods
  EXPECT_THAT(store_.FailureMembers(), IsEmpty());
}

TEST_F(StoreTest, ReplaceTidbClustersKeepsOnlyListed) {
  ClusterInfo info;
  Sync({{ClusterKey{"ns", "c"}, info}});
  store_.ReplaceTidbClusters({HealthyTc()});
  EXPECT_EQ(store_.Get(ClusterKey{"ns", "c"})->pd.readiness, Readiness::kReady);
  store_.ReplaceTidbClusters({});
  EXPECT_EQ(store_.Get(ClusterKey{"ns", "c"})->pd.readiness, Readiness::kNotReady);
}

// A heterogeneous cluster (spec.cluster, no spec.pd): its PD and stores are the referenced
// cluster's, whatever its own status and pods say (it has no PD member and no PD pod).
TEST_F(StoreTest, AHeterogeneousClusterReadsTheReferencedClustersStatus) {
  const ClusterKey hetero{"ns", "hetero"};
  ClusterInfo pods;
  pods.from_pods = true;
  ClusterInfo base_pods = pods;
  base_pods.ready_pd_pods = 3;
  Sync({{a_, base_pods}, {hetero, pods}});
  TidbClusterStatus base = HealthyTc();
  base.key = a_;
  TidbClusterStatus het;
  het.key = hetero;
  het.pd_source.kind = PdSourceKind::kReferenced;
  het.pd_source.referenced = a_;
  store_.OnTidbCluster(het);
  // The referenced cluster's status is not here yet: its Ready PD pods make PD unknown, not down.
  EXPECT_EQ(store_.Get(hetero)->pd.readiness, Readiness::kUnknown);
  store_.OnTidbCluster(base);
  auto d = store_.Get(hetero);
  EXPECT_EQ(d->pd.readiness, Readiness::kReady);
  EXPECT_EQ(d->tikv.readiness, Readiness::kReady);
  EXPECT_EQ(d->pd_source, "PD of ns/a (spec.cluster, no spec.pd)");
  const ClusterDependencyView view = store_.Views().at(hetero);
  EXPECT_EQ(view.pd_source.kind, PdSourceKind::kReferenced);
  // Its view (the podwait_pd_members series) shows the referenced PD's members, not none.
  EXPECT_EQ(view.tc_pd_members_healthy, 2);
  EXPECT_TRUE(view.tc_pd_has_leader);
  EXPECT_THAT(store_.PdSources(),
              ElementsAre(Pair(hetero, Field(&PdSource::kind, PdSourceKind::kReferenced))));
  // The referenced cluster's stores go down: the heterogeneous TiDB waits for TiKV, not PD.
  base.tikv_stores = {{"1", "a-tikv-0", "Down"}};
  store_.OnTidbCluster(base);
  d = store_.Get(hetero);
  EXPECT_EQ(d->pd.readiness, Readiness::kReady);
  EXPECT_EQ(d->tikv.readiness, Readiness::kNotReady);
  EXPECT_EQ(DependencyReasonName(d->tikv.reason), "no_tikv_store_up");
  // The heterogeneous cluster's own TiKV is a store of the same PD.
  het.tikv_stores = {{"7", "hetero-tikv-0", "Up"}};
  store_.OnTidbCluster(het);
  EXPECT_EQ(store_.Get(hetero)->tikv.readiness, Readiness::kReady);
}

// PD in another Kubernetes with no address to ask: unknown (pd_elsewhere), never a PD outage,
// though the cluster has neither a PD pod nor a PD member in its status.
TEST_F(StoreTest, PdInAnotherKubernetesIsUnknownNotDown) {
  const ClusterKey across{"ns", "across"};
  ClusterInfo pods;
  pods.from_pods = true;
  Sync({{across, pods}});
  TidbClusterStatus tc;
  tc.key = across;
  tc.pd_source.kind = PdSourceKind::kExternal;
  tc.pd_source.across_k8s = true;
  store_.OnTidbCluster(tc);
  auto d = store_.Get(across);
  EXPECT_EQ(d->pd.readiness, Readiness::kUnknown);
  EXPECT_EQ(DependencyReasonName(d->pd.reason), "pd_elsewhere");
  EXPECT_EQ(d->tikv.readiness, Readiness::kUnknown);
  // Its PD answers at spec.pdAddresses: that answer decides.
  store_.OnPdProbe(across, HealthyPd());
  EXPECT_EQ(store_.Get(across)->pd.readiness, Readiness::kReady);
  store_.OnPdProbe(across, Unreachable());
  EXPECT_EQ(store_.Get(across)->pd.readiness, Readiness::kUnknown);
}

// A v1 DMCluster: its dm-master under its own key, no TiDB cluster (no PD to probe).
TEST_F(StoreTest, AV1DmClustersMastersAreItsDmMaster) {
  DmClusterStatus dc;
  dc.key = {"ns", "dm"};
  dc.master_replicas = 3;
  dc.master_members = {{"dm-dm-master-0", true}, {"dm-dm-master-1", false}};
  store_.OnDmCluster(dc);
  auto snapshot = store_.Snapshot();
  ASSERT_EQ(snapshot.count(dc.key), 1u);
  EXPECT_EQ(snapshot.at(dc.key).dm_master.readiness, Readiness::kNotReady);
  EXPECT_EQ(DependencyReasonName(snapshot.at(dc.key).dm_master.reason), "dm_master_not_ready");
  EXPECT_EQ(snapshot.at(dc.key).pd.readiness, Readiness::kUnknown);  // no PD series
  EXPECT_FALSE(store_.Views().at(dc.key).deps.tidb_cluster);
  EXPECT_FALSE(snapshot.at(dc.key).Applies(Dependency::kPd));  // no pd/tikv on the views
  EXPECT_TRUE(snapshot.at(dc.key).Applies(Dependency::kDmMaster));
  dc.master_members["dm-dm-master-1"] = true;
  clock_.Advance(kSecond);
  store_.OnDmCluster(dc);
  EXPECT_EQ(store_.Get(dc.key)->dm_master.readiness, Readiness::kReady);
  EXPECT_EQ(store_.Get(dc.key)->dm_master.ready_since, clock_.Now());
  store_.OnDmClusterDeleted(dc.key);
  EXPECT_EQ(store_.Snapshot().count(dc.key), 0u);
}

TEST_F(StoreTest, V2FactsDecideWhenThePdApiIsUnreachable) {
  const ClusterKey key{"tidb-v2", "basic"};
  ClusterInfo info;
  Sync({{key, info}});
  store_.OnPdProbe(key, Unreachable());
  EXPECT_EQ(store_.Views().at(key).source, DependencySource::kPods);
  v2::ClusterFacts f;
  f.present = true;
  f.pd_instances = 3;
  f.pd_instances_ready = 3;
  f.tikv_instances = 3;
  f.tikv_serving_ready = 0;
  f.tikv_store_states = {{"Preparing", 3}};
  store_.OnV2Cluster(key, f);
  auto v = store_.Views().at(key);
  EXPECT_EQ(v.source, DependencySource::kV2Instances);
  EXPECT_EQ(v.deps.pd.readiness, Readiness::kUnknown);
  EXPECT_EQ(v.deps.tikv.readiness, Readiness::kNotReady);
  ASSERT_TRUE(v.v2.has_value());
  EXPECT_THAT(v.failover_members, IsEmpty()) << "v2 records no failover members";
  // Forgotten (no longer present): back to the pods.
  store_.OnV2Cluster(key, v2::ClusterFacts{});
  EXPECT_EQ(store_.Views().at(key).source, DependencySource::kPods);
  EXPECT_FALSE(store_.Views().at(key).v2.has_value());
}

}  // namespace
}  // namespace podwait
