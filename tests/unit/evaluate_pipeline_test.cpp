// The Pipeline: the one wiring of the stores (TidbClusters -> registry + dependency state, v2
// clusters -> dependency state, pods -> registry) and the evaluation over them, incremental
// after the first.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "exporter/evaluate/pipeline.h"
#include "tests/support/pod_records.h"

namespace podwait {
namespace {

constexpr Timestamp kNow = 1'700'000'000'000;

PodPtr PendingTikv(const std::string& ns, const std::string& cluster, const std::string& name) {
  return fixtures::PendingTikvPod(ns, cluster, name, kNow - 10'000);
}

class PipelineTest : public ::testing::Test {
 protected:
  Config config_;
  FakeClock clock_{kNow};
  Pipeline pipeline_{config_, clock_};
};

TEST_F(PipelineTest, TidbClustersReachTheRegistryAndTheDependencyState) {
  TidbClusterStatus tc;
  tc.key = {"ns", "a"};
  tc.pd_members = {{"a-pd-0", true}};
  tc.pd_leader = "a-pd-0";
  pipeline_.tidbclusters().Upsert(tc);
  EXPECT_THAT(pipeline_.registry().Clusters(), ::testing::ElementsAre(ClusterKey{"ns", "a"}));
  EXPECT_TRUE(pipeline_.dependencies().Views().at({"ns", "a"}).has_tidbcluster);
  pipeline_.tidbclusters().Remove(tc.key);
  EXPECT_THAT(pipeline_.registry().Clusters(), ::testing::IsEmpty());
}

TEST_F(PipelineTest, PodsNameTheirClustersAndAreEvaluated) {
  pipeline_.pods().Replace({PendingTikv("ns", "b", "b-tikv-0")});
  pipeline_.Evaluate(kNow);
  EXPECT_THAT(pipeline_.registry().Clusters(), ::testing::ElementsAre(ClusterKey{"ns", "b"}));
  auto snap = pipeline_.Snapshot();
  ASSERT_EQ(snap->pods.size(), 1u);
  EXPECT_EQ(snap->pods[0].pod, "b-tikv-0");
  EXPECT_EQ(snap->evaluated_at, kNow);
  EXPECT_EQ(pipeline_.LastClassified(), 1u);
  // Nothing changed: the next evaluation classifies nothing again.
  pipeline_.Evaluate(kNow + 1000);
  EXPECT_EQ(pipeline_.LastClassified(), 0u);
  EXPECT_EQ(pipeline_.LastEvaluated(), kNow + 1000);
}

// Pods with tidb-operator's labels that belong to no TiDB cluster (PodOwnerOf, model/types.h):
// they make no cluster (no PD probe, no dependency series) and are classified as any pod, even
// when their instance label names a TidbCluster (a TidbMonitor is often named like its cluster).
PodPtr PendingOf(const std::string& cluster, const std::string& name, const std::string& component,
                 PodOwner owner) {
  auto p = std::make_shared<PodRecord>(*PendingTikv("ns", cluster, name));
  p->component = component;
  p->owner = owner;
  return p;
}

TEST_F(PipelineTest, PodsOfObjectsThatAreNoTidbClusterMakeNoCluster) {
  pipeline_.pods().Replace(
      {PendingOf("mon", "mon-monitor-0", "monitor", PodOwner::kNotACluster),
       PendingOf("ng", "ng-ng-monitoring-0", "ng-monitoring", PodOwner::kNotACluster),
       PendingOf("dash", "dash-tidb-dashboard-0", "tidb-dashboard", PodOwner::kNotACluster),
       PendingOf("dc", "dc-dm-master-0", "dm-master", PodOwner::kDmCluster),
       PendingOf("dc-dm", "dc-dm-discovery-1", "discovery", PodOwner::kNotACluster)});
  pipeline_.Evaluate(kNow);
  EXPECT_THAT(pipeline_.Clusters(), ::testing::IsEmpty());
  EXPECT_THAT(pipeline_.Dependencies(), ::testing::IsEmpty());
  // Each is still classified (a Pending pod without scheduler word: scheduling).
  EXPECT_EQ(pipeline_.Snapshot()->pods.size(), 5u);
}

TEST_F(PipelineTest, AMonitorNamedLikeItsClusterWaitsForNothingOfIt) {
  // A crash-looping TidbMonitor pod beside cluster "basic" whose PD is down: crashloop, not a wait
  // for PD (the TiKV of the same cluster does wait for it).
  auto crashing = [](const std::string& name, const std::string& component, PodOwner owner) {
    auto p = std::make_shared<PodRecord>(*PendingTikv("ns", "basic", name));
    p->component = component;
    p->owner = owner;
    p->phase = PodPhase::kRunning;
    PodDetail& d = p->mutable_detail();
    d.conditions = {{"PodScheduled", ConditionStatus::kTrue, "", "", kNow - 9'000},
                    {"Initialized", ConditionStatus::kTrue, "", "", kNow - 8'000},
                    {"Ready", ConditionStatus::kFalse, "ContainersNotReady", "", kNow - 8'000}};
    ContainerStatus c;
    c.name = component;
    c.state = ContainerState::kWaiting;
    c.reason = "CrashLoopBackOff";
    c.restart_count = 4;
    d.containers = {c};
    return p;
  };
  pipeline_.pods().Replace({crashing("basic-monitor-0", "monitor", PodOwner::kNotACluster),
                            crashing("basic-tikv-0", "tikv", PodOwner::kTidbCluster)});
  pipeline_.Evaluate(kNow);
  EXPECT_THAT(pipeline_.Clusters(), ::testing::ElementsAre(ClusterKey{"ns", "basic"}));
  std::map<std::string, WaitClass> classes;
  for (const WaitingPod& p : pipeline_.Snapshot()->pods)
    classes[p.pod] = p.classification.wait_class;
  EXPECT_EQ(classes.at("basic-monitor-0"), WaitClass::kCrashloop);
  EXPECT_EQ(classes.at("basic-tikv-0"), WaitClass::kDependency);
}

// A v1 DMCluster's dm-worker crash-loops while its masters have no quorum: a wait for dm-master,
// as v2's DMWorker's; once the masters are healthy, the crash loop is its own.
TEST_F(PipelineTest, AV1DmWorkerWaitsForItsDmClustersMasters) {
  auto worker = std::make_shared<PodRecord>(*PendingTikv("ns", "dm", "dm-dm-worker-0"));
  worker->component = "dm-worker";
  worker->owner = PodOwner::kDmCluster;
  worker->phase = PodPhase::kRunning;
  PodDetail& d = worker->mutable_detail();
  d.conditions = {{"PodScheduled", ConditionStatus::kTrue, "", "", kNow - 9'000},
                  {"Initialized", ConditionStatus::kTrue, "", "", kNow - 8'000},
                  {"Ready", ConditionStatus::kFalse, "ContainersNotReady", "", kNow - 8'000}};
  ContainerStatus c;
  c.name = "dm-worker";
  c.state = ContainerState::kWaiting;
  c.reason = "CrashLoopBackOff";
  c.restart_count = 4;
  d.containers = {c};
  pipeline_.pods().Replace({worker});
  DmClusterStatus dc;
  dc.key = {"ns", "dm"};
  dc.master_replicas = 1;
  dc.master_members = {{"dm-dm-master-0", false}};
  pipeline_.dmclusters().Upsert(dc);
  pipeline_.Evaluate(kNow);
  EXPECT_THAT(pipeline_.Clusters(), ::testing::IsEmpty());  // no TiDB cluster, no PD probe
  ASSERT_EQ(pipeline_.Snapshot()->pods.size(), 1u);
  EXPECT_EQ(pipeline_.Snapshot()->pods[0].classification.wait_class, WaitClass::kDependency);
  EXPECT_EQ(pipeline_.Snapshot()->pods[0].classification.reason, "dm_master_not_ready");
  dc.master_members = {{"dm-dm-master-0", true}};
  pipeline_.dmclusters().Upsert(dc);
  pipeline_.Evaluate(kNow + 1000);
  EXPECT_EQ(pipeline_.Snapshot()->pods[0].classification.wait_class, WaitClass::kDependency);
  EXPECT_EQ(pipeline_.Snapshot()->pods[0].classification.reason, "dependency_ready");
}

TEST_F(PipelineTest, V2ClustersReachTheDependencyState) {
  pipeline_.pods().Replace({PendingTikv("ns", "c", "c-tikv-0")});
  pipeline_.DiscoverClusters();
  v2::Cluster cluster;
  cluster.namespace_ = "ns";
  cluster.name = "c";
  pipeline_.v2().UpsertCluster(cluster);
  EXPECT_TRUE(pipeline_.dependencies().Views().at({"ns", "c"}).v2.has_value());
}

TEST_F(PipelineTest, TheCaStatusIsPartOfTheAutoscalerState) {
  auto status = std::make_shared<CaStatus>();
  NodeGroupStatus group;
  group.name = "pool-1";
  group.backoff = true;
  status->node_groups.push_back(group);
  pipeline_.SetCaStatus({true, status});
  pipeline_.Evaluate(kNow);
  const AutoscalerState& a = pipeline_.Snapshot()->autoscaler;
  EXPECT_TRUE(a.detected[AutoscalerKind::kClusterAutoscaler]);
  ASSERT_EQ(a.node_groups.size(), 1u);
  EXPECT_TRUE(a.node_groups[0].backoff);
}

// The canonical TiKV failure (classify/volumes.h): a FitError with a late volume filter beside
// Insufficient cpu. Whether an added node could host the pod depends on its volume: the
// pipeline reads it from the claim and volume stores, and classifies the pod again when they
// change.
TEST_F(PipelineTest, VolumeFactsDecideAMixedFitErrorAndTheirChangesReclassify) {
  auto pod = std::make_shared<PodRecord>(*PendingTikv("tidb", "demo", "demo-tikv-0"));
  pod->mutable_detail().claims = {"tikv-demo-tikv-0"};
  PodCondition scheduled;
  scheduled.type = "PodScheduled";
  scheduled.status = ConditionStatus::kFalse;
  scheduled.reason = "Unschedulable";
  scheduled.message =
      "0/4 nodes are available: 1 node(s) had volume node affinity conflict, 3 Insufficient "
      "cpu. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 "
      "No preemption victims found for incoming pod.";
  scheduled.last_transition = kNow - 10'000;
  pod->mutable_detail().conditions = {scheduled};
  pipeline_.pods().Replace({pod});
  auto only = [this] {
    auto snap = pipeline_.Snapshot();
    EXPECT_EQ(snap->pods.size(), 1u);
    return snap->pods.empty() ? Classification{} : snap->pods[0].classification;
  };
  // Nothing known of the claim yet: the volume decides (it was never checked on the short nodes).
  pipeline_.Evaluate(kNow);
  EXPECT_EQ(only().wait_class, WaitClass::kConstraints);
  // Bound to a zonal volume: a new node in its zone would do.
  pipeline_.volumes().UpsertClaim(ClaimRecord{"tidb", "tikv-demo-tikv-0", "pvc-zonal"});
  pipeline_.volumes().UpsertVolume(VolumeRecord{"pvc-zonal", "", "tidb", "tikv-demo-tikv-0"});
  pipeline_.Evaluate(kNow + 1000);
  EXPECT_EQ(pipeline_.LastClassified(), 1u);
  EXPECT_EQ(only().wait_class, WaitClass::kCapacity);
  // Rebound to a local volume on a node that is gone: no added node can host it.
  pipeline_.volumes().UpsertClaim(ClaimRecord{"tidb", "tikv-demo-tikv-0", "local-pv-3f1a2b"});
  pipeline_.volumes().UpsertVolume(
      VolumeRecord{"local-pv-3f1a2b", "ip-10-0-3-17.ec2.internal", "tidb", "tikv-demo-tikv-0"});
  pipeline_.Evaluate(kNow + 2000);
  EXPECT_EQ(only().wait_class, WaitClass::kConstraints);
  EXPECT_THAT(only().evidence, ::testing::HasSubstr("ip-10-0-3-17.ec2.internal"));
  // A change in another namespace classifies nothing again.
  pipeline_.volumes().UpsertClaim(ClaimRecord{"elsewhere", "c", ""});
  pipeline_.Evaluate(kNow + 3000);
  EXPECT_EQ(pipeline_.LastClassified(), 0u);
}

TEST(PipelineVolumes, WithoutTheWatchThePinningStaysUnknown) {
  Config config;
  config.volumes_enabled = false;
  FakeClock clock{kNow};
  Pipeline pipeline{config, clock};
  auto pod = std::make_shared<PodRecord>(*PendingTikv("tidb", "demo", "demo-tikv-0"));
  PodCondition scheduled;
  scheduled.type = "PodScheduled";
  scheduled.status = ConditionStatus::kFalse;
  scheduled.reason = "Unschedulable";
  scheduled.message =
      "0/4 nodes are available: 1 node(s) had volume node affinity conflict, 3 Insufficient cpu.";
  scheduled.last_transition = kNow - 10'000;
  pod->mutable_detail().conditions = {
      scheduled};  // and no claims: with the watch, that would be "not pinned"
  pipeline.pods().Replace({pod});
  pipeline.Evaluate(kNow);
  auto snap = pipeline.Snapshot();
  ASSERT_EQ(snap->pods.size(), 1u);
  EXPECT_EQ(snap->pods[0].classification.wait_class, WaitClass::kConstraints);
}

// Karpenter's NodeClaims reach the classifier through the autoscaler state: a pod nominated to a
// NodeClaim follows its stage, and a change of the NodeClaim alone classifies the pod again.
TEST_F(PipelineTest, TheNominatedNodeClaimsStageIsThePodsReason) {
  PodPtr pod = PendingTikv("ns", "d", "d-tikv-0");
  pipeline_.pods().Replace({pod});
  EventRecord nominated;
  nominated.uid = "ev-1";
  nominated.pod_uid = pod->uid;
  nominated.namespace_ = "ns";
  nominated.pod_name = "d-tikv-0";
  nominated.reason = "Nominated";
  nominated.source = "karpenter";
  nominated.message = "Pod should schedule on: nodeclaim/default-x9q2w";
  nominated.first = nominated.last = kNow - 5'000;
  pipeline_.events().Add(nominated);
  NodeClaimFacts nc;
  nc.name = "default-x9q2w";
  nc.stages[0].status = ConditionStatus::kTrue;  // Launched
  nc.stages[1].reason = "NodeNotFound";
  pipeline_.nodeclaims().Replace({nc});
  auto reason = [&] { return pipeline_.Snapshot()->pods.at(0).classification.reason; };

  pipeline_.Evaluate(kNow);
  EXPECT_EQ(reason(), "karpenter_registering");
  nc.stages[1].status = ConditionStatus::kTrue;  // Registered
  nc.stages[2].reason = "StartupTaintsExist";
  pipeline_.nodeclaims().Upsert(nc);
  pipeline_.Evaluate(kNow + 1000);
  EXPECT_EQ(pipeline_.LastClassified(), 1u);
  EXPECT_EQ(reason(), "karpenter_initializing");
  // Gone without a reported failure: the pod's own state decides (no scheduler verdict yet).
  pipeline_.nodeclaims().Remove(nc.name);
  pipeline_.Evaluate(kNow + 2000);
  EXPECT_EQ(reason(), "awaiting_decision");
}

// The pod consumes a ProvisioningRequest: its conditions, as the store changes, are the pod's
// reason (a request change re-classifies the waiting pods, nothing else needed).
TEST_F(PipelineTest, TheConsumedProvisioningRequestDecidesThePodsReason) {
  PodRecord consuming = *PendingTikv("ns", "d", "d-tikv-0");
  consuming.mutable_detail().provisioning_request = "d-tikv-scale";
  pipeline_.pods().Replace({std::make_shared<const PodRecord>(consuming)});
  ProvisioningRequestFacts pr;
  pr.namespace_ = "ns";
  pr.name = "d-tikv-scale";
  pr.conditions[static_cast<size_t>(ProvReqCondition::kAccepted)].status = ConditionStatus::kTrue;
  pipeline_.provisioning_requests().Replace("", {pr});
  auto reason = [&] { return pipeline_.Snapshot()->pods.at(0).classification.reason; };

  pipeline_.Evaluate(kNow);
  EXPECT_EQ(reason(), "provisioning_request_accepted");
  pr.conditions[static_cast<size_t>(ProvReqCondition::kFailed)].status = ConditionStatus::kTrue;
  pipeline_.provisioning_requests().Upsert(pr);
  pipeline_.Evaluate(kNow + 1000);
  EXPECT_EQ(pipeline_.LastClassified(), 1u);
  EXPECT_EQ(reason(), "provisioning_request_failed");
  // Deleted: the pod's own state decides (no scheduler verdict yet).
  pipeline_.provisioning_requests().Remove("ns", "d-tikv-scale");
  pipeline_.Evaluate(kNow + 2000);
  EXPECT_EQ(reason(), "awaiting_decision");
}

}  // namespace
}  // namespace podwait
