// The dependency part of the metric contract, rendered from a DependencyStore.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/metrics/dependency_collector.h"

namespace podwait {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

PdFacts Healthy() {
  PdFacts f;
  f.reachable = f.success = true;
  f.health_known = true;
  f.members_healthy = 2;
  f.members_unhealthy = 1;
  f.leader_known = f.has_leader = true;
  f.cluster_status_known = true;
  f.is_initialized = true;
  f.stores_known = true;
  f.tikv_stores = {{"Up", 3}, {"Down", 1}};
  f.tiflash_stores = 2;
  return f;
}

class DependencyCollectorTest : public ::testing::Test {
 protected:
  DependencyCollectorTest() : store_(config_, clock_) {}
  std::string Render() {
    std::string out;
    DependencyCollector(store_).AppendText(&out);
    return out;
  }
  Config config_;
  FakeClock clock_{1'700'000'000'000};
  DependencyStore store_;
};

TEST_F(DependencyCollectorTest, ReadyClusterFromPdApi) {
  ClusterInfo info;
  info.ready_pd_pods = 3;
  store_.SyncClusters({{ClusterKey{"prod", "basic"}, info}});
  store_.OnPdProbe(ClusterKey{"prod", "basic"}, Healthy());
  const std::string text = Render();
  EXPECT_THAT(text, HasSubstr("podwait_dependency_ready{namespace=\"prod\",tidb_cluster=\"prod-"
                              "basic\",dependency=\"pd\"} 1"));
  EXPECT_THAT(text, HasSubstr("podwait_dependency_ready{namespace=\"prod\",tidb_cluster=\"prod-"
                              "basic\",dependency=\"tikv\"} 1"));
  EXPECT_THAT(text, HasSubstr("podwait_dependency_ready_since_timestamp_seconds{namespace=\"prod\","
                              "tidb_cluster=\"prod-basic\",dependency=\"pd\"} 1700000000"));
  EXPECT_THAT(
      text,
      HasSubstr("podwait_pd_probe_success{namespace=\"prod\",tidb_cluster=\"prod-basic\"} 1"));
  EXPECT_THAT(text, HasSubstr("podwait_pd_members{namespace=\"prod\",tidb_cluster=\"prod-basic\","
                              "health=\"healthy\"} 2"));
  EXPECT_THAT(text, HasSubstr("podwait_pd_members{namespace=\"prod\",tidb_cluster=\"prod-basic\","
                              "health=\"unhealthy\"} 1"));
  EXPECT_THAT(text,
              HasSubstr("podwait_pd_leader{namespace=\"prod\",tidb_cluster=\"prod-basic\"} 1"));
  EXPECT_THAT(
      text,
      HasSubstr("podwait_cluster_initialized{namespace=\"prod\",tidb_cluster=\"prod-basic\"} 1"));
  EXPECT_THAT(
      text,
      HasSubstr(
          "podwait_tikv_stores{namespace=\"prod\",tidb_cluster=\"prod-basic\",state=\"Up\"} 3"));
  EXPECT_THAT(
      text,
      HasSubstr(
          "podwait_tikv_stores{namespace=\"prod\",tidb_cluster=\"prod-basic\",state=\"Down\"} 1"));
  // No TidbCluster: no failover series. Never a bare `cluster` label.
  EXPECT_THAT(text, Not(HasSubstr("podwait_failover_members{")));
  EXPECT_THAT(text, Not(HasSubstr(",cluster=")));
  EXPECT_THAT(text, Not(HasSubstr("{cluster=")));
}

TEST_F(DependencyCollectorTest, UnknownIsAbsentAndNotReadyIsZero) {
  ClusterInfo ready_pods;
  ready_pods.ready_pd_pods = 2;
  ClusterInfo no_pods;
  store_.SyncClusters({{ClusterKey{"a", "x"}, ready_pods}, {ClusterKey{"b", "y"}, no_pods}});
  PdFacts down;
  down.error = "health: Couldn't connect to server";
  store_.OnPdProbe(ClusterKey{"a", "x"}, down);
  store_.OnPdProbe(ClusterKey{"b", "y"}, down);
  const std::string text = Render();
  EXPECT_THAT(text, Not(HasSubstr("podwait_dependency_ready{namespace=\"a\"")));
  EXPECT_THAT(
      text,
      HasSubstr(
          "podwait_dependency_ready{namespace=\"b\",tidb_cluster=\"b-y\",dependency=\"pd\"} 0"));
  EXPECT_THAT(text, HasSubstr("podwait_pd_probe_success{namespace=\"a\",tidb_cluster=\"a-x\"} 0"));
  EXPECT_THAT(text, Not(HasSubstr("podwait_dependency_ready_since_timestamp_seconds{")));
  EXPECT_THAT(text, Not(HasSubstr("podwait_pd_leader{")));  // no facts from an unreachable PD
  // HELP/TYPE stay visible even without series.
  EXPECT_THAT(text, HasSubstr("# TYPE podwait_failover_members gauge"));
}

TEST_F(DependencyCollectorTest, TidbClusterFactsAndFailover) {
  ClusterKey key{"prod", "tc"};
  store_.SyncClusters({{key, ClusterInfo{}}});
  TidbClusterStatus tc;
  tc.key = key;
  tc.pd_members = {{"p0", true}, {"p1", true}, {"p2", false}};
  tc.pd_leader = "p0";
  tc.tikv_stores = {{"1", "tc-tikv-0", "Up"}};
  tc.failure_members = {{"tidb", "tc-tidb-1", "tc-tidb-1", 0},
                        {"tidb", "tc-tidb-2", "tc-tidb-2", 0}};
  store_.OnTidbCluster(tc);
  const std::string text = Render();
  EXPECT_THAT(
      text,
      HasSubstr(
          "podwait_pd_members{namespace=\"prod\",tidb_cluster=\"prod-tc\",health=\"healthy\"} 2"));
  EXPECT_THAT(text, HasSubstr("podwait_pd_leader{namespace=\"prod\",tidb_cluster=\"prod-tc\"} 1"));
  EXPECT_THAT(
      text,
      HasSubstr("podwait_tikv_stores{namespace=\"prod\",tidb_cluster=\"prod-tc\",state=\"Up\"} 1"));
  EXPECT_THAT(text, HasSubstr("podwait_failover_members{namespace=\"prod\",tidb_cluster=\"prod-"
                              "tc\",component=\"tidb\"} 2"));
  EXPECT_THAT(text, HasSubstr("podwait_failover_members{namespace=\"prod\",tidb_cluster=\"prod-"
                              "tc\",component=\"pd\"} 0"));
  EXPECT_THAT(text, Not(HasSubstr("podwait_cluster_initialized{")));  // only PD says that
  EXPECT_THAT(text, Not(HasSubstr("podwait_pd_probe_success{")));     // never probed

  // The cluster disappears: its series go with it.
  store_.SyncClusters({});
  EXPECT_THAT(Render(), Not(HasSubstr("prod-tc")));
}

// A v2 cluster whose PD API cannot be reached: the instance facts (V2Store's, from
// tests/fixtures/v2/objects/pd-ready-*.json and tikv-*.json) give PD members by Ready and TiKV
// stores by the state the instances report; no leader gauge, no failover members (v2 has none).
TEST_F(DependencyCollectorTest, V2InstanceFactsWithoutFailoverMembers) {
  const ClusterKey key{"tidb-v2", "basic"};
  ClusterInfo info;
  info.ready_pd_pods = 3;
  store_.SyncClusters({{key, info}});
  PdFacts down;
  down.error = "health: Couldn't connect to server";
  store_.OnPdProbe(key, down);
  v2::ClusterFacts f;
  f.present = true;
  f.pd_instances = 3;
  f.pd_instances_ready = 3;
  f.tikv_instances = 3;
  f.tikv_serving_ready = 2;
  f.tikv_store_states = {{"Preparing", 1}, {"Serving", 2}};
  store_.OnV2Cluster(key, f);
  const std::string text = Render();
  const std::string l = "namespace=\"tidb-v2\",tidb_cluster=\"tidb-v2-basic\"";
  EXPECT_THAT(text, HasSubstr("podwait_pd_members{" + l + ",health=\"healthy\"} 3"));
  EXPECT_THAT(text, HasSubstr("podwait_pd_members{" + l + ",health=\"unhealthy\"} 0"));
  EXPECT_THAT(text, HasSubstr("podwait_tikv_stores{" + l + ",state=\"Serving\"} 2"));
  EXPECT_THAT(text, HasSubstr("podwait_tikv_stores{" + l + ",state=\"Preparing\"} 1"));
  EXPECT_THAT(text, HasSubstr("podwait_pd_probe_success{" + l + "} 0"));
  EXPECT_THAT(text, Not(HasSubstr("podwait_pd_leader{" + l)));
  EXPECT_THAT(text, Not(HasSubstr("podwait_failover_members{" + l)));
  // Unknown is absent, never a false 0.
  EXPECT_THAT(text, Not(HasSubstr("podwait_dependency_ready{" + l + ",dependency=\"pd\"}")));
}

}  // namespace
}  // namespace podwait
