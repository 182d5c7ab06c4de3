// The TidbCluster parser and the reflector handler.
//
// The documents below are made up; their shape follows tidb-operator's
// pkg/apis/pingcap/v1alpha1/types.go (TidbClusterStatus: pd.members map with health, pd.leader,
// tikv.stores map with id/podName/state, tikv.bootStrapped, {pd,tidb}.failureMembers and
// {tikv,tiflash}.failureStores maps with podName/createdAt; spec.<component>.replicas).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "exporter/sources/dmcluster.h"
#include "exporter/sources/tidbcluster.h"
#include "exporter/sources/tidbcluster_source.h"

namespace podwait {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr const char* kTc = R"({
  "apiVersion": "pingcap.com/v1alpha1",
  "kind": "TidbCluster",
  "metadata": {"name": "basic", "namespace": "prod", "uid": "u-1", "resourceVersion": "77"},
  "spec": {"version": "v8.1.0", "pd": {"replicas": 3, "baseImage": "pingcap/pd"},
           "tikv": {"replicas": 3}, "tidb": {"replicas": 2}},
  "status": {
    "clusterID": "7452180154224557728",
    "pd": {
      "synced": true, "phase": "Normal",
      "members": {
        "basic-pd-0": {"name": "basic-pd-0", "id": "1428427862495950874", "clientURL": "http://basic-pd-0.basic-pd-peer.prod.svc:2379", "health": true, "lastTransitionTime": "2024-12-25T03:04:00Z"},
        "basic-pd-1": {"name": "basic-pd-1", "id": "2548954049902922308", "clientURL": "http://basic-pd-1.basic-pd-peer.prod.svc:2379", "health": true},
        "basic-pd-2": {"name": "basic-pd-2", "id": "12818309996638325969", "clientURL": "http://basic-pd-2.basic-pd-peer.prod.svc:2379", "health": false}
      },
      "leader": {"name": "basic-pd-1", "id": "2548954049902922308", "clientURL": "http://basic-pd-1.basic-pd-peer.prod.svc:2379", "health": true},
      "failureMembers": {
        "basic-pd-2": {"podName": "basic-pd-2", "memberID": "12818309996638325969", "memberDeleted": false, "createdAt": "2024-12-25T04:00:00Z"}
      }
    },
    "tikv": {
      "synced": true, "phase": "Normal", "bootStrapped": true,
      "stores": {
        "1": {"id": "1", "podName": "basic-tikv-0", "ip": "basic-tikv-0.basic-tikv-peer.prod.svc", "leaderCount": 25, "state": "Up", "lastTransitionTime": "2024-12-25T03:10:00Z"},
        "4": {"id": "4", "podName": "basic-tikv-1", "ip": "basic-tikv-1.basic-tikv-peer.prod.svc", "leaderCount": 0, "state": "Down"}
      },
      "failureStores": {
        "4": {"podName": "basic-tikv-1", "storeID": "4", "createdAt": "2024-12-25T05:00:00Z"}
      }
    },
    "tidb": {
      "phase": "Normal",
      "members": {"basic-tidb-0": {"name": "basic-tidb-0", "health": false}},
      "failureMembers": {"basic-tidb-0": {"podName": "basic-tidb-0", "createdAt": "2024-12-25T06:00:00Z"}}
    },
    "tiflash": {"failureStores": {}}
  }
})";

TEST(TidbClusterParseTest, ReadsStatusAndSpec) {
  auto r = ParseTidbCluster(kTc);
  ASSERT_TRUE(r.ok()) << r.error;
  const TidbClusterStatus& tc = *r.value;
  EXPECT_EQ(tc.key, (ClusterKey{"prod", "basic"}));
  EXPECT_EQ(tc.uid, "u-1");
  EXPECT_EQ(tc.resource_version, "77");
  EXPECT_THAT(tc.pd_members, ElementsAre(Pair("basic-pd-0", true), Pair("basic-pd-1", true),
                                         Pair("basic-pd-2", false)));
  EXPECT_EQ(tc.PdHealthy(), 2);
  EXPECT_EQ(tc.pd_leader, "basic-pd-1");
  EXPECT_TRUE(tc.tikv_bootstrapped);
  ASSERT_EQ(tc.tikv_stores.size(), 2u);
  EXPECT_EQ(tc.TikvStoresIn("Up"), 1);
  EXPECT_EQ(tc.tikv_stores[1].pod_name, "basic-tikv-1");
  // The cluster's own dates (docs/DESIGN.md §4: dependency readiness after a restart): the
  // healthy members' lastTransitionTime (one written), the Up store's.
  EXPECT_EQ(tc.pd_healthy_since, 1735095840000);                // 2024-12-25T03:04:00Z
  EXPECT_EQ(tc.tikv_stores[0].last_transition, 1735096200000);  // 2024-12-25T03:10:00Z
  EXPECT_EQ(tc.tikv_stores[1].last_transition, 0);
  EXPECT_EQ(tc.pd_replicas, 3);
  EXPECT_EQ(tc.tikv_replicas, 3);
  EXPECT_EQ(tc.tidb_replicas, 2);
  EXPECT_EQ(tc.tiflash_replicas, -1);
  EXPECT_THAT(tc.failure_members, ElementsAre(Field(&TidbFailureMember::component, "pd"),
                                              Field(&TidbFailureMember::component, "tidb"),
                                              Field(&TidbFailureMember::component, "tikv")));
  EXPECT_EQ(tc.failure_members[0].pod_name, "basic-pd-2");
  EXPECT_EQ(tc.failure_members[0].created_at, 1735099200000);  // 2024-12-25T04:00:00Z
  EXPECT_EQ(tc.failure_members[2].id, "4");
  EXPECT_EQ(tc.failure_members[2].pod_name, "basic-tikv-1");
}

