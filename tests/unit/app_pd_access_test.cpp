// How the exporter reaches PD (app/pd_access.h): through the API server from a laptop, directly
// in the cluster (the deployed exporter needs no RBAC for services/proxy), and the signals the
// evaluation hands the prober.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/app/pd_access.h"

namespace podwait {
namespace {

KubeEndpoint Endpoint(const char* source) {
  KubeEndpoint e;
  e.api_url = "https://203.0.113.7:6443";
  e.source = source;
  return e;
}

TEST(PdAccessTest, AutoIsDirectInTheClusterAndThroughTheApiServerFromALaptop) {
  EXPECT_FALSE(PdViaApiServer(PdVia::kAuto, Endpoint(KubeEndpoint::kInClusterSource)));
  EXPECT_TRUE(PdViaApiServer(PdVia::kAuto, Endpoint("--kubeconfig")));
  EXPECT_TRUE(PdViaApiServer(PdVia::kAuto, Endpoint("--kube.api-url")));
  EXPECT_FALSE(PdViaApiServer(PdVia::kDirect, Endpoint("~/.kube/config")));
  EXPECT_TRUE(PdViaApiServer(PdVia::kApiServer, Endpoint(KubeEndpoint::kInClusterSource)));
}

TEST(PdAccessTest, OnlyClusterServicesGoThroughTheApiServer) {
  struct NoRoute final : PdApiServerRoute {
    bool TryTake(int64_t) override { return true; }
    void Authorize(HttpRequest*) override {}
    void OnAnswer(const HttpResponse&) override {}
  } route;
  TlsOptions pd_tls;
  pd_tls.ca_file = "/etc/pd/ca.crt";
  std::vector<PdTarget> targets = {
      {ClusterKey{"tidb", "basic"}, "http://basic-pd.tidb:2379", pd_tls},
      {ClusterKey{"tidb", "ip"}, "http://10.1.2.3:2379", pd_tls}};
  targets = ThroughApiServer(std::move(targets), "https://203.0.113.7:6443", &route);
  EXPECT_EQ(targets[0].base_url,
            "https://203.0.113.7:6443/api/v1/namespaces/tidb/services/basic-pd:2379/proxy");
  EXPECT_EQ(targets[0].via, &route);
  EXPECT_TRUE(targets[0].tls.ca_file.empty());  // the API server's TLS applies, not PD's
  EXPECT_EQ(targets[1].base_url, "http://10.1.2.3:2379");
  EXPECT_EQ(targets[1].via, nullptr);
  EXPECT_EQ(targets[1].tls.ca_file, "/etc/pd/ca.crt");
}

WaitingPod Waiting(const std::string& ns, const std::string& cluster, Stage stage) {
  WaitingPod p;
  p.namespace_ = ns;
  p.cluster = cluster;
  p.pod = cluster + "-x";
  p.classification.stage = stage;
  return p;
}

TEST(PdAccessTest, SignalsSayWhichClustersWaitOnPdAndStampTheirStatus) {
  WaitingSnapshot snapshot;
  snapshot.pods.push_back(Waiting("a", "init", Stage::kInitializing));
  snapshot.pods.push_back(Waiting("a", "init", Stage::kStarting));
  snapshot.pods.push_back(Waiting("a", "unscheduled", Stage::kUnscheduled));
  snapshot.pods.push_back(Waiting("b", "", Stage::kStarting));  // no cluster label
  WaitingPod monitor = Waiting("b", "mon", Stage::kStarting);   // a TidbMonitor's pod: no PD
  monitor.owner = PodOwner::kNotACluster;
  snapshot.pods.push_back(monitor);
  // A node, not PD, decides for the unscheduled pod.
  EXPECT_THAT(PdWaitingClusters(snapshot), ::testing::ElementsAre(ClusterKey{"a", "init"}));

  const ClusterKey key{"a", "unscheduled"};
  std::map<ClusterKey, ClusterDependencyView> views;
  views[key].ready_pd_pods = 3;
  const uint64_t before = PdStatusStamps(views).at(key);
  views[key].ready_pd_pods = 2;  // a PD pod stopped being Ready
  EXPECT_NE(PdStatusStamps(views).at(key), before);
  ClusterDependencyView& v = views[key];
  v.ready_pd_pods = 3;
  EXPECT_EQ(PdStatusStamps(views).at(key), before);
  v.pd = PdFacts{};  // PD's own answer is not part of the stamp: no probe for its own result
  v.pd->error = "stores: HTTP 500";
  EXPECT_EQ(PdStatusStamps(views).at(key), before);
  v.v2 = v2::ClusterFacts{};
  v.v2->pd_instances_ready = 1;
  EXPECT_NE(PdStatusStamps(views).at(key), before);
}

// Signals are computed when they may have changed: the waiting clusters on a new snapshot, the
// stamps every few evaluations; otherwise there is nothing to tell.
TEST(PdAccessTest, TheSignalSourceTellsOnlyWhatMayHaveChanged) {
  Config config;
  DependencyStore deps(config, SystemClock::Instance());
  deps.SyncClusters({{ClusterKey{"a", "init"}, ClusterInfo{true, false, 3}}});
  auto snapshot = std::make_shared<WaitingSnapshot>();
  snapshot->pods.push_back(Waiting("a", "init", Stage::kInitializing));
  PdSignalSource source;
  auto views = [&deps] { return deps.Views(); };
  auto first = source.Next(snapshot, views);
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->at(ClusterKey{"a", "init"}).waiting);
  EXPECT_TRUE(first->at(ClusterKey{"a", "init"}).status.has_value());
  for (int i = 1; i < PdSignalSource::kStampEvery; ++i) {
    EXPECT_FALSE(source.Next(snapshot, views)) << i;  // the same snapshot, no stamps due
  }
  EXPECT_TRUE(source.Next(snapshot, views));        // the stamps again
  auto next = std::make_shared<WaitingSnapshot>();  // the pod stopped waiting
  auto told = source.Next(next, views);
  ASSERT_TRUE(told);
  EXPECT_FALSE(told->at(ClusterKey{"a", "init"}).waiting);
}

}  // namespace
}  // namespace podwait
