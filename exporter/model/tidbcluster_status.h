#pragma once

// What podwait keeps of a TidbCluster (pingcap.com/v1alpha1): the parts that dependency readiness
// and the failover metrics need. Field names follow tidb-operator's
// pkg/apis/pingcap/v1alpha1/types.go (TidbClusterStatus, PDStatus, TiKVStatus, TiDBStatus,
// TiFlashStatus, PDFailureMember, TiDBFailureMember, TiKVFailureStore). The parser is
// exporter/sources/tidbcluster.h.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/common/clock.h"
#include "exporter/model/types.h"

namespace podwait {

// A member or store the operator recorded as failed (status.<component>.failureMembers or
// failureStores; maps keyed by member name or store id).
struct TidbFailureMember {
  std::string component;  // pd, tidb, tikv, tiflash
  std::string id;         // the map key (PD member name, TiDB pod name, store id)
  std::string pod_name;
  Timestamp created_at = 0;  // 0 when the operator did not record it (older versions)
};

struct TidbStoreStatus {
  std::string id;
  std::string pod_name;
  std::string state;              // Up, Down, Offline, Tombstone (as PD reported to the operator)
  Timestamp last_transition = 0;  // lastTransitionTime of its state; 0 when not written
};

// Where a v1 TidbCluster's PD lives, read from its spec (tidb-operator v1.6.6
// pkg/apis/pingcap/v1alpha1/types.go TidbClusterSpec: pd, cluster (a TidbClusterRef: name,
// namespace, clusterDomain), pdAddresses, acrossK8s, clusterDomain; tidbcluster.go
// Heterogeneous(), WithoutLocalPD(), AcrossK8s()), in the order the start scripts choose the PD
// their TiKV/TiDB/TiFlash/Pump join (pkg/manager/member/startscript/v1/render_script.go):
//  - kOwn: spec.pd is set: the cluster's own PD, <name>-pd.<namespace> (also across Kubernetes:
//    the local PD members are members of the one PD cluster). A cluster without a TidbCluster is
//    treated so too (its pods are all podwait knows).
//  - kReferenced: no spec.pd, spec.cluster names a TidbCluster in this Kubernetes (a heterogeneous
//    cluster): its dependency is the referenced cluster's PD and stores, its PD probed at the
//    referenced cluster's address and that cluster's TidbCluster status read.
//  - kExternal: no spec.pd, and PD lives in another Kubernetes (acrossK8s, a spec.cluster with a
//    clusterDomain, or spec.pdAddresses): PD is probed at the first of spec.pdAddresses when
//    there are any; what cannot be told is unknown, never not ready (no local PD is no outage).
//  - kUnknown: no spec.pd and nothing that says where PD is: not probed, unknown.
enum class PdSourceKind : uint8_t { kOwn, kReferenced, kExternal, kUnknown };
inline constexpr std::string_view kPdSourceKindNames[] = {"own", "referenced", "external",
                                                          "unknown"};
constexpr std::string_view PdSourceKindName(PdSourceKind k) {
  return kPdSourceKindNames[static_cast<size_t>(k)];
}

struct PdSource {
  PdSourceKind kind = PdSourceKind::kOwn;
  ClusterKey referenced;               // kReferenced: the TidbCluster whose PD this one joins
  std::vector<std::string> addresses;  // kExternal: spec.pdAddresses as written
  bool across_k8s = false;             // spec.acrossK8s
  std::string cluster_domain;          // spec.clusterDomain, else spec.cluster.clusterDomain
  bool operator==(const PdSource&) const = default;
  // Whether PD belongs to this cluster: its absence (no Ready PD pod, no PD member in its status)
  // is then evidence of an outage; otherwise it says nothing.
  bool Local() const { return kind == PdSourceKind::kOwn; }
  // Whether the prober has an address to ask: own, the referenced cluster's, or an external one
  // from spec.pdAddresses.
  bool Probed() const {
    return kind == PdSourceKind::kOwn || kind == PdSourceKind::kReferenced ||
           (kind == PdSourceKind::kExternal && !addresses.empty());
  }
};

// "own", "PD of tidb/basic (spec.cluster)", "PD at http://... (spec.pdAddresses)", ...: for the
// status page, explain and the logs.
std::string PdSourceText(const PdSource& source);

struct TidbClusterStatus {
  ClusterKey key;
  PdSource pd_source;  // from the spec
  std::string uid;
  std::string resource_version;
  // status.pd.members: member name -> health
  std::map<std::string, bool> pd_members;
  std::string pd_leader;  // status.pd.leader.name; empty when none
  // The latest lastTransitionTime of the healthy PD members (when the last of them turned
  // healthy); 0 when none is written. The cluster's own date of PD's readiness.
  Timestamp pd_healthy_since = 0;
  std::vector<TidbStoreStatus> tikv_stores;  // status.tikv.stores (TiKV only; TiFlash is separate)
  bool tikv_bootstrapped = false;            // status.tikv.bootStrapped
  std::vector<TidbFailureMember> failure_members;  // all four components
  // spec.<component>.replicas; -1 when the component is not in the spec
  int32_t pd_replicas = -1;
  int32_t tikv_replicas = -1;
  int32_t tidb_replicas = -1;
  int32_t tiflash_replicas = -1;

  int PdHealthy() const {
    int n = 0;
    for (const auto& [name, healthy] : pd_members) n += healthy ? 1 : 0;
    return n;
  }
  int TikvStoresIn(std::string_view state) const {
    int n = 0;
    for (const auto& s : tikv_stores) n += s.state == state ? 1 : 0;
    return n;
  }
};

}  // namespace podwait
