// The tidb-operator v2 store and its source on the made-up v2 fixtures (tests/fixtures/v2/, whose
// README names the v2 source file each follows): namespaced replace semantics per resource,
// deletes, the facts the dependency store reads, instance lookup for a pod, status.pd.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <tuple>
#include <utility>
#include <vector>

#include "exporter/sources/v2_objects.h"
#include "exporter/sources/v2_source.h"
#include "exporter/state/v2_store.h"
#include "tests/support/yaml_json.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

rapidjson::Document Load(const std::string& relative) {
  return testing::LoadJsonFile("tests/fixtures/v2/" + relative);
}

v2::Instance Instance(const std::string& file) { return *ParseV2Instance(Load(file)).value; }

const ClusterKey kBasic{"tidb-v2", "basic"};

struct Recorder {
  std::vector<std::pair<ClusterKey, v2::ClusterFacts>> calls;
  V2Store::Listener Listener() {
    return [this](const ClusterKey& k, const v2::ClusterFacts& f) { calls.push_back({k, f}); };
  }
};

TEST(V2Store, FactsFromInstancesAndTikvStoreStates) {
  V2Store store;
  Recorder rec;
  store.SetListener(rec.Listener());
  store.ReplaceInstances("PD", "",
                         {Instance("objects/pd-ready-0.json"), Instance("objects/pd-ready-1.json"),
                          Instance("objects/pd-ready-2.json")});
  store.ReplaceInstances("TiKV", "",
                         {Instance("objects/tikv-0.json"), Instance("objects/tikv-1.json"),
                          Instance("objects/tikv-2.json")});
  v2::ClusterFacts f = store.FactsFor(kBasic);
  EXPECT_TRUE(f.present);
  EXPECT_EQ(f.pd_instances, 3);
  EXPECT_EQ(f.pd_instances_ready, 3);
  EXPECT_EQ(f.tikv_instances, 3);
  EXPECT_EQ(f.tikv_serving_ready, 2);  // tikv-1 is Preparing, Ready=False
  EXPECT_THAT(f.tikv_store_states, ElementsAre(Pair("Preparing", 1), Pair("Serving", 2)));
  ASSERT_EQ(rec.calls.size(), 2u);
  EXPECT_EQ(rec.calls.back().second, f);
  // The same list again changes nothing: no call.
  store.ReplaceInstances("TiKV", "",
                         {Instance("objects/tikv-0.json"), Instance("objects/tikv-1.json"),
                          Instance("objects/tikv-2.json")});
  EXPECT_EQ(rec.calls.size(), 2u);
  // One PD goes not ready (the same instance, modified).
  store.UpsertInstance(Instance("objects/pd-not-ready.json"));
  EXPECT_EQ(store.FactsFor(kBasic).pd_instances_ready, 2);
  EXPECT_EQ(rec.calls.size(), 3u);
}

TEST(V2Store, ReplaceIsScopedByResourceAndNamespace) {
  V2Store store;
  v2::Instance other = Instance("objects/tikv-0.json");
  other.namespace_ = "other";
  store.ReplaceInstances("TiKV", "", {Instance("objects/tikv-0.json"), other});
  store.ReplaceInstances("PD", "", {Instance("objects/pd-ready-0.json")});
  EXPECT_EQ(store.Count("TiKV"), 2u);
  // A relist of TiKVs in tidb-v2 that is empty keeps the other namespace's and the PDs.
  store.ReplaceInstances("TiKV", "tidb-v2", {});
  EXPECT_EQ(store.Count("TiKV"), 1u);
  EXPECT_EQ(store.Count("PD"), 1u);
  EXPECT_EQ(store.FactsFor(ClusterKey{"other", "basic"}).tikv_instances, 1);
  // An object of another namespace in a scoped list is ignored.
  store.ReplaceInstances("TiKV", "tidb-v2", {other});
  EXPECT_EQ(store.FactsFor(kBasic).tikv_instances, 0);
  // Deletes.
  store.RemoveInstance("PD", "tidb-v2", "pd-x8d2kq");
  EXPECT_EQ(store.Count("PD"), 0u);
  EXPECT_FALSE(store.FactsFor(kBasic).present);
}

TEST(V2Store, ClusterPdUrlAndForgettingAClusterTellsTheListener) {
  V2Store store;
  Recorder rec;
  store.SetListener(rec.Listener());
  store.UpsertCluster(*ParseV2Cluster(Load("objects/cluster-waiting.json")).value);
  EXPECT_THAT(store.PdUrls(), ElementsAre(Pair(kBasic, "http://pd-pd.tidb-v2:2379")));
  EXPECT_TRUE(store.FactsFor(kBasic).present);
  store.RemoveCluster("tidb-v2", "basic");
  EXPECT_TRUE(store.PdUrls().empty());
  ASSERT_EQ(rec.calls.size(), 2u);
  EXPECT_FALSE(rec.calls.back().second.present);
}

