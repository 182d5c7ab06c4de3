// The tidb-operator v2 parsers on the made-up v2 fixtures (tests/fixtures/v2/, each in the shape
// the v2 source writes and an API server returns; README.md there names the source file each
// follows), on kubectl List dumps, and on malformed documents: every member of every fixture
// replaced by every other JSON type parses to a value or an error, never a crash.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <functional>
#include <tuple>
#include <vector>

#include "exporter/common/time_format.h"
#include "exporter/sources/v2_objects.h"
#include "tests/support/json_mutation.h"
#include "tests/support/yaml_json.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

rapidjson::Document Load(const std::string& relative) {
  return testing::LoadJsonFile("tests/fixtures/v2/" + relative);
}

Timestamp T(const char* s) { return ParseRfc3339(s).value(); }

// Whoever can write a Cluster's status must not steer the prober at another service.
TEST(ParseV2Cluster, APdUrlOfAnotherSchemeIsDropped) {
  rapidjson::Document doc = Load("objects/cluster-waiting.json");
  for (const char* url : {"gopher://10.0.0.5:6379/_SET%20x%201", "file:///etc/passwd", "pd:2379"}) {
    doc["status"]["pd"].SetString(url, doc.GetAllocator());
    auto c = ParseV2Cluster(doc);
    ASSERT_TRUE(c.ok()) << c.error;
    EXPECT_EQ(c.value->pd_url, "") << url;
  }
}

TEST(ParseV2Cluster, WaitingClusterHasThePdUrlButNoId) {
  auto c = ParseV2Cluster(Load("objects/cluster-waiting.json"));
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.value->namespace_, "tidb-v2");
  EXPECT_EQ(c.value->name, "basic");
  EXPECT_EQ(c.value->pd_url, "http://pd-pd.tidb-v2:2379");
  EXPECT_EQ(c.value->cluster_id, "");
  EXPECT_FALSE(c.value->tls);
  const v2::Condition* avail = v2::FindCondition(c.value->conditions, "Available");
  ASSERT_NE(avail, nullptr);
  EXPECT_EQ(avail->status, ConditionStatus::kFalse);
  EXPECT_EQ(avail->reason, "ClusterAvailable");
  EXPECT_EQ(avail->last_transition, T("2025-03-10T08:00:01Z"));
  EXPECT_EQ(avail->observed_generation, 1);
  EXPECT_EQ(c.value->Key().TidbClusterLabel(), "tidb-v2-basic");
}

TEST(ParseV2Cluster, ReadyClusterHasItsPdClusterId) {
  auto c = ParseV2Cluster(Load("objects/cluster-ready.json"));
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.value->cluster_id, "7481932013495838612");
  EXPECT_EQ(v2::FindCondition(c.value->conditions, "Available")->status, ConditionStatus::kTrue);
}

TEST(ParseV2Cluster, TlsMakesNoDifferenceToTheUrlItWrote) {
  rapidjson::Document doc = Load("objects/cluster-ready.json");
  auto& a = doc.GetAllocator();
  rapidjson::Value tls(rapidjson::kObjectType);
  tls.AddMember("enabled", true, a);
  doc["spec"].AddMember("tlsCluster", tls, a);
  doc["status"]["pd"].SetString("https://pd-pd.tidb-v2:2379", a);
  auto c = ParseV2Cluster(doc);
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_TRUE(c.value->tls);
  EXPECT_EQ(c.value->pd_url, "https://pd-pd.tidb-v2:2379");
}

TEST(ParseV2Instance, TikvNotHealthyWithItsStore) {
  auto i = ParseV2Instance(Load("objects/tikv-1.json"));
  ASSERT_TRUE(i.ok()) << i.error;
  const v2::Instance& t = *i.value;
  EXPECT_EQ(t.kind, "TiKV");
  EXPECT_EQ(t.component, "tikv");
  EXPECT_EQ(t.name, "tikv-m3p8zc");
  EXPECT_EQ(t.cluster, "basic");
  EXPECT_EQ(t.group, "tikv");
  EXPECT_EQ(t.generation, 1);
  ASSERT_TRUE(t.ready.has_value());
  EXPECT_FALSE(t.IsReady());
  EXPECT_EQ(t.ready->reason, "InstanceNotHealthy");
  EXPECT_EQ(t.ready->last_transition, T("2025-03-10T08:00:10Z"));
  ASSERT_TRUE(t.synced.has_value());
  EXPECT_EQ(t.synced->status, ConditionStatus::kTrue);
  EXPECT_EQ(t.store_id, "4");
  EXPECT_EQ(t.store_state, "Preparing");
  // The pod it owns is the pod fixture of that wait shape.
  EXPECT_EQ(t.pod_name, "tikv-tikv-m3p8zc");
  EXPECT_EQ(
      t.pod_name,
      std::string(Load("pods/tikv-ready-instance-not-ready.json")["metadata"]["name"].GetString()));
}