// Where PD lives (PdSource), from the spec. The specs are tidb-operator v1.6.6's own examples as
// JSON: examples/heterogeneous/heterogeneous-cluster.yaml (spec.cluster, no spec.pd) and
// examples/multi-cluster/tidb-cluster-2.yaml (a cluster in a second Kubernetes with its own PD);
// the others are made up from types.go's TidbClusterSpec (acrossK8s, clusterDomain,
// pdAddresses, cluster) where no example has that shape.
PdSource SourceOf(const std::string& name, const std::string& spec) {
  const std::string doc = R"({"apiVersion": "pingcap.com/v1alpha1", "kind": "TidbCluster",
      "metadata": {"name": ")" +
                          name + R"(", "namespace": "pingcap"}, "spec": )" + spec + "}";
  TidbClusterParse r = ParseTidbCluster(doc);
  EXPECT_TRUE(r.ok()) << r.error;
  return r.ok() ? r.value->pd_source : PdSource{};
}

TEST(TidbClusterParseTest, ThePdSourceComesFromTheSpec) {
  // examples/heterogeneous/heterogeneous-cluster.yaml
  PdSource hetero = SourceOf("basic-heterogeneous", R"({
      "configUpdateStrategy": "RollingUpdate", "version": "v8.5.7", "timezone": "UTC",
      "pvReclaimPolicy": "Retain", "enableDynamicConfiguration": true, "discovery": {},
      "cluster": {"name": "basic"},
      "tikv": {"baseImage": "pingcap/tikv", "maxFailoverCount": 0, "replicas": 1,
               "requests": {"storage": "100Gi"}, "config": {}},
      "tidb": {"baseImage": "pingcap/tidb", "maxFailoverCount": 0, "replicas": 1,
               "service": {"type": "ClusterIP"}, "config": {}},
      "tiflash": {"baseImage": "pingcap/tiflash", "maxFailoverCount": 0, "replicas": 1,
                  "storageClaims": [{"resources": {"requests": {"storage": "100Gi"}}}]}})");
  EXPECT_EQ(hetero.kind, PdSourceKind::kReferenced);
  EXPECT_EQ(hetero.referenced, (ClusterKey{"pingcap", "basic"}));  // namespace defaults to its own
  EXPECT_FALSE(hetero.Local());
  EXPECT_TRUE(hetero.Probed());
  EXPECT_EQ(PdSourceText(hetero), "PD of pingcap/basic (spec.cluster, no spec.pd)");

  // examples/multi-cluster/tidb-cluster-2.yaml: a spec.cluster in another Kubernetes, but its own
  // PD members, which are members of the one PD cluster: its own PD is asked.
  PdSource second = SourceOf("cluster2", R"({
      "version": "v8.5.7", "timezone": "UTC", "pvReclaimPolicy": "Retain",
      "enableDynamicConfiguration": true, "configUpdateStrategy": "RollingUpdate",
      "discovery": {}, "clusterDomain": "cluster2.com",
      "cluster": {"namespace": "pingcap", "name": "cluster1", "clusterDomain": "cluster1.com"},
      "pd": {"baseImage": "pingcap/pd", "maxFailoverCount": 0, "replicas": 1,
             "requests": {"storage": "20Gi"}, "config": {}},
      "tikv": {"baseImage": "pingcap/tikv", "maxFailoverCount": 0, "replicas": 1}})");
  EXPECT_EQ(second.kind, PdSourceKind::kOwn);
  EXPECT_EQ(second.cluster_domain, "cluster2.com");

  // Made up: the same second cluster without its own PD (TiKV and TiDB only, across Kubernetes).
  PdSource across = SourceOf("cluster2", R"({
      "clusterDomain": "cluster2.com", "acrossK8s": true,
      "cluster": {"namespace": "pingcap", "name": "cluster1", "clusterDomain": "cluster1.com"},
      "tikv": {"replicas": 1}})");
  EXPECT_EQ(across.kind, PdSourceKind::kExternal);
  EXPECT_TRUE(across.across_k8s);
  EXPECT_FALSE(across.Probed());  // no spec.pdAddresses: nothing to ask, unknown
  EXPECT_EQ(PdSourceText(across),
            "PD in another Kubernetes (cluster domain cluster2.com), no spec.pdAddresses to ask");

  // Made up: spec.pdAddresses (types.go: "the external PD addresses") and no local PD.
  PdSource addresses = SourceOf("edge", R"({"acrossK8s": true,
      "pdAddresses": ["http://cluster1-pd-0.cluster1-pd-peer.pingcap.svc.cluster1.com:2379"],
      "tidb": {"replicas": 1}})");
  EXPECT_EQ(addresses.kind, PdSourceKind::kExternal);
  EXPECT_THAT(addresses.addresses,
              ElementsAre("http://cluster1-pd-0.cluster1-pd-peer.pingcap.svc.cluster1.com:2379"));
  EXPECT_TRUE(addresses.Probed());

  // Made up: a referenced cluster in another namespace.
  PdSource other_ns =
      SourceOf("tiflash-only", R"({"cluster": {"name": "basic", "namespace": "tidb"},
                                   "tiflash": {"replicas": 1}})");
  EXPECT_EQ(other_ns.kind, PdSourceKind::kReferenced);
  EXPECT_EQ(other_ns.referenced, (ClusterKey{"tidb", "basic"}));

  // Made up: no spec.pd and nothing saying where PD is.
  EXPECT_EQ(SourceOf("x", R"({"tidb": {"replicas": 1}})").kind, PdSourceKind::kUnknown);
  // The usual shape (kTc above): its own PD.
  EXPECT_EQ(ParseTidbCluster(kTc).value->pd_source.kind, PdSourceKind::kOwn);
  // Broken: a non-boolean acrossK8s, a non-array pdAddresses.
  EXPECT_FALSE(
      ParseTidbCluster(R"({"metadata": {"name": "b"}, "spec": {"acrossK8s": "yes"}})").ok());
  EXPECT_FALSE(
      ParseTidbCluster(R"({"metadata": {"name": "b"}, "spec": {"pdAddresses": "h:2379"}})").ok());
}