TEST(V2Store, InstanceOfAPodByTheNameV2GivesIt) {
  V2Store store;
  store.ReplaceInstances("TiKV", "",
                         {Instance("objects/tikv-0.json"), Instance("objects/tikv-1.json")});
  // Pod tikv-tikv-m3p8zc belongs to instance tikv-m3p8zc (pkg/apiutil/core/v1alpha1/instance.go).
  std::optional<InstanceReadiness> r =
      store.InstanceOf(kBasic, "tikv", v2::InstanceNameOfPod("tikv-tikv-m3p8zc", "tikv"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->ready, ConditionStatus::kFalse);
  EXPECT_EQ(r->reason, "InstanceNotHealthy");
  EXPECT_EQ(r->kind, "TiKV");
  EXPECT_GT(r->since, 0);
  EXPECT_EQ(store.InstanceOf(kBasic, "tikv", "tikv-q7w4mz")->ready, ConditionStatus::kTrue);
  EXPECT_FALSE(store.InstanceOf(kBasic, "tidb", "tikv-q7w4mz").has_value());
  EXPECT_FALSE(store.InstanceOf(ClusterKey{"tidb-v2", "x"}, "tikv", "tikv-q7w4mz").has_value());
  EXPECT_FALSE(store.InstanceOf(kBasic, "nope", "tikv-q7w4mz").has_value());
}

// Every new kind's pod finds its instance (the component has a '-' in tikv-worker,
// resource-manager, dm-master, dm-worker), and the DM instances make the dm-master facts.
TEST(V2Store, InstanceOfThePodsOfTheNewKindsAndDmMasterFacts) {
  V2Store store;
  Recorder rec;
  store.SetListener(rec.Listener());
  for (const auto& [kind, file] : std::vector<std::pair<const char*, const char*>>{
           {"TiProxy", "objects/tiproxy.json"},
           {"TiKVWorker", "objects/tikvworker.json"},
           {"ResourceManager", "objects/resourcemanager.json"},
           {"Router", "objects/router.json"},
           {"DM", "objects/dm.json"},
           {"DMWorker", "objects/dmworker.json"}}) {
    store.ReplaceInstances(kind, "", {Instance(file)});
  }
  for (const auto& [component, pod, ready, reason] :
       std::vector<std::tuple<const char*, const char*, ConditionStatus, const char*>>{
           {"tiproxy", "tiproxy-tiproxy-k4d9xq", ConditionStatus::kTrue, "Ready"},
           {"tikv-worker", "tikvworker-tikv-worker-h2n6pt", ConditionStatus::kFalse, "PodNotReady"},
           {"resource-manager", "rm-resource-manager-b7r2kw", ConditionStatus::kFalse,
            "PodNotReady"},
           {"router", "router-router-x5m8vd", ConditionStatus::kFalse, "PodNotReady"},
           {"dm-master", "dm-dm-master-q3z7lp", ConditionStatus::kFalse, "PodNotReady"},
           {"dm-worker", "dmworker-dm-worker-t9c4fs", ConditionStatus::kFalse, "PodNotReady"},
       }) {
    SCOPED_TRACE(pod);
    std::optional<InstanceReadiness> r =
        store.InstanceOf(kBasic, component, v2::InstanceNameOfPod(pod, component));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->ready, ready);
    EXPECT_EQ(r->reason, reason);
  }
  v2::ClusterFacts f = store.FactsFor(kBasic);
  EXPECT_EQ(f.dm_instances, 1);
  EXPECT_EQ(f.dm_instances_ready, 0);
  EXPECT_EQ(f.dm_worker_instances, 1);
  EXPECT_EQ(f.pd_instances, 0);
  // The DM master turns Ready: the listener hears of it, dated by its condition.
  store.UpsertInstance(Instance("objects/dm-ready.json"));
  f = store.FactsFor(kBasic);
  EXPECT_EQ(f.dm_instances_ready, 1);
  EXPECT_GT(f.dm_ready_since, 0);
  EXPECT_EQ(rec.calls.back().second, f);
}