TEST(ParseV2Instance, ReadyTikvAndNotReadyPdTidbTiflash) {
  auto tikv = ParseV2Instance(Load("objects/tikv-0.json"));
  ASSERT_TRUE(tikv.ok()) << tikv.error;
  EXPECT_TRUE(tikv.value->IsReady());
  EXPECT_EQ(tikv.value->store_state, "Serving");

  auto pd = ParseV2Instance(Load("objects/pd-not-ready.json"));
  ASSERT_TRUE(pd.ok()) << pd.error;
  EXPECT_EQ(pd.value->component, "pd");
  EXPECT_EQ(pd.value->ready->reason, "PodNotReady");
  EXPECT_EQ(pd.value->store_id, "");
  EXPECT_EQ(pd.value->pod_name, "pd-pd-x8d2kq");

  auto tidb = ParseV2Instance(Load("objects/tidb-not-ready.json"));
  ASSERT_TRUE(tidb.ok()) << tidb.error;
  EXPECT_EQ(tidb.value->pod_name, "tidb-tidb-h2k9sd");

  auto tiflash = ParseV2Instance(Load("objects/tiflash-not-ready.json"));
  ASSERT_TRUE(tiflash.ok()) << tiflash.error;
  EXPECT_EQ(tiflash.value->kind, "TiFlash");
  EXPECT_EQ(tiflash.value->component, "tiflash");
}

// The six kinds beside the storage and compute ones (TiProxy, TiKVWorker, ResourceManager, Router,
// DM, DMWorker): kind, component (api/meta/v1alpha1/types.go), group, Ready reason, and the pod
// each owns, which is the pod fixture of that kind where one exists.
struct NewKind {
  const char* file;
  const char* kind;
  const char* component;
  const char* group;
  const char* ready_reason;
  const char* pod_name;
  const char* pod_file;  // nullptr: no pod fixture
};

TEST(ParseV2Instance, EveryNewKindWithItsComponentGroupAndPod) {
  for (const NewKind& k : {
           NewKind{"tiproxy.json", "TiProxy", "tiproxy", "tiproxy", "Ready",
                   "tiproxy-tiproxy-k4d9xq", "pods/tiproxy-ready.json"},
           NewKind{"tikvworker.json", "TiKVWorker", "tikv-worker", "tikvworker", "PodNotReady",
                   "tikvworker-tikv-worker-h2n6pt", "pods/tikv-worker-crashloop-no-pd-leader.json"},
           NewKind{"resourcemanager.json", "ResourceManager", "resource-manager", "rm",
                   "PodNotReady", "rm-resource-manager-b7r2kw",
                   "pods/resource-manager-crashloop-no-pd-leader.json"},
           NewKind{"router.json", "Router", "router", "router", "PodNotReady",
                   "router-router-x5m8vd", "pods/router-crashloop-no-pd-leader.json"},
           NewKind{"dm.json", "DM", "dm-master", "dm", "PodNotReady", "dm-dm-master-q3z7lp",
                   nullptr},
           NewKind{"dmworker.json", "DMWorker", "dm-worker", "dmworker", "PodNotReady",
                   "dmworker-dm-worker-t9c4fs", "pods/dm-worker-crashloop-no-dm-master.json"},
       }) {
    SCOPED_TRACE(k.file);
    auto i = ParseV2Instance(Load(std::string("objects/") + k.file));
    ASSERT_TRUE(i.ok()) << i.error;
    EXPECT_EQ(i.value->kind, k.kind);
    EXPECT_EQ(i.value->component, k.component);
    EXPECT_EQ(i.value->cluster, "basic");
    EXPECT_EQ(i.value->group, k.group);
    ASSERT_TRUE(i.value->ready.has_value());
    EXPECT_EQ(i.value->ready->reason, k.ready_reason);
    EXPECT_EQ(i.value->IsReady(), std::string(k.ready_reason) == "Ready");
    EXPECT_EQ(i.value->store_id, "");  // no StoreStatus on these kinds
    EXPECT_EQ(i.value->pod_name, k.pod_name);
    EXPECT_EQ(v2::InstanceNameOfPod(k.pod_name, k.component), i.value->name);
    if (k.pod_file != nullptr) {
      rapidjson::Document pod = Load(k.pod_file);
      EXPECT_EQ(std::string(pod["metadata"]["name"].GetString()), k.pod_name);
      EXPECT_EQ(std::string(pod["metadata"]["labels"]["pingcap.com/instance"].GetString()),
                i.value->name);
    }
  }
}