// A v1 DMCluster: the spec is tidb-operator v1.6.6's examples/dm/dm-cluster.yaml as JSON (with
// three masters); the status is made up after types.go's DMClusterStatus (master.members, a map
// by member name of MasterMember {name, id, clientURL, health, lastTransitionTime}, and leader).
TEST(DmClusterParseTest, ReadsTheMastersAndTheirHealth) {
  DmClusterParse r = ParseDmCluster(R"({
    "apiVersion": "pingcap.com/v1alpha1", "kind": "DMCluster",
    "metadata": {"name": "basic", "namespace": "dm"},
    "spec": {"version": "v8.5.7", "pvReclaimPolicy": "Retain", "discovery": {},
             "master": {"baseImage": "pingcap/dm", "maxFailoverCount": 0, "replicas": 3,
                        "storageSize": "10Gi", "requests": {}, "config": {}},
             "worker": {"baseImage": "pingcap/dm", "maxFailoverCount": 0, "replicas": 1,
                        "storageSize": "100Gi", "requests": {}, "config": {}}},
    "status": {"master": {"synced": true, "phase": "Normal",
      "members": {
        "basic-dm-master-0": {"name": "basic-dm-master-0", "id": "2718623891248157163", "clientURL": "http://basic-dm-master-0.basic-dm-master-peer.dm:8261", "health": true, "lastTransitionTime": "2025-01-10T08:00:00Z"},
        "basic-dm-master-1": {"name": "basic-dm-master-1", "id": "9417623891248157101", "clientURL": "http://basic-dm-master-1.basic-dm-master-peer.dm:8261", "health": false, "lastTransitionTime": "2025-01-10T09:00:00Z"}},
      "leader": {"name": "basic-dm-master-0", "id": "2718623891248157163", "clientURL": "http://basic-dm-master-0.basic-dm-master-peer.dm:8261", "health": true}},
      "worker": {"synced": true, "phase": "Normal"}}
  })");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r->key, (ClusterKey{"dm", "basic"}));
  EXPECT_EQ(r->master_replicas, 3);
  EXPECT_THAT(r->master_members,
              ElementsAre(Pair("basic-dm-master-0", true), Pair("basic-dm-master-1", false)));
  EXPECT_EQ(r->master_leader, "basic-dm-master-0");
  // One healthy of three desired masters: no quorum to take a dm-worker's registration.
  EXPECT_FALSE(r->MasterMajority());
  r->master_members["basic-dm-master-1"] = true;
  EXPECT_TRUE(r->MasterMajority());
  // A fresh DMCluster has no status: no master is healthy.
  DmClusterParse fresh = ParseDmCluster(
      R"({"metadata": {"name": "b", "namespace": "dm"}, "spec": {"master": {"replicas": 1}}})");
  ASSERT_TRUE(fresh.ok()) << fresh.error;
  EXPECT_FALSE(fresh->MasterMajority());
  EXPECT_FALSE(ParseDmCluster(R"({"metadata": {"name": "b"}, "status": {"master": []}})").ok());
}

