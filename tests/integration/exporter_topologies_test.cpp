// The exporter against the simulator on tidb-operator v1.6's shapes beyond one cluster with its
// own PD (tests/scenarios/topologies.json; docs/DESIGN.md §4, "Topologies"): a heterogeneous
// cluster reads the referenced cluster's PD, a cluster across Kubernetes is unknown rather than
// down (or reads spec.pdAddresses), and the pods of a TidbMonitor, a discovery and a v1 DMCluster
// make no TiDB cluster: no PD probe, no dependency series.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "tests/support/process.h"
#include "tests/support/stack.h"

namespace podwait::testing {
namespace {

// The simulator's count of requests to /pd/<ns>/<cluster>/... (0: nobody asked that PD).
int64_t PdRequests(int sim_port, const std::string& key) {
  rapidjson::Document state;
  state.Parse(HttpGet(sim_port, "/_sim/state").body.c_str());
  if (!state.IsObject() || !state.HasMember("pdRequests")) return -1;
  const rapidjson::Value& requests = state["pdRequests"];
  auto it = requests.FindMember(key.c_str());
  return it == requests.MemberEnd() ? 0 : it->value.GetInt64();
}

std::string ClassOf(const std::string& text, const std::string& pod) {
  std::vector<Sample> s = FindSamples(text, "podwait_pod_waiting_seconds", {{"pod", pod}});
  return s.size() == 1 ? s[0].labels.at("class") + "/" + s[0].labels.at("reason") : "";
}

TEST(ExporterTopologies, EachShapeGetsItsDependenciesAndOnlyClustersGetProbes) {
  SimAndExporter stack("tests/scenarios/topologies.json", {}, false);
  // PD across Kubernetes at spec.pdAddresses: the simulator's PD of pingcap/cluster1.
  const std::string address =
      "http://127.0.0.1:" + std::to_string(stack.sim_port()) + "/pd/pingcap/cluster1";
  ASSERT_EQ(stack.SimPost("/_sim/apply", R"([
      {"pd": {"namespace": "pingcap", "cluster": "cluster1", "members": 3, "state": "ready",
              "stores": [{"id": 1, "state": "Up"}]}},
      {"kind": "TidbCluster", "apiVersion": "pingcap.com/v1alpha1",
       "metadata": {"namespace": "tidb", "name": "edge2"},
       "spec": {"acrossK8s": true, "pdAddresses": [")" +
                                             address + R"("],
                "tikv": {"replicas": 1}}},
      {"pod": {"namespace": "tidb", "name": "edge2-tikv-0", "cluster": "edge2",
               "component": "tikv", "stage": "waiting", "reason": "CrashLoopBackOff"}}])"),
            200);
  stack.StartExporter();
  std::string text;
  ASSERT_TRUE(stack.ScrapeUntil(
      [](const std::string& t) {
        return SampleValue(t, "podwait_dependency_ready",
                           {{"tidb_cluster", "tidb-basic-heterogeneous"}, {"dependency", "pd"}}) ==
                   1 &&
               SampleValue(t, "podwait_dependency_ready",
                           {{"tidb_cluster", "tidb-tidb-only"}, {"dependency", "tikv"}}) == 0 &&
               SampleValue(t, "podwait_dependency_ready",
                           {{"tidb_cluster", "tidb-edge2"}, {"dependency", "pd"}}) == 1 &&
               !FindSamples(t, "podwait_pod_waiting_seconds",
                            {{"pod", "dm-dm-worker-0"}, {"class", "dependency"}})
                    .empty() &&
               !FindSamples(t, "podwait_pod_waiting_seconds", {{"pod", "monitor-monitor-0"}})
                    .empty() &&
               !FindSamples(t, "podwait_pod_waiting_seconds", {{"pod", "edge-tikv-0"}}).empty();
      },
      30, &text))
      << text << stack.exporter().ReadLog();

  // Heterogeneous: the referenced PD is healthy and has a store Up, so a crash-looping TiKV is no
  // wait for a PD that does not exist: its dependencies are ready (the kubelet's back-off within
  // the ready grace, or its own crash loop; classify/README.md, "Main-container crash loop").
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready",
                        {{"tidb_cluster", "tidb-basic-heterogeneous"}, {"dependency", "tikv"}}),
            1);
  EXPECT_THAT(ClassOf(text, "basic-heterogeneous-tikv-0"),
              ::testing::AnyOf("dependency/dependency_ready", "crashloop/crash_loop"));
  EXPECT_GT(PdRequests(stack.sim_port(), "tidb/basic"), 0);
  EXPECT_EQ(PdRequests(stack.sim_port(), "tidb/basic-heterogeneous"), 0);
  // A TiDB-only cluster whose referenced stores are down waits for TiKV, not PD.
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready",
                        {{"tidb_cluster", "tidb-tidb-only"}, {"dependency", "pd"}}),
            1);
  EXPECT_EQ(ClassOf(text, "tidb-only-tidb-0"), "dependency/no_tikv_store_up");

  // Across Kubernetes without an address: no PD series at all, no probe, never a PD outage.
  EXPECT_THAT(FindSamples(text, "podwait_dependency_ready", {{"tidb_cluster", "tidb-edge"}}),
              ::testing::IsEmpty());
  EXPECT_THAT(FindSamples(text, "podwait_pd_probe_success", {{"tidb_cluster", "tidb-edge"}}),
              ::testing::IsEmpty());
  EXPECT_EQ(PdRequests(stack.sim_port(), "tidb/edge"), 0);
  EXPECT_THAT(ClassOf(text, "edge-tikv-0"), ::testing::Not(::testing::StartsWith("dependency/")));
  // With spec.pdAddresses: that PD is asked and decides.
  EXPECT_GT(PdRequests(stack.sim_port(), "pingcap/cluster1"), 0);
  EXPECT_THAT(ClassOf(text, "edge2-tikv-0"),
              ::testing::AnyOf("dependency/dependency_ready", "crashloop/crash_loop"));

  // A TidbMonitor and a v1 DMCluster are no TiDB clusters: their pods are classified as any pod,
  // with no dependency series and no PD probe.
  for (const char* cluster : {"monitor", "dm"}) {
    for (const char* dependency : {"pd", "tikv"}) {
      EXPECT_THAT(FindSamples(text, "podwait_dependency_ready",
                              {{"tidb_cluster", std::string("tidb-") + cluster},
                               {"dependency", dependency}}),
                  ::testing::IsEmpty())
          << cluster << " " << dependency;
    }
    EXPECT_THAT(FindSamples(text, "podwait_pd_probe_success",
                            {{"tidb_cluster", std::string("tidb-") + cluster}}),
                ::testing::IsEmpty())
        << cluster;
    EXPECT_EQ(PdRequests(stack.sim_port(), std::string("tidb/") + cluster), 0) << cluster;
  }
  EXPECT_EQ(ClassOf(text, "monitor-monitor-0"), "crashloop/crash_loop");
  // The v1 DMCluster's master has no quorum (status.master): its dm-worker waits for it, as v2's
  // DMWorker does, and only the dm-master series is there.
  EXPECT_EQ(ClassOf(text, "dm-dm-worker-0"), "dependency/dm_master_not_ready");
  EXPECT_EQ(SampleValue(text, "podwait_dependency_ready",
                        {{"tidb_cluster", "tidb-dm"}, {"dependency", "dm-master"}}),
            0);
}

}  // namespace
}  // namespace podwait::testing