TEST(ParseV2Group, EveryNewGroupKind) {
  for (const auto& [file, kind, component, replicas, ready] :
       std::vector<std::tuple<const char*, const char*, const char*, int, int>>{
           {"tiproxygroup.json", "TiProxyGroup", "tiproxy", 1, 1},
           {"tikvworkergroup.json", "TiKVWorkerGroup", "tikv-worker", 1, 0},
           {"resourcemanagergroup.json", "ResourceManagerGroup", "resource-manager", 1, 0},
           {"routergroup.json", "RouterGroup", "router", 1, 0},
           {"dmgroup.json", "DMGroup", "dm-master", 3, 0},
           {"dmworkergroup.json", "DMWorkerGroup", "dm-worker", 1, 0},
       }) {
    SCOPED_TRACE(file);
    auto g = ParseV2Group(Load(std::string("objects/") + file));
    ASSERT_TRUE(g.ok()) << g.error;
    EXPECT_EQ(g.value->kind, kind);
    EXPECT_EQ(g.value->component, component);
    EXPECT_EQ(g.value->cluster, "basic");
    EXPECT_EQ(g.value->spec_replicas, replicas);
    EXPECT_EQ(g.value->ready_replicas, ready);
    const v2::Condition* c = v2::FindCondition(g.value->conditions, "Ready");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->reason, replicas == ready ? "Ready" : "NotAllInstancesReady");
  }
}

TEST(ParseV2Instance, GroupFromTheControllerOwnerWhenTheLabelIsGone) {
  rapidjson::Document doc = Load("objects/tikv-2.json");
  doc["metadata"]["labels"].RemoveMember("pingcap.com/group");
  doc["metadata"]["labels"].RemoveMember("pingcap.com/cluster");
  auto i = ParseV2Instance(doc);
  ASSERT_TRUE(i.ok()) << i.error;
  EXPECT_EQ(i.value->group, "tikv");
  EXPECT_EQ(i.value->cluster, "basic");  // spec.cluster.name
}

TEST(ParseV2Group, ReplicasAndReadyCondition) {
  auto g = ParseV2Group(Load("objects/tikvgroup-2of3.json"));
  ASSERT_TRUE(g.ok()) << g.error;
  EXPECT_EQ(g.value->kind, "TiKVGroup");
  EXPECT_EQ(g.value->component, "tikv");
  EXPECT_EQ(g.value->cluster, "basic");
  EXPECT_EQ(g.value->spec_replicas, 3);
  EXPECT_EQ(g.value->replicas, 3);
  EXPECT_EQ(g.value->ready_replicas, 2);
  const v2::Condition* ready = v2::FindCondition(g.value->conditions, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->reason, "NotAllInstancesReady");

  auto pdg = ParseV2Group(Load("objects/pdgroup-ready.json"));
  ASSERT_TRUE(pdg.ok()) << pdg.error;
  EXPECT_EQ(pdg.value->ready_replicas, 3);
  EXPECT_EQ(v2::FindCondition(pdg.value->conditions, "Ready")->status, ConditionStatus::kTrue);
}

// PDGroup's mode (api/core/v1alpha1/pd_types.go): asked for in spec.template.spec.mode, reached in
// status.mode; a group of another kind, or a PDGroup in normal mode, has neither.
TEST(ParseV2Group, PdGroupModeAskedAndReached) {
  auto ms = ParseV2Group(Load("objects/pdgroup-ms.json"));
  ASSERT_TRUE(ms.ok()) << ms.error;
  EXPECT_EQ(ms.value->pd_mode, "ms");
  EXPECT_EQ(ms.value->pd_status_mode, "ms");
  EXPECT_TRUE(v2::InPdMicroservicesMode({&*ms.value}));
  auto normal = ParseV2Group(Load("objects/pdgroup-ready.json"));
  ASSERT_TRUE(normal.ok()) << normal.error;
  EXPECT_EQ(normal.value->pd_mode, "");
  EXPECT_FALSE(v2::InPdMicroservicesMode({&*normal.value}));
  // Asked for, not reached yet (a switch under way): not in microservices mode.
  v2::Group asked = *ms.value;
  asked.pd_status_mode = "";
  EXPECT_FALSE(v2::InPdMicroservicesMode({&asked, &*normal.value}));
  EXPECT_TRUE(v2::InPdMicroservicesMode({&asked, &*ms.value}));
}