TEST(TidbClusterParseTest, FreshObjectWithoutStatus) {
  auto r = ParseTidbCluster(
      R"({"metadata":{"name":"new","namespace":"x"},"spec":{"pd":{"replicas":1}}})");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.value->pd_members.empty());
  EXPECT_EQ(r.value->pd_replicas, 1);
  EXPECT_TRUE(r.value->pd_leader.empty());
}

TEST(TidbClusterParseTest, BrokenDocuments) {
  EXPECT_FALSE(ParseTidbCluster("").ok());
  EXPECT_FALSE(ParseTidbCluster("<html></html>").ok());
  EXPECT_FALSE(ParseTidbCluster(std::string(kTc).substr(0, 400)).ok());
  EXPECT_FALSE(ParseTidbCluster("[]").ok());
  EXPECT_THAT(ParseTidbCluster(R"({"spec":{}})").error, HasSubstr("metadata"));
  EXPECT_FALSE(ParseTidbCluster(
                   R"({"metadata":{"name":"a","namespace":"b"},"status":{"pd":{"members":[]}}})")
                   .ok());
  EXPECT_FALSE(
      ParseTidbCluster(
          R"({"metadata":{"name":"a","namespace":"b"},"status":{"pd":{"members":{"x":{"health":"yes"}}}}})")
          .ok());
  EXPECT_FALSE(
      ParseTidbCluster(
          R"({"metadata":{"name":"a","namespace":"b"},"status":{"tikv":{"failureStores":{"1":{"createdAt":"soon"}}}}})")
          .ok());
  EXPECT_FALSE(ParseTidbCluster(
                   R"({"metadata":{"name":"a","namespace":"b"},"spec":{"tikv":{"replicas":"3"}}})")
                   .ok());
  EXPECT_FALSE(ParseTidbCluster(R"({"metadata":{"name":1,"namespace":"b"}})").ok());
}

TEST(TidbClusterSourceTest, ListThenEventsThenNotFound) {
  std::vector<std::string> log;
  TidbClusterCallbacks cb;
  cb.replace = [&](const std::vector<TidbClusterStatus>& all) {
    log.push_back("replace " + std::to_string(all.size()));
  };
  cb.upsert = [&](const TidbClusterStatus& tc) { log.push_back("upsert " + tc.key.Key()); };
  cb.remove = [&](const ClusterKey& k) { log.push_back("remove " + k.Key()); };
  TidbClusterSource source(cb);

  rapidjson::Document good, bad, other;
  good.Parse(kTc);
  bad.Parse(R"({"metadata":{"name":"x","namespace":"y"},"status":{"pd":[]}})");
  other.Parse(R"({"metadata":{"name":"other","namespace":"prod"}})");

  source.OnListBegin();
  EXPECT_TRUE(source.OnListItem(good));
  EXPECT_FALSE(source.OnListItem(bad));  // counted by the reflector, skipped
  source.OnListEnd("100");
  EXPECT_EQ(source.ObjectCount(), std::optional<size_t>(1));

  source.OnListBegin();
  EXPECT_TRUE(source.OnListItem(other));
  source.OnListAbort();  // staged items dropped, previous state kept
  EXPECT_EQ(source.ObjectCount(), std::optional<size_t>(1));

  EXPECT_TRUE(source.OnEvent(WatchEventType::kAdded, other));
  EXPECT_EQ(source.ObjectCount(), std::optional<size_t>(2));
  EXPECT_TRUE(source.OnEvent(WatchEventType::kDeleted, good));
  EXPECT_EQ(source.ObjectCount(), std::optional<size_t>(1));
  EXPECT_TRUE(source.OnNotFound());
  EXPECT_THAT(log, ElementsAre("replace 1", "upsert prod/other", "remove prod/basic"));
}

}  // namespace
}  // namespace podwait