// PD microservices mode (docs/DESIGN.md §4): the PDGroup's mode asked for and reached, no switch
// under way, and the TSO instances' readiness: the tso dependency's facts.
TEST(V2Store, PdMicroservicesModeAndTsoFacts) {
  V2Store store;
  Recorder rec;
  store.SetListener(rec.Listener());
  store.ReplaceInstances("TSO", "", {Instance("objects/tso-ready.json")});
  v2::ClusterFacts f = store.FactsFor(kBasic);
  EXPECT_FALSE(f.pd_ms_mode);  // no PDGroup yet: normal mode
  EXPECT_EQ(f.tso_instances, 1);
  EXPECT_EQ(f.tso_instances_ready, 1);
  EXPECT_GT(f.tso_ready_since, 0);
  store.UpsertGroup(*ParseV2Group(Load("objects/pdgroup-ms.json")).value);
  f = store.FactsFor(kBasic);
  EXPECT_TRUE(f.pd_ms_mode);
  EXPECT_EQ(rec.calls.back().second, f);
  // A switch under way (ModeSwitching=True): not in microservices mode until it completes.
  store.UpsertGroup(*ParseV2Group(Load("objects/pdgroup-mode-switching.json")).value);
  f = store.FactsFor(kBasic);
  EXPECT_FALSE(f.hold.mode_switch.empty());
  EXPECT_FALSE(f.pd_ms_mode);
}

TEST(V2Source, ListWatchAndDeleteOfOneResource) {
  V2Store store;
  V2Source source(store, V2Resource{"TiKV", "tikvs"}, "tidb-v2");
  source.OnListBegin();
  EXPECT_TRUE(source.OnListItem(Load("objects/tikv-0.json")));
  EXPECT_TRUE(source.OnListItem(Load("objects/tikv-1.json")));
  // A PD in a TiKV list is not this resource's: counted and skipped.
  EXPECT_FALSE(source.OnListItem(Load("objects/pd-ready-0.json")));
  rapidjson::Document bad;
  bad.Parse(R"({"apiVersion":"core.pingcap.com/v1alpha1","kind":"TiKV","metadata":7})");
  EXPECT_FALSE(source.OnListItem(bad));
  source.OnListEnd("10");
  EXPECT_EQ(source.ObjectCount(), 2u);
  EXPECT_TRUE(source.OnEvent(WatchEventType::kModified, Load("objects/tikv-2.json")));
  EXPECT_EQ(source.ObjectCount(), 3u);
  rapidjson::Document tombstone;
  tombstone.Parse(R"({"metadata":{"namespace":"tidb-v2","name":"tikv-q7w4mz"}})");
  EXPECT_TRUE(source.OnEvent(WatchEventType::kDeleted, tombstone));
  EXPECT_EQ(source.ObjectCount(), 2u);
  EXPECT_TRUE(source.OnNotFound()) << "a missing CRD disables the resource";
  // An aborted list leaves the store as it was.
  source.OnListBegin();
  source.OnListItem(Load("objects/tikv-0.json"));
  source.OnListAbort();
  EXPECT_EQ(source.ObjectCount(), 2u);
}

TEST(V2Source, ClustersAndGroups) {
  V2Store store;
  V2Source clusters(store, V2Resource{"Cluster", "clusters"});
  V2Source groups(store, V2Resource{"PDGroup", "pdgroups"});
  clusters.OnListBegin();
  EXPECT_TRUE(clusters.OnListItem(Load("objects/cluster-ready.json")));
  clusters.OnListEnd("1");
  groups.OnListBegin();
  EXPECT_TRUE(groups.OnListItem(Load("objects/pdgroup-ready.json")));
  groups.OnListEnd("2");
  EXPECT_EQ(store.Count("Cluster"), 1u);
  EXPECT_EQ(store.Count("PDGroup"), 1u);
  rapidjson::Document tombstone;
  tombstone.Parse(R"({"metadata":{"namespace":"tidb-v2","name":"pd"}})");
  EXPECT_TRUE(groups.OnEvent(WatchEventType::kDeleted, tombstone));
  EXPECT_EQ(store.Count("PDGroup"), 0u);
  EXPECT_EQ(store.Count("Cluster"), 1u);
}

TEST(V2Resources, EveryKindsInstancesAndGroupsAfterClusters) {
  std::vector<V2Resource> r = V2Resources();
  ASSERT_EQ(r.size(), 1 + 2 * v2::Kinds().size());
  EXPECT_EQ(r[0].plural, "clusters");
  EXPECT_EQ(r[1].plural, "pds");
  EXPECT_EQ(r[2].plural, "pdgroups");
  EXPECT_EQ(r[2].kind, "PDGroup");
}

}  // namespace
}  // namespace podwait