TEST(ParseV2Group, StatusNotWrittenYetLeavesReplicasUnset) {
  rapidjson::Document doc = Load("objects/tidbgroup-waiting.json");
  doc.RemoveMember("status");
  auto g = ParseV2Group(doc);
  ASSERT_TRUE(g.ok()) << g.error;
  EXPECT_EQ(g.value->spec_replicas, 1);
  EXPECT_FALSE(g.value->replicas.has_value());
  EXPECT_FALSE(g.value->ready_replicas.has_value());
  EXPECT_TRUE(g.value->conditions.empty());
}

TEST(ParseV2Objects, KubectlListOfMixedKinds) {
  V2Objects o = ParseV2Objects(Load("lists/kubectl-get-v2-no-pd-leader.json"));
  EXPECT_THAT(o.errors, ElementsAre());
  ASSERT_EQ(o.clusters.size(), 1u);
  EXPECT_EQ(o.clusters[0].pd_url, "http://pd-pd.tidb-v2:2379");
  ASSERT_EQ(o.groups.size(), 1u);
  EXPECT_EQ(o.groups[0].kind, "PDGroup");
  std::vector<std::string> kinds;
  for (const auto& i : o.instances) kinds.push_back(i.kind);
  EXPECT_THAT(kinds, ElementsAre("PD", "PD", "PD", "TiKV", "TiKV", "TiKV", "TiDB"));
  for (const auto& i : o.instances) EXPECT_FALSE(i.IsReady()) << i.name;
  EXPECT_EQ(o.other, 0u);
}

TEST(ParseV2Objects, PdReadyOneTikvPreparing) {
  V2Objects o = ParseV2Objects(Load("lists/kubectl-get-v2-pd-ready-tikv-preparing.json"));
  EXPECT_THAT(o.errors, ElementsAre());
  std::vector<std::string> not_ready;
  for (const auto& i : o.instances) {
    if (!i.IsReady()) not_ready.push_back(i.name + " " + i.ready->reason);
  }
  EXPECT_THAT(not_ready,
              UnorderedElementsAre("tikv-m3p8zc InstanceNotHealthy", "tidb-h2k9sd PodNotReady"));
}

TEST(ParseV2Objects, OtherKindsAreCountedAndABadItemIsAnError) {
  rapidjson::Document doc;
  doc.Parse(R"({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "n"}},
    {"apiVersion": "pingcap.com/v1alpha1", "kind": "TidbCluster",
     "metadata": {"name": "basic", "namespace": "tidb"}},
    {"apiVersion": "core.pingcap.com/v1alpha1", "kind": "PlacementPolicy",
     "metadata": {"name": "pp", "namespace": "tidb"}},
    {"apiVersion": "core.pingcap.com/v1alpha1", "kind": "TiKV",
     "metadata": {"name": "tikv-a", "namespace": "tidb"}, "status": {"id": 4}},
    {"apiVersion": "core.pingcap.com/v1alpha1", "kind": "TSO",
     "metadata": {"name": "tso-a", "namespace": "tidb", "labels": {"pingcap.com/cluster": "c"}},
     "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Ready",
       "lastTransitionTime": "2025-03-10T08:00:00Z"}]}},
    7]})");
  V2Objects o = ParseV2Objects(doc);
  EXPECT_EQ(o.other, 4u);  // Pod, TidbCluster, PlacementPolicy, 7
  ASSERT_EQ(o.errors.size(), 1u);
  EXPECT_EQ(o.errors[0], "TiKV tidb/tikv-a: status.id is not a string");
  ASSERT_EQ(o.instances.size(), 1u);
  EXPECT_EQ(o.instances[0].component, "tso");
  EXPECT_EQ(o.instances[0].pod_name, "tso-tso-a");
  EXPECT_TRUE(o.instances[0].IsReady());
}

struct Bad {
  const char* json;
  const char* error;
};

TEST(ParseV2Instance, MalformedDocumentsAreErrors) {
  for (const Bad& b : {
           Bad{"[]", "document is not a JSON object"},
           Bad{R"({"kind":"TiKV","metadata":{"namespace":"n"}})", "no metadata.namespace"},
           Bad{R"({"kind":"TiKV","metadata":"x"})", "metadata is not an object"},
           Bad{R"({"kind":"Pod","metadata":{"name":"a","namespace":"n"}})",
               "kind Pod is not a v2 instance kind"},
           Bad{R"({"kind":"TiKVGroup","metadata":{"name":"a","namespace":"n"}})",
               "kind TiKVGroup is not a v2 instance kind"},
           Bad{R"({"apiVersion":"pingcap.com/v1alpha1","kind":"TiKV",
                "metadata":{"name":"a","namespace":"n"}})",
               "apiVersion pingcap.com/v1alpha1 is not core.pingcap.com/v1alpha1"},
           Bad{R"({"kind":"TiKV","metadata":{"name":"a","namespace":"n"},"status":[]})",
               "status is not an object"},
           Bad{R"({"kind":"TiKV","metadata":{"name":"a","namespace":"n"},
                "status":{"conditions":{}}})",
               "status.conditions is not an array"},
           Bad{R"({"kind":"TiKV","metadata":{"name":"a","namespace":"n"},
                "status":{"conditions":[1]}})",
               "status.conditions[] is not an object"},
           Bad{R"({"kind":"TiKV","metadata":{"name":"a","namespace":"n"},
                "status":{"conditions":[{"status":"True"}]}})",
               "status.conditions[] without a type"},
           Bad{R"({"kind":"TiKV","metadata":{"name":"a","namespace":"n"},
                "status":{"conditions":[{"type":"Ready","lastTransitionTime":"yesterday"}]}})",
               "status.conditions[].lastTransitionTime is not an RFC 3339 time"},
           Bad{R"({"kind":"TiKV","metadata":{"name":"a","namespace":"n"},
                "spec":{"cluster":{"name":5}}})",
               "spec.cluster.name is not a string"},
           Bad{R"({"kind":"TiKV","metadata":{"name":"a","namespace":"n","generation":"1"}})",
               "metadata.generation is not an integer"},
       }) {
    rapidjson::Document doc;
    doc.Parse(b.json);
    ASSERT_FALSE(doc.HasParseError()) << b.json;
    auto r = ParseV2Instance(doc);
    EXPECT_FALSE(r.ok()) << b.json;
    EXPECT_THAT(r.error, ::testing::HasSubstr(b.error)) << b.json;
  }
}

TEST(ParseV2Group, MalformedReplicasIsAnError) {
  rapidjson::Document doc = Load("objects/tikvgroup-2of3.json");
  doc["status"]["readyReplicas"].SetString("2");
  auto g = ParseV2Group(doc);
  EXPECT_FALSE(g.ok());
  EXPECT_EQ(g.error, "status.readyReplicas is not an integer");
  EXPECT_FALSE(ParseV2Group(Load("objects/tikv-0.json")).ok());  // an instance is no group
}

TEST(ParseV2Cluster, MalformedPdIsAnError) {
  rapidjson::Document doc = Load("objects/cluster-ready.json");
  doc["status"]["pd"].SetInt(2379);
  auto c = ParseV2Cluster(doc);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.error, "status.pd is not a string");
  EXPECT_FALSE(ParseV2Cluster(Load("objects/pdgroup-ready.json")).ok());
}

using testing::MutateEach;

TEST(V2Parsers, EveryMemberOfEveryTypeNeverCrashes) {
  int runs = 0;
  for (const char* file :
       {"objects/cluster-ready.json", "objects/tikv-1.json", "objects/tikvgroup-2of3.json",
        "objects/pd-ready-0.json", "objects/dmworker.json", "objects/tiproxygroup.json"}) {
    rapidjson::Document doc = Load(file);
    MutateEach(
        doc, doc,
        [&] {
          auto c = ParseV2Cluster(doc);
          auto i = ParseV2Instance(doc);
          auto g = ParseV2Group(doc);
          V2Objects o = ParseV2Objects(doc);
          // Each document is exactly one of the three, or an error: never two.
          EXPECT_LE(int(c.ok()) + int(i.ok()) + int(g.ok()), 1);
          EXPECT_LE(
              o.clusters.size() + o.groups.size() + o.instances.size() + o.errors.size() + o.other,
              1u);
          if (!c.ok()) {
            EXPECT_FALSE(c.error.empty());
          }
        },
        &runs);
  }
  EXPECT_GT(runs, 1000);
}

}  // namespace
}  // namespace podwait
